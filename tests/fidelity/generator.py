"""A seeded generator of well-typed ST programs that matiec compiles (iec2c
``-f -l -p``, as Beremiz runs it) and runs without undefined behaviour:
``generate(seed)`` is the same program on every machine.

A program has TYPEs (an enumeration, a structure), user FUNCTIONs and
FUNCTION_BLOCKs (VAR_INPUT, VAR_OUTPUT, VAR_IN_OUT, called with formal and
positional arguments), standard FBs, arrays of one and two dimensions, and a
PROGRAM ``prg`` whose VAR_INPUTs (and located ``%IX``/``%IW`` inputs) the
runner writes scan by scan. Statements: assignments, IF/ELSIF/ELSE, CASE
(values, ranges, lists, ELSE), FOR (BY, EXIT, CONTINUE), WHILE and REPEAT
bounded by a counter the body cannot write, RETURN. The expressions and what
they avoid: :mod:`tests.fidelity.exprs`.

Two choices keep matiec's documented defects out: a FOR loop with literal
bounds never runs exactly once (matiec runs ``FOR i := 1 TO 1`` zero times),
and a loop counter is written only by its own loop.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from . import iectypes as ty
from .exprs import Exprs
from .model import STMT, Node, Program, arg, args, atom, block, decl, lit, section, stmt, text
from .scope import (
    LIBRARY_FBS,
    STANDARD_FBS,
    ArrayShape,
    EnumShape,
    FbShape,
    FunctionShape,
    Scope,
    StructShape,
    Var,
)

PROGRAM = "prg"


@dataclass(frozen=True)
class Config:
    """What to generate: ``excluded`` construct tags (a type name, ``FOR``,
    ``TRUNC``, ``fb``, ``function``, ``array`` ... as in a program's ``tags``)
    are never chosen."""
    excluded: frozenset = frozenset()
    statements: int = 10

    def allowed(self, tag) -> bool:
        return tag is None or tag not in self.excluded


def generate(seed: int, config: Config = Config()) -> Program:
    return Generator(seed, config).program()


def iec_for_count(a: int, b: int, step: int) -> int:
    return len(range(a, b + (1 if step > 0 else -1), step))


class Generator:
    def __init__(self, seed: int, config: Config):
        self.seed, self.config, self.rnd = seed, config, random.Random(seed)
        self.tags: set = set()
        self.count = 0
        self.functions: list[FunctionShape] = []
        self.fbs: list[FbShape] = []
        self.enums: list[EnumShape] = []
        self.structs: list[StructShape] = []

    def allowed(self, tag) -> bool:
        return self.config.allowed(tag)

    def use(self, *tags) -> bool:
        if all(self.allowed(t) for t in tags):
            self.tags.update(t for t in tags if t)
            return True
        return False

    def chance(self, p: float, *tags) -> bool:
        return self.rnd.random() < p and self.use(*tags)

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.count}"

    # -- the program ---------------------------------------------------------------
    def program(self) -> Program:
        rnd = self.rnd
        self.palette = [t for t in ty.ELEMENTARY if self.allowed(t)]
        favourites = [t for t in ("BOOL", "INT", "DINT") if t in self.palette]
        self.palette = sorted(set(rnd.sample(self.palette, min(len(self.palette), rnd.randint(3, 7))))
                              | set(favourites), key=ty.ELEMENTARY.index)
        parts = []
        if self.chance(0.35, "enum"):
            parts.append(self.enum_type())
        if self.chance(0.35, "struct"):
            parts.append(self.struct_type())
        for _ in range(rnd.randint(0, 2)):
            if self.use("function"):
                parts.append(self.function())
        for _ in range(rnd.randint(0, 2)):
            if self.use("fb"):
                parts.append(self.function_block())
        main, inputs = self.main_program()
        parts.append(main)
        scans = rnd.randint(6, 16)
        sets = []
        for name, t in inputs.items():
            for scan in sorted(rnd.sample(range(1, scans + 1), rnd.randint(1, min(4, scans)))):
                sets.append((scan, name, ty.input_value(rnd, t)))
        sets.sort()
        return Program(self.seed, text(*parts), inputs, tuple(sets), scans, PROGRAM, frozenset(self.tags))

    def pick_type(self) -> str:
        return self.rnd.choice(self.palette)

    def aggregate_element(self) -> str:
        """matiec's C for an array or structure of DATE or DT does not compile
        (a non-constant initialiser), so neither is generated."""
        return self.rnd.choice([t for t in self.palette if t not in ("DATE", "DT")])

    # -- types ---------------------------------------------------------------------
    def enum_type(self):
        name = self.name("E")
        values = tuple(f"{name.lower()}_{c}" for c in "abcd"[:self.rnd.randint(2, 4)])
        shape = EnumShape(name, values)
        self.enums.append(shape)
        init = f" := {self.rnd.choice(values)}" if self.rnd.random() < 0.5 else ""
        return text(f"TYPE\n  {name} : ({', '.join(values)}){init};\nEND_TYPE\n\n", name=name)

    def struct_type(self):
        name = self.name("S")
        fields = tuple((self.name("f"), self.aggregate_element()) for _ in range(self.rnd.randint(2, 3)))
        self.structs.append(StructShape(name, fields))
        lines = [f"    {f} : {t}{self.initial(t, 'time_initialiser_in_type' if t == 'TIME' else None)};\n"
                 for f, t in fields]
        return text(f"TYPE\n  {name} : STRUCT\n", *lines, "  END_STRUCT;\nEND_TYPE\n\n", name=name)

    def initial(self, t: str, tag: str | None = None) -> str:
        if self.rnd.random() < 0.4 or not self.use(tag):
            return ""
        if t in ty.INTEGERS and self.rnd.random() < 0.5 and self.use("untyped_initial_value"):
            return f" := {ty.pick_int(self.rnd, t)}"
        return f" := {ty.literal(self.rnd, t)}"

    # -- declarations ---------------------------------------------------------------
    def declare(self, scope: Scope, t: str, writable: bool = True, prefix: str | None = None,
                init: bool = True):
        name = self.name(prefix or ty.PREFIX[t])
        self.tags.add(t)
        scope.vars.append(Var(name, t, None, writable))
        return decl(name, f"  {name} : {t}{self.initial(t) if init else ''};\n")

    def declare_locals(self, scope: Scope, count: int, instances: bool) -> list:
        rnd, decls = self.rnd, []
        for _ in range(count):
            decls.append(self.declare(scope, self.pick_type()))
        for _ in range(rnd.randint(0, 2)):
            if self.chance(0.5, "array"):
                decls.append(self.array(scope))
        for shape in self.enums:
            if rnd.random() < 0.7:
                name = self.name("en")
                scope.vars.append(Var(name, shape.name, shape))
                init = f" := {shape.name}#{rnd.choice(shape.values)}" if rnd.random() < 0.3 else ""
                decls.append(decl(name, f"  {name} : {shape.name}{init};\n"))
        for shape in self.structs:
            if rnd.random() < 0.7:
                name = self.name("rec")
                scope.vars.append(Var(name, shape.name, shape))
                f, t = rnd.choice(shape.fields)
                init = f" := ({f} := {ty.literal(rnd, t)})" if rnd.random() < 0.3 else ""
                decls.append(decl(name, f"  {name} : {shape.name}{init};\n"))
        if instances:
            for _ in range(rnd.randint(0, 3)):
                table = LIBRARY_FBS if rnd.random() < 0.12 else STANDARD_FBS
                fb = rnd.choice(sorted(table))
                types = {t for ports in table[fb] for _, t in ports}
                if self.use("std_fb", fb) and all(self.allowed(t) for t in types):
                    ins, outs = table[fb]
                    decls.append(self.instance(scope, FbShape(fb, ins, outs, (), True)))
            for shape in self.fbs:
                if rnd.random() < 0.8:
                    decls.append(self.instance(scope, shape))
        return decls

    def instance(self, scope: Scope, shape: FbShape):
        name = self.name(shape.name.lower().rstrip("_0123456789") if shape.standard else "u")
        scope.vars.append(Var(name, shape.name, shape, False))
        return decl(name, f"  {name} : {shape.name};\n")

    def array(self, scope: Scope):
        rnd = self.rnd
        element = self.aggregate_element()
        dims = [(lo, lo + rnd.randint(1, 4)) for lo in [rnd.choice([0, 1, 1, 2])]]
        if self.chance(0.3, "array_2d"):
            lo = rnd.choice([0, 1])
            dims.append((lo, lo + rnd.randint(1, 2)))
        name = self.name("a")
        scope.vars.append(Var(name, element, ArrayShape(element, tuple(dims))))
        size = 1
        for lo, hi in dims:
            size *= hi - lo + 1
        init = ""
        if rnd.random() < 0.5 and self.use("array_initialiser") \
                and (element != "TIME" or self.use("array_of_time_initialiser")):
            values = [ty.literal(rnd, element) for _ in range(rnd.randint(1, size))]
            if len(values) < size and rnd.random() < 0.5:
                values.append(f"{size - len(values)}({ty.literal(rnd, element)})")
            init = f" := [{', '.join(values)}]"
        spec = ", ".join(f"{lo}..{hi}" for lo, hi in dims)
        return decl(name, f"  {name} : ARRAY[{spec}] OF {element}{init};\n")

    # -- POUs ------------------------------------------------------------------------
    def function(self):
        rnd = self.rnd
        name, result = self.name("fn"), self.pick_type()
        scope = Scope(name, "FUNCTION", functions=list(self.functions))
        scope.vars.append(Var(name, result))
        inputs = [self.declare(scope, self.pick_type(), writable=self.chance(0.1, "function_writes_input"),
                               init=False) for _ in range(rnd.randint(1, 3))]
        # matiec's C for a FUNCTION's DATE or DT VAR_IN_OUT does not compile (a non-constant initialiser)
        in_outs = [self.declare(scope, t, init=False) for t in [self.pick_type()] * rnd.randint(0, 1)
                   if t not in ("DATE", "DT") and self.use("function_in_out")]
        outputs = [self.declare(scope, self.pick_type(), init=False)
                   for _ in range(rnd.randint(0, 1)) if self.use("function_output")]
        locals_ = self.declare_locals(scope, rnd.randint(0, 2), instances=False)
        shape = FunctionShape(name, result, *(self.signature(scope, ds) for ds in (inputs, outputs, in_outs)))
        body = self.statements(scope, 0, rnd.randint(1, 4))
        body.append(self.assignment(scope, target=(name, result)))
        self.functions.append(shape)
        return text(f"FUNCTION {name} : {result}\n", *self.sections(scope, [
            ("VAR_INPUT", inputs), ("VAR_IN_OUT", in_outs), ("VAR_OUTPUT", outputs), ("VAR", locals_)]),
            block(body), "\nEND_FUNCTION\n\n", name=name)

    @staticmethod
    def signature(scope: Scope, decls) -> tuple:
        names = {d.name for d in decls}
        return tuple((v.name, v.type) for v in scope.vars if v.name in names)

    def sections(self, scope: Scope, groups) -> list:
        groups = [(h, list(ds) + (scope.extra_decls if h == "VAR" else [])) for h, ds in groups]
        if scope.extra_decls and not any(h == "VAR" for h, _ in groups):
            groups.append(("VAR", scope.extra_decls))
        return [section(h, ds) for h, ds in groups if ds]

    def function_block(self):
        rnd = self.rnd
        name = self.name("fb")
        scope = Scope(name, "FUNCTION_BLOCK", functions=list(self.functions))
        inputs = [self.declare(scope, self.pick_type(), writable=self.chance(0.15, "fb_writes_input"))
                  for _ in range(rnd.randint(1, 3))]
        outputs = [self.declare(scope, self.pick_type()) for _ in range(rnd.randint(1, 2))]
        in_outs = [self.declare(scope, self.pick_type(), init=False)
                   for _ in range(rnd.randint(0, 1)) if self.use("fb_in_out")]
        locals_ = self.declare_locals(scope, rnd.randint(1, 3), instances=True)
        shape = FbShape(name, *(self.signature(scope, ds) for ds in (inputs, outputs, in_outs)))
        body = self.statements(scope, 0, rnd.randint(2, 6))
        self.fbs.append(shape)
        return text(f"FUNCTION_BLOCK {name}\n", *self.sections(scope, [
            ("VAR_INPUT", inputs), ("VAR_OUTPUT", outputs), ("VAR_IN_OUT", in_outs), ("VAR", locals_)]),
            block(body), "\nEND_FUNCTION_BLOCK\n\n", name=name)

    def main_program(self):
        rnd = self.rnd
        scope = Scope(PROGRAM, "PROGRAM", functions=list(self.functions))
        inputs = {}
        input_decls = []
        for _ in range(rnd.randint(1, 4)):
            t = self.pick_type()
            d = self.declare(scope, t, writable=False, prefix="in")
            inputs[d.name] = t
            input_decls.append(d)
        located = []
        if self.chance(0.3, "located"):
            for k in range(rnd.randint(1, 2)):
                t, address = rnd.choice([("BOOL", f"%IX0.{k}"), ("INT", f"%IW{k}"), ("WORD", f"%IW{k + 4}")])
                name = self.name("loc")
                scope.vars.append(Var(name, t, None, self.chance(0.3, "located_input_write")))
                inputs[name] = t
                located.append(decl(name, f"  {name} AT {address} : {t};\n"))
        locals_ = self.declare_locals(scope, rnd.randint(3, 8), instances=True)
        body = self.statements(scope, 0, rnd.randint(3, self.config.statements))
        sections = [section(h, ds) for h, ds in [("VAR_INPUT", input_decls), ("VAR", located),
                                                 ("VAR", locals_ + scope.extra_decls)] if ds]
        return text(f"PROGRAM {PROGRAM}\n", *sections, block(body),
                    "\nEND_PROGRAM\n", name=PROGRAM), inputs

    # -- statements -------------------------------------------------------------------
    def statements(self, scope: Scope, depth: int, count: int) -> list:
        return [self.statement(scope, depth) for _ in range(max(1, count))]

    def statement(self, scope: Scope, depth: int):
        rnd = self.rnd
        choices = [("assign", 10)]
        nesting = 0.5 ** depth      # fewer compound statements the deeper they nest
        if depth < 3:
            choices += [("IF", 3 * nesting), ("CASE", 1.2 * nesting)]
        if depth < 2:
            choices += [("FOR", 1.5 * nesting), ("WHILE", 0.6 * nesting), ("REPEAT", 0.6 * nesting)]
        if scope.instances():
            choices.append(("call", 4))
        if scope.in_loop:
            choices += [("EXIT", 0.7), ("CONTINUE", 0.7)]
        choices.append(("RETURN", 0.2))
        kinds, weights = zip(*[(k, w) for k, w in choices if self.allowed(k)])
        kind = rnd.choices(kinds, weights)[0]
        if kind != "assign" and kind != "call":
            self.use(kind)
        e = Exprs(rnd, scope, self.allowed, self.tags)
        if kind == "IF":
            return self.if_statement(scope, depth, e)
        if kind == "CASE":
            return self.case_statement(scope, depth, e)
        if kind == "FOR":
            return self.for_loop(scope, depth)
        if kind in ("WHILE", "REPEAT"):
            return self.counted_loop(scope, depth, kind, e)
        if kind == "call":
            return self.fb_call(scope, e)
        if kind in ("EXIT", "CONTINUE", "RETURN"):
            return stmt("IF ", e.gen("BOOL", 1), f" THEN\n  {kind};\nEND_IF;")
        return self.assignment(scope)

    def block(self, scope: Scope, depth: int, count: int | None = None):
        return block(self.statements(scope, depth + 1, count or self.rnd.randint(1, 3 - min(depth, 1))))

    def assignment(self, scope: Scope, target=None):
        e = Exprs(self.rnd, scope, self.allowed, self.tags)
        if target is not None:
            name, t = target
            return stmt(f"{name} := ", e.gen(t, self.rnd.randint(1, 3), typed=False), ";")
        types = sorted({v.type for v in scope.vars
                        if v.type in self.palette or isinstance(v.shape, EnumShape)})
        t = self.rnd.choice([t for t in types if e.places(t, writable=True)])
        place = e.place(t, writable=True)
        calls = [f for f in scope.functions if f.result == t and (f.outputs or f.in_outs)]
        if calls and self.rnd.random() < 0.3:
            # what the call writes is neither read by its arguments nor the assignment's target,
            # nor its index: matiec's C computes `a[v MOD 4 + 1]` before `f(io := v)`, here after
            # (C leaves the order unspecified, IEC says nothing)
            target_names = set(re.findall(r"[A-Za-z_]\w*", place.text()))
            e.scope = Scope(scope.pou, scope.kind, [v for v in scope.vars if v.name not in target_names],
                            scope.functions, scope.loops, scope.in_loop, scope.reserved)
            call = e.function_call(self.rnd.choice(calls), 1, bind_outputs=True)
            if call is not None:
                return stmt(atom(t, place), " := ", call, ";")
        return stmt(atom(t, place), " := ", e.gen(t, self.rnd.randint(1, 3), typed=False), ";")

    def if_statement(self, scope, depth, e):
        parts = ["IF ", e.gen("BOOL", 2), " THEN\n", self.block(scope, depth)]
        for _ in range(self.rnd.choice([0, 0, 1, 2])):
            self.tags.add("ELSIF")
            parts += ["\nELSIF ", e.gen("BOOL", 2), " THEN\n", self.block(scope, depth)]
        if self.rnd.random() < 0.5:
            self.tags.add("ELSE")
            parts += ["\nELSE\n", self.block(scope, depth)]
        return stmt(*parts, "\nEND_IF;")

    def case_statement(self, scope, depth, e):
        rnd = self.rnd
        enums = [v for v in scope.vars if isinstance(v.shape, EnumShape)]
        parts = ["CASE "]
        if enums and rnd.random() < 0.4:
            v = rnd.choice(enums)
            values = list(v.shape.values)
            rnd.shuffle(values)
            labels = []
            while values and len(labels) < 3:
                take = rnd.randint(1, max(1, len(values) - 1))
                labels.append(", ".join(values[:take]))
                values = values[take:]
            parts.append(e.leaf(v.type))
            self.tags.add("case_enum")
        else:
            t = rnd.choice([t for t in ("SINT", "INT", "DINT", "USINT", "UINT", "UDINT", "LINT")
                            if t in self.palette] or ["INT"])
            selector = e.gen(t, 1)
            if re.match(r"(TRUNC|LEN|FIND)\(", selector.text()):
                # nothing gives these a type in a selector: matiec makes TRUNC's ULINT
                # and converts a negative REAL to it, undefined in C
                selector = e.leaf(t)
            parts.append(selector)
            lo = 0 if t.startswith("U") else -3
            free = list(range(lo, 12))
            labels = []
            for _ in range(rnd.randint(1, 4)):
                form = rnd.choice(["value", "value", "range", "list"])
                if form == "range":
                    start = rnd.choice(free[:-1])
                    end = start + rnd.randint(1, 3)
                    if all(v in free for v in range(start, end + 1)):
                        labels.append(f"{start}..{end}")
                        free = [v for v in free if not start <= v <= end]
                        self.tags.add("case_range")
                        continue
                values = sorted(rnd.sample(free, min(len(free), 1 if form == "value" else 2)))
                labels.append(", ".join(str(v) for v in values))
                free = [v for v in free if v not in values]
                if len(values) > 1:
                    self.tags.add("case_list")
        parts.append(" OF\n")
        for label in labels:
            parts += [f"{label}:\n", self.block(scope, depth), "\n"]
        if rnd.random() < 0.5:
            self.tags.add("case_else")
            parts += ["ELSE\n", self.block(scope, depth), "\n"]
        return stmt(*parts, "END_CASE;")

    def loop_variable(self, scope: Scope, prefix: str, t: str = "INT") -> str:
        name = self.name(prefix)
        scope.extra_decls.append(decl(name, f"  {name} : {t};\n"))
        scope.vars.append(Var(name, t, None, False))
        scope.reserved.add(name)
        return name

    def for_loop(self, scope: Scope, depth: int):
        rnd = self.rnd
        arrays = scope.arrays()
        if arrays and rnd.random() < 0.6:
            lo, hi = rnd.choice(rnd.choice(arrays).shape.dims)
            a, b, step = (lo, hi, None) if rnd.random() < 0.7 else (hi, lo, -1)
        else:
            while True:
                a = rnd.randint(-3, 5)
                b = a + rnd.randint(-2, 7)
                step = rnd.choice([None, None, 1, 2, 3, -1, -2])
                count = iec_for_count(a, b, step or 1)
                if count != 1 and count <= 8:
                    break
        var = self.loop_variable(scope, "k", rnd.choice(["INT", "INT", "DINT", "SINT"]))
        scope.loops.append((var, min(a, b), max(a, b)))
        scope.in_loop += 1
        body = self.block(scope, depth, rnd.randint(1, 3))
        scope.loops.pop()
        scope.in_loop -= 1
        by = f" BY {step}" if step is not None else ""
        if step is not None:
            self.tags.add("FOR_BY")
        return stmt(f"FOR {var} := {a} TO {b}{by} DO\n", body, "\nEND_FOR;", loop=True)

    def counted_loop(self, scope: Scope, depth: int, kind: str, e):
        rnd = self.rnd
        n = self.loop_variable(scope, "n")
        bound = rnd.randint(0, 5)
        cond = e.gen("BOOL", 1) if rnd.random() < 0.5 else None
        scope.in_loop += 1
        body = self.block(scope, depth, rnd.randint(1, 3))
        scope.in_loop -= 1
        if kind == "WHILE":
            head = [f"{n} := 0;\nWHILE {n} < {bound}"] + ([" AND (", cond, ")"] if cond else [])
            return stmt(*head, f" DO\n  {n} := {n} + 1;\n", body, "\nEND_WHILE;", loop=True)
        until = [f"\nUNTIL {n} >= {max(bound, 1)}"] + ([" OR (", cond, ")"] if cond else [])
        return stmt(f"{n} := 0;\nREPEAT\n  {n} := {n} + 1;\n", body, *until, "\nEND_REPEAT;", loop=True)

    def fb_call(self, scope: Scope, e: Exprs):
        rnd = self.rnd
        inst = rnd.choice(scope.instances())
        shape = inst.shape
        self.use("std_fb_call" if shape.standard else "fb_call")
        if not shape.standard and not shape.in_outs and rnd.random() < 0.3 and self.use("positional_fb_call"):
            values = [e.gen(t, 1) for _, t in shape.inputs]
            parts = [f"{inst.name}("]
            for k, a in enumerate(values):
                parts += [", "] if k else []
                parts.append(a)
            return stmt(*parts, ");")
        items = []
        for name, t in shape.inputs:
            # a timer without PT runs with PT = T#0s: a known difference of its own
            timer_pt = shape.standard and name == "PT" and not self.chance(0.3, "pt_not_positive")
            if timer_pt or rnd.random() < 0.8:
                items.append(arg(f"{name} := ", self.fb_argument(e, shape, name, t)))
        for name, t in shape.in_outs:
            target = e.place_var(t)
            if target is None:
                return self.assignment(scope)
            items.append(Node(STMT, (f"{name} := ", target)))     # an in-out must stay bound
        for name, t in shape.outputs:
            if rnd.random() < 0.3:
                target = e.place_var(t)
                if target is not None:
                    self.tags.add("output_binding")
                    items.append(arg(f"{name} => ", target))
        return stmt(f"{inst.name}(", args(items), ");")

    def fb_argument(self, e: Exprs, shape: FbShape, name: str, t: str):
        rnd = self.rnd
        if shape.standard and name == "PT":
            if rnd.random() < 0.06 and self.use("pt_not_positive"):
                return lit("TIME", rnd.choice(["T#0ms", "T#-20ms"]))
            if rnd.random() < 0.85 or not self.use("pt_not_positive", "pt_expression"):
                return lit("TIME", ty.time_text(rnd.choice([d for d in ty.DURATIONS_MS if 0 < d <= 500])))
        # a counter's PV; PID's is a REAL, which matiec refuses an integer literal for
        if shape.standard and name == "PV" and t in ty.INTEGERS and rnd.random() < 0.7:
            return lit(t, str(rnd.randint(0, 6)))
        return e.gen(t, 1, typed=False)
