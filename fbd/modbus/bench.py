"""How fast ``fbd serve`` answers, and what serving costs the scan.

``python -m fbd.modbus.bench [TARGET] [--seconds S] [--quick]`` serves TARGET
(default ``2048``, resolved as ``fbd serve`` resolves it) on a PLC running in
real time, and measures:

* requests per second with 1 and with 20 clients, each sending its next
  request when the last reply has arrived: reads of 32 holding registers (the
  2048 board), and a mix of one write (FC 16, two registers) per four reads.
  The clients run in a separate process (two cores: one for them, one for the
  server and the PLC) and speak raw Modbus TCP over asyncio streams, so their
  own cost is small;
* the scan: mean and worst wall time of the compiled scan without a server,
  with an idle server, and while 20 clients read as fast as they can (the
  server thread and the PLC share the interpreter lock), and the time the
  process image takes per scan (publishing the outputs, handing writes over).

Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import struct
import subprocess
import sys
import threading
import time

from ..runtime.plc import Plc
from ..runtime.realtime import run_realtime
from ..tools.cli import load_network
from .image import ProcessImage
from .serve import resolve
from .server import ModbusServer

BOARD = (3, 2048, 32)   # function code, address, count: the 2048 board


def _say(text: str) -> None:
    print(f"modbus_bench: {text}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------ the clients
async def _client(port: int, seconds: float, mix: bool, counts: list, index: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    read = struct.pack(">HHHBBHH", 0, 0, 6, 1, *BOARD)
    write = struct.pack(">HHHBBHHBHH", 0, 0, 11, 1, 16, 1024, 2, 4, 0, 0)
    end = time.perf_counter() + seconds
    n = 0
    try:
        while time.perf_counter() < end:
            frame = write if mix and n % 5 == 4 else read
            writer.write(frame)
            head = await reader.readexactly(7)
            body = await reader.readexactly(struct.unpack(">H", head[4:6])[0] - 1)
            if body[0] & 0x80:
                raise RuntimeError(f"exception response {body.hex()}")
            n += 1
    finally:
        counts[index] = n
        writer.close()
        await writer.wait_closed()


async def _clients(port: int, n: int, seconds: float, mix: bool) -> float:
    counts = [0] * n
    t0 = time.perf_counter()
    await asyncio.gather(*(_client(port, seconds, mix, counts, i) for i in range(n)))
    return sum(counts) / (time.perf_counter() - t0)


def _client_process(port: int, n: int, seconds: float, mix: bool) -> float:
    """Run ``n`` clients in another process for ``seconds``; their requests per second."""
    done = subprocess.run([sys.executable, "-m", "fbd.modbus.bench", "--clients-only",
                           str(port), str(n), str(seconds), "1" if mix else "0"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the client process failed: {done.stderr.strip()}")
    return json.loads(done.stdout)["rps"]


# --------------------------------------------------------------------------- the PLC
class _Timed:
    """Wraps the image's recorder to time it (publishing plus the hand-over)."""

    def __init__(self, image):
        self.image = image
        self.ns = 0
        self.count = 0

    def record(self, s, scan, now_us):
        t0 = time.perf_counter_ns()
        self.image.record(s, scan, now_us)
        self.ns += time.perf_counter_ns() - t0
        self.count += 1


def _phase(plc: Plc, image, seconds: float, during=None):
    """Run the PLC in real time for ``seconds`` (while ``during()`` runs, if given);
    returns (mean scan µs, max scan µs, the result of during)."""
    plc.stats.count = plc.stats.total_ns = plc.stats.max_ns = 0
    stop = threading.Event()
    runner = threading.Thread(target=run_realtime, args=(plc, stop))
    runner.start()
    try:
        if during is None:
            time.sleep(seconds)
            result = None
        else:
            result = during()
    finally:
        stop.set()
        runner.join()
    st = plc.stats
    return st.total_ns / max(st.count, 1) / 1000, st.max_ns / 1000, result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fbd.modbus.bench",
                                description="Requests per second of fbd serve with 1 and 20 "
                                            "clients, and what serving costs the scan.")
    p.add_argument("target", nargs="?", default="2048", metavar="MODULE:FUNCTION|NAME")
    p.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    p.add_argument("--quick", action="store_true", help="one second per measurement")
    p.add_argument("--clients-only", nargs=4, metavar=("PORT", "N", "SECONDS", "MIX"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.clients_only:
        port, n, seconds, mix = args.clients_only
        rps = asyncio.run(_clients(int(port), int(n), float(seconds), mix == "1"))
        print(json.dumps({"rps": rps}))
        return 0

    seconds = 1.0 if args.quick else args.seconds
    net = load_network(resolve(args.target))
    plc = Plc(net, cycle=0.005)
    _say(f"{plc.program.name}: {len(plc.program.leaves)} blocks, 5 ms cycles, "
         f"{seconds:g} s per measurement")

    image = ProcessImage(plc)
    s = plc.main.s
    t0 = time.perf_counter()
    for _ in range(10_000):
        image.record(s, 0, 0)
    hot_us = (time.perf_counter() - t0) / 10_000 * 1e6
    image.detach()

    _say("scan without a server ...")
    bare_mean, bare_max, _ = _phase(plc, None, seconds)

    rows = []
    with ModbusServer(plc, port=0) as server:
        timed = _Timed(server.image)
        traces = plc.main.traces
        traces[traces.index(server.image)] = timed
        _say(f"serving on 127.0.0.1:{server.port}; scan with an idle server ...")
        idle_mean, idle_max, _ = _phase(plc, server.image, seconds)
        image_us = timed.ns / max(timed.count, 1) / 1000
        loaded = None
        for n in (1, 20):
            for mix in (False, True):
                what = "reads" if not mix else "4 reads : 1 write"
                _say(f"{n} client{'s' if n > 1 else ''}, {what} ...")
                mean, worst, rps = _phase(plc, server.image, seconds,
                                          lambda n=n, mix=mix: _client_process(
                                              server.port, n, seconds, mix))
                rows.append((n, what, rps, mean, worst))
                if n == 20 and not mix:
                    loaded = (mean, worst)
        traces[traces.index(timed)] = server.image

    print(f"fbd serve {args.target}: Modbus TCP on 127.0.0.1, PLC scanning every 5 ms, "
          f"clients in another process ({seconds:g} s each)")
    print()
    print(f"{'clients':>7}  {'requests':<18} {'req/s':>8}  {'scan µs mean':>12}  {'max':>8}")
    for n, what, rps, mean, worst in rows:
        print(f"{n:>7}  {what:<18} {rps:>8,.0f}  {mean:>12.1f}  {worst:>8.1f}")
    print()
    print(f"scan without a server     mean {bare_mean:7.1f} µs   max {bare_max:8.1f} µs")
    print(f"scan with an idle server  mean {idle_mean:7.1f} µs   max {idle_max:8.1f} µs")
    print(f"scan with 20 clients      mean {loaded[0]:7.1f} µs   max {loaded[1]:8.1f} µs")
    print(f"process image per scan    {image_us:.1f} µs in real time, {hot_us:.1f} µs back to back "
          f"(publish the outputs, hand writes over; after the scan, outside its time)")
    print("reads: 32 holding registers (FC 3); writes: 2 holding registers (FC 16).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
