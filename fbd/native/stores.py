"""The native form of the library's bounded stores, LIFO and FIFO.

Their code keeps the elements in a Python list (a state variable with no IEC
type), which no translation of the text can turn into machine code. Their
behaviour is small and fixed, so it is written here once more, as IR, and
tested against the Python blocks (tests/fbd/native): each instance gets a
*region* of the table, ``[count, head, e0 .. e(depth-1)]``, elements held as
their cells' raw 64 bits (a LIFO's top is ``e(count-1)``, a FIFO is a ring
from ``head``). Every index is reduced into the region, so no value in the
table, however it got there, can make the code read or write outside it.

The table shows the element list under the DATA state's slot, as a list
oldest first, the way the Python block keeps it (:mod:`.table`).
"""

from __future__ import annotations

import struct

from .lower import BlockLowering, NoNativeForm, V, slot_kind


def store_kind(block) -> bool | None:
    """True for FIFO, False for LIFO (the library's ``_Store`` blocks), None otherwise."""
    for cls in type(block).__mro__:
        if cls.__module__ == "blocks.memory" and cls.__qualname__ == "_Store":
            return bool(type(block).fifo)
    return None


def raw_bits(value) -> int:
    """A constant as its cell's 64 bits (signed)."""
    if isinstance(value, float):
        return struct.unpack("<q", struct.pack("<d", value))[0]
    value = int(value)
    return value - (1 << 64) if value >= 1 << 63 else value


def lower_store(leaf, names: dict, variables: dict, region_arg: int,
                input_values: dict | None = None) -> BlockLowering:
    """IR lines of one LIFO/FIFO configuration (``names``: port -> variable name or
    literal text, as for the translated blocks; ``region_arg``: the placeholder
    number of the region's first cell)."""
    block = leaf.block
    fifo = store_kind(block)
    depth = int(block.p["depth"])
    tp = leaf.types.get("T")
    if slot_kind(tp) is None:
        raise NoNativeForm(f"{tp} elements")
    bl = BlockLowering("", variables, {}, block.name)
    bl.input_values = dict(input_values or {})
    e = bl.emit

    def value(port: str) -> V:
        text = names[port]
        if text.startswith("i_"):
            return bl.read(text)
        return bl.expr(__import__("ast").parse(text, mode="eval").body, None)

    def b(v: V) -> V:
        return bl.truth(v)

    push_in, pop_in, rst = b(value("PUSH")), b(value("POP")), b(value("RST"))
    push = bl.both("and", push_in, bl.negate(bl.read("o_PUSH_M")))
    pop = bl.both("and", pop_in, bl.negate(bl.read("o_POP_M")))
    bl.assign("o_PUSH_M", push_in, None)
    bl.assign("o_POP_M", pop_in, None)
    cp = e(f"getelementptr i64, ptr %s, i64 {{{region_arg}}}")
    hp = e(f"getelementptr i64, ptr {cp}, i64 1")
    count = e(f"load i64, ptr {cp}")
    neg = e(f"icmp slt i64 {count}, 0")
    count = e(f"select i1 {neg}, i64 0, i64 {count}")
    over = e(f"icmp sgt i64 {count}, {depth}")
    count = e(f"select i1 {over}, i64 {depth}, i64 {count}")
    head = e(f"urem i64 {e(f'load i64, ptr {hp}')}, {depth}")
    pop_c, push_c = bl.cond(pop), bl.cond(push)
    # POP, then PUSH (as _mem_store_op)
    nonempty = e(f"icmp sgt i64 {count}, 0")
    can_pop = e(f"and i1 {pop_c}, {nonempty}")
    underflow = e(f"and i1 {pop_c}, {e(f'xor i1 {nonempty}, true')}")
    count1 = e(f"sub i64 {count}, {e(f'zext i1 {can_pop} to i64')}")
    if fifo:
        nxt = e(f"add i64 {head}, 1")
        wrap = e(f"icmp eq i64 {nxt}, {depth}")
        nxt = e(f"select i1 {wrap}, i64 0, i64 {nxt}")
        head1 = e(f"select i1 {can_pop}, i64 {nxt}, i64 {head}")
        at = e(f"add i64 {head1}, {count1}")
        past = e(f"icmp uge i64 {at}, {depth}")
        at = e(f"select i1 {past}, i64 {e(f'sub i64 {at}, {depth}')}, i64 {at}")
    else:
        head1 = "0"
        at = count1
    room = e(f"icmp slt i64 {count1}, {depth}")
    can_push = e(f"and i1 {push_c}, {room}")
    overflow = e(f"and i1 {push_c}, {e(f'xor i1 {room}, true')}")
    rst_c = bl.cond(rst)
    keep = e(f"xor i1 {rst_c}, true")
    write = e(f"and i1 {can_push}, {keep}")
    at = e(f"select i1 {room}, i64 {at}, i64 0")            # in the region whatever happens
    ep = e(f"getelementptr i64, ptr {cp}, i64 {e(f'add i64 {at}, 2')}")
    if names["IN"].startswith("i_"):
        raw_in = bl.raw_input(names["IN"])
    else:
        import ast
        raw_in = str(raw_bits(ast.literal_eval(names["IN"]) if names["IN"] not in
                              ("math.nan", "math.inf", "-math.inf")
                              else float(names["IN"].replace("math.", ""))))
    old = e(f"load i64, ptr {ep}")
    e_new = e(f"select i1 {write}, i64 {raw_in}, i64 {old}")
    bl.lines.append(f"  store i64 {e_new}, ptr {ep}")
    count2 = e(f"add i64 {count1}, {e(f'zext i1 {can_push} to i64')}")
    count_f = e(f"select i1 {rst_c}, i64 0, i64 {count2}")
    head_f = e(f"select i1 {rst_c}, i64 0, i64 {head1}") if fifo else "0"
    bl.lines.append(f"  store i64 {count_f}, ptr {cp}")
    bl.lines.append(f"  store i64 {head_f}, ptr {hp}")
    # flags: RST clears them; an operation sets both afresh; otherwise they stay
    acted = bl.both("or", push, pop)
    for port, flag in (("o_OVERFLOW", overflow), ("o_UNDERFLOW", underflow)):
        kept = bl.read(port)
        fresh = bl.select(acted, V("b", flag, 0, 1, 1), kept)
        bl.assign(port, bl.select(rst, V("b", "false", 0, 1, 1), fresh), None)
    bl.assign("o_COUNT", V("i", count_f, 0, depth, 64), None)
    bl.assign("o_EMPTY", V("b", e(f"icmp eq i64 {count_f}, 0"), 0, 1, 1), None)
    bl.assign("o_FULL", V("b", e(f"icmp sge i64 {count_f}, {depth}"), 0, 1, 1), None)
    if fifo:
        top = head_f
    else:
        last = e(f"sub i64 {count_f}, 1")
        top = e(f"select i1 {e(f'icmp sgt i64 {count_f}, 0')}, i64 {last}, i64 0")
    tp_ptr = e(f"getelementptr i64, ptr {cp}, i64 {e(f'add i64 {top}, 2')}")
    top_raw = e(f"load i64, ptr {tp_ptr}")
    out_raw = e(f"select i1 {e(f'icmp sgt i64 {count_f}, 0')}, i64 {top_raw}, i64 0")
    for name in sorted(bl.assigned):
        bl.store(bl.vars[name], bl.env[name])
    bl.store_raw(variables["o_OUT"].slot_arg, out_raw)
    return bl


__all__ = ["store_kind", "lower_store", "raw_bits"]
