"""A ``.st`` file's declarations as PLCopen TC6 elements: types, initial values,
a POU's ``<interface>``, ``<dataTypes>``, and the configuration.

Written as :mod:`.textual` and :mod:`.project` read them back, and as
Beremiz writes them: each VAR section one group (``inputVars``,
``localVars`` ...) with ``constant``/``retain``/``nonretain`` for its
qualifier; ``a, b : INT := 5`` one ``<variable>`` per name; ``AT %IX0.0``
the variable's ``address``; elementary types as their TC6 elements, user
types as ``<derived>``; arrays, enumerations, subranges, strings and
structures as TC6's own elements; an initial value as ``simpleValue`` (the ST
expression), ``arrayValue`` (``3(0)`` a ``repetitionValue``) or
``structValue``. A configuration's tasks hold their program instances; an
instance without a task is the resource's.

VAR_CONFIG is the configuration's ``configVars``, one ``configVariable`` a line.
What TC6 has no place for is refused with the POU and the line: an edge
input (``x : BOOL R_EDGE``), a variable without a name (``AT %QX0.0 :
BOOL``), connections of a program instance (``PROGRAM p : Main (x := g)``)
and function block tasks.
"""

from __future__ import annotations

from ..st import ast as A
from .emit import ExportError, sub

#: ST's VAR sections as PLCopen's interface groups
GROUPS = {"VAR_INPUT": "inputVars", "VAR_OUTPUT": "outputVars", "VAR_IN_OUT": "inOutVars",
          "VAR": "localVars", "VAR_TEMP": "tempVars", "VAR_EXTERNAL": "externalVars",
          "VAR_GLOBAL": "globalVars"}
QUALIFIERS = {"CONSTANT": "constant", "RETAIN": "retain", "NON_RETAIN": "nonretain",
              "PERSISTENT": "persistent"}
#: the elementary types TC6 2.01 has an element for (others are written <derived>)
TC6_ELEMENTARY = {"BOOL", "BYTE", "WORD", "DWORD", "LWORD", "SINT", "INT", "DINT", "LINT",
                  "USINT", "UINT", "UDINT", "ULINT", "REAL", "LREAL", "TIME", "DATE", "DT",
                  "TOD"}


