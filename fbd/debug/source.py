"""The debugger's ST side: line breakpoints, stepping by statement, an ST POU's
source with its values, and an SFC chart's active steps.

:class:`SourceDebugging` is a part of :class:`~.debugger.Debugger` (a base
class of it, kept apart so each stays readable); its API, for the views:

ST POU instances
    :meth:`~SourceDebugging.st_instances`: every ST (IL, SFC) POU instance of
    the main program, by path (``Main``, ``Main.c``), with its POU;
    :meth:`~SourceDebugging.st_pou`.

Line breakpoints
    :meth:`~SourceDebugging.add_line_breakpoint` on an instance (``"Main.c"``,
    that instance's calls) or a POU type (``"Counter"``: every instance; a
    FUNCTION's every call), at a line; a line without a statement moves to
    the next with one (``bp.note`` says so), one past the POU's last
    statement is an :class:`~fbd.errors.FbdError` naming the POU. They are in
    ``breakpoints`` with the conditions, and :meth:`remove_breakpoint`,
    :meth:`enable_breakpoint` take them too. While one is enabled, every run
    (run, advance, step, run until break) runs the ST blocks that may reach
    it statement by statement (slower, see docs/debugger.md), the other
    blocks and the rest as compiled. A hit pauses *before* the statement, in
    the scan, inside the POU's call: ``frames`` says where.

Stepping by statement
    :meth:`~SourceDebugging.step_line` runs to the next statement of any ST
    POU: into a POU the statement calls (``over=True``: over it, to the next
    statement of this POU or, when it returns, the next anywhere), on through
    blocks and into the next scan's first; it begins a scan when none is in
    progress and ends the scan when no statement is left in it.
    ``frames``: the POU calls paused at a statement (outermost first),
    ``current_line``: (instance, line) of the innermost.

Values while paused inside a POU
    The call's variables are the generator's locals, not yet in the table:
    :meth:`~SourceDebugging.live` reads a path as the call sees it at that
    point, :meth:`~SourceDebugging.source` (the source view's rows) and
    :meth:`~SourceDebugging.sfc_steps` use it. A write or force while paused
    inside a POU goes to the table; the call in progress keeps computing with
    what it read when it was called, so the change takes effect from the next
    block (for the POU's own variables: its next call); a force is applied
    again as the call returns, so it holds from there on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import FbdError
from ..st.debugcode import last_line, statement_lines
from ..st.live import _paths, referenced
from ..st.model import LibraryFb, PouInfo
from ..values import format_value
from .breakpoints import Hit
from .lines import Frame, LineBreakpoint, st_info


@dataclass(frozen=True)
class SourceLine:
    """One row of the source view."""
    line: int
    text: str
    values: dict                    # {variable path: IEC text} of what the line names
    statement: bool                 # a breakpoint can be set here
    breakpoints: tuple              # the line breakpoints on it that apply to this instance
    current: bool                   # the call is paused before this line
    caller: bool                    # an outer call is at this line (it called the current one)


@dataclass(frozen=True)
class StepState:
    """One SFC step now."""
    name: str
    initial: bool
    active: bool
    time: str                       # how long active, IEC text (T#1s200ms)
    line: int
    actions: tuple[str, ...]


class SourceDebugging:
    """Line breakpoints, step line, source rows, SFC steps (see the module docstring)."""

    # -- ST instances --------------------------------------------------------------------
    def st_instances(self) -> dict[str, PouInfo]:
        """Every ST POU instance of the main program: path -> its POU, in execution
        order, each instance's FB instances after it."""
        out: dict[str, PouInfo] = {}
        program = self.program
        for index in program.order:
            leaf = program.leaves[index]
            info = st_info(leaf.block)
            if info is not None:
                _instances(leaf.path, info, out)
        return out

    def st_pou(self, where: str) -> tuple[PouInfo, str | None]:
        """(the POU, the instance path or None) that ``where`` names: an instance's path,
        else a POU's name (any case); an FbdError lists what there is."""
        instances = self.st_instances()
        if where in instances:
            return instances[where], where
        pous = _pous(instances.values())
        info = pous.get(where.upper())
        if info is not None:
            return info, None
        raise FbdError(f"{where!r} is neither an ST POU instance ("
                       f"{', '.join(instances) or 'there is none'}) nor an ST POU ("
                       f"{', '.join(p.name for p in pous.values()) or 'none'})")

    # -- line breakpoints ---------------------------------------------------------------
    @property
    def line_breakpoints(self) -> list[LineBreakpoint]:
        return self._lines.all()

    def add_line_breakpoint(self, where: str, line: int, *, enabled: bool = True) -> LineBreakpoint:
        """A breakpoint before the statement at ``line`` of an ST POU instance
        (``"Main.c"``) or of every instance of a POU (``"Counter"``)."""
        info, instance = self.st_pou(where)
        bp = self._lines.add(info, instance, line, enabled)
        self._emit("breakpoints")
        return bp

    def line_breakpoints_at(self, where: str, line: int) -> list[LineBreakpoint]:
        """The line breakpoints that would stop ``where`` (instance or POU) at ``line``."""
        info, instance = self.st_pou(where)
        return [bp for bp in self._lines.all() if bp.pou is info and bp.line == line
                and (bp.instance is None or bp.instance == instance)]

    def toggle_line_breakpoint(self, where: str, line: int) -> LineBreakpoint | None:
        """Remove the breakpoints on ``line`` of ``where``, or add one (a click in the
        source view's gutter); returns the one added."""
        found = self.line_breakpoints_at(where, line)
        if found:
            for bp in found:
                self._lines.remove(bp)
            self._emit("breakpoints")
            return None
        return self.add_line_breakpoint(where, line)

    # -- stepping by statement -------------------------------------------------------------
    @property
    def frames(self) -> list[Frame]:
        """The ST POU calls paused before a statement, outermost first ([] if none)."""
        return self._stepping.frames

    @property
    def current_line(self) -> tuple[str, int] | None:
        """(instance, line) of the statement the innermost paused call runs next (for a
        FUNCTION its name: what :meth:`source` takes)."""
        frames = self.frames
        return (frames[-1].where, frames[-1].line) if frames else None

    def step_line(self, over: bool = False) -> Hit | None:
        """Run to the next statement (see the module docstring); the hit if a
        breakpoint fired first."""
        self.pause()
        if not self.in_scan:
            self._sync_prev()
            self._stepping.begin()
        return self._stepped(*self._stepping.step_line(over))

    # -- values -------------------------------------------------------------------------
    def live_raw(self, path: str):
        """(type, raw value) of ``path`` as the paused call sees it (else the table's)."""
        for frame in reversed(self.frames):
            if frame.pou.kind != "FUNCTION" and path.startswith(frame.instance + "."):
                rel = path[len(frame.instance) + 1:]
                try:
                    return _type_of(frame.pou, rel), frame.get(rel)
                except KeyError:
                    break
        info = self.info(path)
        return info.type, info.const if info.slot is None else self.table[info.slot]

    def live(self, path: str):
        """The value of ``path`` now, as the paused call sees it (Python value)."""
        tp, raw = self.live_raw(path)
        return tp.to_python(raw) if tp is not None else raw

    def source(self, where: str, lines: range | None = None) -> list[SourceLine]:
        """The source view's rows of an ST POU instance (or a POU by name: a FUNCTION,
        whose values show while a call of it is paused); ``lines``: read the values
        of those lines only (the ones on screen), the others' are left empty."""
        info, instance = self.st_pou(where)
        frames = self.frames
        mine = [f for f in frames if f.pou is info and (instance is None or f.instance == instance)]
        current = mine[-1].line if mine and mine[-1] is frames[-1] else None
        callers = {f.line for f in mine if f is not frames[-1]}
        stops, known, refs, end = self._outline(info)
        on_line: dict[int, list] = {}
        for bp in self._lines.all():
            if bp.pou is info and (bp.instance is None or bp.instance == instance):
                on_line.setdefault(bp.line, []).append(bp)
        text = info.st_source.splitlines()
        rows = []
        for n in range(info.node.line, end + 1):
            values = {}
            for path in refs.get(n, ()) if lines is None or n in lines else ():
                if path.upper() in known:
                    shown = self._shown(info, instance, mine, path)
                    if shown is not None:
                        values[path] = shown
            rows.append(SourceLine(n, text[n - 1] if n <= len(text) else "", values, n in stops,
                                   tuple(on_line.get(n, ())), n == current, n in callers))
        return rows

    def _outline(self, info: PouInfo) -> tuple:
        """(statement lines, variable paths, paths by line, END line) of a POU, made once."""
        cache = self.__dict__.setdefault("_outlines", {})
        found = cache.get(id(info))
        if found is None or found[0] is not info:
            known = {p.upper() for p in _paths(info)} | {v.upper() for v in info.variables}
            found = cache[id(info)] = (info, set(statement_lines(info)), known,
                                       _users_refs(info), last_line(info))
        return found[1:]

    def _shown(self, info: PouInfo, instance: str | None, mine: list[Frame], path: str):
        if mine and info.kind == "FUNCTION":
            try:
                return format_value(_type_of(info, path), mine[-1].get(path))
            except KeyError:
                return None
        if instance is None:
            return None
        try:
            return format_value(*self.live_raw(f"{instance}.{path}"))
        except (FbdError, KeyError):       # a path the block does not show (a temporary)
            return None

    def sfc_steps(self, instance: str) -> list[StepState]:
        """Each step of the SFC POU instance's chart, active or not, and for how long."""
        info, inst = self.st_pou(instance)
        if info.chart is None or inst is None:
            raise FbdError(f"{instance} is not an instance of an SFC POU")
        out = []
        for step in info.chart.steps:
            active = bool(self.live_raw(f"{inst}.{step.name}.X")[1])
            tp, raw = self.live_raw(f"{inst}.{step.name}.T")
            out.append(StepState(step.name, step.initial, active, format_value(tp, raw),
                                 step.line, step.actions))
        return out

    def sfc_instances(self) -> list[str]:
        """The SFC POU instances (their charts' steps: :meth:`sfc_steps`)."""
        return [path for path, info in self.st_instances().items() if info.chart is not None]


