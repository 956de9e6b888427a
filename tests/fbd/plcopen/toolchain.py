"""The toolchain Beremiz and OpenPLC build an export with, beside the tests: the
exports it is run on, how it is run, and what it gave (``tests/data/toolchain``).

Beremiz's generator (``beremiz_headless.py``) turns each export into the ST both
editors hand to matiec; matiec's ``iec2c`` compiles that ST to C, which a C
compiler compiles; matiec-oracle (a harness around iec2c's C) runs it scan by
scan. None of them is part of this repository: they are found through
environment variables, and the tests that need them are skipped without them,
saying how to get them. What they produced is checked in, so the default suite
still compares the export against it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import blocks
import fbd
from fbd import BOOL, BYTE, DWORD, LWORD, REAL
from fbd.network import Ref
from fbd.plcopen import to_xml, write_tree
from fbd.plcopen.st_export import project_xml
from fbd.runtime.plc import Plc
from fbd.st.project import load
from programs import demo
from programs.game2048 import Game2048
from programs.game2048 import build as game2048
from programs.hidato.catalog import bundled
from programs.hidato.game import HidatoGame
from programs.hidato.program import build as hidato
from programs.hidato.program import shape_of
from programs.sudoku.files import bundled_puzzles, read_grid
from programs.sudoku.game import SudokuGame
from programs.sudoku.program import build as sudoku
from tests.blocks.test_control import control_loop
from tests.fbd.plcopen.test_writer import store_steps, stores
from tests.paths import ROOT

DATA = ROOT / "tests" / "data" / "toolchain"
CORPUS = ROOT / "tests" / "data" / "st"
HEADLESS = Path(__file__).with_name("beremiz_headless.py")
SCANS = 100
NS = "{http://www.plcopen.org/xml/tc6_0201}"
MARK = "{urn:fbd-sim}name"

#: the corpus programs matiec refuses before any export: the name in the source it
#: refuses (fbd export says which to rename; tests/data/st/README.md)
REFUSED_AT_THE_SOURCE = {
    "corpus__openplc_samples__successed_ST__cex": "the POU P",
    "corpus__openplc_samples__successed_ST__struct_embedding": "the POU G",
}

HOW = {
    "FBD_BEREMIZ_SRC": "a checkout of github.com/beremiz/beremiz (its PLCControler.py, "
                       "PLCGenerator.py, plcopen/, xmlclass/, util/, graphics/, controls/; "
                       "the files were made with commit 9eb53af357cd)",
    "FBD_MATIEC_DIR": "a build of github.com/beremiz/matiec: the directory holding iec2c and "
                      "lib/ (the files were made with 6bb2c339df6f)",
    "FBD_MATIEC_ORACLE": "matiec-oracle's oracle.py, which runs iec2c's C scan by scan "
                         "(given FBD_MATIEC_DIR as its MATIEC_DIR)",
}


def tool(variable: str) -> Path | None:
    """The tool the environment variable names, if it is there."""
    value = os.environ.get(variable)
    if not value:
        return None
    path = Path(value).expanduser()
    checks = {"FBD_BEREMIZ_SRC": path / "PLCControler.py", "FBD_MATIEC_DIR": path / "iec2c",
              "FBD_MATIEC_ORACLE": path}
    return path if checks[variable].is_file() else None


def missing(*variables: str) -> str | None:
    """Why a test needing these tools is skipped, or None when all are at hand."""
    absent = [v for v in variables if tool(v) is None]
    if not absent:
        return None
    return "; ".join(f"set {v} to {HOW[v]}" for v in absent) + \
        " (docs/plcopen.md, 'The toolchain test')"


def writing() -> bool:
    """FBD_TOOLCHAIN_WRITE=1: the toolchain tests write what the tools give into
    tests/data/toolchain instead of comparing (after a deliberate change of the export)."""
    return os.environ.get("FBD_TOOLCHAIN_WRITE") == "1"


# ------------------------------------------------------------------------ targets
@dataclass
class Target:
    """One export: its project tree, and for a program fbd ships, the network and the
    scripted play whose scans are compared (None: built, not run)."""
    name: str
    tree: Callable
    network: Callable | None = None
    play: Callable | None = None

    @property
    def st(self) -> Path:
        return DATA / "generated" / f"{self.name}.st"

    @property
    def scans(self) -> Path:
        return DATA / "scans" / f"{self.name}.json"


def _library_blocks():
    """This library's own blocks (MEMORY on each kind of type, LIFO, FIFO, NEG, F_TRIG
    without its first pulse, NOW), MUL_TIME, DIV_TIME, and shifts and rotations by any
    count: every ST function block the export writes for them, run by matiec."""
    net = stores()
    clock = net.add("clock", blocks.NOW())
    net.output("NOW_OUT", clock.OUT)
    net.output("NOW_SEC", clock.SEC)
    x = Ref(net, "X", "netin")
    for block, value in ((blocks.SHL(LWORD), 0x8000_0000_0000_0001), (blocks.SHR(LWORD), 0x81),
                         (blocks.ROL(LWORD), 0x8000_0000_0000_0003), (blocks.ROR(BYTE), 0x81),
                         (blocks.SHL(BYTE), 0x81), (blocks.ROL(DWORD), 0x8000_0001)):
        name = f"{block.name}_{block.bound_types['T'].name}".lower()
        net.output(name.upper(), net.add(name, block, IN=value, N=x).OUT)
    net.output("SHL_BY_ONE", net.add("shl_by_one", blocks.SHL(LWORD), IN=3, N=1).OUT)
    return net


def _play_library():
    plc = Plc(_library_blocks())
    for step in store_steps(SCANS, seed=29):
        for name, value in step.items():
            plc.set(name, value)
        plc.scan()


def _control_blocks():
    """matiec's control library around a PID in a loop: the PID on a first-order plant
    (tests/blocks/test_control.py), and RAMP, HYSTERESIS, INTEGRAL, DERIVATIVE and SEMA
    driven by inputs: the IEC blocks the export names as they are, run by matiec's own."""
    net = control_loop()
    run, x = net.input("RUN", BOOL), net.input("X", REAL)
    claim, release = net.input("CLAIM", BOOL), net.input("RELEASE", BOOL)
    ramp = net.add("ramp", blocks.RAMP(), RUN=run, X0=1.5, X1=x, TR="T#300ms", CYCLE="T#20ms")
    net.output("RAMP_BUSY", ramp.BUSY)
    net.output("RAMP_XOUT", ramp.XOUT)
    band = net.add("band", blocks.HYSTERESIS(), XIN1=x, XIN2=ramp.XOUT, EPS=0.25)
    net.output("BAND_Q", band.Q)
    integral = net.add("sum", blocks.INTEGRAL(), RUN=run, R1=claim, XIN=x, X0=-2.0,
                       CYCLE="T#20ms")
    net.output("SUM_Q", integral.Q)
    net.output("SUM_XOUT", integral.XOUT)
    slope = net.add("slope", blocks.DERIVATIVE(), RUN=run, XIN=x, CYCLE="T#20ms")
    net.output("SLOPE_XOUT", slope.XOUT)
    net.output("BUSY", net.add("sema", blocks.SEMA(), CLAIM=claim, RELEASE=release).BUSY)
    return net


