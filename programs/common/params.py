"""Bounds on the puzzle tools' parameters (sizes, counts, seeds, budgets), for the
library and for the command line alike: a value out of range is a clear one-line
error naming it, never a search that runs for ever or a traceback."""

from __future__ import annotations

import argparse
import math
import re

from fbd.errors import FbdError

from .textfile import shorten as _short

#: Seeds are 0..MAX_SEED (any 64-bit seed a user may note down).
MAX_SEED = 2**63 - 1
_DIGITS = re.compile(r"[+-]?[0-9]+")


class ParameterError(FbdError, ValueError):
    """A parameter of a puzzle tool out of its range."""


def check_count(name: str, value, low: int, high: int) -> int:
    """``value`` if it is an int (not a bool) in ``low..high``, else ParameterError."""
    if type(value) is not int:
        raise ParameterError(f"{name} must be a whole number, not {_short(repr(value))}")
    if not low <= value <= high:
        raise ParameterError(f"{name} = {_short(str(value))} is outside {low:,}..{high:,}")
    return value


def check_seed(seed) -> int | None:
    """None (a fresh random seed) or an int 0..MAX_SEED."""
    if seed is None:
        return None
    return check_count("the seed", seed, 0, MAX_SEED)


def int_arg(low: int, high: int):
    """An argparse ``type`` for a whole number in ``low..high`` (the message quotes at
    most a few dozen characters of what was typed)."""
    def parse(text: str) -> int:
        if _DIGITS.fullmatch(text.strip()) and len(text) > 40:   # beyond any bound here,
            raise argparse.ArgumentTypeError(                    # and int() may refuse it
                f"{_short(text)} is outside {low:,}..{high:,}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {_short(repr(text))}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{_short(text)} is outside {low:,}..{high:,}")
        return value
    parse.__name__ = "whole number"
    return parse


def seconds_arg(high: float):
    """An argparse ``type`` for a number of seconds in (0, ``high``]."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: "
                                             f"{_short(repr(text))}") from None
        if not (math.isfinite(value) and 0 < value <= high):
            raise argparse.ArgumentTypeError(f"{_short(text)} seconds is outside (0, {high:g}]")
        return value
    parse.__name__ = "seconds"
    return parse


__all__ = ["MAX_SEED", "ParameterError", "check_count", "check_seed", "int_arg", "seconds_arg"]
