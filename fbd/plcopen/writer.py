"""Export a :class:`~fbd.network.Network` to PLCopen TC6 XML (v2.01).

``fbd.plcopen.save(network, path)`` (or ``fbd export MODULE:FUNCTION -o out.xml``)
writes a whole project that Beremiz and OpenPLC Editor open:

* every macro the network places becomes a ``functionBlock`` POU (one per
  distinct body: two macros of the same name whose bodies differ become
  ``Name`` and ``Name_2``), the network itself a ``program`` POU, and a
  configuration runs it in a 5 ms cyclic task;
* inputs and outputs become ``inputVars``/``outputVars`` with their types,
  defaults (``initialValue``) and locations (``address="%IX0.0"``); stateful
  blocks and macro instances are declared as ``localVars`` of their type, as
  the editors want;
* a literal wired to an input becomes an ``inVariable`` holding it (typed,
  ``DINT#5``, where the port's type is known);
* every element carries ``executionOrderId`` (the network's data-flow order),
  so the file runs in the order this simulator runs it;
* a feedback wire (the previous scan's value) becomes a local variable
  ``fb_N``: an ``outVariable`` writes the source's value into it after
  everything else has run, an ``inVariable`` reads it where the wire went, so
  the reader sees the value of the previous scan, as the wire did;
* block parameters this library adds to IEC (``first_scan_pulse``,
  ``depth``) and explicitly bound types travel in the block's ``addData``
  (``urn:fbd-sim:block``), which other tools preserve or ignore;
* a block this library adds to IEC's (MEMORY, LIFO, FIFO, NEG, F_TRIG without
  its first-scan pulse) becomes a function block POU written in ST, one per
  concrete configuration (``FBD_MEMORY_DINT``, ``FBD_LIFO_INT_16``), that the
  editors compile and that does exactly what the block does; the POU's
  ``addData`` (``urn:fbd-sim:native``) names the block, its types and
  parameters, so :func:`fbd.plcopen.load` maps it back to the block without
  reading the ST. MUL_TIME and DIV_TIME are written as MULTIME and DIVTIME,
  their edition-2 names that Beremiz and matiec know. NOW (the PLC's clock)
  has no IEC equivalent and stays as it is: the editors do not know it.

IEC runs a function block call as a whole, where this simulator may
interleave the blocks of two macros that feed each other (control ->
processing -> control in 2048). Such a level has no order of whole calls, so
the macros on such a loop are inlined into the exported POU (their blocks
named ``<instance>_<block>``) until one exists; the behaviour is unchanged.

Positions come from the debugger's layout (:mod:`fbd.debug.layout`): layers by
data flow, boxes ordered to keep crossings few, wires routed in the channels
between layers (long wires too: this writer asks for no connector pairs).
Importing the file again (:func:`fbd.plcopen.load`) gives a network that runs
identically scan for scan. :func:`validate` checks a file against the TC6
v2.01 schema, which ships with the package (:func:`schema_path`).
"""

from __future__ import annotations

import datetime as _dt
import functools
import heapq
import json
import os
import tempfile
from importlib import resources
from pathlib import Path

from lxml import etree

from .. import types as t
from ..block import REQUIRED, Block, registry
from ..compiler import flatten
from ..compiler.graph import loops
from ..debug.layout import INPUTS, OUTPUTS, PORT_H, layout_level
from ..library import load_libraries
from ..network import Network, Ref
from ..values import Kind
from .carry import carried, carried_program, renamespaced, write_carried, write_carried_globals
from .emit import (
    DATA_NAME,
    DATA_NS,
    FEEDBACK_NAME,
    NS_URI,
    XHTML_URI,
    ExportError,
    P,
    literal_text,
    sub,
    type_el,
    value_el,
)
from .native_st import has_st, native_name, native_pou, native_st

#: IEC edition-3 names written with the edition-2 names Beremiz and matiec know
EDITION2_NAMES = {"MUL_TIME": "MULTIME", "DIV_TIME": "DIVTIME"}

