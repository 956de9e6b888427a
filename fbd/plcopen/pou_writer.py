"""The POUs of an export: one per macro body, the program, and this library's own
blocks as ST function blocks; each FBD POU's interface.

:class:`Exporter` walks the network from the top, writing each macro it places
(once per distinct body: two macros of one name whose bodies differ become
``Name`` and ``Name_2``) before the POU placing it; :class:`PouWriter` writes one
POU: its names, its interface (inputs, outputs, the instances and the feedback
variables ``fb_N`` as locals) and, through :class:`~.diagram.DiagramMixin`, its
FBD body.
"""

from __future__ import annotations

import json

from lxml import etree

from .. import types as t
from ..block import REQUIRED, registry
from ..network import Network
from ..values import Kind
from .carry import carried, write_carried
from .diagram import DiagramMixin
from .emit import DATA_NS, FEEDBACK_NAME, XHTML_URI, ExportError, P, sub, type_el, value_el
from .levels import call_order, level_of
from .native_st import has_st, native_name, native_pou


class Exporter:
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
        nodes, outputs = level_of(net, prefix)
        order = call_order(nodes, outputs, self.first)
        sub_names = {}
        for name in order:
            node = nodes[name]
            if isinstance(node.element, Network):
                sub_names[name] = self.pou(node.element, node.path + ".", "functionBlock")
        el = PouWriter(self, net, prefix, kind, nodes, outputs, order, sub_names).write()
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
        literals = {port: src[1] for port, (src, _fb) in node.bindings.items()
                    if src[0] == "lit"}
        if block.st(types) is None or not block.st_needed(types, literals):
            return None     # IEC's own block in this configuration (F_TRIG, SHL by 1)
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


class PouWriter(DiagramMixin):
    def __init__(self, ex: Exporter, net, prefix, kind, nodes, outputs, order, sub_names):
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
        self.draw_body()
        if net.doc:
            doc = sub(pou, "documentation")
            p = etree.SubElement(doc, "{%s}p" % XHTML_URI)
            p.text = etree.CDATA(net.doc)
        return pou

    # -- interface ---------------------------------------------------------------
    def _interface(self, pou):
        net, ex = self.net, self.ex
        iface = sub(pou, "interface")
        # IEC locates the variables of a program's VAR sections, never its inputs and
        # outputs (matiec refuses AT there) nor a function block's: a located port of
        # the program is a VAR of its own, which our import reads back as the port
        # (%I, and %M read only, an input; %Q and written %M an output). A macro's
        # location means nothing to the program and is not written.
        located = {n: str(a) for n, a in net.addresses.items()} if self.kind == "program" \
            else {}
        # in runs, so the import reads the ports back in their order
        for is_located, run in _runs(net.inputs, located):
            group = sub(iface, "localVars" if is_located else "inputVars")
            for name in run:
                tp, default = net.inputs[name]
                v = sub(group, "variable", name=name, address=located.get(name))
                type_el(v, tp)
                if default is not REQUIRED:
                    value_el(v, tp.to_python(default) if tp.kind is Kind.TIME else default, tp)
        for is_located, run in _runs(net.outputs, located):
            group = sub(iface, "localVars" if is_located else "outputVars")
            for name in run:
                type_el(sub(group, "variable", name=name, address=located.get(name)),
                        self._output_type(name))
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



def _runs(names, located: dict):
    """``names`` in runs of consecutive located or unlocated ones: (located, [name...])."""
    runs = []
    for name in names:
        here = name in located
        if not runs or runs[-1][0] != here:
            runs.append((here, []))
        runs[-1][1].append(name)
    return runs


__all__ = ["Exporter", "PouWriter"]
