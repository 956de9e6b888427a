"""Each block configuration's code in the native batch engine.

The native translator (:mod:`fbd.native.lower`) gives a configuration's
scalar IR from its Python code, as for the native scan engine, with two
facts of the batch engine added, as the numpy batch engine uses them
(docs/batch.md):

* the clock stays within ±2**61 ns (:data:`.ir.NOW_MIN`, ``NOW_MAX``), and
* an integer state variable holds only what its block ever stores there,
  an interval found by widening from its initial value until it is stable
  (a timer's START holds clock readings; ``write`` and ``force`` refuse a
  value outside it),

so that a timer's ``now - START`` is a 64-bit difference, not a 128-bit
one (128-bit lanes have no vector instructions). Where rows may be
narrowed (``narrow``), two more facts, which the program keeps true at run
time or gives up by building again without them (:mod:`.native`):

* a *clock reading*, a state variable that is only ever given the clock
  (a timer's START), is never more than :data:`CLOCK_SLACK` ns later than
  the clock of the scan reading it, so ``now - START >= -CLOCK_SLACK``, and
* a 64-bit integer output holds only what its block ever stores there
  (found by widening, as for the state), so that a timer's ET, between
  ``-CLOCK_SLACK`` and a literal PT, fits a row of 32 bits.

That IR is then widened to
W lanes (:mod:`.vector`) and optimised once, all configurations in one
module, or where it cannot be widened, run lane by lane (:mod:`.lanes`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..block import identifier
from ..native.lower import BlockLowering
from ..native.templates import Templates
from ..native.values import V
from .ir import NOW_MAX, NOW_MIN, hull
from .lanes import lane_template
from .vector import NotVector, Vectoriser, instance_template, template_function

_STATE_ROUNDS = 3   # widenings of a state variable's interval before taking its type's
#: how much later than the clock a clock reading may be (ns): 2**31, so that a
#: difference now - START that is below a 32-bit PT fits 32 bits
CLOCK_SLACK = 1 << 31


class BatchLowering(BlockLowering):
    """The native translator, knowing the batch clock's range and the intervals
    ``bounds`` (state name -> (lo, hi)) its state variables keep to; it notes in
    ``stored`` the interval of what it stores into each."""

    def __init__(self, code, variables, namespace, label, bounds: dict, stored: dict,
                 clock_vars: frozenset = frozenset()):
        super().__init__(code, variables, namespace, label)
        self.bounds, self.stored_bounds = bounds, stored
        self.clock = V("i", "%now", NOW_MIN, NOW_MAX, 64)
        self.clock_vars = clock_vars      # clock readings (this round assumes it of them)
        self.clocklike = {"%now"}         # refs never more than CLOCK_SLACK past the clock
        self.given: dict[str, bool] = {}  # state variable -> only clock-like values assigned

    def assign(self, name: str, v: V, pred) -> None:
        var = self.vars.get(name)
        if var is not None and var.writable:
            self.given[name] = self.given.get(name, True) and v.ref in self.clocklike
        super().assign(name, v, pred)

    def select(self, cond: V, a: V, b: V) -> V:
        v = super().select(cond, a, b)
        if a.ref in self.clocklike and b.ref in self.clocklike:
            self.clocklike.add(v.ref)
        return v

    def binop(self, op, a: V, b: V, pred) -> V:
        v = super().binop(op, a, b, pred)
        if (isinstance(op, ast.Sub) and a.ref == "%now" and b.ref in self.clocklike
                and b.ref != "%now" and v.k == "i" and not v.modular and v.lo < -CLOCK_SLACK):
            return V("i", v.ref, -CLOCK_SLACK, max(v.hi, -CLOCK_SLACK), v.w)
        return v

    def read(self, name: str) -> V:
        v = super().read(name)
        return self.clock if name == "now" and v is self.env.get("now") else v

    def load(self, var) -> V:
        v = super().load(var)
        if var.name in self.clock_vars:
            self.clocklike.add(v.ref)
        bound = self.bounds.get(var.name)
        if bound is not None and v.k == "i":
            return V("i", v.ref, bound[0], bound[1], v.w)
        return v

    def store(self, var, v: V) -> None:
        if var.name in self.bounds:
            w = self.to_int(v) if v.k == "b" else v
            self.stored_bounds[var.name] = (w.lo, w.hi) if w.k == "i" else (None, None)
        super().store(var, v)


class BatchTemplates(Templates):
    """The scalar templates of a flat program's blocks, translated by
    :class:`BatchLowering`; ``state_bounds[id(template)]``: the intervals the
    configuration's integer state keeps to (those narrower than their type's).
    With ``narrow``, also ``output_bounds[id(template)]``: the intervals its
    64-bit integer outputs keep to, and ``clock_vars[id(template)]``: its state
    variables that hold clock readings (both assumed by the code: see the module
    docstring)."""

    def __init__(self, flat, narrow: bool = True):
        super().__init__(flat)
        self.narrow = narrow
        self.state_bounds: dict[int, dict] = {}
        self.output_bounds: dict[int, dict] = {}
        self.clock_vars: dict[int, frozenset] = {}
        self._bounds: dict = {}
        self._stored: dict = {}
        self._clock_vars: frozenset = frozenset()
        self._given: dict = {}
        self._lowered = False     # the last template was made by BatchLowering

    def lower(self, code, variables, namespace, label, values):
        bl = BatchLowering(code, variables, namespace, label, self._bounds, self._stored,
                           self._clock_vars)
        bl.input_values = dict(values)
        bl.run()
        self._given, self._lowered = bl.given, True
        return bl

    def _make_template(self, leaf, consts):
        types = {sv: leaf.state_type(sv) for sv in leaf.state}
        types = {sv: tp for sv, tp in types.items() if tp is not None and tp.is_integral
                 and not (tp.bits == 64 and not tp.signed)}
        outputs = set()
        if self.narrow:
            for port in leaf.outputs:
                tp = leaf.port_type(port)
                if tp is not None and tp.is_integral and tp.bits == 64 and tp.signed:
                    types[port] = tp
                    outputs.add(port)
        bounds = {}
        for name, tp in types.items():
            init = self.flat.slot_init[(leaf.outputs if name in outputs else leaf.state)[name]]
            if init is None:
                init = tp.default
            bounds[name] = (init, init) if type(init) is int else (tp.min, tp.max)
        whole = {name: (tp.min, tp.max) for name, tp in types.items()}
        initial, clock_vars, settled = dict(bounds), frozenset(), not self.narrow
        widenings = 0
        while True:
            self._bounds, self._stored, self._clock_vars = bounds, {}, clock_vars
            self._given, self._lowered = {}, False
            tpl = super()._make_template(leaf, consts)
            if not self._lowered:     # a LIFO's or FIFO's code (fbd.native.stores)
                outputs.clear()
            if not settled:
                # the clock readings first: the variables given only clock-like values
                # when those found so far are assumed to be (until it is stable), the
                # intervals then widened from their initial values under that
                found = frozenset(sv for sv in leaf.state
                                  if self._given.get(f"o_{identifier(sv)}"))
                settled = found == clock_vars
                if not settled:
                    clock_vars, bounds = found, dict(initial)
                    continue
            grown = {}
            for name, (lo, hi) in bounds.items():
                got = self._stored.get(name, (lo, hi))
                tp = types[name]
                if got[0] is None or got[1] is None or got[0] < tp.min or got[1] > tp.max:
                    grown[name] = whole[name]
                else:
                    grown[name] = hull((lo, hi), got)
            if grown == bounds or widenings == _STATE_ROUNDS:
                break
            widenings += 1
            bounds = grown if widenings < _STATE_ROUNDS else whole
        self._bounds, self._clock_vars = {}, frozenset()
        self.state_bounds[id(tpl)] = {sv: b for sv, b in bounds.items()
                                      if sv in leaf.state and b != whole[sv]}
        self.output_bounds[id(tpl)] = {port: bounds[port] for port in outputs
                                       if bounds[port] != whole[port]}
        self.clock_vars[id(tpl)] = clock_vars
        return tpl


def assumptions(flat, templates: BatchTemplates) -> tuple[dict, dict]:
    """What the code of ``flat`` assumes of the run beyond the types: slot ->
    (path, (lo, hi)) of the 64-bit outputs their writers keep within an interval
    (and of their copies), and slot -> initial value of the clock readings. The
    program's ``write`` and ``scan`` keep them true or widen (:mod:`.native`)."""
    bounds, clocks = {}, {}
    for leaf in flat.leaves:
        tpl = templates.of(leaf)
        for port, interval in templates.output_bounds.get(id(tpl), {}).items():
            bounds[leaf.outputs[port]] = (f"{leaf.path}.{port}", interval)
        for sv in templates.clock_vars.get(id(tpl), ()):
            init = flat.slot_init[leaf.state[sv]]
            clocks[leaf.state[sv]] = init if type(init) is int else 0
    # a feedback wire's copy and a published output hold their source's values
    for src, copy in (*flat.snapshots.items(), *((s, d) for d, s in flat.publish)):
        if src in bounds:
            bounds[copy] = bounds[src]
    return bounds, clocks


