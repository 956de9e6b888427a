"""What monitored items cost ``fbd serve --opcua``'s scan: the real-time schedule of
2048 while OPC UA clients watch it (docs/performance.md, *OPC UA*).

``python -m fbd.opcua.bench [TARGET] [--seconds S] [--quick] [--clients 10]
[--items 2000,10000,...] [--sampling 100,1000] [--rounds N] [--realtime-priority P]``
serves TARGET (default 2048) on a PLC scanning every 5 ms in real time (at
real-time priority P if given), and for each sampling interval and total of
monitored items, spread over the clients (each watches its share of the served
variables, all of them if there are fewer, repeated), measures for S seconds,
once every subscription is made (N rounds, each with its own no-server and
idle rows, so that rows are compared with rows of the same minutes):

* the scan's schedule (:func:`fbd.runtime.schedule.measure`): the period
  between scan starts (mean, 99th percentile; nominal 5 ms), the scans that
  started late and the cycles skipped, the mean scan and the server process's
  CPU (the PLC and the server share it);
* the notifications the clients received per second, while one more client
  plays the game (a move every 100 ms, as a SCADA operator would not), so
  the board's values change.

The clients run in another process (asyncua's client, one event loop), so
their cost is not the server's. Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time

from ..loading import load_network
from ..modbus.serve import resolve
from ..runtime.plc import Plc
from ..runtime.realtime import SKIP, RealtimeRunner
from ..runtime.schedule import measure
from .server import OpcuaServer

CYCLE_MS = 5


def _say(text: str) -> None:
    print(f"opcua_bench: {text}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------ the clients
async def _clients(url: str, paths: list, n: int, items: int, sampling_ms: float,
                   seconds: float, play: list | None) -> dict:
    from asyncua import Client, ua
    received = [0]

    class Handler:
        def datachange_notification(self, node, value, data):
            received[0] += 1

    async def one(k: int, ready: asyncio.Event, done: asyncio.Event):
        share = items // n + (1 if k < items % n else 0)
        chosen = [paths[(k * share + j) % len(paths)] for j in range(share)]
        async with Client(url, timeout=600) as client:
            sub = await client.create_subscription(ua.CreateSubscriptionParameters(
                RequestedPublishingInterval=sampling_ms, RequestedMaxKeepAliveCount=100,
                RequestedLifetimeCount=1000, MaxNotificationsPerPublish=0,
                PublishingEnabled=True, Priority=0), Handler())
            nodes = [client.get_node(ua.NodeId(p, 2)) for p in chosen]
            for start in range(0, len(nodes), 1000):
                await sub.subscribe_data_change(nodes[start:start + 1000],
                                                sampling_interval=sampling_ms)
            ready.set()
            await done.wait()

    async def player(done: asyncio.Event):
        async with Client(url, timeout=600) as client:
            cmd, seq = (client.get_node(ua.NodeId(p, 2)) for p in play)
            k = 0
            while not done.is_set():
                k += 1
                move = 5 if k == 1 else 1 + k % 4
                await cmd.write_value(ua.DataValue(ua.Variant(move, ua.VariantType.Int16)))
                await seq.write_value(ua.DataValue(ua.Variant(k % 30000, ua.VariantType.Int16)))
                await asyncio.sleep(0.1)

    readies = [asyncio.Event() for _ in range(n)]
    done = asyncio.Event()
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(one(k, readies[k], done)) for k in range(n)]
    for ready, task in zip(readies, tasks):
        waiter = asyncio.create_task(ready.wait())
        await asyncio.wait([waiter, task], return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            task.result()               # a client that failed: its error
    subscribed = time.perf_counter() - t0
    print("ready", flush=True)
    playing = asyncio.create_task(player(done)) if play else None
    received[0] = 0
    cpu0 = time.process_time()
    await asyncio.sleep(seconds)
    count = received[0]
    cpu = (time.process_time() - cpu0) / seconds
    done.set()
    await asyncio.gather(*tasks, *([playing] if playing else []))
    return {"subscribed_s": subscribed, "notifications": count / seconds, "cpu": cpu}


def _client_process(url, paths, n, items, sampling_ms, seconds, play) -> subprocess.Popen:
    spec = json.dumps([url, paths, n, items, sampling_ms, seconds, play])
    proc = subprocess.Popen([sys.executable, "-m", "fbd.opcua.bench", "--clients-only"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write(spec)
    proc.stdin.close()
    return proc


def _cpu_seconds(pid: int | None) -> float:
    """CPU seconds a process has used (Linux's /proc; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return 0.0


def _row(label: str, schedule: dict | None, clients: bool = True) -> str:
    if schedule is None:
        return f"{label:<32} {'-':>6}  {'lost':>8}  (the clients could not subscribe in time)"
    c = schedule["result"]
    if c:
        load = f"{c['subscribed_s']:>6.1f}  {c['notifications']:>8,.0f}"
    else:
        load = f"{'-':>6}  {'lost' if clients else '-':>8}"
    return (f"{label:<32} {load}  {schedule['period_ms']:>6.2f}  {schedule['period_p99_ms']:>6.2f}"
            f"  {schedule['late']:>5,}  {schedule['skipped']:>6,}  {schedule['scan_us']:>6.0f}"
            f"  {schedule['cpu'] * 100:>4.0f}%  {schedule.get('server_cpu', 0) * 100:>5.0f}%"
            f"  {(c or {}).get('cpu', 0) * 100:>6.0f}%")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m fbd.opcua.bench",
                                description="The scan's real-time schedule while OPC UA "
                                            "clients monitor a served program.")
    p.add_argument("target", nargs="?", default="2048", metavar="MODULE:FUNCTION|NAME")
    p.add_argument("--seconds", type=float, default=10.0, help="length of each measurement")
    p.add_argument("--quick", action="store_true", help="two seconds per measurement")
    p.add_argument("--clients", type=int, default=10, help="clients sharing the items")
    p.add_argument("--items", default="2000,5000,10000,20000",
                   help="totals of monitored items to measure, comma-separated")
    p.add_argument("--sampling", default="100,1000",
                   help="sampling (and publishing) intervals in ms, comma-separated")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure every row this many times, interleaved (a round: no server, "
                        "a server idle, then each load), to compare rows in the same minutes")
    p.add_argument("--realtime-priority", type=int, default=None, metavar="N",
                   help="scan at Linux's real-time priority N, as fbd serve "
                        "--realtime-priority does (root or CAP_SYS_NICE)")
    p.add_argument("--clients-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.clients_only:
        spec = json.loads(sys.stdin.read())
        print(json.dumps(asyncio.run(_clients(*spec))), flush=True)
        return 0
    try:
        totals = [int(x) for x in args.items.split(",")]
        samplings = [float(x) for x in args.sampling.split(",")]
    except ValueError:
        p.error("--items and --sampling take numbers separated by commas")
    seconds = 2.0 if args.quick else args.seconds
    priority = args.realtime_priority
    if priority is not None:
        from ..errors import FbdError
        from ..runtime.realtime import check_priority
        try:
            check_priority(priority)
        except FbdError as e:
            p.error(str(e))
    plc = Plc(load_network(resolve(args.target)), cycle=CYCLE_MS / 1000)
    _say(f"{plc.program.name}: {len(plc.program.leaves)} blocks, {CYCLE_MS} ms cycles, "
         f"{seconds:g} s per measurement"
         + (f", scans at real-time priority {priority}" if priority else ""))
    rows = []
    for _round in range(args.rounds):
        rows.extend(_round_rows(plc, args, seconds, totals, samplings, priority))
    print(f"fbd serve {args.target} --opcua: {CYCLE_MS} ms scans in real time (--missed-cycles "
          f"skip), {args.clients} clients sharing the monitored items in another process, one "
          f"more playing a move every 100 ms, {seconds:g} s each")
    print()
    print(f"{'':<32} {'subscr':>6}  {'notif':>8}  {'scan period ms':^14}  {'':>5}  {'cycles':>6}"
          f"  {'scan':>6}  {'CPU':^22}")
    print(f"{'':<32} {'s':>6}  {'per s':>8}  {'mean':>6}  {'p99':>6}  {'late':>5}  {'skipped':>6}"
          f"  {'µs':>6}  {'PLC':>5}  {'server':>6}  {'clients':>7}")
    for row in rows:
        print(row)
    print()
    print("subscr: time to connect and subscribe every client; notif: notifications the "
          "clients received a second; lost: the clients lost their connections (the "
          "server did not answer in time); CPU: of one core, the PLC's process (with the "
          "publishing thread), the OPC UA server's and the clients'.")
    return 0


def _round_rows(plc, args, seconds: float, totals, samplings, priority) -> list:
    """One round of rows: no server, a server started and idle, then each load of
    monitored items on it; the server stops at the end of the round."""
    rows = [_row("no server", measure(plc, SKIP, seconds, priority=priority), False)]
    t0 = time.perf_counter()
    server = OpcuaServer(plc, port=0).start()
    started = time.perf_counter() - t0
    try:
        paths = [v.path for v in server.space.variables]
        inputs = {v.name: v.path for v in server.space.variables if v.writable}
        play = [inputs["CMD"], inputs["CMD_SEQ"]] if {"CMD", "CMD_SEQ"} <= set(inputs) else None
        _say(f"serving {len(paths):,} variables at {server.endpoint} (started in "
             f"{started:.1f} s); idle ...")
        cpu0 = _cpu_seconds(server._child.pid)
        idle = measure(plc, SKIP, seconds, priority=priority)
        idle["server_cpu"] = (_cpu_seconds(server._child.pid) - cpu0) / seconds
        rows.append(_row("idle server", idle, False))
        for sampling in samplings:
            for total in totals:
                if total == 0:
                    continue        # the idle row
                label = f"{total:,} items @ {sampling:g} ms"
                _say(f"{label} ({args.clients} clients) ...")
                proc = _client_process(server.endpoint, paths, args.clients, total, sampling,
                                       seconds, play)
                rows.append(_row(label, _measured(plc, proc, server._child.pid, priority)))
    finally:
        server.stop()
    return rows


def _results(proc) -> dict:
    """The clients' figures; None when they failed (lost their connections to a
    server too busy to answer in time: the row says so)."""
    out = proc.stdout.read()
    proc.stdout.close()
    if proc.wait() != 0:
        return None
    return json.loads(out)


def _measured(plc, proc, server_pid: int, priority: int | None = None) -> dict:
    """The schedule from the clients' 'ready' (every subscription made) to their end;
    the PLC runs in real time before, while they connect and subscribe, too."""
    stop = threading.Event()
    runner = threading.Thread(target=RealtimeRunner(plc, SKIP, priority=priority).run,
                              args=(stop,))
    runner.start()
    try:
        line = proc.stdout.readline()
    finally:
        stop.set()
        runner.join()
    if line.strip() != "ready":
        proc.stdout.close()
        proc.wait()
        return None         # the clients could not subscribe: no window to measure
    cpu0, t0 = _cpu_seconds(server_pid), time.perf_counter()
    schedule: dict | None = measure(plc, SKIP, 0, lambda: _results(proc), priority)
    schedule["server_cpu"] = (_cpu_seconds(server_pid) - cpu0) / (time.perf_counter() - t0)
    return schedule


if __name__ == "__main__":
    sys.exit(main())
