"""How a block type is declared: ports, state and semantics, written once.

A block type is a subclass of :class:`Block` that declares, at class level,

* ``inputs`` and ``outputs``: :class:`Port` lists (an extensible input group is
  declared with :func:`extensible`, giving ``IN1..INn``);
* ``state``: :class:`State` variables kept between scans;
* ``types``: the generic type variables its ports use, each with its family
  (``{"T": ANY_NUM}``);
* ``params``: construction parameters with their defaults;
* ``code(io)``: the semantics as Python statements over ``io``'s names.

The compiler turns ``code`` into straight-line Python for the whole scan; the
single-block evaluator and the debugger compile the very same text for one
block. There is no second definition to drift.

Inside ``code``, ``io.IN1`` is an expression reading that input, ``io.Q`` the
place of an output or state variable (read it for last scan's value, assign
it for this scan's), ``io.T`` a resolved type, ``io.ins("IN")`` the
extensible group, ``io.now`` the PLC clock (a TIME, ns), ``io.p`` the parameters, and
``io.tmp()`` a fresh local name. The generated code sees the module
``math``, the names of REAL's rounding (``io.T.wrap`` writes it) and the
functions a block type lists in ``helpers``.

Code that has no state and assigns each output at its top level
(``OUT = expression of inputs``) before any line mentions that output is
*pure*: it may change the output afterwards (ADD's wrap-around does), but the
scan never has to fetch the output's last value before the block runs. Any
other shape is correct too, only a little slower (the last value is loaded
first, as an output assigned under an ``if`` needs it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from . import types as t
from .errors import WiringError
from .real32 import NAMES as _REAL32_NAMES

REQUIRED = object()  # a port default meaning "must be wired"
#: the most inputs an extensible group may have: a block's code is one expression
#: over them, and Python's compiler recurses once per operand
MAX_INPUTS = 1024


@dataclass(frozen=True)
class Port:
    name: str
    type: Any  # a DataType, or the name of one of the block's type variables
    default: Any = REQUIRED
    doc: str = ""


@dataclass(frozen=True)
class State:
    name: str
    type: Any
    init: Any = None  # None: the type's default; a callable: called with the block
    doc: str = ""


@dataclass(frozen=True)
class Extensible:
    """An input group ``IN1..INn`` (``IN0..INn-1`` with ``start=0``, as MUX);
    ``n``, how many, is chosen per instance (``ADD(n=3)``)."""
    prefix: str
    type: Any
    min: int = 2
    doc: str = ""
    start: int = 1

    def names(self, n: int) -> list[str]:
        return [f"{self.prefix}{i}" for i in range(self.start, self.start + n)]

    def label(self) -> str:
        last = "n" if self.start == 1 else f"n{self.start - 1:+d}"
        return f"{self.prefix}{self.start}..{self.prefix}{last} (n >= {self.min})"


def extensible(prefix: str, type_, min: int = 2, doc: str = "", start: int = 1) -> Extensible:
    return Extensible(prefix, type_, min, doc, start)


_REGISTRY: dict[str, type["Block"]] = {}
_INPUT_PORTS: dict = {}  # (block class, n) -> its input ports; the same for every instance


def register(cls: type["Block"]) -> type["Block"]:
    """Add a block type to the library; a second type with the same name is an error."""
    name = cls.type_name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"block type {name} is registered twice "
                         f"({_REGISTRY[name].__module__} and {cls.__module__})")
    _REGISTRY[name] = cls
    return cls


def registry() -> dict[str, type["Block"]]:
    return dict(_REGISTRY)


def _type_label(tp, types: dict) -> str:
    if tp is None:
        return "(internal)"
    if isinstance(tp, str):
        return f"{tp}: {types[tp]}" if tp in types else tp
    return str(tp)


class Block:
    """A configured block (type + parameters). Plain data: no run-time values.

    ``Block(INT)`` binds the first type variable; ``Block(types={"K": INT})``
    binds any; ``Block(n=3)`` sets the size of an extensible input group;
    other keywords are the type's parameters.
    """

    type_name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    inputs: ClassVar[tuple] = ()
    outputs: ClassVar[tuple] = ()
    state: ClassVar[tuple] = ()
    types: ClassVar[dict] = {}
    params: ClassVar[dict] = {}
    #: functions the generated code may call, by name (prefix them with the
    #: family, ``_str_mid``); kept to what a plain expression cannot say.
    helpers: ClassVar[dict] = {}
    #: a function block keeps state between scans (IEC "function block");
    #: a function is pure. Only informative for users and the library table.
    stateful: ClassVar[bool] = False
    #: why the native engine cannot run this block type (its code is not what the
    #: engine translates, e.g. a POU compiled from ST); "" lets the engine try
    no_native_form: ClassVar[str] = ""
    #: a block whose code is a whole procedure (loops, calls, an instance's many
    #: variables: a POU compiled from ST, IL or SFC) gives the engines that can run it
    #: their own form of it (``python(places, name)``, see fbd.st.procedure); None:
    #: every engine runs ``code``
    procedure: ClassVar = None
    #: input -> the state variable holding the instance's own value of it. IEC makes a
    #: function block's inputs instance data: a call sets those it is given, the body
    #: may change them, and the next call without them sees what the body left. An
    #: input left unwired reads that state; the block's code writes it back.
    kept_inputs: ClassVar[dict] = {}
    #: output or state variable -> its retentive qualifier, ``"RETAIN"``, ``"PERSISTENT"``
    #: or ``"NON_RETAIN"``, for a variable that declares one (an ST POU's ``VAR RETAIN``);
    #: the rest take the qualifier of the instance holding them (``Network.retain``,
    #: docs/retain.md)
    retain: ClassVar[dict] = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "type_name" not in cls.__dict__:
            cls.type_name = cls.__name__
        cls.inputs, cls.outputs, cls.state = tuple(cls.inputs), tuple(cls.outputs), tuple(cls.state)
        doc = (cls.__dict__.get("__doc__") or "").rstrip()
        if cls.inputs or cls.outputs:
            cls.__doc__ = doc + "\n\n" + cls.port_table()

    def __init__(self, type_: t.DataType | None = None, *, n: int | None = None,
                 types: dict | None = None, **params):
        cls = type(self)
        bound = dict(types or {})
        for var in bound:
            if var not in cls.types:
                raise WiringError(f"{cls.type_name} has no type variable {var!r}"
                                  f"{'; it has ' + ', '.join(cls.types) if cls.types else ''}")
        if type_ is not None:
            if not cls.types:
                raise WiringError(f"{cls.type_name} is not generic; it takes no type")
            bound[next(iter(cls.types))] = type_
        for var, tp in bound.items():
            if not isinstance(tp, t.DataType) or tp not in cls.types[var]:
                raise WiringError(f"{cls.type_name}: type {var} must be one of "
                                  f"{cls.types[var]}, not {tp!r}")
        self.bound_types = bound
        group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
        if n is not None and group is None:
            raise WiringError(f"{cls.type_name} has no extensible inputs; n= does not apply")
        if group is not None:
            n = group.min if n is None else n
            if not isinstance(n, int) or isinstance(n, bool) or not group.min <= n <= MAX_INPUTS:
                raise WiringError(f"{cls.type_name}: n must be an integer from {group.min} to "
                                  f"{MAX_INPUTS}, not {n!r}")
        self.n = n
        unknown = set(params) - set(cls.params)
        if unknown:
            allowed = ", ".join(cls.params) or "none"
            raise WiringError(f"{cls.type_name} has no parameter {sorted(unknown)[0]!r} "
                              f"(parameters: {allowed})")
        self.p = {**cls.params, **params}
        self.check_params()

    def check_params(self) -> None:
        """Override to validate ``self.p``; raise WiringError naming the parameter."""

    # -- the instance's concrete ports ----------------------------------------
    def input_ports(self) -> list[Port]:
        key = (type(self), self.n)
        ports = _INPUT_PORTS.get(key)
        if ports is None:
            ports = []
            for p in type(self).inputs:
                if isinstance(p, Extensible):
                    ports += [Port(name, p.type, REQUIRED, p.doc) for name in p.names(self.n)]
                else:
                    ports.append(p)
            _INPUT_PORTS[key] = ports = tuple(ports)
        return list(ports)

    def output_ports(self) -> list[Port]:
        return list(type(self).outputs)

    def state_vars(self) -> list[State]:
        return list(type(self).state)

    @property
    def name(self) -> str:
        return type(self).type_name

    def code(self, io) -> str | list[str]:
        raise NotImplementedError(f"{type(self).type_name} declares no semantics")

    def st(self, types: dict) -> tuple[list, str] | None:
        """This block as the body of an IEC Structured Text function block, for
        editors that do not know it (the PLCopen export writes it as a POU they
        compile): its local variables as ``(name, type)`` pairs and its
        statements, over the ports and state named as declared, with the type
        variables bound to ``types``. None (the default) for IEC's own blocks,
        which every editor has; a block of this library's own that has an ST
        form overrides it, so everything about the block stays in its module.
        A local's type may name a function block of matiec's library (``"RTC"``)."""
        return None

    def st_needed(self, types: dict, literals: dict) -> bool:
        """Whether the export needs :meth:`st` for this instance, at ``types``, whose
        inputs ``literals`` (port -> value) are wired to literals: a block whose ST
        form only makes defined what matiec leaves undefined for some inputs (a
        shift by a negative count) is IEC's own block for literals that avoid them."""
        return True

    def __repr__(self) -> str:
        extra = [str(v) for v in self.bound_types.values()]
        if self.n is not None and self.n != next(
                p.min for p in type(self).inputs if isinstance(p, Extensible)):
            extra.append(f"n={self.n}")
        extra += [f"{k}={v!r}" for k, v in self.p.items() if type(self).params.get(k) != v]
        return f"{self.name}({', '.join(extra)})"

    # -- documentation ---------------------------------------------------------
    @classmethod
    def port_table(cls) -> str:
        rows = []
        for kind, ports in (("in", cls.inputs), ("out", cls.outputs), ("state", cls.state)):
            for p in ports:
                if isinstance(p, Extensible):
                    name = p.label()
                else:
                    name = p.name
                default = ""
                if kind == "in" and not isinstance(p, Extensible) and p.default is not REQUIRED:
                    default = f" = {p.default!r}"
                rows.append((kind, name, _type_label(p.type, cls.types) + default, p.doc))
        if not rows:
            return ""
        w = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["Ports::", ""]
        lines += [f"    {k:<{w[0]}}  {n:<{w[1]}}  {ty:<{w[2]}}  {d}".rstrip() for k, n, ty, d in rows]
        if cls.params:
            lines += ["", "Parameters: " + ", ".join(f"{k}={v!r}" for k, v in cls.params.items())]
        return "\n".join(lines)

    @classmethod
    def summary(cls) -> str:
        """The first line of the block's own docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""


class IO:
    """The names a block's ``code`` is written against (see the module docstring)."""

    def __init__(self, names: dict[str, str], types: dict, params: dict, n, fresh,
                 groups: dict | None = None):
        self._names = names
        self._groups = groups or {}
        self._types = types
        self.p = params
        self.n = n
        self._fresh = fresh
        self.now = "now"

    def __getattr__(self, name: str) -> Any:
        names = self.__dict__.get("_names", {})
        if name in names:
            return names[name]
        types = self.__dict__.get("_types", {})
        if name in types:
            return types[name]
        raise AttributeError(f"block code refers to unknown port or type {name!r}")

    def ins(self, prefix: str) -> list[str]:
        """The expressions of an extensible group, in order."""
        group = self._groups.get(prefix)
        names = group.names(self.n) if group else [f"{prefix}{i}" for i in range(1, self.n + 1)]
        return [self._names[name] for name in names]

    def tmp(self) -> str:
        return self._fresh()


