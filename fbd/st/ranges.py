"""The integer ranges of a POU's values, and what they let the engines leave out.

Every integer value of a body has a range its type gives (an INT is within
-32768..32767, a BOOL 0..1); a constant is itself; a sum, difference,
product or negation of known ranges is known; a FOR variable whose loop
neither writes it (IEC forbids it) nor its end stays within ``start..end``
in the body. From these, code generation leaves out what cannot act:

* the wrap-around of ADD, SUB, MUL and NEG on integers when the result's
  range is within the type it is computed in (``i + 1`` of an INT computed
  in DINT never leaves DINT): the operation is then exactly ``a + b``, the
  library's code with a wrap that would change nothing;
* an array index's check when the index's range is within the bounds
  (``a[i]`` for ``FOR i := 0 TO 99`` and ``a : ARRAY[0..99]``);
* FOR's general loop, when its end and step cannot change while it runs:
  then it is a counted loop (``range`` in Python);
* a WHILE that counts (:meth:`Ranges.counted_while`: ``i < 21`` tested, ``i := i
  + 1`` its last statement and its only write of ``i``; or down, ``i > 0`` and
  ``i := i - 1``): ``i`` stays within its value at entry .. 20 in the body,
  and the loop is a counted one too.

The engines walk a body in order and tell :class:`Ranges` what they meet
(each temporary assigned, each loop entered); a temporary assigned in several
places (a short-circuit AND, a call's EN) takes the union of its values.
"""

from __future__ import annotations

from .. import types as t
from . import ir
from .census import inputs_of

K = t.Kind
#: the library blocks whose integer code is the plain operation wrapped to its type
PLAIN = {"ADD": "+", "SUB": "-", "MUL": "*", "NEG": "-"}


_TYPE_RANGES: dict = {None: None}      # type -> its range (a type exists once)


def type_range(tp) -> tuple[int, int] | None:
    """The values an integer, BOOL or enumerated type holds (None for the others)."""
    try:
        return _TYPE_RANGES[tp]
    except KeyError:
        pass
    c = tp.canonical
    if c.kind is K.BOOL:
        r = (0, 1)
    elif c.is_integral or c.kind is K.ENUM:
        r = (c.min, c.max)
    else:
        r = None
    _TYPE_RANGES[tp] = r
    return r


