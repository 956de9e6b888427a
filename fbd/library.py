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


def command_plugins() -> list[EntryPoint]:
    """The ``fbd.commands`` entry points, sorted by name (not loaded)."""
    return sorted(entry_points(group=COMMANDS), key=lambda e: e.name)


__all__ = ["load_libraries", "command_plugins", "LIBRARIES", "COMMANDS"]
