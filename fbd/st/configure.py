"""Configurations: globals, resources, tasks, program instances and their
connections, and the VAR_EXTERNALs of what they instantiate."""

from __future__ import annotations

from . import ast as A
from .declare import check_type_spec, declare_block
from .errors import Reporter
from .symbols import Analysis, GlobalScope, Symbol, key

__all__ = ["check_configurations"]


def check_configurations(analysis: Analysis, report: Reporter) -> None:
    for config in analysis.unit.configurations:
        label = f"CONFIGURATION {config.name}"
        top = GlobalScope(label=label, node=config)
        analysis.scopes.append(top)
        for block in config.var_blocks:
            declare_block(analysis, block, top.symbols, report, label, "CONFIGURATION")
        names: dict[str, A.Resource] = {}
        for res in config.resources:
            res_label = f"RESOURCE {res.name}" if res.name else label
            if res.name is not None:
                if key(res.name) in names:
                    report.error(res, f"resource {res.name} is declared twice", label)
                names[key(res.name)] = res
            scope = GlobalScope(label=res_label, node=res, parent=top)
            analysis.scopes.append(scope)
            for block in res.var_blocks:
                symbols: dict[str, Symbol] = {}
                declare_block(analysis, block, symbols, report, res_label, "CONFIGURATION")
                for k, symbol in symbols.items():
                    if k in scope.symbols or k in top.symbols:
                        report.error(symbol.node, f"global {symbol.name} is declared twice", res_label)
                    else:
                        scope.symbols[k] = symbol
            _resource(analysis, res, scope, report, res_label)
        for init in config.var_config:
            check_type_spec(analysis, init.spec, report, label)
            if key(init.path[0]) not in names:
                report.error(init, f"VAR_CONFIG {'.'.join(init.path)}: no resource {init.path[0]}", label)


def _resource(analysis: Analysis, res: A.Resource, scope: GlobalScope, report: Reporter, label: str) -> None:
    for task in res.tasks:
        k = key(task.name)
        if k in scope.tasks:
            report.error(task, f"task {task.name} is declared twice", label)
        scope.tasks[k] = Symbol(task.name, "task", task, owner=label)
        for source in (task.single, task.interval):
            if source is not None:
                _source(analysis, source, scope, report, label)
        interval = task.interval
        if isinstance(interval, A.Literal):
            if interval.kind != "time":
                report.error(interval, "a task INTERVAL is a TIME (T#20ms)", label)
            elif interval.value <= 0:
                report.error(interval, "a task INTERVAL must be longer than zero", label)
    for prog in res.programs:
        k = key(prog.name)
        if k in scope.programs:
            report.error(prog, f"program instance {prog.name} is declared twice", label)
        scope.programs[k] = Symbol(prog.name, "program_instance", prog, owner=label)
        if prog.task is not None and key(prog.task) not in scope.tasks:
            report.error(prog, f"program {prog.name} runs WITH task {prog.task}, which this resource does "
                               f"not declare", label)
        found = analysis.globals.get(key(prog.type_name))
        if found is None or found.kind != "pou" or found.node.kind != "PROGRAM":
            what = f"the {found.describe()}" if found is not None else "not declared"
            report.error(prog, f"{prog.type_name} is {what}: a program instance needs a PROGRAM type"
                         if found is not None else f"PROGRAM {prog.type_name} is not declared", label)
            continue
        inner = analysis.pous.get(key(prog.type_name))
        _connections(analysis, prog, inner, scope, report, label)
        _externals(analysis, inner, scope, report, label, seen=set())


def _source(analysis: Analysis, value, scope: GlobalScope, report: Reporter, label: str) -> None:
    if isinstance(value, A.Name):
        if scope.lookup(value.name) is None:
            report.error(value, f"{value.name} is not a global variable of this configuration", label)
        else:
            analysis.resolved[value] = scope.lookup(value.name)
    elif isinstance(value, A.DirectVar) and value.text.upper() not in analysis.addresses:
        report.error(value, f"{value.text} is not declared with AT", label)


def _connections(analysis: Analysis, prog: A.ProgramInstance, inner, scope: GlobalScope, report: Reporter,
                 label: str) -> None:
    for c in prog.connections:
        param = c.parameter
        if not isinstance(param, A.Name):
            report.error(param, "a connection names an input or output of the program", label)
            continue
        symbol = inner.symbols.get(key(param.name))
        wanted = "VAR_OUTPUT" if c.output else "VAR_INPUT"
        if symbol is None or symbol.section not in (wanted, "VAR_IN_OUT"):
            report.error(param, f"PROGRAM {prog.type_name} has no {'output' if c.output else 'input'} "
                                f"{param.name}", label)
        else:
            analysis.resolved[param] = symbol
        _source(analysis, c.value, scope, report, label)
    for fb_task in prog.fb_tasks:
        symbol = inner.symbols.get(key(fb_task.fb))
        if symbol is None or not symbol.is_fb_instance:
            report.error(fb_task, f"{fb_task.fb} is not an FB instance of PROGRAM {prog.type_name}", label)
        if key(fb_task.task) not in scope.tasks:
            report.error(fb_task, f"no task {fb_task.task} in this resource", label)


def _externals(analysis: Analysis, inner, scope: GlobalScope, report: Reporter, label: str,
               seen: set) -> None:
    """Each VAR_EXTERNAL of this POU and of the user FBs it holds names a
    global of the resource or configuration (CONSTANT if the global is)."""
    if inner is None or key(inner.pou.name) in seen:
        return
    seen.add(key(inner.pou.name))
    for symbol in inner.symbols.values():
        if symbol.kind != "variable":
            continue
        if symbol.section == "VAR_EXTERNAL":
            glob = scope.lookup(symbol.name)
            where = f"{inner.label}, instantiated in {label}"
            if glob is None:
                report.error(symbol.node, f"VAR_EXTERNAL {symbol.name} has no VAR_GLOBAL of that name in "
                                          f"{label} or its configuration ({where})", inner.label)
            else:
                if glob.is_constant and not symbol.is_constant:
                    report.error(symbol.node, f"{symbol.name} is a CONSTANT global: declare it "
                                              "VAR_EXTERNAL CONSTANT", inner.label)
                mine, theirs = _spelled(symbol.type), _spelled(glob.type)
                if mine != theirs:
                    report.error(symbol.node, f"VAR_EXTERNAL {symbol.name} : {mine} does not match its "
                                              f"VAR_GLOBAL : {theirs}", inner.label)
        if symbol.is_fb_instance:
            _externals(analysis, analysis.pous.get(key(symbol.fb_type)), scope, report, label, seen)


def _spelled(spec) -> str:
    if isinstance(spec, A.NamedType):
        return spec.name.upper()
    return A.dump(spec).upper()
