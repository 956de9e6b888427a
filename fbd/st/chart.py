"""An SFC POU's chart as the debugger lists it: its steps, transitions and actions.

The lowering (:mod:`fbd.st.lower_sfc`) turns the chart into ST statements
over flags (``S1.X``, ``S1.T``), so the compiled POU no longer knows it was a
chart. The compiler records the chart here, from the SFC body before the
lowering, in ``PouInfo.chart``: a view lists the steps in source order and
reads each one's flags by path (``inst.S1.X``, ``inst.S1.T``) to show the
active ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ast as A


@dataclass(frozen=True)
class ChartStep:
    name: str
    initial: bool
    line: int
    actions: tuple[str, ...]        # the associations, as written: "A1(N)", "Lamp(D, T#2s)"


@dataclass(frozen=True)
class ChartTransition:
    name: str | None
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    line: int
    flag: str                       # the variable TRUE in the scan it fires: __SFC_TRANSITIONk


@dataclass(frozen=True)
class Chart:
    steps: tuple[ChartStep, ...]
    transitions: tuple[ChartTransition, ...]
    actions: tuple[str, ...]


def chart_of(body: A.SfcBody) -> Chart:
    steps = tuple(ChartStep(s.name, s.initial, s.line,
                            tuple(_association(a) for a in s.actions)) for s in body.steps)
    transitions = tuple(ChartTransition(t.name, tuple(t.sources), tuple(t.targets), t.line,
                                        f"__SFC_TRANSITION{k}")
                        for k, t in enumerate(body.transitions))
    return Chart(steps, transitions, tuple(a.name for a in body.actions))


def _association(a: A.ActionAssociation) -> str:
    parts = [a.qualifier or "N"]
    if a.time is not None:
        parts.append(A.dump(a.time))
    return f"{a.action}({', '.join(parts)})"


__all__ = ["Chart", "ChartStep", "ChartTransition", "chart_of"]
