"""Before a block's value graph (:mod:`.ir`) becomes numpy statements (:mod:`.lower`):
which numpy dtype carries each value.

Integers in the scalar engine are Python's, unbounded, wrapped back to their
type's width where a block says so. Here every integer value lives in a
numpy array of 8 to 64 bits (or, rarely, of Python ints), chosen so that the
numbers come out the same:

1. **Modulo simplification.** What is stored in a b-bit slot is only needed
   modulo 2**b, and so are the operands of a ring operation (``+ - *``,
   bitwise, negation, a left shift's value, a select's arms) that is. Under
   that demand a wrap-around is the identity: ``x & 0xFFFF``,
   ``((x + 2**15) & 0xFFFF) - 2**15``, ``x - 2**16`` are all ``x``, and a
   ``select`` whose arms agree is its arm. So ``ADD(INT)``'s overflow check
   and correction vanish and it becomes one ``np.add`` on int16 arrays,
   whose own wrap-around is exactly the one the block wrote.
2. **Demand and carriers.** A value needed exactly (compared, divided,
   shifted right, turned into a REAL) is computed in a dtype that holds its
   whole interval (:attr:`.ir.Node.lo`, ``hi``); one needed modulo 2**b in
   any dtype of at least b bits (preferring the one it is stored into). An
   exact value no 64-bit dtype holds is computed on Python ints (an object
   array): exact and slow, and rare.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ir import RING, Graph, Node

INT_DTYPES = {"int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
              "uint8": (8, False), "uint16": (16, False), "uint32": (32, False),
              "uint64": (64, False)}
#: dtypes tried, in order, for an exact integer value after its operands' own
_WIDER = ("int8", "int16", "int32", "int64", "uint64")


def fits(lo, hi, dtype: str) -> bool:
    if lo is None or hi is None:
        return False
    bits, signed = INT_DTYPES[dtype]
    if signed:
        return -(1 << (bits - 1)) <= lo and hi < 1 << (bits - 1)
    return 0 <= lo and hi < 1 << bits


@dataclass
class Target:
    """An output or state variable the block writes: its slot's dtype."""
    name: str            # the name the code uses (``_out_Q``)
    token: int           # its placeholder number
    dtype: str           # numpy dtype of the slot ("bool", "int16", "float64", "object")
    old: Node            # the node of its old value

def base(n: Node) -> Node:
    """The node a refinement or unary plus stands for."""
    while n.op in ("refine", "pos"):
        n = n.args[0]
    return n