class Ranges:
    """The ranges known while one body is written (see the module docstring)."""

    def __init__(self, code: ir.PouCode):
        self.code = code
        self.temps: dict = {}       # temporary name -> (lo, hi), the union of its values
        self.loops: list = []       # (path, (lo, hi)) of each FOR variable being written
        self._handed_back = None    # variables a call's VAR_IN_OUT writes (see stable)

    # -- what the writer tells ----------------------------------------------------
    def assigned(self, temp: ir.Temp, value) -> None:
        """``temp`` takes a value of the range ``value`` (an expression or a range)."""
        r = value if isinstance(value, tuple) or value is None else self.of(value)
        if r is None:
            self.temps[temp.name] = None
            return
        old = self.temps.get(temp.name, r) if temp.name in self.temps else r
        self.temps[temp.name] = None if old is None else (min(old[0], r[0]), max(old[1], r[1]))

    def enter(self, s: ir.For) -> None:
        """The body of ``s`` is written next (its variable's range holds there)."""
        self.loops.append((s.var.var.path.upper() if isinstance(s.var, ir.Ref) else None,
                           self.loop_range(s)))

    def hold(self, path: str, r) -> None:
        """The variable ``path`` stays within ``r`` in the statements written next
        (until :meth:`leave`)."""
        self.loops.append((path, r))

    def leave(self) -> None:
        self.loops.pop()

    # -- ranges ---------------------------------------------------------------------
    def of(self, e) -> tuple[int, int] | None:
        """The range of ``e``'s values (None: not an integer, or unknown)."""
        kind = type(e)
        if kind is ir.Const:
            v = e.value
            return (int(v), int(v)) if isinstance(v, (int, bool)) else None
        if kind is ir.Temp:
            if e.name in self.temps:
                return self.temps[e.name]
            return type_range(e.type)
        if kind is ir.Ref:
            path = e.var.path.upper()
            for name, r in reversed(self.loops):
                if name == path and r is not None:
                    return r
            return type_range(e.type)
        if kind in (ir.Compare, ir.Logic, ir.Not):
            return (0, 1)
        if kind is ir.Narrow:
            inner, own = self.of(e.a), type_range(e.type)
            if inner is not None and own is not None and own[0] <= inner[0] and inner[1] <= own[1]:
                return inner
            return own
        if kind is ir.Bits and e.op == "&":
            a, b = self.of(e.a), self.of(e.b)
            if a is not None and b is not None and a[0] >= 0 and b[0] >= 0:
                return (0, min(a[1], b[1]))
        if kind in (ir.Elem, ir.Field, ir.Bits, ir.Invert, ir.Item, ir.FnCall):
            return type_range(e.type)
        return None

    def result(self, s: ir.Code):
        """(output temp, its range) of an operator whose wrap cannot act, else None."""
        found = self.unwrapped(s)
        if found is None:
            return None
        own, r = type_range(s.block.bound_types.get("T")), found[1]
        return found if own[0] <= r[0] and r[1] <= own[1] else None

    def unwrapped(self, s: ir.Code):
        """(output temp, the range of the plain operation) of an integer ADD, SUB, MUL
        or NEG of operands of known ranges, before its wrap; else None."""
        block = s.block
        op = PLAIN.get(block.name)
        if op is None or block.n not in (None, 2):
            return None
        tp = block.bound_types.get("T")
        if type_range(tp) is None or tp.canonical.kind not in (K.INT, K.BITS):
            return None
        inputs, output = _ports(block)
        out = s.names.get(output)
        if type(out) is not ir.Temp:
            return None
        args = [self.of(s.names[p]) for p in inputs]
        if None in args:
            return None
        if op == "-" and len(args) == 1:       # NEG
            (lo, hi), = args
            return out, (-hi, -lo)
        (a0, a1), (b0, b1) = args
        if op == "+":
            return out, (a0 + b0, a1 + b1)
        if op == "-":
            return out, (a0 - b1, a1 - b0)
        cands = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return out, (min(cands), max(cands))

    def code_range(self, s: ir.Code):
        """(output temp, its range) of a block whose operands bound its result where
        its type does not: MOD by a positive constant ``d`` lies within
        ``-(d - 1)..d - 1`` (C's remainder takes the dividend's sign), from 0 for
        a dividend that cannot be negative. None for the others."""
        if s.block.name != "MOD":
            return None
        out, d = s.names.get("OUT"), s.names.get("IN2")
        if (type(out) is not ir.Temp or type(d) is not ir.Const or type(d.value) is not int
                or d.value <= 0):
            return None
        a = self.of(s.names["IN1"])
        return out, (0 if a is not None and a[0] >= 0 else 1 - d.value, d.value - 1)

    def plain_arith(self, s: ir.Code):
        """(output, operator, operands, range) of an ADD, SUB, MUL or NEG of operands
        of known ranges, its output's range noted: the range of the plain operation,
        within the type when its wrap cannot act (see the module docstring), or
        beyond it, where the writer cuts it to the type; else None."""
        found = self.unwrapped(s)
        if found is None:
            return None
        out, r = found
        own = type_range(s.block.bound_types.get("T"))
        self.assigned(out, r if own[0] <= r[0] and r[1] <= own[1] else own)
        block = s.block
        return out, PLAIN[block.name], [s.names[p] for p in _ports(block)[0]], r

    def within(self, e, lo: int, hi: int) -> bool:
        r = self.of(e)
        return r is not None and lo <= r[0] and r[1] <= hi

    def within_type(self, e, tp) -> bool:
        """Whether every value of ``e`` is one ``tp`` holds (an integer type)."""
        own = type_range(tp)
        return own is not None and tp.canonical.kind is not K.BOOL and self.within(e, *own)

    def stable(self, e) -> bool:
        """Whether reading ``e`` later in the same statement gives the same value:
        no call's VAR_IN_OUT hands a value back to it mid-statement."""
        if isinstance(e, (ir.Const, ir.Temp)):
            return True
        if self._handed_back is None:
            self._handed_back = {ir.root_var(st.target).path.upper() for st in ir.walk(
                self.code.body) if isinstance(st, ir.Assign) and isinstance(st.value, ir.Item)
                and ir.root_var(st.target) is not None}
        return isinstance(e, ir.Ref) and e.var.path.upper() not in self._handed_back

    # -- loops --------------------------------------------------------------------------
    def loop_range(self, s: ir.For):
        """The range of a FOR variable in the loop's body (None if unknown)."""
        if not isinstance(s.var, ir.Ref) or s.var.var.path.upper() in written(s.body):
            return None
        step = _step(s)
        start, end, own = self.of(s.start), self.of(s.end), type_range(s.var.type)
        if step is None or start is None or end is None or own is None:
            return None
        lo, hi = (start[0], end[1]) if step > 0 else (end[0], start[1])
        lo, hi = max(lo, own[0]), min(hi, own[1])
        return (lo, hi) if lo <= hi else None

    def fixed_end(self, s: ir.For) -> bool:
        """Whether FOR's end is the same at every test: its statements pure (no FB),
        and nothing the loop runs writes what it reads (FOR's own variable
        included), so it may be computed once, before the loop."""
        if any(not isinstance(st, (ir.Code, ir.SetTemp, ir.Check)) or
               (isinstance(st, ir.Code) and st.block.stateful) for st in s.end_pre):
            return False
        reads = read_roots([s.end] + [e for st in s.end_pre for e in ir.exprs_of(st)])
        if reads is None or not isinstance(s.var, ir.Ref):
            return False
        return not reads & (written(s.body) | {s.var.var.path.upper()})

    def range_loop(self, s: ir.For):
        """``(innermost, step)`` when FOR is a counted loop: a constant step, an end
        that is the same at every test (:meth:`fixed_end`, its statements already
        written) and within the variable's type; else None."""
        step = _step(s)
        if step is None or not self.fixed_end(s):
            return None
        end, own = self.of(s.end), type_range(s.var.type)
        if end is None or own is None or not (own[0] <= end[0] and end[1] <= own[1]):
            return None
        innermost = not any(isinstance(st, ir.Loop) for st in ir.walk(s.body))
        return innermost, step


    def counted_while(self, s: ir.While, before: list):
        """``(var, stop, step, body, inside)`` when WHILE counts a variable to a
        constant: its test ``var < c`` or ``var <= c`` (``>``, ``>=`` counting
        down) with nothing to compute first, its body ending with ``var := var
        + step`` (or ``- step``; a constant of the test's direction, the body's
        only write of ``var``, an own variable no call reaches), no CONTINUE
        skipping that step, and the step from the last value the test lets in
        within ``var``'s type, so it never wraps: the body sees ``var`` run
        from its value at entry towards ``stop``, which it never reaches, as
        ``range(var, stop, step)``. ``body`` is the body without the step;
        ``inside`` ``var``'s range there (bounded on the far side by the value
        the last of the statements ``before`` the loop writing ``var`` gives
        it, when that is an assignment), None if it would be empty. Else None:
        the loop is written as it is."""
        cond = s.cond
        if s.pre or type(cond) is not ir.Compare or cond.op not in ("<", "<=", ">", ">=") \
                or type(cond.a) is not ir.Ref or type(cond.b) is not ir.Const \
                or type(cond.b.value) is not int:
            return None
        var = cond.a.var
        path = var.path.upper()
        own = type_range(var.type)
        if (own is None or var.type.canonical.kind is not K.INT or "." in path
                or var.section == "VAR_EXTERNAL"):
            return None
        body = _without_lines(s.body)
        if len(body) < 2:
            return None
        add, store = body[-2], body[-1]
        step = _step_of(add, path)
        if (step is None or type(store) is not ir.Assign or not _is_var(store.target, path)
                or _unnarrowed(store.value) is not add.names["OUT"]):
            return None
        up = cond.op[0] == "<"
        stop = cond.b.value + (cond.op == "<=") - (cond.op == ">=")
        last = stop - 1 if up else stop + 1        # the last value the body may see
        wide = type_range(add.block.bound_types.get("T"))
        if (up != (step > 0) or wide is None
                or not max(own[0], wide[0]) <= last + step <= min(own[1], wide[1])):
            return None
        rest = s.body[:s.body.index(add)]
        while rest and type(rest[-1]) is ir.Line:
            rest = rest[:-1]
        if path in written(rest) or continues(rest):
            return None
        first = own
        for st in reversed(before):         # the last value given to var before the loop
            if type(st) is ir.Assign and _is_var(st.target, path):
                first = self.of(st.value) or own
                break
            if type(st) is not ir.Line and path in written([st]):
                break
        lo, hi = (max(first[0], own[0]), last) if up else (last, min(first[1], own[1]))
        return cond.a, stop, step, rest, ((lo, hi) if lo <= hi else None)


