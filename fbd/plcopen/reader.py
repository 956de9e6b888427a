"""Import PLCopen TC6 XML (v2.01) projects: FBD POUs become :class:`Network` s.

::

    project = load("plc.xml")
    net = project.network("plc_prg")      # a Network, usable with Harness
    project.configuration.tasks           # its program instances as PLC tasks
    save(net, "out.xml")                  # export (fbd.plcopen.writer)

What is imported
----------------
* POUs of type program, functionBlock and function whose body is FBD. Function
  blocks and functions are also usable as macros by other POUs (by typeName)
  and from Python (``net.add("c", project.network("Counter"))``); a function's
  return value is its output ``OUT``.
* Elements: ``block`` (the standard library by typeName, user POUs as macros,
  instanceName kept; block parameters from our own ``addData``; MULTIME and
  DIVTIME, the edition-2 names, are MUL_TIME and DIV_TIME),
  ``inVariable``, ``outVariable``, ``inOutVariable``, ``connector`` /
  ``continuation``, literals (TRUE, 5, 16#FF, 1.5, T#1s, 'text', INT#5),
  ``negated`` pins (a NOT is inserted), ``edge`` rising/falling pins (an
  R_TRIG/F_TRIG), ``storage`` set/reset on output variables (set and reset
  coils: ``v := v OR x`` / ``v := SEL(x, v, FALSE)``).
* EN/ENO: a block whose EN is wired does not execute while EN is FALSE (IEC
  61131-3 ed. 2, 2.5.1.2): each of its inputs passes through a SEL that holds
  the value of the last scan it ran, each output through a SEL that holds its
  last value, and ENO is EN. Built from SEL blocks and feedback wires, so the
  compiler needs nothing new.
* Variables: inputVars are network inputs; outputVars network outputs;
  localVars that the body writes are kept from scan to scan and also exposed as
  outputs of the same name (tests can read them), except the variables our
  export writes to carry a feedback wire (addData ``urn:fbd-sim:feedback``); tempVars start from their
  initial value every scan; constants (``constant="true"``) are literals;
  externalVars are inputs holding the configuration's global initial value
  (a global the body writes is kept like a local, since each program runs
  with its own table). inOutVars (VAR_IN_OUT) become an input ``X`` and an
  output ``X_OUT``; a block's in-out pin fed from a variable writes the new
  value back into it. Located variables keep their address on the port
  (``net.addresses``): inputVars and locals at %I, and %M locals the body
  only reads, are inputs; outputVars, locals at %Q, and %M locals it writes
  are outputs.
* A variable may be written by several elements: each write is one block in
  execution order, and a read sees the last write before it; a read before
  any write sees the previous scan's value (a feedback wire; on the first
  scan the initial value).
* Execution order, as Beremiz's generator (PLCGenerator.py) has it: elements
  with ``executionOrderId`` > 0 first, in that order; then the output and
  in-out variables top to bottom (rows less than 10 apart are one row, left
  to right), each preceded by the blocks it depends on; then the blocks no
  output pulled, the same way. A direct wire from an element that runs later
  reads the previous scan's value.
* A POU our export wrote for one of this library's blocks (MEMORY, LIFO, ...:
  an ST function block whose ``addData`` ``urn:fbd-sim:native`` names the
  block, its types and its parameters) is that block again, wherever it is
  placed; its ST is not read. The marker must agree with the POU's interface,
  or the POU is refused with the reason. A POU of the same name without the
  marker is an ordinary POU (one in ST does not import).
* The first configuration: each program instance of each task becomes a
  :class:`TaskSpec` (interval, priority) that ``fbd run plc.xml`` runs as a PLC
  task (the simulator runs one program per task).

What is not imported, each a :class:`PlcOpenError` naming the POU and element
-------------------------------------------------------------------------------
Bodies in ST, IL, LD or SFC (reported when the POU is asked for or placed,
the rest of the project still loads), unknown block types, expressions that
are neither a variable name nor a literal (``a.b``, ``x[1]``), jumps, labels
and returns, derived data types read by the body, event tasks.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import cmp_to_key

from .. import address as located
from .. import types as t
from ..block import Extensible, registry
from ..errors import FbdError
from ..library import load_libraries
from ..network import Network, Ref

NS = "{http://www.plcopen.org/xml/tc6_0201}"
LANGUAGES = ("FBD", "ST", "IL", "LD", "SFC")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NUM = re.compile(r"^[+-]?[0-9][0-9_]*$")
_REAL = re.compile(r"^[+-]?[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?$")


class PlcOpenError(FbdError):
    """A PLCopen file that cannot be read or a POU that cannot be imported."""


def _tag(el) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.split("}", 1)[-1]


def _children(el, name):
    return [c for c in el if _tag(c) == name]


def _child(el, name):
    for c in el:
        if _tag(c) == name:
            return c
    return None


@dataclass
class Var:
    name: str
    kind: str                 # inputVars, outputVars, localVars, ...
    type: t.DataType | None   # None: a derived type (an FB instance, ...)
    type_name: str
    init: object = None       # coerced initial value, or None
    address: str | None = None
    constant: bool = False
    feedback: bool = False    # our export's carrier of a feedback wire (not an output)


@dataclass
class TaskSpec:
    """One program instance of a configuration, as the PLC task that runs it.

    IEC lets one task run several program instances; the simulator runs one
    program per task, so each instance becomes a task of its own, named after
    the instance, with its task's interval and priority."""
    name: str                 # the program instance's name (the PLC task's name)
    program: str              # the POU it instantiates
    task: str | None          # the configuration's task ("" when the instance has none)
    interval_us: int | None   # None: no interval given (runs at the default cycle)
    priority: int
    resource: str


@dataclass
class Configuration:
    name: str
    tasks: list = field(default_factory=list)       # TaskSpec, in file order
    globals: dict = field(default_factory=dict)     # name -> initial value


