"""The blocks fbd's own code places by name are declared in one place."""

import pytest

from fbd.errors import FbdError
from fbd.library import USED_BY_FBD, block_type


def test_every_block_fbd_places_is_in_the_installed_library():
    for name in USED_BY_FBD:
        assert block_type(name).type_name == name


def test_a_missing_block_names_itself_and_what_needs_it():
    with pytest.raises(FbdError, match="no block library provides NOPE, which the test needs"):
        block_type("NOPE", "the test")