_PORTS: dict = {}      # (block type, its n) -> (its inputs' names, its first output's)


def _ports(block) -> tuple:
    key = (type(block), block.n)
    found = _PORTS.get(key)
    if found is None:
        found = _PORTS[key] = (tuple(p.name for p in block.input_ports()),
                               block.output_ports()[0].name)
    return found


def _without_lines(body: list) -> list:
    return [st for st in body if type(st) is not ir.Line]


def _is_var(e, path: str) -> bool:
    return type(e) is ir.Ref and e.var.path.upper() == path


def _unnarrowed(e):
    return e.a if type(e) is ir.Narrow else e


def _step_of(s, path: str):
    """The constant (not 0) ``s`` adds to the variable ``path`` when ``s`` is an
    integer ADD of the two, or SUB of the constant from it, into a temporary;
    else None."""
    if (type(s) is not ir.Code or s.block.name not in ("ADD", "SUB")
            or s.block.n not in (None, 2)):
        return None
    tp = s.block.bound_types.get("T")
    if tp is None or tp.canonical.kind is not K.INT or type(s.names.get("OUT")) is not ir.Temp:
        return None
    a, b = s.names.get("IN1"), s.names.get("IN2")
    if s.block.name == "ADD" and _is_var(b, path):
        a, b = b, a
    if (not _is_var(a, path) or type(b) is not ir.Const or type(b.value) is not int
            or not b.value):
        return None
    return b.value if s.block.name == "ADD" else -b.value


