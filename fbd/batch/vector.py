"""The native engine's IR for one block, made to compute W instances at once.

The native translator (:mod:`fbd.native.lower`) turns a block configuration's
Python code into straight-line LLVM IR over one instance's values: ``i64``
cells (BOOL 0/1, integers, TIME), ``double`` for REAL and LREAL, ``i1``
conditions, ``i128`` where an interval needs it. That IR *is* the block's
meaning, as exact as Python's. This module changes only what a value is:
every SSA value becomes a vector of W lanes, one lane per instance, so
``add i64 %a, %b`` becomes ``add <W x i64> %a, %b``, a constant a splat, a
call of an LLVM intrinsic its vector form, and a slot's cell a *row* of the
tile (:mod:`.layout`): W lanes of the slot's own width (bits for BOOL, i16
for INT, float for REAL), widened where the scalar code loads it and cut
where it stores it. A trap (where Python would raise) becomes a test of the
lanes that hold instances: the first such lane is recorded with the code.

What is left is the scalar IR's 64-bit arithmetic on narrow values; LLVM's
instruction combiner, run once per configuration (:func:`optimise`), narrows
it back (``trunc(add(sext a, sext b))`` is an ``add`` of i16 lanes), which is
what makes the vectors wide. The optimised function is then a template again,
formatted per instance with the offsets of its rows.

Code that has no vector form (a LIFO's region addressed by a computed index,
a call of the C library's ``sin`` or ``pow``) raises :class:`NotVector`; the
block then runs its scalar IR once per lane (:mod:`.lanes`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ASSIGN = re.compile(r"\s*(%\S+) = (.*)")
_STORE = re.compile(r"\s*store (\S+) (\S+), ptr (\S+)")
_SLOT_GEP = re.compile(r"getelementptr i64, ptr %s, i64 \{(\d+)\}")
_LOAD = re.compile(r"load (i64|double), ptr (\S+)")
_CAST = re.compile(r"(trunc|zext|sext|fptrunc|fpext|sitofp|uitofp|fptosi|fptoui|bitcast) "
                   r"(\S+) (\S+) to (\S+)")
_CMP = re.compile(r"([if]cmp) (\w+) (\S+) (\S+), (\S+)")
_SELECT = re.compile(r"select i1 (\S+), (\S+) (\S+), (\S+) (\S+)")
_BINARY = re.compile(r"(add|sub|mul|and|or|xor|shl|lshr|ashr|udiv|urem|sdiv|srem|"
                     r"fadd|fsub|fmul|fdiv|frem)((?: nuw| nsw| exact)*) (\S+) (\S+), (\S+)")
_FNEG = re.compile(r"fneg (\S+) (\S+)")
_CALL = re.compile(r"call (\S+) @([\w.]+)\((.*)\)")
_INTRINSIC = re.compile(r"llvm\.(sqrt|fabs|trunc|floor|ceil|copysign|ctlz|cttz)\.(f64|f32|i64|i128)")
_SCALAR_TYPE = re.compile(r"^(i\d+|double|float)$")


class NotVector(Exception):
    """The block's IR has no vector form; it runs lane by lane."""


@dataclass(frozen=True)
class Row:
    """How a slot's values lie in a tile: ``ir`` the element type of its row
    (``i1`` a bit per instance), ``signed`` how it widens to the scalar
    code's ``i64``, ``kind`` the scalar cell's kind (:func:`fbd.native.lower.slot_kind`),
    ``dtype`` the numpy dtype of its lanes; ``values`` that of the values read
    out when it differs (a narrowed row: a TIME's int64 held in int32 lanes)."""
    ir: str
    signed: bool
    kind: str
    dtype: str
    values: str = ""

    def size(self, width: int) -> int:
        """Bytes of a row of ``width`` lanes."""
        if self.ir == "i1":
            return width // 8
        return width * {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "float": 4, "double": 8}[self.ir]


@dataclass
class VectorBody:
    """A block configuration's vector IR before optimisation: the body of
    :func:`template_function`; ``rows`` its slot placeholders' rows."""
    lines: list
    declarations: set