def _users_refs(info: PouInfo) -> dict[int, list[str]]:
    """Line -> the variables shown after it: those it names, less, in a chart, the
    variables of its lowering (``__SFC_ELAPSED``, ``S1.PREV``, ``A1.Q``) that the
    line's text does not name itself (a transition's ``Busy.T`` is the user's)."""
    refs = referenced(info.node)
    chart = info.chart
    if chart is None:
        return refs
    lines = info.st_source.splitlines()
    charted = {name.upper() for name in (*(s.name for s in chart.steps), *chart.actions)}

    def users(path: str, line: int) -> bool:
        head = path.split(".", 1)[0].upper()
        if not (path.startswith("__") or ("." in path and head in charted)):
            return True
        text = lines[line - 1] if line <= len(lines) else ""
        return re.search(rf"(?<![\w.]){re.escape(path)}(?![\w.])", text, re.I) is not None

    return {line: [p for p in paths if users(p, line)] for line, paths in refs.items()}


def _instances(path: str, info: PouInfo, out: dict) -> None:
    out[path] = info
    for var in info.variables.values():
        if isinstance(var.fb, PouInfo):
            _instances(f"{path}.{var.path}", var.fb, out)


def _pous(infos) -> dict[str, PouInfo]:
    """Every POU the instances' units hold (FUNCTIONs and FB types too), by NAME."""
    out: dict[str, PouInfo] = {}
    for info in infos:
        for other in (info.context.infos.values() if info.context is not None else (info,)):
            out.setdefault(other.name.upper(), other)
    return out


def _type_of(info: PouInfo, path: str):
    """The type of the variable ``path`` of the POU (through FB instances)."""
    head, _, rest = path.partition(".")
    var = info.variables.get(head.upper())
    if var is None:
        entry = next((e for e in info.state if e.path.upper() == path.upper()), None)
        return entry.type if entry is not None else None
    if not rest:
        return var.type
    if isinstance(var.fb, PouInfo):
        return _type_of(var.fb, rest)
    if isinstance(var.fb, LibraryFb):
        return var.fb.member_type(rest)
    entry = next((e for e in info.state if e.path.upper() == path.upper()), None)
    return entry.type if entry is not None else None


__all__ = ["SourceDebugging", "SourceLine", "StepState"]
