"""ST POUs compiled to block types: the public compiler API.

::

    from fbd.st import parse, compile_unit
    blocks = compile_unit(parse(text, "prog.st"))      # {POU name: Block subclass}
    counter = blocks["Counter"]()                      # a block, placed like any other

``compile_unit(unit, *, filename=None, library=None, types=None, extra_blocks=None)``
compiles every POU of a :class:`~fbd.st.ast.CompilationUnit` and returns a
dict (a :class:`CompiledUnit`) of POU name -> Block subclass, in source order;
``.errors`` maps the POUs that cannot be blocks to why (a POU with VAR_IN_OUT
can be called from ST but has no block form: a wire cannot be written back),
``.infos`` the :class:`~fbd.st.model.PouInfo` of each (interface, state,
the body in the engines' form in ``.code``, :mod:`fbd.st.ir`). A problem in the source raises
:class:`~fbd.st.errors.StSemanticError` naming file:line:col and POU. The unit's
analysis (``.context.analysis``) keeps its declarations but not what each use of a
name denotes (a map of every use, let go once the bodies are compiled):
:func:`fbd.st.analyze` gives that.

* ``filename``: for messages (default ``unit.filename``).
* ``library``: the :class:`fbd.st.stdlib.Library` the semantic layer checks
  calls against (default :data:`fbd.st.STANDARD`); the engine's blocks
  (``fbd.block.registry()``) are what runs.
* ``types``: ``{NAME: DataType}`` of types declared elsewhere (a PLCopen file's
  dataTypes), usable by name in the unit.
* ``extra_blocks``: ``{name: Block subclass or instance}``: blocks an ST body
  may call or instantiate by name beyond the library (a function when not
  ``stateful``, else an FB type). A :class:`fbd.network.Network` (an FBD POU)
  cannot be called from ST: refused with a clear error.

``compile_pou(pou, context)`` compiles one POU with a :class:`Context`
(``Context(unit, ...)`` takes the same keywords) and returns its block type.

Pipeline: IL bodies are lowered with :func:`fbd.st.lower_il.lower_il` and SFC
bodies with :func:`fbd.st.lower_sfc.lower_sfc` first (``lower_xx(pou, unit,
filename)`` returns the Pou with an StBody, or ``(pou, extra_type_decls)``
when the lowering needs TYPE declarations of its own, which are added to the
unit), then :func:`fbd.st.analyze`, then the type check and code generation
here, which writes each body down in the engines' form (:mod:`fbd.st.ir`);
the engines make their code from it when they need it
(:mod:`fbd.st.procedure`). The lowered body may read ``__CURRENT_TIME``
(TIME, the PLC clock).

A block's ports: VAR_INPUT -> inputs (their initial value the default of an
unwired input), VAR_OUTPUT -> outputs (the function's result is the output
``OUT``, as PLCopen editors name it), in a PROGRAM a variable ``AT %I..`` is an
input and ``AT %Q..``/``%M..`` an output, and its VAR_INPUTs are state (a
program's input keeps what its body writes into it, as in matiec); everything else it keeps is state,
visible by path: ``VAR x`` as ``inst.x``, an FB instance's variables as
``inst.T1.Q``, globals as ``inst.G`` (bound to the configuration's globals by
:mod:`fbd.st.project`).
"""

from __future__ import annotations

import copy as _copy
import itertools
import re

from .. import types as t
from .. import values as fv
from ..block import Block, Port, State, registry
from ..errors import FbdError
from . import ast as A
from .body import BodyCompiler
from .errors import StSemanticError
from .model import (
    LibraryFb,
    PouInfo,
    StateEntry,
    Var,
    eno_path,
    global_local,
    kept_name,
    library_fb_usable,
    local_name,
)
from .procedure import LazyHelpers, PouProcedure
from .semantic import analyze
from .stdlib import STANDARD
from .typemap import TypeMap, declarations, elementary

_COUNTER = itertools.count()
#: the qualifiers that say whether a variable survives a restart (docs/retain.md)
RETENTIVE = ("RETAIN", "NON_RETAIN", "PERSISTENT")
_TYPED = re.compile(r"^(\w+?)_(BOOL|SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD|"
                    r"REAL|LREAL|TIME|DATE|TOD|DT|STRING)$")


class CompiledUnit(dict):
    """POU name -> Block subclass; ``errors``: POU name -> why it has no block."""

    def __init__(self):
        super().__init__()
        self.errors: dict[str, FbdError] = {}
        self.infos: dict[str, PouInfo] = {}