@dataclass
class Form:
    """A configuration's per-instance IR (placeholders: ``{0}`` the prefix, ``{1}``
    the block's index, ``{k}`` the tile offset of slot placeholder k's row)."""
    fmt: str
    vector: bool
    reason: str = ""                  # why it runs lane by lane
    cells: int = 0                    # lane by lane: the cells it needs in %s


@dataclass
class Pending:
    """A configuration on its way to a form: its scalar template and rows."""
    template: object
    rows: dict                        # slot placeholder -> Row
    n_slots: int                      # slot placeholders (a LIFO's DATA has no row)
    written: set                      # placeholders of its outputs and state
    values: dict                      # input-value placeholder -> slot placeholder
    region: tuple | None              # (placeholder, depth) of a LIFO's or FIFO's region


def pending(leaf, tpl, rows_of_slots: list) -> Pending:
    """What :func:`forms` needs of one configuration, from one of its leaves:
    ``rows_of_slots`` the rows of its wired inputs, outputs and state, in
    placeholder order."""
    rows = {2 + i: row for i, row in enumerate(rows_of_slots)}
    n_in = len(tpl.inputs)
    written = set(range(2 + n_in, 2 + len(rows_of_slots)))
    region = None
    if tpl.region:
        data = 2 + n_in + len(leaf.outputs) + list(leaf.state).index("DATA")
        rows.pop(data)
        written.discard(data)
        region = (2 + len(rows_of_slots), int(leaf.block.p["depth"]))
    first_value = 2 + len(rows_of_slots) + (1 if region else 0)
    values = {first_value + i: 2 + i for i, kind in enumerate(tpl.inputs) if kind is not None}
    return Pending(tpl, rows, len(rows_of_slots), written, values, region)


