"""A graphical SFC body as the textual SFC Beremiz generates for it.

Beremiz and OpenPLC run a chart as the textual SFC that Beremiz's
``PLCGenerator`` writes, compiled by matiec, and matiec evaluates steps,
transitions and actions in the order the text declares them. So this module
builds the :class:`~fbd.st.ast.SfcBody` in that text's order:

* The elements are visited in file order: a step declares itself and the
  transitions that lead to it; an action block declares its step, then its
  actions; a transition declares itself, then the steps it leaves, adding
  itself to their transitions; a jump adds its target to the transitions
  that lead to it.
* The text is written from each initial step: the step, its actions, then
  each of its transitions, each followed by the steps it leads to, depth
  first (an explicit stack: a chart of a thousand steps is no recursion of a
  thousand frames). A step no initial step reaches is not written, as
  Beremiz does not write it.
* A transition's sources are the step before it, the step before a selection
  divergence, or the steps a simultaneous convergence joins; its targets the
  step or jump after it, through a selection convergence or a simultaneous
  divergence.
* An inline action is named ``<STEP>_INLINE<n>``, ``n`` counting the inline
  actions of the POU from 1 in visiting order; a qualifier not written is N.
* Conditions: inline ST (an expression) or IL, a named ``<transition>`` of
  the POU in ST (``:= expr;``), IL, FBD or LD (:mod:`.graphical`), or a
  connection from an ``inVariable``. Actions in ST, IL, FBD or LD. Inline
  conditions drawn in FBD or LD, conditions wired from blocks of the chart
  and macro steps are refused, naming the element.
"""

from __future__ import annotations

from ..st import ast as A
from .graphical import Graphical
from .source import child, children, quote, tag
from .textual import body_text, language_of

_SFC_ELEMENTS = {"step", "macroStep", "transition", "selectionDivergence", "selectionConvergence",
                 "simultaneousDivergence", "simultaneousConvergence", "jumpStep", "actionBlock",
                 "comment"}
#: the action Beremiz adds for the blocks that conditions pull
COMPUTE = "COMPUTE_FUNCTION_BLOCKS"


