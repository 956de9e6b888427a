"""Which variables a restart keeps (RETAIN, PERSISTENT), and a variable's value
carried from one program to another (a retain file read back, an online change).

A variable's qualifier is its own where it declares one (:attr:`fbd.block.Block.retain`,
an ST POU's ``VAR RETAIN``), else that of the innermost instance holding it that
has one (:meth:`fbd.network.Network.retain`, a macro's or a program's instance);
a program's input takes its network's. A variable is one slot of a task's table
(an ARRAY or STRUCT is one slot holding a list). The table of restarts and
the reasons: docs/retain.md.

Carrying values matches variables by path and type (:func:`type_key`): the
same type keeps the value, a type every value of which the new one holds
(INT to DINT, REAL to LREAL, INT to REAL) converts it, any other change
initialises the variable and says so (:class:`Carried`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from .. import types as t
from ..errors import InvalidValue
from ..types import deep_copy
from ..values import Kind

__all__ = ["Variable", "Carried", "qualifiers", "retained", "kept_slots", "type_key", "convert",
           "carry", "variables", "RETAINED"]

#: the qualifiers that make a variable survive a warm restart
RETAINED = ("RETAIN", "PERSISTENT")


@dataclass(frozen=True)
class Variable:
    """A variable of a program: its path, type, slot, and qualifier (None: plain)."""
    path: str
    type: t.DataType
    slot: int
    qualifier: str | None = None


def qualifiers(program, held: str | None = None) -> dict[str, str]:
    """Path -> RETAIN, PERSISTENT or NON_RETAIN of every variable of ``program``
    (a compiled program or a FlatProgram) that has a qualifier (see the module's
    text); ``held``: the program instance's own (``PROGRAM RETAIN inst``)."""
    return {path: qualifier for path, _slot, qualifier in _marked(program, held)}


