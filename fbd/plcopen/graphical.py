"""An FBD or LD action or transition of an SFC POU as ST statements.

Beremiz writes a graphical action or transition as the Structured Text its
generator makes of it, inside the chart's text; this module makes the same
statements as ST syntax trees, from the statement list :mod:`.body` already
reproduces (Beremiz's order, pulling, LD's AND and OR): a function block runs
as ``inst(IN := ..., PT := ...)`` and is read as ``inst.Q``; a function is
called where its output is read (``NOT(SWITCH_BUTTON)``); a variable or coil
is an assignment, a set or reset coil ``IF x THEN v := TRUE; END_IF``; an
edge modifier an ``R_TRIG``/``F_TRIG`` instance of its own, declared in the
POU (``_TMP_R_TRIG1`` ...). A named transition drawn in FBD or LD is the
expression on its output variable or coil named like the transition.

A transition's condition wired from blocks drawn in the chart, or a named
transition in FBD or LD, is the expression on that wire; the function
blocks it pulls run, as Beremiz has them, in an action
``COMPUTE_FUNCTION_BLOCKS`` that the first initial step sets (S): every
scan, after the transitions are evaluated. A function whose output is the
condition (or a term of it) is computed there too, into the BOOL variable
``_TMP_<TYPE><localId>_OUT`` Beremiz declares, which the transition reads:
the value of the previous scan. Refused, naming the element: a
function whose EN is wired (matiec's ``TEST_EN`` has no ST expression) and
a function output other than its result read.
"""

from __future__ import annotations

from ..block import registry
from ..st import ast as A
from ..st.stdlib import STANDARD
from .body import Assign, BlockInfo, Body, Call, connections, run
from .source import PlcOpenError, child, children, quote, tag, text
from .textual import POU_KINDS


