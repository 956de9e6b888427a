"""BatchHarness: n instances of one network in lockstep, each with its own values.

>>> h = BatchHarness(net, n=4096, cycle=0.005)   # doctest: +SKIP
>>> h.set(A=True)                                # one value for every instance
>>> h.set(B=np.arange(4096) % 7)                 # or one per instance
>>> h.scan(k=10)
>>> h.get("cell_0_0.memory.OUT")                 # n values: a numpy array

Every instance is exactly what a :class:`fbd.testing.Harness` of the same
network would be, scan for scan, given the same inputs: the same scan
semantics (inputs latched at the start of a scan, outputs published at its
end, feedback wires reading the previous scan), the same clock (shared by
all instances: NOW and the timers read it), the same values bit for bit.
"""

from __future__ import annotations

import numpy as np

from .. import types as t
from ..compiler.flat import FlatProgram
from ..compiler.front import flatten
from ..errors import FbdError
from ..network import Network
from ..real32 import OVERFLOW
from ..runtime.plc import to_us
from ..values import NS_PER_US, Kind
from .ir import NOW_MAX, NOW_MIN
from .program import BatchProgram
from .template import dtype_of

ENGINES = ("auto", "native", "numpy")

#: Signals of all instances together may take this much memory unless told
#: otherwise (``memory_limit=``, in bytes): 4 GiB.
MEMORY_LIMIT = 4 << 30
#: At most this many instances in one batch (a Python list of this many
#: values is what a per-instance block builds every scan).
MAX_INSTANCES = 1 << 26


