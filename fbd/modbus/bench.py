"""How ``fbd serve`` holds up under load: requests per second, latency, and what the
clients cost the scan's real-time schedule.

``python -m fbd.modbus.bench [TARGET] [--seconds S] [--quick] [--clients 1,20,50,200]``
serves TARGET (default ``2048``, resolved as ``fbd serve`` resolves it) on a
PLC scanning every 5 ms in real time (:class:`~fbd.runtime.realtime.RealtimeRunner`,
``skip`` policy unless ``--missed-cycles catch-up``), and for each number of clients measures, for S seconds:

* requests per second, and the latency of each request (from sending it to
  its reply: median, 99th percentile, worst), each client sending its next
  request as soon as the last reply is in: four reads of the 32 board
  registers (FC 3) for one write of two registers (FC 16). One more row has
  20 clients sending ten requests at a time (pipelined);
* the scan's schedule meanwhile: the wall-clock period between scan starts
  (mean and 99th percentile; nominal 5 ms), the scans that started late and
  the cycles skipped (:class:`~fbd.runtime.plc.ScanStats`), and the drift of
  simulated time against the wall clock (with ``skip`` it stays within a
  cycle: the time of skipped cycles is jumped over, not lost; with
  ``catch-up`` it is how far behind the schedule the phase ended).

The clients run in a second process (two cores: one for them, one for the
server and the PLC, which share the interpreter lock) and speak raw Modbus TCP
over asyncio streams, so their own cost is small. Progress goes to stderr, the
table to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import struct
import subprocess
import sys
import time

from ..loading import load_network
from ..runtime.plc import Plc
from ..runtime.realtime import POLICIES, SKIP
from ..runtime.schedule import measure
from .serve import resolve
from .server import ModbusServer

BOARD = (3, 2048, 32)   # function code, address, count: the 2048 board
CYCLE_MS = 5


def _say(text: str) -> None:
    print(f"modbus_bench: {text}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------ the clients
async def _client(port: int, seconds: float, depth: int, latencies: list, counts: list,
                  index: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    read = struct.pack(">HHHBBHH", 0, 0, 6, 1, *BOARD)
    write = struct.pack(">HHHBBHHBHH", 0, 0, 11, 1, 16, 1024, 2, 4, 0, 0)
    end = time.perf_counter() + seconds
    n = 0
    try:
        while time.perf_counter() < end:
            batch = b"".join(write if (n + k) % 5 == 4 else read for k in range(depth))
            t0 = time.perf_counter()
            writer.write(batch)
            for _ in range(depth):
                head = await reader.readexactly(7)
                body = await reader.readexactly(struct.unpack(">H", head[4:6])[0] - 1)
                if body[0] & 0x80:
                    raise RuntimeError(f"exception response {body.hex()}")
                latencies.append(time.perf_counter() - t0)
            n += depth
    finally:
        counts[index] = n
        writer.close()
        await writer.wait_closed()


async def _clients(port: int, n: int, seconds: float, depth: int) -> dict:
    counts = [0] * n
    latencies: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(_client(port, seconds, depth, latencies, counts, i)
                           for i in range(n)))
    elapsed = time.perf_counter() - t0
    latencies.sort()
    pick = (lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000) \
        if latencies else (lambda q: 0.0)
    return {"rps": sum(counts) / elapsed, "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "max_ms": latencies[-1] * 1000 if latencies else 0.0}


def _client_process(port: int, n: int, seconds: float, depth: int) -> dict:
    """Run ``n`` clients in another process for ``seconds``; their figures."""
    done = subprocess.run([sys.executable, "-m", "fbd.modbus.bench", "--clients-only",
                           str(port), str(n), str(seconds), str(depth)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the client process failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def _row(label: str, clients: dict | None, schedule: dict) -> str:
    c = clients or {}
    load = (f"{c['rps']:>8,.0f}  {c['p50_ms']:>6.2f}  {c['p99_ms']:>6.2f}  {c['max_ms']:>7.1f}"
            if clients else f"{'-':>8}  {'-':>6}  {'-':>6}  {'-':>7}")
    return (f"{label:<25} {load}  {schedule['period_ms']:>6.2f}  {schedule['period_p99_ms']:>6.2f}"
            f"  {schedule['late']:>5,}  {schedule['skipped']:>6,}  "
            f"{schedule['drift'] * 100:>+6.2f}%")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fbd.modbus.bench",
                                description="Requests per second, latency and the scan's "
                                            "real-time schedule of fbd serve under load.")
    p.add_argument("target", nargs="?", default="2048", metavar="MODULE:FUNCTION|NAME")
    p.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    p.add_argument("--quick", action="store_true", help="one second per measurement")
    p.add_argument("--clients", default="1,20,50,200",
                   help="the numbers of clients to measure, comma-separated")
    p.add_argument("--missed-cycles", default=SKIP, choices=POLICIES,
                   help="the real-time policy of the PLC (default skip, as fbd serve's)")
    p.add_argument("--clients-only", nargs=4, metavar=("PORT", "N", "SECONDS", "DEPTH"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.clients_only:
        port, n, seconds, depth = args.clients_only
        print(json.dumps(asyncio.run(_clients(int(port), int(n), float(seconds), int(depth)))))
        return 0
    try:
        counts = [int(n) for n in args.clients.split(",")]
    except ValueError:
        p.error(f"--clients {args.clients!r}: numbers separated by commas")
    if not counts or min(counts) < 1 or max(counts) > 1000:
        p.error("--clients: each between 1 and 1000")

    seconds = 1.0 if args.quick else args.seconds
    net = load_network(resolve(args.target))
    plc = Plc(net, cycle=CYCLE_MS / 1000)
    _say(f"{plc.program.name}: {len(plc.program.leaves)} blocks, {CYCLE_MS} ms cycles, "
         f"{seconds:g} s per measurement")

    rows = []
    _say("no server ...")
    rows.append(_row("no server", None, measure(plc, args.missed_cycles, seconds)))
    with ModbusServer(plc, port=0, max_clients=max(counts) + 10) as server:
        _say(f"serving on 127.0.0.1:{server.port}; idle ...")
        rows.append(_row("idle server", None, measure(plc, args.missed_cycles, seconds)))
        plan = [(n, 1) for n in counts] + ([(20, 10)] if 20 in counts else [])
        for n, depth in plan:
            label = f"{n} client{'s' if n > 1 else ''}" + (f", {depth} at a time"
                                                           if depth > 1 else "")
            _say(f"{label} ...")
            schedule = measure(plc, args.missed_cycles, seconds, lambda n=n, depth=depth: _client_process(
                server.port, n, seconds, depth))
            rows.append(_row(label, schedule["result"], schedule))

    print(f"fbd serve {args.target}: Modbus TCP on 127.0.0.1, {CYCLE_MS} ms scans in real time "
          f"(--missed-cycles {args.missed_cycles}), clients in another process, {seconds:g} s "
          f"each")
    print()
    print(f"{'':<25} {'':>8}  {'latency ms':^23}  {'scan period ms':^14}  {'':>5}  {'cycles':>6}  "
          f"{'sim':>7}")
    print(f"{'':<25} {'req/s':>8}  {'p50':>6}  {'p99':>6}  {'max':>7}  {'mean':>6}  {'p99':>6}  "
          f"{'late':>5}  {'skipped':>6}  {'drift':>7}")
    for row in rows:
        print(row)
    print()
    print("requests: 4 reads of 32 holding registers (FC 3) : 1 write of 2 (FC 16); each client "
          "sends its next request (or ten) when the replies are in.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
