"""From a block's value graph (:mod:`.ir`) to numpy statements over its slots.

Integers in the scalar engine are Python's, unbounded; here every integer lives in a
numpy array of 8 to 64 bits (or, rarely, of Python ints), the one :class:`.plan.Plan`
chose for it so that the numbers come out the same. Then

each operation is one numpy call into a scratch buffer (``out=``), or
straight into its output slot when nothing reads the old value after it; a
chain of selects ending in an output's old value (``if RST: OUT = 0 elif
SET: OUT = IN``) is a series of ``np.copyto(..., where=...)`` on the slot
itself.

Values that are the same in every instance (constants, the clock) are
computed once, in plain Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..block import literal
from .ir import COMPARE, Graph, Node, Untranslatable
from .plan import INT_DTYPES, Plan, Target, base, fits

_UFUNC = {"add": "np_add", "sub": "np_subtract", "mul": "np_multiply", "and": "np_bitwise_and",
          "or": "np_bitwise_or", "xor": "np_bitwise_xor", "lshift": "np_left_shift",
          "rshift": "np_right_shift", "floordiv": "np_floor_divide", "mod": "np_remainder",
          "neg": "np_negative", "invert": "np_invert", "eq": "np_equal", "ne": "np_not_equal",
          "lt": "np_less", "le": "np_less_equal", "gt": "np_greater", "ge": "np_greater_equal",
          "not": "np_logical_not", "isfinite": "np_isfinite", "isnan": "np_isnan",
          "isinf": "np_isinf", "copysign": "np_copysign", "fabs": "np_fabs", "sqrt": "np_sqrt",
          "truediv": "np_true_divide", "abs": "np_absolute"}
_PYOP = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
         "lshift": "<<", "rshift": ">>", "xor": "^", "eq": "==", "ne": "!=", "lt": "<",
         "le": "<=", "gt": ">", "ge": ">="}
_PYFUNC = {"abs": "abs", "float": "float", "trunc": "math.trunc", "floor": "math.floor",
           "ceil": "math.ceil", "isfinite": "math.isfinite", "isnan": "math.isnan",
           "isinf": "math.isinf", "copysign": "math.copysign", "fabs": "math.fabs",
           "sqrt": "math.sqrt"}
#: Python ints on object arrays: these could raise (by zero, a negative count), so
#: they go through runtime helpers that give 0 there instead (lanes the block never uses)
_OBJ_SAFE = {"floordiv": "_obj_floordiv", "mod": "_obj_mod", "lshift": "_obj_lshift",
             "rshift": "_obj_rshift"}
_EXACT_53 = 1 << 53


def wrap_const(value: int, dtype: str) -> int:
    bits, signed = INT_DTYPES[dtype]
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


@dataclass
class Lowered:
    """A block's vector code: statements with ``{k}`` for the k-th slot."""
    lines: list
    temps: dict = field(default_factory=dict)     # dtype -> scratch buffers used
    functions: dict = field(default_factory=dict)  # global name -> object the code calls


