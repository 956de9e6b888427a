"""The typed, lowered form of a POU's body: what every engine's code is made from.

The ST compiler (:mod:`.exprs`, :mod:`.stmts`, :mod:`.calls`) checks a body as
matiec checks it and writes it down once in this form; each engine then walks
the same tree: :mod:`.pyemit` writes Python for the Python engine (and for the
debugger's stepped variant), :mod:`fbd.native.pou` LLVM IR for the native
one. Nothing is decided twice: every type is resolved, every point where
matiec's C cuts a value to its type (:class:`Narrow`) or copies an array or
structure (:class:`Copy`) is explicit, each variable is a :class:`Ref` to its
:class:`~.model.Var` (whose path says where an instance keeps it), and every
operator, standard function and standard function block is a :class:`Code`
node naming the library block whose own code computes it (``+`` of two INTs
is ADD's code for DINT, C's ``int``).

Expressions carry their IEC ``type`` and ``wide``: computed in C's promoted
type or in double, beyond that type, until a :class:`Narrow` cuts it.
Statements run in list order; a body is a list. A value an expression needs
computed first (a block's outputs, a checked index) is a :class:`Temp` set
by the statements before it.

Each ST statement's list starts with a :class:`Line` naming the statement it
came from (the debugger's stepped variant stops there; the engines skip it).
"""

from __future__ import annotations

from typing import Any

from .. import types as t


# ------------------------------------------------------------------ expressions
class Expr:
    __slots__ = ("type", "wide")

    def __init__(self, type_, wide: bool = False):
        self.type = type_
        self.wide = wide

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Const(Expr):
    """A constant (``value`` as the Python engine holds it: ns for TIME, a code
    for an enumerated value)."""
    __slots__ = ("value",)

    def __init__(self, value, type_, wide: bool = False):
        super().__init__(type_, wide)
        self.value = value


class Ref(Expr):
    """A variable of the POU, or a member of an FB instance it holds (``var.path``
    ``T1.Q``); ``var.type`` is None for an FB instance itself."""
    __slots__ = ("var",)

    def __init__(self, var):
        super().__init__(var.type)
        self.var = var


class Elem(Expr):
    """An array element: ``base``'s element at the flat position
    ``constant + sum((index - lo) * stride)`` (each index checked before, by a
    :class:`Check`, unless its range is known to be within the bounds)."""
    __slots__ = ("base", "terms", "constant")

    def __init__(self, base: Expr, terms: list, constant: int, type_):
        super().__init__(type_)
        self.base = base
        self.terms = terms          # [(Expr, lo, stride)]
        self.constant = constant


class Field(Expr):
    """A structure's member, by its position."""
    __slots__ = ("base", "index")

    def __init__(self, base: Expr, index: int, type_):
        super().__init__(type_)
        self.base = base
        self.index = index


class Now(Expr):
    """The PLC clock of the scan (TIME, ns)."""
    __slots__ = ()

    def __init__(self):
        super().__init__(t.TIME)


class Temp(Expr):
    """A temporary set earlier in the body (by :class:`SetTemp`, a :class:`Code`'s
    output, a :class:`CallFunction`)."""
    __slots__ = ("name",)

    def __init__(self, name: str, type_, wide: bool = False):
        super().__init__(type_, wide)
        self.name = name


class Compare(Expr):
    """``a op b``, op one of ``< > <= >= == !=`` (BOOL)."""
    __slots__ = ("op", "a", "b")

    def __init__(self, op: str, a: Expr, b: Expr):
        super().__init__(t.BOOL)
        self.op, self.a, self.b = op, a, b


class Logic(Expr):
    """``a and b``, ``a or b`` of BOOLs (the right side evaluated only when it
    decides), ``a != b`` for XOR."""
    __slots__ = ("op", "a", "b")

    def __init__(self, op: str, a: Expr, b: Expr):
        super().__init__(t.BOOL)
        self.op, self.a, self.b = op, a, b


class Not(Expr):
    __slots__ = ("a",)

    def __init__(self, a: Expr):
        super().__init__(t.BOOL)
        self.a = a


