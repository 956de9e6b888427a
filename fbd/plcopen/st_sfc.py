"""A textual SFC body (``INITIAL_STEP``, ``TRANSITION``, ``ACTION``) as the
graphical ``<SFC>`` chart Beremiz draws, and that :mod:`.sfc` reads back as
the same steps, transitions and actions.

:mod:`.sfc` reads a chart back in depth-first order from its initial steps
(the order Beremiz's generator writes the text in, which is the order matiec
runs it in), so the chart is planned in that order too:

* every step once, in that order, each with an ``actionBlock`` holding its
  associations (qualifier, ``duration``, ``indicator``) when it has any;
* a step leaving by more than one transition fans out through a
  ``selectionDivergence``; a transition from several steps joins them in a
  ``simultaneousConvergence``; one to several steps fans out through a
  ``simultaneousDivergence``;
* a step entered by several transitions written before it joins them in a
  ``selectionConvergence``; a transition leading back to a step already drawn
  (a loop) ends in a ``jumpStep`` to it, as Beremiz draws loops;
* a condition written inline (``:= expr;`` or IL) is an inline condition of
  the transition; a named transition (``TRANSITION t FROM ...``) is one of the
  POU's ``<transitions>`` the condition refers to; actions are the POU's
  ``<actions>``, their bodies in ST or IL as written.

Every element has a ``localId``, a position and ``connection`` points, so
Beremiz draws it; the layout is a plain grid (a column per branch, a row per
element), which the editor lets the user rearrange.
"""

from __future__ import annotations

from lxml import etree

from ..st import ast as A
from .emit import XHTML_URI, ExportError, sub
from .st_declarations import expression_text

COL_W, ROW_H = 240, 70
STEP_W, STEP_H = 100, 30
TR_W, TR_H = 20, 2
ACTION_W, ACTION_ROW = 220, 30
JUMP_W, JUMP_H = 12, 13


def text_el(parent, language: str, text: str):
    """``<ST>`` (or ``<IL>``) holding ``text`` in an ``xhtml:p``, as CDATA."""
    lang = sub(parent, language)
    p = etree.SubElement(lang, f"{{{XHTML_URI}}}p")
    p.text = etree.CDATA(text)
    return lang


def _point_out(parent, x, y, tag="connectionPointOut", formal=True):
    """A point leaving ``parent``; TC6 wants the (empty) formalParameter on those of
    steps and divergences, and none on those of transitions and convergences."""
    el = sub(parent, tag, formalParameter="" if formal else None)
    sub(el, "relPosition", x=x, y=y)
    return el


class _Element:
    """A chart element planned: its id, grid place, and what it connects to."""

    def __init__(self, lid, kind, col, row):
        self.lid, self.kind, self.col, self.row = lid, kind, col, row
        self.x, self.y = 40 + col * COL_W, 20 + row * ROW_H
        self.width = {"step": STEP_W, "transition": TR_W, "jumpStep": JUMP_W}.get(kind, COL_W)
        self.height = {"step": STEP_H, "transition": TR_H, "jumpStep": JUMP_H}.get(kind, 1)

    def out_point(self, branch: int = 0):
        if self.kind in ("selectionDivergence", "simultaneousDivergence"):
            return self.x + branch * COL_W, self.y + self.height
        return self.x + self.width // 2, self.y + self.height


