"""The stepped variant of a POU's function, for the debugger: a generator that
stops before each statement.

A POU runs as generated code (:mod:`fbd.st.pyemit`, or machine code), fast
and opaque. To break on a line, the debugger runs a variant of the POU's
function by values (its variables Python locals), written on demand from
the same compiled body (:mod:`fbd.st.ir`), in which

* every statement is preceded by ``yield LINE`` (its line in the source; the
  statements after one on the same line, in the same statement list, add no
  stop, so a line is one stop as in gdb; a loop's head stops once, on entry,
  its body's statements at every iteration);
* a call of another POU (an FB instance, a FUNCTION) is ``yield from`` that
  POU's own stepped variant, so its statements stop too; before an FB
  instance's call, ``_dbg_call = 'path'`` names the instance (the debugger
  reads it to build the instance path of the frame below);
* it returns what the fast function returns (the generator's value).

An SFC POU is lowered to ST (:mod:`fbd.st.lower_sfc`) whose statements are
mostly the chart's own bookkeeping, run every scan at the lines of the steps,
transitions and actions (times, edges, action flags). Those do not stop:
only what the user wrote and what runs when the user expects it to. A
step's line stops in each scan the step is active, a transition's when it
is tested (its source steps active), an action's statements when the action
runs; an ACTION's header line holds no statement (a breakpoint there goes to
its first statement).

The suspended generator's frame holds the variables: ``gi_frame.f_locals``
maps ``fbd.st.model.local_name(path)`` to each one's value at that point;
:func:`pou_of_code` tells which POU a frame runs. The fast function is
untouched: a program that is not debugged line by line pays nothing.

``debug_function(info)`` makes (once, kept in ``info.debug_fn``) and returns
the generator function of a compiled POU; ``statement_lines(info)`` the
lines where it stops.
"""

from __future__ import annotations

import ast as _ast
import weakref

from ..errors import FbdError
from . import ast as A
from . import ir
from .model import PouInfo
from .procedure import compile_source, namespace_of, value_function
from .pyaccess import value_source

#: the statements that hold others (a statement after one on the same line still stops)
_COMPOUND = (A.If, A.Case, A.For, A.While, A.Repeat)

# generated function name -> its POU (frames name their code object)
_BY_NAME: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def debug_name(info: PouInfo) -> str:
    return info.fn_name + "_dbg"


def pou_of_code(code) -> PouInfo | None:
    """The POU whose stepped variant runs ``code`` (a frame's ``f_code``), or None."""
    return _BY_NAME.get(code.co_name)


class _CallsStepped(_ast.NodeTransformer):
    """``f(...)`` -> ``(yield from f_dbg(...))`` for the POU functions in ``names``."""

    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, _ast.Name) and node.func.id in self.names:
            node.func = _ast.Name(self.names[node.func.id], _ast.Load())
            return _ast.YieldFrom(node)
        return node


def stepped_calls(source: str, names: dict[str, str]) -> _ast.Module:
    """``source`` with the calls of ``names`` (fast name -> stepped name) as ``yield from``."""
    tree = _CallsStepped(names).visit(_ast.parse(source))
    return _ast.fix_missing_locations(tree)


def pou_functions(info: PouInfo) -> dict[str, PouInfo]:
    """fn_name -> PouInfo of the POUs ``info``'s body calls."""
    found = {}
    for stmt in ir.walk(info.code.body):
        if isinstance(stmt, (ir.CallFb, ir.CallFunction)):
            found[stmt.info.fn_name] = stmt.info
        for e in ir.exprs_of(stmt):
            for node in ir.iter_exprs(e):
                if isinstance(node, ir.FnCall):
                    found[node.info.fn_name] = node.info
    found.pop(info.fn_name, None)
    return found


def debug_function(info: PouInfo):
    """The stepped variant of ``info``'s function (see the module docstring)."""
    if info.debug_fn is not None:
        return info.debug_fn
    if info.context is None:
        raise FbdError(f"{info.label} was not compiled by fbd.st.compile: it has no stepped form")
    source, callees = value_source(info.code, info.fn_name, stepped=True, stops=chart_stops(info))
    namespace = namespace_of(info)
    for name, callee in callees.items():
        namespace[name] = value_function(callee)
        namespace[debug_name(callee)] = debug_function(callee)
    tree = stepped_calls(source, {name: debug_name(c) for name, c in callees.items()})
    fn = tree.body[0]
    fn.name = debug_name(info)
    if not any(isinstance(n, (_ast.Yield, _ast.YieldFrom)) for n in _ast.walk(fn)):
        # a body of pragmas only: still a generator, so ``yield from`` it returns its value
        fn.body.insert(0, _ast.parse("if False:\n    yield 0").body[0])
        _ast.fix_missing_locations(tree)
    exec(compile_source(info, tree, f"<st debug {info.context.filename}:{info.name}>"), namespace)
    info.debug_fn = namespace[fn.name]
    _BY_NAME[fn.name] = info
    return info.debug_fn


def statement_lines(info: PouInfo) -> list[int]:
    """The lines where the stepped variant stops, ascending."""
    stops = chart_stops(info)
    return sorted({n.line for n in A.iter_nodes(info.node.body)
                   if isinstance(n, (A.Assign, A.Invoke, *_COMPOUND, A.Exit, A.Continue, A.Return))
                   and (stops is None or id(n) in stops)})


def chart_stops(info: PouInfo) -> set[int] | None:
    """For an SFC POU, the ids of the lowered statements that stop (see the module
    docstring; every statement of any other POU stops: None)."""
    chart = info.chart
    if chart is None:
        return None
    action_flags = {f"{a}.Q".upper() for a in chart.actions}
    step_flags = {f"{s.name}.X".upper(): f"{s.name}.T".upper() for s in chart.steps}
    transition_flags = {t.flag.upper() for t in chart.transitions}
    stops: set[int] = set()

    def named(node, names) -> bool:
        return isinstance(node, A.Name) and node.name.upper() in names

    def user(statements) -> None:
        for statement in statements:
            stops.update(id(n) for n in A.iter_nodes(statement))

    for s in info.node.body.statements:
        if not isinstance(s, A.If) or len(s.branches) != 1:
            continue
        condition, body = s.branches[0].condition, s.branches[0].body
        if s.else_body is None and named(condition, action_flags):
            user(body)                                   # an action's statements
        elif s.else_body is not None and len(s.else_body) == 1 \
                and isinstance(s.else_body[0], A.Assign) \
                and named(s.else_body[0].target, transition_flags):
            # a transition tested: its condition, not the sources' deactivation that a
            # priority adds after it
            user(b for b in body if not (isinstance(b, A.If) and named(
                b.branches[0].condition, transition_flags)))
        elif named(condition, step_flags) and len(body) == 1 and isinstance(body[0], A.Assign) \
                and named(body[0].target, {step_flags[condition.name.upper()]}):
            stops.add(id(body[0]))                       # the step active: its time counted
    return stops


def last_line(info: PouInfo) -> int:
    """The POU's END_ line (or its last statement's, if the text does not show it)."""
    pou = info.node
    lines = info.st_source.splitlines()
    last = pou.line
    for node in A.iter_nodes(pou.body):
        last = max(last, node.line)
    end = "END_" + pou.kind
    while last < len(lines) and not lines[last - 1].strip().upper().startswith(end):
        last += 1
    return min(last, max(len(lines), pou.line))


__all__ = ["debug_function", "debug_name", "pou_of_code", "pou_functions", "statement_lines",
           "last_line", "stepped_calls", "chart_stops"]
