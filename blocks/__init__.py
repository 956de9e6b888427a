"""The elementary block library, one module per family.

Every block type is registered with :func:`fbd.register` when its module is
imported, and exported here under its IEC name: ``blocks.SR()``, ``blocks.TON()``.
"""

from fbd.block import registry

from . import (  # noqa: F401  (importing a family registers its blocks)
    access,
    arith,
    bitwise,
    compare,
    convert,
    counters,
    dates,
    edge,
    logic,
    memory,
    select,
    strings,
    timers,
)

FAMILIES = ("logic", "bitwise", "compare", "select", "arith", "convert", "dates", "strings",
            "access", "memory", "edge", "timers", "counters")

globals().update(registry())
__all__ = sorted(registry())
