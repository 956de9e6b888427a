"""Random well-typed ST expressions that matiec compiles to C without undefined
behaviour, and that keep out of the documented matiec defects (docs/st.md):

* a divisor is a nonzero literal or ``MAX(x, 1)`` (no division by zero, no
  ``MIN / -1`` trap in C);
* a shift count stays below the width C shifts in; a rotation's count is
  never negative;
* a REAL converted to an integer or a TIME, or truncated, is first put
  through ``LIMIT`` (C's float-to-integer conversion out of range is
  undefined);
* an index is a literal in the bounds, a FOR variable whose loop stays in
  them, or ``lo + u MOD n`` of an unsigned variable;
* no operator has two untyped literals (matiec computes them in C ``long``),
  a REAL comparison has no untyped literal (matiec compares in double), and a
  BYTE or WORD compared has no NOT (C promotes ``~`` to int);
* a TIME is multiplied by at most 2 (matiec's ``__time_mul`` overflows an
  int beyond) and TIME literals are ones matiec stores exactly.

Every choice notes a construct tag (the program's ``tags``), and a construct
the configuration excludes is never chosen.
"""

from __future__ import annotations

import re

from . import iectypes as ty
from .model import arg, atom, constant, expr, lit, var
from .model import args as make_args
from .scope import EnumShape, has

COMPARABLE = ("BOOL", *ty.INTEGERS, *ty.BITS, *ty.REALS, "TIME", *ty.DATES, "STRING")
REAL_GUARD = {"SINT": 100, "USINT": 200, "INT": 30000, "UINT": 60000}


def paren(node):
    return expr(node.type, "(", node, ")")


def untyped(node) -> bool:
    """An untyped numeric literal (``5``, ``16#FF``, ``(-2)``, ``1.5``): the context types it."""
    return node.literal and re.match(r"\(?-?[0-9]", node.parts[0]) is not None


