"""Which temporaries the Python writer (:mod:`.pyemit`) writes as their
expression inside the statement reading them, instead of a line of their own.

The ST compiler sets a temporary for each operator's result (``_t1 = a * 3``,
``_t2 = _t1 - b``, ``b = wrap(_t2)``); written as it is, each costs CPython a
line to compile and a store and a load to run. A temporary set once and read
once, by a statement a few after it with nothing between but temporaries set
the same way, is the same value written inside its reader: nothing between
stores to what it reads, and nothing between can fault first (no FUNCTION is
called on the way). So ``b := (a * 3 - b) * 2 + 1`` is one line.
"""

from __future__ import annotations

from . import ir
from .census import Census, inputs_of
from .ranges import Ranges

#: statements after a temporary's where its reader is looked for
FOLD_REACH = 4


def fold_into(c: Census, ranges: Ranges, stmts: list, k: int):
    """The temporary ``stmts[k]`` sets if a statement after it is its only reader,
    evaluates it ahead of anything else it does, and is reached with nothing
    between but temporaries set the same way: no store between can change
    what its value reads, and nothing can fault first (the value calls no
    FUNCTION); None otherwise. Such a temporary is written as its expression
    inside the reader (``s[3] = (s[1] + 5)``): a line, a store and a load
    fewer, the same value."""
    s = stmts[k]
    kind = type(s)
    if kind is ir.SetTemp:
        name = s.temp.name
    elif kind is ir.Check:
        if not never_fails(ranges, s):
            return None
        name = s.temp.name
    elif kind is ir.Code:
        inputs = inputs_of(s.block)
        outs = [e for port, e in s.names.items() if port not in inputs]
        if len(outs) != 1 or type(outs[0]) is not ir.Temp:
            return None
        name = outs[0].name
    else:
        return None
    if c.uses.get(name) != 1 or c.sets.get(name) != 1 or id(s) in c.calling:
        return None
    reader = c.reader.get(name)
    if not reads_first(reader) or id(reader) in c.calling:
        return None
    for nxt in stmts[k + 1:k + 1 + FOLD_REACH]:
        if nxt is reader or (type(nxt) is ir.If and nxt.branches[0] is reader
                             and not reader[0]):
            return name
        kind = type(nxt)
        if id(nxt) in c.calling:
            return None
        if kind is ir.Check:
            if not never_fails(ranges, nxt):
                return None
        elif kind is not ir.SetTemp and (kind is not ir.Code or not sets_temps_only(nxt)):
            return None
    return None


def never_fails(ranges: Ranges, s: ir.Check) -> bool:
    """Whether the value's range is within the check's bounds (it only sets its
    temporary)."""
    r = ranges.of(s.value)
    return r is not None and s.lo <= r[0] and r[1] <= s.hi


#: the statements a temporary set just before may be folded into (see :func:`fold_into`)
_FOLD_READERS = frozenset((ir.Assign, ir.SetTemp, ir.Check, ir.Eval, ir.CallFunction, ir.Code))


def reads_first(s) -> bool:
    """Whether ``s`` evaluates what it reads ahead of any store of its own (see
    :func:`fold_into`)."""
    kind = type(s)
    if kind in _FOLD_READERS:
        return kind is not ir.Code or sets_temps_only(s)
    return kind is ir.Case or kind is tuple        # an IF branch's condition


def sets_temps_only(s: ir.Code) -> bool:
    """Whether a block's code writes only temporaries (an operator's, not an FB's)."""
    inputs = inputs_of(s.block)
    return all(type(e) is ir.Temp for port, e in s.names.items() if port not in inputs)


__all__ = ["fold_into", "never_fails", "FOLD_REACH"]