class Bits(Expr):
    """``a & b``, ``a | b``, ``a ^ b`` of two bit strings of one type (their
    values are non-negative and within its width)."""
    __slots__ = ("op", "a", "b")

    def __init__(self, op: str, a: Expr, b: Expr, type_):
        super().__init__(type_)
        self.op, self.a, self.b = op, a, b


class Invert(Expr):
    """NOT of a bit string: ``a ^ mask`` (all the type's bits set in mask)."""
    __slots__ = ("a", "mask")

    def __init__(self, a: Expr, mask: int, type_):
        super().__init__(type_)
        self.a, self.mask = a, mask


class Neg(Expr):
    """``-a`` of a TIME, as an exact integer (cut to TIME by the :class:`Narrow` around it)."""
    __slots__ = ("a",)

    def __init__(self, a: Expr):
        super().__init__(a.type, True)
        self.a = a


class Narrow(Expr):
    """``a`` cut to ``type`` as C's store cuts it (:meth:`fbd.types.DataType.wrap`:
    an integer wrapped to its width, a REAL rounded to single precision)."""
    __slots__ = ("a",)

    def __init__(self, a: Expr, type_):
        super().__init__(type_)
        self.a = a


class Copy(Expr):
    """A value as IEC assigns it: an array or a structure copied (``deep``: its
    elements are arrays or structures too), a STRING cut to ``length``."""
    __slots__ = ("a", "deep", "length")

    def __init__(self, a: Expr, type_, deep: bool = False, length: int | None = None):
        super().__init__(type_)
        self.a, self.deep, self.length = a, deep, length


class FnCall(Expr):
    """A user FUNCTION's result, called with ``args`` (one per input, then one per
    VAR_IN_OUT), when it has no outputs to hand back."""
    __slots__ = ("info", "args")

    def __init__(self, info, args: list):
        super().__init__(info.result_type)
        self.info, self.args = info, args


class Item(Expr):
    """The ``k``-th value handed back by a :class:`CallFunction` (0: the result,
    then its VAR_OUTPUTs, then its VAR_IN_OUTs)."""
    __slots__ = ("call", "k")

    def __init__(self, call: "CallFunction", k: int, type_):
        super().__init__(type_)
        self.call, self.k = call, k


# ------------------------------------------------------------------ statements
class Stmt:
    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Line(Stmt):
    """The ST statement ``node`` begins here (the debugger stops before it)."""
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


class Assign(Stmt):
    """``target := value`` (``value`` already narrowed and copied as IEC assigns)."""
    __slots__ = ("target", "value")

    def __init__(self, target: Expr, value: Expr):
        self.target, self.value = target, value


class SetTemp(Stmt):
    __slots__ = ("temp", "value")

    def __init__(self, temp: Temp, value: Expr):
        self.temp, self.value = temp, value


class Code(Stmt):
    """A library block's code (:func:`fbd.block.code_lines`): ``names`` maps each of
    its inputs to an expression and each output and state variable to where it
    goes (a :class:`Temp` for an operator's result, an FB instance's member
    :class:`Ref`)."""
    __slots__ = ("block", "names")

    def __init__(self, block, names: dict):
        self.block, self.names = block, names


class Check(Stmt):
    """Stop the scan with an error naming ``where`` unless ``lo <= value <= hi``
    (an array index); ``temp`` is set to the value."""
    __slots__ = ("temp", "value", "lo", "hi", "where")

    def __init__(self, temp: Temp, value: Expr, lo: int, hi: int, where: str):
        self.temp, self.value, self.lo, self.hi, self.where = temp, value, lo, hi, where


class If(Stmt):
    """IF / ELSIF / ELSE: ``branches`` of ``(pre, condition, body)``, ``pre`` the
    statements the condition needs first (run only when the branches before
    did not match); ``else_body`` None when there is no ELSE."""
    __slots__ = ("branches", "else_body")

    def __init__(self, branches: list, else_body: list | None):
        self.branches, self.else_body = branches, else_body


