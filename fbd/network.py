"""Networks: block instances and wires, as plain data.

A :class:`Network` is a program when run, and a macro (a user-defined function
block) when placed in another network with :meth:`Network.add`. It holds no
run-time values; :func:`fbd.compiler.compile_network` validates and compiles
it, and a :class:`fbd.runtime.Plc` runs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from . import address as located
from . import types as t
from .block import REQUIRED, Block, Port
from .errors import WiringError

#: a wire end: an instance's output (a source), its input (a target), a network's input
RefKind = Literal["out", "in", "netin"]

#: the retentive qualifiers (``Network.retain``, ``Block.retain``), IEC's and CODESYS's
QUALIFIERS = ("RETAIN", "PERSISTENT", "NON_RETAIN")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_name(what: str, name: str, where: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise WiringError(f"{where}: {what} name {name!r} must be an identifier "
                          f"(letters, digits, _; no dots)")


@dataclass(frozen=True, eq=False)
class Ref:
    """One end of a wire: an instance's port, or a network input/output."""
    owner: Any  # Instance, or Network for its own inputs
    port: str
    kind: RefKind   # "out" (a source), "in" (a target), "netin" (a source)

    @property
    def path(self) -> str:
        if isinstance(self.owner, Network):
            return self.port
        return f"{self.owner.name}.{self.port}"

    def __repr__(self) -> str:
        return f"<{self.kind} {self.path}>"

    def __bool__(self):
        raise TypeError(f"{self.path} is a wire end, not a value; "
                        "read values from a Harness or Plc")


@dataclass
class Binding:
    source: Any  # Ref ("out" / "netin") or a literal value
    feedback: bool
    order: int


class Instance:
    """A block or macro placed in a network. Ports are attributes: ``inst.Q1``."""

    def __init__(self, network: "Network", name: str, element, index: int):
        self._network = network
        self.name = name
        self.element = element  # a Block or a Network (macro)
        self.index = index
        self.bindings: dict[str, list[Binding]] = {}
        self._inputs = {p.name: p for p in _input_ports(element)}
        self._outputs = {p.name: p for p in _output_ports(element)}
        #: the instance's input and output ports by name, read-only
        self.input_decls = MappingProxyType(self._inputs)
        self.output_decls = MappingProxyType(self._outputs)

    @property
    def is_macro(self) -> bool:
        return isinstance(self.element, Network)

    @property
    def type_name(self) -> str:
        return self.element.name

    def input_ports(self) -> list[Port]:
        return list(self._inputs.values())

    def output_ports(self) -> list[Port]:
        return list(self._outputs.values())

    def port(self, name: str) -> Ref:
        if name in self._outputs:
            return Ref(self, name, "out")
        if name in self._inputs:
            return Ref(self, name, "in")
        raise WiringError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        where = f"{self._network.name}.{self.name}"
        ins = ", ".join(self._inputs) or "none"
        outs = ", ".join(self._outputs) or "none"
        hint = ""
        if not self.is_macro and any(hasattr(p, "prefix") for p in type(self.element).inputs):
            hint = f"; for more inputs create it with {self.type_name}(n=...)"
        return (f"{where}: {self.type_name} has no port {name!r} "
                f"(inputs: {ins}; outputs: {outs}){hint}")

    def __getattr__(self, name: str) -> Ref:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.port(name)

    def __repr__(self) -> str:
        return f"<{self.type_name} {self._network.name}.{self.name}>"


def _input_ports(element) -> list[Port]:
    if isinstance(element, Network):
        return [Port(n, tp, d) for n, (tp, d) in element.inputs.items()]
    return element.input_ports()


def _output_ports(element) -> list[Port]:
    if isinstance(element, Network):
        return [Port(n, o.type if o.type is not None else f"_{n}")
                for n, o in element.outputs.items()]
    return element.output_ports()


@dataclass
class NetOutput:
    name: str
    source: Any
    type: t.DataType | None
    feedback: bool = False
    order: int = 0


