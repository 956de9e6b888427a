"""Parts of structured values: a STRUCT's member, an ARRAY's element, read and replaced.

IEC writes these as variable accesses (``status.Hand``, ``a[3]``, ``m[i, 2]``);
in a network each is a block, built for the concrete type it reads (the type
variables are bound when the block is made, as the PLCopen importer makes
them from the declarations):

* ``MEMBER(types={"S": struct, "F": member type}, member="Hand")``: OUT := IN.Hand;
* ``SET_MEMBER(...)``: OUT := IN with Hand := VALUE (a new value: IN is unchanged);
* ``ELEMENT(types={"A": array, "E": element type, "N": index type}, n=2)``:
  OUT := IN[I1, I2];
* ``SET_ELEMENT(...)``: OUT := IN with [I1, I2] := VALUE.

An index outside the array's bounds reads the element type's initial value
and writes nothing (matiec checks no bounds; a PLC program must not crash
the scan, so ours reads a defined value instead).
"""

from fbd.block import Block, Port, extensible, register
from fbd.errors import WiringError
from fbd.types import ANY, ANY_DERIVED, ANY_INT, Kind


class _Member(Block):
    family = "access"
    types = {"S": ANY_DERIVED, "F": ANY}
    params = {"member": ""}

    def check_params(self):
        member = self.p["member"]
        if not isinstance(member, str) or not member.isidentifier():
            raise WiringError(f"{self.name}: member must be a member name, not {member!r}")
        s = self.bound_types.get("S")
        if s is not None:
            if s.kind is not Kind.STRUCT:
                raise WiringError(f"{self.name}: {s} is not a STRUCT")
            try:
                s.field_index(member)
            except KeyError as e:
                raise WiringError(f"{self.name}: {e.args[0]}") from None

    def index(self, io) -> int:
        return io.S.field_index(self.p["member"])


@register
class MEMBER(_Member):
    """A member of a STRUCT: OUT is IN.member (``status.Hand``)."""
    inputs = [Port("IN", "S")]
    outputs = [Port("OUT", "F")]

    def code(self, io):
        return f"{io.OUT} = {io.IN}[{self.index(io)}]"


@register
class SET_MEMBER(_Member):
    """A STRUCT with one member replaced: OUT is IN with member := VALUE."""
    inputs = [Port("IN", "S"), Port("VALUE", "F")]
    outputs = [Port("OUT", "S")]

    def code(self, io):
        new = io.tmp()
        return [f"{new} = list({io.IN})", f"{new}[{self.index(io)}] = {io.VALUE}",
                f"{io.OUT} = {new}"]


class _Element(Block):
    family = "access"
    types = {"A": ANY_DERIVED, "E": ANY, "N": ANY_INT}

    def check_params(self):
        a = self.bound_types.get("A")
        if a is not None and (a.kind is not Kind.ARRAY or len(a.dims) != self.n):
            raise WiringError(f"{self.name}: {a} is not an ARRAY of {self.n} dimension(s)")

    def offset(self, io) -> tuple[str, str]:
        """(the flat position of I1..In, the condition that they are in bounds)."""
        pos, ok = "0", []
        for (lo, hi), i in zip(io.A.dims, io.ins("I")):
            pos = f"({pos}) * {hi - lo + 1} + ({i} - {lo})"
            ok.append(f"{lo} <= {i} <= {hi}")
        return pos, " and ".join(ok)


@register
class ELEMENT(_Element):
    """An element of an ARRAY: OUT is IN[I1, ..., In] (``a[3]``, ``m[i, 2]``); the
    element type's initial value for an index out of bounds."""
    inputs = [Port("IN", "A"), extensible("I", "N", min=1, doc="the indexes, one per dimension")]
    outputs = [Port("OUT", "E")]

    def code(self, io):
        pos, ok = self.offset(io)
        default = io.E.copy(io.E.default)
        return f"{io.OUT} = {io.IN}[{pos}] if {ok} else {default!r}"


@register
class SET_ELEMENT(_Element):
    """An ARRAY with one element replaced: OUT is IN with [I1, ..., In] := VALUE (IN
    unchanged for an index out of bounds)."""
    inputs = [Port("IN", "A"), Port("VALUE", "E"),
              extensible("I", "N", min=1, doc="the indexes, one per dimension")]
    outputs = [Port("OUT", "A")]

    def code(self, io):
        pos, ok = self.offset(io)
        new = io.tmp()
        return [f"{new} = list({io.IN})",
                f"if {ok}:",
                f"    {new}[{pos}] = {io.VALUE}",
                f"{io.OUT} = {new}"]


__all__ = ["MEMBER", "SET_MEMBER", "ELEMENT", "SET_ELEMENT"]