class Context:
    """What compiling a unit's POUs shares: its types, analysis, compiled POUs."""

    def __init__(self, unit: A.CompilationUnit, *, filename: str | None = None, library=None,
                 types: dict | None = None, extra_blocks: dict | None = None):
        self.filename = filename or unit.filename
        extra_types = {k.upper(): v for k, v in (types or {}).items()}
        declared = {d.name.upper() for d in unit.types}
        given = declarations({k: v for k, v in (types or {}).items() if k.upper() not in declared})
        if given:
            unit = A.CompilationUnit(filename=unit.filename, elements=given + unit.elements,
                                     source=unit.source, line=unit.line, col=unit.col)
        # an SFC body's steps and transitions, kept for the debugger (fbd.st.chart)
        self.charts = {p.name.upper(): p.body for p in unit.pous if isinstance(p.body, A.SfcBody)}
        unit = lower_bodies(unit, self.filename)
        self.unit = unit
        self.analysis = analyze(unit, library=library if library is not None else STANDARD)
        self.current_pou: str | None = None     # named in the errors of types and values
        self.types = TypeMap(unit, self.fail_at, extra_types)
        self.blocks = registry()
        self.extra = {k.upper(): v for k, v in (extra_blocks or {}).items()}
        self.pou_nodes = {p.name.upper(): p for p in unit.pous}
        self.infos: dict[str, PouInfo] = {}
        self._compiling: list[str] = []
        self._block_cache: dict = {}
        self._ports: dict[int, tuple] = {}

    def fail_at(self, node, message: str, pou: str | None = None):
        raise StSemanticError(message, filename=self.filename, line=getattr(node, "line", 0),
                              col=getattr(node, "col", 0), pou=pou or self.current_pou,
                              source=self.unit.source)

    # -- library ------------------------------------------------------------
    def block(self, cls, bound: dict, n, node, compiler):
        key = (cls, tuple(sorted([(k, id(v)) for k, v in bound.items()])) if bound else (), n)
        found = self._block_cache.get(key)
        if found is None:
            try:
                found = cls(types=bound or None, n=n) if n is not None else cls(types=bound or None)
            except FbdError as e:
                compiler.fail(node, f"{cls.type_name}: {e}")
            self._block_cache[key] = found
        return found

    def ports(self, block) -> tuple[tuple[str, ...], tuple[tuple[str, object], ...]]:
        """(input names, (output name, type) pairs) of a block of :meth:`block`,
        worked out once per block rather than at each of its uses."""
        found = self._ports.get(id(block))
        if found is None:
            outputs = tuple((p.name, block.bound_types.get(p.type) if isinstance(p.type, str) else p.type)
                            for p in block.output_ports())
            found = self._ports[id(block)] = (tuple(p.name for p in block.input_ports()), outputs)
        return found

    def library_function(self, name: str):
        key = name.upper()
        extra = self.extra.get(key)
        if extra is not None:
            cls = extra if isinstance(extra, type) else type(extra)
            return (cls, dict(getattr(extra, "bound_types", {}))) if not cls.stateful else (None, None)
        cls = self.blocks.get(key)
        if cls is not None and not cls.stateful:
            return cls, {}
        m = _TYPED.match(key)
        if m is not None:
            base = self.blocks.get(m.group(1))
            tp = elementary(m.group(2))
            if base is not None and not base.stateful and base.types and tp is not None:
                return base, {next(iter(base.types)): tp}
        return None, None

    def fb_type(self, name: str, node, pou_label: str):
        """The PouInfo or LibraryFb of an FB type name, or None if it is not one."""
        key = name.upper()
        if key in self.pou_nodes:
            if self.pou_nodes[key].kind != "FUNCTION_BLOCK":
                return None
            return self.pou_info(name, node, None)
        extra = self.extra.get(key)
        if extra is not None:
            from ..network import Network
            if isinstance(extra, Network):
                self.fail_at(node, f"{name} is a network (an FBD or LD POU); ST cannot hold an "
                                   f"instance of one here", pou_label)
            block = extra() if isinstance(extra, type) else extra
            if block.stateful:
                return LibraryFb(name, block)
            return None
        cls = self.blocks.get(key)
        if cls is None or not cls.stateful:
            return None
        try:
            block = cls()
        except FbdError as e:
            self.fail_at(node, f"{name}: {e}", pou_label)
        why = library_fb_usable(block)
        if why is not None:
            self.fail_at(node, f"{name} {why}; it cannot be an instance in ST", pou_label)
        return LibraryFb(cls.type_name, block)

    # -- POUs ---------------------------------------------------------------
    def pou_info(self, name: str, node, compiler) -> PouInfo | None:
        key = name.upper()
        if key in self.infos:
            return self.infos[key]
        pou = self.pou_nodes.get(key)
        if pou is None:
            if key in self.extra and compiler is not None:
                from ..network import Network
                if isinstance(self.extra[key], Network):
                    compiler.fail(node, f"{name} is a network (an FBD or LD POU); ST cannot call "
                                        f"it here")
            return None
        if key in self._compiling:
            chain = " -> ".join(self._compiling[self._compiling.index(key):] + [key])
            self.fail_at(node, f"{pou.kind} {pou.name} uses itself ({chain}); IEC 61131-3 "
                               f"has no recursion")
        self._compiling.append(key)
        outer, self.current_pou = self.current_pou, f"{pou.kind} {pou.name}"
        try:
            info = self._compile(pou)
        finally:
            self._compiling.pop()
            self.current_pou = outer
        self.infos[key] = info
        return info

    def need(self, info: PouInfo, compiler) -> None:
        """``compiler``'s POU calls ``info``'s (the IR names its callees)."""

    def _compile(self, pou: A.Pou) -> PouInfo:
        info = declare(self, pou)
        body = BodyCompiler(self, info)
        body.statements(pou.body.statements)
        info.code = body.finish()
        info.blocks_used = body.blocks_used
        info.st_source = self.unit.source
        info.context = self
        if pou.name.upper() in self.charts:
            from .chart import chart_of
            info.chart = chart_of(self.charts[pou.name.upper()])
        return info