def forms(configs: list, width: int, optimise) -> tuple[list, list]:
    """The :class:`Form` of each :class:`Pending` configuration, and the declarations
    their code needs: vector where its IR widens, optimised by ``optimise(module
    text) -> (function texts by name, declarations)`` (one module for all), else
    lane by lane."""
    out: list = [None] * len(configs)
    functions, declarations = [], set()
    bodies = {}
    for k, p in enumerate(configs):
        try:
            if p.region is not None:
                raise NotVector("a LIFO's or FIFO's elements, addressed by computed indices")
            body = Vectoriser(width, p.rows, p.values).run(p.template.fmt)
        except NotVector as why:
            fmt, cells = lane_template(p.template, p.rows, p.n_slots, p.written, p.region, width)
            out[k] = Form(fmt, False, str(why), cells)
            continue
        bodies[k] = body
        declarations |= body.declarations
        functions.append(template_function(body, p.rows, width, f"tpl{k}"))
    texts, used = optimise("\n".join([*sorted(declarations), *functions])) if functions \
        else ({}, [])
    for k in bodies:
        out[k] = Form(instance_template(texts[f"tpl{k}"]), True)
    return out, used


__all__ = ["BatchLowering", "BatchTemplates", "assumptions", "CLOCK_SLACK", "Form", "Pending",
           "pending", "forms"]
