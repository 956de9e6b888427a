"""OPC UA: a running PLC's variables served as a PLC engineer browses them
(docs/opcua.md), on asyncua (the ``opcua`` extra).

:mod:`.space` lays the address space out from a PLC (no OPC UA library),
:mod:`.codec` converts IEC values to OPC UA's and back, :mod:`.image` copies
scans and queues writes in the PLC's process, :mod:`.server` runs the server's
process (:mod:`.child`, :mod:`.nodes`: asyncua and the nodes) and talks to it
(:mod:`.wire`), :mod:`.runstate` adds the PLC's state and its commands,
:mod:`.security` says who may connect, :mod:`.cli` is ``fbd serve --opcua``
and :mod:`.bench` its benchmark.

Nothing outside this package imports asyncua, and this package's names load
on first use: ``fbd serve`` registers its options on every ``fbd`` start.
"""

from importlib import import_module

_NAMES = {
    "build_space": ".space", "Space": ".space", "Folder": ".space", "Variable": ".space",
    "ScanImage": ".image",
    "OpcuaServer": ".server", "OpcuaStats": ".server", "DEFAULT_PORT": ".server",
    "NAMESPACE": ".server",
}


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(import_module(_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_NAMES)