class BatchHarness:
    """n independent instances of ``network`` (a :class:`~fbd.network.Network`
    or its :class:`~fbd.compiler.FlatProgram`), scanned together.

    ``cycle``: seconds, a timedelta or 'T#5ms'; ``clock_start``: the clock
    of the first scan, as :class:`fbd.Plc` takes it. ``memory_limit``: bytes
    the signal arrays may take (:data:`MEMORY_LIMIT`); the estimate
    (:meth:`memory_needed`) is checked before anything is allocated.
    ``engine``: ``"native"`` (machine code through LLVM), ``"numpy"``, or
    ``"auto"``: native where llvmlite is installed and every block and signal
    has a native form; ``h.engine`` and ``h.engine_reason`` say which and why.
    """

    def __init__(self, network, n: int, cycle=0.005, *, clock_start=0.0,
                 memory_limit: int = MEMORY_LIMIT, engine: str = "auto"):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_INSTANCES:
            raise FbdError(f"n must be an integer from 1 to {MAX_INSTANCES}, not {n!r}")
        n = int(n)
        if isinstance(network, Network):
            flat = flatten(network)
        elif isinstance(network, FlatProgram):
            flat = network
        else:
            raise FbdError(f"BatchHarness needs a Network or a FlatProgram, not "
                           f"{type(network).__name__}")
        self.cycle_us = to_us(cycle, "cycle")
        if self.cycle_us <= 0:
            raise FbdError(f"cycle must be positive, not {cycle!r}")
        self.clock_start_us = to_us(clock_start, "clock_start")
        if not NOW_MIN <= self.clock_start_us * NS_PER_US <= NOW_MAX:
            raise FbdError(f"clock_start {clock_start!r} is outside the batch engine's clock "
                           f"range (about ±73 years from 1970: 2**61 ns)")
        self.n = n
        self.flat = flat
        self.program, self.engine_reason = build_program(flat, n, engine)
        self.engine = self.program.engine
        self.memory_limit = memory_limit
        need = self.memory_needed()
        if need > memory_limit:
            per = self.program.bytes_per_instance()
            raise FbdError(
                f"{n} instances of {flat.name} need about {_mib(need)} for their "
                f"{self.program.n_slots} signals ({per} bytes each), over the batch limit of "
                f"{_mib(memory_limit)}: lower n, run several batches, or raise memory_limit=")
        try:
            self.s = self.program.new_table()
        except MemoryError:
            raise FbdError(f"not enough memory for {n} instances of {flat.name} "
                           f"({_mib(need)}): lower n") from None
        self.pending: dict[int, object] = {}
        self.image: dict[int, object] = self._initial_image()
        self.forces: dict[int, object] = {}
        self.scans = 0
        self._clear_retired()

    # -- the pinned API ------------------------------------------------------------
    def set(self, values: dict | None = None, /, **kw) -> "BatchHarness":
        """Set inputs by name: one value for every instance, or a sequence or
        array of n values (one per instance). Latched at the start of the next scan."""
        for name, value in {**(values or {}), **kw}.items():
            info = self.flat.signal(name)
            if info.kind != "input":
                raise FbdError(f"{name!r} is not an input of {self.flat.name} (its inputs: "
                               f"{', '.join(self.flat.inputs) or 'none'}); use write() "
                               f"or force() for internal signals")
            self.pending[info.slot] = self.image[info.slot] = self._values(info, value, name)
        return self

    def scan(self, k: int = 1) -> "BatchHarness":
        """Run ``k`` scans of every instance."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise FbdError(f"cannot run {k!r} scans")
        last = self.clock_start_us + (self.scans + k) * self.cycle_us
        if last * NS_PER_US > NOW_MAX:
            raise FbdError("the clock would leave the batch engine's range (about 73 years from "
                           "1970: 2**61 ns)")
        s, scan, write = self.s, self.program.scan, self.program.write
        with np.errstate(all="ignore"):   # IEEE results, as the scalar blocks give them
            for _ in range(k):
                if self.pending:
                    for slot, value in self.pending.items():
                        write(s, slot, value)
                    self.pending.clear()
                for slot, value in self.forces.items():
                    write(s, slot, value)
                scan(s, (self.clock_start_us + self.scans * self.cycle_us) * NS_PER_US)
                self.scans += 1
        return self

    def get(self, path: str) -> np.ndarray:
        """The n values of any signal by its path (a copy). TIME comes as
        ``timedelta64[us]`` (a timedelta per instance, as Harness gives one: the ns
        below the µs dropped toward zero; :meth:`get_raw` keeps them)."""
        raw = self.get_raw(path)
        info = self.flat.signal(path)
        if info.type is not None and info.type.kind is Kind.TIME:
            return ((raw - np.fmod(raw, NS_PER_US)) // NS_PER_US).astype("timedelta64[us]")
        return raw

    def get_raw(self, path: str) -> np.ndarray:
        """As :meth:`get`, with TIME in integer ns (what blocks compute with)."""
        info = self.flat.signal(path)
        if info.slot is None:
            out = np.empty(self.n, dtype=dtype_of(info.type))
            out[...] = info.const
            return out
        values = self.program.read(self.s, info.slot)
        if self._frozen is not None:
            np.copyto(values, self._kept_values(info.slot), where=self._retired)
        return values

    def retire(self, instances) -> "BatchHarness":
        """Instances that are done (indices, or a mask of n): from now on each
        reads back the values it has now, every signal, and is no longer
        scanned where the engine can skip it (on the native engine a tile of
        16 retired instances costs nothing). What is set, written or forced for
        a retired instance afterwards is ignored; :meth:`reset` brings every
        instance back. Retiring one twice is retiring it once."""
        which = np.asarray(instances)
        if which.dtype == bool:
            if which.shape != (self.n,):
                raise FbdError(f"retire: a mask of {which.shape} for {self.n} instances")
            which = np.flatnonzero(which)
        elif which.size and (which.dtype.kind not in "iu" or which.ndim != 1):
            raise FbdError(f"retire takes instance indices or a mask of {self.n} BOOLs, "
                           f"not {which.dtype} of shape {which.shape}")
        which = which.astype(np.int64).reshape(-1)
        if which.size and (which.min() < 0 or which.max() >= self.n):
            bad = int(which[(which < 0) | (which >= self.n)][0])
            raise FbdError(f"retire: no instance {bad} (instances 0 to {self.n - 1})")
        new = np.unique(which[~self._retired[which]])
        if new.size:
            self._frozen = self.program.freeze(self.s, self._frozen, new)
            self._retired[new] = True
            self._retire_order.append(new)
        return self

    @property
    def skips_retired(self) -> bool:
        """Whether retired instances cost no scan work on this engine: the native
        engine skips a tile whose instances are all retired; the numpy engine
        scans every instance (whole arrays), and retiring only keeps values."""
        return self.program.skips_retired

    @property
    def tile_width(self) -> int:
        """How many consecutive instances (0-15, 16-31, ...) the scan skips together
        once all are retired: the native engine's tile (16); 0 on the numpy engine,
        which skips none. A caller retiring for speed retires whole tiles: a lane
        retired alone costs its copy (:meth:`retire`) and saves no scan work."""
        return self.program.width if self.program.skips_retired else 0

    @property
    def retired(self) -> np.ndarray:
        """Which instances are retired (:meth:`retire`): a mask of n."""
        return self._retired.copy()

    def force(self, path: str, value) -> None:
        """Hold a signal at ``value`` (one, or one per instance) in every instance
        until :meth:`unforce`, as a PLC force."""
        info = self._located(path, "forced")
        values = self._values(info, value, path)
        self.program.check_value(info.slot, np.broadcast_to(np.asarray(values), (self.n,)))
        new = info.slot not in self.forces
        self.forces[info.slot] = values
        if new:
            self._reforce()
        self.program.write(self.s, info.slot, values)

    def unforce(self, path: str | None = None) -> None:
        """Release one force, or every force when ``path`` is None."""
        if path is None:
            for slot in list(self.forces):
                self._release(slot)
            return
        info = self.flat.signal(path)
        if info.slot not in self.forces:
            raise FbdError(f"{path} is not forced")
        self._release(info.slot)

    def write(self, path: str, value) -> None:
        """Write a value once, now, in every instance (one value or n): a block
        that computes the signal overwrites it in its next scan; a memory keeps it."""
        info = self._located(path, "written")
        if info.slot in self.forces:
            raise FbdError(f"{path} is forced; unforce it before writing")
        values = self._values(info, value, path)
        self.program.check_value(info.slot, np.broadcast_to(np.asarray(values), (self.n,)))
        self.program.write(self.s, info.slot, values)
        if info.kind == "input":
            self.pending.pop(info.slot, None)
            self.image[info.slot] = values

    def reset(self) -> "BatchHarness":
        """Every instance as new, without compiling again: inputs and variables
        back to their initial values, nothing pending, no scan run, the clock at
        its start. Forces stay."""
        self.s = self.program.renew_table(self.s)
        self.pending = {}
        self.image = self._initial_image()
        for slot, value in self.forces.items():
            self.program.write(self.s, slot, value)
        self.scans = 0
        self._clear_retired()
        return self

    @property
    def time(self) -> float:
        """Simulated seconds elapsed."""
        return self.scans * self.cycle_us / 1e6

    # -- more ---------------------------------------------------------------------------
    def signals(self) -> list[str]:
        return list(self.flat.signals)

    def memory_needed(self) -> int:
        """Bytes the signal arrays of all instances take (an estimate)."""
        return self.n * self.program.bytes_per_instance()

    @property
    def per_instance(self) -> dict:
        """Block configurations that run instance by instance, each with the reason
        (see docs/batch.md); the rest run on whole arrays."""
        return self.program.per_instance

    def __repr__(self) -> str:
        return (f"<BatchHarness {self.flat.name}: {self.n} instances, {self.scans} scans, "
                f"t={self.time:.3f}s>")

    # -- internals -----------------------------------------------------------------------
    def _located(self, path: str, doing: str):
        info = self.flat.signal(path)
        if info.type is None:
            raise FbdError(f"{path} is a block's internal storage, not an IEC value; "
                           f"it cannot be {doing}")
        if info.slot is None:
            raise FbdError(f"{path} is wired to the constant {info.const!r}; nothing to "
                           f"{'force' if doing == 'forced' else 'write'}")
        return info

    def _initial_image(self) -> dict:
        """Each input's initial value (one for all instances)."""
        return {slot: self.program.read(self.s, slot)[0] for slot in self.flat.inputs.values()}

    def _clear_retired(self) -> None:
        self._retired = np.zeros(self.n, dtype=bool)
        self._retire_order: list[np.ndarray] = []   # the instances of each retire()
        self._frozen = None
        self._kept: dict[int, tuple] = {}            # slot -> (n values, retire()s in them)

    def _kept_values(self, slot: int) -> np.ndarray:
        """n values of ``slot``, its kept value at every retired instance: taken
        from the engine's copy once per instance (reading a slot every scan
        while instances retire costs what the new ones cost)."""
        values, done = self._kept.get(slot, (None, 0))
        if values is None:
            values = np.empty(self.n, dtype=self.program.read_frozen(
                self._frozen, slot, self._retire_order[0][:1], self.s).dtype)
        order = self._retire_order
        if done < len(order):
            new = order[done] if done + 1 == len(order) else np.concatenate(order[done:])
            values[new] = self.program.read_frozen(self._frozen, slot, new, self.s)
            self._kept[slot] = (values, len(order))
        return values

    def _release(self, slot: int) -> None:
        del self.forces[slot]
        if slot in self.flat.inputs.values():
            self.pending[slot] = self.image[slot]   # back to what the process last gave it
        self._reforce()

    def _reforce(self) -> None:
        program = self.program
        outputs = set(self.flat.outputs.values())
        new = program.set_forced({s for s in self.forces if s in self.flat.writer or s in outputs})
        self.s = program.regrown(self.s, new)

    def _values(self, info, value, path: str):
        """``value`` as what the slot holds: a Python scalar for every instance,
        or an array of n values, checked as :meth:`fbd.types.DataType.coerce` checks."""
        tp = info.type
        if isinstance(value, (np.ndarray, list, tuple)):
            return _array(tp, value, path, self.n)
        return tp.coerce(value, path)