def lower_bodies(unit: A.CompilationUnit, filename: str) -> A.CompilationUnit:
    """The unit with every IL and SFC body as ST (see the module docstring)."""
    if all(isinstance(p.body, A.StBody) for p in unit.pous):
        return unit
    from .lower_il import lower_il
    from .lower_sfc import lower_sfc
    elements, extra_types = [], []
    for e in unit.elements:
        if isinstance(e, A.Pou) and not isinstance(e.body, A.StBody):
            lowered = (lower_il if isinstance(e.body, A.IlBody) else lower_sfc)(e, unit, filename)
            if isinstance(lowered, tuple):
                lowered, types = lowered
                extra_types += list(types)
            e = lowered
        elements.append(e)
    return A.CompilationUnit(filename=unit.filename, elements=tuple(extra_types) + tuple(elements),
                             source=unit.source, line=unit.line, col=unit.col)


# ---------------------------------------------------------------- declarations
def declare(ctx: Context, pou: A.Pou) -> PouInfo:
    info = PouInfo(pou.name, pou.kind, pou, fn_name=f"_st_{next(_COUNTER)}_{pou.name}")
    label = info.label
    if pou.kind == "FUNCTION":
        info.result_type = ctx.types.spec(pou.return_type) if pou.return_type is not None else None
        if info.result_type is None:
            ctx.fail_at(pou, "a FUNCTION without a result type is not supported (matiec refuses it "
                             "too)", label)
    eno_read = {n.base.name.upper() for n in A.iter_nodes(pou) if isinstance(n, A.Member)
                and n.member.upper() == "ENO" and isinstance(n.base, A.Name)}
    for vb in pou.var_blocks:
        retain = vb.qualifier if vb.qualifier in RETENTIVE else None
        for d in vb.decls:
            name = d.name if d.name is not None else "AT_" + re.sub(r"\W", "_", d.location.text[1:])
            section = vb.kind
            fb = None
            if isinstance(d.spec, A.NamedType) and elementary(d.spec.name) is None \
                    and d.spec.name.upper() not in ctx.types.decls \
                    and d.spec.name.upper() not in ctx.types.made:
                fb = ctx.fb_type(d.spec.name, d.spec, label)
                if fb is None:
                    ctx.fail_at(d.spec, f"{d.spec.name} is neither a data type nor a function "
                                        f"block type", label)
            if fb is not None:
                var = Var(name, name, local_name(name), None, section, fb=fb, node=d)
                info.variables[name.upper()] = var
                entries = fb.flat()
                overrides = {}
                if isinstance(d.init, A.StructInit):
                    for f in d.init.fields:
                        overrides[f.name.upper()] = f
                for e in entries:
                    init = e.init
                    f = overrides.pop(e.path.upper(), None)
                    if f is not None:
                        init = ctx.types.initial(f.value, e.type)
                    # the instance's own qualifiers win; the rest are the section's
                    info.state.append(StateEntry(f"{name}.{e.path}", e.type, init,
                                                 e.retain or retain))
                if name.upper() in eno_read and not _has_eno(fb):
                    info.state.append(StateEntry(eno_path(name), t.BOOL, True, retain))
                if overrides:
                    f = next(iter(overrides.values()))
                    ctx.fail_at(f, f"{d.spec.name} has no variable {f.name} to initialise", label)
                if isinstance(fb, PouInfo):
                    for g, gtp in fb.externals.items():
                        info.externals.setdefault(g, gtp)
                continue
            if d.edge is not None and pou.kind != "FUNCTION_BLOCK":
                ctx.fail_at(d, f"{d.edge} inputs are supported in a FUNCTION_BLOCK only; detect "
                               f"the edge with an R_TRIG or F_TRIG instance", label)
            tp = ctx.types.spec(d.spec)
            init = ctx.types.initial(d.init, tp) if d.init is not None else tp.default
            local = global_local(name) if section == "VAR_EXTERNAL" else local_name(name)
            var = Var(name, name, local, tp, section, init=init,
                      constant=vb.qualifier == "CONSTANT", node=d, retain=retain)
            info.variables[name.upper()] = var
            area = d.location.area.upper() if d.location is not None else None
            if section in ("VAR_INPUT", "VAR_IN_OUT") and pou.kind == "PROGRAM" and area is None:
                # a program's input is its own variable (matiec keeps what the body
                # writes into it); set it from outside by its path
                info.state.append(StateEntry(name, tp, init, retain))
            elif section == "VAR_INPUT" or area == "I":
                info.inputs.append(var)
                if d.edge is not None:      # the input's value of the last call
                    info.state.append(StateEntry(f"{name}__{d.edge}", t.BOOL, False))
            elif section == "VAR_OUTPUT" or area in ("Q", "M"):
                info.outputs.append(var)
                if pou.kind != "FUNCTION":
                    info.state.append(StateEntry(name, tp, init, retain))
            elif section == "VAR_IN_OUT":
                info.in_outs.append(var)
            elif section == "VAR_EXTERNAL":
                info.externals[name.upper()] = tp
            elif section in ("VAR", "VAR_TEMP") and pou.kind != "FUNCTION":
                # VAR_TEMP too, to be seen by path: each call starts it afresh, so
                # nothing of it is retained whatever holds it
                info.state.append(StateEntry(name, tp, init,
                                             "NON_RETAIN" if section == "VAR_TEMP" else retain))
    if pou.kind == "FUNCTION":
        var = Var(pou.name, pou.name, local_name(pou.name), info.result_type, "RESULT",
                  init=info.result_type.default)
        info.variables.setdefault(pou.name.upper(), var)
    return info