def vec(width: int, ty: str) -> str:
    return f"<{width} x {ty}>"


class Vectoriser:
    """Rewrite one scalar template (see the module docstring). ``rows``: slot
    placeholder number -> :class:`Row`; ``values``: input-value placeholder ->
    the slot placeholder it is read from (inputs the code never reads left out)."""

    def __init__(self, width: int, rows: dict, values: dict):
        self.w = width
        self.rows = rows
        self.values = values
        self.ptr: dict[str, int] = {}     # SSA name of a slot's pointer -> its placeholder
        self.alias: dict[str, str] = {}   # scalar operand -> the vector value standing for it
        self.out: list[str] = []
        self.decls: set[str] = set()
        self.n = 0

    # -- operands ------------------------------------------------------------------
    def name(self, ref: str) -> str:
        """A scalar template's SSA name in the template function (``{0}`` is the
        instance's prefix there, ``t`` here)."""
        return ref.replace("{0}", "t")

    def operand(self, ty: str, ref: str) -> str:
        """``ref`` as an operand of vector type ``<W x ty>``."""
        if ref in self.alias:
            return self.alias[ref]
        if ref == "%now":
            return "%nowv"
        if ref.startswith("%"):
            return self.name(ref)
        if "{" in ref:
            raise NotVector(f"the operand {ref}")
        return f"splat ({ty} {ref})"

    def vtype(self, ty: str) -> str:
        if not _SCALAR_TYPE.match(ty):
            raise NotVector(f"the type {ty}")
        return vec(self.w, ty)

    def fresh(self) -> str:
        self.n += 1
        return f"%t.v{self.n}"

    def emit(self, rhs: str) -> str:
        name = self.fresh()
        self.out.append(f"  {name} = {rhs}")
        return name

    # -- rows ------------------------------------------------------------------------
    def load_row(self, k: int) -> str:
        """Slot placeholder ``k``'s row, as the scalar code's value (``i64`` or ``double``)."""
        row = self.rows[k]
        w = self.w
        raw = self.emit(f"load {vec(w, row.ir)}, ptr %r{k}, align {_align(row, w)}")
        if row.kind == "d":
            return raw if row.ir == "double" else self.emit(
                f"fpext {vec(w, 'float')} {raw} to {vec(w, 'double')}")
        if row.ir == "i64":
            return raw
        ext = "sext" if row.signed and row.ir != "i1" else "zext"
        return self.emit(f"{ext} {vec(w, row.ir)} {raw} to {vec(w, 'i64')}")

    def store_row(self, k: int, value: str) -> None:
        """The scalar code's ``store i64 value`` into slot placeholder ``k``, cut to its row."""
        row = self.rows[k]
        w = self.w
        if row.kind == "d":
            value = self.emit(f"bitcast {vec(w, 'i64')} {value} to {vec(w, 'double')}")
            if row.ir == "float":
                value = self.emit(f"fptrunc {vec(w, 'double')} {value} to {vec(w, 'float')}")
        elif row.ir != "i64":
            value = self.emit(f"trunc {vec(w, 'i64')} {value} to {vec(w, row.ir)}")
        self.out.append(f"  store {vec(w, row.ir)} {value}, ptr %r{k}, align {_align(row, w)}")

    # -- the rewrite -------------------------------------------------------------------
    def run(self, fmt: str) -> VectorBody:
        for k, slot in sorted(self.values.items()):
            self.alias[f"{{{k}}}"] = self.load_row(slot)
        lines = [line for line in fmt.split("\n") if line.strip()]
        i = 0
        while i < len(lines):
            m = _ASSIGN.fullmatch(lines[i])
            if m and m.group(2) == "load i64, ptr %trap":
                self.trap(lines[i:i + 5])
                i += 5
            else:
                self.line(lines[i])
                i += 1
        return VectorBody(self.out, self.decls)

    def line(self, line: str) -> None:
        m = _STORE.fullmatch(line)
        if m:
            ty, value, ptr = m.groups()
            if ptr not in self.ptr or ty != "i64":
                raise NotVector(f"a store through {ptr}")
            self.store_row(self.ptr[ptr], self.operand("i64", value))
            return
        m = _ASSIGN.fullmatch(line)
        if not m:
            raise NotVector(f"the line {line.strip()!r}")
        dest, rhs = self.name(m.group(1)), m.group(2)
        g = _SLOT_GEP.fullmatch(rhs)
        if g:
            self.ptr[m.group(1)] = int(g.group(1))
            return
        g = _LOAD.fullmatch(rhs)
        if g:
            ptr = g.group(2)
            if ptr not in self.ptr:
                raise NotVector(f"a load through {ptr}")
            self.alias[m.group(1)] = self.load_row(self.ptr[ptr])
            return
        self.out.append(f"  {dest} = {self.rewrite(rhs)}")

    def rewrite(self, rhs: str) -> str:
        w = self.w
        m = _BINARY.fullmatch(rhs)
        if m:
            op, flags, ty, a, b = m.groups()
            return f"{op}{flags} {self.vtype(ty)} {self.operand(ty, a)}, {self.operand(ty, b)}"
        m = _CMP.fullmatch(rhs)
        if m:
            op, pred, ty, a, b = m.groups()
            return f"{op} {pred} {self.vtype(ty)} {self.operand(ty, a)}, {self.operand(ty, b)}"
        m = _SELECT.fullmatch(rhs)
        if m:
            c, ta, a, tb, b = m.groups()
            return (f"select {vec(w, 'i1')} {self.operand('i1', c)}, {self.vtype(ta)} "
                    f"{self.operand(ta, a)}, {self.vtype(tb)} {self.operand(tb, b)}")
        m = _CAST.fullmatch(rhs)
        if m:
            op, t1, a, t2 = m.groups()
            return f"{op} {self.vtype(t1)} {self.operand(t1, a)} to {self.vtype(t2)}"
        m = _FNEG.fullmatch(rhs)
        if m:
            ty, a = m.groups()
            return f"fneg {self.vtype(ty)} {self.operand(ty, a)}"
        m = _CALL.fullmatch(rhs)
        if m:
            return self.call(*m.groups())
        raise NotVector(f"the instruction {rhs!r}")

    def call(self, ret: str, fn: str, args: str) -> str:
        m = _INTRINSIC.fullmatch(fn)
        if not m:
            raise NotVector(f"a call of {fn} (no vector form)")
        name, suffix = m.groups()
        elem = {"f64": "double", "f32": "float", "i64": "i64", "i128": "i128"}[suffix]
        vfn = f"llvm.{name}.v{self.w}{suffix}"
        parts = []
        for k, arg in enumerate(args.split(", ")):
            ty, ref = arg.split(" ", 1)
            if k == 1 and name in ("ctlz", "cttz"):
                parts.append(arg)        # the zero-is-poison flag stays a scalar i1
            else:
                parts.append(f"{self.vtype(ty)} {self.operand(ty, ref)}")
        arg_types = ", ".join(p.rsplit(" ", 1)[0] if not p.startswith("<") else
                              p[:p.index(">") + 1] for p in parts)
        self.decls.add(f"declare {vec(self.w, elem)} @{vfn}({arg_types})")
        return f"call {self.vtype(ret)} @{vfn}({', '.join(parts)})"

    def trap(self, lines: list) -> None:
        """The translator's trap (:meth:`fbd.native.builder.ValueBuilder.trap`) over
        W lanes: the condition on the lanes that hold instances, the code if none
        is recorded yet, and the first such lane's instance."""
        try:
            old = _ASSIGN.fullmatch(lines[0]).group(1)
            free = _ASSIGN.fullmatch(lines[1]).group(1)
            hit_line = _ASSIGN.fullmatch(lines[2])
            cond = re.fullmatch(r"and i1 (\S+), " + re.escape(free), hit_line.group(2)).group(1)
            reason = re.fullmatch(r"select i1 \S+, i64 \{1\}(\d), i64 " + re.escape(old),
                                  _ASSIGN.fullmatch(lines[3]).group(2)).group(1)
            if _STORE.fullmatch(lines[4]).group(3) != "%trap":
                raise AttributeError
        except (AttributeError, IndexError):
            raise NotVector("a trap of another form") from None
        w = self.w
        cond = self.operand("i1", cond)
        on = self.emit(f"and {vec(w, 'i1')} {cond}, %valid")
        mask = self.emit(f"bitcast {vec(w, 'i1')} {on} to i{w}")
        anywhere = self.emit(f"icmp ne i{w} {mask}, 0")
        before = self.emit("load i64, ptr %trap")
        free = self.emit(f"icmp eq i64 {before}, 0")
        hit = self.emit(f"and i1 {anywhere}, {free}")
        code = self.emit(f"add i64 %code, {reason}")
        self.out.append(f"  store i64 {self.emit(f'select i1 {hit}, i64 {code}, i64 {before}')}, "
                        f"ptr %trap")
        self.decls.add(f"declare i{w} @llvm.cttz.i{w}(i{w}, i1)")
        first = self.emit(f"call i{w} @llvm.cttz.i{w}(i{w} {mask}, i1 false)")
        if w < 64:
            first = self.emit(f"zext i{w} {first} to i64")
        lane = self.emit(f"add i64 %base, {first}")
        where = self.emit("getelementptr i64, ptr %trap, i64 1")
        was = self.emit(f"load i64, ptr {where}")
        self.out.append(f"  store i64 {self.emit(f'select i1 {hit}, i64 {lane}, i64 {was}')}, "
                        f"ptr {where}")


