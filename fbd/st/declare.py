"""Declarations: the unit's types, POUs and configurations, each POU's
variables, the rules of sections, qualifiers, types and initial values
(see :mod:`fbd.st.semantic`)."""


from __future__ import annotations

from . import ast as A
from .errors import Reporter
from .stdlib import ANONYMOUS_ENUM_REFUSED, ELEMENTARY_TYPES, TYPE_ALIASES, WSTRING_REFUSED
from .symbols import Analysis, PouScope, Symbol, key

__all__ = ["declare_globals", "declare_pou", "declare_block", "check_type_spec",
           "check_initializer", "pou_label"]

_SECTIONS = {
    "FUNCTION": {"VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR"},
    "FUNCTION_BLOCK": {"VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR", "VAR_TEMP", "VAR_EXTERNAL"},
    "PROGRAM": {"VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR", "VAR_TEMP", "VAR_EXTERNAL"},
    "CONFIGURATION": {"VAR_GLOBAL"},
}
_QUALIFIERS = {
    "VAR": {None, "CONSTANT", "RETAIN", "NON_RETAIN", "PERSISTENT"},
    "VAR_INPUT": {None, "RETAIN", "NON_RETAIN"}, "VAR_OUTPUT": {None, "RETAIN", "NON_RETAIN"},
    "VAR_IN_OUT": {None}, "VAR_TEMP": {None}, "VAR_EXTERNAL": {None, "CONSTANT"},
    "VAR_GLOBAL": {None, "CONSTANT", "RETAIN", "PERSISTENT"},
}
_NO_INITIAL_VALUE = {"VAR_IN_OUT", "VAR_EXTERNAL", "VAR_TEMP"}


# ----------------------------------------------------------------- the unit
def declare_globals(analysis: Analysis, report: Reporter) -> None:
    library = analysis.library
    parameters = library.parameter_names()
    for element in analysis.unit.elements:
        if isinstance(element, A.TypeDecl):
            symbol = Symbol(element.name, "type", element)
            what = "data type"
        elif isinstance(element, A.Pou):
            symbol = Symbol(element.name, "pou", element)
            what = element.kind
        else:
            symbol = Symbol(element.name, "configuration", element)
            what = "CONFIGURATION"
        k = key(element.name)
        previous = analysis.globals.get(k)
        if previous is not None:
            report.error(element, f"{what} {element.name} is declared twice (first at line "
                                  f"{previous.node.line}); names are not case-sensitive")
            continue
        if k in ELEMENTARY_TYPES or k in TYPE_ALIASES:
            report.error(element, f"{element.name} is an elementary type name")
            continue
        standard = library.lookup(element.name)
        if standard is not None and not (standard.kind == "FUNCTION" and getattr(element, "kind", "") ==
                                         "FUNCTION"):
            # a FUNCTION may stand in for a standard function (matiec takes it, and calls it);
            # anything else of that name breaks matiec's library
            report.error(element, f"{element.name} is the name of a standard "
                                  f"{'function block' if standard.kind == 'FUNCTION_BLOCK' else 'function'} "
                                  "of the library; matiec refuses a second one (rename it)")
            continue
        analysis.globals[k] = symbol
        if k in parameters:
            report.warn(element, f"{element.name} is also a parameter name of matiec's standard "
                                 "library: iec2c -p, as Beremiz and OpenPLC run it, refuses a POU or type "
                                 "of that name")
    for element in analysis.unit.types:
        if isinstance(element.spec, A.EnumType):
            _declare_enum(analysis, element.spec, element.name, report, None)
    for element in analysis.unit.types:
        check_type_spec(analysis, element.spec, report, None, self_name=element.name)
        if element.init is not None:
            check_initializer(analysis, element.init, report, None)


def _declare_enum(analysis: Analysis, enum: A.EnumType, type_name: str | None, report: Reporter,
                  pou: str | None) -> None:
    seen: dict[str, A.EnumMember] = {}
    for member in enum.members:
        k = key(member.name)
        if k in seen:
            report.error(member, f"enumerated value {member.name} appears twice in "
                                 f"{type_name or 'the enumeration'}", pou)
            continue
        seen[k] = member
        analysis.enum_values.setdefault(k, []).append(
            Symbol(member.name, "enum_value", member, owner=pou or "",
                   type=A.NamedType(name=type_name) if type_name else enum))


