"""Shrink a program that differs from matiec to the smallest one that still
differs the same way (the same outcome signature: the same type and kind of
difference, or the same error), by greedy delta debugging over its tree.

Each pass tries one kind of cut and keeps every cut after which the program
still shows the difference: fewer scans and input writes; whole POUs and
TYPEs no one names; runs of statements (halves first, then single ones); a
compound statement replaced by one of its bodies (IF and CASE, not loops,
whose EXIT and CONTINUE would leave them); an expression replaced by one of
its own subexpressions of its type, or by its type's initial value;
declarations no one names. Passes repeat until none cuts anything or the
budget of checks is spent. ``still(program)`` is the (costly) check.
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import iectypes as ty
from .exprs import paren
from .model import ARG, BLOCK, DECL, EXPR, STMT, at, lit, put, walk


class Reducer:
    def __init__(self, still, budget: int = 300, log=None):
        self.still, self.budget, self.log = still, budget, log or (lambda message: None)
        self.checks = 0
        self.seen: set = set()

    @property
    def spent(self) -> bool:
        return self.checks >= self.budget

    def try_(self, candidate) -> bool:
        if self.spent:
            return False
        key = (candidate.source, candidate.sets, candidate.scans)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.checks += 1
        return self.still(candidate)

    def reduce(self, program):
        self.seen.add((program.source, program.sets, program.scans))
        passes = [self.fewer_scans, self.fewer_sets, self.fewer_pous, self.fewer_statements,
                  self.fewer_declarations, self.unwrapped, self.fewer_arguments, self.simpler_expressions,
                  self.fewer_declarations]
        while not self.spent:
            before = program.source, program.sets, program.scans
            for cut in passes:
                program = cut(program)
            if (program.source, program.sets, program.scans) == before:
                break
        self.log(f"reduced in {self.checks} checks to {program.source.count(chr(10))} lines")
        return program

    # -- passes ------------------------------------------------------------------
    def fewer_scans(self, program):
        lo = 1
        while lo < program.scans:
            mid = (lo + program.scans) // 2
            candidate = replace(program, scans=mid, sets=tuple(s for s in program.sets if s[0] <= mid))
            if self.try_(candidate):
                program = candidate
            else:
                lo = mid + 1
        return program

    def fewer_sets(self, program):
        k = 0
        while k < len(program.sets):
            candidate = replace(program, sets=program.sets[:k] + program.sets[k + 1:])
            if self.try_(candidate):
                program = candidate
            else:
                k += 1
        return program

    def fewer_pous(self, program):
        k = 0
        while True:
            parts = [(i, p) for i, p in program.unit.children() if p.name != program.main]
            if k >= len(parts) or self.spent:
                return program
            i, pou = parts[k]
            rest = program.unit.text().replace(pou.text(), "")
            if not mentions(rest, pou.name) and self.try_(program.with_unit(put(program.unit, (i,), ()))):
                program = program.with_unit(put(program.unit, (i,), ()))
            else:
                k += 1

    def fewer_statements(self, program):
        """Runs of statements out of every statement list, long runs first."""
        k = 0
        while True:
            blocks = [path for path, n in walk(program.unit) if n.kind == BLOCK]
            if k >= len(blocks) or self.spent:
                return program
            path = blocks[k]
            size = len(at(program.unit, path).parts)
            chunk, cut = max(1, size // 2), False
            while chunk >= 1 and not cut:
                for start in range(0, size, chunk):
                    statements = at(program.unit, path).parts
                    kept = statements[:start] + statements[start + chunk:]
                    if kept and self.try_(program.with_unit(put(program.unit, path, replace(
                            at(program.unit, path), parts=kept)))):
                        program = program.with_unit(put(program.unit, path, replace(
                            at(program.unit, path), parts=kept)))
                        cut = True
                        break
                chunk //= 2
            if not cut:
                k += 1

    def unwrapped(self, program):
        """A compound statement (not a loop) replaced by the statements of one of its bodies."""
        k = 0
        while True:
            found = [(path, n) for path, n in walk(program.unit)
                     if n.kind == STMT and not n.loop and any(c.kind == BLOCK for _, c in n.children())]
            if k >= len(found) or self.spent:
                return program
            path, node = found[k]
            for _, body in [(i, c) for i, c in node.children() if c.kind == BLOCK]:
                candidate = program.with_unit(put(program.unit, path, tuple(body.parts)))
                if self.try_(candidate):
                    program = candidate
                    break
            else:
                k += 1

    def simpler_expressions(self, program):
        k = 0
        while True:
            found = [(path, n) for path, n in walk(program.unit)
                     if n.kind == EXPR and not n.literal and not parenthesised(n)]
            if k >= len(found) or self.spent:
                return program
            path, node = found[k]
            # a subexpression keeps its parentheses where it goes: precedence must not change the tree
            simpler = [c if c.literal or c.variable else paren(c) for _, c in walk(node)
                       if c is not node and c.kind == EXPR and c.type == node.type and not parenthesised(c)]
            if node.type in ty.ELEMENTARY:
                simpler.append(lit(node.type, ty.default_literal(node.type)))
            for candidate_node in simpler:
                candidate = program.with_unit(put(program.unit, path, candidate_node))
                if self.try_(candidate):
                    program = candidate
                    break
            else:
                k += 1

    def fewer_arguments(self, program):
        """Formal arguments out of calls (an input not given keeps its value)."""
        k = 0
        while True:
            found = [path for path, n in walk(program.unit) if n.kind == ARG]
            if k >= len(found) or self.spent:
                return program
            candidate = program.with_unit(put(program.unit, found[k], ()))
            if self.try_(candidate):
                program = candidate
            else:
                k += 1

    def fewer_declarations(self, program):
        k = 0
        while True:
            found = [(path, n) for path, n in walk(program.unit) if n.kind == DECL]
            if k >= len(found) or self.spent:
                return program
            path, node = found[k]
            without = put(program.unit, path, ())
            if not mentions(without.text(), node.name) and self.try_(program.with_unit(without)):
                program = program.with_unit(without)
            else:
                k += 1


def parenthesised(node) -> bool:
    return node.parts[:1] == ("(",) and node.parts[-1:] == (")",) and len(node.parts) == 3


def mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w#]){re.escape(name)}\b", text, re.I) is not None

