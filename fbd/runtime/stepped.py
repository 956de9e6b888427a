"""A scan of the main task run one block at a time, a debugger's *step into*
(:meth:`fbd.runtime.plc.Plc.step_into`)."""

from __future__ import annotations

from ..errors import FbdError
from ..values import NS_PER_US
from .faults import PlcFault
from .task import Task


class SteppedScan:
    """The main task's next scan, run one block at a time (:meth:`Plc.step_into`).

    It begins as every scan does (inputs latched, forces re-applied, the
    previous-scan copies of feedback wires taken); :meth:`step` runs the next
    block in execution order, over the live table, with the block's own code
    (:meth:`ScanProgram.leaf_function`); :meth:`finish` runs what is left and
    ends the scan as every scan ends: outputs published, the scan counted and
    timed (the wall time of its blocks, not the pauses between them), traces
    sampled, and the clock advanced to the end of the cycle (other tasks and
    simpy processes due in between run). The table is then exactly what the
    compiled scan would have left. While a scan is stepped into, the PLC
    does not run (:meth:`Plc.scan` refuses); :meth:`Plc.restart` abandons it.

    Forcing or writing between steps is allowed and takes effect for the
    blocks still to run. The scan runs at the simulated time it was due
    (``now_us``, what NOW and the timers read), which is also :attr:`Plc.time`
    until it finishes.
    """

    def __init__(self, plc, task: Task):
        # plc: the Plc (not imported here: plc.py imports this module)
        self.plc = plc
        self.task = task
        self.program = task.program
        self.order = self.program.order
        self.position = 0      # blocks run so far
        self.now_us = task.next_due + plc.clock_start_us
        self.ns = 0            # wall time of the blocks run
        task.latch()
        self.program.snapshot(task.s)

    @property
    def done(self) -> bool:
        """Every block has run (what is left is :meth:`finish`)."""
        return self.position >= len(self.order)

    @property
    def next_leaf(self) -> int | None:
        """The index (in ``program.leaves``) of the block the next step runs."""
        return None if self.done else self.order[self.position]

    @property
    def active(self) -> bool:
        """Still the PLC's scan in progress (not finished, not abandoned by a restart)."""
        return self.plc._stepping is self

    def step(self) -> int:
        """Run the next block; return its index in ``program.leaves``."""
        if not self.active:
            raise FbdError("this stepped scan is over (finished or abandoned by a restart)")
        if self.done:
            raise FbdError("every block of this scan has run; finish() ends it")
        index = self.order[self.position]
        run = self.program.leaf_function(index)
        clock = self.task.clock
        t0 = clock()
        try:
            run(self.task.s, self.now_us * NS_PER_US)
        except Exception as e:
            raise self.fail(e) from e
        self.ns += clock() - t0
        self.position += 1
        return index

    def fail(self, error: BaseException) -> PlcFault:
        """The next block raised ``error`` (run here, or by the caller, as the debugger
        runs an ST block): the scan is abandoned and the PLC is in FAULT, as when a
        scan raises; returns the :class:`PlcFault` to raise. After a restart the
        scan is due again."""
        failed = self.task.failed(error, self.now_us,
                                  None if self.done else self.program.leaves[self.next_leaf].path)
        self.plc._stepping = None
        self.plc._enter_fault(failed)
        self.plc._notify("fault")
        return failed

    def ran(self, ns: int) -> int:
        """Count the next block as run by the caller, in ``ns`` of wall time (the
        debugger runs an ST block statement by statement, through its own code);
        return its index in ``program.leaves``."""
        if not self.active or self.done:
            raise FbdError("no block of this stepped scan is left to run")
        index = self.order[self.position]
        self.ns += ns
        self.position += 1
        return index

    def finish(self) -> None:
        """Run the blocks left, publish, record, and advance the clock by one cycle."""
        while not self.done:
            self.step()
        if not self.active:
            raise FbdError("this stepped scan is over (finished or abandoned by a restart)")
        task, plc = self.task, self.plc
        self.program.publish(task.s)
        task.next_due = self.now_us - plc.clock_start_us + task.cycle_us  # the scheduler skips it
        task.record(self.now_us, self.ns)
        plc._stepping = None
        plc._run(task.next_due)
