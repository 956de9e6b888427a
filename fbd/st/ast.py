"""The syntax tree of IEC 61131-3 textual programs (ST, IL, SFC, declarations).

Every node is a frozen dataclass carrying ``line`` and ``col`` (1-based, the
first character of the construct in its source file). Nodes compare by
identity, so they can key dictionaries (the semantic layer does); compare
shapes with :func:`fbd.st.dump`. Sequences are tuples. Names keep their
spelling; IEC identifiers are case-insensitive, so compare ``name.upper()``
(the semantic layer does this everywhere). Types are referred to *by name*:
``NamedType("INT")``, ``NamedType("MyEnum")``; the engine's type objects come
later, from whoever compiles the tree.

The shape, top down::

    CompilationUnit(filename, elements)         elements in source order:
      TypeDecl(name, spec, init)                  TYPE ... END_TYPE, one per type
      Pou(kind, name, return_type, var_blocks, body)
                                                  kind: FUNCTION | FUNCTION_BLOCK | PROGRAM
      Configuration(name, var_blocks, resources, var_config)

    VarBlock(kind, qualifier, decls)            kind: VAR VAR_INPUT VAR_OUTPUT VAR_IN_OUT
                                                  VAR_TEMP VAR_GLOBAL VAR_EXTERNAL;
                                                  qualifier: CONSTANT RETAIN NON_RETAIN PERSISTENT
                                                  or None
      VarDecl(name, spec, init, location, edge, extensible)
                                                  one per name ("a, b : INT" gives two that
                                                  share spec and init); name is None for an
                                                  anonymous "AT %QX0.0 : BOOL"; edge R_EDGE/F_EDGE;
                                                  extensible: matiec's library "IN 1 .." inputs

    type specs   NamedType(name)      elementary names upper-cased, TIME_OF_DAY -> TOD,
                                      DATE_AND_TIME -> DT; user types as written
                 StringType(wide, length)             STRING[20], WSTRING[8]
                 SubrangeType(base, range)            INT (0..100)
                 EnumType(members)                    (RED, GREEN)
                 ArrayType(ranges, element)           ARRAY [1..3, 0..1] OF REAL
                 StructType(members)                  STRUCT ... END_STRUCT (VarDecls)
                 Subrange(low, high)                  integer bounds
    initial values: an expression (a literal, an enumerated value, ...),
                 ArrayInit(items: ArrayInitItem(count, value)), StructInit(fields: FieldInit)

    bodies       StBody(statements)                   Pou.language says which: ST, IL, SFC
                 IlBody(instructions)
                 SfcBody(steps, transitions, actions)  each in source order; an action's body
                                                       is any of the three

    statements   Assign(target, value)           Invoke(name, args)   FB instance or function
                 If(branches: Branch(condition, body), else_body)
                 Case(selector, branches: CaseBranch(labels, body), else_body)
                     labels: Literal (integer), Subrange, Name (enumerated value), EnumLiteral
                 For(variable, start, end, step, body)   While(condition, body)
                 Repeat(body, condition)   Exit()   Continue()   Return()
                 Pragma(text)       a {pragma} where a statement (or IL instruction) stands

    expressions  Literal(kind, value, type_name, text)
                 EnumLiteral(type_name, value)          MODE#RUN
                 Name(name)                             a variable, an FB instance, an
                                                        enumerated value: the semantic layer says which
                 DirectVar(text, area, size, address)   %IX0.1 -> area "I", size "X", address (0, 1)
                 Index(base, indices)   Member(base, member)
                 Unary(op, operand)                     op: "-" | "NOT"
                 Binary(op, left, right)                op: ** * / MOD + - < > <= >= = <> AND XOR OR
                 Call(name, args)                       args: Arg(name, value, output, negated)

    IL           IlLabel(name)
                 IlOp(op, operands)                     LD x / ST y / S q / ADD 1 / NOT / IN t1 ...
                 IlDeferred(op, operand, body)          AND( x ... )
                 IlFunction(name, operands)             a function as operator: MAX 7
                 IlFormalCall(name, args)               LIMIT( MN := 0, ... )
                 IlCall(op, fb, args)                   CAL / CALC / CALCN (args positional: name None)
                 IlJump(op, label)                      JMP / JMPC / JMPCN
                 IlReturn(op)                           RET / RETC / RETCN
                 IlArg(name, value, body, output, negated)   body: "IN := ( LD a ... )"
                 ops are upper-cased; & is AND and &N is ANDN; the N of LDN, STN, ANDN ... stays
                 in the op

    SFC          Step(name, initial, actions: ActionAssociation(action, qualifier, time, indicators))
                     qualifier: N R S P P0 P1 L D SD DS SL, None when written "A()" (N)
                 Transition(name, priority, sources, targets, condition)
                     condition: an expression, or an IlBody whose result is the condition
                 Action(name, body)

    configuration  Resource(name, processor, var_blocks, tasks, programs)
                   Task(name, single, interval, priority)
                   ProgramInstance(name, type_name, task, retain, connections, fb_tasks)
                   Connection(parameter, value, output)   FbTask(fb, task)
                   ConfigInit(path, location, spec, init)  VAR_CONFIG entries

A configuration written without RESOURCE (tasks and programs directly in it)
has one Resource whose ``name`` and ``processor`` are None.

Literal values: ``int`` (integers, bit strings), ``float`` (reals), ``bool``,
``str`` (escapes resolved), durations (TIME, LTIME) as ``int`` nanoseconds,
DATE as ``datetime.date``, TOD as ``datetime.time``, DT as
``datetime.datetime``. ``kind`` is one of int real bool string wstring time
ltime date tod dt; ``type_name`` is the explicit prefix (``INT#5`` -> "INT",
``T#1s`` -> "TIME"), None for untyped numbers, strings and booleans, whose
type comes from their context.

No node is deeper than :data:`MAX_DEPTH` (the parser refuses deeper input),
so a recursive walk of a few frames per level stays far below Python's
recursion limit; :func:`iter_nodes` walks without recursion at all.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Iterator, Union

#: the deepest nesting of expressions and statements the parser accepts
MAX_DEPTH = 200

_node = dataclass(frozen=True, eq=False, slots=True, kw_only=True)


@_node
class Node:
    line: int = 0
    col: int = 0


# ------------------------------------------------------------------ expressions
@_node
class Literal(Node):
    kind: str
    value: Any
    type_name: str | None = None
    text: str = ""


@_node
class EnumLiteral(Node):
    type_name: str
    value: str


@_node
class Name(Node):
    name: str


@_node
class DirectVar(Node):
    text: str
    area: str               # I, Q, M
    size: str               # X, B, W, D, L, or "" (a bit, as X)
    address: tuple[int, ...]
    partial: bool = False   # %I* / %Q* / %M*: completed by VAR_CONFIG


@_node
class Index(Node):
    base: "Expr"
    indices: tuple["Expr", ...]


@_node
class Member(Node):
    base: "Expr"
    member: str


@_node
class Unary(Node):
    op: str
    operand: "Expr"
    #: an IL instruction's result, which matiec stores in a variable of its type at once
    il_result: bool = False


@_node
class Binary(Node):
    op: str
    left: "Expr"
    right: "Expr"
    #: an IL instruction's result, which matiec stores in a variable of its type at once
    il_result: bool = False


@_node
class Arg(Node):
    """One argument of a call: ``name := value``, ``name => value`` (output,
    ``negated`` for ``NOT name => value``) or a positional ``value`` (name None)."""
    name: str | None
    value: "Expr"
    output: bool = False
    negated: bool = False


@_node
class Call(Node):
    name: str
    args: tuple[Arg, ...]


Expr = Union[Literal, EnumLiteral, Name, DirectVar, Index, Member, Unary, Binary, Call]


# ------------------------------------------------------------------- statements
@_node
class Assign(Node):
    target: Expr
    value: Expr


@_node
class Invoke(Node):
    """``name(args);`` as a statement: an FB instance call or a function call."""
    name: str
    args: tuple[Arg, ...]


@_node
class Branch(Node):
    condition: Expr
    body: tuple["Stmt", ...]


@_node
class If(Node):
    branches: tuple[Branch, ...]           # IF, then each ELSIF
    else_body: tuple["Stmt", ...] | None


@_node
class Subrange(Node):
    low: int
    high: int


@_node
class CaseBranch(Node):
    labels: tuple[Union[Literal, Subrange, Name, EnumLiteral], ...]
    body: tuple["Stmt", ...]


@_node
class Case(Node):
    selector: Expr
    branches: tuple[CaseBranch, ...]
    else_body: tuple["Stmt", ...] | None


@_node
class For(Node):
    variable: Name
    start: Expr
    end: Expr
    step: Expr | None
    body: tuple["Stmt", ...]


@_node
class While(Node):
    condition: Expr
    body: tuple["Stmt", ...]


@_node
class Repeat(Node):
    body: tuple["Stmt", ...]
    condition: Expr


@_node
class Exit(Node):
    pass


@_node
class Continue(Node):
    pass


@_node
class Return(Node):
    pass


@_node
class Pragma(Node):
    """``{text}`` standing as a statement or IL instruction: matiec passes it
    to its C back end (``{{ printf(...); }}``); a simulator can only skip it."""
    text: str


Stmt = Union[Assign, Invoke, If, Case, For, While, Repeat, Exit, Continue, Return, Pragma]


# ---------------------------------------------------------------------- types
@_node
class NamedType(Node):
    name: str


@_node
class StringType(Node):
    wide: bool
    length: int


@_node
class SubrangeType(Node):
    base: NamedType
    range: Subrange


@_node
class EnumMember(Node):
    name: str


@_node
class EnumType(Node):
    members: tuple[EnumMember, ...]


@_node
class ArrayType(Node):
    ranges: tuple[Subrange, ...]
    element: Union[NamedType, StringType]


@_node
class StructType(Node):
    members: tuple["VarDecl", ...]


TypeSpec = Union[NamedType, StringType, SubrangeType, EnumType, ArrayType, StructType]


@_node
class ArrayInitItem(Node):
    """``value``, or ``count(value)`` repeating it; ``count()`` leaves the
    elements at their default (value None)."""
    count: int | None
    value: Any


@_node
class ArrayInit(Node):
    items: tuple[ArrayInitItem, ...]


@_node
class FieldInit(Node):
    name: str
    value: Any


@_node
class StructInit(Node):
    fields: tuple[FieldInit, ...]


Initializer = Union[Expr, ArrayInit, StructInit]


# --------------------------------------------------------------- declarations
@_node
class TypeDecl(Node):
    name: str
    spec: TypeSpec
    init: Initializer | None = None


@_node
class VarDecl(Node):
    name: str | None
    spec: TypeSpec
    init: Initializer | None = None
    location: DirectVar | None = None
    edge: str | None = None           # R_EDGE / F_EDGE
    extensible: int | None = None     # "IN 1 .." (matiec's library): inputs IN1, IN2, ...


@_node
class VarBlock(Node):
    kind: str
    qualifier: str | None
    decls: tuple[VarDecl, ...]


# ------------------------------------------------------------------------- IL
@_node
class IlLabel(Node):
    name: str


@_node
class IlOp(Node):
    op: str
    operands: tuple[Expr, ...] = ()


@_node
class IlDeferred(Node):
    op: str
    operand: Expr | None
    body: tuple["IlInstruction", ...]


@_node
class IlFunction(Node):
    name: str
    operands: tuple[Expr, ...] = ()


@_node
class IlArg(Node):
    """A formal IL argument: ``name := operand``, ``name := ( instructions )``
    (``body``), or ``[NOT] name => variable`` (output)."""
    name: str | None
    value: Expr | None
    body: tuple["IlInstruction", ...] | None = None
    output: bool = False
    negated: bool = False


@_node
class IlFormalCall(Node):
    name: str
    args: tuple[IlArg, ...]


@_node
class IlCall(Node):
    """``CAL fb``, ``CAL fb(x, y)`` (positional: IlArgs with name None) or the
    multi-line formal form."""
    op: str
    fb: str
    args: tuple[IlArg, ...] = ()


@_node
class IlJump(Node):
    op: str
    label: str


@_node
class IlReturn(Node):
    op: str


IlInstruction = Union[IlLabel, IlOp, IlDeferred, IlFunction, IlFormalCall, IlCall, IlJump, IlReturn,
                      Pragma]


# ------------------------------------------------------------------------ SFC
@_node
class ActionAssociation(Node):
    action: str
    qualifier: str | None          # None: N
    time: Expr | None = None       # for L D SD DS SL: a TIME literal or variable
    indicators: tuple[Expr, ...] = ()


@_node
class Step(Node):
    name: str
    initial: bool
    actions: tuple[ActionAssociation, ...]


@_node
class Transition(Node):
    name: str | None
    priority: int | None
    sources: tuple[str, ...]
    targets: tuple[str, ...]
    condition: Union[Expr, "IlBody"]


@_node
class Action(Node):
    name: str
    body: "Body"


# --------------------------------------------------------------------- bodies
@_node
class StBody(Node):
    statements: tuple[Stmt, ...]


@_node
class IlBody(Node):
    instructions: tuple[IlInstruction, ...]


@_node
class SfcBody(Node):
    steps: tuple[Step, ...]
    transitions: tuple[Transition, ...]
    actions: tuple[Action, ...]


Body = Union[StBody, IlBody, SfcBody]


@_node
class Pou(Node):
    kind: str                       # FUNCTION, FUNCTION_BLOCK, PROGRAM
    name: str
    return_type: TypeSpec | None
    var_blocks: tuple[VarBlock, ...]
    body: Body

    @property
    def language(self) -> str:
        return {StBody: "ST", IlBody: "IL", SfcBody: "SFC"}[type(self.body)]


# -------------------------------------------------------------- configuration
@_node
class Task(Node):
    name: str
    single: Expr | None
    interval: Expr | None
    priority: int


@_node
class Connection(Node):
    """``parameter := value`` (an input of the program instance) or
    ``parameter => value`` (an output, ``output`` True)."""
    parameter: Expr
    value: Expr
    output: bool = False


@_node
class FbTask(Node):
    fb: str
    task: str


@_node
class ProgramInstance(Node):
    name: str
    type_name: str
    task: str | None
    retain: str | None = None
    connections: tuple[Connection, ...] = ()
    fb_tasks: tuple[FbTask, ...] = ()


@_node
class Resource(Node):
    name: str | None
    processor: str | None
    var_blocks: tuple[VarBlock, ...]
    tasks: tuple[Task, ...]
    programs: tuple[ProgramInstance, ...]


@_node
class ConfigInit(Node):
    path: tuple[str, ...]
    location: DirectVar | None
    spec: TypeSpec
    init: Initializer | None = None


@_node
class Configuration(Node):
    name: str
    var_blocks: tuple[VarBlock, ...]
    resources: tuple[Resource, ...]
    var_config: tuple[ConfigInit, ...] = ()


@_node
class CompilationUnit(Node):
    filename: str
    elements: tuple[Union[TypeDecl, Pou, Configuration], ...]
    source: str = field(default="", repr=False)

    @property
    def types(self) -> tuple[TypeDecl, ...]:
        return tuple(e for e in self.elements if isinstance(e, TypeDecl))

    @property
    def pous(self) -> tuple[Pou, ...]:
        return tuple(e for e in self.elements if isinstance(e, Pou))

    @property
    def configurations(self) -> tuple[Configuration, ...]:
        return tuple(e for e in self.elements if isinstance(e, Configuration))

    def pou(self, name: str) -> Pou:
        """The POU called ``name`` (case-insensitive); KeyError if none."""
        key = name.upper()
        for p in self.pous:
            if p.name.upper() == key:
                return p
        raise KeyError(name)


# ------------------------------------------------------------------- construction
def _quick_init(cls: type) -> None:
    """Give ``cls`` an ``__init__`` that fills its slots through their
    descriptors. The one dataclass writes for a frozen class calls
    ``object.__setattr__`` per field, which made building the nodes a fifth of
    a long parse; the node stays frozen (assigning a field still raises)."""
    env: dict[str, Any] = {}
    params, lines = [], []
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            return          # none has one; a class that did keeps dataclass's __init__
        env[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        lines.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, *, {', '.join(params)}):\n" + "\n".join(lines) + "\n"
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init


# the module's classes, not Node.__subclasses__(): a slotted dataclass is a copy
# of the class it was declared as, which lingers among the subclasses
for _cls in [c for c in globals().values() if isinstance(c, type) and issubclass(c, Node)]:
    _quick_init(_cls)


# ------------------------------------------------------------------- walking
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                     if f.name not in ("line", "col", "source"))
    return names


def children(node: Node) -> Iterator[Node]:
    """The nodes directly below ``node``, in field order."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item


