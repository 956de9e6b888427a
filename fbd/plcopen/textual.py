"""POUs written in text (ST, IL) or SFC as the ST syntax tree (:mod:`fbd.st.ast`).

The ST compiler runs every language but the graphical ones, so a PLCopen POU
whose body is ST, IL or SFC is handed to it as the :class:`~fbd.st.ast.Pou`
the same declarations would give in a ``.st`` file: each interface group a
:class:`~fbd.st.ast.VarBlock` (``constant``, ``retain`` and ``nonretain`` its
qualifier), each ``<dataType>`` a :class:`~fbd.st.ast.TypeDecl`, initial
values and locations parsed as ST. Nodes are built from the XML structure,
never from text pasted together, so no name or value in the file can change
what the declarations around it mean. Every position (of a node, of an
error) is one of the ``.xml`` file: a declaration is at its ``<variable>``'s
line, and a body's text is parsed where it stands (:func:`body_text`).
"""

from __future__ import annotations

import re

from .. import st
from ..files import open_regular
from ..st import ast as A
from ..st.errors import StError
from .source import PlcOpenError, child, children, quote, tag, true
from .values import HMI_ALIASES

#: PLCopen's interface groups as ST's VAR sections
SECTIONS = {"inputVars": "VAR_INPUT", "outputVars": "VAR_OUTPUT", "inOutVars": "VAR_IN_OUT",
            "localVars": "VAR", "tempVars": "VAR_TEMP", "externalVars": "VAR_EXTERNAL",
            "globalVars": "VAR_GLOBAL"}
POU_KINDS = {"program": "PROGRAM", "functionBlock": "FUNCTION_BLOCK", "function": "FUNCTION"}
ELEMENTARY = {"BOOL", "BYTE", "WORD", "DWORD", "LWORD", "SINT", "INT", "DINT", "LINT", "USINT",
              "UINT", "UDINT", "ULINT", "REAL", "LREAL", "TIME", "LTIME", "DATE", "DT", "TOD",
              "DATE_AND_TIME", "TIME_OF_DAY", "STRING", "WSTRING"}
