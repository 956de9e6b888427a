"""An FBD or LD POU as the ST POU Beremiz generates for it, for the text POUs that use it.

An ST, IL or SFC POU that holds an instance of an FBD or LD function block,
or calls an FBD or LD function, is compiled (:mod:`.textpous`) with that POU
*as Structured Text*, not as a network: what Beremiz and OpenPLC run is the
ST their generator (``PLCGenerator.py``) writes for the drawing, which matiec
compiles with the text POUs; so that ST, made here from the statement list
:mod:`.body` reproduces (executionOrderId first, then the file's order, the
blocks an expression pulls: the order the network builder follows too), is
matiec's meaning by construction. The POU then lives inside the text POU's
block like any ST POU: every engine runs it, its state reads by path
(``Main.f.TON1.Q``).

The statements are those :mod:`.graphical` writes for a chart's FBD and LD
actions, with the one difference Beremiz makes in a POU body: a function is
called where the statement list calls it, into the variable Beremiz declares
(``_TMP_ADD4_OUT := ADD(a, b)``), and read from it, so a read before the call
(an executionOrderId placing the reader first) sees the previous call's
result, as in Beremiz. Its type is the one the network's own type inference
gives that output.

Refused, naming the POU and element: an EN wired to anything but the left
rail (matiec's EN/ENO have no form in this ST compiler yet), an output of a
function other than its result, a function none of whose inputs is
connected being read.
"""

from __future__ import annotations

import dataclasses
import re

from .. import types as t
from ..compiler import flatten
from ..errors import FbdError
from ..st import ast as A
from ..values import format_value
from .body import Call
from .builder import PouBuilder, body_of
from .graphical import Graphical
from .source import PlcOpenError, child, children, in_file, quote
from .textual import POU_KINDS

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class PouStatements(Graphical):
    """The statements of one FBD or LD POU body; ``result_types`` gives each
    function's result type (localId -> DataType)."""

    def __init__(self, pt, pou_el, lang_el, lang, where, declare, result_types):
        super().__init__(pt, pou_el, lang_el, lang, where, declare)
        self.result_types = result_types
        self.results: dict = {}      # function lid -> the variable holding its result
        self.enos: dict = {}         # lid of a block whose EN is wired -> its ENO variable

    def _statement(self, st) -> list:
        if isinstance(st, Call) and st.en is not None:
            return self._enabled_call(st)
        return super()._statement(st)

    def _call(self, st):
        stmt = super()._call(st)
        if not self.infos[st.lid].function:
            return stmt
        line = self._line(st.lid)
        return A.Assign(target=A.Name(name=self._result(st.lid), line=line, col=1),
                        value=self.calls[st.lid], line=line, col=1)

    def _enabled_call(self, st) -> list:
        """A block whose EN is wired, as matiec runs ``F(EN := en, ...)``: EN FALSE
        calls nothing and makes ENO FALSE; a function then gives its type's initial
        value (matiec's ``TEST_EN``), a function block keeps its outputs."""
        line = self._line(st.lid)
        eno = A.Name(name=self._eno(st.lid), line=line, col=1)
        run = [A.Assign(target=eno, value=self.expr(st.en), line=line, col=1)]
        inner = Graphical._call(self, dataclasses.replace(st, en=None))
        if self.infos[st.lid].function:
            result = A.Name(name=self._result(st.lid), line=line, col=1)
            body = (A.Assign(target=result, value=self.calls[st.lid], line=line, col=1),)
            otherwise = (A.Assign(target=result, value=self._initial(st.lid, line),
                                  line=line, col=1),)
        else:
            body, otherwise = (inner,), None
        run.append(A.If(branches=(A.Branch(condition=eno, body=body, line=line, col=1),),
                        else_body=otherwise, line=line, col=1))
        return run

    def _eno(self, lid) -> str:
        """The BOOL variable holding a block's ENO (TRUE until its first call, as
        matiec starts ENO)."""
        if lid not in self.enos:
            el = self.names[lid]
            base = el.get("instanceName") or f"{el.get('typeName') or ''}{lid}"
            name = f"_TMP_{base}_ENO"
            if not _IDENT.match(name) or len(name) > 120:
                name = f"_TMP_BLOCK{len(self.enos) + 1}_ENO"
            self.enos[lid] = self.declare("BOOL", name, "TRUE")
        return self.enos[lid]

    def _initial(self, lid, line):
        """The initial value of a function's result type, as a literal."""
        tp = self.result_types.get(lid)
        if tp is None or tp.kind in (t.Kind.ENUM, t.Kind.ARRAY, t.Kind.STRUCT):
            raise self.err("a function of this type whose EN is wired cannot be used from "
                           "ST, IL or SFC here", lid)
        text = format_value(tp, tp.default)
        if tp.kind in (t.Kind.INT, t.Kind.BITS, t.Kind.REAL, t.Kind.BOOL):
            text = f"{tp.name}#{text}"
        return self.pt.expression(text, line, 1, f"{self.where}, element localId {quote(lid)}")

    def _result(self, lid) -> str:
        """The variable Beremiz computes function ``lid`` into (``_TMP_ADD4_OUT``)."""
        if lid not in self.results:
            el = self.names[lid]
            type_name = el.get("typeName") or ""
            outs = children(child(el, "outputVariables"), "variable")
            pin = (outs[0].get("formalParameter") if outs else "") or "OUT"
            name = f"_TMP_{type_name}{lid}_{pin}"
            if not _IDENT.match(name) or len(name) > 120:
                name = f"_TMP_FUNCTION{len(self.results) + 1}_OUT"
            tp = self.result_types.get(lid)
            if tp is None:
                raise self.err("the type of this function's result is not known", lid)
            self.results[lid] = self.declare(tp.name, name)
        return self.results[lid]

    def expr(self, e, lag=False, depth=0):
        if e[0] == "out" and e[2] == "ENO":
            if e[1] in self.enos:
                return A.Name(name=self.enos[e[1]])
            return A.Literal(kind="bool", value=True, text="TRUE")
        if e[0] == "out" and self.infos[e[1]].function:
            lid, pin = e[1], e[2]
            if lid in self.body.cancelled:
                raise self.err("this function has no input connected, so Beremiz does not "
                               "call it; its output cannot be read", lid)
            outs = self.infos[lid].outputs
            if pin not in ("OUT", "") and not (len(outs) == 1 and pin == outs[0]):
                raise self.err(f"the output {quote(pin)} of this function cannot be read in "
                               f"ST", lid)
            return A.Name(name=self._result(lid))
        return super().expr(e, lag, depth)


