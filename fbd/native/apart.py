"""A big program's procedures compiled apart, in groups of functions, by a
thread while this process still lowers the rest.

Up to :data:`FULL_OPTIMISE_LINES` lines of procedure IR, a module's functions
are compiled with its chunk, through LLVM's whole -O2 pipeline (inlining
crosses functions). Past it, where no pass looks beyond a function, they are
compiled in groups of whole functions of about :data:`GROUP_LINES` lines, each
group a module of its own whose functions are external, linked by name (their
names carry the module's number, so they are unique in the program): LLVM
holds one group at a time, not the whole program (100,000 statements were
1.2 GB as one module).

A group closes once it holds :data:`GROUP_LINES` lines, in the order the
functions were lowered, so what it holds, its IR and its object code depend
on the program only, not on which thread compiled it or when. A function
calls only functions lowered before it (a callee, a FUNCTION, a part of a long
body is finished before its caller), so a group's module declares those
before it.

Lowering is Python and LLVM's work is native code, whose calls release the
GIL: on two cores they run at once. Where the build follows the lowering
(``NativeProgram(ahead=True)``), :class:`CompileAhead` hands each group to a
thread as it closes, from :data:`AHEAD_LINES` on, before the module is known
to go past :data:`FULL_OPTIMISE_LINES` (if it does not, that work is dropped
and the module compiles whole as before); the build waits for the thread and
compiles the last group itself. Only where the thread would have a core of
its own (:func:`~fbd.compiler.forkmap.core_free` without the half-core margin
a fork asks: a thread costs less to start; ``FBD_COMPILE_JOBS=1`` never, ``2``
always): on a machine whose cores are taken, the GIL's hand-offs cost more
than the thread saves. Either way, the same bytes. A thread, not a forked process: the fork's
copy-on-write faults on the pages the lowering then writes cost more than the
LLVM work it took over (a 10,000-line program: 0.15-0.2 s of CPU), and a
fresh process's start (Python, llvmlite's import) cost more than the GIL's
hand-offs (docs/performance.md).
"""

from __future__ import annotations

import queue
import sys
import threading

from ..compiler.forkmap import core_free

#: procedures' IR lines up to which they go through the whole -O2 pipeline with
#: their chunk (see NativeProgram._optimize); past it, they compile in groups
FULL_OPTIMISE_LINES = 20_000
#: lines of IR a group of functions compiled apart closes at
GROUP_LINES = 5_000
#: lines of procedure IR from which a module's closed groups are compiled ahead,
#: before it is known to go past FULL_OPTIMISE_LINES (see CompileAhead): from its
#: first group on
AHEAD_LINES = GROUP_LINES


class Groups:
    """The definitions of a module's functions and their groups (a mixin of
    :class:`~.pou.NativeModule`)."""

    def __init__(self):
        self.defs: list[str] = []
        self.names: list[str] = []      # each definition's LLVM name
        #: each function defined here -> its declaration, for code compiled apart calling it
        self.declarations: dict[str, str] = {}
        self.lines = 0                  # lines of IR in defs (what picks the passes)
        self.starts: list[int] = [0]    # where each group starts in defs (the last one open)
        self._open_lines = 0
        self.objects: dict[int, bytes] = {}     # group -> its object file, compiled ahead
        self.shipped: set[int] = set()          # the groups handed to the thread
        self.ahead: CompileAhead | None = None

    def declare(self, name: str, params: list[str]) -> None:
        types = ", ".join(p.split(" ", 1)[0] for p in params)
        self.declarations[name] = f"declare i64 {name}({types})"

    def define(self, name: str, text: str) -> None:
        """Add the definition of the function ``name`` (declared already)."""
        self.defs.append(text)
        self.names.append(name)
        n = text.count("\n")
        self.lines += n
        self._open_lines += n
        if self._open_lines >= GROUP_LINES:
            self.starts.append(len(self.defs))
            self._open_lines = 0
            if self.ahead is not None and self.lines >= AHEAD_LINES:
                self.ahead.closed(self)

    def apart(self) -> bool:
        """Whether the functions compile apart, in groups (see the module docstring)."""
        return self.lines > FULL_OPTIMISE_LINES

    def n_groups(self) -> int:
        return len(self.starts) - (self.starts[-1] == len(self.defs))

    def group_source(self, k: int) -> str:
        """Group ``k``'s functions, external, after the declarations of those before it."""
        first = self.starts[k]
        last = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.defs)
        declarations = self.declarations
        return "\n".join([*(declarations[name] for name in self.names[:first]),
                          *(text.replace("define internal ", "define ", 1)
                            for text in self.defs[first:last])])

    def shown(self) -> list[str]:
        """The definitions as compiled apart (their functions external)."""
        return [text.replace("define internal ", "define ", 1) for text in self.defs]


