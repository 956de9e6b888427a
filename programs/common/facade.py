"""The Python side of the command handshake: :class:`CommandFacade`.

Every game facade (:class:`~programs.game2048.Game2048`,
:class:`~programs.sudoku.SudokuGame`, :class:`~programs.hidato.HidatoGame`)
sends commands the same way, to a program whose selector is the *Command*
macro (:mod:`programs.common.command`): write the command's data inputs, then
``CMD`` and a new ``CMD_SEQ``; the program acknowledges it by copying
``CMD_SEQ`` to ``TAKEN``.

The facade keeps no copy of the sequence number: it reads the PLC's. The
next number follows the ``CMD_SEQ`` the PLC holds (or will latch on the next
scan: a write not yet latched, its own or a Modbus client's, counts), and a
command is only written when the one before it has been taken (``TAKEN`` =
``CMD_SEQ``). So a facade and another writer (a SCADA client serving the
same PLC, a debugger's write) can drive one program in turn without either
overwriting the other's command or reusing its number. Two writers that write
between the same two scans, each before it could see the other's write, are
the one case the handshake cannot order (the last write wins, as on a wire):
the blocking :meth:`CommandFacade.submit` detects it and raises instead of
reporting the other writer's command as its own.

The facade runs in the thread that runs the PLC (as the HMI's loop does).
"""

from __future__ import annotations

from collections.abc import Mapping

from fbd import FbdError, Plc

#: CMD_SEQ counts 1..SEQ_WRAP and wraps (the next number always differs from the last).
SEQ_WRAP = 32767
INT_MIN, INT_MAX = -32768, 32767


class CommandPending(FbdError):
    """A command was sent while the PLC had not taken the previous one."""


def check_int(name: str, v, low: int, high: int) -> int:
    """``v`` if it is an int in ``low..high``; TypeError or ValueError naming ``name``."""
    if type(v) is not int:
        raise TypeError(f"{name} must be an int, not {v!r}")
    if not low <= v <= high:
        raise ValueError(f"{name} = {v} is outside {low}..{high}")
    return v


def next_seq(seq: int) -> int:
    """The command number after ``seq``: 1..SEQ_WRAP, never equal to ``seq``."""
    return seq % SEQ_WRAP + 1


