"""The call from Python into a compiled scan, as a built-in function.

Through ctypes a call costs about 5,400 machine instructions (arguments
converted by type objects, a call interface prepared each time): half of a
2048 scan. CPython calls a built-in function with ``METH_FASTCALL`` for a
few hundred: so the scan's driver gets a second entry, ``py_<driver>``,
with CPython's signature ``(self, args, nargs)``, that reads the two
integers (the table's address, the clock) with ``PyLong_AsLongLong``, runs
the scan and returns its trap code as an int; a wrong call raises
TypeError or OverflowError, as CPython's own functions do. Where the
interpreter has no C API to call (not CPython), the ctypes call remains.
"""

from __future__ import annotations

import ctypes

METH_FASTCALL = 0x0080
_API = ("PyLong_AsLongLong", "PyLong_FromLongLong", "PyErr_Occurred", "PyErr_SetString")


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


def python_api(llvm) -> int | None:
    """Make CPython's functions the entry calls known to LLVM; PyExc_TypeError's
    address, or None where there is no CPython C API."""
    try:
        api = ctypes.pythonapi
        for name in _API:
            llvm.add_symbol(name, ctypes.cast(getattr(api, name), ctypes.c_void_p).value)
        api.PyCFunction_NewEx.restype = ctypes.py_object
        api.PyCFunction_NewEx.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
        return ctypes.c_void_p.in_dll(api, "PyExc_TypeError").value
    except (AttributeError, ValueError, OSError):
        return None


DECLARATIONS = """declare i64 @PyLong_AsLongLong(ptr)
declare ptr @PyLong_FromLongLong(i64)
declare ptr @PyErr_Occurred()
declare void @PyErr_SetString(ptr, ptr)"""


def entry_source(driver: str, type_error: int) -> str:
    """``py_<driver>``: the driver ``i64 (ptr, i64)`` as a METH_FASTCALL function."""
    msg, text = f"@{driver}.msg", "takes 2 integers (table, time in us)"
    return f"""{msg} = private constant [{len(text) + 1} x i8] c"{text}\\00"
define ptr @py_{driver}(ptr %self, ptr %args, i64 %nargs) {{
entry:
  %two = icmp eq i64 %nargs, 2
  br i1 %two, label %first, label %bad
bad:
  call void @PyErr_SetString(ptr inttoptr (i64 {type_error} to ptr), ptr {msg})
  ret ptr null
first:
  %a0 = load ptr, ptr %args
  %table = call i64 @PyLong_AsLongLong(ptr %a0)
  %e0 = call ptr @PyErr_Occurred()
  %f0 = icmp ne ptr %e0, null
  br i1 %f0, label %fail, label %second
second:
  %p1 = getelementptr ptr, ptr %args, i64 1
  %a1 = load ptr, ptr %p1
  %now = call i64 @PyLong_AsLongLong(ptr %a1)
  %e1 = call ptr @PyErr_Occurred()
  %f1 = icmp ne ptr %e1, null
  br i1 %f1, label %fail, label %run
fail:
  ret ptr null
run:
  %s = inttoptr i64 %table to ptr
  %r = call i64 @{driver}(ptr %s, i64 %now)
  %o = call ptr @PyLong_FromLongLong(i64 %r)
  ret ptr %o
}}"""


def builtin(address: int, name: str):
    """A built-in function over the entry at ``address``; its method definition
    rides along as ``.keep`` of the holder the caller keeps (CPython reads it
    on every call)."""
    definition = _MethodDef(name.encode(), address, METH_FASTCALL, None)
    fn = ctypes.pythonapi.PyCFunction_NewEx(ctypes.addressof(definition), None, None)
    return fn, definition


__all__ = ["DECLARATIONS", "builtin", "entry_source", "python_api"]
