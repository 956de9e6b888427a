"""A block without a vector form, run lane by lane inside the batch scan.

Where :mod:`.vector` cannot widen a block's scalar IR (a LIFO's or FIFO's
region, whose cells the code addresses by a computed index; a call of the C
library's ``sin`` or ``pow``), the block runs its scalar IR, the very code
the native engine runs (:mod:`fbd.native.templates`), once per instance of
the tile, in a loop: each instance's values are copied from their rows into
a small table of 8-byte cells (``%s``, as the scalar code expects them),
the scalar code runs on it, and what it wrote goes back into the rows. The
loop visits only the lanes that hold instances, so a trap is always an
instance's own; the first one is recorded with the code.
"""

from __future__ import annotations

from .vector import Row


def _cell(index: int) -> str:
    return f"getelementptr i64, ptr %s, i64 {index}"


def _element(lines: list, row: Row, ptr: str, name: str) -> str:
    """The lane's element of the row at ``ptr`` as the 64 bits of its cell."""
    if row.ir == "i1":
        lines += [f"  %{name}.byte = lshr i64 %{{0}}.l, 3",
                  f"  %{name}.p = getelementptr i8, ptr {ptr}, i64 %{name}.byte",
                  f"  %{name}.b = load i8, ptr %{name}.p",
                  f"  %{name}.bit = trunc i64 %{{0}}.l to i8",
                  f"  %{name}.at = and i8 %{name}.bit, 7",
                  f"  %{name}.sh = lshr i8 %{name}.b, %{name}.at",
                  f"  %{name}.one = and i8 %{name}.sh, 1",
                  f"  %{name} = zext i8 %{name}.one to i64"]
        return f"%{name}"
    lines += [f"  %{name}.p = getelementptr {row.ir}, ptr {ptr}, i64 %{{0}}.l",
              f"  %{name}.e = load {row.ir}, ptr %{name}.p"]
    value = f"%{name}.e"
    if row.ir == "float":
        lines.append(f"  %{name}.d = fpext float {value} to double")
        value = f"%{name}.d"
    if row.kind == "d":
        lines.append(f"  %{name} = bitcast double {value} to i64")
    elif row.ir != "i64":
        ext = "sext" if row.signed else "zext"
        lines.append(f"  %{name} = {ext} {row.ir} {value} to i64")
    else:
        return value
    return f"%{name}"


def _put(lines: list, row: Row, ptr: str, name: str, value: str) -> None:
    """Store a cell's 64 bits as the lane's element of the row at ``ptr``."""
    if row.ir == "i1":
        lines += [f"  %{name}.byte = lshr i64 %{{0}}.l, 3",
                  f"  %{name}.p = getelementptr i8, ptr {ptr}, i64 %{name}.byte",
                  f"  %{name}.b = load i8, ptr %{name}.p",
                  f"  %{name}.bit = trunc i64 %{{0}}.l to i8",
                  f"  %{name}.at = and i8 %{name}.bit, 7",
                  f"  %{name}.mask = shl i8 1, %{name}.at",
                  f"  %{name}.keep = xor i8 %{name}.mask, -1",
                  f"  %{name}.rest = and i8 %{name}.b, %{name}.keep",
                  f"  %{name}.v = trunc i64 {value} to i8",
                  f"  %{name}.set = shl i8 %{name}.v, %{name}.at",
                  f"  %{name}.new = or i8 %{name}.rest, %{name}.set",
                  f"  store i8 %{name}.new, ptr %{name}.p"]
        return
    if row.kind == "d":
        lines.append(f"  %{name}.d = bitcast i64 {value} to double")
        value = f"%{name}.d"
        if row.ir == "float":
            lines.append(f"  %{name}.f = fptrunc double {value} to float")
            value = f"%{name}.f"
    elif row.ir != "i64":
        lines.append(f"  %{name}.t = trunc i64 {value} to {row.ir}")
        value = f"%{name}.t"
    lines += [f"  %{name}.p = getelementptr {row.ir}, ptr {ptr}, i64 %{{0}}.l",
              f"  store {row.ir} {value}, ptr %{name}.p"]