def _has_eno(fb) -> bool:
    """Whether an FB type declares ENO itself (an output of one's own FB)."""
    if isinstance(fb, LibraryFb):
        return fb.member_name("ENO") is not None
    return fb.member("ENO") is not None


# ---------------------------------------------------------------- block types
def block_type(info: PouInfo, global_starts: dict | None = None) -> type[Block]:
    """The block type of a compiled POU (see the module docstring); a VAR_EXTERNAL
    starts at ``global_starts[NAME]``, its global's initial value, where given."""
    if info.in_outs:
        raise FbdError(f"{info.label} has VAR_IN_OUT {info.in_outs[0].name}: it can be called "
                       f"from ST, but a block's wire cannot be written back, so it has no block form")
    # an unwired input's default is given as a user gives a value, which the network
    # checks and turns into the run-time one: a TIME or date as its literal, whose ns a
    # timedelta would lose
    ins = [Port(v.name, v.type, default=fv.format_value(v.type, v.init)
                if v.type.kind in fv.DATES or v.type.kind is fv.Kind.TIME
                else v.type.to_python(v.init)) for v in info.inputs]
    if info.kind == "FUNCTION":
        outs = [Port("OUT", info.result_type, doc="the function's result")]
        outs += [Port(v.name, v.type) for v in info.outputs]
        states = []
    else:
        outs = [Port(v.name, v.type, default=v.init) for v in info.outputs]
        out_names = {v.name for v in info.outputs}
        starts = global_starts or {}
        states = [State(g, tp, init=_init(starts.get(g.upper(), tp.default)))
                  for g, tp in info.externals.items()]
        states += [State(e.path, e.type, init=_init(e.init)) for e in info.state
                   if e.path not in out_names]
    # the instance's own value of each input its body writes (Block.kept_inputs)
    kept = {v.name: kept_name(v.name) for v in info.kept_inputs}
    states += [State(kept[v.name], v.type, init=_init(v.init),
                     doc=f"{v.name} as the instance keeps it (the body writes it)")
               for v in info.kept_inputs]
    fn_name = info.fn_name
    in_names = [v.name for v in info.inputs]
    # a wire may bring a longer string than the input holds (a STRING[200] into a
    # STRING): the call passes it cut, as ST's call does (the table's form: pyaccess)
    cut = {v.name: f"[:{v.type.capacity}]" for v in info.inputs if v.type.capacity is not None}
    if info.kind == "FUNCTION":
        back = ["OUT"] + [v.name for v in info.outputs]
        extra = []
    else:
        extra = list(info.externals) + [e.path for e in info.state]
        back = list(kept.values()) + list(info.externals) + [e.path for e in info.state]

    def code(self, io):
        # by the names' table: a variable may be called like an IO attribute (n, p, now)
        place = io._names
        args = ", ".join([io.now] + [place[n] + cut.get(n, "") for n in in_names]
                         + [place[n] for n in extra])
        targets = [place[n] for n in back]
        if info.kind == "FUNCTION" and len(targets) == 1:
            return f"{targets[0]} = {fn_name}({args})"
        return f"{', '.join(targets)}, = {fn_name}({args})" if targets else f"{fn_name}({args})"

    def st(self, types):
        # a POU loaded from a file carries its text (st_file, or plcopen_source: fbd.plcopen.carry)
        # and the export writes that; compiled from a string, there is no file to write
        raise FbdError(f"{info.label} is compiled from Structured Text given as a string: "
                       f"export it from a .st file (fbd.load(\"prog.st\")) so its text "
                       f"can be written")

    retain = {e.path: e.retain for e in info.state if e.retain is not None}
    doc = f"{info.label}, compiled from Structured Text."
    return type(info.name, (Block,), {
        "__doc__": doc, "type_name": info.name, "family": "st", "inputs": ins, "outputs": outs,
        "state": states, "helpers": LazyHelpers(info), "stateful": info.kind != "FUNCTION",
        "kept_inputs": kept, "retain": retain, "procedure": PouProcedure(info),
        "code": code, "st": st, "st_info": info, "__module__": __name__})