class _Chart:
    def __init__(self, pt, pou_el, sfc_el, label):
        self.pt = pt
        self.pou_el = pou_el
        self.label = label
        self.pou = pou_el.get("name") or ""
        self.by_id = {}
        self.order = []
        for el in sfc_el:
            if not isinstance(el.tag, str):
                continue
            lid = el.get("localId")
            if lid is not None:
                self.by_id[lid] = el
            self.order.append(el)
        self.step_names = {}
        for el in self.order:
            if tag(el) == "step":
                name = el.get("name") or ""
                if name.upper() in self.step_names and self.step_names[name.upper()] is not el:
                    raise self.err(el, f"two steps are named {quote(name)}")
                self.step_names[name.upper()] = el
        self.steps = {}            # step name -> {"el", "initial", "transitions", "actions"}
        self.initial = []
        self.transitions = {}      # transition element -> its parts
        self.actions = {}          # action name -> Action node
        self.inline_count = 0
        self.extra = []            # VarDecls the graphical actions need (edge instances)
        self.computed = []         # statements of the blocks conditions pull
        self._graph = None
        self.named = {}            # a named FBD or LD transition's statement list

    def err(self, el, msg):
        lid = el.get("localId") if el is not None else None
        at = f", SFC element <{tag(el)}> localId {quote(lid)}" if lid is not None else ""
        return self.pt.err(f"POU {quote(self.pou)}{at}", msg)

    def _sources(self, el):
        """The elements a connectionPointIn of ``el`` refers to, if exactly one."""
        cpi = child(el, "connectionPointIn")
        if cpi is None:
            return None
        conns = children(cpi, "connection")
        if len(conns) != 1:
            return None
        ref = self.by_id.get(conns[0].get("refLocalId"))
        if ref is None:
            raise self.err(el, f"is connected to localId {quote(conns[0].get('refLocalId'))}, "
                               f"which is not in the chart")
        return ref

    def _inputs(self, el):
        """Every element the connectionPointIns of a convergence refer to."""
        out = []
        for cpi in children(el, "connectionPointIn"):
            conns = children(cpi, "connection")
            if len(conns) == 1:
                ref = self.by_id.get(conns[0].get("refLocalId"))
                if ref is not None:
                    out.append(ref)
        return out

    def _leading_transitions(self, el):
        """The transitions that lead to the step or jump ``el``."""
        src = self._sources(el)
        if src is None:
            return []
        kind = tag(src)
        if kind == "transition":
            found = [src]
        elif kind == "selectionConvergence":
            found = self._inputs(src)
        elif kind == "simultaneousDivergence":
            before = self._sources(src)
            if before is None:
                found = []
            elif tag(before) == "selectionConvergence":
                found = self._inputs(before)
            else:
                found = [before]
        else:
            found = []
        for tr in found:
            if tag(tr) != "transition":
                raise self.err(el, f"follows <{tag(tr)}> localId {quote(tr.get('localId'))}, "
                                   f"not a transition")
        return found

    def _check(self, el):
        if tag(el) == "macroStep":
            raise self.err(el, "macro steps are not supported: Beremiz's generator writes "
                               "no ST for them (a transition to or from one is 'not "
                               "connected'); draw the steps it holds")
        if tag(el) != "step":
            raise self.err(el, "is where a step should be")

    # --------------------------------------------------------- the generator
    def visit(self):
        for el in self.order:
            kind = tag(el)
            if kind == "step":
                self.step(el)
            elif kind == "actionBlock":
                self.action_block(el)
            elif kind == "transition":
                self.transition(el)
            elif kind == "jumpStep":
                self.jump(el)
            elif kind == "macroStep":
                self._check(el)

    def compute_action(self):
        """Beremiz's COMPUTE_FUNCTION_BLOCKS: the blocks conditions pull, set (S) by
        the first initial step, so they run every scan."""
        if not self.computed or not self.initial:
            return
        self.actions[COMPUTE] = A.Action(name=COMPUTE, body=A.StBody(
            statements=tuple(self.computed)))
        self.steps[self.initial[0]]["actions"].append(
            A.ActionAssociation(action=COMPUTE, qualifier="S"))

    def step(self, el):
        name = el.get("name") or ""
        if name in self.steps:
            return
        initial = (el.get("initialStep") or "").strip().lower() in ("true", "1")
        if initial:
            self.initial.append(name)
        self.steps[name] = {"el": el, "initial": initial, "transitions": [], "actions": []}
        for tr in self._leading_transitions(el):
            self.transition(tr)
            self.transitions[tr]["to"].append(name)

    def jump(self, el):
        target = el.get("targetName") or ""
        step = self.step_names.get(target.upper())
        if step is None:
            raise self.err(el, f"jumps to {quote(target)}, which is not a step of the chart")
        target = step.get("name") or ""
        for tr in self._leading_transitions(el):
            self.transition(tr)
            self.transitions[tr]["to"].append(target)

    def action_block(self, el):
        step_el = self._sources(el)
        if step_el is None:
            raise self.err(el, "is not connected to a step")
        self._check(step_el)
        self.step(step_el)
        step_name = step_el.get("name") or ""
        for i, action in enumerate(children(el, "action")):
            qualifier = (action.get("qualifier") or "N").strip().upper()
            ref = child(action, "reference")
            inline = child(action, "inline")
            where = f"action {i + 1}"
            if ref is not None:
                name = ref.get("name") or ""
                self.named_action(name, el)
            elif inline is not None:
                self.inline_count += 1
                name = f"{step_name.upper()}_INLINE{self.inline_count}"
                self.actions[name] = A.Action(name=name, body=self.code(inline, el, where),
                                              line=inline.sourceline or 0, col=1)
            else:
                raise self.err(el, f"{where} has neither a reference nor an inline body")
            line = action.sourceline or 0
            time = None
            duration = (action.get("duration") or "").strip()
            if duration:
                time = self.pt.expression(duration, line, 1,
                                          f"POU {quote(self.pou)}, {where}: duration")
            indicators = ()
            indicator = (action.get("indicator") or "").strip()
            if indicator:
                indicators = (A.Name(name=self.pt._ident(indicator, f"POU {quote(self.pou)}"),
                                     line=line, col=1),)
            self.steps[step_name]["actions"].append(A.ActionAssociation(
                action=name, qualifier=qualifier, time=time, indicators=indicators,
                line=line, col=1))

    def named_action(self, name, el):
        if name in self.actions:
            return
        for actions in children(self.pou_el, "actions"):
            for action in children(actions, "action"):
                if (action.get("name") or "").upper() == name.upper():
                    self.actions[name] = A.Action(
                        name=name, body=self.code(child(action, "body"), el,
                                                  f"action {quote(name)}"),
                        line=action.sourceline or 0, col=1)
                    return
        # not an action of the POU: IEC lets an association name a BOOL variable,
        # which the lowering of the chart resolves (or refuses)

    def code(self, holder, el, where):
        lang_el, lang = language_of(holder)
        if lang in ("ST", "IL"):
            return self.pt.parse_text(lang_el, lang, self.label)
        if lang in ("FBD", "LD"):
            graph = Graphical(self.pt, self.pou_el, lang_el, lang,
                              f"POU {quote(self.pou)}, {where}", self.declare)
            return A.StBody(statements=tuple(graph.statements()),
                            line=lang_el.sourceline or 0, col=1)
        raise self.err(el, f"{where} is written in {lang or 'no language'}; actions in ST, "
                           f"IL, FBD and LD are supported (Beremiz offers no other; an "
                           f"action that is itself a chart its generator cannot write, and "
                           f"matiec's C for one does not compile)")

    def graph(self):
        """The chart's own FBD and LD elements (a condition wired from them), one
        statement list for the whole chart, as Beremiz computes each block once."""
        if self._graph is None:
            drawn = [e for e in self.order if tag(e) not in _SFC_ELEMENTS]
            self._graph = Graphical(self.pt, self.pou_el, drawn, "SFC",
                                    f"POU {quote(self.pou)}", self.declare)
        return self._graph

    def declare(self, type_name: str, name: str | None = None) -> str:
        """A variable of ``type_name`` for the POU: an edge modifier's instance
        (``_TMP_R_TRIG<n>``), or ``name``."""
        name = name or f"_TMP_{type_name}{len(self.extra) + 1}"
        if not any(d.name.upper() == name.upper() for d in self.extra):
            self.extra.append(A.VarDecl(name=name, spec=A.NamedType(name=type_name)))
        return name

    def transition(self, el):
        if el in self.transitions:
            return
        steps = []
        src = self._sources(el)
        if src is not None:
            kind = tag(src)
            if kind == "selectionDivergence":
                src = self._sources(src)
                kind = tag(src) if src is not None else ""
            if kind == "simultaneousConvergence":
                steps.extend(self._inputs(src))
            elif src is not None:
                steps.append(src)
        priority = (el.get("priority") or "").strip()
        if priority and (not priority.isdigit() or len(priority) > 9):
            raise self.err(el, f"priority {quote(priority)} is not a number")
        parts = {"el": el, "priority": int(priority) if priority else None, "from": [],
                 "to": [], "condition": None}
        self.transitions[el] = parts
        parts["condition"] = self.condition(el)
        for step in steps:
            self._check(step)
            self.step(step)
            name = step.get("name") or ""
            parts["from"].append(name)
            self.steps[name]["transitions"].append(el)

    def condition(self, el):
        cond = child(el, "condition")
        if cond is None:
            raise self.err(el, "has no condition")
        inline, ref, cpi = child(cond, "inline"), child(cond, "reference"), \
            child(cond, "connectionPointIn")
        if inline is not None:
            lang_el, lang = language_of(inline)
            if lang == "ST":
                return self.st_condition(lang_el, el, assign_to=None)
            if lang == "IL":
                return self.pt.parse_text(lang_el, "IL", self.label)
            raise self.err(el, f"an inline condition in {lang or 'no language'} is not "
                               f"supported (ST and IL are)")
        if ref is not None:
            name = ref.get("name") or ""
            for trs in children(self.pou_el, "transitions"):
                for tr in children(trs, "transition"):
                    if (tr.get("name") or "").upper() == name.upper():
                        lang_el, lang = language_of(child(tr, "body"))
                        if lang == "ST":
                            return self.st_condition(lang_el, el, assign_to=name)
                        if lang == "IL":
                            return self.pt.parse_text(lang_el, "IL", self.label)
                        if lang in ("FBD", "LD"):
                            key = name.upper()
                            if key not in self.named:    # each block computed once
                                self.named[key] = Graphical(
                                    self.pt, self.pou_el, lang_el, lang,
                                    f"POU {quote(self.pou)}, transition {quote(name)}",
                                    self.declare)
                            cond, pulled = self.named[key].condition(name)
                            self.computed.extend(pulled)
                            return cond
                        raise self.err(el, f"the transition {quote(name)} is written in "
                                           f"{lang or 'no language'}")
            raise self.err(el, f"refers to the transition {quote(name)}, which the POU does "
                               f"not declare")
        if cpi is not None:
            cond, pulled = self.graph().expression(children(cpi, "connection"),
                                                   el.get("localId"))
            self.computed.extend(pulled)
            return cond
        raise self.err(el, "has an empty condition")

    def st_condition(self, lang_el, el, assign_to):
        """An ST condition: an expression (inline), or ``:= expr;`` or
        ``NAME := expr;`` (a named transition's body)."""
        src, line, col = body_text(lang_el, self.pt.source)
        body = src.strip()
        lead = len(src) - len(src.lstrip())
        if body.startswith(":="):
            lead += 2
            body = body[2:]
        elif assign_to is not None:
            tree = self.pt.parse_text(lang_el, "ST", self.label)
            stmts = tree.statements
            if len(stmts) == 1 and isinstance(stmts[0], A.Assign) and \
                    isinstance(stmts[0].target, A.Name) and \
                    stmts[0].target.name.upper() == assign_to.upper():
                return stmts[0].value
            raise self.err(el, f"the transition {quote(assign_to)} is not ':= condition;' "
                               f"nor '{assign_to} := condition;'")
        body = body.rstrip()
        if body.endswith(";"):
            body = body[:-1]
        head = src[:lead]
        line += head.count("\n")
        col = (lead - head.rfind("\n")) if "\n" in head else col + lead
        return self.pt.expression(body, line, col,
                                  f"POU {quote(self.pou)}, transition localId "
                                  f"{quote(el.get('localId'))}: condition")

    # ------------------------------------------------------------- the text
    def write(self) -> A.SfcBody:
        steps, transitions, actions = [], [], []
        pending = [("step", name) for name in reversed(self.initial)]
        while pending:
            what, item = pending.pop()
            if what == "step":
                info = self.steps.pop(item, None)
                if info is None:
                    continue
                steps.append(A.Step(name=item, initial=info["initial"],
                                    actions=tuple(info["actions"]),
                                    line=info["el"].sourceline or 0, col=1))
                for assoc in info["actions"]:
                    action = self.actions.pop(assoc.action, None)
                    if action is not None:
                        actions.append(action)
                pending.extend(("transition", tr) for tr in reversed(info["transitions"]))
            else:
                parts = self.transitions.pop(item, None)
                if parts is None:
                    continue
                el = parts["el"]
                if not parts["from"]:
                    raise self.err(el, "is not connected to a step before it")
                if not parts["to"]:
                    raise self.err(el, "is not connected to a step after it")
                transitions.append(A.Transition(
                    name=None, priority=parts["priority"], sources=tuple(parts["from"]),
                    targets=tuple(parts["to"]), condition=parts["condition"],
                    line=el.sourceline or 0, col=1))
                pending.extend(("step", name) for name in reversed(parts["to"]))
        return A.SfcBody(steps=tuple(steps), transitions=tuple(transitions),
                         actions=tuple(actions), line=0, col=1)


def sfc_body(pt, pou_el, sfc_el, label):
    """The chart ``sfc_el`` of the POU ``pou_el`` in the order Beremiz writes it, and
    the variables its graphical actions need declared."""
    chart = _Chart(pt, pou_el, sfc_el, label)
    chart.visit()
    chart.compute_action()
    if not chart.initial:
        raise pt.err(f"POU {quote(chart.pou)}", "the chart has no initial step")
    return chart.write(), tuple(chart.extra)


__all__ = ["sfc_body"]
