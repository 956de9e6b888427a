"""The batch engine: n instances of one network in lockstep on numpy.

``BatchHarness(net, n)`` runs n independent copies of a network, each with
its own inputs and state, one numpy array per signal; every instance gives
exactly what a scalar :class:`fbd.testing.Harness` would. See docs/batch.md.

* :mod:`.ir`, :mod:`.lift`: a block's code as a value graph (if-conversion);
* :mod:`.lower`: the graph as numpy statements, integer widths chosen exactly;
* :mod:`.template`, :mod:`.program`: per block configuration, and the scan;
* :mod:`.harness`: the harness; :mod:`.sweep`: many batches on Dask;
  :mod:`.bench`: the benchmark.
"""

from .harness import MAX_INSTANCES, MEMORY_LIMIT, BatchHarness
from .program import BatchProgram

__all__ = ["BatchHarness", "BatchProgram", "MEMORY_LIMIT", "MAX_INSTANCES"]
