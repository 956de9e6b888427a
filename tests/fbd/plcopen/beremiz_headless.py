"""``python beremiz_headless.py BEREMIZ_SRC IN.xml OUT.st``: the Structured Text that
Beremiz (and OpenPLC Editor, its fork) generates from a PLCopen project before it
calls matiec's iec2c, written by Beremiz's own code, without a display.

``BEREMIZ_SRC`` is a checkout of github.com/beremiz/beremiz (or the files it needs:
PLCControler.py, PLCGenerator.py, plcopen/, xmlclass/, util/, graphics/, controls/);
nothing of Beremiz is in this repository. Its generator calls no wxPython, but
PLCControler imports a few GUI modules that do at import time (GraphicCommons for
its constants, a tooltip class): a stand-in ``wx`` answers them, every name it is
asked for being a class that can be called, subclassed and combined with ``|``,
and ``GetTranslation`` (Beremiz's ``_``) the identity. ``controls/__init__.py``
imports every widget of the IDE, so the package is registered without running it.

Runs in a process of its own: Beremiz installs ``_`` in builtins. Exit status 0
written; 1 Beremiz refused the project (its first error on stderr); 2 setup.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from pathlib import Path


class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(name)

    def __or__(cls, other):
        return cls

    __ror__ = __or__


class _StandIn(metaclass=_Meta):
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(name)

    def __call__(self, *args, **kwargs):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__


def _stand_in(name: str) -> type:
    return _Meta(name, (_StandIn,), {})


class _WxFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``wx`` and any ``wx.*`` module: modules whose every attribute is a stand-in."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "wx" or fullname.startswith("wx."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []

        def attribute(name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _stand_in(name)

        module.__getattr__ = attribute
        if spec.name == "wx":
            module.Platform = "__WXGTK__"
            module.VERSION = (4, 2, 1)
            module.GetTranslation = lambda text, *args: text
        return module

    def exec_module(self, module):
        pass


def generate(src: Path, project: Path, out: Path) -> int:
    try:
        import lxml  # noqa: F401  (Beremiz's plcopen module parses with it)
    except ImportError:
        print("beremiz_headless: Beremiz's generator needs lxml", file=sys.stderr)
        return 2
    if not (src / "PLCControler.py").is_file():
        print(f"beremiz_headless: {src} has no PLCControler.py (a checkout of "
              f"github.com/beremiz/beremiz)", file=sys.stderr)
        return 2
    sys.meta_path.insert(0, _WxFinder())
    sys.path.insert(0, str(src))
    controls = types.ModuleType("controls")
    controls.__path__ = [str(src / "controls")]
    sys.modules["controls"] = controls
    from PLCControler import PLCControler
    controller = PLCControler()
    error = controller.OpenXMLFile(str(project.resolve()))
    if controller.Project is None:
        print(f"beremiz_headless: Beremiz cannot open {project}: {error}", file=sys.stderr)
        return 1
    try:
        _text, errors, _warnings = controller.GenerateProgram(str(out.resolve()))
    except Exception as e:          # the generator's refusals are exceptions too
        print(f"beremiz_headless: Beremiz's generator: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if errors:
        print(f"beremiz_headless: Beremiz's generator: {errors[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.splitlines()[0], file=sys.stderr)
        sys.exit(2)
    sys.exit(generate(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
