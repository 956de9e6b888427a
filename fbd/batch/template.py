"""One block configuration's code for the batch engine: vector, or per instance.

A :class:`Template` is made once per block configuration (type, size,
parameters, types, literal inputs: the key :mod:`fbd.compiler.pycode` uses
too) and formatted for each instance of it with that instance's slots. It is
derived from the block's one definition, ``fbd.block.code_lines``:

* **vector** (:mod:`.lift`, :mod:`.lower`): numpy statements over whole
  arrays, one element per PLC instance;
* **per instance** (:func:`fallback_source`), where the code cannot be
  vectorised (see :class:`~.ir.Untranslatable`: STRING functions, LIFO and
  FIFO with their Python lists, helpers without source or return type): the
  very same statements run in a Python loop over the instances, on the
  values of each (``tolist``), and the results are written back. Correct,
  and about a microsecond per instance and block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..block import code_lines, code_namespace, identifier
from ..values import Kind
from .ir import NOW_MAX, NOW_MIN, Graph, Untranslatable, hull
from .lift import Lifter
from .lower import Lowering
from .plan import INT_DTYPES, Target

#: How each IEC type is held: one numpy array of n elements per signal.
DTYPES = {
    "BOOL": "bool", "SINT": "int8", "INT": "int16", "DINT": "int32", "LINT": "int64",
    "USINT": "uint8", "UINT": "uint16", "UDINT": "uint32", "ULINT": "uint64",
    "BYTE": "uint8", "WORD": "uint16", "DWORD": "uint32", "LWORD": "uint64",
    "REAL": "float32", "LREAL": "float64", "TIME": "int64", "STRING": "object",
    "DATE": "int64", "TOD": "int64", "DT": "int64",
}
_KINDS = {"bool": "bool", "int": "int", "bits": "int", "time": "int", "real": "float",
          "string": "str", "date": "int", "tod": "int", "dt": "int", "enum": "int",
          "array": "object", "struct": "object"}
_STATE_ROUNDS = 3   # widenings of a state variable's interval before taking its type's


def dtype_of(tp) -> str:
    """The numpy dtype of a signal of IEC type ``tp`` (None: a block's internal object)."""
    if tp is None:
        return "object"
    if tp.kind is Kind.ENUM:
        return "int32"
    return DTYPES.get(tp.canonical.name, "object")  # ARRAY and STRUCT values: per instance


@dataclass
class Template:
    """A block configuration's code with ``{k}`` for its k-th slot: the wired
    inputs in port order, then the outputs, then the state variables."""
    vector: bool
    fmt: str = ""                      # vector: the statements
    temps: dict = field(default_factory=dict)
    functions: dict = field(default_factory=dict)
    source: str = ""                   # per instance: the function's source
    function: str = ""                 # ... and its name
    reason: str = ""                   # why it is not vector
    state_bounds: dict = field(default_factory=dict)   # state name -> (lo, hi) it keeps to


def _port_kind(tp) -> str:
    if tp is None:
        raise Untranslatable("a block-internal Python object (a LIFO's or FIFO's list)")
    return _KINDS[tp.kind]


def _type_interval(tp):
    if tp.is_integral:
        return tp.min, tp.max
    return None, None


def build_template(leaf, consts: tuple, init: dict, number: int) -> Template:
    """The template of ``leaf``'s configuration. ``consts``: (port, Python
    source) of its literal inputs; ``init``: each state variable's initial
    value; ``number``: makes its global names unique."""
    block = leaf.block
    literal_ports = {port for port, _src in consts}
    wired = [port for port in leaf.inputs if port not in literal_ports]
    names = {port: f"_in_{port}" for port in wired}
    names.update(consts)
    names.update({port: f"_out_{port}" for port in leaf.outputs})
    names.update({sv: f"_st_{identifier(sv)}" for sv in leaf.state})
    lines = code_lines(block, names, leaf.types)
    try:
        return _vector(leaf, wired, lines, init, number)
    except Untranslatable as why:
        return _fallback(leaf, wired, lines, number, str(why))


def _vector(leaf, wired: list, lines: list, init: dict, number: int) -> Template:
    block = leaf.block
    namespace = code_namespace([block])
    source = "\n".join(lines)
    port_types = {port: leaf.port_type(port) for port in (*wired, *leaf.outputs)}
    state_types = {sv: leaf.state_type(sv) for sv in leaf.state}
    bounds = {}
    for sv, tp in state_types.items():
        _port_kind(tp)
        if tp.is_integral:
            value = init.get(sv, tp.default)
            bounds[sv] = (value, value) if isinstance(value, int) else _type_interval(tp)
    for _round in range(_STATE_ROUNDS + 1):
        g = Graph()
        env, inputs, targets = {}, {}, {}
        token = 0
        for port in wired:
            tp = port_types[port]
            node = g.var("in", port, _port_kind(tp), *_type_interval(tp))
            env[f"_in_{port}"] = node
            inputs[node] = (token, dtype_of(tp))
            token += 1
        for port in leaf.outputs:
            tp = port_types[port]
            node = g.var("old", f"out:{port}", _port_kind(tp), *_type_interval(tp))
            env[f"_out_{port}"] = node
            targets[f"_out_{port}"] = Target(f"_out_{port}", token, dtype_of(tp), node)
            token += 1
        for sv, tp in state_types.items():
            lo, hi = bounds.get(sv, (None, None))
            node = g.var("old", f"st:{sv}", _port_kind(tp), lo, hi)
            env[f"_st_{identifier(sv)}"] = node
            targets[f"_st_{identifier(sv)}"] = Target(f"_st_{identifier(sv)}", token, dtype_of(tp), node)
            token += 1
        final = Lifter(g, namespace).run(source, env)
        roots = {}
        for name, target in targets.items():
            node = final[name]
            kind = target.old.kind
            if node.kind != kind:
                raise Untranslatable(f"{name[1:]} gets a {node.kind}, not a {kind}")
            roots[name] = node
        grown = _grow_bounds(bounds, state_types, roots)
        if grown == bounds:
            break
        bounds = grown if _round < _STATE_ROUNDS - 1 else {
            sv: _type_interval(state_types[sv]) for sv in bounds}
    lowered = Lowering(g, roots, targets, inputs, str(number)).lower()
    return Template(True, "\n".join(lowered.lines), lowered.temps, lowered.functions,
                    state_bounds={sv: b for sv, b in bounds.items()
                                  if b != _type_interval(state_types[sv])})


def _grow_bounds(bounds: dict, state_types: dict, roots: dict) -> dict:
    """Each integer state variable's interval, widened by what the block stores in it."""
    out = {}
    for sv, (lo, hi) in bounds.items():
        tp = state_types[sv]
        node = roots[f"_st_{identifier(sv)}"]
        if node.lo is None or node.hi is None or node.lo < tp.min or node.hi > tp.max:
            out[sv] = _type_interval(tp)
        else:
            out[sv] = hull((lo, hi), (node.lo, node.hi))
    return out


def _fallback(leaf, wired: list, lines: list, number: int, reason: str) -> Template:
    """The block's statements in a loop over the instances (see the module docstring)."""
    outs = [f"_out_{port}" for port in leaf.outputs] + [f"_st_{identifier(sv)}" for sv in leaf.state]
    ins = [f"_in_{port}" for port in wired]
    params = [f"i{k}" for k in range(len(ins))] + [f"o{k}" for k in range(len(outs))]
    name = f"_per_instance_{number}"
    body = [f"def {name}(s, now, {', '.join(params)}):" if params else f"def {name}(s, now):"]
    for k, _var in enumerate(ins):
        body.append(f"    L_i{k} = s[i{k}].tolist()")
    for k, _var in enumerate(outs):
        body.append(f"    L_o{k} = s[o{k}].tolist()")
    body.append("    for _k in range(_N):")
    for k, var in enumerate(ins):
        body.append(f"        {var} = L_i{k}[_k]")
    for k, var in enumerate(outs):
        body.append(f"        {var} = L_o{k}[_k]")
    body += [f"        {line}" for line in lines]
    for k, var in enumerate(outs):
        body.append(f"        L_o{k}[_k] = {var}")
    for k, _var in enumerate(outs):
        body.append(f"    _store(s[o{k}], L_o{k})")
    return Template(False, source="\n".join(body) + "\n", function=name, reason=reason)


__all__ = ["Template", "build_template", "dtype_of", "DTYPES", "INT_DTYPES", "NOW_MIN", "NOW_MAX"]