def check_type_spec(analysis: Analysis, spec, report: Reporter, pou: str | None, *,
                    self_name: str | None = None, holder: str | None = None) -> None:
    """Every type a spec names exists and is a type. ``self_name``: the type
    being declared (it cannot contain itself); ``holder``: where an FB
    instance cannot stand (a FUNCTION, VAR_TEMP, an array or structure)."""
    if isinstance(spec, A.StringType) and spec.wide or (
            isinstance(spec, A.NamedType) and key(spec.name) == "WSTRING"):
        report.error(spec, WSTRING_REFUSED, pou)
        return
    if isinstance(spec, A.EnumType) and holder is not None:     # not a TYPE's own enumeration
        report.error(spec, ANONYMOUS_ENUM_REFUSED, pou)
        return
    if isinstance(spec, A.NamedType):
        target = analysis.resolve_type(spec.name)
        kind = getattr(target, "kind", None)
        if target is None:
            report.error(spec, f"unknown type {spec.name}", pou)
        elif kind in ("FUNCTION", "PROGRAM"):
            report.error(spec, f"{spec.name} is a {kind.lower()}, not a type", pou)
        elif kind == "FUNCTION_BLOCK" and holder is not None:
            report.error(spec, f"{spec.name} is a function block: {holder} cannot hold an instance", pou)
        elif self_name is not None and key(spec.name) == key(self_name):
            report.error(spec, f"type {self_name} is defined by itself", pou)
    elif isinstance(spec, A.SubrangeType):
        base = key(spec.base.name)
        if base not in ("SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT"):
            report.error(spec.base, f"a subrange is of an integer type, not {spec.base.name}", pou)
        if spec.range.low > spec.range.high:
            report.error(spec.range, f"empty subrange {spec.range.low}..{spec.range.high}", pou)
    elif isinstance(spec, A.ArrayType):
        for r in spec.ranges:
            if r.low > r.high:
                report.error(r, f"empty array range {r.low}..{r.high}", pou)
        check_type_spec(analysis, spec.element, report, pou, self_name=self_name, holder="an array")
    elif isinstance(spec, A.StructType):
        seen: dict[str, A.VarDecl] = {}
        for member in spec.members:
            k = key(member.name)
            if k in seen:
                report.error(member, f"member {member.name} appears twice in the structure", pou)
            seen[k] = member
            check_type_spec(analysis, member.spec, report, pou, self_name=self_name, holder="a structure")
            if member.init is not None:
                check_initializer(analysis, member.init, report, pou)


def check_initializer(analysis: Analysis, init, report: Reporter, pou: str | None) -> None:
    """An initial value is a literal, an enumerated value, or an array or
    structure of them (matiec takes neither names of constants nor expressions)."""
    if isinstance(init, A.ArrayInit):
        for item in init.items:
            if item.value is not None:
                check_initializer(analysis, item.value, report, pou)
    elif isinstance(init, A.StructInit):
        seen = set()
        for f in init.fields:
            if key(f.name) in seen:
                report.error(f, f"{f.name} is initialised twice", pou)
            seen.add(key(f.name))
            check_initializer(analysis, f.value, report, pou)
    elif isinstance(init, (A.Literal, A.EnumLiteral)):
        return
    elif isinstance(init, A.Name) and key(init.name) in analysis.enum_values:
        values = analysis.enum_values[key(init.name)]
        if len(values) > 1:
            from .resolve import ambiguous
            report.error(init, ambiguous(init.name, values), pou)
    else:
        report.error(init, "an initial value must be a literal or an enumerated value "
                           "(matiec takes no names of constants and no expressions here)", pou)


# --------------------------------------------------------------------- POUs
def pou_label(pou: A.Pou) -> str:
    return f"{pou.kind} {pou.name}"


def declare_pou(analysis: Analysis, pou: A.Pou, report: Reporter) -> PouScope | None:
    label = pou_label(pou)
    scope = PouScope(pou=pou, label=label)
    if pou.kind == "FUNCTION":
        check_type_spec(analysis, pou.return_type, report, label, holder="a function result")
        scope.symbols[key(pou.name)] = Symbol(pou.name, "variable", pou, owner=label, section="RESULT",
                                              type=pou.return_type)
    for block in pou.var_blocks:
        declare_block(analysis, block, scope.symbols, report, label, pou.kind)
    if isinstance(pou.body, A.SfcBody):
        _declare_chart(pou.body, scope, report)
    return scope