class CommandFacade:
    """The handshake half of a game facade; subclasses set :attr:`COMMANDS` and :attr:`plc`.

    Real-time use (a GUI loop that runs the PLC itself): :meth:`post` writes a
    command and returns its ``CMD_SEQ`` at once; :attr:`ready` says whether a
    command may be posted now. Blocking use (tests, scripts): :meth:`submit`
    waits for the PLC to be ready, posts, and scans until the command is taken.
    """

    #: name -> selector value written to CMD
    COMMANDS: Mapping[str, int] = {}
    #: what a command is called in messages ("command", "event")
    WORD = "command"
    #: scans :meth:`submit` waits for a command to be taken (the lock holds one scan at most)
    TAKE_SCANS = 3
    #: scans :meth:`submit` waits for the PLC to be ready; more means a stuck PLC
    READY_SCANS = 3

    plc: Plc

    # -- the PLC's handshake state --------------------------------------------------
    @property
    def seq(self) -> int:
        """The ``CMD_SEQ`` the PLC holds: forced, or written and not yet latched, or latched."""
        return _next_latched(self.plc, "CMD_SEQ")

    @property
    def taken(self) -> int:
        """``CMD_SEQ`` of the last command the program took (``TAKEN``)."""
        return self.plc.get("TAKEN")

    @property
    def pending(self) -> bool:
        """A command has been written (by anyone) and not taken yet."""
        return self.seq != self.taken

    @property
    def ready(self) -> bool:
        """A command posted now would not overwrite one the PLC has not taken."""
        return not self.pending

    # -- sending -------------------------------------------------------------------
    def post(self, name: str, **inputs) -> int:
        """Write ``inputs`` (PLC input name -> value), then ``CMD`` and a new
        ``CMD_SEQ``, and return that number at once, without scanning. The
        program takes it on the next scan its lock allows.

        Raises :class:`CommandPending` when :attr:`pending` (the command before
        it, whoever wrote it, is not taken yet: writing now would lose it)."""
        return self._post(name, inputs)

    def submit(self, name: str, **inputs) -> int:
        """Wait (scanning) until the PLC is :attr:`ready`, post ``name`` and scan
        until the program took it; returns the scans from the post to the take."""
        return self._submit(name, inputs)

    # Subclasses give post and submit their own signatures and call these two.
    def _post(self, name: str, inputs: Mapping) -> int:
        code = self._code(name)
        if self.pending:
            raise CommandPending(
                f"the PLC has not taken the {self.WORD} before (CMD_SEQ {self.seq}, TAKEN "
                f"{self.taken}); post {name!r} once TAKEN equals CMD_SEQ")
        plc = self.plc
        for port, value in inputs.items():
            plc.set(port, value)
        seq = next_seq(self.seq)
        plc.set("CMD", code)
        plc.set("CMD_SEQ", seq)
        return seq

    def _submit(self, name: str, inputs: Mapping) -> int:
        code = self._code(name)
        self.wait_ready(self.READY_SCANS, name)
        seq = self._post(name, inputs)
        plc = self.plc
        for scans in range(1, self.TAKE_SCANS + 1):
            plc.scan()
            if plc.get("TAKEN") == seq:
                if plc.get("CMD") != code:
                    raise FbdError(
                        f"{self.WORD} {name!r} was overwritten before the PLC took it: CMD_SEQ "
                        f"{seq} carried CMD {plc.get('CMD')} (another writer in the same scan?)")
                return scans
        # Withdraw it, so that it does not run later (after an unforce, say) behind the
        # caller's back; unless another writer has replaced it meanwhile.
        if _last_written(plc, "CMD_SEQ") == seq:
            plc.set("CMD_SEQ", plc.get("TAKEN"))
        raise FbdError(f"the PLC did not take {self.WORD} {name!r} (CMD_SEQ {seq}) in "
                       f"{self.TAKE_SCANS} scans, so it was withdrawn; is CMD_SEQ forced or "
                       f"written by someone else?")

    def wait_ready(self, max_scans: int, name: str = "") -> int:
        """Scan until :attr:`ready`; returns the scans it took. FbdError after ``max_scans``."""
        scans = 0
        while not self.ready:
            if scans >= max_scans:
                what = f" (waiting to send {name!r})" if name else ""
                if not self.pending:
                    raise FbdError(f"the PLC is still busy after {scans} scans{what}")
                raise FbdError(f"the PLC did not take the pending {self.WORD} (CMD_SEQ "
                               f"{self.seq}, TAKEN {self.taken}) in {scans} scans{what}; "
                               f"is CMD_SEQ forced or written by someone else?")
            self.plc.scan()
            scans += 1
        return scans

    def _code(self, name: str) -> int:
        try:
            return self.COMMANDS[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.WORD} {name!r}; choose one of "
                             f"{', '.join(self.COMMANDS)}") from None


def _last_written(plc: Plc, name: str):
    """The value last written to input ``name`` (what an unforce returns it to)."""
    task = plc.main
    return task.image[task.program.inputs[name]]


def _next_latched(plc: Plc, name: str):
    """The value of input ``name`` that the next scan latches: a force wins, else a write
    not yet latched (``plc.set``, or a Modbus client's), else the value latched by the
    last scan. (Plc.get shows only the last.)

    Writes collected outside the PLC's thread wait for the next scan's ``before_scan``
    hooks (a Modbus server's :meth:`~fbd.modbus.ProcessImage.apply`); the hooks hand
    them over now, as that scan would, so a client's command written a moment ago is
    seen. The facade runs in the thread that runs the PLC, where they may be called."""
    task = plc.main
    for hook in list(task.before_scan):
        hook(task)
    slot = task.program.inputs[name]
    if slot in task.forces:
        return task.forces[slot]
    return task.pending.get(slot, task.s[slot])


__all__ = ["CommandFacade", "CommandPending", "SEQ_WRAP", "check_int", "next_seq"]