@dataclass(eq=False)
class Network:
    """A program or macro: named inputs, block instances, wires, named outputs."""

    name: str
    doc: str = ""
    inputs: dict = field(default_factory=dict)      # name -> (DataType, default)
    outputs: dict = field(default_factory=dict)     # name -> NetOutput
    instances: dict = field(default_factory=dict)   # name -> Instance, in order added
    addresses: dict = field(default_factory=dict)   # port name -> located Address (at=)
    stores: dict = field(default_factory=dict)      # input name -> (instance, variable), see store
    retains: dict = field(default_factory=dict)     # instance or input -> qualifier, see retain
    _wire_count: int = 0

    def __post_init__(self):
        _check_name("network", self.name, "Network")

    # -- interface -------------------------------------------------------------
    def input(self, name: str, type_: t.DataType, default: Any = REQUIRED,
              at: str | None = None) -> Ref:
        """Declare an input (a PLC input when run as a program). ``default`` is
        used where a macro's input is left unconnected; ``at="%IX0.0"`` locates it
        in the process image (what the Modbus server serves)."""
        _check_name("input", name, self.name)
        if not isinstance(type_, t.DataType):
            raise WiringError(f"{self.name}.{name}: type must be an IEC type such as BOOL, "
                              f"not {type_!r}")
        if name in self.inputs or name in self.outputs:
            raise WiringError(f"{self.name}: port {name!r} is declared twice")
        if default is not REQUIRED:
            default = type_.coerce(default, f"{self.name}.{name} default")
        self._locate(name, at, type_, "input")
        self.inputs[name] = (type_, default)
        return Ref(self, name, "netin")

    def output(self, name: str, source, type_: t.DataType | None = None,
               feedback: bool = False, at: str | None = None) -> None:
        """Declare an output driven by ``source`` (an instance output, a network
        input, or a literal). Its type is the source's unless given; ``at="%QX0.0"``
        locates it in the process image."""
        _check_name("output", name, self.name)
        if name in self.outputs or name in self.inputs:
            raise WiringError(f"{self.name}: port {name!r} is declared twice")
        self._check_source(source, f"{self.name}.{name}")
        # A polymorphic source's type is known only after inference: the compiler
        # checks the location's size then.
        self._locate(name, at, type_ or _source_type(source), "output")
        self.outputs[name] = NetOutput(name, source, type_, feedback, self._next())

    def store(self, name: str, instance: "Instance", variable: str) -> None:
        """Keep input ``name`` in ``instance``'s output or state ``variable``, as matiec
        keeps a variable the POU writes. Run as the program, the PLC latches values
        into it and the block writes it: what the block writes is the input's value
        for every block after it and lasts until the next value is latched (a
        program writing its own located input). Placed as a macro with the input
        left open, the input reads what the block wrote in the last scan (a function
        block writing its own input); a wired input reads its wire."""
        where = f"{self.name}.{name}"
        if name not in self.inputs:
            raise WiringError(f"{where}: not an input of {self.name}")
        if not isinstance(instance, Instance) or self.instances.get(instance.name) is not instance \
                or instance.is_macro:
            raise WiringError(f"{where}: {instance!r} is not a block placed in {self.name}")
        block = instance.element
        slots = {p.name: p.type for p in block.output_ports()}
        slots.update((sv.name, sv.type) for sv in block.state_vars())
        if variable not in slots:
            raise WiringError(f"{where}: {instance.name} has no output or state {variable!r}")
        tp = slots[variable]
        tp = block.bound_types.get(tp) if isinstance(tp, str) else tp
        if tp is not None and tp.canonical is not self.inputs[name][0].canonical:
            raise WiringError(f"{where} is {self.inputs[name][0]}, but {instance.name}."
                              f"{variable} is {tp}")   # (a generic one takes the input's type)
        if (instance.name, variable) in self.stores.values():
            raise WiringError(f"{where}: {instance.name}.{variable} keeps another input already")
        self.stores[name] = (instance.name, variable)

    def retain(self, name: str, qualifier: str = "RETAIN") -> None:
        """Mark an instance (every output and state variable of a block; everything
        inside a macro) or an input of this network retentive, as ``VAR RETAIN``
        does: ``"RETAIN"`` survives a warm restart, ``"PERSISTENT"`` a cold one too,
        ``"NON_RETAIN"`` neither (inside an instance marked RETAIN). A block's own
        qualifiers (:attr:`Block.retain`) win over its instance's (docs/retain.md)."""
        where = f"{self.name}.{name}"
        if qualifier not in QUALIFIERS:
            raise WiringError(f"{where}: the qualifier is one of {', '.join(QUALIFIERS)}, "
                              f"not {qualifier!r}")
        if name not in self.instances and name not in self.inputs:
            raise WiringError(f"{where}: neither an instance nor an input of {self.name}")
        self.retains[name] = qualifier

    # -- building ----------------------------------------------------------------
    def add(self, name: str, element, **inputs) -> Instance:
        """Place a block (``blocks.SR()``) or a macro (another Network) and wire
        its inputs by port name: ``net.add("ff", blocks.SR(), S1=s, R=r)``."""
        _check_name("instance", name, self.name)
        if name in self.instances:
            raise WiringError(f"{self.name}: an instance named {name!r} already exists")
        if isinstance(element, type) and issubclass(element, Block):
            raise WiringError(f"{self.name}.{name}: pass a block instance, "
                              f"{element.type_name}(), not the class")
        if not isinstance(element, (Block, Network)):
            raise WiringError(f"{self.name}.{name}: {element!r} is neither a block nor a network")
        if element is self:
            raise WiringError(f"{self.name}.{name}: a network cannot contain itself")
        inst = Instance(self, name, element, len(self.instances))
        for port_name in inputs:
            inst.port(port_name)  # raises on an unknown port before anything is recorded
        self.instances[name] = inst
        for port_name, source in inputs.items():
            self.connect(source, inst.port(port_name))
        return inst

    def connect(self, source, target: Ref, feedback: bool = False) -> None:
        """Wire ``source`` to ``target`` (an instance input). ``feedback=True``
        marks a wire that closes a loop: it reads the value of the previous scan."""
        if not isinstance(target, Ref) or target.kind != "in":
            raise WiringError(f"{self.name}: the target of a wire must be an instance input "
                              f"such as blk.IN1, not {target!r}")
        if target.owner._network is not self:
            raise WiringError(f"{self.name}: {target.path} belongs to network "
                              f"{target.owner._network.name!r}")
        where = f"{self.name}.{target.path}"
        self._check_source(source, where)
        target.owner.bindings.setdefault(target.port, []).append(
            Binding(source, bool(feedback), self._next()))

    def _locate(self, name: str, at: str | None, type_: t.DataType | None,
                direction: str) -> None:
        if at is None:
            return
        where = f"{self.name}.{name}"
        address = located.parse(at, where)
        located.check(address, type_, direction, where)  # type_ None: direction only
        for other, taken in self.addresses.items():
            if taken == address:
                raise WiringError(f"{where}: {address} is already the location of "
                                  f"{self.name}.{other}")
        self.addresses[name] = address

    def _next(self) -> int:
        self._wire_count += 1
        return self._wire_count

    def _check_source(self, source, where: str) -> None:
        if isinstance(source, Ref):
            if source.kind == "in":
                raise WiringError(f"{where}: {source.path} is an input; a wire starts "
                                  f"at an output or a network input")
            owner_net = source.owner if source.kind == "netin" else source.owner._network
            if owner_net is not self:
                raise WiringError(f"{where}: {source.path} belongs to network "
                                  f"{owner_net.name!r}, not {self.name!r}")
        elif isinstance(source, Instance):
            outs = [p.name for p in source.output_ports()]
            raise WiringError(f"{where}: wire from one of {source.name}'s outputs "
                              f"({', '.join(outs)}), not the instance itself")
        elif isinstance(source, (Block, Network)):
            raise WiringError(f"{where}: {source!r} is not placed; add it with net.add first")
        elif not isinstance(source, (bool, int, float, str)) and not _is_timedelta(source):
            raise WiringError(f"{where}: {source!r} is neither a wire end nor a literal")

    def __getitem__(self, name: str) -> Instance:
        try:
            return self.instances[name]
        except KeyError:
            raise WiringError(f"{self.name} has no instance {name!r}") from None

    def __repr__(self) -> str:
        return (f"<Network {self.name}: {len(self.inputs)} in, {len(self.outputs)} out, "
                f"{len(self.instances)} instances>")


def _source_type(source) -> t.DataType | None:
    """The declared type of a wire's source, where it is known before inference."""
    if isinstance(source, Ref):
        if source.kind == "netin":
            return source.owner.inputs[source.port][0]
        for port in source.owner.output_ports():
            if port.name == source.port and isinstance(port.type, t.DataType):
                return port.type
    return None


def _is_timedelta(v) -> bool:
    import datetime
    return isinstance(v, datetime.timedelta)
