"""One FBD or LD POU into one :class:`~fbd.network.Network`.

The body's statements (:mod:`.body`, in Beremiz's order) run one after the
other in a scan; a network runs its blocks in data-flow order. The builder
makes the two agree by giving every write of a variable its own block (a
MOVE, or the SEL / OR of a guarded or set/reset write) and wiring every read
to the write before it in the statement order ("single assignment"): a read
after a write sees it, a read before any write sees what the variable held
at the end of the previous scan (a feedback wire; on the first scan its
initial value), and the variable's output is its last write. So a variable
holds what was last written to it, at every point of the scan and at its
end, as in the ST that Beremiz generates.

What each variable becomes:

* ``inputVars``: network inputs (read-only); ``inOutVars``: input ``X`` and
  output ``X_OUT``; ``outputVars``, the function result ``OUT``, and locals
  the body writes: outputs, kept from scan to scan; ``tempVars`` (and a
  function's locals, which IEC starts afresh each call): their initial value
  at the start of every scan, not shown; constants: literals, never written.
* A program's local that the body only reads is an input holding its initial
  value (what an HMI or a debugger writes); a function block's is a literal.
* ``externalVars`` (globals): an input when only read, kept like a local when
  written; in a configuration run (:meth:`Project.plc`) they are the
  configuration's globals, shared by every program (see :mod:`.project`).
* Located variables keep their address on the port: %I and read-only %M are
  inputs, %Q and written %M outputs.

Blocks: a function (ADD, SEL, a FUNCTION POU) whose EN is FALSE is not
executed and hands its output type's initial value on (matiec's ``TEST_EN``);
a function block (TON, CTU, a FUNCTION_BLOCK POU) keeps its outputs and does
not see its inputs change; ENO is EN. A variable fed directly by such a block
is written only while ENO is TRUE.
"""

from __future__ import annotations

import re

