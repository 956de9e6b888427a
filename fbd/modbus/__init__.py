"""Modbus TCP: a program's process image served as OpenPLC's runtime serves it.

:mod:`.image` lays the located ports out in the four Modbus tables,
:mod:`.protocol` frames and answers requests, :mod:`.server` serves them over
TCP; :mod:`.serve` is the ``fbd serve`` command, :mod:`.bench` its load
benchmark.

The names below are importable from here, loaded on first use: ``fbd serve``
registers its sub-command on every ``fbd`` start, and that must not cost
every command the server's imports.
"""

from importlib import import_module

_NAMES = {
    "ProcessImage": ".image", "Location": ".image", "locate": ".image",
    "IX_WINDOW": ".image", "IW_WINDOW": ".image",
    "COILS": ".protocol", "DISCRETE_INPUTS": ".protocol", "INPUT_REGISTERS": ".protocol",
    "HOLDING_REGISTERS": ".protocol", "FUNCTION_CODES": ".protocol",
    "ExceptionCode": ".protocol",
    "ModbusServer": ".server", "ServerStats": ".server", "DEFAULT_PORT": ".server",
    "IDLE_TIMEOUT": ".server", "MAX_CLIENTS": ".server",
}


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(import_module(_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_NAMES)