class Plan:
    """What the statements of one block's roots (target name -> node) are made of:
    the roots simplified modulo their slots' widths, the nodes in the order they
    are computed, who uses each, and the dtype that carries each (``carrier``)."""

    def __init__(self, graph: Graph, roots: dict, targets: dict, inputs: dict):
        self.g = graph
        self.targets = targets          # name -> Target
        self.inputs = inputs            # input var node -> (token, dtype)
        self.roots = {}
        for name, node in roots.items():
            t = targets[name]
            if node.kind == "int" and t.dtype in INT_DTYPES:
                node = self.modulo(node, INT_DTYPES[t.dtype][0])
            self.roots[name] = node
        self._order()
        self._demand()
        self._carriers()
        # a REAL's integer part computed on fixed-width arrays never raises: its
        # guard is not needed (nor computed) then
        self._order(skip_guard={id(n) for n in self.order if n.op in ("trunc", "floor", "ceil")
                                and self.carrier.get(id(n)) != "object"})

    # -- 1. modulo simplification -----------------------------------------------------
    def modulo(self, node: Node, bits: int, memo=None) -> Node:
        """A node equal to ``node`` modulo 2**bits (see the module docstring)."""
        memo = {} if memo is None else memo
        hit = memo.get(id(node))
        if hit is not None:
            return hit
        out = self._modulo(node, bits, memo)
        memo[id(node)] = out
        return out

    def _modulo(self, node: Node, bits: int, memo) -> Node:
        g, m = self.g, (1 << bits) - 1
        op, args = node.op, node.args
        if node.kind != "int" or node.op in ("var", "const", "now"):
            return node
        if op in ("refine", "pos"):
            return self.modulo(args[0], bits, memo)
        if op == "select":
            c, a, b = args
            a2, b2 = self.modulo(a, bits, memo), self.modulo(b, bits, memo)
            return a2 if a2 is b2 else g.node("select", c, a2, b2)
        if op not in RING and op != "lshift":
            return node
        if op == "lshift":
            return g.node("lshift", self.modulo(args[0], bits, memo), args[1])
        new = [self.modulo(a, bits, memo) for a in args]
        if op == "and":
            for x, y in (new, new[::-1]):
                if y.is_const and y.value & m == m:
                    return x
        if op in ("add", "sub"):
            x, y = new
            if y.is_const and y.value & m == 0:
                return x
            if op == "add" and x.is_const and x.value & m == 0:
                return y
            # (z + k1) - k2, (z + k1) + k2, (z - k1) + k2 with the constants cancelling
            if y.is_const and x.op in ("add", "sub") and x.args[1].is_const:
                k1 = x.args[1].value if x.op == "add" else -x.args[1].value
                k2 = y.value if op == "add" else -y.value
                if (k1 + k2) & m == 0:
                    return x.args[0]
        return g.node(op, *new)

    # -- 2. order, uses, demand, carriers -------------------------------------------------

    def _order(self, skip_guard=frozenset()) -> None:
        """Post-order of the nodes the roots need (a select's else-arm last, so
        a chain of selects is computed innermost first)."""
        self.order: list = []
        self.args: dict = {}    # id -> base args
        seen: set = set()
        for root in self.roots.values():
            stack = [(base(root), False)]
            while stack:
                n, done = stack.pop()
                if done:
                    self.order.append(n)
                    continue
                if id(n) in seen:
                    continue
                seen.add(id(n))
                args = tuple(base(a) for a in n.args)
                self.args[id(n)] = args
                if id(n) in skip_guard:
                    args = args[1:]
                stack.append((n, True))
                for a in reversed(args):
                    if id(a) not in seen:
                        stack.append((a, False))
        self.position = {id(n): i for i, n in enumerate(self.order)}
        self.users: dict = {id(n): [] for n in self.order}
        for n in self.order:
            for a in self.args[id(n)][1 if id(n) in skip_guard else 0:]:
                self.users[id(a)].append(n)
        self.root_of: dict = {}   # id(base root) -> [target names]
        for name, root in self.roots.items():
            self.root_of.setdefault(id(base(root)), []).append(name)

    def _demand(self) -> None:
        """For each integer node: None (exact) or (bits, dtype): needed modulo 2**bits."""
        demand: dict = {}
        for name, root in self.roots.items():
            dtype = self.targets[name].dtype
            want = (INT_DTYPES[dtype][0], dtype) if dtype in INT_DTYPES else None
            self._combine(demand, base(root), want)
        for n in reversed(self.order):
            d = demand.get(id(n), None)
            args = self.args[id(n)]
            for i, a in enumerate(args):
                if a.kind != "int":
                    continue
                if n.kind == "int" and d is not None and (
                        n.op in RING or n.op == "lshift" and i == 0 or n.op == "select" and i > 0):
                    self._combine(demand, a, d)
                else:
                    self._combine(demand, a, None)
        self.demand = demand

    @staticmethod
    def _combine(demand: dict, n: Node, want) -> None:
        if n.kind != "int":
            return
        key = id(n)
        if key not in demand:
            demand[key] = want
            return
        have = demand[key]
        if have is None or want is None:
            demand[key] = None
        elif want[0] > have[0]:
            demand[key] = want

    def _carriers(self) -> None:
        carrier: dict = {}
        for n in self.order:
            key = id(n)
            if n.scalar:
                carrier[key] = None
            elif n.op == "var":
                carrier[key] = self.var_dtype(n)
            elif n.kind == "bool":
                carrier[key] = "bool"
            elif n.op == "single":      # a REAL: float32, which rounds as C's float does
                carrier[key] = "float32"
            elif n.kind == "float":
                carrier[key] = "float64"
            elif n.kind == "str":
                carrier[key] = "object"
            else:
                carrier[key] = self._int_carrier(n, carrier)
        self.carrier = carrier

    def var_dtype(self, n: Node) -> str:
        if n in self.inputs:
            return self.inputs[n][1]
        for t in self.targets.values():
            if t.old is n:
                return t.dtype
        raise AssertionError(f"unknown variable {n!r}")

    def _int_carrier(self, n: Node, carrier: dict) -> str:
        args = [a for a in self.args[id(n)] if a.kind == "int"]
        vector = [carrier[id(a)] for a in args if not a.scalar]
        own = [c for c in vector if c in INT_DTYPES]
        d = self.demand.get(id(n))
        ring = n.op in RING or n.op in ("lshift", "select")
        if d is not None and ring:
            # needed modulo 2**bits only: any dtype that wide, the stored one first
            bits, want = d
            for dtype in dict.fromkeys([want] + own + ["int64"]):
                if INT_DTYPES[dtype][0] >= bits:
                    return dtype
        # exact: a dtype that holds the value; for a ring operation that is enough
        # (computed modulo 2**bits, the operands may wrap), for others the
        # operands must fit too (abs of an int64: see _emit_node)
        spans = [(n.lo, n.hi)]
        if not ring and n.op != "abs":
            spans += [(a.lo, a.hi) for a in n.args if a.kind == "int"]
        if all(lo is not None and hi is not None for lo, hi in spans) and "object" not in vector:
            lo = min(lo for lo, _hi in spans)
            hi = max(hi for _lo, hi in spans)
            for dtype in dict.fromkeys(own + list(_WIDER)):
                if fits(lo, hi, dtype):
                    return dtype
        if d is not None and n.op in ("trunc", "floor", "ceil", "call"):
            return d[1] if INT_DTYPES[d[1]][0] == 64 else "int64"
        return "object"


__all__ = ["Plan", "Target", "INT_DTYPES", "base", "fits"]