def code_lines(block: Block, names: dict, types, fresh=None) -> list[str]:
    """The block's semantics as Python statements, every port and state name
    replaced by ``names[name]`` (an expression: a local, ``s[12]``, a literal),
    with its type variables bound to ``types``. Every engine that runs Python
    (the compiled scan, the interpreter) starts from this one text; ``fresh``
    gives temporary names (``_t0, _t1, ...`` by default)."""
    if fresh is None:
        counter = iter(range(1 << 30))
        fresh = lambda: f"_t{next(counter)}"  # noqa: E731
    groups = {p.prefix: p for p in type(block).inputs if isinstance(p, Extensible)}
    code = block.code(IO(names, types, block.p, block.n, fresh, groups))
    lines = code.split("\n") if isinstance(code, str) else list(code)
    return [line for line in lines if line.strip()]


def code_namespace(blocks) -> dict:
    """Globals for the generated code of ``blocks``: ``math``, what REAL's rounding
    uses (:func:`fbd.real32.real32_code`) and the helpers their types declare (a
    helper name two types declare differently is an error)."""
    ns: dict = {"math": math, **_REAL32_NAMES}
    seen: set = set()
    for block in blocks:
        cls = type(block)
        if cls in seen:
            continue
        seen.add(cls)
        for name, obj in cls.helpers.items():
            if ns.setdefault(name, obj) is not obj:
                raise ValueError(f"block helper {name!r} of {cls.type_name} clashes with "
                                 f"another block type's helper of the same name")
    return ns


def identifier(name: str) -> str:
    """A port or state name as part of a Python identifier: a state variable may be
    named by a member path, as matiec names the members of an inner instance
    (PID's ``ITERM.XOUT``), which an engine naming it in code spells ``ITERM__XOUT``."""
    return name.replace(".", "__")


def literal(value) -> str:
    """Python source for a constant inside generated code (inf and nan included)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "math.nan" if math.isnan(value) else ("math.inf" if value > 0 else "-math.inf")
    return repr(value)


__all__ = ["Block", "Port", "State", "Extensible", "extensible", "register", "registry",
           "REQUIRED", "IO", "identifier", "literal", "code_lines", "code_namespace", "t"]