def result_types(importer, name: str) -> dict:
    """localId -> the DataType of each function's result in POU ``name``, as the
    network built for the POU infers it."""
    builder = PouBuilder(importer, name, importer.pou_els[name])
    net = builder.build()
    flat = flatten(net)
    out = {}
    for lid in builder.insts:
        try:    # (a function compiled from ST is placed as a block: asked of all)
            out[lid] = flat.signal(builder._raw_out(("out", lid, "OUT"))[0].path).type
        except FbdError:
            continue
    return out


def graphical_pou(importer, name: str) -> A.Pou:
    """The FBD or LD POU ``name`` as the syntax tree of the ST POU Beremiz writes."""
    el = importer.pou_els[name]
    pt = importer.text.pt
    where = f"POU {quote(name)}"
    kind = POU_KINDS.get(el.get("pouType") or "")
    if kind is None:
        raise pt.err(where, f"pouType {quote(el.get('pouType'))} is not supported")
    return_type, blocks = pt.declarations(el, where)
    taken = {d.name.upper() for vb in blocks for d in vb.decls if d.name}
    extra: list = []

    def declare(type_name: str, var: str | None = None, init: str | None = None) -> str:
        """A variable of the POU for an edge trigger, a function's result or a
        block's ENO (a name the POU already declares gets a ``_`` more)."""
        var = var or f"_TMP_{type_name}{len(extra) + 1}"
        while var.upper() in taken:
            var += "_"
        taken.add(var.upper())
        value = A.Literal(kind="bool", value=init == "TRUE", text=init) if init else None
        extra.append(A.VarDecl(name=var, spec=A.NamedType(name=type_name), init=value))
        return var

    try:
        types = result_types(importer, name)
    except PlcOpenError:
        raise
    except FbdError as e:
        raise in_file(importer.project.path, f"{where}: {e}") from None
    body_el, lang = body_of(el)
    graph = PouStatements(pt, el, body_el, lang, where, declare, types)
    statements = tuple(graph.statements())
    if extra:
        blocks += (A.VarBlock(kind="VAR", qualifier=None, decls=tuple(extra),
                              line=body_el.sourceline or 0, col=1),)
    return A.Pou(kind=kind, name=pt._ident(name, where), return_type=return_type,
                 var_blocks=blocks, body=A.StBody(statements=statements,
                                                  line=body_el.sourceline or 0, col=1),
                 line=el.sourceline or 0, col=1)


__all__ = ["graphical_pou", "PouStatements", "result_types"]
