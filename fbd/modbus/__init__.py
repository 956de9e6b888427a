"""Modbus TCP: a program's process image served as OpenPLC's runtime serves it
(:mod:`.server`), the ``fbd serve`` command (:mod:`.serve`) and its load benchmark
(:mod:`.bench`).

The names of :mod:`.server` are importable from here, loaded on first use:
``fbd serve`` registers its sub-command on every ``fbd`` start, and importing
pymodbus then would cost every command a third of a second.
"""

from importlib import import_module

_SERVER_NAMES = ("ProcessImage", "ModbusServer", "Location", "run_realtime", "locate",
                 "COILS", "DISCRETE_INPUTS", "INPUT_REGISTERS", "HOLDING_REGISTERS",
                 "FUNCTION_CODES", "IX_WINDOW", "IW_WINDOW", "DEFAULT_PORT")


def __getattr__(name: str):
    if name in _SERVER_NAMES:
        return getattr(import_module(".server", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_SERVER_NAMES)
