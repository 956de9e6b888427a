"""An FBD or LD body as the sequence of statements Beremiz generates for it.

Beremiz turns a graphical body into Structured Text (``PLCGenerator.py``,
``ComputeProgram``) and matiec compiles that ST: what a real controller runs
is that statement list. This module reproduces it, element for element, as
plain data (:class:`Call`, :class:`Assign`, :class:`Trigger`); the builder
(:mod:`.builder`) turns the list into a network. The rules, as the generator
has them:

* The statements come from the body's elements in this order: those with an
  ``executionOrderId`` > 0, by that id; then the output and in-out variables
  and the LD coils, in the order the file lists them; then the blocks, the
  same way; then the connectors. (The generator means to sort the variables
  and the blocks by position, rows less than 10 apart as one row, but since
  its port to Python 3, in Beremiz and OpenPLC Editor alike, its comparison
  is ``operator.eq``: it never says "less", so the sort keeps the file's
  order. What the controllers run is that order, and so is ours.)
* An output variable or a coil is one assignment of the expression on its
  input. Computing an expression *pulls* the blocks it reads that have not
  run yet: each is called first, after the blocks its own inputs pull, in the
  order of its inputs. A block whose ``executionOrderId`` > 0 pulls nothing:
  it reads what its sources hold when it runs (the previous scan's value for a
  block that runs later).
* Reading a variable (an ``inVariable``, the output side of an
  ``inOutVariable``, an LD contact) reads it when the statement that needs it
  runs; an ``inOutVariable`` does not pull its own input.
* An output variable fed directly by a block whose EN is wired is assigned
  only ``IF <block>.ENO``.
* In LD, a contact is its variable AND what powers it; several wires into
  one point are OR-ed; the left rail is TRUE; a coil passes on what powers
  it. Negated and edge (R_TRIG/F_TRIG) contacts, negated, set, reset and edge
  coils apply their modifier as ``ExtractModifier`` does (a negated element
  ignores its storage and edge).
* A function block with none of its inputs connected is not called (its
  outputs keep their initial values).

Deep bodies (a chain of a thousand connectors, a rung of a thousand contacts)
are walked with an explicit stack, never Python recursion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import PlcOpenError, child, children, quote, tag, text, true

#: elements a body may hold, and those that make no statement
ELEMENTS = {"block", "inVariable", "outVariable", "inOutVariable", "connector",
            "continuation", "contact", "coil", "leftPowerRail", "rightPowerRail", "comment"}
#: elements of other languages or that need control flow, refused by name
UNSUPPORTED = {"jump": "jumps (control flow)", "label": "labels (control flow)",
               "return": "returns (control flow)", "step": "SFC steps",
               "transition": "SFC transitions", "actionBlock": "SFC action blocks",
               "selectionDivergence": "SFC divergences", "selectionConvergence":
               "SFC convergences", "simultaneousDivergence": "SFC divergences",
               "simultaneousConvergence": "SFC convergences", "jumpStep": "SFC jumps",
               "macroStep": "SFC macro steps"}
MAX_NESTING = 200_000     # stack frames of the walk: far beyond any real body


# ---------------------------------------------------------------- expressions
# Expressions are tuples: ("lit", value) | ("var", text, lid) a read of what the
# text names when the statement runs | ("out", lid, pin) a block's output |
# ("not", expr, lid, pin) | ("and", exprs) | ("or", exprs) | ("edge", index),
# the Q of the index-th Trigger statement.
TRUE = ("lit", True)


def and_(a, b):
    if a == TRUE:
        return b
    if b == TRUE:
        return a
    items = (a[1] if a[0] == "and" else (a,)) + (b[1] if b[0] == "and" else (b,))
    return ("and", items)


def or_(alts):
    if any(a == TRUE for a in alts):
        return TRUE
    if len(alts) == 1:
        return alts[0]
    items = ()
    for a in alts:
        items += a[1] if a[0] == "or" else (a,)
    return ("or", items)


# ------------------------------------------------------------------ statements
@dataclass
class Call:
    """A block runs: ``inputs`` are (pin, expression) in the order they are passed."""
    lid: str
    inputs: list
    en: tuple | None


@dataclass
class Assign:
    """``target := expr`` (``IF guard THEN`` when guarded; ``mode`` set/reset: only
    when expr is TRUE, to TRUE / FALSE)."""
    lid: str
    target: str
    expr: tuple
    guard: tuple | None = None
    mode: str = "none"
    what: str = "outVariable"


@dataclass
class Trigger:
    """An edge modifier's R_TRIG / F_TRIG, called with CLK := expr."""
    index: int
    edge: str
    expr: tuple
    lid: str
    pin: str


