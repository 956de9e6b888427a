"""Where programs come from: a project file, or a network named on a command line.

``load(path)`` reads a whole project (PLCopen XML or Structured Text);
``load_network(target)`` the one network a target names (``MODULE:FUNCTION``,
``file.py:FUNCTION``, ``FILE.xml:POU``, ``FILE.st:PROGRAM``), for the command
line, the debugger, the Modbus server and the benchmarks alike.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from .errors import FbdError
from .network import Network


class LoadError(FbdError):
    """A target that names no loadable program; printed as one line."""


def load(path):
    """A project from a file: PLCopen TC6 XML (``.xml``, :mod:`fbd.plcopen`) or IEC
    61131-3 Structured Text (``.st``, :mod:`fbd.st`). Both give ``pous``,
    ``network(name)``, ``configuration``, ``plc(cycle=...)`` and ``errors``."""
    text = str(path).lower()
    if text.endswith(".st"):
        from .st.project import load as load_st
        return load_st(path)
    if text.endswith(".xml"):
        from .plcopen.project import load_project
        return load_project(path)
    raise LoadError(f"{path}: not a project file; fbd.load reads .xml (PLCopen) and .st "
                    f"(Structured Text)")


def is_project_file(target: str) -> bool:
    """A PLCopen ``.xml`` or an IEC 61131-3 ``.st`` file: a project (fbd.load)."""
    return target.lower().endswith((".xml", ".st"))


def load_network(target: str) -> Network:
    """``MODULE:FUNCTION`` (or ``path/to/file.py:FUNCTION``) → the Network it builds.

    ``FILE.xml:POU`` imports the FBD POU of a PLCopen project (fbd.plcopen),
    ``FILE.st:PROGRAM`` a PROGRAM of a Structured Text file (fbd.st).

    FUNCTION may also name a Network object. The current directory is searched
    for MODULE first, as ``python -m`` does.
    """
    module_name, colon, attr = target.rpartition(":")
    if is_project_file(target):  # a whole project where one network is wanted
        pous = list(load(target).pous)
        example = f"{target}:{pous[0]}" if pous else f"{target}:POU"
        what = "PROGRAMs" if target.lower().endswith(".st") else "FBD POUs"
        raise LoadError(f"{target}: name the POU, as in {example} (its {what}: "
                       f"{', '.join(pous) or 'none'})")
    if not colon or not module_name or not attr:
        raise LoadError(f"{target!r}: name the network as MODULE:FUNCTION, "
                       f"e.g. programs.game2048:build")
    if is_project_file(module_name):  # a PLCopen project: FILE.xml:POU
        return load(module_name).network(attr)
    module = _import(module_name)
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [n for n in dir(obj) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise LoadError(f"{module_name} has no attribute {attr!r}{hint}") from None
    if isinstance(obj, Network):
        return obj
    if not callable(obj):
        raise LoadError(f"{target} is neither a Network nor a function that returns one "
                       f"(it is of type {type(obj).__name__})")
    try:
        net = obj()
    except FbdError:
        raise
    except Exception as e:
        raise LoadError(f"{target}() raised {type(e).__name__}: {one_line(str(e))}") from e
    if not isinstance(net, Network):
        raise LoadError(f"{target}() returned {type(net).__name__}, not a Network")
    return net


def _import(module_name: str):
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise LoadError(f"no file {module_name}")
        name = f"_fbd_cli_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(name, None)
            raise LoadError(f"importing {module_name} failed: {type(e).__name__}: "
                           f"{one_line(str(e))}") from e
        return module
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise LoadError(f"no module named {module_name!r} (looked in the current "
                           f"directory and the installed packages)") from e
        raise LoadError(f"importing {module_name} failed: {type(e).__name__}: {e}") from e
    except Exception as e:
        raise LoadError(f"importing {module_name} failed: {type(e).__name__}: "
                       f"{one_line(str(e))}") from e


def one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


__all__ = ["load", "load_network", "LoadError", "is_project_file", "one_line"]
