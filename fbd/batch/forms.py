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
one (128-bit lanes have no vector instructions). That IR is then widened to
W lanes (:mod:`.vector`) and optimised once, all configurations in one
module, or where it cannot be widened, run lane by lane (:mod:`.lanes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..native.lower import BlockLowering
from ..native.templates import Templates
from ..native.values import V
from .ir import NOW_MAX, NOW_MIN, hull
from .lanes import lane_template
from .vector import NotVector, Vectoriser, instance_template, template_function

_STATE_ROUNDS = 3   # widenings of a state variable's interval before taking its type's


class BatchLowering(BlockLowering):
    """The native translator, knowing the batch clock's range and the intervals
    ``bounds`` (state name -> (lo, hi)) its state variables keep to; it notes in
    ``stored`` the interval of what it stores into each."""

    def __init__(self, code, variables, namespace, label, bounds: dict, stored: dict):
        super().__init__(code, variables, namespace, label)
        self.bounds, self.stored_bounds = bounds, stored
        self.clock = V("i", "%now", NOW_MIN, NOW_MAX, 64)

    def read(self, name: str) -> V:
        v = super().read(name)
        return self.clock if name == "now" and v is self.env.get("now") else v

    def load(self, var) -> V:
        v = super().load(var)
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
    configuration's integer state keeps to (those narrower than their type's)."""

    def __init__(self, flat):
        super().__init__(flat)
        self.state_bounds: dict[int, dict] = {}
        self._bounds: dict = {}
        self._stored: dict = {}

    def lower(self, code, variables, namespace, label, values):
        bl = BatchLowering(code, variables, namespace, label, self._bounds, self._stored)
        bl.input_values = dict(values)
        bl.run()
        return bl

    def _make_template(self, leaf, consts):
        types = {sv: leaf.state_type(sv) for sv in leaf.state}
        types = {sv: tp for sv, tp in types.items() if tp is not None and tp.is_integral
                 and not (tp.bits == 64 and not tp.signed)}
        bounds = {}
        for sv, tp in types.items():
            init = self.flat.slot_init[leaf.state[sv]]
            bounds[sv] = (init, init) if type(init) is int else (tp.min, tp.max)
        whole = {sv: (tp.min, tp.max) for sv, tp in types.items()}
        for _round in range(_STATE_ROUNDS + 1):
            self._bounds, self._stored = bounds, {}
            tpl = super()._make_template(leaf, consts)
            grown = {}
            for sv, (lo, hi) in bounds.items():
                got = self._stored.get(sv, (lo, hi))
                tp = types[sv]
                if got[0] is None or got[1] is None or got[0] < tp.min or got[1] > tp.max:
                    grown[sv] = whole[sv]
                else:
                    grown[sv] = hull((lo, hi), got)
            if grown == bounds:
                break
            bounds = grown if _round < _STATE_ROUNDS - 1 else whole
        self._bounds = {}
        self.state_bounds[id(tpl)] = {sv: b for sv, b in bounds.items() if b != whole[sv]}
        return tpl


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


__all__ = ["BatchLowering", "BatchTemplates", "Form", "Pending", "pending", "forms"]