VAR_H = PORT_H                     # the height of an in/out variable box


def save(network: Network, path, *, cycle: str = "T#5ms", company: str = "fbd") -> None:
    """Write ``network`` and the macros it uses as a PLCopen project file. A regular
    file is written whole or not at all (a full disk leaves the old file as it was)."""
    write_tree(to_xml(network, cycle=cycle, company=company), path)


def write_tree(tree, path) -> None:
    """Write the project ``tree`` to ``path``, whole or not at all."""
    _unindented(tree.getroot() if hasattr(tree, "getroot") else tree)
    data = etree.tostring(tree, xml_declaration=True, encoding="utf-8", pretty_print=True)
    path = Path(path)
    try:
        if path.exists() and not path.is_file():     # a device or a pipe: straight in
            with open(path, "wb") as f:
                f.write(data)
            return
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.",
                                         delete=False) as f:
            tmp = Path(f.name)
            try:
                f.write(data)
            except BaseException:
                f.close()
                tmp.unlink(missing_ok=True)
                raise
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)        # as plain open() would have made it, not the temp's 0600
        os.replace(tmp, path)
    except OSError as e:
        raise ExportError(f"{path}: cannot write the project: {e.strerror or e}") from None


def _unindented(root) -> None:
    """Drop the layout a POU carried from a file brought (blank text between
    PLCopen elements), so the whole file is indented alike and writing it again
    gives the same bytes; text inside XHTML (bodies, documentation) is kept."""
    for el in root.iter():
        if not isinstance(el.tag, str) or not el.tag.startswith(P):
            continue
        if el.text is not None and not el.text.strip():
            el.text = None
        for c in el:
            if c.tail is not None and not c.tail.strip():
                c.tail = None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def schema_path() -> Path:
    """The PLCopen TC6 XML v2.01 schema (``tc6_xml_v201.xsd``), package data of ``fbd``
    (found through the package, not this module's place in it)."""
    return Path(str(resources.files("fbd").joinpath("data", "tc6_xml_v201.xsd")))


@functools.cache
def _schema():
    return etree.XMLSchema(etree.parse(str(schema_path())))


def validate(path) -> None:
    """Check the project file ``path`` against the TC6 v2.01 schema; an
    :class:`ExportError` names the file, the line and the first rule it breaks."""
    from .source import PlcOpenError, parse  # the import's safe parser: no DTD, no network
    try:
        root, _ns = parse(path)
    except PlcOpenError as e:
        raise ExportError(str(e)) from None
    schema = _schema()
    if not schema.validate(root):
        first = schema.error_log[0]
        message = " ".join(first.message.replace(P, "").split())
        raise ExportError(f"{path}:{first.line}: not valid PLCopen TC6 XML v2.01: {message}")


def to_xml(network: Network, *, cycle: str = "T#5ms", company: str = "fbd"):
    """The project as an lxml ElementTree (see the module docstring)."""
    if not isinstance(network, Network):
        raise ExportError(f"export needs a Network, not {type(network).__name__}")
    load_libraries()
    program = flatten(network)   # types, initial values, order; validates too
    ex = _Exporter(program)
    top = carried_program(network, ex) or ex.pou(network, "", "program")
    root = etree.Element(P + "project", nsmap={None: NS_URI, "xhtml": XHTML_URI})
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    sub(root, "fileHeader", companyName=company, productName="fbd-sim", productVersion="1",
         creationDateTime=now)
    ch = sub(root, "contentHeader", name=network.name, modificationDateTime=now)
    ci = sub(ch, "coordinateInfo")
    for lang in ("fbd", "ld", "sfc"):
        sub(sub(ci, lang), "scaling", x="1", y="1")
    types_el = sub(root, "types")
    data_types = sub(types_el, "dataTypes")
    for dt in ex.carried_types.values():
        data_types.append(renamespaced(dt))
    pous = sub(types_el, "pous")
    for el in ex.pous.values():
        pous.append(el)
    configs = sub(sub(root, "instances"), "configurations")
    conf = sub(configs, "configuration", name="config")
    res = sub(conf, "resource", name="resource1")
    task = sub(res, "task", name="task0", priority="0", interval=cycle)
    sub(task, "pouInstance", name="instance0", typeName=top)
    write_carried_globals(conf, ex)
    return etree.ElementTree(root)


