"""From a block's statements to its value graph (:mod:`.ir`): if-conversion.

The block's one definition is the Python text ``fbd.block.code_lines`` gives
(the text the scalar engines run). :class:`Lifter` parses it with :mod:`ast`
and executes it *symbolically*: an assignment binds a name to a node; an
``if`` runs both branches on copies of the bindings and joins them, each name
assigned differently becoming ``select(test, then, else)``; a conditional
expression is a ``select`` too. What the block finally assigns to each output
and state variable is its node; a name read before the block assigns it is
its old value (last scan's).

Three refinements keep the vector form exact and cheap:

* **guards.** Operations that Python could raise on (a function of ``math``,
  a helper, ``math.trunc`` of a NaN) carry the condition under which the
  scalar code reaches them; the vector code computes them only there.
* **intervals.** Inside ``if x < 100:`` the node of ``x`` is refined to end at
  99 (also for ``<=, >, >=, ==`` against a constant, conjunctions, and the
  ``else`` of a single comparison), so ``x + 1`` is known to fit where it does.
* **helpers.** A helper a block lists (``helpers``) is inlined when its source
  is a function of returns, ifs and assignments (its early returns become
  selects); otherwise it is called per instance, on the guarded lanes, and
  its annotated return type (``-> float``) says what it gives.

Anything else (method calls, subscripts, loops, tuple assignment, strings
beyond comparison and choice) raises :class:`~.ir.Untranslatable`.
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
from typing import Any

from .. import real32
from .ir import Graph, Node, Untranslatable

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.LShift: "lshift",
           ast.RShift: "rshift", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
           ast.GtE: "ge"}
_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_MATH_CONSTANTS = {"pi", "e", "tau", "inf", "nan"}
#: math functions of floats that numpy computes bit for bit as C's libm does
#: (exactly rounded, or exact): vectorised. The others are called per instance.
_MATH_VECTOR = {"isfinite": "isfinite", "isnan": "isnan", "isinf": "isinf",
                "copysign": "copysign", "fabs": "fabs", "sqrt": "sqrt"}
_MATH_TO_INT = {"trunc", "floor", "ceil"}
_RETURN_KINDS = {"float": "float", "int": "int", "bool": "bool", "str": "str",
                 float: "float", int: "int", bool: "bool", str: "str"}
_UNDEFINED = object()
_MAX_INLINE_DEPTH = 8


class Lifter:
    """Symbolic execution of one block's code over a :class:`~.ir.Graph`.

    ``namespace``: the globals the block's code sees (``math`` and its helpers).
    """

    def __init__(self, graph: Graph, namespace: dict):
        self.g = graph
        self.namespace = namespace
        self._depth = 0

    # -- statements ---------------------------------------------------------------
    def run(self, source: str, env: dict) -> dict:
        """Execute the block's statements symbolically from bindings ``env``
        (name -> node); return the bindings at the end."""
        try:
            tree = ast.parse(source)
        except SyntaxError as err:
            raise Untranslatable(f"code does not parse: {err}") from None
        return self.block(tree.body, dict(env), None)

    def block(self, stmts, env: dict, guard) -> dict:
        for st in stmts:
            self.stmt(st, env, guard)
        return env

    def stmt(self, st, env: dict, guard) -> None:
        g = self.g
        if isinstance(st, ast.Assign):
            if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
                raise Untranslatable("an assignment to something other than one name")
            env[st.targets[0].id] = self.expr(st.value, env, guard)
        elif isinstance(st, ast.AugAssign):
            if not isinstance(st.target, ast.Name) or type(st.op) not in _BINOPS:
                raise Untranslatable("an augmented assignment")
            old = self.read(st.target.id, env)
            env[st.target.id] = self.binop(_BINOPS[type(st.op)], old,
                                           self.expr(st.value, env, guard), guard)
        elif isinstance(st, ast.If):
            test = self.truth(self.expr(st.test, env, guard))
            if test.is_const:
                self.block(st.body if test.value else st.orelse, env, guard)
                return
            then_env = self.block(st.body, self.refined(st.test, env, True), self.both(guard, test))
            else_env = self.block(st.orelse, self.refined(st.test, env, False),
                                  self.both(guard, g.node("not", test)))
            self.join(env, test, then_env, else_env)
        elif isinstance(st, ast.Pass):
            pass
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            pass  # a docstring
        else:
            raise Untranslatable(f"a {type(st).__name__} statement")

    def join(self, env: dict, test: Node, then_env: dict, else_env: dict) -> None:
        """``env`` after ``if test``: each name the branches leave different is a select."""
        for name in sorted(set(then_env) | set(else_env)):
            a = self._unrefined(then_env.get(name, _UNDEFINED), env.get(name, _UNDEFINED))
            b = self._unrefined(else_env.get(name, _UNDEFINED), env.get(name, _UNDEFINED))
            if a is b:
                env[name] = a
            elif a is _UNDEFINED:   # only one branch defines it: Python would fail on
                env[name] = b       # the other if it were read there, so any value does
            elif b is _UNDEFINED:
                env[name] = a
            else:
                env[name] = self.select(test, a, b)

    @staticmethod
    def _unrefined(value, before):
        # a branch's refinement of a name it did not assign is no assignment
        if isinstance(value, Node) and value.op == "refine" and isinstance(before, Node):
            if value.args[0] is (before.args[0] if before.op == "refine" else before):
                return before
        return value

    # -- functions (inlined helpers) ----------------------------------------------------
    def function_body(self, stmts: list, env: dict, guard) -> Node:
        """The value a helper's body returns: early returns become selects."""
        for i, st in enumerate(stmts):
            if isinstance(st, ast.Return):
                if st.value is None:
                    raise Untranslatable("a bare return")
                return self.expr(st.value, env, guard)
            if isinstance(st, ast.If) and _has_return(st):
                rest = stmts[i + 1:]
                test = self.truth(self.expr(st.test, env, guard))
                if test.is_const:
                    return self.function_body((st.body if test.value else st.orelse) + rest,
                                              env, guard)
                then = self.function_body(st.body + rest, self.refined(st.test, env, True),
                                          self.both(guard, test))
                other = self.function_body(st.orelse + rest, self.refined(st.test, env, False),
                                           self.both(guard, self.g.node("not", test)))
                return self.select(test, then, other)
            self.stmt(st, env, guard)
        raise Untranslatable("a helper that can end without a return")

    def helper(self, fn, args: list, guard) -> Node:
        """Inline the Python function ``fn`` called with ``args``; if its source
        cannot be read or lifted, call it per instance (on the guarded lanes)."""
        try:
            if self._depth >= _MAX_INLINE_DEPTH:
                raise Untranslatable("helpers nested too deep")
            fdef = _function_ast(fn)
            spec = fdef.args
            if (spec.vararg or spec.kwarg or spec.kwonlyargs or spec.defaults
                    or spec.posonlyargs or len(spec.args) != len(args)):
                raise Untranslatable(f"helper {fn.__name__}'s signature")
            env = {a.arg: v for a, v in zip(spec.args, args)}
            inner = Lifter(self.g, dict(fn.__globals__))
            inner._depth = self._depth + 1
            return inner.function_body(fdef.body, env, guard)
        except Untranslatable:
            kind = _return_kind(fn)
            return self.g.node("call", self.guard_node(guard), *args, aux=(fn, kind))

    # -- expressions --------------------------------------------------------------------
    def read(self, name: str, env: dict) -> Node:
        if name in env and env[name] is not _UNDEFINED:
            return env[name]
        if name == "now":
            return self.g.now()
        if name in ("True", "False"):
            return self.g.const(name == "True")
        value = self.namespace.get(name, _UNDEFINED)
        if isinstance(value, (bool, int, float, str)) and not callable(value):
            return self.g.const(value)
        raise Untranslatable(f"name {name!r}")

    def expr(self, e, env: dict, guard) -> Node:
        g = self.g
        if isinstance(e, ast.Name):
            return self.read(e.id, env)
        if isinstance(e, ast.Constant):
            if e.value is None or isinstance(e.value, (bytes, complex)):
                raise Untranslatable(f"constant {e.value!r}")
            return g.const(e.value)
        if isinstance(e, ast.Attribute):
            if _is_math(e.value, self.namespace) and e.attr in _MATH_CONSTANTS:
                return g.const(getattr(math, e.attr))
            raise Untranslatable(f"attribute {e.attr}")
        if isinstance(e, ast.UnaryOp):
            x = self.expr(e.operand, env, guard)
            if isinstance(e.op, ast.Not):
                return g.node("not", self.truth(x))
            if isinstance(e.op, ast.USub):
                return g.node("neg", x)
            if isinstance(e.op, ast.UAdd):
                return g.node("pos", x)
            return g.node("invert", x)
        if isinstance(e, ast.BinOp):
            if type(e.op) not in _BINOPS:
                raise Untranslatable(f"operator {type(e.op).__name__}")
            return self.binop(_BINOPS[type(e.op)], self.expr(e.left, env, guard),
                              self.expr(e.right, env, guard), guard)
        if isinstance(e, ast.BoolOp):
            return self.boolop(e, env, guard)
        if isinstance(e, ast.Compare):
            return self.compare(e, env, guard)
        if isinstance(e, ast.IfExp):
            rounded = real32.match_real32_code(e, self.namespace)
            if rounded is not None:  # REAL's rounding: a float32 cast
                name, inner = rounded
                env[name] = value = self.expr(inner, env, guard)
                return self.single(value)
            test = self.truth(self.expr(e.test, env, guard))
            if test.is_const:
                return self.expr(e.body if test.value else e.orelse, env, guard)
            then = self.expr(e.body, self.refined(e.test, env, True), self.both(guard, test))
            other = self.expr(e.orelse, self.refined(e.test, env, False),
                              self.both(guard, g.node("not", test)))
            return self.select(test, then, other)
        if isinstance(e, ast.NamedExpr):
            value = self.expr(e.value, env, guard)
            env[e.target.id] = value
            return value
        if isinstance(e, ast.Call):
            return self.call(e, env, guard)
        raise Untranslatable(f"a {type(e).__name__} expression")

    def binop(self, op: str, a: Node, b: Node, guard) -> Node:
        g = self.g
        if op == "truediv" and a.kind == "int" and b.kind == "int":
            return g.node("truediv", a, b)  # exact division of integers, see .lower
        if op in ("floordiv", "mod", "truediv") and b.is_const and b.value == 0:
            raise Untranslatable("a division by the constant 0")
        if op in ("add", "sub", "mul", "truediv") and "float" in (a.kind, b.kind):
            a, b = self.to_float(a), self.to_float(b)
        return g.node(op, a, b)

    def boolop(self, e: ast.BoolOp, env: dict, guard) -> Node:
        g = self.g
        op = "and" if isinstance(e.op, ast.And) else "or"
        values = []
        for item in e.values:
            # a later operand is evaluated only where the earlier ones did not decide
            so_far = values[-1] if values else None
            reach = guard
            if so_far is not None:
                reach = self.both(guard, so_far if op == "and" else g.node("not", so_far))
            x = self.expr(item, env, reach)
            if x.kind != "bool":
                raise Untranslatable(f"'{op}' of a {x.kind} (Python would give the operand)")
            values.append(x if so_far is None else g.node(op, so_far, x))
        return values[-1]

    def compare(self, e: ast.Compare, env: dict, guard) -> Node:
        g = self.g
        left = self.expr(e.left, env, guard)
        result = None
        for op, right_ast in zip(e.ops, e.comparators):
            if type(op) not in _CMPOPS:
                raise Untranslatable(f"comparison {type(op).__name__}")
            reach = self.both(guard, result) if result is not None else guard
            right = self.expr(right_ast, env, reach)
            pair = g.node(_CMPOPS[type(op)], left, right)
            result = pair if result is None else g.node("and", result, pair)
            left = right
        return result

    def call(self, e: ast.Call, env: dict, guard) -> Node:
        if e.keywords:
            raise Untranslatable("a call with keywords")
        args = [self.expr(a, env, guard) for a in e.args]
        func = e.func
        if isinstance(func, ast.Attribute) and _is_math(func.value, self.namespace):
            return self.math_call(func.attr, args, guard)
        if not isinstance(func, ast.Name):
            raise Untranslatable("a method call")
        name = func.id
        target = self.namespace.get(name, _UNDEFINED)
        if target is _UNDEFINED and name in _BUILTINS:
            return _BUILTINS[name](self, args, guard)
        if target is real32.int_to_real32 and len(args) == 1:
            return self.single(args[0])
        if inspect.isfunction(target):
            return self.helper(target, args, guard)
        raise Untranslatable(f"a call of {name}")

    def math_call(self, name: str, args: list, guard) -> Node:
        g = self.g
        if name in _MATH_TO_INT and len(args) == 1:
            (x,) = args
            if x.kind == "int":
                return x
            if x.kind != "float":
                raise Untranslatable(f"math.{name} of a {x.kind}")
            return g.node(name, self.guard_node(guard), x)
        if name in _MATH_VECTOR:
            args = [self.to_float(a) for a in args]
            if name in ("isfinite", "isnan", "isinf") and len(args) == 1:
                return g.node(name, *args)
            if name == "copysign" and len(args) == 2 or name in ("fabs", "sqrt") and len(args) == 1:
                return g.node(name, *args)
        fn = getattr(math, name, None)
        if fn is None or not callable(fn):
            raise Untranslatable(f"math.{name}")
        # libm's transcendental functions: numpy's own may differ in the last
        # bit, so they are called per instance, exactly as the scalar code does
        return g.node("call", self.guard_node(guard), *[self.to_float(a) for a in args],
                      aux=(fn, "float"))

    # -- helpers of the helpers ---------------------------------------------------------
    def truth(self, x: Node) -> Node:
        """``bool(x)`` as a node."""
        if x.kind == "bool":
            return x
        if x.kind in ("int", "float"):
            return self.g.node("ne", x, self.g.const(0 if x.kind == "int" else 0.0))
        raise Untranslatable(f"the truth of a {x.kind}")

    def single(self, x: Node) -> Node:
        """``x`` rounded once to single precision (a REAL): its ``single`` node."""
        if x.kind == "bool":
            x = self.to_float(x)
        if x.kind not in ("int", "float"):
            raise Untranslatable(f"a {x.kind} as a REAL")
        return self.g.node("single", x)

    def to_float(self, x: Node) -> Node:
        if x.kind == "float":
            return x
        if x.kind == "int":
            return self.g.node("float", x)
        if x.kind == "bool":
            return self.select(x, self.g.const(1.0), self.g.const(0.0))
        raise Untranslatable(f"a {x.kind} as a REAL")

    def select(self, c: Node, a: Node, b: Node) -> Node:
        """``a if c else b``, simplified where the arms make it a boolean operation."""
        g = self.g
        if a is b:
            return a
        if c.is_const:
            return a if c.value else b
        if a.kind == "bool" and b.kind == "bool":
            nc = g.node("not", c)
            if b is c or b is nc or a is c or a is nc:
                # an arm that is the test itself, or its negation, is a constant there
                a = g.const(True) if a is c else g.const(False) if a is nc else a
                b = g.const(False) if b is c else g.const(True) if b is nc else b
                if a is b:
                    return a
            if a.is_const and b.is_const:
                return c if a.value else g.node("not", c)
            if a.is_const:
                return g.node("or", c, b) if a.value else g.node("and", g.node("not", c), b)
            if b.is_const:
                return g.node("or", g.node("not", c), a) if b.value else g.node("and", c, a)
        if a.kind == "int" and b.kind == "bool" or a.kind == "bool" and b.kind == "int":
            raise Untranslatable("a choice between a BOOL and an integer")
        return g.node("select", c, a, b)

    def both(self, guard, test: Node):
        if guard is None:
            return test
        return self.g.node("and", guard, test)

    def guard_node(self, guard) -> Node:
        return self.g.const(True) if guard is None else guard

    def refined(self, test, env: dict, holds: bool) -> dict:
        """A copy of ``env`` in which the names ``test`` bounds (when it ``holds``,
        or fails) are refined nodes (see the module docstring)."""
        facts = _facts(test) if holds else _negated_facts(test)
        out = dict(env)
        for name, op, value in facts:
            node = out.get(name)
            if not isinstance(node, Node) or node.kind != "int" or not isinstance(value, int) \
                    or isinstance(value, bool):
                continue
            lo, hi = node.lo, node.hi
            if op == "lt":
                hi = value - 1 if hi is None else min(hi, value - 1)
            elif op == "le":
                hi = value if hi is None else min(hi, value)
            elif op == "gt":
                lo = value + 1 if lo is None else max(lo, value + 1)
            elif op == "ge":
                lo = value if lo is None else max(lo, value)
            elif op == "eq":
                lo, hi = value, value
            else:
                continue
            if (lo, hi) != (node.lo, node.hi) and (lo is None or hi is None or lo <= hi):
                base = node.args[0] if node.op == "refine" else node
                out[name] = self.g.node("refine", base, aux=(lo, hi))
        return out


