"""What the semantic layer finds: symbols, scopes, and the analysis of a unit.

A :class:`Symbol` is one declared name: a variable (with its section,
qualifier and declared type, by name), a POU, a data type, an enumerated
value, an SFC step, action or transition, a task, a program instance, an IL
label, or a library function or FB. Names are looked up case-insensitively
(``key(name) == name.upper()``).

:class:`Analysis` holds, for the whole unit, the global symbols (types,
POUs, configurations, enumerated values), one :class:`PouScope` per POU and
one :class:`GlobalScope` per configuration and resource, and ``resolved``:
for every name used in a body (each ``Name``, ``Call``, ``Invoke``, ``IlCall``,
``IlFunction``, ``IlJump``, action association ...) the symbol it denotes,
keyed by the node itself (nodes compare by identity).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import ast as A
from .errors import StSemanticError, StWarning
from .stdlib import ELEMENTARY_TYPES, TYPE_ALIASES


def key(name: str) -> str:
    return name.upper()


_SECTION_WORDS = {"VAR_INPUT": "input", "VAR_OUTPUT": "output", "VAR_IN_OUT": "in-out",
                  "VAR_EXTERNAL": "external variable", "VAR_GLOBAL": "global variable",
                  "RESULT": "function result", "VAR_TEMP": "temporary variable"}


@dataclass(frozen=True, eq=False)
class Symbol:
    """A declared name. ``kind`` is one of variable, pou, type, enum_value,
    step, action, transition, task, program_instance, label, library.

    For a variable, ``section`` is VAR, VAR_INPUT, VAR_OUTPUT, VAR_IN_OUT,
    VAR_TEMP, VAR_GLOBAL, VAR_EXTERNAL or RESULT (a function's own name in its
    body), ``qualifier`` CONSTANT, RETAIN, NON_RETAIN or None, ``type`` the
    declared type spec, and ``fb_type`` the FB type's name when the variable
    is an FB instance. For an enumerated value ``type`` names its type (None
    for an anonymous enumeration).
    """
    name: str
    kind: str
    node: Any = field(repr=False)
    owner: str = ""
    section: str | None = None
    qualifier: str | None = None
    type: Any = None
    fb_type: str | None = None

    @property
    def is_constant(self) -> bool:
        return self.qualifier == "CONSTANT"

    @property
    def is_fb_instance(self) -> bool:
        return self.fb_type is not None

    def describe(self) -> str:
        if self.kind == "variable":
            what = _SECTION_WORDS.get(self.section, "variable")
            return f"{'constant ' if self.is_constant else ''}{what} {self.name}"
        if self.kind == "pou":
            return f"{self.node.kind} {self.name}"
        if self.kind == "library":
            what = "function block" if self.node.kind == "FUNCTION_BLOCK" else "function"
            return f"standard {what} {self.name}"
        if self.kind == "enum_value":
            return f"enumerated value {self.name}"
        return f"{self.kind.replace('_', ' ')} {self.name}"


@dataclass(eq=False, repr=False)
class PouScope:
    """The names a POU's body sees: its own declarations, then the unit's."""
    pou: A.Pou
    label: str                                    # "PROGRAM main"
    symbols: dict[str, Symbol] = field(default_factory=dict)
    labels: dict[str, Symbol] = field(default_factory=dict)   # IL labels, per body
    steps: dict[str, Symbol] = field(default_factory=dict)
    actions: dict[str, Symbol] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<PouScope {self.label}: {len(self.symbols)} names>"

    def lookup(self, name: str) -> Symbol | None:
        """A name declared in the POU (variable, step, action), else None."""
        k = key(name)
        return self.symbols.get(k) or self.steps.get(k) or self.actions.get(k)

    def variables(self, *sections: str) -> list[Symbol]:
        """The variables declared in these sections (all if none given), in order."""
        return [s for s in self.symbols.values()
                if s.kind == "variable" and (not sections or s.section in sections)]

    @property
    def inputs(self) -> list[Symbol]:
        return self.variables("VAR_INPUT")

    @property
    def outputs(self) -> list[Symbol]:
        return self.variables("VAR_OUTPUT")

    @property
    def in_outs(self) -> list[Symbol]:
        return self.variables("VAR_IN_OUT")


@dataclass(eq=False, repr=False)
class GlobalScope:
    """The VAR_GLOBAL of a configuration or of a resource (which also sees its configuration's)."""
    label: str                                    # "CONFIGURATION c" / "RESOURCE r"
    node: Any
    symbols: dict[str, Symbol] = field(default_factory=dict)
    parent: "GlobalScope | None" = None
    tasks: dict[str, Symbol] = field(default_factory=dict)
    programs: dict[str, Symbol] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<GlobalScope {self.label}: {len(self.symbols)} globals>"

    def lookup(self, name: str) -> Symbol | None:
        scope: GlobalScope | None = self
        k = key(name)
        while scope is not None:
            found = scope.symbols.get(k)
            if found is not None:
                return found
            scope = scope.parent
        return None


@dataclass(eq=False, repr=False)
class Analysis:
    """The declarations of a unit, checked, with every use resolved."""
    unit: A.CompilationUnit
    library: Any
    globals: dict[str, Symbol] = field(default_factory=dict)       # types, POUs, configurations
    enum_values: dict[str, list[Symbol]] = field(default_factory=dict)
    pous: dict[str, PouScope] = field(default_factory=dict)
    scopes: list[GlobalScope] = field(default_factory=list)        # configurations and resources
    resolved: dict[Any, Symbol] = field(default_factory=dict)
    #: each POU's (key) nodes that call or invoke another POU of the unit, found while
    #: its body is resolved: what the depth limit follows (fbd.st.limits)
    pou_calls: dict[str, list] = field(default_factory=dict)
    addresses: set[str] = field(default_factory=set)                # every AT %... of the unit
    errors: list[StSemanticError] = field(default_factory=list)
    warnings: list[StWarning] = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"<Analysis of {self.unit.filename}: {len(self.pous)} POUs, {len(self.errors)} errors, "
                f"{len(self.warnings)} warnings>")

    def scope(self, pou_name: str) -> PouScope:
        return self.pous[key(pou_name)]

    def symbol(self, node) -> Symbol | None:
        """The symbol a name in a body denotes (None if it was not resolved)."""
        return self.resolved.get(node)

    def lookup_global(self, name: str) -> Symbol | None:
        """A type, POU or configuration of the unit, else a library POU."""
        k = key(name)
        found = self.globals.get(k)
        if found is not None:
            return found
        pou = self.library.lookup(name) if self.library is not None else None
        if pou is not None:
            return Symbol(pou.name, "library", pou)
        return None

    def resolve_type(self, name: str):
        """What a type name denotes: "elementary", a TypeDecl, a Pou or a
        LibraryPou (for an FB type, or wrongly a function or program), or None."""
        k = TYPE_ALIASES.get(key(name), key(name))
        if k in ELEMENTARY_TYPES:
            return "elementary"
        found = self.lookup_global(name)
        return found.node if found is not None else None

    def interface(self, fb_type: str):
        """The POU node or LibraryPou of an FB type name, or None."""
        found = self.lookup_global(fb_type)
        return found.node if found is not None and found.kind in ("pou", "library") else None

