"""Online change: a changed program loaded into a running PLC at a scan boundary,
keeping the state of everything that is still there (CODESYS's and TwinCAT's
"online change").

:func:`replace_program` (``plc.replace_program(new)``) compiles the new
program first: a program that does not compile raises, and the old one runs
on untouched. Then, between two scans, every variable whose path and type are
unchanged keeps its value, whatever its qualifier: a program's and a block's
variables, an FB instance's inner state (a TON's start and elapsed time, a
counter's count), an SFC chart's step flags (``prg.Run.X``, by step name).
A lossless widening (INT to DINT) converts; any other type change, and a new
variable, starts from the initial value; a variable that is gone is dropped
(:mod:`.retain`'s matching). Forces, input values the process gave and
input writes not yet latched follow their paths; a force whose path is gone
is released. Traces follow their paths too.

The :class:`Change` report lists all of it, and the located ports whose
address changed (a Modbus client reading the old address now reads another
variable). Listeners in ``plc.replaced`` are then called as
``listener(plc, change)``: the Modbus process image rebuilds its map from the
new program there, and so can any server of the PLC's variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FbdError
from ..network import Network
from .engine import compile_program, is_program
from .retain import Carried, carry, type_key, variables

__all__ = ["Change", "replace_program", "compile_for"]


@dataclass
class Change:
    """What an online change did (see the module's text)."""
    program: str
    carried: Carried
    released: list[str] = field(default_factory=list)      # forces whose path is gone
    moved: list[tuple[str, str, str]] = field(default_factory=list)  # port, old, new address
    untraced: list[str] = field(default_factory=list)     # traced paths that are gone
    engine: str = "python"

    def lines(self) -> list[str]:
        """One line for everything that did not simply carry over."""
        return (self.carried.lines()
                + [f"{p}: force released (no longer in the program)" for p in self.released]
                + [f"{p}: now at {new} (was {old})" for p, old, new in self.moved]
                + [f"{p}: no longer traced (no longer in the program)" for p in self.untraced])

    def summary(self) -> str:
        return f"online change of {self.program}: {self.carried.summary()}"


def compile_for(plc, new, engine: str = "auto"):
    """``new`` (a Network or a compiled program) compiled as ``plc`` runs its programs;
    raises FbdError, changing nothing, when it does not compile."""
    if isinstance(new, Network):
        new = compile_program(new, engine, None, plc.clock_start_us >= 0)[0]
    elif not is_program(new):
        raise FbdError(f"an online change needs a Network or a compiled program, not "
                       f"{type(new).__name__}")
    variables(new)      # made now, not at the scan boundary
    return new


def preview(plc, program, task=None) -> Change:
    """What :func:`replace_program` would do, changing nothing."""
    return _change(plc, compile_for(plc, program), task or plc.main, apply=False)


def replace_program(plc, new, task=None, engine: str = "auto") -> Change:
    """Run ``new`` instead of ``task``'s program (default the main task's) from the
    next scan on, keeping what matches (see the module's text). Call it between
    scans, on the thread that runs the PLC (or from a ``before_scan`` hook)."""
    if plc._stepping is not None:
        raise FbdError(f"scan {plc.main.scans + 1} is being stepped into, block by block; "
                       f"finish it before an online change")
    task = task or plc.main
    if plc.names is not None or task.bound or task.starts:
        raise FbdError(f"task {task.name} runs a program instance of a configuration, whose "
                       f"instances change together: give the changed project to "
                       f"plc.replace_configuration")
    program = compile_for(plc, new, engine)
    change = _change(plc, program, task, apply=True)
    for listener in list(plc.replaced):
        listener(plc, change)
    return change


def _change(plc, program, task, apply: bool, table=None) -> Change:
    """Carry ``task``'s values into ``program`` (into ``table``: its initial values,
    a fresh table of the program's by default)."""
    old = task.program
    old_vars = variables(old)
    values = {v.path: (v.type, task.s[v.slot]) for v in old_vars}
    table = program.new_table() if table is None else table
    carried = carry(values, variables(program), table)
    change = Change(program.name, carried, engine=getattr(program, "engine", "python"))
    old_paths = {v.slot: v.path for v in old_vars}
    new_signals = program.signals
    forces = {}
    for slot, value in task.forces.items():
        path = old_paths.get(slot)
        info = new_signals.get(path) if path is not None else None
        if info is None or info.slot is None or info.type is None \
                or type_key(info.type) != type_key(old.signals[path].type):
            change.released.append(path or f"#{slot}")
        else:
            forces[info.slot] = table[info.slot] = value
    old_at, new_at = old.network.addresses, program.network.addresses
    change.moved = [(name, str(old_at[name]), str(new_at[name])) for name in new_at
                    if name in old_at and str(old_at[name]) != str(new_at[name])]
    if not apply:
        return change
    image = {program.inputs[n]: task.image[s] for n, s in old.inputs.items()
             if n in program.inputs and s in task.image
             and old.input_types[n] is program.input_types[n]}
    pending = {program.inputs[n]: task.pending[s] for n, s in old.inputs.items()
               if n in program.inputs and s in task.pending
               and old.input_types[n] is program.input_types[n]}
    task.follow(program)
    task.s = table
    task.image = {slot: table[slot] for slot in program.inputs.values()}
    task.image.update(image)
    task.pending, task.forces = pending, forces
    task.forced_state = ()
    if forces:
        plc._reforce(task)
    for trace in task.traces:
        follow = getattr(trace, "follow", None)
        if follow is not None:
            change.untraced += follow(program)
    return change
