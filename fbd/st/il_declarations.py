"""What the IL lowering (:mod:`fbd.st.lower_il`) needs of the declarations: a
variable's type, an FB instance's type and inputs, the type of an expression
the current result holds; the standard FBs' by a table of their own.
"""

from __future__ import annotations

from ..types import STRING_MAX
from . import ast as A

_LIBRARY_FB_TYPES = {
    "Q": "BOOL", "Q1": "BOOL", "QU": "BOOL", "QD": "BOOL", "ET": "TIME", "PT": "TIME", "IN": "BOOL",
    "CU": "BOOL", "CD": "BOOL", "R": "BOOL", "LD": "BOOL", "S": "BOOL", "S1": "BOOL", "R1": "BOOL",
    "CLK": "BOOL", "CDT": "DT", "PDT": "DT", "BUSY": "BOOL",
}
_LIBRARY_FB_INPUTS = {
    "SR": ("S1", "R"), "RS": ("S", "R1"), "R_TRIG": ("CLK",), "F_TRIG": ("CLK",),
    "TON": ("IN", "PT"), "TOF": ("IN", "PT"), "TP": ("IN", "PT"), "RTC": ("IN", "PDT"),
}


class Declarations:
    """What the lowering needs of the declarations: a variable's type (by
    name, as the tree spells it), an FB instance's type name, a function's
    result type. Unknown names give None: the ST analysis reports them later,
    at the same place."""

    def __init__(self, pou: A.Pou, unit: A.CompilationUnit, extra: dict | None = None):
        self.unit = unit
        self.vars: dict[str, A.TypeSpec] = {}
        for vb in pou.var_blocks:
            for d in vb.decls:
                if d.name is not None:
                    self.vars[d.name.upper()] = d.spec
        if pou.kind == "FUNCTION" and pou.return_type is not None:
            self.vars.setdefault(pou.name.upper(), pou.return_type)
        self.vars.update(extra or {})
        self.types = {t.name.upper(): t for t in unit.types}
        self.pous = {p.name.upper(): p for p in unit.pous}

    def resolve(self, spec, hops=0):
        """The type ``spec`` names, through the unit's aliases of it."""
        while isinstance(spec, A.NamedType) and spec.name.upper() in self.types and hops < 32:
            spec, hops = self.types[spec.name.upper()].spec, hops + 1
        return spec

    def fb_type(self, name: str) -> str | None:
        """The FB type name of an instance variable, else None."""
        spec = self.vars.get(name.upper())
        if isinstance(spec, A.NamedType) and spec.name.upper() not in self.types:
            upper = spec.name.upper()
            if upper in self.pous and self.pous[upper].kind == "FUNCTION_BLOCK":
                return spec.name
            if upper in _LIBRARY_FB_INPUTS or upper.startswith(("CTU", "CTD")) or upper in (
                    "SEMA", "PID", "RAMP", "HYSTERESIS", "INTEGRAL", "DERIVATIVE"):
                return spec.name
        return None

    def fb_inputs(self, fb_type: str) -> tuple[str, ...] | None:
        upper = fb_type.upper()
        pou = self.pous.get(upper)
        if pou is not None:
            return tuple(d.name for vb in pou.var_blocks if vb.kind in ("VAR_INPUT", "VAR_IN_OUT")
                         for d in vb.decls)
        if upper in _LIBRARY_FB_INPUTS:
            return _LIBRARY_FB_INPUTS[upper]
        if upper.startswith("CTUD"):
            return ("CU", "CD", "R", "LD", "PV")
        if upper.startswith("CTU"):
            return ("CU", "R", "PV")
        if upper.startswith("CTD"):
            return ("CD", "LD", "PV")
        return None

    def type_of(self, e) -> A.TypeSpec | None:
        """The declared type of an expression the CR holds, or None if the
        declarations do not say (an untyped literal)."""
        if isinstance(e, A.Name):
            return self.vars.get(e.name.upper())
        if isinstance(e, A.Literal):
            if e.type_name:
                return A.NamedType(name=e.type_name)
            return {"bool": A.NamedType(name="BOOL"), "time": A.NamedType(name="TIME"),
                    "string": A.StringType(wide=False, length=STRING_MAX)}.get(e.kind)
        if isinstance(e, A.Binary):
            if e.op in ("<", ">", "<=", ">=", "=", "<>"):
                return A.NamedType(name="BOOL")
            return self.type_of(e.left) or self.type_of(e.right)
        if isinstance(e, A.Unary):
            return self.type_of(e.operand)
        if isinstance(e, A.Member):
            return self._member_type(e)
        if isinstance(e, A.Index):
            base = self.resolve(self.type_of(e.base))
            return base.element if isinstance(base, A.ArrayType) else None
        if isinstance(e, A.Call):
            return self._call_type(e)
        return None

    def _member_type(self, e: A.Member):
        if isinstance(e.base, A.Name):
            fb = self.fb_type(e.base.name)
            if fb is not None:
                pou = self.pous.get(fb.upper())
                if pou is None:
                    name = _LIBRARY_FB_TYPES.get(e.member.upper())
                    if e.member.upper() in ("CV", "PV"):
                        suffix = fb.upper().rsplit("_", 1)
                        name = suffix[1] if len(suffix) == 2 and suffix[1] != "TRIG" else "INT"
                    return A.NamedType(name=name) if name else None
                for vb in pou.var_blocks:
                    for d in vb.decls:
                        if d.name is not None and d.name.upper() == e.member.upper():
                            return d.spec
                return None
        base = self.resolve(self.type_of(e.base))
        if isinstance(base, A.StructType):
            for d in base.members:
                if d.name.upper() == e.member.upper():
                    return d.spec
        return None

    def _call_type(self, e: A.Call):
        upper = e.name.upper()
        pou = self.pous.get(upper)
        if pou is not None:
            return pou.return_type
        if "_TO_" in upper:
            return A.NamedType(name=upper.rsplit("_TO_", 1)[1])
        if upper in ("GT", "GE", "EQ", "NE", "LE", "LT"):
            return A.NamedType(name="BOOL")
        if upper in ("LEN", "FIND"):
            return A.NamedType(name="INT")
        for a in e.args:
            if not a.output:
                found = self.type_of(a.value)
                if found is not None:
                    return found
        return None
