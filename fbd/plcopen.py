"""Import PLCopen TC6 XML (v2.01) projects: FBD POUs become :class:`Network` s.

First slice of issue 7 (import only)::

    project = load_project("plc.xml")
    net = project.network("plc_prg")      # a Network, usable with Harness

What is imported
----------------
* POUs of type program, functionBlock and function whose body is FBD. Function
  blocks and functions are also usable as macros by other POUs (by typeName);
  a function's return value is its output ``OUT``.
* Interface variables: inputVars (and externalVars read by the body) become
  network inputs with their type and initialValue; outputVars become network
  outputs; localVars/tempVars are internal signals. Every variable that the body
  writes is held in a ``MOVE`` instance named after it and also exposed as a
  network output of the same name, so tests can read it (``h.get("Cnt")``).
* Elements: ``block`` (standard library by typeName, user POUs as macros,
  instanceName kept), ``inVariable``, ``outVariable``, ``inOutVariable``,
  ``connector``/``continuation``, literal expressions (TRUE, 5, 16#FF, 1.5,
  T#1s, 'text', INT#5), ``negated`` pins (a NOT is inserted) and ``edge``
  rising/falling input pins (an R_TRIG/F_TRIG is inserted).
* Execution order: ``executionOrderId`` when the file gives it (> 0);
  otherwise Beremiz's rule (outputs sorted top to bottom then left to right,
  each pulling the blocks it depends on). A variable read by an element that
  runs before the variable is written reads the previous scan's value (a
  feedback wire; on the first scan the variable's initial value).

Not (yet) imported, each a :class:`PlcOpenError` naming the POU and localId
-------------------------------------------------------------------------------
Bodies in ST, IL, LD or SFC (reported when the POU is asked for or placed, the
rest of the project still loads), unknown block types, ``storage`` set/reset
pins, a variable written by more than one element, inOutVars of the
interface, expressions that are not a variable name or a literal (``a.b``,
``x[1]``). EN/ENO are ignored: EN must be unconnected or TRUE (the block always
runs) and ENO reads as TRUE. Configurations/tasks are not imported yet.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field

from . import types as t
from .block import Extensible, registry
from .errors import FbdError
from .library import load_libraries
from .network import Network, Ref

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
    languages: dict = field(default_factory=dict)  # POU name -> body language
    configuration: Configuration | None = None      # the first configuration, if any

    def network(self, name: str) -> Network:
        if name in self.pous:
            return self.pous[name]
        if name in self.errors:
            raise self.errors[name]
        raise PlcOpenError(f"{self.path}: no POU named {name!r} (POUs: "
                           f"{', '.join(self.languages) or 'none'})")


def _parse(path):
    from lxml import etree
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             load_dtd=False, remove_comments=True)
    try:
        return etree.parse(str(path), parser).getroot()
    except etree.XMLSyntaxError as e:
        raise PlcOpenError(f"{path}: not well-formed XML: {e}") from None
    except OSError as e:
        raise PlcOpenError(f"{path}: cannot read: {e}") from None


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
    project.configuration = _configuration(root, path, globals_)
    importer = _Importer(project, pou_els, globals_)
    for name in pou_els:
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
    return Var(name, kind, tp, tname, init, v.get("address"))


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
            if kind == "returnType" or kind == "documentation":
                continue
            for v in _children(group, "variable"):
                var = _var(v, kind, self.name)
                if kind == "inOutVars":
                    raise self.err(f"inOutVars ({var.name}) are not supported yet")
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
            self.elements[lid] = c
        self.net = Network(self.name, doc=_doc(self.el))
        self.used_names = set()
        self._inputs = {}
        for var in self.vars.values():
            if var.kind == "inputVars":
                self._declare_input(var)
        self.connectors = {c.get("name"): c for c in self.elements.values()
                           if _tag(c) == "connector"}
        self.order_elements()
        self.create_blocks()
        self.create_cells()
        self.wire()
        return self.net

    def _declare_input(self, var: Var):
        if var.name in self._inputs:
            return self._inputs[var.name]
        if var.type is None:
            raise self.err(f"input {var.name!r} has type {var.type_name}, not an elementary type")
        default = var.init if var.init is not None else var.type.default
        if var.type.kind == "time" and isinstance(default, int):
            default = _dt.timedelta(microseconds=default)
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
            iv = _child(el, "inputVariables")
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
        deps = []
        for _, c in self._pin_sources(el):
            src = self.elements.get(c.get("refLocalId"))
            src = self._through_continuation(src)
            if src is None:
                continue
            if _tag(src) in ("block", "inOutVariable"):
                deps.append(src)
            elif _tag(src) == "connector":
                deps += self._deps(src)
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
        nodes = [e for e in self.elements.values()
                 if _tag(e) in ("block", "outVariable", "inOutVariable")]
        self.rank = {}
        self.default_rank = 0
        if any(int(e.get("executionOrderId", "0") or 0) > 0 for e in nodes):
            self.default_rank = (0, 0.0, 0.0)
            for e in nodes:
                self.rank[e.get("localId")] = (int(e.get("executionOrderId", "0") or 0),
                                               _pos(e)[1], _pos(e)[0])
            return
        referenced = set()
        for e in self.elements.values():
            for _, c in self._pin_sources(e):
                referenced.add(c.get("refLocalId"))
        roots = [e for e in nodes if _tag(e) != "block" or e.get("localId") not in referenced]
        roots.sort(key=lambda e: (_pos(e)[1], _pos(e)[0]))
        counter = [0]
        self.on_stack = set()

        def visit(e):
            lid = e.get("localId")
            if lid in self.rank or lid in self.on_stack:
                return
            self.on_stack.add(lid)
            for d in self._deps(e):
                visit(d)
            self.on_stack.discard(lid)
            counter[0] += 1
            self.rank[lid] = counter[0]

        for r in roots:
            visit(r)
        for e in sorted(nodes, key=lambda e: (_pos(e)[1], _pos(e)[0])):
            visit(e)

    # -- instances -------------------------------------------------------------
    def _fresh(self, base: str) -> str:
        name = base if _IDENT.match(base) else "b"
        i = 1
        while name in self.used_names:
            i += 1
            name = f"{base}_{i}"
        self.used_names.add(name)
        return name

    def create_blocks(self):
        reg = registry()
        self.insts = {}
        for lid, el in self.elements.items():
            if _tag(el) != "block":
                continue
            tname = el.get("typeName")
            iname = el.get("instanceName") or f"{tname}_{lid}"
            pins = [v.get("formalParameter") for v in
                    (_child(el, "inputVariables") if _child(el, "inputVariables") is not None else [])]
            if tname in self.imp.pou_els:
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

    def create_cells(self):
        """One MOVE per variable written by the body (outVariable / inOutVariable)."""
        move = registry()["MOVE"]
        self.writers = {}
        for lid, el in self.elements.items():
            if _tag(el) not in ("outVariable", "inOutVariable"):
                continue
            if el.get("storage") not in (None, "none"):
                raise self.err(f"storage={el.get('storage')!r} pins are not supported yet", lid)
            name = self._var_name(el, lid)
            var = self.vars[name]
            if var.kind in ("inputVars",):
                raise self.err(f"writing the input {name!r} is not supported", lid)
            if name in self.writers:
                raise self.err(f"variable {name!r} is written by more than one element "
                               f"(localIds {self.writers[name][0]} and {lid}); "
                               f"not supported yet", lid)
            cell = self.net.add(self._fresh(var.name), move())
            self.writers[name] = (lid, cell)

    def _var_name(self, el, lid) -> str:
        expr = (_child(el, "expression").text or "").strip() if _child(el, "expression") is not None else ""
        if expr not in self.vars:
            if expr.upper() in (k.upper() for k in self.vars):
                expr = next(k for k in self.vars if k.upper() == expr.upper())
            else:
                raise self.err(f"{_tag(el)} writes {expr!r}, which is not a declared "
                               f"variable", lid)
        return expr

    # -- wires -----------------------------------------------------------------
    def wire(self):
        self._first = None
        for lid, el in self.elements.items():
            tag = _tag(el)
            if tag == "block":
                inst = self.insts[lid]
                iv = _child(el, "inputVariables")
                for v in (iv if iv is not None else []):
                    pin = v.get("formalParameter")
                    conns = self._connections(v)
                    if pin == "EN":
                        if conns:
                            src = self.source(conns[0], lid, None)
                            if src is not True:
                                raise self.err("a connected EN input is not supported "
                                               "(EN/ENO are ignored)", lid)
                        continue
                    if not conns:
                        continue
                    src = self.source(conns[0], lid, None)
                    src = self._modify(src, v, lid, pin)
                    try:
                        feedback = self._fb
                        self.net.connect(src, inst.port(pin), feedback=feedback)
                    except FbdError as e:
                        raise self.err(str(e), lid) from None
            elif tag in ("outVariable", "inOutVariable"):
                name = self._var_name(el, lid)
                conns = self._connections(el)
                if not conns:
                    raise self.err(f"{tag} {name!r} is not connected", lid)
                src = self.source(conns[0], lid, None)
                neg = el.get("negated") if tag == "outVariable" else el.get("negatedIn")
                if neg == "true":
                    src = self._not(src, lid, "in")
                var = self.vars[name]
                _, cell = self.writers[name]
                self.net.connect(src, cell.IN, feedback=self._fb)
                self._output(var, cell.OUT)
        # outputs never written keep their initial value
        for var in self.vars.values():
            if var.kind in ("outputVars", "return") and var.name not in self.net.outputs \
                    and var.type is not None:
                value = var.init if var.init is not None else var.type.default
                if var.type.kind == "time" and isinstance(value, int):
                    value = _dt.timedelta(microseconds=value)
                self._output(var, value)

    def _output(self, var: Var, source) -> None:
        try:
            self.net.output(var.name, source, var.type, at=var.address)
        except FbdError as e:
            raise self.err(f"variable {var.name!r}: {e}") from None

    def _connections(self, el):
        cpi = _child(el, "connectionPointIn")
        return _children(cpi, "connection") if cpi is not None else []

    def _modify(self, src, pin_el, lid, pin):
        fb = self._fb
        if pin_el.get("negated") == "true":
            src = self._not(src, lid, pin)
        edge = pin_el.get("edge")
        if edge in ("rising", "falling"):
            cls = registry()["R_TRIG" if edge == "rising" else "F_TRIG"]
            inst = self.net.add(self._fresh(f"_{edge}_{lid}_{pin}"), cls())
            self.net.connect(src, inst.CLK, feedback=fb)
            src, fb = inst.Q, False
        self._fb = fb
        return src

    def _not(self, src, lid, pin):
        inst = self.net.add(self._fresh(f"_not_{lid}_{pin}"), registry()["NOT"]())
        self.net.connect(src, inst.IN, feedback=self._fb)
        self._fb = False
        return inst.OUT

    def _consumer_rank(self, lid):
        return self.rank.get(lid, self.default_rank)

    def source(self, conn, consumer_lid, _unused):
        """The wire end (or literal) a connection refers to; sets ``self._fb``."""
        self._fb = False
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
            return self.source(conns[0], consumer_lid, None)
        if tag == "block":
            pin = conn.get("formalParameter")
            inst = self.insts[lid]
            if pin == "ENO":
                return True
            outs = [p.name for p in inst.output_ports()]
            if (pin is None or pin == "" or pin not in outs) and len(outs) == 1:
                pin = outs[0]
            # a loop of direct wires: the consumer runs first
            self._fb = self._consumer_rank(lid) >= self._consumer_rank(consumer_lid)
            try:
                src = inst.port(pin)
            except FbdError as e:
                raise self.err(str(e), lid) from None
            ov = _child(el, "outputVariables")
            for v in (ov if ov is not None else []):
                if v.get("formalParameter") == pin and v.get("negated") == "true":
                    src = self._not(src, lid, pin)
            return src
        if tag in ("inVariable", "inOutVariable"):
            expr_el = _child(el, "expression")
            expr = (expr_el.text or "").strip() if expr_el is not None else ""
            neg = el.get("negated") if tag == "inVariable" else el.get("negatedOut")
            src = self.read_var(expr, lid, consumer_lid)
            if neg == "true":
                src = self._not(src, lid, "out")
            return src
        raise self.err(f"<{tag}> cannot be the source of a wire", lid)

    def read_var(self, expr, lid, consumer_lid):
        self._fb = False
        name = expr
        if name not in self.vars:
            match = [k for k in self.vars if k.upper() == name.upper()]
            if match:
                name = match[0]
            elif _is_literal(expr):
                return _literal(expr, None, f"POU {self.name!r}, localId {lid}")
            elif _IDENT.match(expr):
                raise self.err(f"{expr!r} is not a declared variable", lid)
            else:
                raise self.err(f"expression {expr!r} is not supported (only variable "
                               f"names and literals)", lid)
        var = self.vars[name]
        if name in self.writers:
            wlid, cell = self.writers[name]
            feedback = self.rank.get(wlid, self.default_rank) >= self._consumer_rank(consumer_lid)
            self._fb = feedback
            if feedback and var.init is not None and var.init != (
                    var.type.default if var.type is not None else None):
                # the first scan reads the initial value, later ones the previous value
                sel = self.net.add(self._fresh(f"_init_{name}_{lid}"), registry()["SEL"]())
                self.net.connect(self._first_done(), sel.G, feedback=True)
                self.net.connect(var.init, sel.IN0)
                self.net.connect(cell.OUT, sel.IN1, feedback=True)
                self._fb = False
                return sel.OUT
            return cell.OUT
        if var.kind in ("inputVars", "externalVars"):
            return self._declare_input(var)
        if var.type is None:
            raise self.err(f"reading {name!r} of type {var.type_name} is not supported", lid)
        value = var.init if var.init is not None else var.type.default
        if var.type.kind == "time" and isinstance(value, int):
            value = _dt.timedelta(microseconds=value)
        return value

    def _first_done(self) -> Ref:
        """An output that is FALSE on the first scan and TRUE afterwards (read
        through a feedback wire)."""
        if self._first is None:
            inst = self.net.add(self._fresh("_scanned"), registry()["MOVE"]())
            self.net.connect(True, inst.IN)
            self._first = inst.OUT
        return self._first


DATA_NAME = "urn:fbd-sim:block"


def _block_options(el, what, lid, err) -> dict:
    """Bound types and parameters a block carries in its addData (written by our
    export, fbd.plcopen_export), as keyword arguments of the block's class."""
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
    :mod:`fbd.plcopen_export`."""
    from .plcopen_export import save as _save
    _save(network, path, **options)
__all__ = ["PlcOpenError", "Project", "load_project", "load", "save"]