class Graphical:
    """The statements of one FBD or LD body (``lang_el``) of the POU ``pou_el``."""

    def __init__(self, pt, pou_el, lang_el, lang, where, declare):
        # lang_el: the <FBD>/<LD> element, or the chart's own FBD and LD elements
        self.pt = pt
        self.pou_el = pou_el
        self.where = where          # "POU 'X', action 'A'"
        self.declare = declare      # adds a VarDecl to the POU (edge instances)
        self.infos, self.names = {}, {}
        for el in lang_el:
            if tag(el) == "block":
                lid = el.get("localId")
                self.infos[lid] = self._info(el.get("typeName") or "", lid)
                self.names[lid] = el
        self.body = Body(lang_el, self.infos.__getitem__, self.err, lang)
        self.calls: dict = {}       # function lid -> its Call expression
        self.triggers: dict = {}    # trigger index -> instance name
        self.lagged: dict = {}      # function lid -> the _TMP_ variable a condition reads
        self.depth: dict = {}       # id(Call) -> how deep its calls nest

    def err(self, msg, lid=None) -> PlcOpenError:
        at = f", element localId {quote(lid)}" if lid is not None else ""
        return self.pt.err(f"{self.where}{at}", msg)

    def _info(self, type_name, lid) -> BlockInfo:
        lib = STANDARD.lookup(type_name)
        if lib is not None:
            return BlockInfo(lib.kind == "FUNCTION", list(lib.inputs), list(lib.outputs),
                             set(lib.in_outs), lib.extensible is not None)
        for pous in self.pou_el.getparent():
            if tag(pous) == "pou" and (pous.get("name") or "").upper() == type_name.upper():
                kind = POU_KINDS.get(pous.get("pouType") or "")
                groups = {tag(g): [v.get("name") or "" for v in children(g, "variable")]
                          for g in (child(pous, "interface") if child(pous, "interface")
                                    is not None else [])}
                outputs = groups.get("outputVars", []) + (["OUT"] if kind == "FUNCTION" else [])
                return BlockInfo(kind == "FUNCTION", groups.get("inputVars", []), outputs,
                                 set(groups.get("inOutVars", [])))
        cls = registry().get(type_name)
        if cls is not None:
            raise self.err(f"block {quote(type_name)} is this simulator's, not IEC's: an ST "
                           f"action or transition cannot call it", lid)
        raise self.err(f"unknown block type {quote(type_name)} (neither a standard function "
                       f"or function block nor a POU of this project)", lid)

    # ------------------------------------------------------------ statements
    def statements(self) -> list:
        out = []
        for st in self.body.generate():
            out.extend(self._statement(st))
        return out

    def _statement(self, st) -> list:
        if isinstance(st, Call):
            stmt = self._call(st)
            return [] if stmt is None else [stmt]
        if isinstance(st, Assign):
            return [self._assign(st)]
        name = self.declare(f"{'R' if st.edge == 'rising' else 'F'}_TRIG")
        self.triggers[st.index] = name
        line = self._line(st.lid)
        return [A.Invoke(name=name, args=(A.Arg(name="CLK", value=self.expr(st.expr),
                                                line=line, col=1),), line=line, col=1)]

    def expression(self, conns, lid):
        """The expression the connections ``conns`` bring (a transition's condition),
        and the statements it pulls (function block calls, edge triggers), which
        Beremiz runs in an action of the initial step."""
        start = len(self.body.statements)
        expr = run(self.body._paths(conns, False, False, lid))
        if expr is None:
            raise self.err("the condition is not connected", lid)
        pulled, at = [], {}
        for st in self.body.statements[start:]:
            if isinstance(st, Call) and self.infos[st.lid].function:
                at[st.lid] = len(pulled)
            pulled.extend(self._statement(st))
        cond = self.expr(expr, lag=True)
        # a function read as a condition is, as Beremiz writes it, a _TMP_ variable the
        # action computes: the transition reads the value of the previous scan
        for lid in sorted((k for k in self.lagged if k in at), key=at.get, reverse=True):
            pulled.insert(at[lid], A.Assign(target=A.Name(name=self.lagged[lid]),
                                            value=self.calls[lid]))
        return cond, pulled

    def condition(self, name: str):
        """A named transition's body: the expression on its output variable or coil
        named like the transition, and the statements it pulls."""
        for el in self.body.order:
            kind = tag(el)
            target = text(child(el, "expression" if kind != "coil" else "variable"))
            if kind in ("outVariable", "coil") and target.upper() == name.upper():
                return self.expression(connections(el), el.get("localId"))
        raise self.err(f"the transition's body has no output variable or coil named "
                       f"{quote(name)}")

    def _line(self, lid):
        el = self.body.elements.get(lid)
        return (el.sourceline or 0) if el is not None else 0

    def _call(self, st: Call):
        el, info = self.names[st.lid], self.infos[st.lid]
        line = el.sourceline or 0
        args = tuple(A.Arg(name=pin, value=self.expr(e), line=line, col=1) for pin, e in st.inputs)
        nested = 1 + max((self.depth.get(id(a.value), 0) for a in args), default=0)
        if nested > A.MAX_DEPTH:
            raise self.err(f"functions feed one another more than {A.MAX_DEPTH} deep", st.lid)
        if info.function:
            if st.en is not None:
                raise self.err("a function whose EN is wired is not supported in an SFC "
                               "action or transition", st.lid)
            drawn = [v.get("formalParameter") for v in
                     children(child(el, "inputVariables"), "variable")]
            if len(info.outputs) <= 1 and len(st.inputs) == len([p for p in drawn if p != "EN"]):
                # every input connected: Beremiz passes them by position (matiec's NOT
                # takes no formal IN)
                args = tuple(A.Arg(name=None, value=a.value, line=line, col=1) for a in args)
            self.calls[st.lid] = A.Call(name=el.get("typeName") or "", args=args, line=line,
                                        col=1)
            self.depth[id(self.calls[st.lid])] = nested
            return None
        inst = el.get("instanceName") or ""
        if st.en is not None:
            args = (A.Arg(name="EN", value=self.expr(st.en), line=line, col=1),) + args
        return A.Invoke(name=self.pt._ident(inst, self.where), args=args, line=line, col=1)

    def _assign(self, st: Assign):
        line = self._line(st.lid)
        target = self.pt.expression(st.target, line, 1, f"{self.where}, element localId "
                                                        f"{quote(st.lid)}")
        value = self.expr(st.expr)
        if st.mode in ("set", "reset"):
            lit = A.Literal(kind="bool", value=st.mode == "set", text=st.mode == "set" and
                            "TRUE" or "FALSE", line=line, col=1)
            body = (A.Assign(target=target, value=lit, line=line, col=1),)
            stmt = A.If(branches=(A.Branch(condition=value, body=body, line=line, col=1),),
                        else_body=None, line=line, col=1)
        else:
            stmt = A.Assign(target=target, value=value, line=line, col=1)
        if st.guard is not None:
            guard = self.expr(st.guard)
            stmt = A.If(branches=(A.Branch(condition=guard, body=(stmt,), line=line, col=1),),
                        else_body=None, line=line, col=1)
        return stmt

    # ----------------------------------------------------------- expressions
    def expr(self, e, lag=False, depth=0):
        """ST of a statement-list expression; with ``lag``, a function output read as
        a truth value is its _TMP_ variable (see :meth:`expression`)."""
        if depth > A.MAX_DEPTH:
            raise self.err(f"the drawing nests deeper than {A.MAX_DEPTH} levels of AND, OR "
                           f"and NOT")
        kind = e[0]
        if kind == "lit":
            value = e[1]
            return A.Literal(kind="bool", value=bool(value), text="TRUE" if value else "FALSE")
        if kind == "var":
            return self.pt.expression(e[1], self._line(e[2]), 1,
                                      f"{self.where}, element localId {quote(e[2])}")
        if kind == "not":
            return A.Unary(op="NOT", operand=self.expr(e[1], lag, depth + 1))
        if kind in ("and", "or"):
            items = [self.expr(x, lag, depth + 1) for x in e[1]]
            out = items[0]
            for item in items[1:]:
                out = A.Binary(op=kind.upper(), left=out, right=item)
            return out
        if kind == "edge":
            return A.Member(base=A.Name(name=self.triggers[e[1]]), member="Q")
        lid, pin = e[1], e[2]
        if self.infos[lid].function:
            call = self.calls.get(lid)
            outs = self.infos[lid].outputs
            if call is None or (pin not in ("OUT", "") and pin not in outs[:1]):
                raise self.err(f"the output {quote(pin)} of this function cannot be read in "
                               f"ST", lid)
            if lag:
                if lid not in self.lagged:
                    self.lagged[lid] = self.declare("BOOL", f"_TMP_{call.name}{lid}_OUT")
                return A.Name(name=self.lagged[lid])
            return call
        inst = self.names[lid].get("instanceName") or ""
        return A.Member(base=A.Name(name=inst), member=pin)


__all__ = ["Graphical"]