class Lowering:
    """Lower one block's roots (target name -> node) to statements, as its
    :class:`~.plan.Plan` says."""

    def __init__(self, graph: Graph, roots: dict, targets: dict, inputs: dict, fn_prefix: str):
        self.plan = plan = Plan(graph, roots, targets, inputs)
        self.targets = targets          # name -> Target
        self.inputs = inputs            # input var node -> (token, dtype)
        self.fn_prefix = fn_prefix
        self.functions: dict = {}
        self.roots = plan.roots
        self.order, self.args, self.position = plan.order, plan.args, plan.position
        self.users, self.root_of, self.carrier = plan.users, plan.root_of, plan.carrier

    def lower(self) -> Lowered:
        self.lines: list = []
        self.name: dict = {}      # id -> expression of the node's value
        self.home: dict = {}      # id -> buffer the node was computed into
        self.free: dict = {}      # dtype -> free scratch buffer numbers
        self.count: dict = {}     # dtype -> buffers made
        self.want = self._slot_homes()
        for i, n in enumerate(self.order):
            if n.scalar or n.op in ("var", "const", "now"):
                continue
            self._emit_node(n)
            for a in set(self.args[id(n)]):
                if self.position.get(id(a), -1) < i and self._last_use(a) == i:
                    self._release(a)
        self._stores()
        temps = {dtype: count for dtype, count in self.count.items() if count}
        return Lowered(self.lines, temps, self.functions)

    def _last_use(self, n: Node) -> int:
        users = self.users.get(id(n), ())
        return max((self.position[id(u)] for u in users), default=-1)

    def _slot_homes(self) -> dict:
        """Nodes computed straight into a target's slot: id -> target name."""
        want: dict = {}
        old_vars = {id(t.old): name for name, t in self.targets.items()}
        for name, root in self.roots.items():
            t = self.targets[name]
            n = base(root)
            if n.scalar or n.op == "var" or self.carrier[id(n)] != t.dtype:
                continue
            if self.root_of[id(n)][0] != name:
                continue  # shared with an earlier target: stored from there
            chain = [n]
            while (n.op == "select" and self.args[id(n)][2].op not in ("var", "const", "now")
                   and not self.args[id(n)][2].scalar
                   and len(self.users[id(self.args[id(n)][2])]) == 1
                   and id(self.args[id(n)][2]) not in self.root_of
                   and self.carrier[id(self.args[id(n)][2])] == t.dtype):
                n = self.args[id(n)][2]
                chain.append(n)
            first_write = self.position[id(chain[-1])]
            inner = chain[-1]
            ends_in_old = inner.op == "select" and self.args[id(inner)][2] is t.old
            ok = True
            for user in self.users.get(id(t.old), ()):
                pos = self.position[id(user)]
                if user is inner and (ends_in_old or inner.op != "select"):
                    if ends_in_old and t.old in self.args[id(inner)][:2]:
                        ok = False
                    continue
                if pos >= first_write:
                    ok = False
            # the old value stored into another target at the end: keep it intact
            if any(base(r) is t.old for r in self.roots.values()) or id(t.old) in old_vars \
                    and not ok:
                ok = ok and not any(base(r) is t.old for r in self.roots.values())
            if ok:
                for c in chain:
                    want[id(c)] = name
        return want

    def _buffer(self, dtype: str) -> str:
        free = self.free.setdefault(dtype, [])
        if free:
            k = free.pop()
        else:
            k = self.count.get(dtype, 0)
            self.count[dtype] = k + 1
        return f"_T_{dtype}_{k}"

    def _release(self, n: Node) -> None:
        home = self.home.get(id(n))
        if home is not None and home.startswith("_T_") and id(n) not in self.root_of:
            self._free_buffer(home)
            self.home[id(n)] = None

    def _slot(self, name: str) -> str:
        return "{%d}" % self.targets[name].token

    def ref(self, n: Node, want: str | None = None) -> str:
        """The expression of an operand, for an operation computed in dtype ``want``."""
        if n.scalar:
            text = self.scalar(n)
            if n.kind == "int" and want in INT_DTYPES and not fits(n.lo, n.hi, want):
                if n.is_const:
                    return repr(wrap_const(n.value, want))
                return f"_wrap_to({text}, {want!r})"
            if n.kind == "int" and want == "object":
                return text
            return text
        if n.op == "var":
            if n in self.inputs:
                text = "{%d}" % self.inputs[n][0]
            else:
                text = next("{%d}" % t.token for t in self.targets.values() if t.old is n)
        else:
            text = self.name[id(n)]
        if want in INT_DTYPES and self.carrier[id(n)] == "object":
            return f"_obj_to_int({text}, {want!r})"
        return text

    def scalar(self, n: Node) -> str:
        """Python source computing a scalar node with Python's semantics."""
        op, args = n.op, n.args
        if op == "const":
            v = n.value
            return literal(v) if not isinstance(v, str) else repr(v).replace("{", "{{").replace("}", "}}")
        if op == "now":
            return "now"
        if op in ("refine", "pos"):
            return self.scalar(args[0])
        s = [self.scalar(a) for a in args]
        if op == "select":
            return f"({s[1]} if {s[0]} else {s[2]})"
        if op in ("and", "or") and n.kind == "bool":
            return f"({s[0]} {op} {s[1]})"
        if op in ("and", "or"):
            return f"({s[0]} {'&' if op == 'and' else '|'} {s[1]})"
        if op == "not":
            return f"(not {s[0]})"
        if op == "neg":
            return f"(-{s[0]})"
        if op == "invert":
            return f"(~{s[0]})"
        if op in _PYOP:
            return f"({s[0]} {_PYOP[op]} {s[1]})"
        if op in ("trunc", "floor", "ceil"):
            return f"({_PYFUNC[op]}({s[1]}) if {s[0]} else 0)"
        if op == "call":
            fn = self._function(n.aux[0])
            return f"({fn}({', '.join(s[1:])}) if {s[0]} else 0)"
        if op in _PYFUNC:
            return f"{_PYFUNC[op]}({', '.join(s)})"
        if op == "single":
            return f"_single({s[0]})"
        raise Untranslatable(f"scalar {op}")

    def _function(self, fn) -> str:
        for name, obj in self.functions.items():
            if obj is fn:
                return name
        name = f"_f{self.fn_prefix}_{len(self.functions)}"
        self.functions[name] = fn
        return name

    def _into(self, n: Node) -> str:
        """The buffer ``n`` is computed into."""
        dtype = self.carrier[id(n)]
        target = self.want.get(id(n))
        if target is not None:
            home = self._slot(target)
        elif dtype == "object":
            home = None
        else:
            home = self._buffer(dtype)
        self.home[id(n)] = home
        return home

    def _emit_node(self, n: Node) -> None:
        op, key = n.op, id(n)
        args = self.args[key]
        dtype = self.carrier[key]
        lines = self.lines
        if op == "select":
            self._emit_select(n, args, dtype)
            return
        if op == "call":
            fn = self._function(n.aux[0])
            guard = self.ref(args[0])
            operands = ", ".join(self.ref(a) for a in args[1:])
            out = self._into(n)
            result = f"_v{key}"
            lines.append(f"{result} = _elementwise({fn}, {guard}, {dtype!r}, {out}, {operands})")
            self.name[key] = result
            return
        if op in ("trunc", "floor", "ceil"):
            x = self.ref(args[1])
            out = self._into(n)
            result = f"_v{key}"
            if dtype == "object":
                guard = self.ref(args[0])
                lines.append(f"{result} = _elementwise(math.{op}, {guard}, 'object', None, {x})")
            else:
                lines.append(f"{result} = _float_to_int({x}, {op!r}, {dtype!r}, {out})")
            self.name[key] = result
            return
        if op == "single":
            (x,) = args
            if self.carrier.get(id(x)) == "object":   # Python ints: each rounded once
                lines.append(f"_v{key} = _obj_to_single({self.ref(x)})")
                self.name[key] = f"_v{key}"
                return
            out = self._into(n)     # C's (float) of a double or of a 64-bit integer
            lines.append(f"np_copyto({out}, {self.ref(x)}, casting='unsafe')")
            self.name[key] = out
            return
        if op == "float":
            (x,) = args
            out = self._into(n)
            if self.carrier.get(id(x)) == "object":
                lines.append(f"_v{key} = _obj_to_float({self.ref(x)})")
                self.name[key] = f"_v{key}"
            else:
                lines.append(f"np_copyto({out}, {self.ref(x)}, casting='unsafe')")
                self.name[key] = out
            return
        if op == "truediv" and args[0].kind == "int":
            a, b = args
            out = self._into(n)
            exact = all(x.bounded() and -_EXACT_53 <= x.lo and x.hi <= _EXACT_53 for x in args)
            if exact and "object" not in (self.carrier.get(id(a)), self.carrier.get(id(b))):
                lines.append(f"np_true_divide({self.ref(a)}, {self.ref(b)}, out={out}, "
                             f"dtype=np_float64, casting='unsafe')")
                self.name[key] = out
            else:
                lines.append(f"_v{key} = _int_truediv({self.ref(a)}, {self.ref(b)}, {out})")
                self.name[key] = f"_v{key}"
            return
        if dtype == "object" and n.kind == "int" and op in _OBJ_SAFE:
            lines.append(f"_v{key} = {_OBJ_SAFE[op]}({self.ref(args[0], 'object')}, "
                         f"{self.ref(args[1], 'object')})")
            self.home[key] = None
            self.name[key] = f"_v{key}"
            return
        if op in ("and", "or", "xor") and n.kind == "bool":
            ufunc = {"and": "np_bitwise_and", "or": "np_bitwise_or", "xor": "np_bitwise_xor"}[op]
        elif op in _UFUNC:
            ufunc = _UFUNC[op]
        else:
            raise Untranslatable(f"vector {op}")
        if op in COMPARE or op in ("not", "isfinite", "isnan", "isinf"):
            operands = [self.ref(a) for a in args]
            cast = ""
        else:
            operands = [self.ref(a, dtype) for a in args]
            cast = self._cast(n, args, dtype)
        if op == "abs" and dtype == "uint64" and self.carrier.get(id(args[0])) == "int64":
            # |INT64_MIN| is 2**63: the int64 result's bits, read as unsigned
            lines.append(f"_v{key} = np_absolute({operands[0]}).view(np_uint64)")
            self.home[key] = None
            self.name[key] = f"_v{key}"
            return
        out = self._into(n)
        if out is None:
            lines.append(f"_v{key} = {ufunc}({', '.join(operands)}{cast})")
            self.name[key] = f"_v{key}"
        else:
            lines.append(f"{ufunc}({', '.join(operands)}, out={out}{cast})")
            self.name[key] = out

    def _cast(self, n: Node, args, dtype: str) -> str:
        """The ufunc keywords that make it compute in ``dtype``, if an operand differs."""
        if dtype == "object":
            return ", dtype=object"
        differs = any(not a.scalar and self.carrier[id(a)] != dtype for a in args)
        if not differs:
            return ""
        return f", dtype=np_{dtype}, casting='unsafe'"

    def _emit_select(self, n: Node, args, dtype: str) -> None:
        """``a if c else b``, branch-free (a masked ``np.copyto`` is a branch per
        element: ten times slower on masks that vary between instances):
        ``b + (a - b) * c`` for integers of up to 16 bits (exact: both arms are
        values of the dtype), ``b ^ ((a ^ b) & c)`` for BOOLs, ``np.where``
        for the rest, where it is the faster. Where ``b`` is already in the
        buffer (an old value in its slot, or a temporary no one else reads), the
        select updates it in place."""
        c, a, b = args
        key = id(n)
        lines = self.lines
        target = self.want.get(key)
        arith = dtype == "bool" or dtype in INT_DTYPES and INT_DTYPES[dtype][0] <= 16
        in_place = False
        if target is not None and (b is self.targets[target].old
                                   or self.want.get(id(b)) == target):
            home, in_place = self._slot(target), True
        elif (target is None and not b.scalar and b.op != "var" and len(self.users[id(b)]) == 1
              and id(b) not in self.root_of and self.carrier[id(b)] == dtype
              and (self.home.get(id(b)) or "").startswith("_T_")):
            home, in_place = self.home[id(b)], True
            self.home[id(b)] = None
        elif not arith and target is None and not c.scalar:
            home = None                        # np.where makes the array
        else:
            home = self._into(n)
        cref = self.ref(c)
        aref = self.ref(a, dtype)
        bref = home if in_place else self.ref(b, dtype)
        if c.scalar:                           # the same choice in every instance
            if in_place:
                lines.append(f"if {cref}: np_copyto({home}, {aref}{self._copy_cast(a, dtype)})")
            else:
                lines.append(f"np_copyto({home}, {aref} if {cref} else {bref}, casting='unsafe')")
        elif not arith:
            # np.where promotes (uint64 with int64 gives float64): arms in the dtype
            arms = [r if x.scalar or self.carrier.get(id(x)) in (dtype, "object") or r == home
                    else f"{r}.astype(np_{dtype})" for x, r in ((a, aref), (b, bref))]
            where = f"np_where({cref}, {arms[0]}, {arms[1]})"
            if home is None:
                lines.append(f"_v{key} = {where}")
                home = f"_v{key}"
            else:
                lines.append(f"np_copyto({home}, {where}, casting='unsafe')")
        elif dtype != "bool" and a.scalar and b.scalar:
            diff = (repr(wrap_const(a.value - b.value, dtype)) if a.is_const and b.is_const
                    else f"_wrap_to({self.scalar(a)} - {self.scalar(b)}, {dtype!r})")
            lines.append(f"np_multiply({cref}, {diff}, out={home}, dtype=np_{dtype}, casting='unsafe')")
            if not (b.is_const and b.value == 0):
                lines.append(f"np_add({home}, {bref}, out={home})")
        elif dtype != "bool" and b.is_const and b.value == 0:
            lines.append(f"np_multiply({aref}, {cref}, out={home}, dtype=np_{dtype}, "
                         f"casting='unsafe')")
        else:
            scratch = self._buffer(dtype) if in_place else home
            cast = self._cast(n, (a, b) if not in_place else (a,), dtype)
            if dtype == "bool":
                lines += [f"np_bitwise_xor({aref}, {bref}, out={scratch}{cast})",
                          f"np_bitwise_and({scratch}, {cref}, out={scratch})",
                          f"np_bitwise_xor({scratch}, {bref}, out={home})"]
            else:
                lines += [f"np_subtract({aref}, {bref}, out={scratch}{cast})",
                          f"np_multiply({scratch}, {cref}, out={scratch}, dtype=np_{dtype}, "
                          f"casting='unsafe')",
                          f"np_add({scratch}, {bref}, out={home}{cast if not in_place else ''})"]
            if scratch != home:
                self._free_buffer(scratch)
        self.home[key] = home
        self.name[key] = home

    def _free_buffer(self, name: str) -> None:
        dtype, k = name[3:].rsplit("_", 1)
        self.free.setdefault(dtype, []).append(int(k))

    def _copy_cast(self, x: Node, dtype: str) -> str:
        if x.scalar or self.carrier.get(id(x)) == dtype:
            return ""
        return ", casting='unsafe'"

    def _stores(self) -> None:
        """Every target's final value into its slot; copies of old values first."""
        first, last = [], []
        for name, root in self.roots.items():
            t = self.targets[name]
            n = base(root)
            if n is t.old or self.want.get(id(n)) == name:
                continue
            slot = self._slot(name)
            if n.scalar:
                value = self.ref(n, t.dtype if t.dtype in INT_DTYPES else None)
                last.append(f"np_copyto({slot}, {value})")
                continue
            src = self.ref(n, t.dtype)
            cast = self._copy_cast(n, t.dtype) if n.op != "var" else (
                "" if self.plan.var_dtype(n) == t.dtype else ", casting='unsafe'")
            line = f"np_copyto({slot}, {src}{cast})"
            (first if n.op == "var" else last).append(line)
        self.lines += first + last


__all__ = ["Lowering", "Lowered", "Target", "INT_DTYPES", "fits", "wrap_const"]

_ = math  # the generated code names math (trunc/floor/ceil per instance)