@dataclass
class Project:
    """The POUs of a PLCopen file. ``pous`` maps name → Network for every FBD
    POU that imports; ``errors`` maps the others to why they do not."""
    path: str
    pous: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    blocks: dict = field(default_factory=dict)     # POU name -> the library block it is
    languages: dict = field(default_factory=dict)  # POU name -> body language
    configuration: Configuration | None = None      # the first configuration, if any
    configuration_error: PlcOpenError | None = None  # why it cannot run, if it cannot

    def network(self, name: str) -> Network:
        if name in self.pous:
            return self.pous[name]
        if name in self.blocks:
            raise PlcOpenError(f"{self.path}: POU {name!r} is the library block "
                               f"{self.blocks[name]!r} (written in ST for the editors), "
                               f"not a network; place it in one")
        if name in self.errors:
            raise self.errors[name]
        raise PlcOpenError(f"{self.path}: no POU named {name!r} (POUs: "
                           f"{', '.join(self.languages) or 'none'})")

    def plc(self, cycle=0.005, **plc_options):
        """A :class:`~fbd.runtime.Plc` running the configuration: one task per program
        instance, with its task's interval and priority (``cycle`` for an instance
        without an interval). The first instance is the PLC's main task (what
        :meth:`Plc.scan` counts); read a signal of any as ``"instance:path"``."""
        import datetime

        from ..runtime.plc import Plc, to_us
        if self.configuration_error is not None:
            raise self.configuration_error
        conf = self.configuration
        if conf is None or not conf.tasks:
            raise PlcOpenError(f"{self.path}: no configuration with a program instance to "
                               f"run; run one POU instead (POUs: "
                               f"{', '.join(self.languages) or 'none'})")
        plc = None
        for spec in conf.tasks:
            net = self.network(spec.program)
            us = spec.interval_us if spec.interval_us is not None else to_us(cycle, "cycle")
            if plc is None:
                plc = Plc(net, datetime.timedelta(microseconds=us), task_name=spec.name,
                          **plc_options)
                plc.main.priority = spec.priority
                continue
            try:
                plc.add_task(spec.name, net, us, spec.priority)
            except FbdError as e:
                raise PlcOpenError(f"{self.path}: program instance {spec.name!r}: {e}") from None
        plc.tasks.sort(key=lambda tk: tk.priority)
        return plc


def _parse(path):
    """Parse an untrusted file safely: no entity is expanded (so no billion laughs
    and no external file is read), no DTD is loaded, nothing is fetched from the
    network, and libxml2's limits on depth and size stay on (huge_tree off). A
    PLCopen file has no DTD: one that declares entities is refused outright."""
    from lxml import etree
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             load_dtd=False, remove_comments=True, remove_pis=True)
    try:
        tree = etree.parse(str(path), parser)
    except etree.XMLSyntaxError as e:
        raise PlcOpenError(f"{path}: not well-formed XML: {_flat(str(e))}") from None
    except OSError as e:
        raise PlcOpenError(f"{path}: cannot read: {e}") from None
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise PlcOpenError(f"{path}: the file declares XML entities in a DTD; PLCopen files "
                           f"have none, and this reader does not expand them")
    return tree.getroot()


def _flat(text: str) -> str:
    return " ".join(text.split())


def load_project(path) -> Project:
    """Read a PLCopen TC6 v2.01 file and import every FBD POU it holds."""
    load_libraries()
    root = _parse(path)
    if _tag(root) != "project":
        raise PlcOpenError(f"{path}: the root element is <{_tag(root)}>, not a PLCopen <project>")
    pou_els = {}
    for types_el in _children(root, "types"):
        for pous in _children(types_el, "pous"):
            for pou in _children(pous, "pou"):
                pou_els[pou.get("name")] = pou
    project = Project(str(path))
    globals_ = _global_inits(root)
    try:
        project.configuration = _configuration(root, path, globals_)
    except PlcOpenError as e:   # reported when the configuration is run
        project.configuration_error = e
    importer = _Importer(project, pou_els, globals_)
    for name, el in pou_els.items():   # our blocks first: the other POUs place them
        if _native_marker(el) is not None:
            try:
                importer.native(name)
            except PlcOpenError as e:
                project.errors[name] = e
    for name in pou_els:
        if name in importer.natives:
            continue
        try:
            importer.build(name)
        except PlcOpenError as e:
            project.errors[name] = e
    return project


load = load_project


def _configuration(root, path, globals_) -> Configuration | None:
    for confs in root.iter(NS + "configurations"):
        for conf in _children(confs, "configuration"):
            c = Configuration(conf.get("name") or "config", [], dict(globals_))
            for res in _children(conf, "resource"):
                rname = res.get("name") or "resource"
                for task in _children(res, "task"):
                    where = f"{path}: task {task.get('name')!r}"
                    interval = task.get("interval")
                    if task.get("single") and not interval:
                        raise PlcOpenError(f"{where}: tasks triggered by an event "
                                           f"(single={task.get('single')!r}) are not "
                                           f"supported; give it an interval")
                    us = None
                    if interval:
                        try:
                            us = t.parse_time(interval if "#" in interval else "T#" + interval,
                                              where)
                        except t.TypeError_ as e:
                            raise PlcOpenError(f"{where}: interval {interval!r} is not a "
                                               f"duration ({e})") from None
                        if us <= 0:
                            raise PlcOpenError(f"{where}: interval {interval!r} must be "
                                               f"positive")
                    try:
                        prio = int(task.get("priority", "0"))
                    except ValueError:
                        raise PlcOpenError(f"{where}: priority {task.get('priority')!r} is "
                                           f"not a number") from None
                    for inst in _children(task, "pouInstance"):
                        c.tasks.append(TaskSpec(inst.get("name"), inst.get("typeName"),
                                                task.get("name"), us, prio, rname))
                for inst in _children(res, "pouInstance"):
                    c.tasks.append(TaskSpec(inst.get("name"), inst.get("typeName"), "",
                                            None, 0, rname))
            return c
    return None