def _array(tp: t.DataType, value, path: str, n: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != (n,):
        raise FbdError(f"{path}: {arr.shape[0] if arr.ndim == 1 else arr.shape} values for "
                       f"{n} instances (give one value for all, or exactly {n})")
    dtype = dtype_of(tp)
    kind = tp.kind
    if arr.dtype == object or arr.dtype.kind in "US":
        out = np.empty(n, dtype=dtype)
        for i, v in enumerate(arr.tolist()):
            out[i] = tp.coerce(v, f"{path}[{i}]")
        return out
    where = f"{path}"
    if kind is Kind.BOOL:
        if arr.dtype.kind == "b":
            return arr.astype(bool)
        if arr.dtype.kind in "iu" and np.isin(arr, (0, 1)).all():
            return arr.astype(bool)
    elif kind in (Kind.INT, Kind.BITS, Kind.DATE, Kind.TOD, Kind.DT):   # dates: ns since 1970
        if arr.dtype.kind == "M" and kind is not Kind.TOD:
            arr = arr.astype("datetime64[ns]").view(np.int64)
        if arr.dtype.kind in "iu" or (kind is Kind.BITS and arr.dtype.kind == "b"):
            # no scan of the values where their dtype cannot hold one out of range
            if arr.size and not _holds_only(arr.dtype, tp) and \
                    (arr.min() < tp.min or arr.max() > tp.max):
                bad = int(np.flatnonzero((arr < tp.min) | (arr > tp.max))[0])
                raise FbdError(f"{where}[{bad}]: {arr[bad]} is out of range for {tp.name} "
                               f"({tp.min}..{tp.max})")
            return arr.astype(dtype)
    elif kind is Kind.REAL:
        if arr.dtype.kind in "iuf":
            if tp.bits == 64:
                return arr.astype(np.float64)
            # a REAL: the nearest single-precision value, as REAL.coerce rounds one value
            wide = arr.astype(np.float64)
            beyond = np.isfinite(wide) & (np.abs(wide) >= OVERFLOW)
            if beyond.any():
                bad = int(np.flatnonzero(beyond)[0])
                raise FbdError(f"{where}[{bad}]: {arr[bad]} is out of range for {tp.name}")
            if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
                return arr.astype(np.float32)   # once, not through a double
            return wide.astype(np.float32)
    elif kind is Kind.TIME:
        if arr.dtype.kind == "m":
            ns = arr.astype("timedelta64[ns]")
            if (ns.astype(arr.dtype).view(np.int64) != arr.view(np.int64)).any():
                raise FbdError(f"{where}: TIME holds whole nanoseconds; {arr.dtype} values "
                               f"below the ns (or beyond 292 years) do not fit")
            return ns.view(np.int64).copy()
        raise FbdError(f"{where}: TIME values per instance come as timedelta64 "
                       f"(np.array([...], 'timedelta64[ms]')) or as timedeltas, "
                       f"not {arr.dtype}")
    raise FbdError(f"{where}: values of dtype {arr.dtype} are not {tp.name}s")


def _holds_only(dtype: np.dtype, tp: t.DataType) -> bool:
    """Whether every value of the integer ``dtype`` is in ``tp``'s range."""
    if dtype.kind not in "iu":
        return False
    limits = np.iinfo(dtype)
    return tp.min <= limits.min and limits.max <= tp.max


def build_program(flat: FlatProgram, n: int, engine: str = "auto"):
    """``(program, reason)``: the batch program of ``flat`` for ``n`` instances on the
    engine asked, or for ``"auto"`` the native one where it can run (see
    :class:`BatchHarness`), and why that one."""
    if engine not in ENGINES:
        raise FbdError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "numpy":
        return BatchProgram(flat, n), "asked for"
    from ..native import NotNative, unavailable_reason
    why = unavailable_reason()
    if why is None:
        from .native import NativeBatchProgram
        try:
            return NativeBatchProgram(flat, n), "every block and signal has a native form"
        except NotNative as e:
            if engine == "native":
                raise
            why = str(e)
    elif engine == "native":
        raise FbdError(f"the native batch engine is not available: {why}")
    return BatchProgram(flat, n), why


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MiB"


__all__ = ["BatchHarness", "MEMORY_LIMIT", "MAX_INSTANCES", "ENGINES", "build_program"]
