"""Breaking on a line of an ST POU (IL and SFC are lowered to ST): line
breakpoints, the POU calls paused at a statement, and one ST block run
statement by statement.

An ST POU is one block whose code calls one generated function; for the
debugger that block runs instead as the POU's stepped variant
(:mod:`fbd.st.debugcode`), a generator that stops before every statement, with
``yield from`` into the POUs it calls. :class:`LeafRun` drives one such block
call: each :meth:`~LeafRun.resume` runs to the next statement and rebuilds the
stack of :class:`Frame` (outermost first: the block's POU, then each POU it is
inside of), each with its POU instance's path and the line it is at, and the
values of its variables *at that point* (the generator's locals: the table
holds them only once the POU returns). The block's outputs and state reach the
table when the call returns, as in the compiled scan, so a scan run this way
leaves the table exactly as the compiled scan does.

:class:`LineBreakpoints` holds the breakpoints on lines, each on one POU
instance (``Main.c``, every call of that instance) or on a POU type
(``Counter``, every instance, and every call of a FUNCTION), and says which
fire at a frame. A line that holds no statement moves to the next one that
does (as gdb does; the breakpoint's ``note`` says so); a line past the POU's
last statement, or outside the POU, is an error naming the POU.
"""

from __future__ import annotations

import ast as _ast
import time as _time

from ..block import code_namespace
from ..errors import FbdError
from ..st.debugcode import debug_function, debug_name, last_line, pou_of_code, statement_lines, stepped_calls
from ..st.model import PouInfo, local_name


class LineBreakpoint:
    """A breakpoint before the statement at ``line`` of an ST POU.

    ``instance``: the POU instance's path (``Main.c``), or None for every
    instance of the POU type ``pou``; ``requested_line``: the line asked for
    (``line`` is the next with a statement, ``note`` says why they differ).
    ``enabled`` may be set directly; ``hits`` counts the pauses it caused.
    """

    edge = False
    paths: tuple[str, ...] = ()

    def __init__(self, ident: int, pou: PouInfo, instance: str | None, line: int,
                 requested_line: int, enabled: bool = True):
        self.id = ident
        self.pou = pou
        self.instance = instance
        self.line = line
        self.requested_line = requested_line
        self.enabled = enabled
        self.hits = 0
        where = instance if instance is not None else f"{pou.name} (every instance)"
        self.text = f"line {line} of {where}"
        self.note = "" if line == requested_line else (
            f"line {requested_line} of {pou.label} holds no statement; the breakpoint is on "
            f"line {line}, the next that does")

    def __repr__(self) -> str:
        flags = "" if self.enabled else ", disabled"
        return f"<LineBreakpoint {self.id} {self.text!r}{flags}, {self.hits} hits>"


class Frame:
    """One POU call paused before a statement: its POU, instance path and line.

    A FUNCTION has no instance: its frame's ``instance`` is the instance that
    called it. :meth:`get` and :meth:`values` read the call's variables now
    (by path relative to the POU: ``n``, ``c.count``).
    """

    def __init__(self, pou: PouInfo, instance: str, gen, line: int = 0):
        self.pou = pou
        self.instance = instance
        self.gen = gen
        self.line = line

    @property
    def where(self) -> str:
        """What :meth:`~.source.SourceDebugging.source` shows this call by: the instance,
        or a FUNCTION's name."""
        return self.pou.name if self.pou.kind == "FUNCTION" else self.instance

    @property
    def locals(self) -> dict:
        frame = self.gen.gi_frame
        return {} if frame is None else frame.f_locals

    def get(self, path: str):
        """The variable ``path`` (relative to the POU) now; KeyError if it is none."""
        return self.locals[local_name(path)]

    def values(self) -> dict[str, object]:
        """Every variable of the call that is one (no temporaries), by path."""
        mine = self.locals
        out = {}
        for path in _variable_paths(self.pou):
            local = local_name(path)
            if local in mine:
                out[path] = mine[local]
        return out

    def __repr__(self) -> str:
        return f"<Frame {self.pou.name} {self.instance} line {self.line}>"


def _variable_paths(info: PouInfo) -> list[str]:
    paths = [v.path for v in info.inputs] + [v.path for v in info.outputs]
    paths += [e.path for e in info.state]
    if info.kind == "FUNCTION":
        paths += [v.path for v in info.variables.values() if v.fb is None and v.path not in paths]
    return paths