def _global_inits(root) -> dict:
    out = {}
    for gv in root.iter(NS + "globalVars"):
        for v in _children(gv, "variable"):
            try:
                var = _var(v, "globalVars", "configuration")
            except PlcOpenError:
                continue
            if var.init is not None:
                out[var.name] = var.init
    return out


def _type_of(type_el, where):
    if type_el is None or len(type_el) == 0:
        raise PlcOpenError(f"{where}: no type")
    inner = type_el[0]
    name = _tag(inner)
    if name == "derived":
        return None, inner.get("name")
    if name == "string":
        return t.STRING, "STRING"
    try:
        return t.by_name(name), name
    except t.TypeError_:
        return None, name


def _var(v, kind, pou) -> Var:
    name = v.get("name")
    where = f"POU {pou!r}: variable {name!r}"
    tp, tname = _type_of(_child(v, "type"), where)
    init = None
    iv = _child(v, "initialValue")
    if iv is not None:
        sv = _child(iv, "simpleValue")
        if tp is None:  # a derived type: an error only if the body reads it
            return Var(name, kind, tp, tname, None, v.get("address"))
        if sv is None:
            raise PlcOpenError(f"{where}: only simple initial values of elementary "
                               f"types are supported")
        init = _literal(sv.get("value", ""), tp, where)
    return Var(name, kind, tp, tname, init, v.get("address"),
               feedback=kind == "localVars" and _has_data(v, FEEDBACK_NAME))


def _has_data(el, name: str) -> bool:
    ad = _child(el, "addData")
    return ad is not None and any(d.get("name") == name for d in _children(ad, "data"))


def _literal(text: str, tp: t.DataType | None, where: str):
    """A literal's Python value (coerced to ``tp`` when given)."""
    s = text.strip()
    u = s.upper()
    if re.match(r"^(T|TIME|LT|LTIME)#", u):
        value = _dt.timedelta(microseconds=t.parse_time(s, where))
    elif u in ("TRUE", "FALSE"):
        value = u == "TRUE"
    elif u.startswith("BOOL#"):
        value = u[5:] in ("TRUE", "1")
    elif len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        value = _unescape(s[1:-1])
    elif "#" in s and s.split("#", 1)[0].upper() in ("REAL", "LREAL"):
        value = float(s.split("#", 1)[1].replace("_", ""))
    elif "#" in s or _NUM.match(s):
        value = t.parse_int_literal(s, where)
        prefix = s.split("#", 1)[0].upper() if "#" in s else ""
        if prefix and prefix not in ("2", "8", "16") and tp is None:
            tp = t.by_name(prefix)
    elif _REAL.match(s):
        value = float(s.replace("_", ""))
    else:
        raise PlcOpenError(f"{where}: {text!r} is not a literal")
    if tp is not None:
        try:
            value = tp.coerce(value, where)
            if tp.kind == "time":
                value = _dt.timedelta(microseconds=value)
        except t.TypeError_ as e:
            raise PlcOpenError(str(e)) from None
    return value


_ESCAPES = {"$": "$", "'": "'", '"': '"', "L": "\n", "N": "\n", "P": "\f", "R": "\r",
            "T": "\t"}


def _unescape(body: str) -> str:
    """IEC string escapes: $$ $' $N $T ... and $hh (a character by its code)."""
    return re.sub(r"\$([0-9A-Fa-f]{2}|.)",
                  lambda m: _ESCAPES.get(m.group(1).upper(), None) or
                  (chr(int(m.group(1), 16)) if len(m.group(1)) == 2 else m.group(1)), body)


def _is_literal(text: str) -> bool:
    try:
        _literal(text, None, "")
        return True
    except (PlcOpenError, t.TypeError_, ValueError):
        return False


class _Importer:
    def __init__(self, project: Project, pou_els: dict, globals_: dict):
        self.project = project
        self.pou_els = pou_els
        self.globals = globals_
        self.building: list[str] = []
        self.natives: dict = {}     # POU name -> a function making its library block

    def native(self, name: str):
        """The library block that the marked POU ``name`` stands for (see
        :func:`_native_block`); a fresh Block on every call."""
        if name not in self.natives:
            el = self.pou_els[name]
            self.natives[name] = None
            self.project.languages[name] = next(
                (_tag(c) for b in _children(el, "body") for c in b if _tag(c) in LANGUAGES), None)
            self.natives[name] = _native_block(name, el)
            self.project.blocks[name] = self.natives[name]()
        factory = self.natives[name]
        if factory is None:
            raise self.project.errors[name]
        return factory()

    def build(self, name: str) -> Network:
        p = self.project
        if name in p.pous:
            return p.pous[name]
        if name in p.errors:
            raise p.errors[name]
        if name in self.building:
            raise PlcOpenError(f"POU {name!r} uses itself (through "
                               f"{' -> '.join(self.building + [name])})")
        self.building.append(name)
        try:
            net = _PouBuilder(self, name, self.pou_els[name]).build()
        except PlcOpenError as e:
            p.errors[name] = e
            raise
        finally:
            self.building.pop()
        p.pous[name] = net
        return net


