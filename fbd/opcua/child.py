"""``python -m fbd.opcua.child``: the OPC UA server's process, started by
:class:`fbd.opcua.server.OpcuaServer` (docs/opcua.md, *One process for the PLC,
one for the server*).

It reads :mod:`.wire` messages on stdin and answers on stdout; its log lines go
to stderr, which it shares with the PLC's process. It ends when told to, or when
its stdin ends (the PLC's process is gone).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
import sys
import threading

from .wire import Wire

log = logging.getLogger("fbd.opcua")


async def serve(init: tuple, inbox: Wire, outbox: Wire) -> None:
    from .nodes import NodeServer
    _kind, host, port, security, space, tables, state = init
    loop = asyncio.get_running_loop()
    waiting: dict[int, asyncio.Future] = {}
    numbers = itertools.count(1)

    async def ask(kind: str, *args):
        """Send a message the PLC's process answers, and wait for the answer."""
        number = next(numbers)
        waiting[number] = loop.create_future()
        outbox.send(kind, number, *args)
        try:
            return await waiting[number]
        finally:
            waiting.pop(number, None)

    node = NodeServer(host, port, security, ask)
    try:
        port = await node.start(space, tables)
        await node.runstate.publish(state)     # the PLC object reads true from the start
    except BaseException as e:      # noqa: BLE001 - the PLC's process says it, in one line
        outbox.send("error", _reason(e))
        return
    outbox.send("ready", port)
    queue: asyncio.Queue = asyncio.Queue()

    def received(message) -> None:
        if message is not None and message[0] == "ack":
            future = waiting.get(message[1])
            if future is not None and not future.done():
                future.set_result(None)
        else:
            queue.put_nowait(message)

    def read() -> None:
        while True:
            message = inbox.recv()
            try:
                loop.call_soon_threadsafe(received, message)
            except RuntimeError:
                return          # the loop has ended
            if message is None or message[0] == "stop":
                return
    threading.Thread(target=read, name="fbd-opcua-inbox", daemon=True).start()
    try:
        while True:
            message = await queue.get()
            if message is None or message[0] == "stop":
                break
            kind = message[0]
            if kind == "values":
                await node.apply(message[1], message[2])
                await node.runstate.publish(message[3])
            elif kind == "space":
                await node.rebuild(message[1], message[2])
            elif kind == "sync":
                pass
            outbox.send("stats", node.writes, node.refused, node.values, node.clients)
            if kind == "sync":
                outbox.send("done", message[1])
    finally:
        for future in waiting.values():
            future.cancel()
        outbox.send("stats", node.writes, node.refused, node.values, node.clients)
        await node.stop()


class _OneLine(logging.Formatter):
    """``fbd: opcua: ...``, one line a record: asyncua logs a client's malformed
    frame with a traceback, which says nothing to a user and would flood the log."""

    def format(self, record) -> str:
        text = record.getMessage().splitlines()[0] if record.getMessage() else ""
        if record.exc_info and record.exc_info[1] is not None:
            text += f": {type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return f"fbd: opcua: {text}"[:300]


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno == 98:
        return "the port is in use"
    text = str(error) or type(error).__name__
    return text.splitlines()[0]


#: how much lower than the PLC's the server process's priority is (nice): as a PLC
#: runs its communication below its cyclic tasks, the scan comes first when the
#: cores are busy
NICE = 10


def main() -> int:
    # Ctrl-C in a terminal reaches the whole process group: the PLC's process stops
    # this one in order (stdin's end, or "stop"), so the signal is not for it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(NICE)
    except (AttributeError, OSError):
        pass            # no nice (Windows): the same priority as the PLC
    inbox, outbox = Wire(sys.stdin.buffer), Wire(sys.stdout.buffer)
    sys.stdout = sys.stderr             # nothing else may write on the messages' stream
    init = inbox.recv()
    if init is None:
        return 0
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name, level in (("fbd.opcua", logging.INFO), ("asyncua", logging.ERROR)):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
    asyncio.run(serve(init, inbox, outbox))
    return 0


if __name__ == "__main__":
    sys.exit(main())