# ------------------------------------------------------------------ the level model
class _Node:
    """An instance of the exported level: a block or a macro, with its input wires.
    A source is ("in", input) | ("out", node, port) | ("lit", value)."""

    __slots__ = ("name", "element", "path", "bindings")

    def __init__(self, name, element, path, bindings):
        self.name = name
        self.element = element
        self.path = path
        self.bindings = bindings   # port -> (source, feedback)


def _src(source):
    if isinstance(source, Ref):
        if source.kind == "netin":
            return ("in", source.port)
        return ("out", source.owner.name, source.port)
    return ("lit", source)


def _level(net: Network, prefix: str):
    nodes = {}
    for name, inst in net.instances.items():
        bindings = {port: (_src(bs[0].source), bs[0].feedback)
                    for port, bs in inst.bindings.items() if bs}
        nodes[name] = _Node(name, inst.element, prefix + name, bindings)
    # A program's outputs are published at the end of the scan, so a feedback mark
    # on one changes nothing (the compiler ignores it); a macro's matters.
    outputs = {name: (_src(o.source), o.feedback and prefix != "")
               for name, o in net.outputs.items()}
    return nodes, outputs


def _inline(nodes: dict, outputs: dict, m: str) -> None:
    """Replace the macro node ``m`` by the instances of its body (one level)."""
    M = nodes.pop(m)
    body: Network = M.element
    names = {}
    for inner in body.instances:
        base = f"{m}_{inner}"
        name, k = base, 1
        while name in nodes or name in names.values():
            k += 1
            name = f"{base}_{k}"
        names[inner] = name

    def tr(src, fb):
        if src[0] == "in":
            outer = M.bindings.get(src[1])
            if outer is None:
                default = body.inputs[src[1]][1]
                if default is REQUIRED:
                    raise ExportError(f"{M.path}.{src[1]}: input not connected")
                return ("lit", default), False
            return outer[0], outer[1] or fb
        if src[0] == "out":
            return ("out", names[src[1]], src[2]), fb
        return src, False

    for inner, inst in body.instances.items():
        bindings = {}
        for port, bs in inst.bindings.items():
            if bs:
                bindings[port] = tr(_src(bs[0].source), bs[0].feedback)
        nodes[names[inner]] = _Node(names[inner], inst.element, f"{M.path}.{inner}", bindings)

    def through(src, fb):
        for _ in range(1000):
            if src[0] != "out" or src[1] != m:
                return src, fb
            o = body.outputs[src[2]]
            s2, fb2 = tr(_src(o.source), o.feedback)
            src, fb = s2, fb or fb2
        raise ExportError(f"{M.path}: a loop through macro ports with no block in it")

    for node in nodes.values():
        for port, (src, fb) in list(node.bindings.items()):
            node.bindings[port] = through(src, fb)
    for name, (src, fb) in list(outputs.items()):
        outputs[name] = through(src, fb)


