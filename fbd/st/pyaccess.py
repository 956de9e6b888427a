"""How the Python code of a POU reaches its variables (see :mod:`.pyemit`).

* :class:`ValueAccess`: the function by values, one per POU type: the
  instance's variables are arguments and Python locals (``v_COUNT``,
  ``v_T1__Q``), what the call changed is handed back as a tuple (the block's
  ``code`` unpacks it);
* :class:`TableAccess`: one function per POU instance over the signal
  table: each variable at its slot (``s[412]``), an input the body does not
  write as the argument the scan passes, a variable a loop uses held in a
  local for the call (written back when it returns, by a fault too: the
  table then holds what the statements before the fault wrote, as C's
  memory would), an FB instance inside as a function of its own.
"""

from __future__ import annotations

from .. import types as t
from ..block import literal
from . import ir
from .census import release, summary
from .model import LibraryFb, global_local, kept_name, local_name
from .pyemit import PyEmitter

K = t.Kind


class ValueAccess:
    """The POU's variables as Python locals; the function takes and hands back
    values (see the module docstring). ``callees`` collects the POUs called."""

    def __init__(self, info):
        self.info = info
        self.callees: dict = {}

    def bind(self, emitter) -> None:
        pass

    def var(self, v) -> str:
        return v.local

    def needs(self, info) -> None:
        self.callees[info.fn_name] = info

    def signature(self, name):
        info = self.info
        params = [v.local for v in info.inputs] + [v.local for v in info.in_outs]
        if info.kind != "FUNCTION":
            params += [global_local(g) for g in info.externals]
            params += [local_name(e.path) for e in info.state]
        return f"def {name}", ["now"] + params

    def prologue(self) -> list[str]:
        """What each call starts from: copies of array inputs (IEC passes them by
        value), edge inputs, and the variables a call does not keep."""
        info = self.info
        out = []
        for v in info.inputs:
            if v.type.canonical.mutable:
                out.append(f"{v.local} = {_copied(v.local, v.type)}")
            edge = getattr(v.node, "edge", None)
            if edge is not None:    # R_EDGE / F_EDGE: TRUE in the call that sees the edge
                last = local_name(f"{v.path}__{edge}")
                now_ = "_edge_" + v.local
                out.append(f"{now_} = {v.local}")
                out.append(f"{v.local} = {now_} and not {last}" if edge == "R_EDGE"
                           else f"{v.local} = {last} and not {now_}")
                out.append(f"{last} = {now_}")
        for v in fresh_variables(info):
            out.append(f"{v.local} = {fresh_value(v.init, v.type)}")
        if info.kind == "FUNCTION":
            out.append(f"{local_name(info.name)} = "
                       f"{fresh_value(info.result_type.default, info.result_type)}")
        return out

    def guard(self) -> list[str]:
        return []

    def splittable(self) -> bool:
        return False        # the variables are the function's locals

    def on_return(self) -> list[str]:
        return []

    def returning(self) -> str:
        info = self.info
        if info.kind == "FUNCTION":
            values = [local_name(info.name)] + [v.local for v in info.outputs] + \
                     [v.local for v in info.in_outs]
            if len(values) == 1:
                return f"return {values[0]}"
        else:
            values = [v.local for v in info.kept_inputs] + [v.local for v in info.in_outs] + \
                     [global_local(g) for g in info.externals] + \
                     [local_name(e.path) for e in info.state]
        return f"return ({', '.join(values)},)" if values else "return ()"

    def call_fb(self, s: ir.CallFb, emit) -> list[str]:
        callee, var = s.info, s.var
        self.needs(callee)
        inouts = [emit.expr(p) for p in s.inouts]

        def member(path):
            return local_name(f"{var.path}.{path}")
        params = [member(v.path) for v in callee.inputs] + inouts
        params += [global_local(g) for g in callee.externals]
        state = [member(e.path) for e in callee.state]
        kept = [member(v.path) for v in callee.kept_inputs]
        back = kept + inouts + [global_local(g) for g in callee.externals] + state
        call = f"{callee.fn_name}(now{''.join(', ' + p for p in params + state)})"
        return [f"{', '.join(back)}, = {call}" if back else call]


def fresh_variables(info) -> list:
    """The variables each call starts afresh: VAR_TEMP, and a FUNCTION's own."""
    return [v for v in info.variables.values() if v.fb is None and (
        v.section == "VAR_TEMP" or (info.kind == "FUNCTION" and v.section in ("VAR", "VAR_OUTPUT")))]


def fresh_value(value, tp) -> str:
    if value is None:
        value = tp.default
    if isinstance(value, list):
        return f"_st_copy({value!r})"
    return literal(value)