class Case(Stmt):
    """CASE: ``selector`` (cut to its type, as matiec stores it), ``branches`` of
    ``(labels, body)`` with labels as ``(lo, hi)`` integer intervals; the first
    branch holding the selector's value runs, else ``else_body``."""
    __slots__ = ("selector", "branches", "else_body")

    def __init__(self, selector: Expr, branches: list, else_body: list | None):
        self.selector, self.branches, self.else_body = selector, branches, else_body


class Loop(Stmt):
    __slots__ = ()


class For(Loop):
    """FOR (see :mod:`.stmts` for its semantics): ``var`` the variable's place,
    ``start`` its first value; ``end`` and ``step`` (None: 1) evaluated at every
    test after ``end_pre`` / ``step_pre``; ``where`` names the loop for the
    watchdog."""
    __slots__ = ("var", "start", "end_pre", "end", "step_pre", "step", "body", "where")

    def __init__(self, var, start, end_pre, end, step_pre, step, body, where):
        self.var, self.start, self.end_pre, self.end = var, start, end_pre, end
        self.step_pre, self.step, self.body, self.where = step_pre, step, body, where


class While(Loop):
    __slots__ = ("pre", "cond", "body", "where")

    def __init__(self, pre, cond, body, where):
        self.pre, self.cond, self.body, self.where = pre, cond, body, where


class Repeat(Loop):
    """REPEAT ... UNTIL: the body, then ``pre`` and the test; CONTINUE goes to the test."""
    __slots__ = ("body", "pre", "cond", "where")

    def __init__(self, body, pre, cond, where):
        self.body, self.pre, self.cond, self.where = body, pre, cond, where


class Eval(Stmt):
    """An expression evaluated for what it may do (a FUNCTION called as a
    statement: its watchdog and index checks), its value dropped."""
    __slots__ = ("value",)

    def __init__(self, value: Expr):
        self.value = value


class Exit(Stmt):
    __slots__ = ()


class Continue(Stmt):
    __slots__ = ()


class Return(Stmt):
    __slots__ = ()


class CallFb(Stmt):
    """A call of a user FB instance ``var`` (its inputs assigned before, as
    :class:`Assign` to its members), ``inouts`` the caller's places passed as
    its VAR_IN_OUTs, copied in and back out (matiec's way)."""
    __slots__ = ("var", "info", "inouts")

    def __init__(self, var, info, inouts: list):
        self.var, self.info, self.inouts = var, info, inouts


class CallFunction(Stmt):
    """A user FUNCTION called for more than its result: ``args`` as in
    :class:`FnCall`; :class:`Item` reads what it hands back."""
    __slots__ = ("info", "args", "name")

    def __init__(self, info, args: list, name: str):
        self.info, self.args, self.name = info, args, name


class PouCode:
    """A compiled POU body: its statements and what its engines need to know."""
    __slots__ = ("info", "body", "loops", "temps", "census")

    def __init__(self, info, body: list, loops: bool, temps: int):
        self.info = info
        self.body = body
        self.loops = loops          # it has loops (the watchdog counts their iterations)
        self.temps = temps
        self.census = None          # what one walk of the body found (fbd.st.census:
        # a Census while the Python writer needs it, its Summary after)


# ------------------------------------------------------------------ walking
def children(stmt) -> list:
    """The statement lists directly inside ``stmt``."""
    if isinstance(stmt, If):
        out = []
        for pre, _cond, body in stmt.branches:
            out += [pre, body]
        if stmt.else_body is not None:
            out.append(stmt.else_body)
        return out
    if isinstance(stmt, Case):
        out = [body for _labels, body in stmt.branches]
        if stmt.else_body is not None:
            out.append(stmt.else_body)
        return out
    if isinstance(stmt, For):
        return [stmt.end_pre, stmt.step_pre, stmt.body]
    if isinstance(stmt, While):
        return [stmt.pre, stmt.body]
    if isinstance(stmt, Repeat):
        return [stmt.body, stmt.pre]
    return []


