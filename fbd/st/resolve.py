"""Resolving the names of a POU's body (ST, IL, SFC) and checking their use.

Recursive over statements and expressions: the parser bounds their depth
(:data:`~fbd.st.ast.MAX_DEPTH`), and a level costs two frames here.
"""

from __future__ import annotations

from . import ast as A
from .errors import Reporter
from .resolve_program import ProgramResolution, callable_interface
from .stdlib import LibraryPou
from .symbols import Analysis, PouScope, Symbol, key

_READ_OPS = {"LD", "LDN", "AND", "ANDN", "OR", "ORN", "XOR", "XORN", "ADD", "SUB", "MUL", "DIV", "MOD",
             "GT", "GE", "EQ", "NE", "LE", "LT"}
_STEP_FLAGS = {"X": "BOOL", "T": "TIME"}
_STEP = object()          # the "type" of a step name, whose members are its flags
#: the intrinsic read as the PLC clock (TIME): what lowered SFC bodies time steps with
INTRINSIC_TIME = "__CURRENT_TIME"


def resolve_pou(analysis: Analysis, scope: PouScope, report: Reporter) -> None:
    Resolver(analysis, scope, report).pou()


class Resolver(ProgramResolution):
    def __init__(self, analysis: Analysis, scope: PouScope, report: Reporter):
        self.analysis = analysis
        self.scope = scope
        self.report = report
        self.label = scope.label
        self.resolved = analysis.resolved
        self.loops = 0
        self.for_variables: set[str] = set()
        self.inputs_written: set[str] = set()

    def error(self, node, message: str) -> None:
        self.report.error(node, message, self.label)

    # -- names ----------------------------------------------------------------
    def lookup(self, name: str, node=None) -> Symbol | None:
        k = key(name)
        scope = self.scope
        found = scope.symbols.get(k) or scope.steps.get(k) or scope.actions.get(k)
        if found is not None:
            return found
        values = self.analysis.enum_values.get(k)
        if values:
            if len(values) > 1 and node is not None:
                self.error(node, ambiguous(name, values))
            return values[0]
        return self.analysis.lookup_global(name)

    def undeclared(self, node, name: str, what: str = "") -> None:
        self.error(node, f"{name} is not declared{what}")

    # -- bodies ---------------------------------------------------------------
    def pou(self) -> None:
        self.body(self.scope.pou.body)

    def body(self, body) -> None:
        if isinstance(body, A.StBody):
            self.statements(body.statements)
        elif isinstance(body, A.IlBody):
            self.il(body.instructions)
        elif isinstance(body, A.SfcBody):
            self.chart(body)

    def statements(self, statements) -> None:
        for s in statements:
            self.statement(s)

    def statement(self, s) -> None:
        if isinstance(s, A.Assign):
            self.write(s.target)
            self.read(s.value)
        elif isinstance(s, A.Invoke):
            self.invoke(s)
        elif isinstance(s, A.If):
            for branch in s.branches:
                self.read(branch.condition)
                self.statements(branch.body)
            if s.else_body is not None:
                self.statements(s.else_body)
        elif isinstance(s, A.Case):
            self.read(s.selector)
            for branch in s.branches:
                for label in branch.labels:
                    if isinstance(label, A.Name):
                        self.enum_label(label)
                    elif isinstance(label, A.EnumLiteral):
                        self.enum_literal(label)
                self.statements(branch.body)
            if s.else_body is not None:
                self.statements(s.else_body)
        elif isinstance(s, A.For):
            self.for_loop(s)
        elif isinstance(s, (A.While, A.Repeat)):
            self.read(s.condition)
            self.loops += 1
            self.statements(s.body)
            self.loops -= 1
        elif isinstance(s, (A.Exit, A.Continue)):
            if not self.loops:
                self.error(s, f"{'EXIT' if isinstance(s, A.Exit) else 'CONTINUE'} outside a FOR, WHILE or "
                              "REPEAT loop")

    def for_loop(self, s: A.For) -> None:
        var = s.variable
        symbol = self.lookup(var.name)
        if symbol is None:
            self.undeclared(var, var.name)
        elif symbol.kind != "variable":
            self.error(var, f"the FOR variable must be a variable, not the {symbol.describe()}")
        else:
            self.resolved[var] = symbol
            if symbol.is_constant:
                self.error(var, f"the FOR variable {var.name} is a constant")
        for e in (s.start, s.end, s.step):
            if e is not None:
                self.read(e)
        k = key(var.name)
        outer = k in self.for_variables
        self.for_variables.add(k)
        self.loops += 1
        self.statements(s.body)
        self.loops -= 1
        if not outer:
            self.for_variables.discard(k)

    def enum_label(self, label: A.Name) -> None:
        values = self.analysis.enum_values.get(key(label.name))
        symbol = self.scope.symbols.get(key(label.name))
        if values:
            if len(values) > 1:
                self.error(label, ambiguous(label.name, values))
            self.resolved[label] = values[0]
        elif symbol is not None:
            self.error(label, "a CASE label is an integer or an enumerated value, not the "
                              f"{symbol.describe()}")
        else:
            self.undeclared(label, label.name, " (as an enumerated value)")

    def enum_literal(self, node: A.EnumLiteral) -> None:
        target = self.analysis.resolve_type(node.type_name)
        if target is None:
            self.error(node, f"unknown enumerated type {node.type_name}")
            return
        spec = _enum_spec(self.analysis, target)
        if spec is None:
            self.error(node, f"{node.type_name} is not an enumerated type")
            return
        for value in self.analysis.enum_values.get(key(node.value), ()):
            if value.node in spec.members:
                self.resolved[node] = value
                return
        self.error(node, f"{node.type_name} has no value {node.value} (its values: "
                         f"{', '.join(m.name for m in spec.members)})")

    # -- expressions --------------------------------------------------------------
    def read(self, e) -> None:
        if e.__class__ is A.Name:       # most reads: one identity test (no node class has subclasses)
            if key(e.name) == INTRINSIC_TIME:
                return      # the PLC clock, which the SFC lowering reads
            symbol = self.lookup(e.name, e)
            if symbol is None:
                self.undeclared(e, e.name)
            elif symbol.kind in ("variable", "enum_value"):
                self.resolved[e] = symbol
            else:
                hint = f"; its flags are {e.name}.X and {e.name}.T" if symbol.kind == "step" else ""
                self.error(e, f"{e.name} is the {symbol.describe()}, not a value{hint}")
        elif isinstance(e, A.Binary):
            self.read(e.left)
            self.read(e.right)
        elif isinstance(e, A.Unary):
            self.read(e.operand)
        elif isinstance(e, (A.Member, A.Index)):
            self.path(e)
        elif isinstance(e, A.Call):
            self.call(e)
        elif isinstance(e, A.DirectVar):
            self.direct(e)
        elif isinstance(e, A.EnumLiteral):
            self.enum_literal(e)

    def direct(self, e: A.DirectVar) -> None:
        if e.text.upper() not in self.analysis.addresses:
            self.error(e, f"{e.text} is not declared: give it a name with AT {e.text} in a VAR block "
                          "(matiec reads no undeclared address)")

    def path(self, e):
        """Resolve a variable path; returns its type spec (or _STEP), None if unknown."""
        if isinstance(e, A.Name):
            symbol = self.lookup(e.name)
            if symbol is None:
                self.undeclared(e, e.name)
                return None
            self.resolved[e] = symbol
            if symbol.kind == "step":
                return _STEP
            if symbol.kind != "variable":
                self.error(e, f"{e.name} is the {symbol.describe()}, not a variable")
                return None
            return symbol.type
        if isinstance(e, A.DirectVar):
            self.direct(e)
            return None
        if isinstance(e, A.Index):
            base = self.path(e.base)
            for i in e.indices:
                self.read(i)
            array = self.concrete(base)
            if array is None:
                return None
            if not isinstance(array, A.ArrayType):
                self.error(e, f"{_text(e.base)} is not an array")
                return None
            if len(e.indices) != len(array.ranges):
                self.error(e, f"{_text(e.base)} has {len(array.ranges)} dimension"
                              f"{'s' if len(array.ranges) > 1 else ''}, not {len(e.indices)}")
            return array.element
        if isinstance(e, A.Member):
            base = self.path(e.base)
            return self.member(e, base)
        self.read(e)
        return None

    def concrete(self, spec, hops: int = 0):
        """The spec behind a type name (following TYPE aliases), or the spec
        itself; a POU or LibraryPou for an FB; None if unknown or elementary."""
        if isinstance(spec, A.NamedType):
            if hops > 32:
                return None
            target = self.analysis.resolve_type(spec.name)
            if isinstance(target, A.TypeDecl):
                return self.concrete(target.spec, hops + 1)
            if target == "elementary":
                return spec
            return target
        return spec

    def member(self, e: A.Member, base):
        if base is None:
            return None
        name = e.member
        if base is _STEP:
            flag = _STEP_FLAGS.get(key(name))
            if flag is None:
                self.error(e, f"a step has the flags .X and .T, not .{name}")
                return None
            return A.NamedType(name=flag)
        target = self.concrete(base)
        if isinstance(target, A.StructType):
            for m in target.members:
                if key(m.name) == key(name):
                    return m.spec
            self.error(e, f"{_text(e.base)} has no member {name} (its members: "
                          f"{', '.join(m.name for m in target.members)})")
            return None
        if isinstance(target, A.Pou) and target.kind == "FUNCTION_BLOCK":
            inner = self.analysis.pous.get(key(target.name))
            symbol = inner.symbols.get(key(name)) if inner is not None else None
            if symbol is None and key(name) == "ENO":
                return A.NamedType(name="BOOL")     # every instance has one (matiec's)
            if symbol is None or symbol.kind != "variable":
                self.error(e, f"{_text(e.base)} ({target.name}) has no variable {name}")
                return None
            self.resolved[e] = symbol
            return symbol.type
        if isinstance(target, LibraryPou) and target.kind == "FUNCTION_BLOCK":
            k = key(name)
            if not (target.has_input(k) or target.has_output(k) or k in target.internals):
                self.error(e, f"{_text(e.base)} ({target.name}) has no input or output {name} "
                              f"({target.describe()})")
            return None
        if isinstance(target, A.NamedType):
            self.error(e, f"{_text(e.base)} is of type {target.name}, which has no members")
        elif isinstance(target, A.ArrayType):
            self.error(e, f"{_text(e.base)} is an array; index it before taking .{name}")
        return None

    # -- writing ----------------------------------------------------------------------
    def write(self, target) -> None:
        root = target
        while isinstance(root, (A.Member, A.Index)):
            root = root.base
        if isinstance(root, A.DirectVar):
            self.path(target)
            return
        if not isinstance(root, A.Name):
            self.error(target, "only a variable can be assigned")
            return
        if target is root:
            symbol = self.lookup(root.name, root)
            if symbol is None:
                self.undeclared(root, root.name)
                return
            self.resolved[root] = symbol
        else:
            self.path(target)
            symbol = self.resolved.get(root)
            if symbol is None or symbol.kind not in ("variable", "step"):
                return
        if symbol.kind == "step":
            self.error(target, f"the flags of step {symbol.name} are read-only")
            return
        if symbol.kind != "variable":
            self.error(target, f"cannot assign to the {symbol.describe()}")
            return
        if symbol.is_constant:
            self.error(target, f"cannot assign to {symbol.name}: it is CONSTANT")
            return
        if target is root:
            if key(symbol.name) in self.for_variables:
                self.error(target, f"{symbol.name} is the variable of the FOR loop around this assignment "
                                   "(matiec refuses assigning it)")
            elif symbol.section == "VAR_INPUT" and key(symbol.name) not in self.inputs_written:
                self.inputs_written.add(key(symbol.name))      # said once per input
                self.report.warn(target, f"assigns its own input {symbol.name} (matiec accepts it; the value "
                                         "lasts until the caller sets the input again)", self.label)
        elif isinstance(target, A.Member) and symbol.is_fb_instance and target.base is root:
            interface = self.analysis.interface(symbol.fb_type)
            if _is_output(self.analysis, interface, target.member):
                self.error(target, f"cannot assign to {root.name}.{target.member}: it is an output of "
                                   f"{symbol.fb_type}, written by the block")

    # -- calls ------------------------------------------------------------------------
    def invoke(self, s: A.Invoke) -> None:
        symbol = self.lookup(s.name)
        if symbol is None:
            self.undeclared(s, s.name, " (neither an FB instance nor a function)")
            self.arguments(s.args, None, s)
            return
        self.resolved[s] = symbol
        if symbol.kind == "variable":
            if not symbol.is_fb_instance:
                self.error(s, f"{s.name} is a variable, not an FB instance: it cannot be called")
                self.arguments(s.args, None, s)
                return
            self.arguments(s.args, self.analysis.interface(symbol.fb_type), s)
            return
        interface = callable_interface(symbol)
        if interface is not None and interface.kind == "FUNCTION":
            self.arguments(s.args, interface, s)
        elif interface is not None and interface.kind == "FUNCTION_BLOCK":
            self.error(s, f"{s.name} is a function block type: declare an instance of it and call that")
        else:
            self.error(s, f"the {symbol.describe()} cannot be called")

    def call(self, e: A.Call) -> None:
        symbol = self.lookup(e.name)
        if symbol is None:
            self.undeclared(e, e.name, " (as a function)")
            self.arguments(e.args, None, e)
            return
        self.resolved[e] = symbol
        interface = callable_interface(symbol)
        if symbol.kind == "variable" and symbol.is_fb_instance:
            self.error(e, f"{e.name} is an FB instance: call it as a statement ({e.name}(...);) and read "
                          f"its outputs ({e.name}.Q)")
        elif interface is not None and interface.kind == "FUNCTION":
            self.arguments(e.args, interface, e)
            return
        elif interface is not None and interface.kind == "FUNCTION_BLOCK":
            self.error(e, f"{e.name} is a function block type, not a function")
        else:
            self.error(e, f"the {symbol.describe()} is not a function")
        self.arguments(e.args, None, e)

    def arguments(self, args, interface, call) -> None:
        for a in args:
            if a.output:
                self.write(a.value)
            else:
                self.read(a.value)
            if a.name is not None and interface is not None:
                self.check_parameter(a, a.name, a.output, interface, call)

    def check_parameter(self, node, name: str, output: bool, interface, call) -> None:
        callee = getattr(call, "name", None) or getattr(call, "fb", "")
        if isinstance(interface, LibraryPou):
            ok = interface.has_output(name) if output else interface.has_input(name)
            if not ok:
                self.error(node, f"{interface.name} has no {'output' if output else 'input'} {name} "
                                 f"({interface.describe()})")
            return
        inner = self.analysis.pous.get(key(interface.name))
        if inner is None:
            return
        k = key(name)
        symbol = inner.symbols.get(k)
        wanted = ("VAR_OUTPUT", "VAR_IN_OUT") if output else ("VAR_INPUT", "VAR_IN_OUT")
        if k in ("EN", "ENO") and symbol is None:
            return
        if symbol is None or symbol.section not in wanted:
            have = [s.name for s in inner.variables(*wanted)]
            self.error(node, f"{interface.kind.replace('_', ' ').lower()} {interface.name} has no "
                             f"{'output' if output else 'input'} {name} (called as {callee}; "
                             f"{'outputs' if output else 'inputs'}: {', '.join(have) or 'none'})")