# ------------------------------------------------------------------------ exporter
class _Exporter:
    def __init__(self, program):
        self.program = program
        self.signals = program.signals
        self.table = program.new_table()
        self.pous: dict[str, etree._Element] = {}     # name -> <pou>
        self.canon: dict[str, str] = {}               # name -> its body, serialised
        self.natives: dict[tuple, str] = {}           # block configuration -> its POU
        self.carried_types: dict = {}                 # name -> <dataType> of a carried POU's file
        self.carried_elements: dict = {}              # name -> the <pou> element carried
        self.carried_globals: dict = {}               # NAME -> (<variable>, constant)
        self.taken = {n.upper() for n in registry()} | {tp.name for tp in t.ELEMENTARY}
        # position of each instance path in the execution order (a macro: its first block)
        self.first: dict[str, int] = {}
        for leaf in program.leaves:
            pos = program.position.get(leaf.index, len(program.leaves))
            parts = leaf.path.split(".")
            for i in range(1, len(parts) + 1):
                key = ".".join(parts[:i])
                if pos < self.first.get(key, 1 << 60):
                    self.first[key] = pos

    # -- types -----------------------------------------------------------------
    def sig_type(self, path: str):
        info = self.signals.get(path)
        return info.type if info is not None else None

    def src_type(self, net, src, nodes):
        if src[0] == "in":
            return net.inputs[src[1]][0]
        if src[0] == "out":
            return self.sig_type(f"{nodes[src[1]].path}.{src[2]}")
        return None

    def src_init(self, net, prefix, src, nodes):
        """The value a feedback wire reads on the first scan."""
        if src[0] == "in":
            info = self.signals.get(prefix + src[1])
        else:
            info = self.signals.get(f"{nodes[src[1]].path}.{src[2]}")
        if info is None:
            return None
        return info.const if info.slot is None else self.table[info.slot]

    def target_type(self, node, port):
        if isinstance(node.element, Network):
            return node.element.inputs[port][0]
        return self.sig_type(f"{node.path}.{port}")

    # -- one POU -----------------------------------------------------------------
    def pou(self, net: Network, prefix: str, kind: str) -> str:
        nodes, outputs = _level(net, prefix)
        order = self._order(nodes, outputs)
        sub_names = {}
        for name in order:
            node = nodes[name]
            if isinstance(node.element, Network):
                sub_names[name] = self.pou(node.element, node.path + ".", "functionBlock")
        el = _PouWriter(self, net, prefix, kind, nodes, outputs, order, sub_names).write()
        return self._register(net.name, el)

    def native_pou(self, node) -> str | None:
        """The name of the ST function block POU standing for the block of ``node``
        (made on first use), or None when the block is IEC's own."""
        block = node.element
        if not isinstance(block, Network) and carried(block) is not None:
            return write_carried(self, carried(block))
        if isinstance(block, Network) or not has_st(block):
            return None
        types = {}
        for var in type(block).types:
            tp = block.bound_types.get(var)
            for port in (*block.output_ports(), *block.input_ports()):
                if tp is None and port.type == var:
                    tp = self.sig_type(f"{node.path}.{port.name}")
            if tp is None:
                raise ExportError(f"{node.path}: the type {var} of {block.name} is unknown")
            types[var] = tp
        if block.st(types) is None:     # an IEC block in this configuration (F_TRIG)
            return None
        key = (block.name, tuple(sorted((k, v.name) for k, v in types.items())),
               json.dumps(block.p, sort_keys=True))
        if key not in self.natives:
            self.natives[key] = self._register(native_name(block, types),
                                               native_pou(block, types))
        return self.natives[key]

    def _register(self, base: str, el) -> str:
        el.set("name", "")
        text = etree.tostring(el)
        name, k = base, 1
        while True:
            if name not in self.pous and name.upper() not in self.taken:
                break
            if self.canon.get(name) == text:
                return name
            k += 1
            name = f"{base}_{k}"
        el.set("name", name)
        self.pous[name] = el
        self.canon[name] = text
        return name

    @staticmethod
    def _break(nodes, outputs, loop) -> None:
        """Inline the macro of ``loop`` whose inlining leaves the fewest of the loop's
        other instances on a loop (a macro whose outputs do not depend on the inputs
        the loop feeds frees them all); of those, the smallest."""
        macros = sorted((n for n in loop if isinstance(nodes[n].element, Network)),
                        key=lambda n: (_size(nodes[n].element), n))
        if not macros:
            raise ExportError(f"a loop without a feedback mark through "
                              f"{' -> '.join(sorted(loop))}")
        best = None
        for m in macros:
            trial = {n: _Node(x.name, x.element, x.path, dict(x.bindings))
                     for n, x in nodes.items()}
            _inline(trial, dict(outputs), m)
            still = set().union(*_loops(_graph(trial)))
            left = len((set(loop) - {m}) & still)
            if best is None or left < best[0]:
                best = (left, m)
            if left == 0:
                break
        _inline(nodes, outputs, best[1])

    def _order(self, nodes, outputs) -> list[str]:
        """Inline macros on loops until the level has an order of whole calls; that
        order, as close to the compiled one as the wires allow."""
        for _ in range(10_000):
            graph = _graph(nodes)
            loops = _loops(graph)
            if loops:
                self._break(nodes, outputs, loops[0])
                continue
            succ = {name: [] for name in nodes}
            indeg = {name: len(deps) for name, deps in graph.items()}
            for name, deps in graph.items():
                for d in deps:
                    succ[d].append(name)
            key = {name: (self.first.get(nodes[name].path, 1 << 60), name) for name in nodes}
            ready = [key[n] for n, d in indeg.items() if d == 0]
            heapq.heapify(ready)
            out = []
            while ready:
                _, n = heapq.heappop(ready)
                out.append(n)
                for s in succ[n]:
                    indeg[s] -= 1
                    if indeg[s] == 0:
                        heapq.heappush(ready, key[s])
            return out
        raise ExportError("too many macros to inline")  # pragma: no cover