class _PouBuilder:
    """One FBD POU into one Network (see the module docstring for the rules)."""

    def __init__(self, importer: _Importer, name: str, el):
        self.imp = importer
        self.name = name
        self.el = el
        self.kind = el.get("pouType")
        self.vars: dict[str, Var] = {}
        self.net: Network | None = None

    def err(self, msg: str, lid=None) -> PlcOpenError:
        at = f", element localId {lid}" if lid is not None else ""
        return PlcOpenError(f"POU {self.name!r}{at}: {msg}")

    # -- interface -------------------------------------------------------------
    def read_interface(self):
        iface = _child(self.el, "interface")
        if self.kind == "function":
            rt = _child(iface, "returnType") if iface is not None else None
            if rt is not None:
                tp, tname = _type_of(rt, f"POU {self.name!r} return type")
                self.vars[self.name] = Var("OUT", "return", tp, tname)
        if iface is None:
            return
        for group in iface:
            kind = _tag(group)
            if kind in ("returnType", "documentation", "addData", ""):
                continue
            constant = _true(group.get("constant"))
            for v in _children(group, "variable"):
                var = _var(v, kind, self.name)
                var.constant = constant
                if kind == "externalVars" and var.init is None:
                    var.init = self.imp.globals.get(var.name)
                self.vars[var.name] = var

    # -- body ------------------------------------------------------------------
    def build(self) -> Network:
        body = _child(self.el, "body")
        lang = None
        if body is not None:
            for c in body:
                if _tag(c) in LANGUAGES:
                    lang = _tag(c)
                    break
        self.imp.project.languages[self.name] = lang
        if lang != "FBD":
            raise self.err(f"body language {lang or 'missing'} is not supported "
                           f"(only FBD POUs import)")
        if self.kind not in ("program", "functionBlock", "function"):
            raise self.err(f"pouType {self.kind!r} is not supported")
        self.read_interface()
        fbd = _child(body, "FBD")
        self.elements = {}
        for c in fbd:
            tag = _tag(c)
            if tag in ("comment", ""):
                continue
            lid = c.get("localId")
            if tag not in ("block", "inVariable", "outVariable", "inOutVariable",
                           "connector", "continuation"):
                raise self.err(f"<{tag}> is not supported in FBD", lid)
            if lid in self.elements:
                raise self.err("two elements have this localId", lid)
            self.elements[lid] = c
        self.net = Network(self.name, doc=_doc(self.el))
        self.used_names = set()
        self._inputs = {}
        self._first = None
        self.connectors = {c.get("name"): c for c in self.elements.values()
                           if _tag(c) == "connector"}
        self.order_elements()
        self.create_blocks()
        self.collect_writers()
        self.classify()
        self.create_cells()
        self.wire()
        return self.net

    def _declare_input(self, var: Var):
        if var.name in self._inputs:
            return self._inputs[var.name]
        if var.type is None:
            raise self.err(f"input {var.name!r} has type {var.type_name}, not an elementary type")
        default = _run_value(var.init if var.init is not None else var.type.default, var.type)
        try:
            ref = self.net.input(var.name, var.type, default, at=var.address)
        except FbdError as e:
            raise self.err(f"variable {var.name!r}: {e}") from None
        self._inputs[var.name] = ref
        self.used_names.add(var.name)
        return ref

    # -- execution order -------------------------------------------------------
    def _pin_sources(self, el):
        """(pin element or None, connection element) pairs of an element's inputs."""
        tag = _tag(el)
        out = []
        if tag == "block":
            for group in ("inputVariables", "inOutVariables"):
                iv = _child(el, group)
                for v in (iv if iv is not None else []):
                    cpi = _child(v, "connectionPointIn")
                    for c in (_children(cpi, "connection") if cpi is not None else []):
                        out.append((v, c))
        elif tag in ("outVariable", "inOutVariable", "connector"):
            cpi = _child(el, "connectionPointIn")
            for c in (_children(cpi, "connection") if cpi is not None else []):
                out.append((None, c))
        return out

    def _deps(self, el):
        """Elements (blocks / inOutVariables) an element's inputs come from."""
        deps, todo, seen = [], [el], set()
        while todo:
            e = todo.pop()
            for _, c in self._pin_sources(e):
                src = self._through_continuation(self.elements.get(c.get("refLocalId")))
                if src is None:
                    continue
                if _tag(src) in ("block", "inOutVariable"):
                    deps.append(src)
                elif _tag(src) == "connector" and src.get("localId") not in seen:
                    seen.add(src.get("localId"))
                    todo.append(src)
        return deps

    def _through_continuation(self, src):
        seen = 0
        while src is not None and _tag(src) == "continuation":
            con = self.connectors.get(src.get("name"))
            if con is None:
                raise self.err(f"continuation {src.get('name')!r} has no connector",
                               src.get("localId"))
            seen += 1
            if seen > len(self.elements):
                raise self.err("connector/continuation cycle", src.get("localId"))
            src = con
        return src

    def order_elements(self):
        """Ranks of blocks and written variables, as Beremiz's generator orders them:
        first the elements with an executionOrderId > 0, by it; then the output
        variables top to bottom (rows 10 apart) and left to right, each preceded
        by the blocks it depends on; then the remaining blocks the same way."""
        nodes = [e for e in self.elements.values()
                 if _tag(e) in ("block", "outVariable", "inOutVariable")]
        self.rank = {}
        counter = 0
        ordered = sorted((e for e in nodes if _order_id(e) > 0), key=_order_id)
        for e in ordered:
            counter += 1
            self.rank[e.get("localId")] = counter
        rest = [e for e in nodes if _order_id(e) <= 0]
        key = cmp_to_key(_sort_instances)
        outs = sorted((e for e in rest if _tag(e) != "block"), key=key)
        blks = sorted((e for e in rest if _tag(e) == "block"), key=key)
        on_stack = set()
        for root in outs + blks:
            if root.get("localId") in self.rank:
                continue
            work = [(root, iter(self._deps(root)))]
            on_stack.add(root.get("localId"))
            while work:
                e, it = work[-1]
                for d in it:
                    dlid = d.get("localId")
                    if dlid in self.rank or dlid in on_stack or _order_id(d) > 0:
                        continue
                    on_stack.add(dlid)
                    work.append((d, iter(self._deps(d))))
                    break
                else:
                    work.pop()
                    on_stack.discard(e.get("localId"))
                    counter += 1
                    self.rank[e.get("localId")] = counter

    # -- instances -------------------------------------------------------------
    def _fresh(self, base: str) -> str:
        name = base if _IDENT.match(base) else "b"
        base = name
        i = 1
        while name in self.used_names:
            i += 1
            name = f"{base}_{i}"
        self.used_names.add(name)
        return name

    def create_blocks(self):
        reg = registry()
        self.insts = {}
        self.en_pins = {}     # lid -> the EN pin element, when EN is connected
        for lid, el in self.elements.items():
            if _tag(el) != "block":
                continue
            tname = el.get("typeName") or ""
            if tname not in self.imp.pou_els and tname not in reg:
                # IEC names are case-insensitive: "add" is ADD
                tname = next((n for n in (*self.imp.pou_els, *reg) if n.upper() == tname.upper()),
                             tname)
            if tname not in self.imp.pou_els:
                tname = EDITION2_NAMES.get(tname.upper(), tname)
            iname = el.get("instanceName") or f"{tname}_{lid}"
            ivs = _child(el, "inputVariables")
            pins = [v.get("formalParameter") for v in (ivs if ivs is not None else [])]
            for v in (ivs if ivs is not None else []):
                if v.get("formalParameter") == "EN" and self._connections(v):
                    self.en_pins[lid] = v
            if tname in self.imp.pou_els and _native_marker(self.imp.pou_els[tname]) is not None:
                try:
                    element = self.imp.native(tname)
                except PlcOpenError as e:
                    raise self.err(f"block {tname!r} cannot be placed: {e}", lid) from None
            elif tname in self.imp.pou_els:
                try:
                    element = self.imp.build(tname)
                except PlcOpenError as e:
                    raise self.err(f"block {tname!r} cannot be placed: {e}", lid) from None
            elif tname in reg:
                cls = reg[tname]
                kw = _block_options(el, f"block {tname}", lid, self.err)
                group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
                if group is not None:
                    ext = re.compile(rf"^{re.escape(group.prefix)}[0-9]+$")
                    kw["n"] = max(group.min, len([p for p in pins if p and ext.match(p)]))
                try:
                    element = cls(**kw)
                except (FbdError, TypeError) as e:
                    raise self.err(f"block {tname}: {e}", lid) from None
            else:
                raise self.err(f"unknown block type {tname!r} (neither a standard "
                               f"block nor a POU of this project)", lid)
            try:
                self.insts[lid] = self.net.add(self._fresh(iname), element)
            except FbdError as e:
                raise self.err(str(e), lid) from None

    def _upper(self) -> dict:
        """Variable names by their upper case (IEC names ignore case), made once."""
        if getattr(self, "_upper_names", None) is None:
            self._upper_names = {}
            for k in self.vars:
                self._upper_names.setdefault(k.upper(), k)
        return self._upper_names

    def _var_key(self, expr: str, lid, what: str) -> str:
        if expr in self.vars:
            return expr
        key = self._upper().get(expr.upper())
        if key is not None:
            return key
        raise self.err(f"{what} {expr!r}, which is not a declared variable", lid)

    def _var_name(self, el, lid) -> str:
        expr_el = _child(el, "expression")
        expr = (expr_el.text or "").strip() if expr_el is not None else ""
        return self._var_key(expr, lid, f"{_tag(el)} writes")

    def collect_writers(self):
        """Every element that writes a variable, by variable, in execution order."""
        self.writes: dict[str, list] = {}
        for lid, el in self.elements.items():
            tag = _tag(el)
            if tag in ("outVariable", "inOutVariable"):
                if not self._connections(el):
                    continue  # an unconnected output variable writes nothing (Beremiz)
                key = self._var_name(el, lid)
                suffix = "" if tag == "outVariable" else "In"
                storage = el.get("storage" + suffix) or "none"
                if storage not in ("none", "set", "reset"):
                    raise self.err(f"storage={storage!r} is not a storage modifier", lid)
                self.writes.setdefault(key, []).append(
                    {"lid": lid, "el": el, "mode": storage, "pin": None})
            elif tag == "block":
                iov = _child(el, "inOutVariables")
                for v in (iov if iov is not None else []):
                    conns = self._connections(v)
                    if not conns:
                        continue
                    src = self._through_continuation(self.elements.get(conns[0].get("refLocalId")))
                    if src is None or _tag(src) not in ("inVariable", "inOutVariable"):
                        continue
                    expr_el = _child(src, "expression")
                    expr = (expr_el.text or "").strip() if expr_el is not None else ""
                    if expr in self.vars or expr.upper() in self._upper():
                        key = self._var_key(expr, lid, "")
                        self.writes.setdefault(key, []).append(
                            {"lid": lid, "el": el, "mode": "none",
                             "pin": v.get("formalParameter")})
        for key, ws in self.writes.items():
            ws.sort(key=lambda w: self.rank.get(w["lid"], 0))
            var = self.vars[key]
            lid = ws[0]["lid"]
            if var.kind == "inputVars":
                raise self.err(f"the input {key!r} is written; inputs are read-only", lid)
            if var.constant:
                raise self.err(f"the constant {key!r} is written", lid)
            for w in ws:
                if w["mode"] != "none" and var.type is not t.BOOL:
                    raise self.err(f"a {w['mode']} coil on {key!r}, which is "
                                   f"{var.type_name}, not BOOL", w["lid"])

    def classify(self):
        """What each variable becomes: an input, an output, both (VAR_IN_OUT), a
        value held between scans, a constant, or nothing the network shows."""
        self.role = {}
        for key, var in self.vars.items():
            written = key in self.writes
            area = None
            if var.address:
                try:
                    area = located.parse(var.address, key).area
                except FbdError as e:
                    raise self.err(f"variable {key!r}: {e}") from None
            if area == "I" and written:
                raise self.err(f"{key!r} is located at {var.address}, an input, and "
                               f"cannot be written", self.writes[key][0]["lid"])
            if var.type is None:
                role = "retain" if written else "derived"  # e.g. Beremiz's HMI_REAL
            elif var.constant and var.kind not in ("externalVars", "globalVars"):
                role = "const"   # an external constant stays an input: the configuration sets it
            elif var.kind == "inputVars":
                role = "input"
            elif var.kind == "inOutVars":
                role = "inout"
            elif var.kind in ("externalVars", "globalVars") and not written:
                role = "input"
            elif var.kind == "tempVars":
                role = "temp"
            elif area == "I" or (area == "M" and not written):
                role = "input"
            else:
                role = "retain"   # outputVars, localVars, return, written externals
            self.role[key] = role
            if role in ("input", "inout"):
                self._declare_input(var)
        for key, var in self.vars.items():
            if self.role[key] == "inout":
                out = f"{var.name}_OUT"
                if out in self.vars or out in self.net.inputs:
                    raise self.err(f"VAR_IN_OUT {var.name!r} would need an output named "
                                   f"{out!r}, which is taken")

    def create_cells(self):
        """One block per write of a variable: MOVE, or OR / SEL for set / reset coils."""
        reg = registry()
        self.cells = {}
        for key, ws in self.writes.items():
            var = self.vars[key]
            cells = []
            for w in ws:
                block = {"none": reg["MOVE"], "set": reg["OR"], "reset": reg["SEL"]}[w["mode"]]()
                cells.append(self.net.add(self._fresh(var.name), block))
            self.cells[key] = cells

    # -- wires -----------------------------------------------------------------
    def wire(self):
        self.en = {}
        self.held = {}
        self._en_busy = set()
        for lid, el in self.elements.items():
            if _tag(el) == "block":
                self._wire_block(lid, el)
        for key, ws in self.writes.items():
            for k, w in enumerate(ws):
                self._wire_write(key, k, w)
        self._outputs()

    def _wire_block(self, lid, el):
        inst = self.insts[lid]
        en = self.en_source(lid)
        for group in ("inputVariables", "inOutVariables"):
            iv = _child(el, group)
            for v in (iv if iv is not None else []):
                pin = v.get("formalParameter")
                if pin == "EN":
                    continue
                conns = self._connections(v)
                if not conns:
                    continue
                src = self.source(conns[0], lid)
                src = self._modify(src, v, lid, pin)
                fb = self._fb
                if en is not None:
                    # not executed while EN is FALSE: the block sees the inputs of
                    # the last scan it ran (a SEL holding its own previous output)
                    src, fb = self._hold(f"_en_in_{lid}_{pin}", en, src, fb), False
                try:
                    self.net.connect(src, inst.port(pin), feedback=fb)
                except FbdError as e:
                    raise self.err(str(e), lid) from None

    def _hold(self, base, en, src, fb):
        """SEL(G=EN, IN0=its own previous output, IN1=src): src while EN, else held."""
        en_src, en_fb = en
        sel = self.net.add(self._fresh(base), registry()["SEL"]())
        self.net.connect(en_src, sel.G, feedback=en_fb)
        self.net.connect(sel.OUT, sel.IN0, feedback=True)
        self.net.connect(src, sel.IN1, feedback=fb)
        return sel.OUT

    def en_source(self, lid):
        """(source, feedback) of a block's EN, or None when EN is open or TRUE."""
        if lid in self.en:
            return self.en[lid]
        pin = self.en_pins.get(lid)
        if pin is None:
            self.en[lid] = None
            return None
        if lid in self._en_busy:
            raise self.err("EN depends on this block's own ENO", lid)
        self._en_busy.add(lid)
        src = self.source(self._connections(pin)[0], lid)
        src = self._modify(src, pin, lid, "EN")
        self._en_busy.discard(lid)
        self.en[lid] = None if src is True else (src, self._fb)
        return self.en[lid]

    def _wire_write(self, key, k, w):
        var = self.vars[key]
        cell = self.cells[key][k]
        lid, el = w["lid"], w["el"]
        if w["pin"] is not None:   # a block's VAR_IN_OUT writes back what it was given
            src = self.block_output(lid, w["pin"], lid)
            fb = False
        else:
            tag = _tag(el)
            src = self.source(self._connections(el)[0], lid)
            fb = self._fb
            suffix = "" if tag == "outVariable" else "In"
            if _true(el.get("negated" + suffix)):
                src = self._not(src, lid, "in", fb)
                fb = False
            edge = el.get("edge" + suffix)
            if edge in ("rising", "falling"):
                src, fb = self._edge(src, fb, edge, lid, "in"), False
        if w["mode"] == "none":
            self._connect(src, cell.IN, fb, lid)
            return
        prev, prev_fb = self._before(key, k)
        if w["mode"] == "set":      # var := var OR src
            self._connect(prev, cell.IN1, prev_fb, lid)
            self._connect(src, cell.IN2, fb, lid)
        else:                       # var := SEL(src, var, FALSE)
            self._connect(src, cell.G, fb, lid)
            self._connect(prev, cell.IN0, prev_fb, lid)
            self._connect(False, cell.IN1, False, lid)
        del var

    def _connect(self, src, target, fb, lid):
        try:
            self.net.connect(src, target, feedback=fb)
        except FbdError as e:
            raise self.err(str(e), lid) from None

    def _before(self, key, k):
        """The value of a variable before its k-th write in the scan: (source, feedback)."""
        if k > 0:
            return self.cells[key][k - 1].OUT, False
        return self._start(key)

    def _start(self, key):
        """The value a variable has when the scan begins (before any write)."""
        var = self.vars[key]
        role = self.role[key]
        if role in ("input", "inout"):
            return self._declare_input(var), False
        if var.type is None:
            raise self.err(f"{key!r} of type {var.type_name} is read before it is written")
        init = _run_value(var.init if var.init is not None else var.type.default, var.type)
        if role in ("temp", "const") or key not in self.cells:
            return init, False
        last = self.cells[key][-1].OUT
        if var.init is not None and var.init != var.type.default:
            # the first scan reads the initial value, later ones the previous value
            sel = self.net.add(self._fresh(f"_init_{var.name}"), registry()["SEL"]())
            self.net.connect(self._first_done(), sel.G, feedback=True)
            self.net.connect(init, sel.IN0)
            self.net.connect(last, sel.IN1, feedback=True)
            return sel.OUT, False
        return last, True

    def _outputs(self):
        for key, var in self.vars.items():
            role = self.role[key]
            if role in ("input", "const", "derived", "temp"):
                continue
            if var.feedback and not var.address:
                continue  # a wire our export carried in a variable: not an output
            if key in self.cells:
                source = self.cells[key][-1].OUT
            elif role == "inout":
                source = self._inputs[var.name]
            elif var.kind in ("outputVars", "return") or var.address:
                source = _run_value(var.init if var.init is not None else var.type.default,
                                    var.type)
            else:
                continue
            name = f"{var.name}_OUT" if role == "inout" else var.name
            try:
                self.net.output(name, source, var.type,
                                at=var.address if role != "inout" else None)
            except FbdError as e:
                raise self.err(f"variable {var.name!r}: {e}") from None

    def _connections(self, el):
        cpi = _child(el, "connectionPointIn")
        return _children(cpi, "connection") if cpi is not None else []

    def _modify(self, src, pin_el, lid, pin):
        fb = self._fb
        if _true(pin_el.get("negated")):
            src, fb = self._not(src, lid, pin, fb), False
        edge = pin_el.get("edge")
        if edge in ("rising", "falling"):
            src, fb = self._edge(src, fb, edge, lid, pin), False
        self._fb = fb
        return src

    def _edge(self, src, fb, edge, lid, pin):
        cls = registry()["R_TRIG" if edge == "rising" else "F_TRIG"]
        inst = self.net.add(self._fresh(f"_{edge}_{lid}_{pin}"), cls())
        self._connect(src, inst.CLK, fb, lid)
        return inst.Q

    def _not(self, src, lid, pin, fb=None):
        inst = self.net.add(self._fresh(f"_not_{lid}_{pin}"), registry()["NOT"]())
        self._connect(src, inst.IN, self._fb if fb is None else fb, lid)
        self._fb = False
        return inst.OUT

    def _rank(self, lid):
        return self.rank.get(lid, 0)

    def source(self, conn, consumer_lid, _depth=0):
        """The wire end (or literal) a connection refers to; sets ``self._fb``."""
        self._fb = False
        if _depth > len(self.elements):
            raise self.err("a loop of connectors with nothing driving it", consumer_lid)
        ref = conn.get("refLocalId")
        el = self.elements.get(ref)
        if el is None:
            raise self.err(f"connection to unknown localId {ref}", consumer_lid)
        el = self._through_continuation(el)
        tag = _tag(el)
        lid = el.get("localId")
        if tag == "connector":
            conns = self._connections(el)
            if not conns:
                raise self.err(f"connector {el.get('name')!r} is not connected", lid)
            return self.source(conns[0], consumer_lid, _depth + 1)
        if tag == "block":
            return self.block_output(lid, conn.get("formalParameter"), consumer_lid)
        if tag == "inOutVariable" and self._connections(el):
            key = self._var_name(el, lid)
            k = next(i for i, w in enumerate(self.writes[key]) if w["lid"] == lid)
            src = self.cells[key][k].OUT
            self._fb = self._rank(lid) >= self._rank(consumer_lid)
            if _true(el.get("negatedOut")):
                src = self._not(src, lid, "out")
            return src
        if tag in ("inVariable", "inOutVariable"):
            expr_el = _child(el, "expression")
            expr = (expr_el.text or "").strip() if expr_el is not None else ""
            neg = el.get("negated") if tag == "inVariable" else el.get("negatedOut")
            src = self.read_var(expr, lid, consumer_lid)
            if _true(neg):
                src = self._not(src, lid, "out")
            return src
        raise self.err(f"<{tag}> cannot be the source of a wire", lid)

    def block_output(self, lid, pin, consumer_lid):
        el = self.elements[lid]
        inst = self.insts[lid]
        en = self.en_source(lid)
        self._fb = False
        if pin == "ENO":
            if en is None:
                return True
            self._fb = en[1] or self._rank(lid) >= self._rank(consumer_lid)
            return en[0]
        outs = [p.name for p in inst.output_ports()]
        ins = {p.name for p in inst.input_ports()}
        if pin in ins and f"{pin}_OUT" in outs:   # a VAR_IN_OUT of a placed POU
            pin = f"{pin}_OUT"
        if (pin is None or pin == "" or pin not in outs) and len(outs) == 1:
            pin = outs[0]
        try:
            src = inst.port(pin)
        except FbdError as e:
            raise self.err(str(e), lid) from None
        if en is not None:
            if (lid, pin) not in self.held:
                self.held[(lid, pin)] = self._hold(f"_en_out_{lid}_{pin}", en, src, False)
            src = self.held[(lid, pin)]
        # a loop of direct wires: the consumer runs first and reads the previous scan
        self._fb = self._rank(lid) >= self._rank(consumer_lid)
        ov = _child(el, "outputVariables")
        for v in (ov if ov is not None else []):
            if v.get("formalParameter") == pin and _true(v.get("negated")):
                src = self._not(src, lid, pin)
        return src

    def read_var(self, expr, lid, consumer_lid):
        self._fb = False
        if expr not in self.vars and expr.upper() not in self._upper():
            if _is_literal(expr):
                return _literal(expr, None, f"POU {self.name!r}, localId {lid}")
            if _IDENT.match(expr):
                raise self.err(f"{expr!r} is not a declared variable", lid)
            raise self.err(f"expression {expr!r} is not supported (only variable "
                           f"names and literals)", lid)
        key = self._var_key(expr, lid, "reads")
        var = self.vars[key]
        if var.type is None and key not in self.writes:
            raise self.err(f"reading {key!r} of type {var.type_name} is not supported", lid)
        if self.role[key] == "const":
            return _run_value(var.init if var.init is not None else var.type.default, var.type)
        ws = self.writes.get(key, [])
        r = self._rank(consumer_lid)
        done = [k for k, w in enumerate(ws) if self._rank(w["lid"]) < r]
        if done:
            return self.cells[key][done[-1]].OUT
        src, fb = self._start(key)
        self._fb = fb
        return src

    def _first_done(self) -> Ref:
        """An output that is FALSE on the first scan and TRUE afterwards (read
        through a feedback wire)."""
        if self._first is None:
            inst = self.net.add(self._fresh("_scanned"), registry()["MOVE"]())
            self.net.connect(True, inst.IN)
            self._first = inst.OUT
        return self._first