class Declarations:
    """Writes the declarations of one file; ``where(node)`` names the place of a
    refusal (file, line, POU)."""

    def __init__(self, filename: str):
        self.filename = filename

    def fail(self, node, pou: str, message: str) -> ExportError:
        return ExportError(f"{self.filename}:{node.line}:{node.col}: {pou}: {message}; "
                           f"PLCopen TC6 has no place for it, so it cannot be exported")

    # ------------------------------------------------------------------ types
    def type_xml(self, parent, spec, tag: str = "type"):
        el = sub(parent, tag)
        self._type_inner(el, spec)
        return el

    def _type_inner(self, el, spec) -> None:
        if isinstance(spec, A.NamedType):
            name = spec.name
            if name.upper() in TC6_ELEMENTARY:
                sub(el, name.upper())
            elif name.upper() in ("STRING", "WSTRING"):
                sub(el, name.lower())
            else:
                sub(el, "derived", name=name)
        elif isinstance(spec, A.StringType):
            sub(el, "wstring" if spec.wide else "string", length=spec.length)
        elif isinstance(spec, A.ArrayType):
            arr = sub(el, "array")
            for r in spec.ranges:
                sub(arr, "dimension", lower=r.low, upper=r.high)
            self.type_xml(arr, spec.element, "baseType")
        elif isinstance(spec, A.EnumType):
            values = sub(sub(el, "enum"), "values")
            for m in spec.members:
                sub(values, "value", name=m.name)
        elif isinstance(spec, A.SubrangeType):
            signed = spec.base.name.upper() in ("SINT", "INT", "DINT", "LINT")
            rng = sub(el, "subrangeSigned" if signed else "subrangeUnsigned")
            sub(rng, "range", lower=spec.range.low, upper=spec.range.high)
            self.type_xml(rng, spec.base, "baseType")
        elif isinstance(spec, A.StructType):
            struct = sub(el, "struct")
            for m in spec.members:
                self.variable(struct, m, "a structure")
        else:
            raise ExportError(f"{self.filename}:{spec.line}: the type {spec!r} has no PLCopen form")

    # ----------------------------------------------------------------- values
    def initial_xml(self, parent, init, tag: str = "initialValue"):
        el = sub(parent, tag)
        self._value(el, init)
        return el

    def _value(self, el, init) -> None:
        if isinstance(init, A.ArrayInit):
            arr = sub(el, "arrayValue")
            for item in init.items:
                v = sub(arr, "value", repetitionValue=item.count)
                if item.value is None:      # count(): the elements keep their default
                    raise ExportError(f"{self.filename}:{item.line}:{item.col}: an array "
                                      f"initializer {item.count}() has no PLCopen form; "
                                      f"write the value")
                self._value(v, item.value)
        elif isinstance(init, A.StructInit):
            st = sub(el, "structValue")
            for f in init.fields:
                self._value(sub(st, "value", member=f.name), f.value)
        else:
            sub(el, "simpleValue", value=expression_text(init))

    # -------------------------------------------------------------- variables
    def variable(self, parent, decl: A.VarDecl, pou: str):
        if decl.name is None:
            raise self.fail(decl, pou, f"a variable without a name (AT {decl.location.text})")
        if decl.edge is not None:
            raise self.fail(decl, pou, f"the edge input {decl.name} : BOOL {decl.edge}")
        if decl.extensible is not None:
            raise self.fail(decl, pou, f"the extensible input {decl.name}")
        var = sub(parent, "variable", name=decl.name,
                  address=decl.location.text if decl.location is not None else None)
        self.type_xml(var, decl.spec)
        if decl.init is not None:
            self.initial_xml(var, decl.init)
        return var

    def group(self, parent, block: A.VarBlock, pou: str):
        attrs = {QUALIFIERS[block.qualifier]: "true"} if block.qualifier in QUALIFIERS else {}
        el = sub(parent, GROUPS[block.kind], **attrs)
        for decl in block.decls:
            self.variable(el, decl, pou)
        return el

    def interface(self, pou_el, pou: A.Pou, extra: tuple = ()):
        """The ``<interface>`` of ``pou``: its return type, then its VAR sections in
        the order written (``extra``: more blocks, the SFC writer's)."""
        label = f"{pou.kind} {pou.name}"
        iface = sub(pou_el, "interface")
        if pou.return_type is not None:
            self.type_xml(iface, pou.return_type, "returnType")
        for block in (*pou.var_blocks, *extra):
            self.group(iface, block, label)
        return iface

    def data_type(self, parent, decl: A.TypeDecl):
        dt = sub(parent, "dataType", name=decl.name)
        self.type_xml(dt, decl.spec, "baseType")
        if decl.init is not None:
            self.initial_xml(dt, decl.init)
        return dt

    # ---------------------------------------------------------- configuration
    def configuration(self, parent, conf: A.Configuration):
        label = f"CONFIGURATION {conf.name}"
        el = sub(parent, "configuration", name=conf.name)
        for i, res in enumerate(conf.resources):
            self.resource(el, res, label, i)
        for block in conf.var_blocks:
            self.group(el, block, label)
        if conf.var_config:
            group = sub(el, "configVars")
            for init in conf.var_config:
                var = sub(group, "configVariable", instancePathAndName=".".join(init.path),
                          address=init.location.text if init.location is not None else None)
                self.type_xml(var, init.spec)
                if init.init is not None:
                    self.initial_xml(var, init.init)
        return el

    def resource(self, parent, res: A.Resource, label: str, index: int):
        name = res.name or ("resource1" if index == 0 else f"resource{index + 1}")
        el = sub(parent, "resource", name=name)
        by_task = {tk.name.upper(): [] for tk in res.tasks}
        alone = []
        for inst in res.programs:
            if inst.connections:
                raise self.fail(inst.connections[0], label,
                                f"the connections of the program instance {inst.name}")
            if inst.fb_tasks:
                raise self.fail(inst.fb_tasks[0], label,
                                f"the function block task of the program instance {inst.name}")
            key = (inst.task or "").upper()
            (by_task[key] if key in by_task else alone).append(inst)
        for tk in res.tasks:
            task = sub(el, "task", name=tk.name,
                       single=expression_text(tk.single) if tk.single is not None else None,
                       interval=expression_text(tk.interval) if tk.interval is not None else None,
                       priority=tk.priority)
            for inst in by_task[tk.name.upper()]:
                sub(task, "pouInstance", name=inst.name, typeName=inst.type_name)
        for block in res.var_blocks:
            self.group(el, block, label)
        for inst in alone:
            sub(el, "pouInstance", name=inst.name, typeName=inst.type_name)
        return el


# --------------------------------------------------------------- expressions
_PRECEDENCE = {"OR": 1, "XOR": 2, "AND": 3, "=": 4, "<>": 4, "<": 5, ">": 5, "<=": 5, ">=": 5,
               "+": 6, "-": 6, "*": 7, "/": 7, "MOD": 7, "**": 8}


def expression_text(node, outer: int = 0) -> str:
    """An expression of the tree as ST text (literals as written, parentheses
    where precedence needs them)."""
    if isinstance(node, A.Literal):
        return node.text or str(node.value)
    if isinstance(node, A.EnumLiteral):
        return f"{node.type_name}#{node.value}"
    if isinstance(node, A.Name):
        return node.name
    if isinstance(node, A.DirectVar):
        return node.text
    if isinstance(node, A.Member):
        return f"{expression_text(node.base, 10)}.{node.member}"
    if isinstance(node, A.Index):
        return (f"{expression_text(node.base, 10)}"
                f"[{', '.join(expression_text(i) for i in node.indices)}]")
    if isinstance(node, A.Unary):
        inner = expression_text(node.operand, 9)
        text = f"-{inner}" if node.op == "-" else f"NOT {inner}"
        return f"({text})" if outer > 9 else text
    if isinstance(node, A.Binary):
        p = _PRECEDENCE[node.op]
        text = (f"{expression_text(node.left, p)} {node.op} "
                f"{expression_text(node.right, p + 1)}")
        return f"({text})" if p < outer else text
    if isinstance(node, A.Call):
        args = []
        for a in node.args:
            value = expression_text(a.value)
            if a.name is None:
                args.append(value)
            else:
                args.append(f"{'NOT ' if a.negated else ''}{a.name} "
                            f"{'=>' if a.output else ':='} {value}")
        return f"{node.name}({', '.join(args)})"
    raise ExportError(f"line {getattr(node, 'line', 0)}: {type(node).__name__} is not an "
                      f"expression")


__all__ = ["Declarations", "expression_text", "GROUPS", "TC6_ELEMENTARY"]