class ChartWriter:
    """Writes one SFC POU's chart; ``source`` gives the text of its conditions and
    actions (:class:`.st_source.SourceText`)."""

    def __init__(self, pou: A.Pou, source, label: str, filename: str):
        self.pou, self.body, self.source, self.label = pou, pou.body, source, label
        self.filename = filename
        self.steps = {s.name.upper(): s for s in self.body.steps}
        self.order = self._depth_first()
        self.pos = {id(x): k for k, x in enumerate(self.order)}
        self.outgoing = {s.name.upper(): [] for s in self.body.steps}
        self.incoming = {s.name.upper(): [] for s in self.body.steps}
        for tr in self.body.transitions:
            for name in tr.sources:
                self.outgoing.setdefault(name.upper(), []).append(tr)
            for name in tr.targets:
                self.incoming.setdefault(name.upper(), []).append(tr)
        self.els = {}
        self.next_id = 1
        self.row = 0

    def fail(self, node, message):
        return ExportError(f"{self.filename}:{node.line}:{node.col}: {self.label}: {message}")

    def _depth_first(self) -> list:
        """Steps and transitions in the order :mod:`.sfc` writes a chart's text."""
        out, seen = [], set()
        pending = [("step", s) for s in reversed([s for s in self.body.steps if s.initial])]
        leaving = {}
        for tr in self.body.transitions:
            for name in tr.sources:
                leaving.setdefault(name.upper(), []).append(tr)
        while pending:
            what, item = pending.pop()
            if id(item) in seen:
                continue
            seen.add(id(item))
            out.append(item)
            if what == "step":
                pending.extend(("tr", tr) for tr in reversed(leaving.get(item.name.upper(), [])))
            else:
                for name in reversed(item.targets):
                    step = self.steps.get(name.upper())
                    if step is None:
                        raise self.fail(item, f"the transition leads to {name}, which is not "
                                              f"a step of the chart")
                    pending.append(("step", step))
        return out

    def _check_order(self) -> None:
        """Refuse a chart whose text order the chart cannot keep where the order
        changes what it does: :mod:`.sfc` (as Beremiz) runs actions in the order the
        chart reaches them and tests transitions and associations in chart order,
        which is the text order here only if the text follows the chart."""
        steps = [x for x in self.order if isinstance(x, A.Step)]
        transitions = [x for x in self.order if isinstance(x, A.Transition)]
        by_name = {a.name.upper(): a for a in self.body.actions}
        actions = []
        for step in steps:
            for assoc in step.actions:
                action = by_name.get(assoc.action.upper())
                if action is not None and action not in actions:
                    actions.append(action)
        used = {id(a): _names(a.body) for a in actions}
        for a, b in _swapped(self.body.actions, actions):
            shared = used[id(a)] & used[id(b)]
            if shared:
                raise self.fail(b, f"the actions {a.name} and {b.name} both use "
                                   f"{sorted(shared)[0]}, and the chart runs {b.name} first "
                                   f"where the text declares {a.name} first; declare the "
                                   f"ACTIONs in the order the steps reach them")
        for a, b in _swapped(self.body.transitions, transitions):
            if {n.upper() for n in a.sources} & {n.upper() for n in b.sources}:
                raise self.fail(b, "two transitions leaving one step are tested in another "
                                   "order in the chart than in the text; write them in the "
                                   "order the steps reach them")
        for a, b in _swapped(self.body.steps, steps):
            if {x.action.upper() for x in a.actions} & {x.action.upper() for x in b.actions}:
                raise self.fail(b, f"the steps {a.name} and {b.name} associate one action "
                                   f"and are in another order in the chart than in the text; "
                                   f"write the steps in the order the chart reaches them")

    def _new(self, kind, col, key=None) -> _Element:
        el = _Element(self.next_id, kind, col, self.row)
        self.next_id += 1
        self.row += 1
        self.els[key if key is not None else el.lid] = el
        return el

    # ------------------------------------------------------------------ plan
    def _entry(self, step: A.Step, tr: A.Transition) -> str:
        """How ``tr`` enters ``step``: "direct", "convergence" or "jump".

        Transitions the text writes before the step, each to it alone, meet in
        a selection convergence above it; a transition the chart reaches before
        the step enters it directly; any other (a loop back) is a jump."""
        incoming = self.incoming[step.name.upper()]
        if self.converge:
            before = [t for t in incoming if (t.line, t.col) < (step.line, step.col)
                      and len(t.targets) == 1 and id(t) in self.pos]
            if len(before) > 1:
                return "convergence" if tr in before else "jump"
        forward = [t for t in incoming if self.pos.get(id(t), 1 << 30) < self.pos[id(step)]]
        if tr is (forward[0] if forward else None):
            return "direct"
        return "jump"

    def write(self, sfc_el, pou_el) -> None:
        """The chart into ``sfc_el``; actions and named transitions into ``pou_el``."""
        if not any(s.initial for s in self.body.steps):
            raise self.fail(self.pou, "the chart has no INITIAL_STEP")
        col = {}
        for s in self.body.steps:
            if s.initial:
                col[s.name.upper()] = len(col)
        self._check_order()
        for converge in (True, False):
            self.converge, self.sfc, self.joins = converge, sfc_el, []
            self.els, self.next_id, self.row = {}, 1, 0
            cols = dict(col)
            for item in self.order:
                if isinstance(item, A.Step):
                    self._step(item, cols)
                else:
                    self._transition(item, cols)
            self._join()
            if self._reads_back(pou_el, sfc_el):
                break
            for el in list(sfc_el):          # drawn again with jumps only
                sfc_el.remove(el)
        else:
            raise self.fail(self.pou, "the chart cannot be drawn so that it reads back in the "
                                      "order of its text")
        self._named(pou_el)

    def _reads_back(self, pou_el, sfc_el) -> bool:
        """The chart drawn reads back (:mod:`.sfc`) with its steps and transitions in
        the order planned: the order the chart runs in."""
        from .sfc import _Chart
        from .textual import PouText
        chart = _Chart(PouText(self.filename), pou_el, sfc_el, self.label)
        chart.named_action = lambda name, el: None          # the actions come later
        chart.condition = lambda el: None                   # as do named conditions
        chart.visit()
        body = chart.write()
        steps = [s.name.upper() for s in body.steps]
        transitions = [(tuple(n.upper() for n in t.sources), tuple(n.upper() for n in t.targets))
                       for t in body.transitions]
        planned = [x for x in self.order if isinstance(x, A.Transition)]
        return steps == [x.name.upper() for x in self.order if isinstance(x, A.Step)] and \
            transitions == [(tuple(n.upper() for n in t.sources),
                             tuple(n.upper() for n in t.targets)) for t in planned]

    def _cpi(self, el_xml, el: _Element, refs) -> None:
        """``connectionPointIn`` of ``el`` joined to each (element or its key, branch)
        in ``refs``; an element drawn later (a step a convergence joins) is joined
        once it is (:meth:`_join`)."""
        block = el.kind == "actionBlock"
        cpi = sub(el_xml, "connectionPointIn")
        sub(cpi, "relPosition", x=0 if block else el.width // 2, y=15 if block else 0)
        for ref, branch in refs:
            self.joins.append((sub(cpi, "connection"), el, ref, branch))

    def _join(self) -> None:
        for conn, el, ref, branch in self.joins:
            if not isinstance(ref, _Element):
                ref = self.els[ref]
            block = el.kind == "actionBlock"
            conn.set("refLocalId", str(ref.lid))
            sub(conn, "position", x=el.x + (0 if block else el.width // 2),
                y=el.y + (15 if block else 0))
            x, y = ref.out_point(branch)
            sub(conn, "position", x=x, y=y)

    def _xml(self, el: _Element, **attrs):
        x = sub(self.sfc, el.kind, localId=el.lid, height=el.height, width=el.width, **attrs)
        sub(x, "position", x=el.x, y=el.y)
        return x

    def _step(self, step: A.Step, col) -> None:
        key = step.name.upper()
        c = col.setdefault(key, 0)
        entering = [t for t in self.incoming[key] if self._entry(step, t) != "jump"]
        refs = []
        if entering and self._entry(step, entering[0]) == "convergence":
            conv = self._new("selectionConvergence", c)
            xml = self._xml(conv)
            for t in entering:
                self._cpi(xml, conv, [(("tr", id(t)), 0)])
            _point_out(xml, x=0, y=1, formal=False)
            refs = [(conv, 0)]
        elif entering:
            refs = [self._target_ref(entering[0], step)]
        el = self._new("step", c, key)
        xml = self._xml(el, name=step.name, initialStep="true" if step.initial else "false")
        if refs:
            self._cpi(xml, el, refs)
        _point_out(xml, x=STEP_W // 2, y=STEP_H)
        if step.actions:
            _point_out(xml, x=STEP_W, y=STEP_H // 2, tag="connectionPointOutAction")
            self._action_block(step, el)
        single = [t for t in self.outgoing.get(key, []) if len(t.sources) == 1]
        if len(single) > 1:
            div = self._new("selectionDivergence", c, ("div", key))
            xml = self._xml(div)
            self._cpi(xml, div, [(el, 0)])
            for i in range(len(single)):
                _point_out(xml, x=i * COL_W, y=1)
            for i, t in enumerate(single):
                col.setdefault(("tr", id(t)), c + i)

    def _target_ref(self, tr, step):
        """What the step after ``tr`` connects to: the transition, or the branch of
        its simultaneous divergence."""
        if len(tr.targets) == 1:
            return self.els[("tr", id(tr))], 0
        branch = [n.upper() for n in tr.targets].index(step.name.upper())
        return self.els[("simdiv", id(tr))], branch

    def _action_block(self, step: A.Step, step_el: _Element) -> None:
        block = _Element(self.next_id, "actionBlock", step_el.col, step_el.row)
        self.next_id += 1
        block.x, block.y = step_el.x + STEP_W + 40, step_el.y
        block.width, block.height = ACTION_W, ACTION_ROW * len(step.actions)
        xml = self._xml(block)
        self._cpi(xml, block, [(step_el, 0)])
        for i, assoc in enumerate(step.actions):
            if len(assoc.indicators) > 1:
                raise self.fail(assoc, f"the association of {assoc.action} has more than "
                                       f"one indicator")
            action = sub(xml, "action", localId=self.next_id, qualifier=assoc.qualifier or "N",
                         duration=expression_text(assoc.time) if assoc.time is not None else None,
                         indicator=expression_text(assoc.indicators[0])
                         if assoc.indicators else None)
            self.next_id += 1
            sub(action, "relPosition", x=0, y=i * ACTION_ROW)
            sub(action, "reference", name=assoc.action)

    def _transition(self, tr: A.Transition, col) -> None:
        sources = [self.steps[n.upper()] for n in tr.sources if n.upper() in self.steps]
        if len(sources) != len(tr.sources):
            raise self.fail(tr, "the transition leaves a step the chart does not declare")
        if len(sources) == 1:
            key = sources[0].name.upper()
            c = col.get(("tr", id(tr)), col.get(key, 0))
            div = self.els.get(("div", key))
            if div is not None and len(tr.sources) == 1:
                single = [t for t in self.outgoing[key] if len(t.sources) == 1]
                refs = [(div, single.index(tr))]
            else:
                refs = [(self.els[key], 0)]
        else:
            c = min(col.get(s.name.upper(), 0) for s in sources if s.name.upper() in col)
            conv = self._new("simultaneousConvergence", c)
            xml = self._xml(conv)
            for s in sources:
                self._cpi(xml, conv, [(s.name.upper(), 0)])
            _point_out(xml, x=0, y=1, formal=False)
            refs = [(conv, 0)]
        el = self._new("transition", c, ("tr", id(tr)))
        xml = self._xml(el, priority=tr.priority)
        self._cpi(xml, el, refs)
        _point_out(xml, x=TR_W // 2, y=TR_H, formal=False)
        self._condition(sub(xml, "condition"), tr)
        origin = (el, 0)
        if len(tr.targets) > 1:
            div = self._new("simultaneousDivergence", c, ("simdiv", id(tr)))
            dxml = self._xml(div)
            self._cpi(dxml, div, [origin])
            for i in range(len(tr.targets)):
                _point_out(dxml, x=i * COL_W, y=1)
        for i, name in enumerate(tr.targets):
            step = self.steps[name.upper()]
            col.setdefault(name.upper(), c + i)
            if self._entry(step, tr) == "jump":
                jump = self._new("jumpStep", c + i)
                jxml = self._xml(jump, targetName=step.name)
                self._cpi(jxml, jump, [self._target_ref(tr, step)])

    def _condition(self, cond_el, tr: A.Transition) -> None:
        language = "IL" if isinstance(tr.condition, A.IlBody) else "ST"
        text = self.source.condition(tr)
        if tr.name is not None:
            sub(cond_el, "reference", name=tr.name)
            return
        text_el(sub(cond_el, "inline", name=""), language, text)

    def _named(self, pou_el) -> None:
        """The POU's ``<actions>`` and named ``<transitions>``, before its body."""
        body_el = pou_el.find("{*}body")
        named = [t for t in self.body.transitions if t.name is not None]
        if self.body.actions:
            actions = etree.Element(body_el.tag.replace("body", "actions"))
            body_el.addprevious(actions)
            for action in self.body.actions:
                if isinstance(action.body, A.SfcBody):
                    raise self.fail(action, f"the action {action.name} is itself a chart")
                language = "IL" if isinstance(action.body, A.IlBody) else "ST"
                a = sub(actions, "action", name=action.name)
                text_el(sub(a, "body"), language, self.source.action_body(action))
        if named:
            transitions = etree.Element(body_el.tag.replace("body", "transitions"))
            body_el.addprevious(transitions)
            for tr in named:
                language = "IL" if isinstance(tr.condition, A.IlBody) else "ST"
                text = self.source.condition(tr)
                t = sub(transitions, "transition", name=tr.name)
                text_el(sub(t, "body"), language, text if language == "IL" else f":= {text};")


def _swapped(written: tuple, drawn: list):
    """The pairs (a, b) that ``written`` has in this order and ``drawn`` in the other."""
    at = {id(x): k for k, x in enumerate(drawn)}
    kept = [x for x in written if id(x) in at]
    for i, a in enumerate(kept):
        for b in kept[i + 1:]:
            if at[id(b)] < at[id(a)]:
                yield a, b


def _names(body) -> set:
    """The variables (and instances) an action's body names, upper-cased."""
    out = set()
    for n in A.iter_nodes(body):
        if isinstance(n, (A.Name, A.Invoke)):
            out.add(n.name.upper())
        elif isinstance(n, A.IlCall):
            out.add(n.fb.upper())
    return out


__all__ = ["ChartWriter", "text_el"]