def _loops(graph: dict) -> list[list]:
    return loops(graph, lambda v: sorted(graph[v]))


def _graph(nodes) -> dict:
    graph = {name: set() for name in nodes}
    for name, node in nodes.items():
        for src, fb in node.bindings.values():
            if src[0] == "out" and not fb:
                graph[name].add(src[1])
    return graph


def _size(net: Network) -> int:
    return sum(_size(i.element) if i.is_macro else 1 for i in net.instances.values())


class _PouWriter:
    def __init__(self, ex: _Exporter, net, prefix, kind, nodes, outputs, order, sub_names):
        self.ex = ex
        self.net = net
        self.prefix = prefix
        self.kind = kind
        self.nodes = nodes
        self.outputs = outputs
        self.order = order
        self.sub_names = sub_names
        self.next_id = 0

    def lid(self) -> int:
        self.next_id += 1
        return self.next_id

    def _output_type(self, name):
        o = self.net.outputs[name]
        if o.type is not None:
            return o.type
        if self.prefix == "":
            return self.ex.program.output_types.get(name)
        return self.ex.sig_type(self.prefix + name)

    def write(self):
        net, ex = self.net, self.ex
        # names: variables first; instances renamed where IEC's one namespace clashes
        used = set(ex.taken) | {n.upper() for n in net.inputs} | {n.upper() for n in net.outputs}
        used |= {n.upper() for n in self.sub_names.values()}
        self.native = {}      # instance -> the ST POU standing for its block
        for name in self.order:
            pou_name = ex.native_pou(self.nodes[name])
            if pou_name is not None:
                self.native[name] = pou_name
                used.add(pou_name.upper())
        self.iname = {}
        for name in self.order:
            new, k = name, 1
            while new.upper() in used:
                k += 1
                new = f"{name}_{k}"
            used.add(new.upper())
            self.iname[name] = new
        # feedback sources -> local variables fb_N
        self.fb = {}          # source -> variable name
        fb_count = 0

        def fb_var(src):
            nonlocal fb_count
            if src not in self.fb:
                while True:
                    fb_count += 1
                    name = f"fb_{fb_count}"
                    if name.upper() not in used:
                        break
                used.add(name.upper())
                self.fb[src] = name
            return self.fb[src]

        for name in self.order:
            for src, fb in self.nodes[name].bindings.values():
                if fb and src[0] != "lit":
                    fb_var(src)
        for src, fb in self.outputs.values():
            if fb and src[0] != "lit":
                fb_var(src)

        pou = etree.Element(P + "pou", name=net.name, pouType=self.kind)
        self._interface(pou)
        body = sub(pou, "body")
        self.fbd = sub(body, "FBD")
        self._body()
        _into_view(self.fbd)
        if net.doc:
            doc = sub(pou, "documentation")
            p = etree.SubElement(doc, "{%s}p" % XHTML_URI)
            p.text = etree.CDATA(net.doc)
        return pou

    # -- interface ---------------------------------------------------------------
    def _interface(self, pou):
        net, ex = self.net, self.ex
        iface = sub(pou, "interface")
        if net.inputs:
            group = sub(iface, "inputVars")
            for name, (tp, default) in net.inputs.items():
                v = sub(group, "variable", name=name, address=_addr(net, name))
                type_el(v, tp)
                if default is not REQUIRED:
                    value_el(v, tp.to_python(default) if tp.kind is Kind.TIME else default, tp)
        if net.outputs:
            group = sub(iface, "outputVars")
            for name in net.outputs:
                v = sub(group, "variable", name=name, address=_addr(net, name))
                type_el(v, self._output_type(name))
        local = []
        for src, name in self.fb.items():
            tp = ex.src_type(net, src, self.nodes)
            init = ex.src_init(net, self.prefix, src, self.nodes)
            local.append((name, tp, init, None))
        for name in self.order:
            node = self.nodes[name]
            if isinstance(node.element, Network):
                local.append((self.iname[name], None, None, self.sub_names[name]))
            elif name in self.native or type(node.element).stateful:
                local.append((self.iname[name], None, None, self._type_name(node)))
        if local:
            group = sub(iface, "localVars")
            for name, tp, init, derived in local:
                v = sub(group, "variable", name=name)
                if derived is not None:
                    sub(sub(v, "type"), "derived", name=derived)
                    continue
                if tp is None:
                    raise ExportError(f"{self.net.name}: the type of feedback variable "
                                      f"{name} is unknown")
                type_el(v, tp)
                if init is not None and init != tp.default:
                    value_el(v, tp.to_python(init) if tp.kind is Kind.TIME else init, tp)
                # Our import keeps a marked variable a wire, not an output of the
                # network: a round trip gives back the interface it started with.
                d = sub(sub(v, "addData"), "data", name=FEEDBACK_NAME, handleUnknown="discard")
                etree.SubElement(d, "{%s}feedback" % DATA_NS, nsmap={"fbd": DATA_NS})

    # -- body ----------------------------------------------------------------------
    def _body(self):
        net = self.net
        lay_net = Network(net.name)
        for name, (tp, _d) in net.inputs.items():
            lay_net.input(name, tp)
        insts = {}
        for name in self.order:
            insts[name] = lay_net.add(name, self.nodes[name].element)

        def ref(src):
            if src[0] == "in":
                return Ref(lay_net, src[1], "netin")
            if src[0] == "out":
                return insts[src[1]].port(src[2])
            return src[1]

        for name in self.order:
            for port, (src, fb) in self.nodes[name].bindings.items():
                if not fb or src[0] == "lit":
                    lay_net.connect(ref(src), insts[name].port(port))
        for name, (src, fb) in self.outputs.items():
            lay_net.output(name, ref(src) if not fb or src[0] == "lit" else 0)
        level = layout_level(lay_net, "", list(self.order), {}, connectors=False)
        routes = {w.dst: w.points for w in level.wires if w.points}
        self.level = level

        ids = {}       # source -> localId of the element it comes from
        self.rects = []  # what is placed so far: (x, y, w, h)
        # inputs, at the layout's inputs box
        if INPUTS in level.boxes:
            box = level.boxes[INPUTS]
            for name in net.inputs:
                x, y = box.out_port(name)
                ids[("in", name)] = self._in_var(name, x, y, right=True)
        order_id = 0
        pins = {}      # (node, port) -> absolute position of its pin
        blocks = {}
        for name in self.order:
            node = self.nodes[name]
            box = level.boxes[name]
            order_id += 1
            blk = sub(self.fbd, "block", localId=self.lid(), typeName=self._type_name(node),
                       instanceName=self.iname[name], executionOrderId=order_id,
                       width=_n(box.w), height=_n(box.h))
            blocks[name] = blk
            sub(blk, "position", x=_n(box.x), y=_n(box.y))
            self.rects.append((box.x, box.y - 14, box.w, box.h + 14))   # with its name
            sub(blk, "inputVariables")
            sub(blk, "inOutVariables")
            outs = sub(blk, "outputVariables")
            for port in box.outputs:
                v = sub(outs, "variable", formalParameter=port)
                px, py = box.out_port(port)
                sub(sub(v, "connectionPointOut"), "relPosition", x=_n(px - box.x),
                     y=_n(py - box.y))
                pins[(name, port)] = (px, py)
            data = None if isinstance(node.element, Network) or name in self.native \
                else _block_data(node.element)
            if data is not None:
                ad = sub(blk, "addData")
                d = sub(ad, "data", name=DATA_NAME, handleUnknown="preserve")
                etree.SubElement(d, "{%s}block" % DATA_NS, nsmap={"fbd": DATA_NS}, **data)
        # wires into the blocks
        fb_readers = []
        for name in self.order:
            node, box, blk = self.nodes[name], level.boxes[name], blocks[name]
            ins = blk.find(P + "inputVariables")
            for port in box.inputs:
                v = sub(ins, "variable", formalParameter=port)
                cpi = sub(v, "connectionPointIn")
                px, py = box.in_port(port)
                sub(cpi, "relPosition", x=_n(px - box.x), y=_n(py - box.y))
                if port not in node.bindings:
                    continue
                src, fb = node.bindings[port]
                self._connect(cpi, src, fb, (px, py), routes.get((name, port)), ids, pins,
                              self.ex.target_type(node, port), blocks)
                if fb and src[0] != "lit":
                    fb_readers.append(src)
        # outputs, at the layout's outputs box
        if OUTPUTS in level.boxes:
            box = level.boxes[OUTPUTS]
            for name, (src, fb) in self.outputs.items():
                x, y = box.in_port(name)
                order_id += 1
                ov = sub(self.fbd, "outVariable", localId=self.lid(), executionOrderId=order_id,
                          height=VAR_H, width=_n(_text_w(name)))
                sub(ov, "position", x=_n(x), y=_n(y - VAR_H / 2))
                self.rects.append((x, y - VAR_H / 2, _text_w(name), VAR_H))
                cpi = sub(ov, "connectionPointIn")
                sub(cpi, "relPosition", x="0", y=_n(VAR_H / 2))
                self._connect(cpi, src, fb, (x, y), routes.get((OUTPUTS, name)), ids, pins,
                              self._output_type(name), blocks)
                sub(ov, "expression").text = name
        # feedback variables are written last: their readers see the previous scan; so
        # are the inputs a block writes (Network.store: the block runs last of all)
        stores = self.net.stores.items() if self.prefix == "" else ()
        for src, var in [*self.fb.items(), *((("out", *at), name) for name, at in stores)]:
            if src[0] == "in":
                sx, sy = level.boxes[INPUTS].out_port(src[1])
            else:
                sx, sy = pins[(src[1], src[2])]
            w = _text_w(var)
            x, y = self._free_spot(sx + 8, sy, w)   # beside its source, clear of the rest
            order_id += 1
            ov = sub(self.fbd, "outVariable", localId=self.lid(), executionOrderId=order_id,
                      height=VAR_H, width=_n(w))
            sub(ov, "position", x=_n(x), y=_n(y - VAR_H / 2))
            cpi = sub(ov, "connectionPointIn")
            sub(cpi, "relPosition", x="0", y=_n(VAR_H / 2))
            c = sub(cpi, "connection", refLocalId=ids[src] if src[0] == "in"
                     else blocks[src[1]].get("localId"))
            if src[0] == "out":
                c.set("formalParameter", src[2])
            self._points(c, [(x, y), (sx + 4, y), (sx + 4, sy), (sx, sy)])
            sub(ov, "expression").text = var

    def _free_spot(self, x, y, w):
        """The nearest (x, y) at or below the given point where a variable box of width
        ``w`` overlaps no block or variable already placed."""
        for k in range(2000):
            yy = y + k * (VAR_H + 2)
            rect = (x, yy - VAR_H / 2, w, VAR_H)
            if not any(_overlap(rect, r) for r in self.rects):
                self.rects.append(rect)
                return x, yy
        return x, y  # pragma: no cover - a column of 2000 variables

    def _type_name(self, node) -> str:
        if isinstance(node.element, Network):
            return self.sub_names[node.name]
        if node.name in self.native:
            return self.native[node.name]
        return EDITION2_NAMES.get(node.element.name, node.element.name)

    def _in_var(self, expr, x, y, right=False) -> int:
        """An inVariable whose connection point is at (x, y) (its right edge)."""
        lid = self.lid()
        w = _text_w(expr)
        iv = sub(self.fbd, "inVariable", localId=lid, height=VAR_H, width=_n(w))
        sub(iv, "position", x=_n(x - w), y=_n(y - VAR_H / 2))
        self.rects.append((x - w, y - VAR_H / 2, w, VAR_H))
        sub(sub(iv, "connectionPointOut"), "relPosition", x=_n(w), y=_n(VAR_H / 2))
        sub(iv, "expression").text = expr
        return lid

    def _connect(self, cpi, src, fb, at, points, ids, pins, tp, blocks) -> None:
        x, y = at
        if src[0] == "lit":
            text = literal_text(src[1], tp)
            lid = self._in_var(text, x - 8, y)
            c = sub(cpi, "connection", refLocalId=lid)
            self._points(c, [(x, y), (x - 8, y)])
            return
        if fb:
            var = self.fb[src]
            lid = self._in_var(var, x - 8, y)
            c = sub(cpi, "connection", refLocalId=lid)
            self._points(c, [(x, y), (x - 8, y)])
            return
        if src[0] == "in":
            c = sub(cpi, "connection", refLocalId=ids[src])
            start = self.level.boxes[INPUTS].out_port(src[1])
        else:
            c = sub(cpi, "connection", refLocalId=blocks[src[1]].get("localId"),
                     formalParameter=src[2])
            start = pins[(src[1], src[2])]
        if points:
            pts = list(reversed(points))
        else:   # an orthogonal route: along the consumer's row, across, to the source
            mx = (x + start[0]) / 2 if start[0] < x else x - 8
            pts = [(x, y), (mx, y), (mx, start[1]), start]
        self._points(c, pts)

    @staticmethod
    def _points(c, pts) -> None:
        for px, py in pts:
            sub(c, "position", x=_n(px), y=_n(py))


