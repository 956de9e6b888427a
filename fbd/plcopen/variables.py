"""What each variable of an FBD or LD POU becomes (its role: input, state,
in-out, temporary, constant, result), from its declaration and whether the
body writes it, and the network outputs its final values are.

:class:`VariablesMixin` is part of :class:`.builder.PouBuilder`.
"""

from __future__ import annotations

from .. import address as located
from ..errors import FbdError
from .body import Assign, Call
from .source import quote


class VariablesMixin:
    def key(self, text: str):
        """The declared variable ``text`` names (IEC names ignore case), or None."""
        if text in self.vars:
            return text
        return self._upper.get(text.upper())

    def classify(self):
        """Each variable's role, from its declaration and whether the body writes it."""
        self.written = set()
        for st in self.statements:
            if isinstance(st, Assign):
                key = self.key(st.target)
                if key is None:
                    key = self._access(st.target, st.lid, f"{st.what} writes")[0]
                self._check_writable(key, st.lid)
                self.written.add(key)
            elif isinstance(st, Call):
                for key in self._inout_targets(st):
                    self._check_writable(key, st.lid)
                    self.written.add(key)
        self.role, self.inputs = {}, {}
        for key, var in self.vars.items():
            area = self._area(key, var)
            written = key in self.written
            if var.type is None:
                role = "derived"
            elif var.constant and var.kind not in ("externalVars", "globalVars"):
                role = "const"
            elif var.kind == "inputVars" and written and self.kind == "program" and area != "I":
                # matiec lets a POU write its own VAR_INPUT; a program's, which no caller
                # passes, then keeps what was written from scan to scan
                role = "state"
            elif var.kind == "inputVars":
                role = "input"      # a block's: the caller passes it again at every call
            elif var.kind == "inOutVars":
                role = "inout"
            elif var.kind == "tempVars" or (var.kind == "localVars" and self.kind == "function"):
                role = "temp"
            elif self.kind == "function" and var.kind in ("outputVars", "return"):
                role = "result"     # a function starts every call afresh
            elif var.kind in ("externalVars", "globalVars"):
                role = "state" if written else "input"
            elif area == "I" or (area == "M" and not written):
                # a program that writes its %I variable writes the input image itself
                # (finish keeps the value there), as matiec's variable is that memory
                role = "input"
            elif (var.kind == "localVars" and self.kind == "program" and not written
                  and area is None and not var.feedback):
                role = "input"      # what an HMI, Modbus or a debugger writes
            else:
                role = "state"
            self.role[key] = role
            if role in ("input", "inout"):
                self._declare_input(key, var)
        for key, var in self.vars.items():
            if self.role[key] == "inout" and (f"{var.name}_OUT" in self.vars):
                raise self.err(f"VAR_IN_OUT {quote(var.name)} would need an output named "
                               f"{var.name}_OUT, which is taken")

    def _area(self, key, var):
        if not var.address:
            return None
        try:
            return located.parse(var.address, key).area
        except FbdError as e:
            raise self.err(f"variable {quote(key)}: {e}") from None

    def _check_writable(self, key, lid):
        var = self.vars[key]
        if var.constant:
            raise self.err(f"the constant {quote(key)} is written", lid)
        if var.type is None:
            raise self.err(f"{quote(key)} of type {var.type_name} is written; "
                           f"{_derived_hint(var)}", lid)

    def _declare_input(self, key, var):
        default = var.type.to_python(var.start) if var.structured else var.start
        try:
            self.inputs[key] = self.net.input(var.name, var.type, default,
                                              at=var.address if var.address else None)
        except FbdError as e:
            raise self.err(f"variable {quote(var.name)}: {e}") from None

    def _inout_targets(self, call: Call):
        """Variables a call's VAR_IN_OUT pins write back into."""
        info = self.infos[call.lid]
        for pin, expr in call.inputs:
            if pin in info.inouts and expr[0] == "var":
                key = self.key(expr[1])
                if key is not None:
                    yield key

    def _undeclared(self, text, lid, what):
        if "." in text or "[" in text:
            return self.err(f"{what} {quote(text)}: member and element access is not "
                            f"supported yet (structures and arrays)", lid)
        return self.err(f"{what} {quote(text)}, which is not a declared variable", lid)

    def bound_globals_for(self, key) -> bool:
        return self.bound_globals and self.vars[key].kind in ("externalVars", "globalVars")

    # ---------------------------------------------------------------- outputs
    def finish(self):
        for key, (block, port) in self.starts.items():
            self.net.connect(self.current[key][0], block.port(port), feedback=True)
        for key, var in self.vars.items():
            if self.role[key] == "input" and key in self.current and self.kind != "function":
                # a program's %I variable or a function block's input that the body
                # writes is memory: the block of the last write writes the input, so what
                # it wrote lasts until a value is latched (a program's) or the caller
                # passes the input again (a function block's; IEC's instance data).
                # Blocks reading the variable later in the scan read the writes themselves.
                self.net.store(var.name, self.current[key][0].owner, self.current[key][0].port)
        self._retain()
        for key, var in self.vars.items():
            role = self.role[key]
            if role in ("input", "const", "derived", "temp"):
                continue
            if var.feedback and not var.address:
                continue  # a wire our export carried in a variable: not an output
            if key in self.current:
                source = self.current[key][0]
            elif role == "inout":
                source = self.inputs[key]
            elif var.kind in ("outputVars", "return") or var.address or key in self.written:
                source = self._held_value(var) if var.structured else var.start
            else:
                continue
            name = f"{var.name}_OUT" if role == "inout" else var.name
            try:
                self.net.output(name, source, var.type,
                                at=var.address if role != "inout" and var.address else None)
            except FbdError as e:
                raise self.err(f"variable {quote(var.name)}: {e}") from None

    def _retain(self):
        """A RETAIN variable's value lives in its input (one the body does not write),
        in the block whose output it last is, or in its function block instance: that
        is what is marked retained (docs/retain.md)."""
        for key, var in self.vars.items():
            if var.retain is None or self.role[key] in ("const", "derived", "temp", "inout"):
                continue
            source = self.current.get(key, (None,))[0]
            if self.role[key] == "input":
                self.net.retain(var.name, var.retain)
            elif source is not None and getattr(source, "kind", None) == "out":
                self.net.retain(source.owner.name, var.retain)
            elif var.name in self.net.instances:
                self.net.retain(var.name, var.retain)

    def global_slots(self) -> dict:
        """For a configuration run: each global this POU uses -> (the port the scan
        starts from, or None, the path of its final value). See Project.plc."""
        out = {}
        for key, var in self.vars.items():
            if var.kind not in ("externalVars", "globalVars") or self.role[key] == "derived":
                continue
            if self.role[key] == "input":
                out[var.name] = ("input", var.name)
            elif key in self.current:
                out[var.name] = ("state", self.current[key][0].path)
        return out



def _derived_hint(var) -> str:
    if var.type_name.upper() in ("STRUCT", "ARRAY", "ENUM"):
        return "user data types are not supported yet"
    return f"{var.type_name} is not an elementary type (user data types are not supported yet)"



__all__ = ["VariablesMixin"]
