"""The debugger's model, with no Qt in it: stepping, breakpoints on conditions,
watches, forces, trends (:mod:`.debugger`), and the layout of a network level
as boxes and wires (:mod:`.layout`) that the Qt view and the PLCopen writer draw."""

from .debugger import (
    FUNCTIONS,
    MAX,
    TREND_CAPACITY,
    Breakpoint,
    Condition,
    ConditionError,
    Debugger,
    Hit,
    Probe,
    WatchRow,
    compile_condition,
    format_value,
    literal_text,
)

__all__ = ["Debugger", "Breakpoint", "Hit", "Probe", "WatchRow", "ConditionError",
           "Condition", "compile_condition", "format_value", "literal_text", "MAX", "TREND_CAPACITY",
           "FUNCTIONS"]