def _true(value) -> bool:
    """An xs:boolean attribute: "true" or "1" (any case, spaces around)."""
    return (value or "").strip().lower() in ("true", "1")


def _run_value(value, tp):
    """A value as a network port or wire takes it (TIME as a timedelta)."""
    if tp is not None and tp.kind == "time" and isinstance(value, int) \
            and not isinstance(value, bool):
        return _dt.timedelta(microseconds=value)
    return value


def _order_id(el) -> int:
    try:
        return int(el.get("executionOrderId", "0") or 0)
    except ValueError:
        return 0


def _sort_instances(a, b) -> int:
    """Beremiz's SortInstances: rows less than 10 apart are one row, left to right."""
    (ax, ay), (bx, by) = _pos(a), _pos(b)
    if abs(ay - by) < 10:
        return (ax > bx) - (ax < bx)
    return (ay > by) - (ay < by)


DATA_NAME = "urn:fbd-sim:block"
NATIVE_NAME = "urn:fbd-sim:native"
FEEDBACK_NAME = "urn:fbd-sim:feedback"
#: edition-2 names of IEC functions (Beremiz's, matiec's) -> this library's
EDITION2_NAMES = {"MULTIME": "MUL_TIME", "DIVTIME": "DIV_TIME"}


def _native_marker(pou_el):
    """The ``fbd:native`` element of a POU our export wrote for a library block, or
    None (a POU anyone else wrote, even of the same name, has none)."""
    ad = _child(pou_el, "addData")
    for d in (_children(ad, "data") if ad is not None else []):
        if d.get("name") == NATIVE_NAME and len(d) > 0:
            return d[0]
    return None