_ARGS = ("trap", "nowv", "valid", "base", "code")
_LOCAL = re.compile(r"%([-\w.$]+)")
_ATTRIBUTES = re.compile(r"( #\d+|, ![\w.]+ !\d+)")


def template_function(body: VectorBody, rows: dict, width: int, name: str) -> str:
    """The vector IR of one configuration as a function over its rows (``%r2``,
    ``%r3``, ...), the clock, the valid lanes, the tile's first instance and
    the block's trap code, to be optimised (its declarations are ``body``'s)."""
    args = ["ptr %trap", f"{vec(width, 'i64')} %nowv", f"{vec(width, 'i1')} %valid", "i64 %base",
            "i64 %code"]
    args += [f"ptr align {_align(rows[k], width)} %r{k}" for k in sorted(rows)]
    return "\n".join([f"define void @{name}({', '.join(args)}) {{", "entry:", *body.lines,
                      "  ret void", "}"])


def instance_template(function_text: str) -> str:
    """An optimised template function's body as a per-instance template:
    ``{0}`` its names' prefix, ``{1}`` its trap code, ``{k}`` (k >= 2) the byte
    offset of slot placeholder k's row in the tile (``%tile``)."""
    lines = function_text.strip().split("\n")
    body = lines[lines.index("entry:") + 1 if "entry:" in lines else 1:]
    if body[-2:] != ["  ret void", "}"] or any(line.endswith(":") for line in body):
        raise NotVector("an optimised form with more than one basic block")
    used = set()

    def local(m) -> str:
        name = m.group(1)
        if name in _ARGS:
            return "{1}0" if name == "code" else m.group(0)
        if re.fullmatch(r"r\d+", name):
            used.add(int(name[1:]))
        return "%{0}." + name
    out = [_LOCAL.sub(local, _ATTRIBUTES.sub("", line).replace("{", "{{").replace("}", "}}"))
           for line in body[:-2]]
    rows = [f"  %{{0}}.r{k} = getelementptr inbounds i8, ptr %tile, i64 {{{k}}}" for k in sorted(used)]
    return "\n".join(rows + out)


def _align(row: Row, width: int) -> int:
    """The alignment every row of this kind has: tiles are 64-byte aligned and
    rows lie largest first (:mod:`.layout`)."""
    return min(row.size(width), 64)


__all__ = ["Row", "Vectoriser", "NotVector", "VectorBody", "vec", "template_function",
           "instance_template"]
