"""A generated program as a tree the reducer can cut: every node renders to ST
text, expressions know their IEC type, and declarations their name.

The tree is deliberately dumb: a :class:`Node` is its text parts (strings and
child nodes) plus what the reducer needs to cut without breaking the program.
Names are unique across a whole program (one counter), so "is this
declaration still used" is a word search in the rest of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

# What a node is, for the reducer:
EXPR = "expr"        # an expression of ``type``; may be replaced by a child of that type or a literal
ATOM = "atom"        # an expression the reducer must not open (a guarded divisor, an index kept in bounds)
STMT = "stmt"        # one statement; ``body`` children are its statement lists
BLOCK = "block"      # a statement list: at least one statement (matiec refuses empty bodies)
DECL = "decl"        # one declaration named ``name``; removable when the name is used nowhere else
SECTION = "section"  # VAR ... END_VAR: rendered only with at least one declaration
ARGS = "args"        # the formal arguments of a call, joined by commas
ARG = "arg"          # one formal argument (``x := e``, ``q => v``); removable
TEXT = "text"        # anything else (a POU, the unit)


@dataclass(frozen=True, eq=False)
class Node:
    kind: str
    parts: tuple
    type: str | None = None      # an expression's IEC type
    name: str | None = None      # a declaration's, POU's or type's name
    loop: bool = False           # a loop: EXIT and CONTINUE in its body belong to it
    literal: bool = False        # already a literal: nothing simpler to put in its place
    variable: bool = False       # reads a variable (an expression without one is a constant)

    def text(self) -> str:
        if self.kind == BLOCK:
            return "\n".join("  " + line for child in self.parts for line in child.text().splitlines())
        if self.kind == ARGS:
            return ", ".join(child.text() for child in self.parts)
        if self.kind == SECTION and not any(isinstance(p, Node) and p.kind == DECL for p in self.parts):
            return ""
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)

    def children(self):
        return [(i, p) for i, p in enumerate(self.parts) if isinstance(p, Node)]


def expr(type_: str, *parts) -> Node:
    return Node(EXPR, tuple(parts), type=type_)


def atom(type_: str, *parts) -> Node:
    return Node(ATOM, tuple(parts), type=type_)


def lit(type_: str, text: str) -> Node:
    return Node(EXPR, (text,), type=type_, literal=True)


def var(type_: str, *parts) -> Node:
    """A variable, an element or a member: what makes an expression not a constant."""
    return Node(EXPR, tuple(parts), type=type_, variable=True)


def constant(node: Node) -> bool:
    """No variable anywhere in it: matiec folds it, and refuses it where it overflows."""
    return not any(n.variable for _, n in walk(node))


def stmt(*parts, loop: bool = False) -> Node:
    return Node(STMT, tuple(parts), loop=loop)


def block(statements) -> Node:
    return Node(BLOCK, tuple(statements))


def args(items) -> Node:
    return Node(ARGS, tuple(items))


def arg(*parts) -> Node:
    return Node(ARG, tuple(parts))


def decl(name: str, *parts) -> Node:
    return Node(DECL, tuple(parts), name=name)


def section(header: str, decls) -> Node:
    return Node(SECTION, (header + "\n", *decls, "END_VAR\n"))


def text(*parts, name: str | None = None) -> Node:
    return Node(TEXT, tuple(parts), name=name)


@dataclass(frozen=True)
class Program:
    """A generated program and how to run it: the PROGRAM ``main`` of ``unit``,
    ``scans`` scans, each input of ``inputs`` (name -> type) written before the
    scans ``sets`` name (``(scan, name, IEC literal)``, as the oracle's ``--set``)."""
    seed: int
    unit: Node
    inputs: dict = field(default_factory=dict)
    sets: tuple = ()
    scans: int = 10
    main: str = "prg"
    tags: frozenset = frozenset()    # the constructs it uses (for coverage and attribution)

    @property
    def source(self) -> str:
        return re.sub(r"\n{3,}", "\n\n", self.unit.text()).strip() + "\n"

    def variables(self) -> list[str]:
        """The PROGRAM's own variables, in declaration order: what the oracle is
        asked to watch (it expands arrays, structures and FB instances)."""
        main = next(p for _, p in self.unit.children() if p.name == self.main)
        return [d.name for _, d in walk(main) if d.kind == DECL]

    def with_unit(self, unit: Node) -> Program:
        """The same run with another text: inputs no longer declared lose their sets."""
        declared = {n.lower() for n in Program(self.seed, unit, main=self.main).variables()}
        inputs = {k: v for k, v in self.inputs.items() if k.lower() in declared}
        return replace(self, unit=unit, inputs=inputs, sets=tuple(s for s in self.sets if s[1] in inputs))


def walk(node: Node, path: tuple = ()):
    """Every node under ``node`` (itself first) with its path of part indices."""
    yield path, node
    for i, child in node.children():
        yield from walk(child, path + (i,))


def at(node: Node, path: tuple) -> Node:
    for i in path:
        node = node.parts[i]
    return node


def put(node: Node, path: tuple, new) -> Node:
    """``node`` with the part at ``path`` replaced by ``new`` (a Node, a string,
    or a tuple of parts spliced in its place: ``()`` removes it)."""
    if not path:
        return new
    i, rest = path[0], path[1:]
    parts = list(node.parts)
    if rest:
        parts[i] = put(parts[i], rest, new)
    elif isinstance(new, tuple):
        parts[i:i + 1] = new
    else:
        parts[i] = new
    return replace(node, parts=tuple(parts))