def _native_block(name: str, pou_el):
    """A function making the block the marked POU ``name`` stands for, once the
    marker is checked: a known block, each of its type variables bound to an
    elementary type, valid parameters, and ports that are the POU's interface."""
    import json
    m = _native_marker(pou_el)

    def err(msg):
        return PlcOpenError(f"POU {name!r}: its fbd-sim marker (addData {NATIVE_NAME}) "
                            f"{msg}")

    bname = m.get("block") or ""
    cls = registry().get(bname)
    if cls is None:
        raise err(f"names the block {bname!r}, which this library does not have")
    types = {}
    for item in filter(None, (m.get("types") or "").split(",")):
        var, _, tname = item.partition("=")
        if var not in cls.types:
            raise err(f"binds {var!r}, which is not a type variable of {bname}")
        try:
            types[var] = t.by_name(tname)
        except t.TypeError_:
            raise err(f"binds {var} to {tname!r}, which is not an elementary type") from None
    missing = [v for v in cls.types if v not in types]
    if missing:
        raise err(f"leaves the type {missing[0]} of {bname} unbound")
    try:
        params = json.loads(m.get("params") or "{}")
    except ValueError:
        params = None
    if not isinstance(params, dict):
        raise err(f"has params {m.get('params')!r}, not a JSON object")
    try:
        block = cls(types=types, **params)
    except (FbdError, TypeError) as e:
        raise err(f"does not make a {bname}: {e}") from None
    # the interface must be the block's ports: a marker edited apart from it is refused
    iface = _child(pou_el, "interface")
    for kind, ports in (("inputVars", block.input_ports()), ("outputVars", block.output_ports())):
        want = [(p.name, (types[p.type] if isinstance(p.type, str) else p.type).name)
                for p in ports]
        have = [(v.get("name"), _var(v, kind, name).type_name.upper())
                for g in (_children(iface, kind) if iface is not None else [])
                for v in _children(g, "variable")]
        if have != want:
            show = "; ".join(f"{n}: {tp}" for n, tp in want)
            got = "; ".join(f"{n}: {tp}" for n, tp in have) or "none"
            raise err(f"says {block!r}, whose {kind} are {show}, but the POU declares {got}")
    return lambda: cls(types=types, **params)