def continues(stmts) -> bool:
    """Whether a CONTINUE of this loop (not of an inner one) is in ``stmts``."""
    for s in stmts:
        if isinstance(s, ir.Continue):
            return True
        if isinstance(s, (ir.If, ir.Case)):
            if any(continues(lst) for lst in ir.children(s)):
                return True
    return False


def _step(s: ir.For):
    if s.step is None:
        return 1
    if isinstance(s.step, ir.Const) and type(s.step.value) is int and s.step.value:
        return s.step.value
    return None


def read_roots(exprs) -> set | None:
    """The variables (paths, upper case) ``exprs`` read; None if they read what a
    call inside a loop could change unseen (a global, an inner instance's)."""
    found = set()
    for e in exprs:
        for node in ir.iter_exprs(e):
            if isinstance(node, ir.Ref):
                var = node.var
                if var.section == "VAR_EXTERNAL" or "." in var.path:
                    return None
                found.add(var.path.upper())
            elif isinstance(node, (ir.FnCall, ir.Item)):
                return None
    return found


def written(body: list) -> set:
    """The variables (paths, upper case; an element's or member's whole variable)
    ``body`` may write; an FB call writes its instance's, ``*`` stands for every
    global a call may write."""
    found = set()
    for st in ir.walk(body):
        targets = []
        if isinstance(st, ir.Assign):
            targets.append(st.target)
        elif isinstance(st, ir.Code):
            inputs = inputs_of(st.block)
            targets += [e for port, e in st.names.items() if port not in inputs]
        elif isinstance(st, ir.For):
            targets.append(st.var)
        elif isinstance(st, ir.CallFb):
            found.add(st.var.path.upper())
            found.add("*")
            targets += st.inouts
        for target in targets:
            var = ir.root_var(target)
            if var is not None:
                found.add(var.path.upper())
                found.add(var.path.upper().split(".")[0])
    return found


__all__ = ["Ranges", "type_range", "written", "read_roots", "PLAIN", "continues"]