def _play_control():
    plc = Plc(_control_blocks())
    xs = (0.1, 3.75, -1.2, 12.5, 0.3333, -7.0, 2.0)
    for scan in range(SCANS):
        plc.set("AUTO", scan >= 10)
        plc.set("SP", 80.0 if scan >= 60 else 50.0)
        plc.set("RUN", 5 <= scan < 45 or scan >= 70)
        plc.set("X", xs[scan // 9 % len(xs)])
        plc.set("CLAIM", scan % 23 == 4 or scan == 50)
        plc.set("RELEASE", scan % 17 == 3)
        plc.scan()


def _play_2048(variant):
    def play():
        g = Game2048(seed=0, processing=variant)
        g.start()
        directions = ("left", "up", "right", "down", "left", "down", "right", "up", "up")
        k = 0
        while g.plc.main.scans < SCANS - 15:       # a move takes up to a dozen scans
            g.press(directions[k % len(directions)])
            k += 1
    return play


def _play_traffic_light():
    plc = Plc(_traffic_light())
    plc.set("ENABLE", True)
    plc.scan(70)
    plc.set("ENABLE", False)
    plc.scan(10)


def _traffic_light():
    return demo.traffic_light(red="T#100ms", red_yellow="T#50ms", green="T#100ms",
                              yellow="T#50ms")


def _sudoku_grid():
    return read_grid(bundled_puzzles()[0]["path"])[0]


def _play_sudoku():
    g = SudokuGame(_sudoku_grid())
    g.start()
    g.enter(0, 2, 7)
    g.tap(1, 0)
    g.enter(4, 4, 6)
    g.undo()
    g.clear(0, 2)
    g.enter(0, 2, 3)


def _hidato_board():
    return bundled()["5x5-easy-s1"]


def _play_hidato():
    g = HidatoGame(_hidato_board())
    g.start()
    g.enter(0, 0, 6)
    g.enter(0, 1, 5)
    g.undo()
    g.enter(2, 0, 20)
    g.clear(0, 0)


def targets() -> dict[str, Target]:
    """Every program fbd ships, this library's blocks, and every program of the ST
    corpus (tests/data/st) that loads, by name."""
    out = {}
    for name, make, play in [
            ("2048_single_pass", lambda: game2048("single_pass"), _play_2048("single_pass")),
            ("2048_multi_scan", lambda: game2048("multi_scan"), _play_2048("multi_scan")),
            ("traffic_light", _traffic_light, _play_traffic_light),
            ("sudoku", sudoku, _play_sudoku),
            ("hidato", lambda: hidato(**shape_of(_hidato_board())), _play_hidato),
            ("library_blocks", _library_blocks, _play_library),
            ("control_blocks", _control_blocks, _play_control)]:
        out[name] = Target(name, lambda make=make: to_xml(make()), make, play)
    for path in sorted([*CORPUS.rglob("*.st"), *CORPUS.rglob("*.txt")]):
        if "LICENSES" in path.parts:
            continue
        try:
            if not load(path).blocks:
                continue        # no POU of its own (matiec's library, made of #includes)
        except fbd.FbdError:
            continue            # refused on loading (tests/fbd/st says why): nothing to export
        name = "corpus__" + "__".join(path.relative_to(CORPUS).with_suffix("").parts)
        out[name] = Target(name, lambda p=path: project_xml(load(p)))
    return out


# ------------------------------------------------------------------------ scripts
def record(play) -> list:
    """The inputs a scripted play writes through a facade, as ``[scan, name, value]``
    (written before that scan, 1-based), for :data:`SCANS` scans at most."""
    script, done = [], [0]
    set_, scan = Plc.set, Plc.scan

    def recording_set(plc, name, value):
        script.append([done[0] + 1, name, value])
        set_(plc, name, value)

    def counting_scan(plc, n=1):
        done[0] += n
        scan(plc, n)

    Plc.set, Plc.scan = recording_set, counting_scan
    try:
        play()
    finally:
        Plc.set, Plc.scan = set_, scan
    assert done[0] <= SCANS, f"the scripted play takes {done[0]} scans, more than {SCANS}"
    return script


def written_names(tree, program: str) -> dict:
    """A program's variable names as the export wrote them (what matiec knows them by)."""
    pou = next(p for p in tree.getroot().iter(NS + "pou") if p.get("name") in
               {program, *(m.get("written") for m in tree.getroot().iter(MARK)
                           if m.get("original") == program)})
    names = {}
    for var in pou.iter(NS + "variable"):
        mark = var.find(f"{NS}addData/{NS}data/{MARK}")
        names[mark.get("original") if mark is not None else var.get("name")] = var.get("name")
    return names


def canonical(value, type_name: str):
    """A value of fbd's as compared with matiec's: as it is (REAL is binary32 in both,
    bit for bit), TIME in whole microseconds (fbd's unit)."""
    return value


def from_matiec(row: list, types: list) -> list:
    """A row of matiec-oracle's values as :func:`canonical` has fbd's: its TIME is in
    milliseconds of matiec's nanoseconds, compared at the nanosecond (fbd's TIME
    counts nanoseconds too)."""
    return [round(v * 1_000_000) if tp == "TIME" else v for v, tp in zip(row, types)]


def fbd_rows(network, script) -> tuple[list, list, list]:
    """(columns, types, rows): the network's outputs after each of :data:`SCANS` scans
    with the script's inputs, as :func:`canonical` has them."""
    plc = Plc(network)
    columns = list(network.outputs)
    types = [plc.program.signals[name].type.name for name in columns]
    writes: dict[int, list] = {}
    for scan, name, value in script:
        writes.setdefault(scan, []).append((name, value))
    rows = []
    for k in range(1, SCANS + 1):
        for name, value in writes.get(k, ()):
            plc.set(name, value)
        plc.scan()
        rows.append([canonical(plc.get_raw(c), tp) for c, tp in zip(columns, types)])
    return columns, types, rows


# ------------------------------------------------------------------------ the tools
def export(target: Target, path: Path):
    tree = target.tree()
    write_tree(tree, path)
    return tree


def beremiz_st(xml: Path, out: Path) -> None:
    """Beremiz's ST for the project ``xml``; AssertionError with its refusal."""
    r = subprocess.run([sys.executable, str(HEADLESS), str(tool("FBD_BEREMIZ_SRC")), str(xml),
                        str(out)], capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stderr.strip()[-2000:]


def build(st: Path, work: Path) -> None:
    """iec2c as Beremiz runs it (-f -l -p), then the C compiler on every file it wrote;
    AssertionError with the first tool's complaint."""
    matiec = tool("FBD_MATIEC_DIR")
    work.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([str(matiec / "iec2c"), "-f", "-l", "-p", "-I", str(matiec / "lib"),
                        "-T", str(work), str(st)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"iec2c: {(r.stdout + r.stderr).strip()[-2000:]}"
    # POUS.c is compiled inside each resource's file, which includes it, as Beremiz
    # builds it; a project without a configuration has none, so it is included alone
    sources = sorted(p for p in work.glob("*.c") if p.name != "POUS.c")
    if not any('#include "POUS.c"' in p.read_text() for p in sources):
        alone = work / "pous_alone.c"
        alone.write_text('#include "POUS.h"\n#include "POUS.c"\n')
        sources.append(alone)
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "no C compiler (cc, gcc) on the PATH"
    r = subprocess.run([cc, "-c", "-w", "-I", str(matiec / "lib" / "C"), *map(str, sources)],
                       cwd=work, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"the C compiler: {r.stderr.strip()[-2000:]}"


def oracle_rows(st: Path, script, columns, names: dict) -> list:
    """matiec's values of ``columns`` (the network's outputs, watched under the names
    the export wrote) after each scan, the script's inputs set before theirs."""
    args = [sys.executable, str(tool("FBD_MATIEC_ORACLE")), str(st), "--scans", str(SCANS),
            "--format", "json"]
    for scan, name, value in script:
        text = ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value)
        args += ["--set", f"{names[name]}={text}@{scan}"]
    for c in columns:
        args += ["--watch", names[c]]
    env = dict(os.environ, MATIEC_DIR=str(tool("FBD_MATIEC_DIR")))
    r = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env)
    assert r.returncode == 0, r.stderr.strip()[-2000:]
    scans = json.loads(r.stdout)["scans"]
    return [[row["values"][names[c]] for c in columns] for row in scans]


def write_scans(target: Target, record: dict) -> None:
    """The record as JSON, a line per scan row and per script entry (readable diffs)."""
    lines = []
    for key, value in record.items():
        if key in ("script", "rows"):
            inner = ",\n".join(json.dumps(item) for item in value)
            lines.append(f"{json.dumps(key)}: [\n{inner}\n]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    target.scans.parent.mkdir(parents=True, exist_ok=True)
    target.scans.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def versions() -> dict:
    """The version of the tools at hand that ran the checked-in ST."""
    r = subprocess.run([str(tool("FBD_MATIEC_DIR") / "iec2c"), "-v"], capture_output=True,
                       text=True)
    return {"matiec": ", ".join((r.stdout + r.stderr).split("\n")).strip(", ")}