@dataclass
class BlockInfo:
    """What the generator needs to know about a placed block's type."""
    function: bool               # an IEC function (else a function block)
    inputs: list                 # declared input names, in order
    outputs: list                # declared output names
    inouts: set = field(default_factory=set)
    extensible: bool = False


def run(gen):
    """Drive a recursion written as generators: a generator yields another to call
    it and receives its result. The stack lives on the heap."""
    stack, value = [gen], None
    while True:
        try:
            nxt = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value = stop.value
            continue
        if len(stack) >= MAX_NESTING:
            raise PlcOpenError("the body nests deeper than "
                               f"{MAX_NESTING} elements")
        stack.append(nxt)
        value = None


def position(el):
    """An element's position as Beremiz compares it (whole units)."""
    p = child(el, "position")
    return (0, 0) if p is None else position_of(p)


def order_id(el) -> int:
    value = (el.get("executionOrderId") or "0").strip()
    if not value.isdigit() or len(value) > 18:
        return 0
    return int(value)


def connections(el):
    return children(child(el, "connectionPointIn"), "connection")


class Body:
    """The elements of one body and the statements they make (:attr:`statements`).

    ``info(lid)`` tells the generator a placed block's :class:`BlockInfo`;
    ``err(msg, lid)`` makes the error naming the POU and element."""

    def __init__(self, body_el, info, err, language: str):
        self.err = err
        self.info = info
        self.language = language
        self.elements: dict[str, object] = {}
        self.order: list = []            # document order
        self.connectors: dict[str, object] = {}
        for el in body_el:
            name = tag(el)
            if not name or name == "comment":
                continue
            lid = el.get("localId")
            if name in UNSUPPORTED:
                raise err(f"<{name}> is not supported: {UNSUPPORTED[name]} are not "
                          f"imported", lid)
            if name not in ELEMENTS:
                raise err(f"<{name}> is not supported in {language}", lid)
            if lid is None:
                raise err(f"<{name}> has no localId")
            if lid in self.elements:
                raise err("two elements have this localId", lid)
            self.elements[lid] = el
            self.order.append(el)
            if name == "connector":
                cname = el.get("name") or ""
                if cname in self.connectors:
                    raise err(f"two connectors are named {quote(cname)}", lid)
                self.connectors[cname] = el
        self.statements: list = []
        self.computed: set[str] = set()          # blocks called (or cancelled)
        self.cancelled: set[str] = set()         # functions not called: no input connected
        self.connector_exprs: dict[str, tuple] = {}
        self._busy_connectors: set[str] = set()
        self.triggers = 0

    def blocks(self):
        return [el for el in self.order if tag(el) == "block"]

    # ------------------------------------------------------------- the program
    def generate(self) -> list:
        """The statements, in Beremiz's order."""
        ordered, outs, blocks, connectors = [], [], [], []
        for el in self.order:
            name = tag(el)
            if name in ("outVariable", "inOutVariable", "block"):
                if order_id(el) > 0:
                    ordered.append(el)
                elif name == "block":
                    blocks.append(el)
                else:
                    outs.append(el)
            elif name == "coil":
                outs.append(el)
            elif name == "connector":
                connectors.append(el)
        ordered.sort(key=order_id)
        for el in ordered + outs + blocks + connectors:
            name, lid = tag(el), el.get("localId")
            if name in ("outVariable", "inOutVariable", "coil"):
                conns = connections(el)
                if not conns:
                    continue     # an unconnected variable or coil writes nothing
                expr = run(self._paths(conns, False, False, lid))
                if expr is None:
                    continue
                self._assign(el, expr, conns)
            elif name == "block":
                run(self._block(el, None, False, False))
            elif (el.get("name") or "") not in self.connector_exprs:
                run(self._connector(el.get("name") or "", False, lid))
        return self.statements

    def _assign(self, el, expr, conns):
        name, lid = tag(el), el.get("localId")
        if name == "coil":
            target = text(child(el, "variable"))
            suffix = ""
        else:
            target = text(child(el, "expression"))
            suffix = "In" if name == "inOutVariable" else ""
        guard = None
        if name != "coil" and len(conns) == 1:
            src = self.elements.get(conns[0].get("refLocalId"))
            if src is not None and tag(src) == "block" and self._en_pin(src) is not None:
                guard = ("out", src.get("localId"), "ENO")
        expr, mode = self._modifiers(el, expr, lid, "in", suffix)
        self.statements.append(Assign(lid, target, expr, guard, mode, name))

    def _modifiers(self, el, expr, lid, pin, suffix=""):
        """ExtractModifier: negated, else storage set/reset, else an edge."""
        if true(el.get("negated" + suffix)):
            return ("not", expr, lid, pin), "none"
        storage = (el.get("storage" + suffix) or "none").strip()
        if storage in ("set", "reset"):
            return expr, storage
        if storage != "none":
            raise self.err(f"storage={quote(storage)} is not a storage modifier", lid)
        edge = (el.get("edge" + suffix) or "none").strip()
        if edge in ("rising", "falling"):
            return self._trigger(edge, expr, lid, pin), "none"
        return expr, "none"

    def _trigger(self, edge, expr, lid, pin):
        index = self.triggers
        self.triggers += 1
        self.statements.append(Trigger(index, edge, expr, lid, pin))
        return ("edge", index)

    def _en_pin(self, block_el):
        """The block's EN pin when something that may be FALSE drives it (an EN wired
        straight to the left power rail is always TRUE: no EN at all)."""
        for v in children(child(block_el, "inputVariables"), "variable"):
            if v.get("formalParameter") == "EN" and connections(v):
                refs = [self.elements.get(c.get("refLocalId")) for c in connections(v)]
                if refs and all(r is not None and tag(r) == "leftPowerRail" for r in refs) \
                        and not true(v.get("negated")) and not v.get("edge"):
                    return None
                return v
        return None

    # ------------------------------------------------------------- expressions
    def _source(self, conn, consumer):
        ref = conn.get("refLocalId")
        el = self.elements.get(ref)
        if el is None:
            shown = ref if ref and len(ref) <= 20 and ref.isalnum() else quote(ref or "")
            raise self.err(f"connection to unknown localId {shown}", consumer)
        return el

    def _paths(self, conns, order, to_inout, consumer):
        """GeneratePaths + ComputeExpression: the OR of what each connection brings."""
        alts = []
        for conn in conns:
            el = self._source(conn, consumer)
            name, lid = tag(el), el.get("localId")
            if name == "leftPowerRail":
                alts.append(TRUE)
            elif name in ("inVariable", "inOutVariable"):
                expr = ("var", text(child(el, "expression")), lid)
                neg = el.get("negated" if name == "inVariable" else "negatedOut")
                alts.append(("not", expr, lid, "out") if true(neg) else expr)
            elif name == "block":
                alts.append((yield self._block(el, conn, order, to_inout)))
            elif name == "continuation":
                alts.append((yield self._connector(el.get("name") or "", order, lid)))
            elif name == "contact":
                var = ("var", text(child(el, "variable")), lid)
                var, _ = self._modifiers(el, var, lid, "contact")
                inner = yield self._paths(connections(el), order, False, lid)
                if inner is None:
                    raise self.err(f"contact {quote(text(child(el, 'variable')))} is not "
                                   f"connected on its left", lid)
                alts.append(and_(var, inner))
            elif name == "coil":
                inner = yield self._paths(connections(el), order, False, lid)
                if inner is None:
                    raise self.err("coil is not connected on its left", lid)
                alts.append(inner)
            else:
                raise self.err(f"<{name}> cannot be the source of a wire", lid)
        return or_(alts) if alts else None

    def _connector(self, name, order, lid):
        if name in self.connector_exprs:
            return self.connector_exprs[name]
        con = self.connectors.get(name)
        if con is None:
            raise self.err(f"continuation {quote(name)} has no connector", lid)
        if name in self._busy_connectors:
            raise self.err("a loop of connectors with nothing driving it", lid)
        conns = connections(con)
        if not conns:
            raise self.err(f"connector {quote(name)} is not connected", con.get("localId"))
        self._busy_connectors.add(name)
        expr = yield self._paths(conns, order, False, con.get("localId"))
        self._busy_connectors.discard(name)
        self.connector_exprs[name] = expr
        return expr

    def _block(self, el, link, order, to_inout):
        """GenerateBlock: call the block if it has not run (and ``order`` allows),
        then the expression of the output ``link`` reads."""
        lid = el.get("localId")
        info = self.info(lid)
        own_order = order_id(el) > 0
        if lid not in self.computed and not order:
            self.computed.add(lid)
            pins = {v.get("formalParameter"): v
                    for v in children(child(el, "inputVariables"), "variable")}
            pins.update({v.get("formalParameter"): v
                         for v in children(child(el, "inOutVariables"), "variable")})
            if info.function and not info.extensible:
                names = ["EN"] + [n for n in info.inputs if n != "EN"]
            else:   # a function block, an extensible function: in the drawing's order
                names = list(pins)
            inputs, en, connected = [], None, False
            for pin in names:
                v = pins.get(pin)
                conns = connections(v) if v is not None else []
                if not conns:
                    if pin in info.inouts and v is not None:
                        raise self.err(f"the in-out {quote(pin)} must be connected", lid)
                    continue
                expr = yield self._paths(conns, own_order, pin in info.inouts, lid)
                if expr is None:
                    continue
                expr, _ = self._modifiers(v, expr, lid, pin)
                if pin == "EN":
                    en = expr if self._en_pin(el) is not None else None
                else:
                    connected = True
                    inputs.append((pin, expr))
            if info.function and info.inputs and not connected:
                self.cancelled.add(lid)
            else:
                self.statements.append(Call(lid, inputs, en))
        if link is None:
            return None
        pin, out_el = self._output(el, link, info, lid)
        if info.function and pin in info.inouts:
            v = next((v for g in ("inputVariables", "inOutVariables")
                      for v in children(child(el, g), "variable")
                      if v.get("formalParameter") == pin), None)
            value = yield self._paths(connections(v), own_order, True, lid)
        else:
            value = ("out", lid, pin)
        if out_el is not None:
            value, _ = self._modifiers(out_el, value, lid, pin)
        return value

    def _output(self, el, link, info, lid):
        """Which output of a block a connection leaves from: its formalParameter, the
        only output, or the one whose pin lies where the wire ends (Beremiz's rule)."""
        outs = children(child(el, "outputVariables"), "variable")
        outs += [v for v in children(child(el, "inOutVariables"), "variable")
                 if child(v, "connectionPointOut") is not None]
        wanted = link.get("formalParameter")
        if wanted:
            for v in outs:
                if v.get("formalParameter") == wanted:
                    return wanted, v
            if wanted in info.outputs or wanted == "ENO" or wanted in info.inouts:
                return wanted, None
            raise self.err(f"no output {quote(wanted)} on this block (outputs: "
                           f"{', '.join(info.outputs) or 'none'})", lid)
        if len(outs) == 1:
            return outs[0].get("formalParameter"), outs[0]
        points = children(link, "position")
        if points:
            end = position_of(points[-1])
            bx, by = position(el)
            for v in outs:
                rel = child(child(v, "connectionPointOut"), "relPosition")
                if rel is not None and (bx + _num(rel.get("x")), by + _num(rel.get("y"))) == end:
                    return v.get("formalParameter"), v
        if len(info.outputs) == 1:
            return info.outputs[0], None
        raise self.err("a wire leaves this block without saying from which output", lid)


def position_of(el):
    return _num(el.get("x")), _num(el.get("y"))


def _num(value) -> int:
    try:
        v = float(value or 0)
    except ValueError:
        return 0
    return int(v) if abs(v) < 1e15 else 0


__all__ = ["Body", "BlockInfo", "Call", "Assign", "Trigger", "run", "order_id", "connections",
           "and_", "or_", "TRUE", "ELEMENTS", "UNSUPPORTED"]
