"""The tree-building rules of instruction lists, charts and configurations
(a part of :class:`~fbd.st.transform.AstBuilder`, which lark calls at each
reduction: IL instructions, SFC steps, transitions and actions, and
CONFIGURATION / RESOURCE / TASK / PROGRAM elements)."""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token

from . import ast as A
from . import literals as lit
from .positions import at, literal_from_token, pos, value_of

_IL_OPERATORS = {"AMP": "AND", "AMP_N": "ANDN"}
_IL_NODES = (A.IlLabel, A.IlOp, A.IlDeferred, A.IlFunction, A.IlFormalCall, A.IlCall,
             A.IlJump, A.IlReturn, A.Pragma)


# Markers that only live until their parent rule is reduced.
@dataclass(frozen=True, slots=True)
class _Qualifier:
    name: str
    time: object


@dataclass(frozen=True, slots=True)
class _Priority:
    value: int


@dataclass(frozen=True, slots=True)
class _Steps:
    names: tuple


@dataclass(frozen=True, slots=True)
class _TaskValue:
    which: str
    value: object


@dataclass(frozen=True, slots=True)
class _VarConfig:
    inits: tuple


class ProgramRules:
    """IL, SFC and configuration rules; they use the builder's ``_nested``."""

    # -- IL ---------------------------------------------------------------------
    def il_label(self, ch):
        return A.IlLabel(name=str(ch[0]), **at(ch[0]))

    def il_op(self, ch):
        op = ch[0]
        return A.IlOp(op=_IL_OPERATORS.get(op.type, op.type), operands=tuple(ch[1:]), **at(op))

    def il_deferred(self, ch):
        op = ch[0]
        operand = None
        rest = ch[1:]
        if rest and not isinstance(rest[0], _IL_NODES):
            operand, rest = rest[0], rest[1:]
        node = A.IlDeferred(op=_IL_OPERATORS.get(op.type, op.type), operand=operand,
                            body=tuple(rest), **at(op))
        return self._nested(node, rest)

    def il_function(self, ch):
        return A.IlFunction(name=str(ch[0]), operands=tuple(ch[1:]), **at(ch[0]))

    def il_formal_call(self, ch):
        name = ch[0]
        spelled = str(name) if name.type == "IDENT" else _IL_OPERATORS.get(name.type, name.type)
        args = tuple(ch[1:])
        return self._nested(A.IlFormalCall(name=spelled, args=args, **at(name)), args)

    def il_call(self, ch):
        op, fb = ch[0], ch[1]
        args: list = []
        for c in ch[2:]:
            if isinstance(c, tuple):
                args.extend(c)
            else:
                args.append(c)
        return self._nested(A.IlCall(op=op.type, fb=str(fb), args=tuple(args), **at(op)), args)

    def il_operands(self, ch):
        return tuple(A.IlArg(name=None, value=c, **pos(c)) for c in ch)

    def il_input(self, ch):
        name = ch[0]
        rest = ch[1:]
        if len(rest) == 1 and not isinstance(rest[0], _IL_NODES):
            return A.IlArg(name=str(name), value=rest[0], **at(name))
        node = A.IlArg(name=str(name), value=None, body=tuple(rest), **at(name))
        return self._nested(node, rest)

    def il_output(self, ch):
        negated = len(ch) == 3
        name, target = ch[-2], ch[-1]
        return A.IlArg(name=str(name), value=target, output=True, negated=negated, **at(ch[0]))

    def il_jump(self, ch):
        return A.IlJump(op=ch[0].type, label=str(ch[1]), **at(ch[0]))

    def il_return(self, ch):
        return A.IlReturn(op=ch[0].type, **at(ch[0]))

    # -- SFC ----------------------------------------------------------------------
    def step(self, ch):
        kw, name = ch[0], ch[1]
        return A.Step(name=str(name), initial=kw.type == "INITIAL_STEP", actions=tuple(ch[2:]), **at(kw))

    def action_association(self, ch):
        name = ch[0]
        qualifier = None
        time = None
        rest = ch[1:]
        if rest and isinstance(rest[0], _Qualifier):
            qualifier, time = rest[0].name, rest[0].time
            rest = rest[1:]
        return A.ActionAssociation(action=str(name), qualifier=qualifier, time=time,
                                   indicators=tuple(rest), **at(name))

    def plain_qualifier(self, ch):
        return _Qualifier(ch[0].type, None)

    def timed_qualifier(self, ch):
        qualifier, time = ch
        if isinstance(time, Token):
            time = literal_from_token(time)
        return _Qualifier(qualifier.type, time)

    def transition(self, ch):
        kw = ch[0]
        name = None
        priority = None
        steps = []
        condition = None
        for c in ch[1:]:
            if isinstance(c, Token):
                name = str(c)
            elif isinstance(c, _Priority):
                priority = c.value
            elif isinstance(c, _Steps):
                steps.append(c.names)
            else:
                condition = c
        node = A.Transition(name=name, priority=priority, sources=steps[0], targets=steps[1],
                            condition=condition, **at(kw))
        return self._nested(node, (condition,))

    def transition_priority(self, ch):
        return _Priority(lit.integer(str(ch[1])))

    def steps(self, ch):
        return _Steps(tuple(str(c) for c in ch))

    def il_condition(self, ch):
        instructions = tuple(ch[1:])
        return self._nested(A.IlBody(instructions=instructions, **pos(instructions[0])), instructions)

    def action(self, ch):
        kw, name, body = ch
        return self._nested(A.Action(name=str(name), body=body, **at(kw)), (body,))

    # -- configuration ------------------------------------------------------------
    def configuration(self, ch):
        name = ch[0]
        blocks, resources, tasks, programs, var_config = [], [], [], [], ()
        for c in ch[1:]:
            if isinstance(c, A.VarBlock):
                blocks.append(c)
            elif isinstance(c, A.Resource):
                resources.append(c)
            elif isinstance(c, A.Task):
                tasks.append(c)
            elif isinstance(c, A.ProgramInstance):
                programs.append(c)
            elif isinstance(c, _VarConfig):
                var_config = c.inits
        if programs:   # the single-resource form: tasks and programs directly in the configuration
            resources.append(A.Resource(name=None, processor=None, var_blocks=(), tasks=tuple(tasks),
                                        programs=tuple(programs), **pos(tasks[0] if tasks else programs[0])))
        return A.Configuration(name=str(name), var_blocks=tuple(blocks), resources=tuple(resources),
                               var_config=var_config, **at(name))

    def resource(self, ch):
        name, processor = ch[0], ch[1]
        blocks = tuple(c for c in ch[2:] if isinstance(c, A.VarBlock))
        tasks = tuple(c for c in ch[2:] if isinstance(c, A.Task))
        programs = tuple(c for c in ch[2:] if isinstance(c, A.ProgramInstance))
        return A.Resource(name=str(name), processor=str(processor), var_blocks=blocks, tasks=tasks,
                          programs=programs, **at(name))

    def task(self, ch):
        name = ch[0]
        single = interval = None
        for c in ch[1:]:
            if isinstance(c, _TaskValue):
                if c.which == "SINGLE":
                    single = c.value
                else:
                    interval = c.value
        priority = lit.integer(str(ch[-1]))
        return A.Task(name=str(name), single=single, interval=interval, priority=priority, **at(name))

    def task_single(self, ch):
        return _TaskValue("SINGLE", value_of(ch[1]))

    def task_interval(self, ch):
        return _TaskValue("INTERVAL", value_of(ch[1]))

    def program_config(self, ch):
        retain = None
        names = []
        connections, fb_tasks = [], []
        for c in ch[1:]:
            if isinstance(c, Token):
                if c.type in ("RETAIN", "NON_RETAIN"):
                    retain = c.type
                else:
                    names.append(c)
            elif isinstance(c, A.FbTask):
                fb_tasks.append(c)
            else:
                connections.append(c)
        name, type_name = names[0], names[-1]
        task = str(names[1]) if len(names) == 3 else None
        return A.ProgramInstance(name=str(name), type_name=str(type_name), task=task, retain=retain,
                                 connections=tuple(connections), fb_tasks=tuple(fb_tasks), **at(name))

    def fb_task(self, ch):
        return A.FbTask(fb=str(ch[0]), task=str(ch[1]), **at(ch[0]))

    def connection_in(self, ch):
        return A.Connection(parameter=ch[0], value=value_of(ch[1]), **pos(ch[0]))

    def connection_out(self, ch):
        return A.Connection(parameter=ch[0], value=ch[1], output=True, **pos(ch[0]))

    def var_config(self, ch):
        return _VarConfig(tuple(ch))

    def config_init(self, ch):
        path = []
        i = 0
        while isinstance(ch[i], Token):
            path.append(str(ch[i]))
            i += 1
        location = None
        if isinstance(ch[i], A.DirectVar):
            location = ch[i]
            i += 1
        spec = ch[i]
        init = ch[i + 1] if len(ch) > i + 1 else None
        return A.ConfigInit(path=tuple(path), location=location, spec=spec, init=init, **at(ch[0]))
