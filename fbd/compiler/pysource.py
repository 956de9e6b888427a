"""The Python engine's scan as text (a mixin of :class:`~.pycode.ScanProgram`).

Every block instance is its configuration's template (its type's ``Block.code``,
formatted once with placeholders for slots) filled in with its own names. The
scan is cut into functions of :data:`CHUNK` blocks over local variables, each
preceded by the functions of its procedure blocks (ST, IL or SFC POUs); the
scan function calls the chunks in turn and copies the snapshots and published
signals, ``scan_many`` runs it ``n`` times in one call, or is the held variant
of a lone ST program (:mod:`fbd.st.pyheld`).
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import NamedTuple

from ..block import code_lines, literal
from .flat import _NOTHING, Leaf

STORE_EVERY = 16  # values a chunk assigns between two stores to the table (see _chunk_source)
CHUNK = 1024  # leaves per generated function; a force recompiles one chunk


class _Template(NamedTuple):
    """One block configuration's code, ready to format with an instance's names."""
    fmt: str        # statements with {k} for each placeholder's name
    pure: bool      # see PyScanSource._leaf_lines
    chunk: str      # the same, indented for a chunk's function
    tokens: dict    # port or state name -> placeholder number
    n_inputs: int   # placeholders before the outputs'
    label: str      # ": <block name>", for the comment above each instance's code


class PyScanSource:
    """The text of :class:`~.pycode.ScanProgram`'s scan: blocks, chunks, the scan.

    Reads the program's layout (``flat``, ``leaves``, ``order``, ``_reads``) and
    asks its owner where a block writes a forced slot (``_place``) and whether
    the held variant applies (``_holdable``)."""

    def _input_reads(self, leaf: Leaf) -> tuple:
        """What the block's inputs read: the slots of the wired ones in port order
        (the scan-start copy for a feedback wire whose source has run already),
        and ``(port, Python source)`` for each literal one."""
        ins = []
        consts = []
        read_slot = self.flat.read_slot
        for port, src in leaf.inputs.items():
            if src.slot is None:
                consts.append((port, literal(src.const)))
            else:
                ins.append(read_slot(leaf.index, src))
        return tuple(ins), tuple(consts)

    def leaf_code(self, index: int) -> list[str]:
        """The statements of one block over the signal table, as a debugger
        stepping into a scan runs them (the scan itself runs the same text
        over local variables, see :meth:`_chunk_source`)."""
        return self._leaf_lines(index, _table_name)[0]

    def _leaf_lines(self, index: int, name) -> tuple[list[str], bool]:
        """The block's statements with ``name(slot)`` for every slot it touches,
        and whether it is *pure*: it assigns every output from its inputs alone,
        so its outputs need no value from before the block runs."""
        leaf = self.leaves[index]
        ins, consts = self._reads[index]
        values = [name(slot) for slot in ins]   # what each placeholder stands for, in order
        pre = []
        written = set()
        for names in (leaf.outputs, leaf.state):
            for slot in names.values():
                values.append(name(self._place(slot)))
                written.add(slot)
        tpl = self._template(leaf, consts)
        for port, src in leaf.inputs.items():
            if src.slot in written:  # wired to itself: read last scan's value first
                tmp = f"_i{index}_{port}"
                pre.append(f"{tmp} = {values[tpl.tokens[port]]}")
                values[tpl.tokens[port]] = tmp
        return pre + tpl.fmt.format(*values).split("\n"), tpl.pure

    def _template(self, leaf: Leaf, consts: tuple) -> "_Template":
        """The block's code with placeholders for slots, generated once per
        block configuration and reused for every instance (most of a big
        program's compile time would otherwise go to calling ``code`` again).
        Placeholders are numbered: the wired inputs in port order, then the
        outputs, then the state variables, so the literal inputs (``consts``)
        and the configuration decide the rest."""
        block = leaf.block
        # Where the block's own types are all its leaf's (a read-only view, see
        # _infer_types), the block object and the literals decide the template:
        # many leaves share one block (a macro placed many times), and this key
        # costs a fraction of the full one.
        by_block = None
        if leaf.types.__class__ is MappingProxyType:
            by_block = (id(block), consts)
            cached = self._block_templates.get(by_block)
            if cached is not None:
                return cached
        try:
            key = (type(block), block.n, tuple(block.p.items()), tuple(leaf.types.items()),
                   consts)
            cached = self._templates.get(key)
        except TypeError:  # an unhashable parameter: no caching for this block
            key = cached = by_block = None
        if cached is not None:
            if by_block is not None:
                self._block_templates[by_block] = cached
            return cached
        literal_ports = {port for port, _src in consts}
        tokens = {}
        for port in leaf.inputs:
            if port not in literal_ports:
                tokens[port] = len(tokens)
        for var in (*leaf.outputs, *leaf.state):
            tokens[var] = len(tokens)
        names = {name: f"\x00{k}\x00" for name, k in tokens.items()}
        names.update(consts)
        template = []
        for line in code_lines(block, names, leaf.types):
            parts = line.split("\x00")
            template.append([(part.replace("{", "{{").replace("}", "}}"), -1) if i % 2 == 0
                             else ("", int(part))
                             for i, part in enumerate(parts) if part or i % 2])
        pure = _is_pure(template, leaf, tokens)
        # The whole block as one format string: one C-level call per instance.
        fmt = "\n".join("".join(text if k < 0 else f"{{{k}}}" for text, k in line)
                        for line in template)
        result = _Template(fmt, pure, "    " + fmt.replace("\n", "\n    "), tokens,
                           len(tokens) - len(leaf.outputs) - len(leaf.state), f": {block.name}")
        if key is not None:
            self._templates[key] = result
            if by_block is not None:
                self._block_templates[by_block] = result
        return result

    def _chunk_source(self, c: int) -> str:
        """One chunk of the scan as it runs: the functions of its ST blocks, then
        its own (:meth:`_chunk_parts`)."""
        procedures, chunk = self._chunk_parts(c)
        return "\n".join([*procedures, chunk, ""])

    def _chunk_parts(self, c: int, procedures=None) -> tuple[list[str], str]:
        """One chunk of the scan as a function over local variables, and the
        functions of the ST blocks it calls (each function's text apart, added
        to ``procedures`` as written: a list, or :class:`.FunctionRuns`).

        Values come in from the table where the chunk reads them before it
        writes them, loaded just before the first block that needs them; a
        value read once and never written here is read from the table in place
        (``s[12]``). Locals make the code about a quarter of the size of table
        indexing, which is what a big program's scan time is made of
        (instruction and data caches). What the blocks assign goes to the table
        once ``STORE_EVERY`` values are waiting, one slice assignment per run of
        consecutive slots (``s[40:56] = v3, v7, ...,``): a slot number is a
        constant, an int object the store must read, and a store per value
        cost a quarter more instructions and half again the cache misses.

        Locals are names ``v0, v1, ...`` handed out like registers: a value's
        name is free again once it is stored and no later block reads it.
        CPython numbers a function's locals in order, and every access to one
        numbered 256 or more costs an extra instruction (EXTENDED_ARG, about
        2 ns); a chunk of 1,024 blocks has more than a thousand values but
        under two hundred alive at once.
        """
        leaves, reads, forced, place = self.leaves, self._reads, self.forced, self._place
        if procedures is None:          # the functions of the ST blocks of this chunk
            procedures = []
        with_feedback = self.flat.with_feedback  # the only leaves that can read their own output
        blocks = []
        first: dict[int, int] = {}      # slot -> the block where its name is first needed
        last: dict[int, int] = {}       # slot -> the last block that needs it
        defined: set[int] = set()       # slots written in this chunk so far
        load: set[int] = set()          # slots whose value comes from the table
        named: set[int] = set()         # ... and need a name: read twice, or kept by their block
        for pos, index in enumerate(self.order[c * CHUNK:(c + 1) * CHUNK]):
            leaf = leaves[index]
            ins, consts = reads[index]
            for slot in ins:
                if slot not in defined:
                    if slot in load:
                        named.add(slot)
                    else:
                        load.add(slot)
                if slot not in first:
                    first[slot] = pos
                last[slot] = pos
            if _over_table(leaf):   # writes the table itself: see _procedure_call
                blocks.append((index, leaf, ins, None, None, False))
                continue
            slots = ([*leaf.outputs.values()] if leaf.state is _NOTHING
                     else [*leaf.outputs.values(), *leaf.state.values()])
            places = [place(slot) for slot in slots] if forced else slots
            tpl = self._template(leaf, consts)
            for slot in places:
                if slot not in first:
                    first[slot] = pos
                last[slot] = pos
            if not tpl.pure:  # it may keep (not assign) a value, or read last scan's
                load.update(places)
                named.update(places)
            defined.update(places)
            blocks.append((index, leaf, ins, places, tpl,
                           index in with_feedback and not set(slots).isdisjoint(ins)))
        in_place = load - named - defined
        starts: dict[int, list] = {}
        frees: dict[int, list] = {}
        for slot, pos in first.items():
            if slot not in in_place:
                starts.setdefault(pos, []).append(slot)
                frees.setdefault(last[slot], []).append(slot)
        names: dict[int, str] = {slot: f"s[{slot}]" for slot in in_place}
        name = names.__getitem__
        free: list[str] = []
        made = 0
        pending: list[int] = []   # slots assigned since the last store to the table
        dead: list[str] = []      # their names, free once they are stored
        body = [f"def _chunk_{c}(s, now):"]
        for pos, (index, leaf, ins, places, tpl, self_wired) in enumerate(blocks):
            body.append(f"    # {leaf.path}: {leaf.block.name}")
            for slot in starts.get(pos, ()):
                if free:
                    names[slot] = local = free.pop()
                else:
                    names[slot] = local = f"v{made}"
                    made += 1
                if slot in load:
                    body.append(f"    {local} = s[{slot}]")
            if tpl is None:
                body += self._procedure_call(index, leaf, name, lambda slot, pos=pos: (
                    slot in names and slot not in in_place and first[slot] <= pos < last[slot]
                    and names[slot]), procedures)
            elif self_wired:  # the general path: it reads its own output's last value first
                body += [f"    {line}" for line in self._leaf_lines(index, name)[0]]
            else:
                body.append(tpl.chunk.format(*map(name, ins), *map(name, places)))
            if places is not None:
                pending += places
            if pos in frees:
                dead += map(name, frees[pos])
            if len(pending) >= STORE_EVERY or pos == len(blocks) - 1:
                for lo, hi in _runs(sorted(pending)):
                    if hi == lo + 1:
                        body.append(f"    s[{lo}] = {names[lo]}")
                    else:
                        body.append(f"    s[{lo}:{hi}] = {', '.join(map(name, range(lo, hi)))},")
                free += dead
                pending, dead = [], []
        if len(body) == 1:
            body.append("    pass")
        return procedures, "\n".join([*body, ""])

    def _procedure_call(self, index: int, leaf: Leaf, name, live, procedures: list) -> list[str]:
        """A block whose code is a procedure (``Block.procedure``, an ST POU): its
        own functions over the table, defined before the chunk, called with the
        block's inputs (their text added to ``procedures``); it writes its outputs
        and state in the table itself, so a local this chunk holds for one of them
        is read again after the call."""
        ins, consts = self._reads[index]
        literals = dict(consts)
        wired = iter(ins)
        args = [literals[port] if port in literals else name(next(wired)) for port in leaf.inputs]
        written = [*leaf.outputs.items(), *leaf.state.items()]
        places = {var: self._place(slot) for var, slot in written}
        fn = f"_p{index}"
        procedures.extend(leaf.block.procedure.python(places, fn, procedures.append))
        lines = [f"    {fn}(s, now{''.join(', ' + a for a in args)})"]
        for _var, slot in written:
            local = live(slot)     # a local read before the call and needed after it
            if local:
                lines.append(f"    {local} = s[{slot}]")
        return lines

    def _chunk_step(self, c: int) -> str:
        """How the scan runs chunk ``c``: its one line where that is a procedure's
        call and nothing more (a program of one ST POU: a call less a scan),
        else the chunk's call."""
        head = f"def _chunk_{c}(s, now):\n"
        body = self._chunk_src[c][len(head):].splitlines()
        if len(body) == 2 and body[0].startswith("    # "):
            call = body[1].strip()
            if _procedure_index(call) is not None:
                return call
        return f"_chunk_{c}(s, now)"

    def _scan_source(self) -> str:
        steps = [f"s[{prev}] = s[{src_slot}]" for src_slot, prev in self._snapshots.items()]
        steps += [self._chunk_step(c) for c in range(len(self._chunk_src))]
        steps += [f"s[{slot}] = s[{src_slot}]" for slot, src_slot in self._publish
                  if slot not in self.forced]
        lines = ["def scan(s, now):", *(f"    {step}" for step in steps), "    return None", ""]
        if self._held and self._holdable():
            return "\n".join(lines + self._held) + "\n"
        lines += [  # n scans in one call (fbd.runtime.fastforward), the one above repeated
            "def scan_many(s, now, cycle, n):", "    k = 0", "    try:",
            "        for k in range(n):", *(f"            {step}" for step in steps),
            "            now += cycle",
            "    except Exception as e:", "        raise _ScansDone(k) from e",
            "    return n"]
        return "\n".join(lines) + "\n"

    def _held_source(self) -> list[str] | None:
        """The held variant's text (see :meth:`_holdable`), None where there is none."""
        leaf = self.leaves[0]
        ins, consts = self._reads[0]
        literals, wired = dict(consts), iter(ins)
        args = [literals[port] if port in literals else _table_name(next(wired))
                for port in leaf.inputs]
        places = {**leaf.outputs, **leaf.state}
        fn = f"_p{leaf.index}"
        # the network's inputs are latched before the run and nothing writes them in it
        held = leaf.block.procedure.python_held(places, fn, args, set(self.inputs.values()),
                                                self._publish)
        return None if held is None else [held, f"scan_many = {fn}_held"]

    def source(self) -> str:
        """The whole generated program, as executed."""
        header = (f"# generated by fbd for network {self.name}: {len(self.leaves)} blocks, "
                  f"{self.n_slots} slots\n")
        chunks = [self._chunk_source(c) for c in range(len(self._chunk_src))]
        return header + "\n".join(chunks) + "\n" + self._scan_source()


_PROCEDURE = re.compile(r"_p(\d+)(?:__\w+|_part\d+|_held)?(?:\(|$)")


def _procedure_index(text: str) -> int | None:
    """The leaf index of a procedure's function named in ``text`` (``_p12``, its
    inner instances' ``_p12__T1``, its parts' ``_p12_part3``, or a call of
    ``_p12(...)``), else None."""
    m = _PROCEDURE.match(text)
    return int(m.group(1)) if m else None


def _over_table(leaf) -> bool:
    """Whether the block's code is a procedure with functions of its own over the
    table (``Block.procedure``)."""
    procedure = leaf.block.procedure
    return procedure is not None and procedure.over_table


def _table_name(slot: int) -> str:
    return f"s[{slot}]"


def _is_pure(template: list, leaf: Leaf, tokens: dict) -> bool:
    """Every output is first assigned from inputs alone, by a statement of the
    block's top level (``<output> = <expression of inputs>``), before any line
    mentions it, and there is no state: the block never reads or keeps an old
    value. Lines after the assignment may change the output (a wrap-around)."""
    if leaf.state:
        return False
    outs = {tokens[p] for p in leaf.outputs}
    assigned = set()
    for line in template:
        (head, target), rest = line[0], line[1:]
        if (not head and target in outs and target not in assigned and rest
                and rest[0][0].startswith(" = ")):
            if any(k in outs and k not in assigned for _part, k in rest):
                return False
            assigned.add(target)
        elif any(k in outs and k not in assigned for _part, k in line):
            return False
    return assigned == outs


def _runs(slots: list[int]):
    """Consecutive runs ``(lo, hi)`` of a sorted list of ints."""
    start = prev = None
    for k in slots:
        if start is None:
            start = prev = k
        elif k == prev + 1:
            prev = k
        else:
            yield start, prev + 1
            start = prev = k
    if start is not None:
        yield start, prev + 1
