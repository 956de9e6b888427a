"""``fbd serve --retain FILE`` keeps a program's RETAIN counter through ``kill -9``
at any instant (the file is never torn, the counter never goes back), and
``--reload-on-change`` loads a changed program into the running server. No
timed assertions: every wait ends on what it waits for, with a deadline a
passing run never reaches."""

import random
import signal
import subprocess
import time
from pathlib import Path

from pymodbus.client import ModbusTcpClient

from fbd.runtime import snapshot
from tests.fbd.modbus.test_modbus import fbd_process

COUNTER = """
PROGRAM prg
VAR RETAIN n : DINT; END_VAR
VAR count AT %MD0 : DINT; lamp AT %QX0.0 : BOOL; END_VAR
n := n + 1; count := n; lamp := NOT lamp;
END_PROGRAM
"""


def serve(program, *options):
    """``fbd serve PROGRAM --port 0 --cycle 1ms OPTIONS`` (see fbd_process)."""
    return fbd_process("serve", str(program), "--port", "0", "--cycle", "1ms", *options)


def lines_until(proc: subprocess.Popen, marker: str) -> list[str]:
    """stderr lines up to the one holding ``marker`` (the server's start line)."""
    seen = []
    while True:
        line = proc.stderr.readline()
        assert line, f"fbd serve ended before {marker!r}: {''.join(seen)}"
        seen.append(line)
        if marker in line:
            return seen


def saved_n(path: Path) -> int | None:
    snap = snapshot.read(str(path))     # raises if the file were torn
    return None if snap is None else snap.variables["prg.n"][2]


def wait_for_save_past(path: Path, n: int | None) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = saved_n(path)
        if now is not None and (n is None or now > n):
            return now
        time.sleep(0.005)
    raise AssertionError(f"no snapshot past {n} within a minute")


def test_a_retain_counter_survives_kill_9_during_saves(tmp_path):
    program = tmp_path / "counter.st"
    program.write_text(COUNTER)
    retain = tmp_path / "counter.retain"
    rng = random.Random(61131)
    last = None
    for round_ in range(8):
        # a save after every scan: the writer is nearly always in the middle of one
        with serve(program, "--retain", str(retain), "--retain-period", "0.001") as proc:
            start = lines_until(proc, "over Modbus TCP")
            if last is None:
                assert "no " in start[0] and "yet" in start[0], start
            else:
                assert f"restored from {retain} (saved at scan" in start[0], start
            progressed = wait_for_save_past(retain, last)
            assert last is None or progressed > last
            time.sleep(rng.uniform(0, 0.05))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        now = saved_n(retain)                # a complete snapshot, never a torn one
        assert now >= progressed, (round_, now, progressed)
        last = now
    # an orderly stop saves the last value: the next start reads exactly it
    with serve(program, "--retain", str(retain)) as proc:
        lines_until(proc, "over Modbus TCP")
        wait_for_save_past(retain, last)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        rest = proc.stderr.read()
    assert "fbd: retain: 1 variable saved to" in rest and "Traceback" not in rest
    assert not list(tmp_path.glob("*.tmp"))


def test_a_foreign_retain_file_stops_fbd_serve_with_one_line(tmp_path):
    program = tmp_path / "counter.st"
    program.write_text(COUNTER)
    retain = tmp_path / "counter.retain"
    retain.write_text("n = 5\n")
    with serve(program, "--retain", str(retain)) as proc:
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 2
    assert err == f"fbd: error: {retain}: not a retain file (it does not begin with " \
                  f"'fbd-retain'); move it away to start cold\n"


def test_reload_on_change_loads_the_changed_program_keeping_the_counter(tmp_path):
    program = tmp_path / "counter.st"
    program.write_text(COUNTER)
    with serve(program, "--reload-on-change") as proc:
        first = lines_until(proc, "over Modbus TCP")[-1]
        port = int(first.split("127.0.0.1:")[1].split(",")[0])
        with ModbusTcpClient("127.0.0.1", port=port, timeout=5) as client:
            def count():
                words = client.read_holding_registers(2048, count=2).registers
                return words[0] << 16 | words[1]
            program.write_text(COUNTER.replace("count := n;", "count := n +"))   # broken
            assert "the running program is unchanged" in proc.stderr.readline()
            before = count()
            program.write_text(COUNTER.replace("count := n;", "count := -n;"))
            change = proc.stderr.readline()
            assert change.startswith(f"fbd: reload: {program}: online change of prg: ")
            assert "0 initialised, 0 dropped" in change
            deadline = time.monotonic() + 60
            while count() < 1 << 31 and time.monotonic() < deadline:
                time.sleep(0.005)
            after = (1 << 32) - count()          # -n in two's complement: n went on
            assert after > before > 0
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
