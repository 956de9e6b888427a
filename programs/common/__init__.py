"""What the game programs share: the command handshake, the SCXML states, bounded input.

==================  ===============================================================
module              what
==================  ===============================================================
``command``         *Command*: the CMD / CMD_SEQ / TAKEN selector and its lock
                    (2048, Sudoku, Hidato)
``facade``          :class:`~.facade.CommandFacade`: the facades' half of that
                    handshake
``machine``         *Machine*: the SCXML states idle (unsolved, solved) and
                    playing (Sudoku, Hidato)
``textfile``        reading puzzle files: bounded, BOM-tolerant, errors naming
                    the file and line
``params``          bounds on the puzzle tools' sizes, counts, seeds and budgets
==================  ===============================================================

Import from the modules (``from programs.common.command import command_macro``):
this package imports nothing itself, so the command line's puzzle verbs load only
what they use.
"""