from .. import types as t
from ..block import REQUIRED
from ..errors import FbdError
from ..library import block_type
from ..network import Network, Ref
from .access import _ACCESS, AccessMixin
from .body import Assign, Body, Call, Trigger
from .interface import read_interface
from .placing import EDITION2_NAMES, PlacingMixin
from .source import PlcOpenError, child, documentation, in_file, quote, tag
from .values import literal, run_value
from .variables import VariablesMixin, _derived_hint

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: how literals begin: a digit or sign, a quote, TRUE/FALSE, or a type prefix (T#, INT#...)
_LITERAL_START = re.compile(r"^\s*([-+0-9'\"]|(TRUE|FALSE)\s*$|[A-Za-z_]+#)", re.I)
LANGUAGES = ("FBD", "LD", "ST", "IL", "SFC")


class PouBuilder(PlacingMixin, VariablesMixin, AccessMixin):
    """Builds the network of the POU ``name`` (element ``el``); ``importer`` gives
    the project's other POUs, types and globals (see :class:`.project.Importer`).
    ``bound_globals``: the globals are shared through the configuration, so a
    written global starts each scan from the shared value, not its own."""

    def __init__(self, importer, name: str, el, bound_globals: bool = False):
        self.imp = importer
        self.name = name
        self.el = el
        self.kind = el.get("pouType")
        self.bound_globals = bound_globals
        self.net: Network | None = None

    def err(self, msg: str, lid=None) -> PlcOpenError:
        at = f", element localId {_lid(lid)}" if lid is not None else ""
        return in_file(self.imp.project.path, f"POU {quote(self.name)}{at}: {msg}")

    # ---------------------------------------------------------------- the POU
    def build(self) -> Network:
        body_el, lang = body_of(self.el)
        if lang not in ("FBD", "LD"):
            named = {"ST": "ST (Structured Text)", "IL": "IL (Instruction List)",
                     "SFC": "SFC (Sequential Function Chart)"}.get(lang, lang or "missing")
            raise self.err(f"body language {named} is not supported yet (FBD and LD POUs "
                           f"import)")
        if self.kind not in ("program", "functionBlock", "function"):
            raise self.err(f"pouType {quote(self.kind)} is not supported")
        self.vars = read_interface(self.el, self.name, self.imp.data_types,
                                   f"POU {quote(self.name)}")
        for var in self.vars.values():
            if var.kind == "externalVars" and var.init is None:
                glob = self.imp.globals.get(var.name)
                if glob is not None:
                    var.init = glob.init
        self._upper = {}
        for k in self.vars:
            self._upper.setdefault(k.upper(), k)
        self.net = Network(self.name, doc=documentation(self.el))
        self.used = set()                # instance names taken
        self.body = Body(body_el, self.block_info, self.err, lang)
        self.create_blocks()
        try:
            self.statements = self.body.generate()
        except PlcOpenError as e:
            if str(e) != e.detail:
                raise
            raise self.err(e.detail) from None
        self.place_blocks()
        self.classify()
        self.run_statements()
        self.finish()
        return self.net

    def _fresh(self, base: str) -> str:
        name = base if _IDENT.match(base) and len(base) <= 120 else "b"
        base, i = name, 1
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name

    def _add(self, base: str, block_name: str, **kw):
        return self.net.add(self._fresh(base), block_type(block_name)(**kw))

    # -------------------------------------------------------------- statements
    def run_statements(self):
        self.current = {}        # variable -> (source, feedback): its value now
        self.done = set()        # blocks called so far
        self.edges = {}          # trigger index -> its Q
        self.held = {}           # (lid, pin) -> the output as EN leaves it
        self.always_on = {}      # blocks whose EN turned out to be the constant TRUE
        self.starts = {}         # variable -> the block holding its value at scan start
        self._scanned = None
        self.writes = {}         # variable -> how many writes so far (names the cells)
        for st in self.statements:
            if isinstance(st, Call):
                self.call(st)
            elif isinstance(st, Assign):
                self.assign(st)
            elif isinstance(st, Trigger):
                cls = "R_TRIG" if st.edge == "rising" else "F_TRIG"
                inst = self._add(f"_{st.edge}_{st.lid}_{st.pin}", cls)
                self._connect(self.resolve(st.expr, st.lid), inst.CLK, st.lid)
                self.edges[st.index] = inst.Q

    def call(self, st: Call):
        lid, inst, info = st.lid, self.insts[st.lid], self.infos[st.lid]
        eno = self.eno.get(lid)
        if eno is not None:
            en = self.resolve(st.en, lid)
            self._connect(en, eno.IN, lid)
            if en == (True, False) and not any(k[0] == lid for k in self.held):
                # EN is always TRUE (an ENO of a block without EN): the block just runs
                del self.eno[lid]
                self.always_on[lid] = eno
                eno = None
        elif st.en is not None:       # EN wired through something the body cannot see
            raise self.err("EN is wired but the block has no EN pin", lid)
        hold = eno is not None and not info.function
        for pin, expr in st.inputs:
            src = self.resolve(expr, lid)
            if hold:
                # a function block not executed while EN is FALSE sees the inputs of
                # the last scan it ran: a SEL holding its own previous output
                sel = self._add(f"_en_in_{lid}_{pin}", "SEL")
                self._connect((eno.OUT, False), sel.G, lid)
                self.net.connect(sel.OUT, sel.IN0, feedback=True)
                self._connect(src, sel.IN1, lid)
                src = (sel.OUT, False)
            try:
                target = inst.port(pin)
            except FbdError as e:
                raise self.err(str(e), lid) from None
            self._connect(src, target, lid)
        wired = {pin for pin, _ in st.inputs}
        for port in inst.input_ports():
            # an input left open holds its initial value, as matiec keeps it
            if port.name not in wired and isinstance(port.type, t.DataType) \
                    and port.default is REQUIRED and not inst.is_macro:
                self._connect((run_value(port.type.default, port.type), False),
                              inst.port(port.name), lid)
        self.done.add(lid)
        for key in self._inout_targets(st):
            pin = next(p for p, e in st.inputs if e[0] == "var" and self.key(e[1]) == key)
            out = (inst.port(f"{pin}_OUT"), False)
            if eno is not None:
                out = self._guarded(key, (eno.OUT, False), out, lid)
            else:
                out = self._cell(key, "MOVE", lid, IN=out)
            self.current[key] = out

    def assign(self, st: Assign):
        key = self.key(st.target)
        steps = None
        if key is None:
            key, steps = self._access(st.target, st.lid, f"{st.what} writes")
        var = self.vars[key]
        raw = (st.guard is not None and st.expr[0] == "out" and st.guard[1] == st.expr[1]
               and st.expr[2] != "ENO")
        src = self._raw_out(st.expr) if raw else self.resolve(st.expr, st.lid)
        if steps is not None:       # a member or an element: the whole variable, rewritten
            if st.mode != "none":
                part = steps[-1][2]
                if part is not t.BOOL:
                    raise self.err(f"a {st.mode} coil on {quote(st.target)}, which is "
                                   f"{part}, not BOOL", st.lid)
                src = self._coil_value(st.mode, self._read_path(key, steps, st.lid), src,
                                       st.lid)
            if st.guard is not None:
                src = self._select(self.resolve(st.guard, st.lid),
                                   self._read_path(key, steps, st.lid), src, st.lid)
            self.current[key] = self._cell(key, "MOVE", st.lid,
                                           IN=self._write_path(key, steps, src, st.lid))
            return
        if st.mode != "none":
            if var.type is not t.BOOL:
                raise self.err(f"a {st.mode} coil on {quote(key)}, which is {var.type_name}, "
                               f"not BOOL", st.lid)
            prev = self.value(key, st.lid)
            if st.mode == "set":    # IF src THEN v := TRUE
                value = self._cell(key, "OR", st.lid, IN1=prev, IN2=src)
            else:                   # IF src THEN v := FALSE
                value = self._cell(key, "SEL", st.lid, G=src, IN0=prev, IN1=(False, False))
            if st.guard is not None:
                value = self._guarded(key, self.resolve(st.guard, st.lid), value, st.lid)
        elif st.guard is not None:  # IF ENO THEN v := src
            value = self._guarded(key, self.resolve(st.guard, st.lid), src, st.lid)
        else:
            value = self._cell(key, "MOVE", st.lid, IN=src)
        self.current[key] = value

    def _coil_value(self, mode, prev, src, lid):
        if mode == "set":
            inst = self._add(f"_set_{lid}", "OR")
            self._connect(prev, inst.IN1, lid)
            self._connect(src, inst.IN2, lid)
        else:
            inst = self._add(f"_reset_{lid}", "SEL")
            self._connect(src, inst.G, lid)
            self._connect(prev, inst.IN0, lid)
            self._connect((False, False), inst.IN1, lid)
        return inst.OUT, False

    def _select(self, guard, prev, src, lid):
        inst = self._add(f"_if_eno_{lid}", "SEL")
        self._connect(guard, inst.G, lid)
        self._connect(prev, inst.IN0, lid)
        self._connect(src, inst.IN1, lid)
        return inst.OUT, False

    def _guarded(self, key, guard, src, lid):
        return self._cell(key, "SEL", lid, G=guard, IN0=self.value(key, lid), IN1=src)

    def _cell(self, key, block, lid, **inputs):
        """A block that is one write of ``key``; returns its output as a source."""
        n = self.writes[key] = self.writes.get(key, 0) + 1
        var = self.vars[key]
        # a MOVE into a string variable is of its type: it cuts to its capacity, as a store does
        typed = {"types": {"T": var.type}} if block == "MOVE" and var.type is not None \
            and var.type.kind is t.Kind.STRING else {}
        cell = self._add(f"{var.name}_w{n}" if n > 1 else f"{var.name}_w", block, **typed)
        for port, src in inputs.items():
            self._connect(src, cell.port(port), lid)
        return (cell.OUT, False)

    def _connect(self, src, target, lid):
        value, fb = src
        try:
            self.net.connect(value, target, feedback=fb)
        except FbdError as e:
            raise self.err(str(e), lid) from None

    # ------------------------------------------------------------ expressions
    def resolve(self, expr, lid):
        """(source, feedback) of an expression at this point of the scan. Nested
        NOT / AND / OR are built bottom-up with an explicit stack."""
        stack, results = [(expr, False)], []
        while stack:
            e, ready = stack.pop()
            kind = e[0]
            if kind in ("not", "and", "or") and not ready:
                stack.append((e, True))
                for sub in reversed(e[1] if kind != "not" else (e[1],)):
                    stack.append((sub, False))
                continue
            if kind == "lit":
                results.append((e[1], False))
            elif kind == "var":
                results.append(self.read(e[1], e[2], lid))
            elif kind == "out":
                results.append(self.block_output(e[1], e[2], lid))
            elif kind == "edge":
                results.append((self.edges[e[1]], False))
            elif kind == "not":
                src = results.pop()
                if isinstance(src[0], bool):
                    results.append((not src[0], False))
                    continue
                inst = self._add(f"_not_{e[2]}_{e[3]}", "NOT")
                self._connect(src, inst.IN, lid)
                results.append((inst.OUT, False))
            else:
                n = len(e[1])
                args = results[-n:]
                del results[-n:]
                inst = self._add(f"_{kind}_{lid}", kind.upper(), n=n)
                for i, src in enumerate(args, 1):
                    self._connect(src, inst.port(f"IN{i}"), lid)
                results.append((inst.OUT, False))
        return results[0]

    def read(self, text, element_lid, lid):
        """A variable read at this point: its last write, or its value at scan start."""
        key = self.key(text)
        if key is not None:
            var = self.vars[key]
            if var.type is None:
                raise self.err(f"reading {quote(key)} of type {var.type_name} is not "
                               f"supported; {_derived_hint(var)}", element_lid)
            return self.value(key, element_lid)
        enum = self._enum_value(text, element_lid)
        if enum is not None:
            return enum
        if _LITERAL_START.match(text):     # a literal, or a malformed one: say which
            where = f"POU {quote(self.name)}, element localId {_lid(element_lid)}"
            return literal(text, None, where), False
        member = self._member(text)
        if member is not None:
            return self.block_output(member[0], member[1], lid)
        if _ACCESS.match(text) and (m := _ACCESS.match(text)).group(2) and self.key(m.group(1)):
            key, steps = self._access(text, element_lid, "reads")
            return self._read_path(key, steps, lid)
        if _IDENT.match(text):
            raise self.err(f"{quote(text)} is not a declared variable", element_lid)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[[^]]*\])+$", text):
            raise self._undeclared(text, element_lid, "reads")
        raise self.err(f"expression {quote(text)} is not supported (only variable names, "
                       f"literals and outputs of this body's function blocks, "
                       f"instance.output)", element_lid)

    def _member(self, text):
        """``inst.Q``: the output Q of the block this body places as ``inst``."""
        name, dot, pin = text.partition(".")
        if not dot or not _IDENT.match(pin):
            return None
        for lid, inst in self.insts.items():
            if inst.name.upper() == name.upper():
                outs = {p.name.upper(): p.name for p in inst.output_ports()}
                if pin.upper() in outs:
                    return lid, outs[pin.upper()]
        return None

    def value(self, key, lid):
        if key in self.current:
            return self.current[key]
        return self.start(key, lid)

    def start(self, key, lid):
        """What ``key`` holds when the scan begins."""
        var, role = self.vars[key], self.role[key]
        if role in ("input", "inout"):
            return self.inputs[key], False
        if role in ("temp", "const", "result") or key not in self.written:
            if var.structured:
                return self._held_value(var), False
            return var.start, False
        if key not in self.starts:
            init_differs = var.init is not None and var.init != run_value(var.type.default,
                                                                            var.type)
            if init_differs and not self.bound_globals_for(key):
                # the first scan reads the initial value, later ones the previous value
                sel = self._add(f"_start_{var.name}", "SEL")
                self.net.connect(self._first_done(), sel.G, feedback=True)
                self.net.connect(var.init, sel.IN0)
                self.starts[key] = (sel, "IN1")
            else:
                self.starts[key] = (self._add(f"_start_{var.name}", "MOVE"), "IN")
        return self.starts[key][0].OUT, False

    def _first_done(self) -> Ref:
        """An output that is FALSE on the first scan and TRUE afterwards (read
        through a feedback wire)."""
        if self._scanned is None:
            inst = self._add("_scanned", "MOVE")
            self.net.connect(True, inst.IN)
            self._scanned = inst.OUT
        return self._scanned

    def block_output(self, lid, pin, consumer):
        """A block's output as its consumers see it: this scan's when the block has
        run, else the last scan's; held or reset as EN leaves it."""
        if lid in self.body.cancelled:
            raise self.err("this function has no input connected, so Beremiz does not call "
                           "it; its output cannot be read", lid)
        fb = lid not in self.done
        inst = self.insts[lid]
        eno = self.eno.get(lid)
        if pin == "ENO":
            if lid in self.always_on:
                return True, False
            return (eno.OUT, fb) if eno is not None else (True, False)
        src = self._raw_out(("out", lid, pin))[0]
        if eno is None:
            return src, fb
        if (lid, pin) not in self.held:
            if self.infos[lid].function:
                out = self._add(f"_en_out_{lid}_{pin}", "SEL")
                self.net.connect(eno.OUT, out.G)
                self.net.connect(self._default_like(src, lid, pin), out.IN0)
                self.net.connect(src, out.IN1)
            else:    # a function block keeps its outputs while not executed
                out = self._add(f"_en_out_{lid}_{pin}", "SEL")
                self.net.connect(eno.OUT, out.G)
                self.net.connect(out.OUT, out.IN0, feedback=True)
                self.net.connect(src, out.IN1)
            self.held[(lid, pin)] = out.OUT
        del inst
        return self.held[(lid, pin)], fb

    def _raw_out(self, expr):
        lid, pin = expr[1], expr[2]
        inst = self.insts[lid]
        if pin in self.infos[lid].inouts:
            pin = f"{pin}_OUT"
        outs = [p.name for p in inst.output_ports()]
        if (not pin or pin not in outs) and len(outs) == 1:
            pin = outs[0]
        try:
            return inst.port(pin), lid not in self.done
        except FbdError as e:
            raise self.err(str(e), lid) from None

    def _default_like(self, src, lid, pin):
        """The initial value of ``src``'s type: a literal where the block's port says
        the type, else a SEL that never leaves its initial value (its type is
        inferred from ``src``)."""
        for port in self.insts[lid].output_ports():
            if port.name == src.port and isinstance(port.type, t.DataType):
                return run_value(port.type.default, port.type)
        zero = self._add(f"_en_zero_{lid}_{pin}", "SEL")
        self.net.connect(False, zero.G)
        self.net.connect(zero.OUT, zero.IN0, feedback=True)
        self.net.connect(src, zero.IN1)
        return zero.OUT

def _lid(lid) -> str:
    lid = str(lid)
    return lid if len(lid) <= 20 and lid.isalnum() else quote(lid)


def body_of(pou_el):
    """The ``<body>``'s language element and its name, or (None, None)."""
    body = child(pou_el, "body")
    for c in (body if body is not None else []):
        if tag(c) in LANGUAGES:
            return c, tag(c)
    return None, None


__all__ = ["PouBuilder", "body_of", "EDITION2_NAMES", "LANGUAGES"]