def _block_options(el, what, lid, err) -> dict:
    """Bound types and parameters a block carries in its addData (written by our
    export, fbd.plcopen.writer), as keyword arguments of the block's class."""
    kw = {}
    ad = _child(el, "addData")
    for d in (_children(ad, "data") if ad is not None else []):
        if d.get("name") != DATA_NAME or len(d) == 0:
            continue
        info = d[0]
        types = info.get("types")
        if types:
            try:
                kw["types"] = {k: t.by_name(v) for k, v in
                               (item.split("=", 1) for item in types.split(","))}
            except (ValueError, t.TypeError_) as e:
                raise err(f"{what}: bad types {types!r} in addData: {e}", lid) from None
        params = info.get("params")
        if params:
            import json
            try:
                value = json.loads(params)
            except ValueError:
                value = None
            if not isinstance(value, dict):
                raise err(f"{what}: bad params {params!r} in addData", lid)
            kw.update(value)
    return kw


def _doc(el) -> str:
    d = _child(el, "documentation")
    if d is None:
        return ""
    return "".join(d.itertext()).strip()


def _pos(el):
    p = _child(el, "position")
    if p is None:
        return (0.0, 0.0)
    try:
        return (float(p.get("x", 0)), float(p.get("y", 0)))
    except ValueError:
        return (0.0, 0.0)





def save(network: Network, path, **options) -> None:
    """Write ``network`` (and its macros) as a PLCopen project: see
    :mod:`fbd.plcopen.writer`."""
    from .writer import save as _save
    _save(network, path, **options)
__all__ = ["PlcOpenError", "Project", "load_project", "load", "save"]
