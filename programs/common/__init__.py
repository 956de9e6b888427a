"""What the game programs share: the command handshake and the SCXML states.

==================  ===============================================================
module              what
==================  ===============================================================
``command``         *Command*: the CMD / CMD_SEQ / TAKEN selector and its lock
                    (2048, Sudoku, Hidato)
``facade``          :class:`CommandFacade`: the facades' half of that handshake
``machine``         *Machine*: the SCXML states idle (unsolved, solved) and
                    playing (Sudoku, Hidato)
==================  ===============================================================
"""

from .command import command_macro
from .facade import SEQ_WRAP, CommandFacade, CommandPending
from .machine import machine_macro

__all__ = ["command_macro", "CommandFacade", "CommandPending", "SEQ_WRAP", "machine_macro"]