def iter_nodes(node: Node) -> Iterator[Node]:
    """Every node of the tree under ``node`` (itself first), in source order,
    without recursion."""
    # children() inlined: a generator per node was most of a walk over a big body
    stack = [node]
    pop = stack.pop
    fields = _FIELDS
    while stack:
        current = pop()
        yield current
        cls = current.__class__
        names = fields.get(cls) or _child_fields(cls)
        below = []
        for name in names:
            value = getattr(current, name)
            if isinstance(value, Node):
                below.append(value)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        below.append(item)
        if below:
            below.reverse()
            stack += below


def dump(node: Any) -> str:
    """A compact, position-free rendering of a tree, for tests and debugging:
    ``dump(parse_expression("a + b * 2"))`` is ``"(+ a (* b 2))"``."""
    out: list[str] = []
    _dump(node, out)
    return "".join(out)


def _dump(node: Any, out: list[str]) -> None:
    if isinstance(node, Name):
        out.append(node.name)
    elif isinstance(node, Literal):
        out.append(_literal_text(node))
    elif isinstance(node, EnumLiteral):
        out.append(f"{node.type_name}#{node.value}")
    elif isinstance(node, DirectVar):
        out.append(node.text)
    elif isinstance(node, NamedType):
        out.append(node.name)
    elif isinstance(node, Binary):
        out.append(f"({node.op} ")
        _dump(node.left, out)
        out.append(" ")
        _dump(node.right, out)
        out.append(")")
    elif isinstance(node, Unary):
        out.append(f"({node.op} ")
        _dump(node.operand, out)
        out.append(")")
    elif isinstance(node, Index):
        out.append("(index ")
        _dump(node.base, out)
        for i in node.indices:
            out.append(" ")
            _dump(i, out)
        out.append(")")
    elif isinstance(node, Member):
        out.append("(. ")
        _dump(node.base, out)
        out.append(f" {node.member})")
    elif isinstance(node, Arg):
        if node.name is not None:
            out.append(("NOT " if node.negated else "") + node.name + (" => " if node.output else " := "))
        _dump(node.value, out)
    elif isinstance(node, Subrange):
        out.append(f"{node.low}..{node.high}")
    elif isinstance(node, tuple):
        out.append("[")
        for i, item in enumerate(node):
            if i:
                out.append(" ")
            _dump(item, out)
        out.append("]")
    elif isinstance(node, Node):
        out.append(f"({type(node).__name__}")
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if value is None or value == () or value is False:
                continue
            out.append(" ")
            if isinstance(value, (Node, tuple)):
                _dump(value, out)
            elif value is True:
                out.append(name)
            else:
                out.append(str(value))
        out.append(")")
    else:
        out.append(repr(node))


def _literal_text(node: Literal) -> str:
    value = node.value
    if node.kind in ("string", "wstring"):
        text = repr(value)
    elif node.kind == "bool":
        text = "TRUE" if value else "FALSE"
    elif node.kind in ("time", "ltime"):
        text = f"{value}ns"
    elif isinstance(value, (_dt.date, _dt.time)):
        text = value.isoformat()
    else:
        text = repr(value)
    return f"{node.type_name}#{text}" if node.type_name and node.kind not in ("time", "ltime") else text