_CANONICAL = {"DATE_AND_TIME": "DT", "TIME_OF_DAY": "TOD"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CDATA = "<![CDATA["


class Source:
    """The file's text, read once, to find the column where a body's text starts
    (lxml tells an element's line, not its column)."""

    def __init__(self, path):
        self.path = str(path)
        self._lines = None

    def text(self) -> str:
        """The whole file (error messages quote its lines)."""
        self.line(1)
        return "\n".join(self._lines)

    def line(self, number: int) -> str:
        if self._lines is None:
            try:
                with open_regular(self.path) as f:
                    self._lines = f.read().decode("utf-8", errors="replace").split("\n")
            except OSError:
                self._lines = []
        return self._lines[number - 1] if 0 < number <= len(self._lines) else ""


def body_text(lang_el, source: Source):
    """(text, line, column) of an ``<ST>``/``<IL>`` element's text: the text of its
    ``<xhtml:p>`` (TC6 2.01) or its own (older files), where it starts in the file."""
    holder = next((c for c in lang_el if isinstance(c.tag, str)), None)
    if holder is None:
        holder = lang_el
    text = "".join(holder.itertext()) if holder is not lang_el else (lang_el.text or "")
    line = holder.sourceline or 1
    raw = source.line(line)
    name = tag(holder)
    start = raw.find(f":{name}") if ":" in raw else -1
    if start < 0:
        start = raw.find(f"<{name}")
    col = 1
    if start >= 0:
        cdata = raw.find(_CDATA, start)
        close = raw.find(">", start)
        if cdata >= 0 and (close < 0 or cdata <= close + 1):
            col = cdata + len(_CDATA) + 1
        elif close >= 0:
            col = close + 2
    return text, line, col


class PouText:
    """Builds the syntax tree of POUs (and data types) of one file."""

    def __init__(self, path, source: Source | None = None):
        self.path = str(path)
        self.source = source or Source(path)

    # ---------------------------------------------------------------- errors
    def err(self, where: str, msg: str) -> PlcOpenError:
        return PlcOpenError(f"{self.path}: {where}: {msg}", f"{where}: {msg}")

    def parse_text(self, lang_el, language: str, pou: str):
        text, line, col = body_text(lang_el, self.source)
        try:
            return st.parse_body(text, language, filename=self.path, pou=pou, line=line, col=col)
        except StError as e:
            raise st_error(e) from None

    def expression(self, text: str, line: int, col: int, where: str):
        """An ST expression written in an attribute or inline condition, at (line, col)."""
        padded = "\n" * (max(line, 1) - 1) + " " * (max(col, 1) - 1) + text
        try:
            node = st.parse_expression(padded, filename=self.path)
        except StError as e:
            raise self.err(where, f"{quote(text)} is not an ST expression ({e.message})") from None
        return _folded(node)

    # ----------------------------------------------------------------- types
    def type_spec(self, type_el, where: str):
        """The ST type of a ``<type>`` or ``<baseType>`` element."""
        if type_el is None or not any(isinstance(c.tag, str) for c in type_el):
            raise self.err(where, "no type")
        inner = next(c for c in type_el if isinstance(c.tag, str))
        kind = tag(inner)
        at = {"line": inner.sourceline or 0, "col": 1}
        if kind == "derived":
            name = inner.get("name") or ""
            if not _IDENT.match(name):
                raise self.err(where, f"the type name {quote(name)} is not an identifier")
            upper = HMI_ALIASES.get(name.upper(), name.upper())   # as the FBD side reads them
            if upper in ELEMENTARY:
                return A.NamedType(name=_CANONICAL.get(upper, upper), **at)
            return A.NamedType(name=name, **at)
        if kind in ("string", "wstring"):
            length = (inner.get("length") or "").strip()
            if not length:
                return A.NamedType(name=kind.upper(), **at)
            if not length.isdigit() or len(length) > 6:
                raise self.err(where, f"the string length {quote(length)} is not a count")
            return A.StringType(wide=kind == "wstring", length=int(length), **at)
        if kind == "array":
            ranges = tuple(A.Subrange(low=self._bound(d, "lower", where),
                                      high=self._bound(d, "upper", where),
                                      line=d.sourceline or 0, col=1)
                           for d in children(inner, "dimension"))
            if not ranges:
                raise self.err(where, "an array without dimensions")
            element = self.type_spec(child(inner, "baseType"), where)
            if not isinstance(element, (A.NamedType, A.StringType)):
                raise self.err(where, "an array's elements must be of a named type (declare "
                                      "the element type as a data type)")
            return A.ArrayType(ranges=ranges, element=element, **at)
        if kind == "enum":
            members = tuple(A.EnumMember(name=self._ident(v.get("name"), where),
                                         line=v.sourceline or 0, col=1)
                            for v in children(child(inner, "values"), "value"))
            return A.EnumType(members=members, **at)
        if kind in ("subrangeSigned", "subrangeUnsigned"):
            rng = child(inner, "range")
            base = self.type_spec(child(inner, "baseType"), where)
            return A.SubrangeType(base=base, range=A.Subrange(
                low=self._bound(rng, "lower", where), high=self._bound(rng, "upper", where),
                **at), **at)
        if kind == "struct":
            return A.StructType(members=tuple(self.var_decl(v, f"{where}, member "
                                                            f"{quote(v.get('name') or '')}")
                                              for v in children(inner, "variable")), **at)
        upper = kind.upper()
        if upper in ELEMENTARY:
            return A.NamedType(name=_CANONICAL.get(upper, upper), **at)
        raise self.err(where, f"the type {quote(kind)} is not supported in ST, IL or SFC POUs")

    def _ident(self, name, where) -> str:
        name = name or ""
        if not _IDENT.match(name):
            raise self.err(where, f"{quote(name)} is not an IEC identifier")
        return name

    def _bound(self, el, which, where) -> int:
        text = ((el.get(which) if el is not None else None) or "").strip()
        if not text.lstrip("+-").isdigit() or len(text) > 12:
            raise self.err(where, f"the {which} bound {quote(text)} is not an integer")
        return int(text)

    def data_types(self, root) -> tuple:
        """Every ``<dataType>`` of the file as a TypeDecl, in file order."""
        out = []
        for types_el in children(root, "types"):
            for dts in children(types_el, "dataTypes"):
                for dt in children(dts, "dataType"):
                    name = dt.get("name") or ""
                    where = f"data type {quote(name)}"
                    spec = self.type_spec(child(dt, "baseType"), where)
                    iv = child(dt, "initialValue")
                    init = self.initial(iv, spec, where) if iv is not None else None
                    out.append(A.TypeDecl(name=self._ident(name, where), spec=spec, init=init,
                                          line=dt.sourceline or 0, col=1))
        return tuple(out)

    # ---------------------------------------------------------------- values
    def initial(self, iv, spec, where):
        """An ``initialValue`` (or a nested ``value``) as an ST initializer."""
        form = next((c for c in iv if tag(c) in ("simpleValue", "arrayValue", "structValue")),
                    None)
        if form is None:
            raise self.err(where, "an empty initial value")
        kind = tag(form)
        line = form.sourceline or 0
        if kind == "arrayValue":
            items = []
            for v in children(form, "value"):
                rep = (v.get("repetitionValue") or "").strip()
                if rep and (not rep.isdigit() or len(rep) > 7):
                    raise self.err(where, f"repetitionValue {quote(rep)} is not a count")
                element = spec.element if isinstance(spec, A.ArrayType) else None
                items.append(A.ArrayInitItem(count=int(rep) if rep else None,
                                             value=self.initial(v, element, where),
                                             line=v.sourceline or 0, col=1))
            return A.ArrayInit(items=tuple(items), line=line, col=1)
        if kind == "structValue":
            fields = tuple(A.FieldInit(name=self._ident(v.get("member"), where),
                                       value=self.initial(v, None, f"{where}.{v.get('member')}"),
                                       line=v.sourceline or 0, col=1)
                           for v in children(form, "value"))
            return A.StructInit(fields=fields, line=line, col=1)
        text = (form.get("value") or "").strip()
        stringy = (isinstance(spec, A.StringType)
                   or (isinstance(spec, A.NamedType) and spec.name in ("STRING", "WSTRING")))
        if stringy and not text.startswith(("'", '"')):
            # matiec's own tests write STR := 3.456789: the text itself, as Beremiz quotes it
            return A.Literal(kind="wstring" if getattr(spec, "wide", False) or
                             getattr(spec, "name", "") == "WSTRING" else "string",
                             value=text, text=text, line=line, col=1)
        return self.expression(text, line, 1, f"{where}: initial value")

    # ------------------------------------------------------------- variables
    def var_decl(self, v, where: str) -> A.VarDecl:
        name = v.get("name") or ""
        where_v = where if "member" in where else f"{where}: variable {quote(name)}"
        spec = self.type_spec(child(v, "type"), where_v)
        iv = child(v, "initialValue")
        init = self.initial(iv, spec, where_v) if iv is not None else None
        location = None
        address = v.get("address")
        if address:
            location = self.expression(address.strip(), v.sourceline or 0, 1,
                                       f"{where_v}: address")
            if not isinstance(location, A.DirectVar):
                raise self.err(where_v, f"the address {quote(address)} is not a location "
                                        f"(%IX0.0, %QW2 ...)")
        return A.VarDecl(name=self._ident(name, where_v), spec=spec, init=init,
                         location=location, line=v.sourceline or 0, col=1)

    def declarations(self, pou_el, where: str):
        """(return type or None, VarBlocks) of a POU's ``<interface>``."""
        iface = child(pou_el, "interface")
        return_type = None
        if pou_el.get("pouType") == "function":
            rt = child(iface, "returnType")
            if rt is None:
                raise self.err(where, "a function without a return type")
            return_type = self.type_spec(rt, f"{where} return type")
        blocks = []
        for group in (iface if iface is not None else []):
            kind = tag(group)
            if kind in ("returnType", "documentation", "addData", ""):
                continue
            if kind not in SECTIONS:
                raise self.err(where, f"<{kind}> is not supported in ST, IL or SFC POUs")
            qualifier = ("CONSTANT" if true(group.get("constant")) else
                         "PERSISTENT" if true(group.get("persistent")) else
                         "RETAIN" if true(group.get("retain")) else
                         "NON_RETAIN" if true(group.get("nonretain")) else None)
            decls = tuple(self.var_decl(v, where) for v in children(group, "variable"))
            blocks.append(A.VarBlock(kind=SECTIONS[kind], qualifier=qualifier, decls=decls,
                                     line=group.sourceline or 0, col=1))
        return return_type, tuple(blocks)

    # --------------------------------------------------------------------- POU
    def pou(self, pou_el) -> A.Pou:
        """The POU ``pou_el`` (ST, IL or SFC body) as an :class:`~fbd.st.ast.Pou`."""
        from .sfc import sfc_body
        name = pou_el.get("name") or ""
        where = f"POU {quote(name)}"
        kind = POU_KINDS.get(pou_el.get("pouType") or "")
        if kind is None:
            raise self.err(where, f"pouType {quote(pou_el.get('pouType'))} is not supported")
        return_type, blocks = self.declarations(pou_el, where)
        body_el, lang = language_of(child(pou_el, "body"))
        label = f"{kind} {name}"
        if lang in ("ST", "IL"):
            body = self.parse_text(body_el, lang, label)
        elif lang == "SFC":
            body, extra = sfc_body(self, pou_el, body_el, label)
            if extra:
                blocks += (A.VarBlock(kind="VAR", qualifier=None, decls=extra,
                                      line=body_el.sourceline or 0, col=1),)
        else:
            raise self.err(where, f"a {lang or 'missing'} body is not text or SFC")
        return A.Pou(kind=kind, name=self._ident(name, where), return_type=return_type,
                     var_blocks=blocks, body=body, line=pou_el.sourceline or 0, col=1)


def st_error(e: StError) -> PlcOpenError:
    """An error of the ST layers as the importer's: the message as it is (file, line,
    column, POU), the detail (what a POU placing this one repeats) without the
    file's name."""
    text = str(e)
    prefix = f"{e.filename}:"
    detail = f"line {text[len(prefix):]}" if e.line and text.startswith(prefix) else text
    return PlcOpenError(text, detail)


def language_of(body):
    """The language element of a ``<body>`` (or an action's or transition's) and its
    name, or (None, None)."""
    for c in (body if body is not None else []):
        if tag(c) in ("FBD", "LD", "ST", "IL", "SFC"):
            return c, tag(c)
    return None, None


def _folded(node):
    """``-5`` as the literal -5, as the ST parser reads a signed initial value."""
    if isinstance(node, A.Unary) and node.op == "-" and isinstance(node.operand, A.Literal) \
            and node.operand.kind in ("int", "real") and not isinstance(node.operand.value, bool):
        lit = node.operand
        return A.Literal(kind=lit.kind, value=-lit.value, type_name=lit.type_name,
                         text="-" + lit.text, line=node.line, col=node.col)
    return node


__all__ = ["PouText", "Source", "body_text", "language_of", "st_error", "SECTIONS", "POU_KINDS"]
