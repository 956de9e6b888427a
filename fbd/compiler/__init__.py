"""From a :class:`~fbd.network.Network` to the code of one scan.

The front half (:mod:`.front`, with :mod:`.infer` and :mod:`.order`) validates
a network and turns it into a :class:`FlatProgram` (:mod:`.flat`): every
block with its full path, resolved inputs, types, the execution order and
the signal table's layout. The backends read that form only: :mod:`.pycode`
generates the scan as straight-line Python (:func:`compile_network` ->
:class:`ScanProgram`), :mod:`.interp` evaluates it block by block (the
reference the compiled scan is tested against). :mod:`.graph` and
:mod:`.forkmap` are the algorithms they share.
"""

from .flat import FlatProgram, Leaf, MacroPort, SignalInfo, Src
from .front import flatten
from .pycode import CHUNK, ScanProgram, compile_network

__all__ = ["flatten", "FlatProgram", "Leaf", "Src", "MacroPort", "SignalInfo",
           "compile_network", "ScanProgram", "CHUNK"]
