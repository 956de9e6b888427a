"""Members, elements and enumeration values in a body's variable texts.

A variable text may reach into a structured value: ``p.x``, ``r[K]``,
``m[1, 2]``, ``pts[2].x`` (members by name, elements by integer literals or
variables, checked against the declared types). A read is a chain of MEMBER
and ELEMENT blocks from the variable's current value; a write rebuilds the
variable: each level read, then SET_MEMBER / SET_ELEMENT from the innermost
out, and that is the variable's next value (IEC's structured values are
values: nothing is changed in place). Enumeration values (``RUNNING``,
``Mode#RUNNING``) become typed literals.

:class:`AccessMixin` is part of :class:`.builder.PouBuilder`.
"""

from __future__ import annotations

import re

from .. import types as t
from ..library import block_type
from .source import PlcOpenError, quote

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: a variable access: a name, then members (.b) and elements ([3], [i, 2])
_ACCESS = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\s*(?:\.\s*[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\]))*)\s*$")
_STEP = re.compile(r"^\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[([^\]]*)\])")


class AccessMixin:
    """What :class:`~.builder.PouBuilder` does with members, elements and
    enumeration values (it gives ``vars``, ``key``, ``value``, ``err``, ``net``,
    ``_add``, ``_fresh``, ``_connect``, ``_undeclared`` and ``imp``)."""

    # -- members and elements ----------------------------------------------------
    def _access(self, text, lid, what):
        """``a.b[3, i].c`` -> (the variable a, [(kind, argument, part type)]): each
        step a member ("member", name, type) or an element ("element", [index
        texts], type), checked against the declared types."""
        m = _ACCESS.match(text or "")
        key = self.key(m.group(1)) if m else None
        if key is None:
            raise self._undeclared(text, lid, what)
        tp = self.vars[key].type
        steps, rest = [], m.group(2)
        while rest:
            step = _STEP.match(rest)
            if step is None:
                raise self.err(f"{what} {quote(text)}, which is not a variable, a member or "
                               f"an element", lid)
            rest = rest[step.end():]
            if tp is None or tp.kind not in (t.Kind.STRUCT, t.Kind.ARRAY):
                raise self.err(f"{what} {quote(text)}: {quote(m.group(1))} "
                               f"{'is a function block instance' if tp is None else 'is ' + tp.name}"
                               f", which has no members or elements", lid)
            if step.group(1) is not None:
                if tp.kind is not t.Kind.STRUCT:
                    raise self.err(f"{what} {quote(text)}: {tp.name} is an ARRAY, not a "
                                   f"STRUCT", lid)
                try:
                    tp = tp.field_type(step.group(1))
                except KeyError as e:
                    raise self.err(f"{what} {quote(text)}: {e.args[0]}", lid) from None
                steps.append(("member", step.group(1), tp))
            else:
                if tp.kind is not t.Kind.ARRAY:
                    raise self.err(f"{what} {quote(text)}: {tp.name} is a STRUCT, not an "
                                   f"ARRAY", lid)
                indexes = [i.strip() for i in step.group(2).split(",")]
                if len(indexes) != len(tp.dims):
                    raise self.err(f"{what} {quote(text)}: {tp.name} has {len(tp.dims)} "
                                   f"dimension(s), not {len(indexes)}", lid)
                tp = tp.element
                steps.append(("element", indexes, tp))
        return key, steps

    def _part_block(self, container, step, setter):
        kind, arg, part = step
        base = container.canonical if container.canonical.kind in (t.Kind.ARRAY,
                                                                   t.Kind.STRUCT) else container
        if kind == "member":
            name = "SET_MEMBER" if setter else "MEMBER"
            return block_type(name)(types={"S": container, "F": part}, member=arg), base
        name = "SET_ELEMENT" if setter else "ELEMENT"
        return block_type(name)(types={"A": container, "E": part, "N": t.DINT},
                                n=len(arg)), base

    def _indexes(self, inst, indexes, lid):
        for k, text in enumerate(indexes, 1):
            self._connect(self._index(text, lid), inst.port(f"I{k}"), lid)

    def _index(self, text, lid):
        key = self.key(text)
        if key is not None:
            src = self.value(key, lid)
            tp = self.vars[key].type
            if tp is not t.DINT:      # the block's indexes are DINT: convert as ST would
                conv = self._add(f"_index_{lid}", f"{tp.name}_TO_DINT")
                self._connect(src, conv.IN, lid)
                return conv.OUT, False
            return src
        if re.match(r"^[+-]?[0-9]+$", text) and len(text) < 12:
            return int(text), False
        raise self.err(f"index {quote(text)}: only integer literals and variables are "
                       f"supported as array indexes", lid)

    def _read_path(self, key, steps, lid):
        """The value of the member or element ``steps`` lead to, at this point."""
        src, container = self.value(key, lid), self.vars[key].type
        for step in steps:
            block, _ = self._part_block(container, step, setter=False)
            inst = self.net.add(self._fresh(f"_get_{self.vars[key].name}"), block)
            self._connect(src, inst.IN, lid)
            if step[0] == "element":
                self._indexes(inst, step[1], lid)
            src, container = (inst.OUT, False), step[2]
        return src

    def _write_path(self, key, steps, value, lid):
        """The whole variable with the member or element ``steps`` lead to replaced by
        ``value``: each level read, then rewritten from the innermost out."""
        levels = [(self.value(key, lid), self.vars[key].type)]
        for step in steps[:-1]:
            block, _ = self._part_block(levels[-1][1], step, setter=False)
            inst = self.net.add(self._fresh(f"_get_{self.vars[key].name}"), block)
            self._connect(levels[-1][0], inst.IN, lid)
            if step[0] == "element":
                self._indexes(inst, step[1], lid)
            levels.append(((inst.OUT, False), step[2]))
        for (container_src, container), step in zip(reversed(levels), reversed(steps)):
            block, _ = self._part_block(container, step, setter=True)
            inst = self.net.add(self._fresh(f"_set_{self.vars[key].name}"), block)
            self._connect(container_src, inst.IN, lid)
            self._connect(value, inst.VALUE, lid)
            if step[0] == "element":
                self._indexes(inst, step[1], lid)
            value = (inst.OUT, False)
        return value

    def _held_value(self, var):
        """A signal that always holds ``var``'s initial value: for ARRAY and STRUCT
        values, which no literal wire carries (a MOVE of that type reading itself)."""
        inst = self._add(f"_init_{var.name}", "MOVE", types={"T": var.type})
        self.net.connect(inst.OUT, inst.IN, feedback=True)
        return inst.OUT

    def _enum_value(self, text, lid):
        """``RUNNING`` or ``MODE#RUNNING``, a value of a declared enumeration: a MOVE of
        that type holding it (a bare number on a wire would be an INT)."""
        name, sharp, value = text.partition("#")
        if not sharp:
            name, value = None, text
        if not _IDENT.match(value.strip()) or (name is not None and not _IDENT.match(name)):
            return None
        dtypes = self.imp.data_types
        found = []
        for key in dtypes.decl:
            if name is not None and key != name.strip().upper():
                continue
            try:
                tp = dtypes.named(key)
            except PlcOpenError:
                continue
            if tp.kind is t.Kind.ENUM and value.strip().upper() in tp._by_name:
                found.append(tp)
        if not found:
            return None
        if len(found) > 1:
            raise self.err(f"{quote(text)} is a value of {found[0].name} and {found[1].name}; "
                           f"write it {found[0].name}#{value.strip()}", lid)
        tp = found[0]
        inst = self._add(f"_{tp.name}_{value.strip()}", "MOVE", types={"T": tp})
        self.net.connect(tp.code_of(value.strip()), inst.IN)
        return inst.OUT, False