def declare_block(analysis: Analysis, block: A.VarBlock, symbols: dict, report: Reporter, label: str,
                  owner_kind: str) -> None:
    """Declare a VAR block's variables into ``symbols``, checking the section rules."""
    if block.kind not in _SECTIONS[owner_kind]:
        where = {"FUNCTION": "a FUNCTION", "FUNCTION_BLOCK": "a FUNCTION_BLOCK", "PROGRAM": "a PROGRAM",
                 "CONFIGURATION": "a CONFIGURATION or RESOURCE"}[owner_kind]
        hint = " (declare globals in the CONFIGURATION or RESOURCE)" if block.kind == "VAR_GLOBAL" else ""
        report.error(block, f"{block.kind} is not allowed in {where}{hint}", label)
    qualifiers = _QUALIFIERS[block.kind] - ({"RETAIN", "NON_RETAIN", "PERSISTENT"}
                                            if owner_kind == "FUNCTION" else set())
    if block.qualifier not in qualifiers:
        why = " in a FUNCTION (it keeps nothing between calls)" if owner_kind == "FUNCTION" else ""
        report.error(block, f"{block.kind} {block.qualifier} is not allowed{why}", label)
    for decl in block.decls:
        name = decl.name if decl.name is not None else decl.location.text
        k = key(name)
        if decl.name is not None:
            previous = symbols.get(k)
            if previous is not None:
                report.error(decl, f"{name} is declared twice (first at line {previous.node.line}); "
                                   "names are not case-sensitive", label)
                continue
            clash = analysis.lookup_global(name)
            if clash is not None and clash.kind != "configuration" and k not in ("EN", "ENO"):
                report.error(decl, f"{name} names the {clash.describe()}; matiec refuses a variable "
                                   "of that name", label)
        _check_decl(analysis, block, decl, report, label, owner_kind)
        fb_type = None
        if isinstance(decl.spec, A.NamedType):
            target = analysis.resolve_type(decl.spec.name)
            if getattr(target, "kind", None) == "FUNCTION_BLOCK":
                fb_type = decl.spec.name
        if isinstance(decl.spec, A.EnumType):
            _declare_enum(analysis, decl.spec, None, report, label)
        symbols[k] = Symbol(name, "variable", decl, owner=label, section=block.kind,
                            qualifier=block.qualifier, type=decl.spec, fb_type=fb_type)


def _check_decl(analysis: Analysis, block: A.VarBlock, decl: A.VarDecl, report: Reporter, label: str,
                owner_kind: str) -> None:
    section = block.kind
    holder = ("a FUNCTION" if owner_kind == "FUNCTION" else "VAR_TEMP" if section == "VAR_TEMP" else None)
    if isinstance(decl.spec, A.EnumType):
        report.error(decl.spec, ANONYMOUS_ENUM_REFUSED, label)
        return
    check_type_spec(analysis, decl.spec, report, label, holder=holder)
    if decl.init is not None:
        if section in _NO_INITIAL_VALUE:
            report.error(decl.init, f"a {section} variable takes no initial value", label)
        else:
            check_initializer(analysis, decl.init, report, label)
    if decl.location is not None:
        partial = decl.location.partial
        if section == "VAR_GLOBAL" and not partial:
            pass
        elif section == "VAR" and (owner_kind == "PROGRAM" or partial and owner_kind == "FUNCTION_BLOCK"):
            pass
        else:
            report.error(decl.location, f"{decl.location.text} cannot be given to a {section} variable of "
                                        f"a {owner_kind.replace('_', ' ').lower()} (AT addresses are for a "
                                        "PROGRAM's VAR and for VAR_GLOBAL; %I* for VAR of an FB)", label)
    if decl.edge is not None and (section != "VAR_INPUT" or owner_kind == "FUNCTION"):
        report.error(decl, f"{decl.edge} is only for inputs of a function block or program", label)
    if decl.name is not None and key(decl.name) == "EN" and not (
            section == "VAR_INPUT" and _is_bool(decl.spec)):
        report.error(decl, "EN can only be declared as a BOOL input", label)
    if decl.name is not None and key(decl.name) == "ENO" and not (
            section == "VAR_OUTPUT" and _is_bool(decl.spec)):
        report.error(decl, "ENO can only be declared as a BOOL output", label)


def _is_bool(spec) -> bool:
    return isinstance(spec, A.NamedType) and key(spec.name) == "BOOL"


def _declare_chart(body: A.SfcBody, scope: PouScope, report: Reporter) -> None:
    label = scope.label
    for kind, items, table in (("step", body.steps, scope.steps), ("action", body.actions, scope.actions)):
        for item in items:
            k = key(item.name)
            if k in table or (kind == "action" and k in scope.steps):
                report.error(item, f"{kind} {item.name} is declared twice", label)
                continue
            if k in scope.symbols:
                report.error(item, f"{kind} {item.name} has the name of the "
                                   f"{scope.symbols[k].describe()}", label)
                continue
            table[k] = Symbol(item.name, kind, item, owner=label)
    names: dict[str, A.Transition] = {}
    for t in body.transitions:
        if t.name is not None:
            if key(t.name) in names:
                report.error(t, f"transition {t.name} is declared twice", label)
            names[key(t.name)] = t
    if body.steps and not any(s.initial for s in body.steps):
        report.error(body.steps[0], "a chart needs an INITIAL_STEP", label)