def lane_template(tpl, rows: dict, n_slots: int, written: set, region: tuple | None,
                  width: int) -> tuple:
    """``(format, cells)``: the per-instance template of a block run lane by lane
    (placeholders as :func:`.vector.instance_template`'s: ``{0}`` the prefix,
    ``{1}`` the block's index, ``{k}`` the tile offset of slot placeholder k's
    row or region) and the number of cells it needs in ``%s``.

    ``tpl``: the scalar template; ``n_slots``: its slot placeholders (2, 3, ...);
    ``rows``: placeholder -> :class:`Row` of those that have a row (not a
    LIFO's DATA); ``written``: the placeholders of its outputs and state;
    ``region``: (its placeholder, depth) for a LIFO or FIFO."""
    slots = sorted(rows)
    cell = {k: k - 2 for k in range(2, 2 + n_slots)}
    n_cells = n_slots + (2 + region[1] if region else 0)
    lines = ["  store i64 0, ptr %lanei", "  br label %{0}.loop", "{0}.loop:",
             "  %{0}.l = load i64, ptr %lanei"]
    for k in slots:
        ptr = f"%{{0}}.r{k}"
        lines.append(f"  {ptr} = getelementptr inbounds i8, ptr %tile, i64 {{{k}}}")
        value = _element(lines, rows[k], ptr, f"{{0}}.g{k}")
        lines += [f"  %{{0}}.c{k} = {_cell(cell[k])}", f"  store i64 {value}, ptr %{{0}}.c{k}"]
    regions = []
    if region:
        placeholder, depth = region
        lines.append(f"  %{{0}}.reg = getelementptr inbounds i8, ptr %tile, i64 {{{placeholder}}}")
        for j in range(2 + depth):
            ptr = f"%{{0}}.reg{j}"
            regions.append(ptr)
            lines += [f"  {ptr} = getelementptr inbounds i8, ptr %{{0}}.reg, i64 {8 * width * j}",
                      f"  {ptr}.p = getelementptr i64, ptr {ptr}, i64 %{{0}}.l",
                      f"  {ptr}.v = load i64, ptr {ptr}.p",
                      f"  {ptr}.c = {_cell(n_slots + j)}",
                      f"  store i64 {ptr}.v, ptr {ptr}.c"]
    n_in = len(tpl.inputs)
    first_value = 2 + n_slots + (1 if region else 0)
    values = []
    for i, kind in enumerate(tpl.inputs):
        name = f"%{{0}}.in{i}"
        values.append(name)
        if kind is not None:
            lines += [f"  {name}p = {_cell(cell[2 + i])}",
                      f"  {name} = load {'double' if kind == 'd' else 'i64'}, ptr {name}p"]
    lines.append("  %{0}.t0 = load i64, ptr %trap")
    args = ["{0}.s", "{1}", *(str(cell[k]) for k in range(2, 2 + n_slots))]
    if region:
        args.append(str(n_slots))
    assert len(args) == first_value and len(values) == n_in
    lines.append(tpl.fmt.format(*args, *values))
    for k in slots:
        if k in written:
            lines.append(f"  %{{0}}.o{k} = load i64, ptr %{{0}}.c{k}")
            _put(lines, rows[k], f"%{{0}}.r{k}", f"{{0}}.p{k}", f"%{{0}}.o{k}")
    for ptr in regions:
        lines += [f"  {ptr}.n = load i64, ptr {ptr}.c", f"  store i64 {ptr}.n, ptr {ptr}.p"]
    lines += ["  %{0}.t1 = load i64, ptr %trap",
              # a retired instance's lane runs, but its trap is undone
              f"  %{{0}}.alive = extractelement <{width} x i1> %valid, i64 %{{0}}.l",
              "  %{0}.tk = select i1 %{0}.alive, i64 %{0}.t1, i64 %{0}.t0",
              "  store i64 %{0}.tk, ptr %trap",
              "  %{0}.was = icmp eq i64 %{0}.t0, 0",
              "  %{0}.now = icmp ne i64 %{0}.tk, 0",
              "  %{0}.hit = and i1 %{0}.was, %{0}.now",
              "  %{0}.inst = add i64 %base, %{0}.l",
              "  %{0}.lp = getelementptr i64, ptr %trap, i64 1",
              "  %{0}.lo = load i64, ptr %{0}.lp",
              "  %{0}.ln = select i1 %{0}.hit, i64 %{0}.inst, i64 %{0}.lo",
              "  store i64 %{0}.ln, ptr %{0}.lp",
              "  %{0}.next = add i64 %{0}.l, 1",
              "  store i64 %{0}.next, ptr %lanei",
              "  %{0}.more = icmp ult i64 %{0}.next, %lanes",
              "  br i1 %{0}.more, label %{0}.loop, label %{0}.done",
              "{0}.done:"]
    return "\n".join(lines), n_cells


__all__ = ["lane_template"]