def _into_view(fbd, margin: float = 20) -> None:
    """Shift a body's absolute positions so none is above or left of ``margin``:
    wires routed around the top row can go negative, and an editor's canvas
    starts at 0 (relative pin positions stay as they are)."""
    positions = list(fbd.iter(P + "position"))
    if not positions:
        return
    dx = max(0.0, margin - min(float(p.get("x")) for p in positions))
    dy = max(0.0, margin - min(float(p.get("y")) for p in positions))
    if dx or dy:
        for p in positions:
            p.set("x", _n(float(p.get("x")) + dx))
            p.set("y", _n(float(p.get("y")) + dy))


def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _addr(net: Network, name: str):
    a = net.addresses.get(name)
    return str(a) if a is not None else None


def _block_data(block: Block):
    """Attributes for the addData of a block: bound types and non-default parameters."""
    data = {}
    if block.bound_types:
        data["types"] = ",".join(f"{k}={v.name}" for k, v in block.bound_types.items())
    params = {k: v for k, v in block.p.items() if type(block).params.get(k) != v}
    if params:
        data["params"] = json.dumps(params, sort_keys=True)
    return data or None


def _text_w(text: str) -> float:
    return max(30.0, 7.0 * len(text) + 12)


def _n(x) -> str:
    """A coordinate as the XSD's decimal (no exponent)."""
    v = round(float(x), 1)
    return str(int(v)) if v == int(v) else f"{v:.1f}"


__all__ = ["save", "to_xml", "native_st", "schema_path", "validate", "ExportError"]