def _init(value):
    if isinstance(value, list):
        return lambda *_args: _copy.deepcopy(value)
    return value


def _global_starts(ctx: Context) -> dict:
    """NAME -> initial value of the configuration's globals: a PROGRAM run alone
    (without its configuration) starts its VAR_EXTERNALs from them, as it does
    when the configuration binds them."""
    starts = {}
    for conf in ctx.unit.configurations[:1]:
        blocks = list(conf.var_blocks) + [vb for res in conf.resources for vb in res.var_blocks]
        for vb in blocks:
            for d in vb.decls:
                if d.name is not None and d.init is not None:
                    try:
                        starts[d.name.upper()] = ctx.types.initial(d.init, ctx.types.spec(d.spec))
                    except FbdError:     # the configuration reports its own errors
                        continue
    return starts


# ---------------------------------------------------------------- the API
def compile_pou(pou: A.Pou, context: Context) -> type[Block]:
    """The block type of one POU of ``context``'s unit."""
    return block_type(context.pou_info(pou.name, pou, None))


def compile_unit(unit: A.CompilationUnit, *, filename: str | None = None, library=None,
                 types: dict | None = None, extra_blocks: dict | None = None) -> CompiledUnit:
    """Every POU of ``unit`` as a block type (see the module docstring)."""
    ctx = Context(unit, filename=filename, library=library, types=types, extra_blocks=extra_blocks)
    out = CompiledUnit()
    out.context = ctx
    starts = _global_starts(ctx)
    for pou in ctx.unit.pous:
        info = ctx.pou_info(pou.name, pou, None)
        out.infos[pou.name] = info
        try:
            out[pou.name] = block_type(info, starts)
        except FbdError as e:
            out.errors[pou.name] = e
    # every body is now in the engines' form, which names its variables itself: the
    # map from each name in the source to its symbol (a dict of every use, 450,000
    # entries for 100,000 statements) has served
    ctx.analysis.resolved = {}
    return out


__all__ = ["compile_unit", "compile_pou", "Context", "CompiledUnit", "block_type", "lower_bodies",
           "kept_name"]