def _name_of(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.NamedExpr):
        return e.target.id
    return None


def _const_of(e):
    if isinstance(e, ast.Constant) and isinstance(e.value, int):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and isinstance(e.operand.value, int):
        return -e.operand.value
    return None


def _compare_facts(e: ast.Compare) -> list:
    facts = []
    operands = [e.left, *e.comparators]
    for op, left, right in zip(e.ops, operands, operands[1:]):
        if type(op) not in _CMPOPS:
            continue
        name, value, cmp = _name_of(left), _const_of(right), _CMPOPS[type(op)]
        if name is None or value is None:
            name, value, cmp = _name_of(right), _const_of(left), _MIRRORED[cmp]
        if name is not None and value is not None:
            facts.append((name, cmp, value))
    return facts


def _facts(test) -> list:
    """(name, op, constant) facts that hold where ``test`` is true."""
    if isinstance(test, ast.Compare):
        return _compare_facts(test)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [f for v in test.values for f in _facts(v)]
    if isinstance(test, ast.BinOp) and isinstance(test.op, ast.BitAnd):
        return _facts(test.left) + _facts(test.right)
    return []


def _negated_facts(test) -> list:
    """Facts that hold where ``test`` is false (a single comparison only)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return [(name, _NEGATED[op], value) for name, op, value in _compare_facts(test)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _facts(test.operand)
    return []


def _has_return(st) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(st))


def _is_math(e, namespace: dict) -> bool:
    return isinstance(e, ast.Name) and namespace.get(e.id, math if e.id == "math" else None) is math


_FUNCTION_AST: dict = {}


def _function_ast(fn) -> ast.FunctionDef:
    cached = _FUNCTION_AST.get(fn)
    if cached is None:
        try:
            source = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            raise Untranslatable(f"no source for helper {fn.__name__}") from None
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a lambda inside an expression: getsource gives a fragment
            raise Untranslatable(f"helper {fn.__name__} is not a plain function") from None
        if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
            raise Untranslatable(f"helper {fn.__name__} is not a plain function")
        cached = _FUNCTION_AST[fn] = tree.body[0]
    return cached


def _return_kind(fn) -> str:
    annotation = getattr(fn, "__annotations__", {}).get("return")
    kind = _RETURN_KINDS.get(annotation)
    if kind is None:
        raise Untranslatable(f"helper {getattr(fn, '__name__', fn)!r} has no return "
                             f"annotation (-> float, int, bool or str)")
    return kind


# -- builtins ------------------------------------------------------------------------
def _abs(lift: Lifter, args, guard):
    (x,) = args
    if x.kind == "bool":
        raise Untranslatable("abs of a BOOL")
    return lift.g.node("abs", x)


def _float(lift: Lifter, args, guard):
    (x,) = args
    return lift.to_float(x)


def _int(lift: Lifter, args, guard):
    (x,) = args
    if x.kind == "int":
        return x
    if x.kind == "bool":
        return lift.select(x, lift.g.const(1), lift.g.const(0))
    if x.kind == "float":
        return lift.g.node("trunc", lift.guard_node(guard), x)
    raise Untranslatable(f"int of a {x.kind}")


def _bool(lift: Lifter, args, guard):
    (x,) = args
    return lift.truth(x)


def _minmax(better: str):
    def build(lift: Lifter, args, guard):
        # Python keeps the first of equal values, and a later one only if it
        # compares strictly better: min(a, b) is b if b < a else a
        if len(args) < 2:
            raise Untranslatable("min/max of fewer than two values")
        acc = args[0]
        for nxt in args[1:]:
            acc = lift.select(lift.g.node(better, nxt, acc), nxt, acc)
        return acc
    return build


_BUILTINS: dict[str, Any] = {"abs": _abs, "float": _float, "int": _int, "bool": _bool,
                             "min": _minmax("lt"), "max": _minmax("gt")}

__all__ = ["Lifter"]
