"""The debugger's *Online change*: a changed program loaded into the PLC it shows,
with a preview of what is kept, initialised and dropped (:mod:`fbd.runtime.online`).

The debugger pauses, finishes a scan stepped into (the change happens at a
scan boundary), and after the change makes anew what was compiled against
the old program: every breakpoint condition is compiled again from its text
(one that names a path the new program lacks is removed, and said so), line
breakpoints go (the source changed), watches and trended paths the new
program lacks go; the trend keeps its samples. The views hear ``"program"``
and rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FbdError
from ..runtime.online import Change, preview
from .breakpoints import Breakpoints
from .stepping import BlockStepper

__all__ = ["DebuggerChange", "preview_change", "online_change", "load_changed"]


@dataclass
class DebuggerChange:
    """The PLC's :class:`~fbd.runtime.online.Change` (a configuration's
    :class:`~fbd.runtime.online_configuration.ConfigurationChange`), and what the
    debugger let go."""
    change: Change
    dropped_breakpoints: list[str] = field(default_factory=list)
    dropped_watches: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return (self.change.lines()
                + [f"breakpoint {text}: removed" for text in self.dropped_breakpoints]
                + [f"watch {path}: removed (no longer in the program)"
                   for path in self.dropped_watches])


def load_changed(dbg, path: str):
    """The changed version of the debugger's program in ``path``: in a .st or PLCopen
    file, its POU of the same name (the whole project when the PLC runs its
    configuration); a Python network as ``fbd debug`` names it
    (``FILE.py:FUNCTION`` or ``MODULE:FUNCTION``; a bare ``FILE.py``: its ``build``),
    the file read anew."""
    from ..loading import is_project_file, load, load_network
    if dbg is not None and dbg.plc.names is not None:   # a configuration changes whole
        if not is_project_file(path):
            raise FbdError(f"{path}: the PLC runs a configuration; give the changed "
                           f".st or PLCopen project")
        return load(path)
    if not is_project_file(path):
        if path.lower().endswith(".py"):
            path += ":build"
        return load_network(path)
    project = load(path)
    name = dbg.program.network.name
    match = next((p for p in project.pous if p.upper() == name.upper()), None)
    if match is None:
        raise FbdError(f"{path} has no POU named {name} (its POUs: "
                       f"{', '.join(project.pous) or 'none'})")
    return project.network(match)


def preview_change(dbg, new) -> Change:
    """What :func:`online_change` would do to the PLC's variables; changes nothing."""
    if dbg.plc.names is not None:
        from ..runtime.online_configuration import preview as preview_configuration
        return preview_configuration(dbg.plc, new)
    return preview(dbg.plc, new)


def online_change(dbg, new) -> DebuggerChange:
    """Load ``new`` into the debugger's PLC (see the module's text)."""
    dbg.pause()
    if dbg.in_scan:
        dbg._stepping.complete()
    if dbg.plc.names is not None:
        change = dbg.plc.replace_configuration(new)
    else:
        change = dbg.plc.replace_program(new)
    done = DebuggerChange(change)
    old = dbg._breakpoints.all()
    dbg._breakpoints = Breakpoints(dbg.table, dbg.plc.scans)
    for bp in old:
        try:
            added = dbg._breakpoints.add(bp.text, dbg._signals, dbg.table, bp.edge, bp.enabled)
        except FbdError as e:
            done.dropped_breakpoints.append(f"{bp.text} ({e})")
        else:
            added.hits = bp.hits
    for line_bp in dbg._lines.all():
        dbg._lines.remove(line_bp)
    dbg._stepping = BlockStepper(dbg.plc, dbg._breakpoints, dbg._lines)
    done.dropped_watches = [p for p in dbg._watches if not _known(dbg, p)]
    dbg._watches = [p for p in dbg._watches if p not in done.dropped_watches]
    dbg._completer = None
    if dbg._trend.trace is not None and change.untraced:
        dbg._trend.record([p for p in dbg._trend.paths if p not in change.untraced])
    dbg.last_hit = None
    dbg._emit("program")
    return done


def _known(dbg, path: str) -> bool:
    try:
        dbg._signals.signal(path)
    except FbdError:
        return False
    return True
