"""Resolving the names of IL and SFC bodies (a part of
:class:`~fbd.st.resolve.Resolver`: instruction operands, FB input operators,
jumps and labels, steps, transitions and action associations)."""

from __future__ import annotations

from . import ast as A
from .symbols import Symbol, key

_WRITE_OPS = {"ST", "STN", "S", "R"}
_FB_INPUT_OPS = {"S1", "R1", "CLK", "CU", "CD", "PV", "IN", "PT"}


def callable_interface(symbol: Symbol):
    if symbol.kind == "pou":
        return symbol.node
    if symbol.kind == "library":
        return symbol.node
    return None


def is_bool(spec) -> bool:
    return isinstance(spec, A.NamedType) and key(spec.name) == "BOOL"


class ProgramResolution:
    """IL and SFC resolution; it uses the Resolver's lookup, read, write and calls."""

    # -- IL -----------------------------------------------------------------------------
    def il(self, instructions) -> None:
        labels: dict[str, Symbol] = {}
        for i in instructions:
            if isinstance(i, A.IlLabel):
                k = key(i.name)
                if k in labels:
                    self.error(i, f"label {i.name} appears twice in this body")
                labels[k] = Symbol(i.name, "label", i, owner=self.label)
        self.scope.labels.update(labels)
        self._il(instructions, labels)

    def _il(self, instructions, labels) -> None:
        for i in instructions:
            if isinstance(i, A.IlOp):
                self.il_op(i)
            elif isinstance(i, A.IlDeferred):
                if i.operand is not None:
                    self.read(i.operand)
                self._il(i.body, labels)
            elif isinstance(i, A.IlFunction):
                self.il_function(i, i.name)
                for o in i.operands:
                    self.read(o)
            elif isinstance(i, A.IlFormalCall):
                interface = self.il_function(i, i.name)
                self.il_args(i.args, interface, i, labels)
            elif isinstance(i, A.IlCall):
                symbol = self.lookup(i.fb)
                interface = None
                if symbol is None:
                    self.undeclared(i, i.fb, " (as an FB instance)")
                elif not (symbol.kind == "variable" and symbol.is_fb_instance):
                    self.error(i, f"{i.op} needs an FB instance, not the {symbol.describe()}")
                else:
                    self.resolved[i] = symbol
                    interface = self.analysis.interface(symbol.fb_type)
                self.il_args(i.args, interface, i, labels)
            elif isinstance(i, A.IlJump):
                target = labels.get(key(i.label))
                if target is None:
                    self.error(i, f"{i.op} {i.label}: no label {i.label} in this body")
                else:
                    self.resolved[i] = target

    def il_op(self, i: A.IlOp) -> None:
        op, operands = i.op, i.operands
        if op == "NOT":
            if operands:
                self.error(i, "NOT takes no operand in IL (it inverts the current result)")
            return
        if not operands:
            self.error(i, f"{op} needs an operand")
            return
        if op in _WRITE_OPS or op in _FB_INPUT_OPS:
            if len(operands) > 1:
                self.error(i, f"{op} takes one operand")
            target = operands[0]
            if op in _FB_INPUT_OPS:
                symbol = self.lookup(target.name) if isinstance(target, A.Name) else None
                if symbol is None or not symbol.is_fb_instance:
                    self.error(target, f"{op} takes an FB instance (it sets that input and calls the block)")
                else:
                    self.resolved[target] = symbol
                return
            self.write(target)
            return
        for o in operands:
            self.read(o)

    def il_function(self, node, name: str):
        symbol = self.lookup(name)
        if symbol is None:
            self.undeclared(node, name, " (as a function)")
            return None
        interface = callable_interface(symbol)
        if interface is None or interface.kind != "FUNCTION":
            self.error(node, f"{name} is the {symbol.describe()}, not a function")
            return None
        self.resolved[node] = symbol
        return interface

    def il_args(self, args, interface, call, labels) -> None:
        for a in args:
            if a.body is not None:
                self._il(a.body, labels)
            elif a.output:
                self.write(a.value)
            else:
                self.read(a.value)
            if a.name is not None and interface is not None:
                self.check_parameter(a, a.name, a.output, interface, call)

    # -- SFC ----------------------------------------------------------------------------
    def chart(self, body: A.SfcBody) -> None:
        steps, actions = self.scope.steps, self.scope.actions
        for step in body.steps:
            for assoc in step.actions:
                k = key(assoc.action)
                if k in actions:
                    self.resolved[assoc] = actions[k]
                else:
                    symbol = self.scope.symbols.get(k)
                    if symbol is not None and symbol.kind == "variable" and is_bool(symbol.type):
                        self.resolved[assoc] = symbol
                    else:
                        self.error(assoc, f"{assoc.action} is neither an ACTION of this chart nor a BOOL "
                                          "variable")
                if assoc.time is not None:
                    self.read(assoc.time)
                for indicator in assoc.indicators:
                    self.read(indicator)
        for t in body.transitions:
            for name in (*t.sources, *t.targets):
                if key(name) not in steps:
                    self.error(t, f"transition {t.name + ' ' if t.name else ''}names step {name}, which is "
                                  "not declared")
            if isinstance(t.condition, A.IlBody):
                self.il(t.condition.instructions)
            else:
                self.read(t.condition)
        for action in body.actions:
            self.body(action.body)
