"""Find the block libraries and the ``fbd`` command's plug-ins through entry points.

``fbd/`` never imports ``blocks/`` (or any program) by name: dependencies point
``hmi → programs → blocks → fbd``. A package that provides block types names
its module in the ``fbd.libraries`` entry-point group of its
``pyproject.toml``; importing that module registers its blocks with
:func:`fbd.register`. :func:`load_libraries` imports every such module, so
:func:`fbd.registry` is complete afterwards (``fbd blocks``, ``fbd bench``).

Packages that add verbs to the ``fbd`` command name a function
``register(subparsers)`` in the ``fbd.commands`` group; :func:`command_plugins`
lists them for :mod:`fbd.tools.cli`.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from .errors import FbdError

LIBRARIES = "fbd.libraries"
COMMANDS = "fbd.commands"

_loaded: dict[str, object] = {}


def load_libraries() -> list[str]:
    """Import every module of the ``fbd.libraries`` group (once); return their
    entry-point names. A library that fails to import raises :class:`FbdError`
    naming it and the cause."""
    names = []
    for ep in sorted(entry_points(group=LIBRARIES), key=lambda e: e.name):
        names.append(ep.name)
        if ep.name in _loaded:
            continue
        try:
            _loaded[ep.name] = ep.load()
        except Exception as e:  # a broken library: say which, in one line
            raise FbdError(f"block library {ep.name!r} ({ep.value}) failed to load: "
                           f"{type(e).__name__}: {e}") from e
    return names


#: the block types fbd's own code places by name, and what for: the PLCopen
#: importer builds variables, EN/ENO and ladder rungs from them, and member and
#: element access. Any library providing blocks of these names with these ports
#: will do; :func:`block_type` says which one is missing and who needs it.
USED_BY_FBD = {
    "MOVE": "variables and EN/ENO (PLCopen import)",
    "SEL": "EN/ENO and coils (PLCopen import)",
    "OR": "parallel ladder branches and set coils (PLCopen import)",
    "AND": "series ladder contacts (PLCopen import)",
    "NOT": "negated contacts and coils (PLCopen import)",
    "R_TRIG": "rising-edge contacts and inputs (PLCopen import)",
    "F_TRIG": "falling-edge contacts and inputs (PLCopen import)",
    "MEMBER": "reading a structure's field (PLCopen import)",
    "SET_MEMBER": "writing a structure's field (PLCopen import)",
    "ELEMENT": "reading an array's element (PLCopen import)",
    "SET_ELEMENT": "writing an array's element (PLCopen import)",
}


def block_type(name: str, needed_by: str | None = None):
    """The registered block type ``name``, the libraries loaded first; an
    :class:`FbdError` naming the block and what needs it when none provides it."""
    from .block import registry
    load_libraries()
    cls = registry().get(name)
    if cls is None:
        why = needed_by or USED_BY_FBD.get(name, "this program")
        raise FbdError(f"no block library provides {name}, which {why} needs "
                       f"(libraries come from the {LIBRARIES!r} entry points; "
                       f"is fbd-sim installed with its blocks package?)")
    return cls


def command_plugins() -> list[EntryPoint]:
    """The ``fbd.commands`` entry points, sorted by name (not loaded)."""
    return sorted(entry_points(group=COMMANDS), key=lambda e: e.name)


__all__ = ["load_libraries", "command_plugins", "block_type", "USED_BY_FBD", "LIBRARIES",
           "COMMANDS"]
