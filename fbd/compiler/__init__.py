"""From a :class:`~fbd.network.Network` to the code of one scan.

``pycode`` validates, flattens and compiles a network to straight-line Python
(:func:`compile_network` -> :class:`ScanProgram`); ``interp`` evaluates the same
program block by block (the reference the compiled scan is tested against);
``graph`` and ``forkmap`` are the algorithms they share.
"""

from .pycode import CHUNK, ScanProgram, SignalInfo, compile_network

__all__ = ["compile_network", "ScanProgram", "SignalInfo", "CHUNK"]