# ------------------------------------------------------------------ one block, stepped
class LeafRun:
    """One ST block's call, run statement by statement (see the module docstring)."""

    def __init__(self, gen, info: PouInfo, instance: str):
        self.gen = gen
        self.info = info
        self.instance = instance
        self.frames: list[Frame] = []
        self.ns = 0                 # wall time spent running it
        self.done = False

    def resume(self) -> bool:
        """Run to the next statement (True, ``frames`` says where) or to the end of the
        call (False: the block's outputs and state are in the table)."""
        t0 = _time.perf_counter_ns()
        try:
            line = next(self.gen)
        except StopIteration:
            self.done = True
            self.frames = []
            return False
        finally:
            self.ns += _time.perf_counter_ns() - t0
        self._restack(line)
        return True

    def _restack(self, line: int) -> None:
        """The frames, from the chain of generators (the leaf's, then each POU's): the
        ones still running are kept, with the line each last stopped at."""
        frames = self.frames
        gen = self.gen.gi_yieldfrom        # the leaf's code delegates to the POU at once
        depth = 0
        while gen is not None:
            if depth < len(frames) and frames[depth].gen is gen:
                depth += 1
            else:
                del frames[depth:]
                info = pou_of_code(gen.gi_code) if depth else self.info
                if info is None:        # not a POU's stepped code: no frame below
                    break
                frames.append(Frame(info, self._instance_below(frames, info), gen))
                depth += 1
            gen = gen.gi_yieldfrom
        del frames[depth:]
        if frames:
            frames[-1].line = line

    def _instance_below(self, frames: list[Frame], info: PouInfo) -> str:
        if not frames:
            return self.instance
        caller = frames[-1]
        if info.kind == "FUNCTION":
            return caller.instance
        name = caller.locals.get("_dbg_call")
        return f"{caller.instance}.{name}" if name else caller.instance


def leaf_generator(program, index: int):
    """The ST block ``program.leaves[index]`` as a generator function ``g(s, now)``:
    the block's own statements over the table, its POU called stepped."""
    info = type(program.leaves[index].block).st_info
    lines = program.leaf_code(index)
    src = "def _one(s, now):\n" + "".join(f"    {ln}\n" for ln in lines)
    tree = stepped_calls(src, {info.fn_name: debug_name(info)})
    ns = code_namespace([program.leaves[index].block])
    ns[debug_name(info)] = debug_function(info)
    exec(compile(tree, f"<fbd debug {program.leaves[index].path}>", "exec"), ns)
    fn = ns["_one"]
    if not any(isinstance(n, _ast.YieldFrom) for n in _ast.walk(tree)):
        raise FbdError(f"{program.leaves[index].path}: its code does not call {info.label}")
    return fn


def st_info(block) -> PouInfo | None:
    """The POU an ST block runs (None for any other block)."""
    info = getattr(type(block), "st_info", None)
    return info if isinstance(info, PouInfo) and info.context is not None else None


# ------------------------------------------------------------------ the breakpoints
class LineBreakpoints:
    """The line breakpoints of one debugger, and what matching them needs."""

    def __init__(self, new_id):
        self._new_id = new_id
        self._list: list[LineBreakpoint] = []
        self._lines: dict[str, set[int]] = {}   # POU fn_name -> lines with an enabled one

    def all(self) -> list[LineBreakpoint]:
        return list(self._list)

    def __len__(self) -> int:
        return len(self._list)

    @property
    def armed(self) -> bool:
        """Some line breakpoint is enabled (runs go statement by statement)."""
        return bool(self._lines)

    def owns(self, bp) -> bool:
        return any(b is bp or b.id == bp for b in self._list)

    def find(self, bp) -> LineBreakpoint:
        for b in self._list:
            if b is bp or b.id == bp:
                return b
        raise FbdError(f"no line breakpoint {bp!r}")

    def add(self, pou: PouInfo, instance: str | None, line: int, enabled: bool) -> LineBreakpoint:
        bp = LineBreakpoint(self._new_id(), pou, instance, resolve_line(pou, line), line, enabled)
        self._list.append(bp)
        self._index()
        return bp

    def remove(self, bp) -> None:
        self._list.remove(self.find(bp))
        self._index()

    def enable(self, bp, enabled: bool) -> None:
        self.find(bp).enabled = enabled
        self._index()

    def clear_hits(self) -> None:
        for bp in self._list:
            bp.hits = 0

    def _index(self) -> None:
        lines: dict[str, set[int]] = {}
        for bp in self._list:
            if bp.enabled:
                lines.setdefault(bp.pou.fn_name, set()).add(bp.line)
        self._lines = lines

    def pous(self) -> set[str]:
        """fn_name of every POU with an enabled line breakpoint."""
        return set(self._lines)

    def fired(self, frame: Frame) -> list[LineBreakpoint]:
        """The enabled breakpoints on the statement ``frame`` is about to run."""
        lines = self._lines.get(frame.pou.fn_name)
        if lines is None or frame.line not in lines:
            return []
        return [bp for bp in self._list if bp.enabled and bp.pou is frame.pou
                and bp.line == frame.line and (bp.instance is None or bp.instance == frame.instance)]


def resolve_line(info: PouInfo, line: int) -> int:
    """``line`` if a statement of the POU is on it, else the next line that holds one."""
    lines = statement_lines(info)
    end = last_line(info)
    if not lines:
        raise FbdError(f"{info.label} has no statement to break on")
    if line < info.node.line or line > end:
        raise FbdError(f"line {line} is not in {info.label} (lines {info.node.line}-{end}); "
                       f"its statements are on lines {_ranges(lines)}")
    for candidate in lines:
        if candidate >= line:
            return candidate
    raise FbdError(f"line {line} of {info.label} holds no statement, nor does any line after it "
                   f"in the POU; its statements are on lines {_ranges(lines)}")


def _ranges(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:12])
    return shown + (", ..." if len(lines) > 12 else "")


__all__ = ["LineBreakpoint", "LineBreakpoints", "Frame", "LeafRun", "leaf_generator", "st_info",
           "resolve_line"]