def kept_slots(program, held: str | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The slots a warm restart keeps (RETAIN and PERSISTENT), and those a cold one
    keeps (PERSISTENT), read from the program's leaves (no signal table is built)."""
    warm, cold = [], []
    for _path, slot, qualifier in _marked(program, held):
        if qualifier in RETAINED:
            warm.append(slot)
            if qualifier == "PERSISTENT":
                cold.append(slot)
    return tuple(warm), tuple(cold)


def _marked(program, held_by_instance: str | None = None):
    """(path, slot, qualifier) of every variable that has a qualifier."""
    flat = getattr(program, "flat", program)
    top = flat.network
    for name, slot in flat.inputs.items():
        qualifier = top.retains.get(name, held_by_instance)
        if qualifier is not None:
            yield name, slot, qualifier
    nets = {prefix.rstrip("."): net for prefix, net in flat.macros}
    # no instance marked anywhere (most programs): only blocks' own qualifiers count
    marking = bool(top.retains) or any(net.retains for net in nets.values())
    for leaf in flat.leaves:
        held = held_by_instance
        if marking:
            parts = leaf.path.split(".")
            net = top
            for depth, part in enumerate(parts):
                held = net.retains.get(part, held)
                if depth < len(parts) - 1:
                    net = nets.get(".".join(parts[:depth + 1]))
                    if net is None:
                        break
        own = leaf.block.retain
        if held is None and not own:
            continue
        for slots in (leaf.outputs, leaf.state):
            for name, slot in slots.items():
                qualifier = own.get(name, held)
                if qualifier is not None:
                    yield f"{leaf.path}.{name}", slot, qualifier


def variables(program, kinds=("input", "out", "state", "output"),
              held: str | None = None) -> list[Variable]:
    """Every variable of ``program`` that holds a value of its own (not an alias of
    another's slot, not a constant, not a block's internal storage), with its qualifier.
    Kept with the program once made (a program never changes): an online change
    makes the new program's before the scan boundary, so the boundary does not."""
    key = (kinds, held)
    made = _MADE.setdefault(program, {})
    if key not in made:
        made[key] = _variables(program, kinds, held)
    return made[key]


#: program -> (kinds, held) -> its variables (weakly: a replaced program goes)
_MADE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _variables(program, kinds, held) -> list[Variable]:
    marked = qualifiers(program, held)
    out, seen = [], set()
    for path, info in program.signals.items():
        if info.kind not in kinds or info.slot is None or info.type is None or info.slot in seen:
            continue
        seen.add(info.slot)
        out.append(Variable(path, info.type, info.slot, marked.get(path)))
    return out


def retained(program, kept=RETAINED, held: str | None = None) -> list[Variable]:
    """The variables of ``program`` whose qualifier is one of ``kept``."""
    return [v for v in variables(program, ("input", "out", "state"), held)
            if v.qualifier in kept]


def type_key(tp: t.DataType) -> str:
    """A type's identity across compilations (a program compiled again makes its
    ARRAY and STRUCT types anew): its name, with an ARRAY's bounds and element
    and a STRUCT's fields spelled out."""
    if isinstance(tp, t.ArrayType):
        dims = ", ".join(f"{lo}..{hi}" for lo, hi in tp.dims)
        return f"ARRAY [{dims}] OF {type_key(tp.element)}"
    if isinstance(tp, t.StructType):
        fields = "; ".join(f"{f.name} : {type_key(f.type)}" for f in tp.fields)
        return f"STRUCT {tp.name} ({fields})"
    if tp.kind is Kind.STRING and tp.capacity != t.STRING_MAX:
        return f"STRING[{tp.capacity}]"     # a STRING[200]'s value may not fit a STRING[10]
    return str(tp.canonical)


def _string_capacity(key: str) -> int | None:
    """The characters the string type of a :func:`type_key` holds (None: not a string)."""
    if key == "STRING":
        return t.STRING_MAX
    if key.startswith("STRING[") and key.endswith("]") and key[7:-1].isdigit():
        return int(key[7:-1])
    return None


def _widens(old: t.DataType, new: t.DataType) -> bool:
    """Every value of ``old`` is one of ``new`` (IEC's implicit conversions that lose nothing)."""
    if old.kind is Kind.INT and new.kind is Kind.INT:
        return new.min <= old.min and old.max <= new.max
    if old.kind is Kind.INT and new.kind is Kind.REAL:
        return old.bits <= (16 if new.bits == 32 else 32)   # within the mantissa
    if old.kind is Kind.BITS and new.kind is Kind.BITS:
        return old.bits <= new.bits
    if old is t.BOOL and new.kind is Kind.BITS:
        return True
    return old.kind is Kind.REAL and new.kind is Kind.REAL and old.bits <= new.bits


def convert(value, old: t.DataType | str, new: t.DataType):
    """``(value in new's run-time form, how)``: how is ``"kept"`` (same type) or
    ``"converted"``; ``(None, why)`` when the value cannot go over without loss.
    ``old`` may be a type's key (:func:`type_key`), as a retain file gives it."""
    old_key = old if isinstance(old, str) else type_key(old)
    if old_key == type_key(new):
        return deep_copy(value), "kept"
    held = _string_capacity(old_key)
    if held is not None and new.kind is Kind.STRING and held <= new.capacity:
        return value, "converted"
    old_type = old
    if isinstance(old, str):
        try:
            old_type = t.by_name(old_key)
        except InvalidValue:     # not elementary: only the very same type keeps it
            old_type = None
    if old_type is not None and old_type.canonical in t.ELEMENTARY \
            and new.canonical in t.ELEMENTARY and _widens(old_type.canonical, new.canonical):
        if new.kind is Kind.REAL:
            return float(value), "converted"
        return int(value), "converted"
    return None, f"was {old_key}, is {type_key(new)}"


@dataclass
class Carried:
    """What carrying values into a program did, variable by variable."""
    kept: list[str] = field(default_factory=list)
    converted: list[tuple[str, str, str]] = field(default_factory=list)   # path, from, to
    initialised: list[tuple[str, str]] = field(default_factory=list)     # path, why
    dropped: list[str] = field(default_factory=list)                     # path, gone

    def lines(self) -> list[str]:
        """One line for each variable that did not simply keep its value."""
        return ([f"{p}: converted from {a} to {b}" for p, a, b in self.converted]
                + [f"{p}: initialised ({why})" for p, why in self.initialised]
                + [f"{p}: dropped (no longer in the program)" for p in self.dropped])

    def summary(self) -> str:
        return (f"{len(self.kept)} kept, {len(self.converted)} converted, "
                f"{len(self.initialised)} initialised, {len(self.dropped)} dropped")


def carry(old: dict, new: list[Variable], table, carried: Carried | None = None,
          new_why: str = "new") -> Carried:
    """Write into ``table`` (a task's) the value of every variable of ``new`` that
    ``old`` (path -> (type or type key, value)) has under its path, converted
    where lossless; the rest of ``new`` keep what ``table`` holds (their initial
    values). Paths are compared as IEC names are, ignoring case."""
    carried = carried or Carried()
    by_name = {path.upper(): path for path in old}
    placed = set()
    for var in new:
        path = by_name.get(var.path.upper())
        if path is None:
            carried.initialised.append((var.path, new_why))
            continue
        placed.add(path)
        old_type, value = old[path]
        value, how = convert(value, old_type, var.type)
        if value is None:
            carried.initialised.append((var.path, how))
        else:
            table[var.slot] = value
            if how == "kept":
                carried.kept.append(var.path)
            else:
                carried.converted.append((var.path, str(old_type), type_key(var.type)))
    carried.dropped += [path for path in old if path not in placed]
    return carried