def _copied(code: str, tp) -> str:
    c = tp.canonical
    if c.kind is K.ARRAY and not c.element.mutable:
        return f"list({code})"
    return f"_st_copy({code})"


# ------------------------------------------------------------------ over the table
class Frame:
    """Where one POU instance keeps its variables: ``slots`` maps each path of
    the POU (``COUNT``, ``T1.Q``, ``SUB.X``, upper case) to its slot,
    ``globals`` each global's NAME to its slot, ``args`` the variables passed
    as arguments (a top-level instance's inputs the body does not write, an
    inner instance's VAR_IN_OUTs) to their parameter; ``params`` are the
    function's parameters after ``s, now``."""

    def __init__(self, info, slots: dict, globals_: dict, args: dict, params: list, name: str):
        self.info = info
        self.slots = slots
        self.globals = globals_
        self.args = args
        self.params = params
        self.name = name

    def slot(self, path: str) -> int:
        return self.slots[path.upper()]

    def inner(self, var, info) -> "Frame":
        """The frame of the FB instance ``var`` held by this one."""
        prefix = var.path.upper() + "."
        slots = {k[len(prefix):]: v for k, v in self.slots.items() if k.startswith(prefix)}
        args = {v.name.upper(): v.local for v in info.in_outs}
        return Frame(info, slots, self.globals, args, list(args.values()),
                     f"{self.name}__{var.path.replace('.', '__')}")


def leaf_frame(info, places: dict, name: str) -> Frame:
    """The frame of a POU's block placed in a network, ``places`` its outputs' and
    state's slots by name: its inputs are the function's arguments, an input the
    body writes is kept in its state (``x__KEPT``) from the call on."""
    slots = {k.upper(): v for k, v in places.items()}
    globals_ = {g.upper(): slots[g.upper()] for g in info.externals}
    kept = {v.name.upper() for v in info.kept_inputs}
    for v in info.kept_inputs:
        slots[v.name.upper()] = slots[kept_name(v.name).upper()]
    args = {v.name.upper(): v.local for v in info.inputs if v.name.upper() not in kept}
    return Frame(info, slots, globals_, args, [v.local for v in info.inputs], name)


