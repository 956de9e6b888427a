"""``blocks`` exports every registered block type by name, with plain imports."""

import blocks
from fbd.block import registry


def test_the_package_names_exactly_the_registered_blocks():
    ours = {name for name, cls in registry().items() if cls.__module__.startswith("blocks.")}
    assert set(blocks.__all__) == ours
    for name in ours:
        assert getattr(blocks, name) is registry()[name]