class Exprs:
    """Expressions for one scope; ``rnd`` is the program's ``random.Random``."""

    def __init__(self, rnd, scope, allowed, tags: set):
        self.rnd, self.scope, self.allowed, self.tags = rnd, scope, allowed, tags

    # -- helpers -------------------------------------------------------------
    def use(self, *tags) -> bool:
        """Whether every construct named may be generated; if so, they are noted."""
        if all(self.allowed(t) for t in tags):
            self.tags.update(t for t in tags if t)
            return True
        return False

    def chance(self, p: float, *tags) -> bool:
        return self.rnd.random() < p and self.use(*tags)

    def types(self, among) -> list[str]:
        return [t for t in among if self.allowed(t)]

    # -- leaves --------------------------------------------------------------
    def places(self, type_: str, writable: bool = False) -> list:
        """Makers of the variables, elements, fields and FB outputs of ``type_``."""
        s, found = self.scope, []
        for v in s.elementary(type_, writable):
            found.append(lambda v=v: var(type_, v.name))
        for v in s.arrays(type_, writable):
            found.append(lambda v=v: var(type_, v.name, "[", *self.indices(v.shape.dims), "]"))
        for v, f in s.structs(type_, writable):
            found.append(lambda v=v, f=f: var(type_, f"{v.name}.{f}"))
        if not writable:
            for v, o in s.fb_outputs(type_):
                found.append(lambda v=v, o=o: var(type_, f"{v.name}.{o}"))
        return found

    def place(self, type_: str, writable: bool = False):
        found = self.places(type_, writable)
        return self.rnd.choice(found)() if found else None

    def indices(self, dims) -> list:
        parts = []
        for k, (lo, hi) in enumerate(dims):
            parts += [", "] if k else []
            parts.append(self.index(lo, hi))
        return parts

    def index(self, lo: int, hi: int):
        loops = self.scope.loop_index(lo, hi)
        if loops and self.rnd.random() < 0.6:
            return atom("DINT", self.rnd.choice(loops))
        unsigned = [v for t in self.types(ty.UNSIGNED) for v in self.scope.elementary(t)]
        if unsigned and self.rnd.random() < 0.4:
            v = self.rnd.choice(unsigned)
            self.tags.add("index_computed")
            offset = f" + {lo}" if lo else ""
            return atom(v.type, f"{v.name} MOD {hi - lo + 1}{offset}")
        return atom("DINT", str(self.rnd.randint(lo, hi)))

    def literal(self, type_: str, typed: bool = True):
        if isinstance(self.scope_enum(type_), EnumShape):
            shape = self.scope_enum(type_)
            value = self.rnd.choice(shape.values)
            return lit(type_, f"{type_}#{value}" if typed or self.rnd.random() < 0.5 else value)
        if not typed and type_ in ty.INTEGERS | ty.BITS and self.use("untyped_literal"):
            base = 16 if type_ in ty.BITS and self.rnd.random() < 0.5 else 10
            value = ty.pick_int(self.rnd, type_)
            return lit(type_, ty.int_text(value, None, base) if value >= 0 else f"({value})")
        if not typed and type_ in ty.REALS and self.use("untyped_literal"):
            value = ty.pick_real(self.rnd, type_)
            text = ty.real_text(value, None)
            return lit(type_, f"({text})" if text.startswith("-") else text)
        return lit(type_, ty.literal(self.rnd, type_))

    def scope_enum(self, type_: str):
        for v in self.scope.vars:
            if isinstance(v.shape, EnumShape) and v.type == type_:
                return v.shape
        return None

    def leaf(self, type_: str, typed: bool = True):
        if self.rnd.random() < 0.75:
            found = self.place(type_)
            if found is not None:
                return found
        return self.literal(type_, typed)

    # -- expressions -----------------------------------------------------------
    def gen(self, type_: str, depth: int = 2, typed: bool = True, no_not: bool = False):
        """An expression of ``type_``; ``typed`` False lets it be an untyped literal
        (the context gives the type), ``no_not`` keeps NOT out of a BYTE or WORD."""
        if type_ in ty.ELEMENTARY:
            self.tags.add(type_)
        if depth <= 0 or self.rnd.random() < 0.3 or self.scope_enum(type_):
            return self.leaf(type_, typed)
        makers = self.makers(type_, depth - 1, no_not)
        if not makers:
            return self.leaf(type_, typed)
        return self.rnd.choice(makers)()

    def operand(self, type_: str, depth: int, no_not: bool = False):
        """The second operand of a binary operator: may be an untyped literal."""
        if self.rnd.random() < 0.25 and type_ in (*ty.INTEGERS, *ty.BITS, *ty.REALS):
            return self.literal(type_, typed=False)
        return self.gen(type_, depth, no_not=no_not)

    def makers(self, t: str, d: int, no_not: bool) -> list:
        rnd, out = self.rnd, []

        def binary(op, tag, left_type=t, right_type=t):
            def make():
                self.use(tag)
                a, b = self.gen(left_type, d, no_not=no_not), self.operand(right_type, d, no_not)
                if constant(a) and constant(b):
                    a = self.place(left_type)
                    if a is None:
                        return self.leaf(t)
                if op == "/" and constant(b):
                    b = lit(t, ty.real_text(2.0, t))     # matiec folds constants, and refuses a zero divisor
                bit_string = "untyped_literal_left_of_bit_operator" if t in ty.BITS else None
                if left_type == right_type and untyped(b) and rnd.random() < 0.2 \
                        and self.use("literal_on_the_left", bit_string):
                    a, b = b, a
                return expr(t, paren(a), f" {op} ", paren(b))
            return make if self.allowed(tag) else None

        def call(name, *arg_types, tag=None):
            if not has(name, t, *arg_types) or not self.allowed(tag or name):
                return None
            return lambda: self.call(name, t, arg_types, d, tag or name)

        if t == "BOOL":
            out += [binary(op, op) for op in ("AND", "OR", "XOR")]
            out.append(self.allowed("NOT") and (lambda: self.unary("NOT", "BOOL", d)))
            out += [lambda: self.comparison(d)] * 3
            out += [call("SEL", "BOOL", "BOOL", "BOOL"), lambda: self.conversion(t, d)]
        elif t in ty.INTEGERS:
            out += [binary(op, op) for op in ("+", "-", "*")]
            out += [self.allowed("/") and (lambda: self.division("/", t, d)),
                    self.allowed("MOD") and (lambda: self.division("MOD", t, d))]
            if t in ty.SIGNED:
                out.append(self.allowed("negation") and (lambda: self.unary("-", t, d)))
                out.append(call("ABS", t))
            out += [call("MAX", t, t), call("MIN", t, t), lambda: self.limit(t, d),
                    call("SEL", "BOOL", t, t), lambda: self.mux(t, d)]
            out += [lambda: self.conversion(t, d)] * 2
            if has("TRUNC", t, "REAL") and self.allowed("TRUNC") and self.allowed("REAL"):
                out.append(lambda: self.use("TRUNC") and expr(t, "TRUNC(", self.real_guarded(t, d), ")"))
            if self.allowed("STRING"):
                out.append(call("LEN", "STRING"))
                out.append(call("FIND", "STRING", "STRING"))
        elif t in ty.BITS:
            out += [binary(op, op) for op in ("AND", "OR", "XOR")]
            out.append(self.allowed("NOT") and not no_not and (lambda: self.unary("NOT", t, d)))
            out += [self.allowed(n) and (lambda n=n: self.shift(n, t, d))
                    for n in ("SHL", "SHR", "ROL", "ROR")]
            out += [call("MAX", t, t), call("MIN", t, t), call("SEL", "BOOL", t, t), lambda: self.mux(t, d)]
            out += [lambda: self.conversion(t, d)]
        elif t in ty.REALS:
            out += [binary(op, op) for op in ("+", "-", "*", "/")]
            out.append(self.allowed("negation") and (lambda: self.unary("-", t, d)))
            out.append(self.allowed("EXPT") and (lambda: self.power(t, d)))
            out += [call(n, t) for n in ("ABS", "SIN", "COS", "ATAN")]
            out += [self.allowed(n) and has(n, t, t) and (lambda n=n: self.real_function(n, t, d))
                    for n in ("SQRT", "LN", "LOG", "EXP", "ASIN", "ACOS", "TAN")]
            out += [call("MAX", t, t), call("MIN", t, t), lambda: self.limit(t, d),
                    call("SEL", "BOOL", t, t), lambda: self.mux(t, d), lambda: self.conversion(t, d)]
        elif t == "TIME":
            out += [binary("+", "time_arithmetic"), binary("-", "time_arithmetic")]
            out.append(self.allowed("time_arithmetic") and (lambda: self.time_scaled(d)))
            out += [call("MAX", t, t), call("MIN", t, t), lambda: self.limit(t, d),
                    call("SEL", "BOOL", t, t), lambda: self.conversion(t, d)]
            for date in self.types(ty.DATES):
                out.append(self.allowed("date_arithmetic") and (
                    lambda date=date: self.use("date_arithmetic")
                    and expr(t, paren(self.gen(date, d)), " - ", paren(self.gen(date, d)))))
                out += [call(name, date, date, tag="date_function") for name in ("SUB", f"SUB_{date}_{date}")]
        elif t in ty.DATES:
            if t != "DATE" and self.allowed("TIME"):
                out += [binary("+", "date_arithmetic", t, "TIME"), binary("-", "date_arithmetic", t, "TIME")]
                out += [call(name, t, "TIME", tag="date_function")
                        for name in ("ADD", "SUB", f"ADD_{t}_TIME", f"SUB_{t}_TIME")]
            if t == "DT" and self.allowed("DATE") and self.allowed("TOD"):
                out.append(call("CONCAT_DATE_TOD", "DATE", "TOD"))
            if t != "DT" and self.allowed("DT"):
                out.append(call(f"DT_TO_{t}", "DT"))
            out += [call("MAX", t, t), call("MIN", t, t), call("SEL", "BOOL", t, t)]
        elif t == "STRING":
            out += [lambda: self.string_function(d)] * 3
            out += [lambda: self.conversion(t, d)] * 2
            out += [call("SEL", "BOOL", t, t), lambda: self.mux(t, d)]
        out += [lambda f=f: self.function_call(f, d) for f in self.scope.functions
                if f.result == t and not f.outputs and not f.in_outs]
        return [m for m in out if m]

    # -- productions -------------------------------------------------------------
    def unary(self, op: str, t: str, d: int):
        inner = self.gen(t, d)
        if constant(inner):
            inner = self.place(t)
            if inner is None:
                return self.leaf(t)
        return expr(t, op, " " if op == "NOT" else "", paren(inner))

    def comparison(self, d: int):
        among = self.types(COMPARABLE) + self.enum_types()
        t = self.rnd.choice([t for t in among if self.places(t)] or among)
        is_enum = self.scope_enum(t) is not None
        ops = ["=", "<>"] if is_enum or t == "BOOL" else ["=", "<>", "<", ">", "<=", ">="]
        op = self.rnd.choice(ops)
        if not self.use(f"compare_{'enum' if is_enum else t}"):
            return self.leaf("BOOL")
        no_not = t in ("BYTE", "WORD")
        a = self.gen(t, d, no_not=no_not)
        b = self.gen(t, d, no_not=no_not) if t in ty.REALS or is_enum else self.operand(t, d, no_not)
        if constant(a) and constant(b):
            a = self.place(t) or self.literal(t)
        if self.rnd.random() < 0.15 and self.use("comparison_function"):
            name = {"=": "EQ", "<>": "NE", "<": "LT", ">": "GT", "<=": "LE", ">=": "GE"}[op]
            if not is_enum and t != "BOOL" and has(name, "BOOL", t, t):   # matiec's C lacks EQ__BOOL__BOOL
                return expr("BOOL", name, "(", a, ", ", b, ")")
        return expr("BOOL", paren(a), f" {op} ", paren(b))

    def enum_types(self) -> list[str]:
        if not self.allowed("enum"):
            return []
        return sorted({v.type for v in self.scope.vars if isinstance(v.shape, EnumShape)})

    def call(self, name: str, t: str, arg_types, d: int, tag: str):
        self.use(tag)
        args = [self.gen(arg_types[0], d)] + [self.operand(a, d) for a in arg_types[1:]]
        if name in ("MAX", "MIN") and self.rnd.random() < 0.3:
            args.append(self.operand(arg_types[-1], d))
        values = 1 if name in ("SEL", "MUX") else 0    # SEL's G and MUX's K are no values
        if all(constant(a) for a in args[values:]):
            args[values] = self.place(arg_types[values]) or args[values]
        parts = [name, "("]
        for k, a in enumerate(args):
            parts += [", "] if k else []
            parts.append(a)
        return expr(t, *parts, ")")

    def division(self, op: str, t: str, d: int):
        self.use(op)
        lo, hi = ty.int_range(t)
        divisor = None
        if self.rnd.random() < 0.4:
            found = self.place(t)
            if found is not None:
                self.tags.add("divisor_variable")
                divisor = atom(t, "MAX(", found, ", 1)")
        if divisor is None:
            value = self.rnd.choice([v for v in (2, 3, 7, 10, 100, hi, -3, -7) if lo <= v <= hi])
            divisor = atom(t, str(value) if value > 0 else f"({value})")
        dividend = self.gen(t, d)
        if constant(dividend):
            dividend = self.place(t) or dividend
        return expr(t, paren(dividend), f" {op} ", divisor)

    def shift(self, name: str, t: str, d: int):
        self.use(name)
        w = ty.width(t)
        limit = max(w, 32) - 1 if name in ("SHL", "SHR") else 3 * w
        unsigned = [v for u in self.types(ty.UNSIGNED) for v in self.scope.elementary(u)]
        if unsigned and self.rnd.random() < 0.3:
            v = self.rnd.choice(unsigned)
            n = atom(v.type, f"{v.name} MOD {limit + 1}" if name in ("SHL", "SHR") else v.name)
        else:
            n = atom("USINT", str(self.rnd.randint(0, limit)))
        return expr(t, name, "(", self.gen(t, d), ", ", n, ")")

    def limit(self, t: str, d: int):
        """``LIMIT(lo, e, hi)`` with literal bounds, lo <= hi: matiec's LIMIT gives MN
        where IEC's MIN(MAX(IN, MN), MX) gives MX when MN > MX."""
        if not self.use("LIMIT"):
            return self.leaf(t)
        if t in ty.REALS:
            lo, hi = sorted(ty.pick_real(self.rnd, t) for _ in range(2))
            bounds = [ty.real_text(x, t) for x in (lo, hi)]
        elif t == "TIME":
            bounds = [ty.time_text(ms) for ms in sorted(self.rnd.sample(ty.DURATIONS_MS, 2))]
        else:
            lo, hi = sorted(ty.pick_int(self.rnd, t) for _ in range(2))
            typed = self.rnd.random() < 0.5
            bounds = [ty.int_text(x, t if typed else None) if x >= 0 or typed else f"({x})" for x in (lo, hi)]
        return expr(t, f"LIMIT({bounds[0]}, ", self.gen(t, d), f", {bounds[1]})")

    def mux(self, t: str, d: int):
        if not self.use("MUX"):
            return self.leaf(t)
        n = self.rnd.randint(2, 4)
        unsigned = [v for u in self.types(ty.UNSIGNED) for v in self.scope.elementary(u)]
        if unsigned and self.rnd.random() < 0.5:
            v = self.rnd.choice(unsigned)
            k = atom(v.type, f"{v.name} MOD {n}")
        else:
            k = atom("INT", str(self.rnd.randint(0, n - 1)))
        args = [self.gen(t, d)] + [self.operand(t, d) for _ in range(n - 1)]
        if all(constant(a) for a in args):
            args[0] = self.place(t) or args[0]
        parts = ["MUX(", k]
        for a in args:
            parts += [", ", a]
        return expr(t, *parts, ")")

    def power(self, t: str, d: int):
        self.use("EXPT")
        base = self.gen(t, d)
        if constant(base):
            base = self.place(t) or lit(t, ty.real_text(2.0, t))
        if self.rnd.random() < 0.5:
            return expr(t, paren(base), " ** ", lit("INT", f"INT#{self.rnd.randint(0, 3)}"))
        exponent = lit(t, ty.real_text(self.rnd.choice([0.5, 2.0, 3.0, -1.0]), t))
        return expr(t, "EXPT(", base, ", ", exponent, ")")

    def real_function(self, name: str, t: str, d: int):
        self.use(name)
        inner = self.gen(t, d)
        if name in ("SQRT", "LN", "LOG"):
            one = ty.real_text(1.0, t)
            inner = expr(t, "ABS(", inner, f") + {one}" if name != "SQRT" else ")")
        elif name in ("ASIN", "ACOS", "EXP", "TAN"):
            bound = 1.0 if name in ("ASIN", "ACOS") else 20.0
            inner = expr(t, "LIMIT(", ty.real_text(-bound, t), ", ", inner, ", ", ty.real_text(bound, t), ")")
        return expr(t, name, "(", inner, ")")

    def real_guarded(self, target: str, d: int, source: str = "REAL"):
        """A REAL expression limited to a range C converts to ``target`` without
        undefined behaviour (a NaN comes out of LIMIT as its minimum)."""
        bound = float(REAL_GUARD.get(target, 1.0e6))
        return expr(source, "LIMIT(", ty.real_text(-bound, source), ", ", self.gen(source, d), ", ",
                    ty.real_text(bound, source), ")")

    def time_scaled(self, d: int):
        self.use("time_arithmetic")
        if self.rnd.random() < 0.5:
            k = self.rnd.choice(["2", "1", "0", "(-2)", "1.5", "0.5", "2.0", "INT#2", "REAL#0.25"])
            return expr("TIME", paren(self.gen("TIME", d)), " * ", k)
        k = self.rnd.choice(["2", "4", "5", "8", "(-2)", "DINT#4", "2.0", "LREAL#0.5"])
        return expr("TIME", paren(self.gen("TIME", d)), " / ", k)

    def conversion(self, t: str, d: int):
        """``X_TO_T(e)``, guarded where C would be undefined."""
        sources = [s for s in self.types(ty.ELEMENTARY) if s != t and has(f"{s}_TO_{t}", t, s)]
        if t == "TIME" or t in ty.DATES:
            # seconds in matiec; kept small enough for 64-bit ns to hold them
            sources = [s for s in sources if s in ("SINT", "INT", "USINT", "UINT", "DINT", "BYTE", "WORD")
                       or s in ty.REALS or s in ty.DATES or s == "STRING"]
            if t in ty.DATES:
                sources = [s for s in sources if s not in ty.REALS and s != "STRING"]
        if not sources:
            return self.leaf(t)
        s = self.rnd.choice(sources)
        if not self.use(f"{s}_TO_{t}", "conversion"):
            return self.leaf(t)
        if s in ty.REALS and t != "STRING" and t not in ty.REALS:
            inner = self.real_guarded(t, d, s)
        elif s == "STRING":
            inner = lit(s, ty.literal(self.rnd, s)) if self.rnd.random() < 0.6 else self.gen(s, d)
        else:
            inner = self.gen(s, d)
        return expr(t, f"{s}_TO_{t}(", inner, ")")

    def string_function(self, d: int):
        rnd = self.rnd
        name = rnd.choice(["CONCAT", "LEFT", "RIGHT", "MID", "INSERT", "DELETE", "REPLACE"])
        if not self.use(name):
            return self.leaf("STRING")
        s = self.gen("STRING", d)

        def n(lo=0, hi=6):
            return atom("INT", str(rnd.randint(lo, hi)))

        if name == "CONCAT":
            args = [s] + [self.gen("STRING", d) for _ in range(rnd.randint(1, 2))]
            parts = ["CONCAT("]
            for k, a in enumerate(args):
                parts += [", "] if k else []
                parts.append(a)
            return expr("STRING", *parts, ")")
        if name in ("LEFT", "RIGHT"):
            return expr("STRING", name, "(", s, ", ", n(), ")")
        if name == "MID":
            return expr("STRING", "MID(", s, ", ", n(), ", ", n(1, 6), ")")
        if name == "INSERT":
            return expr("STRING", "INSERT(", s, ", ", self.gen("STRING", d), ", ", n(), ")")
        if name == "DELETE":
            return expr("STRING", "DELETE(", s, ", ", n(), ", ", n(1, 6), ")")
        # matiec inserts only L characters of IN2 (IEC: all of it), so IN2 is a literal no longer than L
        text = rnd.choice([t for t in ty.STRINGS if "$" not in t])
        return expr("STRING", "REPLACE(", s, ", ", lit("STRING", ty.string_text(text)), ", ",
                    n(len(text), len(text) + 3), ", ", n(1, 6), ")")

    def function_call(self, f, d: int, bind_outputs: bool = False):
        """A user FUNCTION called with formal or positional arguments."""
        self.use("user_function")
        formal = bool(f.outputs or f.in_outs) or self.rnd.random() < 0.5
        args = []
        for name, t in f.inputs:
            args.append((name, ":=", self.gen(t, d)))
        if formal:
            self.tags.add("formal_call")
            for name, t in f.in_outs:
                target = self.place_var(t)
                if target is None:
                    return None
                args.append((name, ":=", target))
            for name, t in f.outputs:
                if bind_outputs:
                    target = self.place_var(t)
                    if target is not None:
                        args.append((name, "=>", target))
            parts = [f.name, "(", make_args(arg(f"{name} {op} ", value) for name, op, value in args)]
        else:
            self.tags.add("positional_call")
            parts = [f.name, "("]
            for k, (_, _, value) in enumerate(args):
                parts += [", "] if k else []
                parts.append(value)
        return expr(f.result, *parts, ")")

    def place_var(self, t: str):
        """A writable elementary variable of ``t`` (for VAR_IN_OUT and => bindings)."""
        found = [v for v in self.scope.elementary(t, writable=True) if v.shape is None]
        if not found:
            return None
        return atom(t, self.rnd.choice(found).name)
