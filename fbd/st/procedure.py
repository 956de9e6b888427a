"""A compiled POU's Python functions, made when first needed.

A POU compiles to its body in the engines' form (:attr:`PouInfo.code
<fbd.st.model.PouInfo>`, :mod:`.ir`); what each engine runs is made from it
on demand: the function by values (:func:`value_function`, what the block's
``code`` calls, see :mod:`.pyemit`), the Python engine's functions over the
signal table, the native engine's machine code. A program that runs on the
native engine never pays for Python code it does not run.
"""

from __future__ import annotations

import copy as _copy
import math

from ..block import code_namespace
from ..errors import ScanError
from . import ir
from .census import summary
from .errors import StSemanticError
from .pyaccess import table_source
from .pyaccess import value_source as _value_source
from .pyheld import held_scan


def raise_index_error(index, lo, hi, where):
    file, line, pou = where
    raise ScanError(f"array index {index} is outside {lo}..{hi}", kind="index", file=file,
                    line=line, pou=pou)


def raise_watchdog(where):
    file, line, pou = where
    raise ScanError("watchdog: a loop ran more than the budget of iterations in one scan "
                    "(an endless loop?); the scan is stopped", kind="watchdog", file=file,
                    line=line, pou=pou)


def _copy_value(value):
    return _copy.deepcopy(value)


#: what the generated code calls besides the blocks' own helpers
RUNTIME = {"_st_bounds": raise_index_error, "_st_watchdog": raise_watchdog, "_st_copy": _copy_value,
           "math": math}


def namespace_of(info) -> dict:
    """The globals a POU's generated code runs with: the runtime above, the
    library blocks' helpers (REAL's rounding among them)."""
    ns = dict(RUNTIME)
    ns.update(code_namespace(info.blocks_used))
    return ns


def compile_source(info, source: str, label: str):
    """``source`` compiled, or the POU's error saying the generated code does not compile."""
    try:
        return compile(source, label, "exec")
    except (SyntaxError, RecursionError, MemoryError) as e:
        ctx = info.context
        raise StSemanticError(f"the generated code does not compile ({type(e).__name__}: {e})",
                              filename=ctx.filename if ctx else "", line=info.node.line,
                              col=info.node.col, pou=info.label,
                              source=ctx.unit.source if ctx else None) from None


def value_function(info):
    """The POU's function by values (made once, kept in ``info.fn``; its source in
    ``info.source``, its globals in ``info.helpers``)."""
    if info.fn is not None:
        return info.fn
    source, callees = _value_source(info.code, info.fn_name)
    namespace = namespace_of(info)
    for name, callee in callees.items():
        namespace[name] = value_function(callee)
    code = compile_source(info, source, f"<st {info.context.filename if info.context else ''}:"
                                        f"{info.name}>")
    exec(code, namespace)
    info.source = source
    info.helpers = namespace
    info.fn = namespace[info.fn_name]
    return info.fn


def instance_pous(info) -> list:
    """``info`` and the POU of every FB instance it holds, inner ones too (each once)."""
    found = {info.fn_name: info}
    todo = [info]
    while todo:
        for fn_name, inner in summary(todo.pop().code).instances.items():
            if fn_name not in found:
                found[fn_name] = inner
                todo.append(inner)
    return list(found.values())


class PouProcedure:
    """What the engines run for a POU's block (``Block.procedure``): the block's
    code is a whole procedure, not statements an engine can inline."""

    def __init__(self, info):
        self.info = info
        # an instance's functions run over the table; a FUNCTION's block is a call
        # by values, which the Python engine inlines as any block's code
        self.over_table = info.kind != "FUNCTION"

    @property
    def label(self) -> str:
        return self.info.label

    def weight(self, loop: int) -> int:
        """What one call costs, in statements (those inside a loop count ``loop``
        times), its FB instances' bodies included."""
        total = 0
        for pou in instance_pous(self.info):
            total += _weight(pou.code.body, 1, loop)
        return total

    def python(self, places: dict, name: str, sink=None) -> list[str]:
        """One instance's functions over the signal table (:mod:`.pyaccess`), the
        source of each apart (in the order they are defined), with
        ``places`` the slots of the block's outputs and state by name; the function
        ``name`` is called ``name(s, now, <the block's inputs in port order>)``, in
        globals holding :meth:`python_namespace`. A long body's parts, the first
        functions, go to ``sink`` as they are written if it is given."""
        return table_source(self.info, places, name, sink)[0]

    def python_held(self, places: dict, name: str, args: list[str], steady: set,
                    publish: list) -> str | None:
        """The function ``<name>_held(s, now, cycle, n)`` running n scans of the
        instance :meth:`python` wrote as ``name``, its variables held in locals
        (:func:`.pyheld.held_scan`), or None."""
        return held_scan(self.info, places, name, args, steady, publish)

    def python_namespace(self) -> dict:
        """What the functions of :meth:`python` need in their globals."""
        pous = instance_pous(self.info)
        namespace = dict(RUNTIME)
        namespace.update(code_namespace([b for pou in pous for b in pou.blocks_used]))
        for pou in pous:
            for fn_name, callee in functions_called(pou).items():
                namespace[fn_name] = value_function(callee)
        return namespace


def _weight(body: list, factor: int, loop: int) -> int:
    total = 0
    for stmt in body:
        inner = factor * loop if isinstance(stmt, ir.Loop) else factor
        total += factor + sum(_weight(lst, inner, loop) for lst in ir.children(stmt))
    return total


def functions_called(info) -> dict:
    """fn_name -> PouInfo of the FUNCTIONs ``info``'s body calls."""
    return summary(info.code).functions


class LazyHelpers(dict):
    """A block type's ``helpers`` holding its POU's function by values, made when
    an engine first asks for it (:func:`fbd.block.code_namespace`)."""

    def __init__(self, info):
        super().__init__()
        self.info = info

    def items(self):
        if not self:
            self[self.info.fn_name] = value_function(self.info)
        return super().items()


__all__ = ["value_function", "namespace_of", "compile_source", "LazyHelpers", "RUNTIME",
           "PouProcedure", "instance_pous"]