def walk(body: list):
    """Every statement of ``body`` and of the lists inside it."""
    stack = [body]
    while stack:
        for stmt in stack.pop():
            yield stmt
            stack.extend(children(stmt))


def pieces(body: list, size: int) -> list[list]:
    """``body`` cut before every ``size``-th ST statement (an :class:`Line` starts
    one): what a long body's functions of their own each run, in turn."""
    out, start, seen = [], 0, 0
    for at, stmt in enumerate(body):
        if type(stmt) is Line:
            if seen == size:
                out.append(body[start:at])
                start, seen = at, 0
            seen += 1
    out.append(body[start:])
    return out


def exprs_of(stmt) -> list:
    """The expressions ``stmt`` itself evaluates (not those of the lists inside it)."""
    if isinstance(stmt, Assign):
        return [stmt.target, stmt.value]
    if isinstance(stmt, (SetTemp, Check, Eval)):
        return [stmt.value]
    if isinstance(stmt, Code):
        return list(stmt.names.values())
    if isinstance(stmt, If):
        return [cond for _pre, cond, _body in stmt.branches]
    if isinstance(stmt, Case):
        return [stmt.selector]
    if isinstance(stmt, For):
        return [stmt.var, stmt.start, stmt.end] + ([stmt.step] if stmt.step is not None else [])
    if isinstance(stmt, (While, Repeat)):
        return [stmt.cond]
    if isinstance(stmt, CallFb):
        return list(stmt.inouts)
    if isinstance(stmt, CallFunction):
        return list(stmt.args)
    return []


def subexprs(e) -> list:
    if isinstance(e, (Compare, Logic, Bits)):
        return [e.a, e.b]
    if isinstance(e, (Not, Invert, Neg, Narrow, Copy)):
        return [e.a]
    if isinstance(e, Elem):
        return [e.base] + [term for term, _lo, _stride in e.terms]
    if isinstance(e, Field):
        return [e.base]
    if isinstance(e, FnCall):
        return list(e.args)
    return []


def iter_exprs(e):
    todo = [e]
    while todo:
        node = todo.pop()
        yield node
        todo += subexprs(node)


def case_intervals(branches) -> list:
    """The CASE's labels as sorted disjoint ``(lo, hi, branch)`` intervals: a value
    two branches name belongs to the first (the first that holds it runs);
    neighbours of one branch are merged."""
    taken: list = []            # sorted disjoint (lo, hi) already given to a branch
    out = []
    for k, (labels, _body) in enumerate(branches):
        for lo, hi in labels:
            if lo > hi:
                continue
            pieces = [(lo, hi)]
            for a, b in taken:
                nxt = []
                for x, y in pieces:
                    if y < a or x > b:
                        nxt.append((x, y))
                        continue
                    if x < a:
                        nxt.append((x, a - 1))
                    if y > b:
                        nxt.append((b + 1, y))
                pieces = nxt
            for x, y in pieces:
                out.append((x, y, k))
                taken.append((x, y))
            taken.sort()
    out.sort()
    merged = []
    for lo, hi, k in out:
        if merged and merged[-1][2] == k and merged[-1][1] + 1 == lo:
            merged[-1] = (merged[-1][0], hi, k)
        else:
            merged.append((lo, hi, k))
    return merged


def root_var(e) -> Any:
    """The variable an element or member path starts from (None for a temporary)."""
    while isinstance(e, (Elem, Field)):
        e = e.base
    return e.var if isinstance(e, Ref) else None


__all__ = ["Expr", "Const", "Ref", "Elem", "Field", "Now", "Temp", "Compare", "Logic", "Not",
           "Bits", "Invert", "Neg", "Narrow", "Copy", "FnCall", "Item", "Stmt", "Line", "Assign",
           "SetTemp", "Code", "Check", "Eval", "If", "Case", "Loop", "For", "While", "Repeat", "Exit",
           "Continue", "Return", "CallFb", "CallFunction", "PouCode", "children", "walk", "pieces",
           "exprs_of", "subexprs", "iter_exprs", "root_var", "case_intervals"]
