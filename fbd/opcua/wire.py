"""Messages between the PLC's process and the OPC UA server's: pickled tuples, each
after its length (4 bytes, big-endian), over the child's stdin and stdout. Both
ends are fbd's own code, started together (the child is the parent's own
interpreter running :mod:`.child`), so pickle carries IEC types and values as
they are."""

from __future__ import annotations

import pickle
import struct
import threading

_HEAD = struct.Struct(">I")


class Wire:
    """One direction's stream: :meth:`send` from any thread (a lock keeps frames
    whole), :meth:`recv` from one."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, *message) -> None:
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self.lock:
            self.stream.write(_HEAD.pack(len(body)) + body)
            self.stream.flush()

    def recv(self):
        """The next message, or None at the end of the stream."""
        head = self.stream.read(_HEAD.size)
        if len(head) < _HEAD.size:
            return None
        size = _HEAD.unpack(head)[0]
        body = self.stream.read(size)
        if len(body) < size:
            return None
        return pickle.loads(body)


__all__ = ["Wire"]
