"""fbd-sim's own marks in a PLCopen file, read back: what our export adds to IEC.

* ``urn:fbd-sim:native`` on a POU: the POU is the library block it names
  (MEMORY, LIFO, ...), written in ST for the editors; the importer places the
  block itself and never reads the ST. The mark must agree with the POU's
  interface, or the POU is refused with the reason.
* ``urn:fbd-sim:block`` on a block: its bound types and the parameters this
  library adds to IEC (``depth``, ``first_scan_pulse``).

Everything a mark asks for is bounded before anything is built from it: a
dozen bytes of JSON must not make a block with five million inputs.
"""

from __future__ import annotations

import json

from .. import types as t
from ..block import Extensible, registry
from ..errors import FbdError
from .emit import DATA_NAME, NATIVE_NAME
from .interface import read_var
from .source import PlcOpenError, child, children, quote

#: more inputs than any drawing has; the compiler and memory stay safe below it
MAX_INPUTS = 256
MAX_PARAMS_CHARS = 1000


def marker(pou_el):
    """The ``fbd:native`` element of a POU our export wrote for a library block, or
    None (a POU anyone else wrote, even of the same name, has none)."""
    for d in children(child(pou_el, "addData"), "data"):
        if d.get("name") == NATIVE_NAME and len(d) > 0:
            return d[0]
    return None


def _params(text: str | None, what):
    """A JSON object of block parameters, bounded in size and depth."""
    if not text:
        return {}
    if len(text) > MAX_PARAMS_CHARS:
        raise what(f"has params of {len(text)} characters; at most {MAX_PARAMS_CHARS}")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise what(f"has params {quote(text)}, not a JSON object")
    n = value.get("n")
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or not 0 < n <= MAX_INPUTS):
        shown = str(n) if isinstance(n, int) and abs(n) < 10 ** 15 else quote(n)
        raise what(f"asks for n={shown} inputs; a block takes 1 to {MAX_INPUTS}")
    for k, v in value.items():
        if not isinstance(v, (bool, int, float, str)) or (isinstance(v, str) and len(v) > 200):
            raise what(f"has the parameter {quote(k)} = {quote(v)}, not a plain value")
    return value


def _types(text: str | None, cls, what) -> dict:
    types = {}
    for item in filter(None, (text or "").split(",")[:16]):
        var, _, tname = item.partition("=")
        if var not in cls.types:
            raise what(f"binds {quote(var)}, which is not a type variable of {cls.type_name}")
        try:
            types[var] = t.by_name(tname)
        except t.InvalidValue:
            raise what(f"binds {var} to {quote(tname)}, which is not an elementary type") from None
    return types


def native_block(name: str, pou_el):
    """A function making the block the marked POU ``name`` stands for, once the
    mark is checked: a known block, each of its type variables bound to an
    elementary type, valid parameters, and ports that are the POU's interface."""
    m = marker(pou_el)

    def what(msg):
        return PlcOpenError(f"POU {quote(name)}: its fbd-sim marker (addData {NATIVE_NAME}) "
                            f"{msg}")

    bname = m.get("block") or ""
    cls = registry().get(bname)
    if cls is None:
        raise what(f"names the block {quote(bname)}, which this library does not have")
    types = _types(m.get("types"), cls, what)
    missing = [v for v in cls.types if v not in types]
    if missing:
        raise what(f"leaves the type {missing[0]} of {bname} unbound")
    params = _params(m.get("params"), what)
    try:
        block = cls(types=types, **params)
    except (FbdError, TypeError) as e:
        raise what(f"does not make a {bname}: {str(e)[:300]}") from None
    # the interface must be the block's ports: a marker edited apart from it is refused
    iface = child(pou_el, "interface")
    for kind, ports in (("inputVars", block.input_ports()), ("outputVars", block.output_ports())):
        want = [(p.name, (types[p.type] if isinstance(p.type, str) else p.type).name)
                for p in ports]
        have = [(v.get("name"), read_var(v, kind, f"POU {quote(name)}").type_name.upper())
                for g in children(iface, kind) for v in children(g, "variable")]
        if have != want:
            show = "; ".join(f"{n}: {tp}" for n, tp in want)
            got = "; ".join(f"{n}: {tp}" for n, tp in have[:len(want) + 2]) or "none"
            raise what(f"says {block!r}, whose {kind} are {show}, but the POU declares {got}")
    return lambda: cls(types=types, **params)


def block_options(el, cls, pins, what) -> dict:
    """Keyword arguments for a library block placed as ``el``: the types and
    parameters our export wrote in its addData, and ``n`` for an extensible
    input group, from the pins the drawing has."""
    kw = {}
    for d in children(child(el, "addData"), "data"):
        if d.get("name") != DATA_NAME or len(d) == 0:
            continue
        info = d[0]
        types = info.get("types")
        if types:
            try:
                kw["types"] = _types(types, cls, PlcOpenError)
            except PlcOpenError as e:
                raise what(f"bad types {quote(types)} in addData: {e}") from None
        kw.update(_params(info.get("params"), lambda m: what(f"addData {m}")))
    group = next((p for p in cls.inputs if isinstance(p, Extensible)), None)
    if group is not None and "n" not in kw:
        numbered = [p for p in pins if p and p.startswith(group.prefix)
                    and p[len(group.prefix):].isdigit()]
        if len(numbered) > MAX_INPUTS:
            raise what(f"has {len(numbered)} inputs; a block takes at most {MAX_INPUTS}")
        kw["n"] = max(group.min, len(numbered))
    return kw


__all__ = ["marker", "native_block", "block_options", "DATA_NAME", "NATIVE_NAME", "MAX_INPUTS"]