class CompileAhead:
    """The groups of a program's modules compiled while it is still being lowered
    (see the module docstring), by a thread of this process: LLVM's calls
    release the GIL, and llvmlite runs one at a time, so the thread's LLVM work
    runs beside the lowering's Python and never beside other LLVM work.
    ``compile_group(module, k)`` makes group ``k``'s object file."""

    def __init__(self, compile_group):
        self.compile_group = compile_group
        self.modules: list = []
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stop = False
        self._alone: bool | None = None     # no thread: decided at the first group

    def add(self, module: Groups) -> None:
        self.modules.append(module)
        module.ahead = self

    def closed(self, module: Groups) -> None:
        """A group of ``module`` closed: the thread compiles those closed so far."""
        if self._thread is None:
            if self._alone is None:
                self._alone = not core_free(spare=0.0)
            if self._alone:
                return
            _quick_switches(True)
            self._thread = threading.Thread(target=self._run, name="fbd-llvm", daemon=True)
            self._thread.start()
        for k in range(len(module.starts) - 1):
            if k not in module.shipped:
                module.shipped.add(k)
                self._queue.put((module, k))

    def _run(self) -> None:
        while (item := self._queue.get()) is not None and not self._stop:
            module, k = item
            try:
                module.objects[k] = self.compile_group(module, k)
            except Exception:   # noqa: BLE001 - compiled again where needed, which raises it
                pass

    def finish(self) -> None:
        """The lowering is over: the thread compiles what is left of the groups
        closed while it ran; the last group, and any the thread failed, are
        compiled where they are needed (:meth:`~.program.NativeProgram._procedure_code`).
        A module that stayed under FULL_OPTIMISE_LINES compiles whole: what was
        compiled ahead of it is dropped."""
        self._end()

    def cancel(self) -> None:
        """The build will not follow: the thread stops after the group it is at."""
        self._stop = True
        self._end()

    def _end(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
            _quick_switches(False)
        for module in self.modules:
            module.ahead = None
            if self._stop or not module.apart():
                module.objects.clear()
        self.modules = []


#: the GIL's switch interval while a thread compiles ahead (s): it takes the GIL
#: back after each LLVM call, which at Python's 5 ms would idle it most of the time
SWITCH_INTERVAL = 0.0002
_switching = {"threads": 0, "interval": 0.0}
_switching_lock = threading.Lock()


def _quick_switches(on: bool) -> None:
    """Shorten the switch interval while any thread compiles ahead (builds in
    several threads at once: the first one sets it, the last one restores it)."""
    with _switching_lock:
        if on:
            if _switching["threads"] == 0:
                _switching["interval"] = sys.getswitchinterval()
                sys.setswitchinterval(SWITCH_INTERVAL)
            _switching["threads"] += 1
        else:
            _switching["threads"] -= 1
            if _switching["threads"] == 0:
                sys.setswitchinterval(_switching["interval"])


__all__ = ["CompileAhead", "Groups", "FULL_OPTIMISE_LINES", "GROUP_LINES"]