class TableAccess:
    """A POU instance's function over the signal table (see the module docstring):
    ``defs`` collects the functions of the FB instances it holds, ``callees``
    the FUNCTIONs it calls (run by values)."""

    def __init__(self, frame: Frame, defs: list, callees: dict, top: bool):
        self.frame = frame
        self.info = frame.info
        self.defs = defs
        self.callees = callees
        self.top = top
        self.edge_inputs: list = []     # (Var, local or None) of each R_EDGE / F_EDGE input
        self.edges: dict = {}           # NAME -> local of an edge input's value this call
        self.cached: dict = {}          # NAME -> local holding a variable for the call

    def bind(self, emitter) -> None:
        info, frame = self.info, self.frame
        for v in info.inputs:
            if getattr(v.node, "edge", None) is None:
                continue
            # the edge's value this call: in the kept input's slot, else in a local
            kept = self.top and v.name.upper() in frame.slots
            self.edge_inputs.append((v, None if kept else v.local))
            if not kept:
                self.edges[v.name.upper()] = v.local
        for path in loop_variables(emitter.code):
            if self.storage(path) is not None:
                self.cached[path] = local_name(path)
        self.stored = summary(emitter.code).stored

    def storage(self, path: str):
        """The slot of an own variable kept in the table (None for the others)."""
        name = path.upper()
        if name in self.frame.args or name in self.edges:
            return None
        var = self.info.variables.get(name.split(".")[0])
        if var is None or var.section == "VAR_EXTERNAL":
            return None
        if "." in name and not isinstance(var.fb, LibraryFb):
            return None         # an inner instance's: its own function writes it
        return self.frame.slots.get(name)

    def var(self, v) -> str:
        path = v.path.upper()
        if path == "__CURRENT_TIME":
            return "now"
        local = self.cached.get(path) or self.edges.get(path)
        if local is not None:
            return local
        if v.section == "VAR_EXTERNAL":
            return self.at(self.frame.globals[v.name.upper()])
        arg = self.frame.args.get(path)
        if arg is not None:
            return arg
        return self.at(self.frame.slot(path))

    def at(self, slot: int) -> str:
        """The variable at ``slot`` as the code reads and writes it."""
        return f"s[{slot}]"

    def needs(self, info) -> None:
        self.callees[info.fn_name] = info

    def signature(self, name):
        return f"def {name}", ["s", "now"] + self.frame.params

    def prologue(self) -> list[str]:
        info, frame = self.info, self.frame
        out = []
        edged = {v.name.upper() for v, _local in self.edge_inputs}
        if self.top:        # a wire may bring a longer string than the input holds (a
            for v in info.inputs:   # STRING[200] into a STRING): cut as ST's call cuts it
                if v.type.capacity is not None:
                    out.append(f"{v.local} = {v.local}[:{v.type.capacity}]")
        if self.top:        # an input the body writes is the instance's from the call on
            for v in info.kept_inputs:
                if v.name.upper() not in edged:
                    value = _copied(v.local, v.type) if v.type.canonical.mutable else v.local
                    out.append(f"{self.at(frame.slot(v.name))} = {value}")
        for v, local in self.edge_inputs:      # TRUE in the call that sees the edge
            raw = v.local if self.top else self.at(frame.slot(v.name))
            last = self.at(frame.slot(f'{v.path}__{v.node.edge}'))
            value = f"_edge and not {last}" if v.node.edge == "R_EDGE" else f"{last} and not _edge"
            out.append(f"_edge = {raw}")
            out.append(f"{local or self.at(frame.slot(v.name))} = {value}")
            out.append(f"{last} = _edge")
        for v in fresh_variables(info):
            out.append(f"{self.at(frame.slot(v.path))} = {fresh_value(v.init, v.type)}")
        for path, local in self.cached.items():
            out.append(f"{local} = s[{frame.slot(path)}]")
        return out

    def guard(self) -> list[str]:
        """What the call writes back, a fault included: the variables held that the
        body may store to (an array's elements are stored in the table's own
        list, which the local holds too)."""
        return [f"s[{self.frame.slot(path)}] = {local}" for path, local in self.cached.items()
                if path in self.stored]

    def splittable(self) -> bool:
        """Whether the body may run as several functions: each can reach what it
        reads and writes, the table, and the call's arguments, which only the
        top function's body never writes (an inner instance's VAR_IN_OUTs are
        locals it hands back, a loop's variables are held in locals)."""
        return self.top and not self.cached

    def on_return(self) -> list[str]:
        return []

    def returning(self) -> str:
        values = [] if self.top else list(self.frame.args.values())
        return f"return ({', '.join(values)},)" if values else "return"

    def call_fb(self, s: ir.CallFb, emit) -> list[str]:
        inner = self.frame.inner(s.var, s.info)
        if inner.name not in {name for name, _src in self.defs}:
            self.defs.append((inner.name, None))      # its place, before its own inner ones
            at = len(self.defs) - 1
            access = TableAccess(inner, self.defs, self.callees, top=False)
            source = PyEmitter(s.info.code, access).function(inner.name)
            self.defs[at] = (inner.name, source)
        inouts = [emit.expr(p) for p in s.inouts]
        call = f"{inner.name}(s, now{''.join(', ' + p for p in inouts)})"
        return [f"{', '.join(inouts)}, = {call}" if inouts else call]


def loop_variables(code: ir.PouCode) -> list[str]:
    """The paths (upper case) of the variables any loop of ``code`` reads or writes."""
    found: dict = {}
    if not code.loops:
        return []
    for stmt in ir.walk(code.body):
        if not isinstance(stmt, ir.Loop):
            continue
        stack = [stmt]
        while stack:
            st = stack.pop()
            for e in ir.exprs_of(st):
                for node in ir.iter_exprs(e):
                    if isinstance(node, ir.Ref):
                        found.setdefault(node.var.path.upper(), None)
            for lst in ir.children(st):
                stack.extend(lst)
    return list(found)


def value_source(code: ir.PouCode, name: str, stepped: bool = False, stops=None):
    """(source, callees) of the POU's function by values (see the module docstring)."""
    access = ValueAccess(code.info)
    source = PyEmitter(code, access, stepped, stops).function(name)
    release(code)
    return source, access.callees


def table_source(info, places: dict, name: str, sink=None):
    """(sources, callees) of the functions of one POU instance over the table, each
    function's source apart: the parts of its body where it is long
    (:meth:`.PyEmitter.parts`), those of the FB instances it holds, then its own,
    named ``name`` and called ``name(s, now, <its inputs in order>)``. With a
    ``sink``, the parts are given to it as they are written, not returned."""
    defs: list = []
    callees: dict = {}
    access = TableAccess(leaf_frame(info, places, name), defs, callees, top=True)
    *parts, main = PyEmitter(info.code, access).functions(name, sink)
    release(info.code)
    return [*parts, *(src for _name, src in defs), main], callees


__all__ = ["ValueAccess", "TableAccess", "Frame", "leaf_frame", "value_source", "table_source",
           "fresh_variables", "fresh_value", "loop_variables"]