def ambiguous(name: str, values) -> str:
    types = [v.type.name if isinstance(v.type, A.NamedType) else "an anonymous enumeration" for v in values]
    return (f"{name} is a value of several enumerated types ({', '.join(types)}): write it with its type, "
            f"{types[0]}#{name} (matiec refuses it as ambiguous)")


def _is_output(analysis: Analysis, interface, member: str) -> bool:
    if isinstance(interface, LibraryPou):
        return key(member) in interface.outputs or key(member) == "ENO"
    if isinstance(interface, A.Pou):
        inner = analysis.pous.get(key(interface.name))
        symbol = inner.symbols.get(key(member)) if inner is not None else None
        return symbol is not None and symbol.section == "VAR_OUTPUT"
    return False


def _enum_spec(analysis: Analysis, target, hops: int = 0):
    if isinstance(target, A.TypeDecl):
        spec = target.spec
        if isinstance(spec, A.EnumType):
            return spec
        if isinstance(spec, A.NamedType) and hops < 32:
            return _enum_spec(analysis, analysis.resolve_type(spec.name), hops + 1)
    return None


def _text(e) -> str:
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Member):
        return f"{_text(e.base)}.{e.member}"
    if isinstance(e, A.Index):
        return f"{_text(e.base)}[...]"
    return A.dump(e)
