"""Sweeps of many batches on Dask: each job a batch run on some machine.

>>> results = sweep(run_one_batch, [{"seed": s} for s in range(40)])   # doctest: +SKIP

A *job* is a picklable function of one argument (a module-level function:
Dask ships it by reference) that builds its network, runs a
:class:`~fbd.batch.BatchHarness` and returns its results (numpy arrays, a
dict of them: whatever pickles). :func:`sweep` runs ``job(spec)`` for every
spec on a ``dask.distributed`` cluster and returns the results in the order
of the specs: on a :class:`~distributed.LocalCluster` of ``workers``
processes by default, or on the cluster whose scheduler is at ``scheduler``
(``"tcp://10.0.0.5:8786"``), where each worker needs this package installed.
Progress (jobs done of all) goes to ``progress``.

Dask is an optional extra: ``pip install -e '.[dask]'``.
"""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable

from ..errors import FbdError


def _distributed():
    try:
        import distributed
    except ImportError:
        raise FbdError("the Dask sweep needs dask.distributed: pip install -e '.[dask]'") from None
    return distributed


def sweep(job: Callable, specs: Iterable, *, scheduler: str | None = None, workers: int = 2,
          processes: bool = True, progress: Callable[[str], None] | None = None,
          timeout: float = 30.0) -> list:
    """``[job(spec) for spec in specs]``, computed on a Dask cluster (see the
    module docstring). ``processes=False`` runs the local workers as threads of
    this process (quicker to start; numpy releases the GIL in its loops).
    ``timeout``: seconds to wait for a ``scheduler`` to answer."""
    distributed = _distributed()
    specs = list(specs)
    say = progress or (lambda text: None)
    offload = getattr(distributed.utils, "_offload_executor", None)
    idle = offload is not None and not getattr(offload, "_threads", True)
    if scheduler is None:
        say(f"starting a local Dask cluster of {workers} worker{'s' if workers != 1 else ''}")
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=processes, dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        say(f"connecting to the Dask scheduler at {scheduler}")
        cluster = None
        _reachable(scheduler, timeout)
        try:
            client = distributed.Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as err:
            raise FbdError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        futures = client.map(job, specs, pure=False)
        index = {f.key: k for k, f in enumerate(futures)}
        results: list = [None] * len(specs)
        started, done = time.monotonic(), 0
        for future in distributed.as_completed(futures):
            results[index[future.key]] = future.result()
            done += 1
            say(f"{done} of {len(specs)} jobs done ({time.monotonic() - started:.1f} s)")
        return results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if idle and distributed.utils._offload_executor is offload:
            # distributed starts a helper thread for good on first use; leave the
            # caller's process with the threads it had (a GUI may count them)
            offload.shutdown(wait=True)
            distributed.utils._offload_executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="Dask-Offload")


def _reachable(address: str, timeout: float) -> None:
    """Refuse a tcp:// scheduler nothing listens at before Dask starts its event
    loop thread for it (a Client that fails to connect leaves that running)."""
    if not address.startswith("tcp://"):
        return
    host, _, port = address[len("tcp://"):].rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except (OSError, ValueError) as err:
        raise FbdError(f"cannot reach the Dask scheduler at {address}: {err}") from None


__all__ = ["sweep"]
