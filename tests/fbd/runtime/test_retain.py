"""RETAIN, NON_RETAIN and PERSISTENT: which variables are retained (from ST, PLCopen
and Python networks, inside FB instances too), and the retain file that keeps
them (atomic, refused whole when torn or foreign, restored by path and type)."""

import hashlib
import json
import os

import pytest

import blocks
from fbd import BOOL, DINT, INT, Network, Plc
from fbd.errors import FbdError, WiringError
from fbd.runtime import snapshot
from fbd.runtime.retain import carry, convert, qualifiers, retained
from fbd.st.project import load
from fbd.types import STRING, string_of

COUNTERS = """
FUNCTION_BLOCK Cnt
VAR RETAIN kept : INT; END_VAR
VAR NON_RETAIN lost : INT; END_VAR
VAR plain : INT; END_VAR
kept := kept + 1; lost := lost + 1; plain := plain + 1;
END_FUNCTION_BLOCK
PROGRAM prg
VAR RETAIN n : INT; c1 : Cnt; tmr : TON; END_VAR
VAR c2 : Cnt; m : INT; END_VAR
VAR PERSISTENT total : DINT; END_VAR
VAR RETAIN PERSISTENT recipe : INT := 7; END_VAR
VAR_OUTPUT RETAIN o : INT; END_VAR
VAR_TEMP scratch : INT; END_VAR
n := n + 1; m := m + 1; total := total + 1; c1(); c2(); o := n;
END_PROGRAM
"""


def st_plc(source: str = COUNTERS, program: str = "prg", **kw) -> Plc:
    return Plc(load("prog.st", text=source).network(program), **kw)


def test_st_qualifiers_mark_variables_and_fb_instances_as_iec_says():
    # matiec's C for this program (iec2c 6bb2c339df6f) passes retain=1 to the
    # instances declared RETAIN and lets their own RETAIN variables say 1:
    #   CNT_init__(&data__->C1,1); TON_init__(&data__->TMR,1); __INIT_VAR(data__->KEPT,0,1)
    # but gives NON_RETAIN LOST the instance's flag (retained inside C1). IEC
    # 61131-3 makes an explicit NON_RETAIN win, and so does fbd (docs/retain.md).
    marked = qualifiers(st_plc().program)
    assert {p: q for p, q in marked.items() if q != "NON_RETAIN"} == {
        "prg.n": "RETAIN", "prg.o": "RETAIN", "prg.total": "PERSISTENT",
        "prg.recipe": "PERSISTENT",
        "prg.c1.kept": "RETAIN", "prg.c1.plain": "RETAIN",
        "prg.c2.kept": "RETAIN",
        **{f"prg.tmr.{v}": "RETAIN" for v in ("IN", "PT", "Q", "ET", "M", "START")}}
    assert marked["prg.c1.lost"] == marked["prg.c2.lost"] == "NON_RETAIN"
    assert marked["prg.scratch"] == "NON_RETAIN"      # a VAR_TEMP never is
    assert "prg.m" not in marked and "prg.c2.plain" not in marked


def test_persistent_is_a_name_where_it_is_not_the_qualifier():
    # CODESYS reserves the word; matiec does not know it, so it stays a name
    # everywhere but right after VAR (and VAR_GLOBAL)
    plc = st_plc("PROGRAM prg VAR x, persistent : INT; END_VAR\n"
                 "persistent := persistent + 1; x := persistent; END_PROGRAM")
    plc.scan(2)
    assert plc.retained == [] and plc.get("prg.x") == 2
    with pytest.raises(FbdError, match="VAR_INPUT PERSISTENT is not allowed"):
        st_plc("FUNCTION_BLOCK f VAR_INPUT PERSISTENT a : INT; END_VAR a := 1; "
               "END_FUNCTION_BLOCK\nPROGRAM prg VAR x : f; END_VAR x(); END_PROGRAM")


def test_a_python_network_marks_an_instance_or_an_input_retained():
    inner = Network("Inner")
    inner.output("CV", inner.add("ctu", blocks.CTU(), CU=inner.input("CU", BOOL), PV=5).CV)
    net = Network("prg")
    cu = net.input("CU", BOOL)
    setpoint = net.input("SETPOINT", INT, 0)
    net.add("a", inner, CU=cu)
    net.add("b", inner, CU=cu)
    net.add("c", blocks.CTU(), CU=cu, PV=setpoint)
    net.output("CV", net["a"].CV)
    net.retain("a")
    net.retain("c", "PERSISTENT")
    net.retain("SETPOINT")
    inner.retain("ctu", "NON_RETAIN")       # inner's own word wins over a's...
    with pytest.raises(WiringError, match="neither an instance nor an input"):
        net.retain("nothing")
    with pytest.raises(WiringError, match="one of RETAIN, PERSISTENT, NON_RETAIN"):
        net.retain("a", "FOREVER")
    marked = qualifiers(Plc(net).program)
    assert marked["SETPOINT"] == "RETAIN" and marked["c.CV"] == "PERSISTENT"
    assert marked["a.ctu.CV"] == marked["b.ctu.CV"] == "NON_RETAIN"   # wherever placed
    del inner.retains["ctu"]                  # ...and without it a's RETAIN reaches inside
    marked = qualifiers(Plc(net).program)
    assert marked["a.ctu.CV"] == "RETAIN" and "b.ctu.CV" not in marked


def test_a_block_type_declares_its_own_retained_state():
    class KEEP(blocks.CTU):
        type_name = "KEEP_CTU"
        retain = {"CV": "PERSISTENT"}
    net = Network("prg")
    net.output("CV", net.add("k", KEEP(), CU=net.input("CU", BOOL), PV=5).CV)
    assert [(v.path, v.qualifier) for v in retained(Plc(net).program)] == [
        ("k.CV", "PERSISTENT")]


def test_plcopen_retain_and_persistent_groups_are_read_in_st_and_fbd_pous(tmp_path):
    import fbd
    from tests.fbd.plcopen import files as f
    iface = (f.group("localVars", f.var("n", "INT"), attrs=' retain="true"')
             + f.group("localVars", f.var("p", "INT"), attrs=' persistent="true"')
             + f.group("localVars", f.var("m", "INT")))
    text = "n := n + 1; p := p + 1; m := m + 1;"
    fbd_body = (f.inv(1, "n") + f.inv(2, "1")
                + f.block(3, "ADD", {"IN1": (1, None), "IN2": (2, None)}, ["OUT"])
                + f.outv(4, "n", 3, pin="OUT"))
    path = tmp_path / "p.xml"
    path.write_text(f.HEAD + f.st_pou("textual", iface, text) + f.pou("graphical", iface, fbd_body)
                    + f.TAIL)
    project = fbd.load(path)
    plc = Plc(project.network("textual"))
    assert {v.path: v.qualifier for v in plc.retained} == {"textual.n": "RETAIN",
                                                            "textual.p": "PERSISTENT"}
    plc = Plc(project.network("graphical"))     # n lives in the block that writes it last
    assert [(v.path, v.qualifier) for v in plc.retained] == [("p", "PERSISTENT"),
                                                             ("n_w.OUT", "RETAIN")]
    plc.scan(3)
    assert plc.get("n") == 3


# ---------------------------------------------------------------- restarts
def counts(plc: Plc) -> tuple:
    return tuple(plc.get(p) for p in ("prg.n", "prg.m", "prg.total", "prg.recipe",
                                      "prg.c1.kept", "prg.c1.lost", "prg.c2.kept",
                                      "prg.c2.plain", "o"))


def test_warm_keeps_retain_and_persistent_cold_persistent_origin_nothing():
    plc = st_plc()
    plc.scan(3)
    plc.write("prg.recipe", 42)
    #          n  m total recipe c1.kept c1.lost c2.kept c2.plain o
    assert counts(plc) == (3, 3, 3, 42, 3, 3, 3, 3, 3)
    plc.restart(cold=False)
    assert counts(plc) == (3, 0, 3, 42, 3, 0, 3, 0, 3)
    plc.scan()
    assert counts(plc) == (4, 1, 4, 42, 4, 1, 4, 1, 4)
    plc.restart()                                   # cold
    assert counts(plc) == (0, 0, 4, 42, 0, 0, 0, 0, 0)
    plc.scan()
    plc.restart(origin=True)
    assert counts(plc) == (0, 0, 0, 7, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_warm_restart_out_of_a_fault_keeps_the_retained_count_as_the_faulting_scan_left_it(
        engine):
    if engine == "native":
        pytest.importorskip("llvmlite")
    plc = st_plc("PROGRAM prg VAR RETAIN n : INT; END_VAR VAR a : ARRAY[1..3] OF INT; i : INT;\n"
                 "END_VAR n := n + 1; i := i + 1; a[i] := n; END_PROGRAM", engine=engine)
    plc.scan(3)
    with pytest.raises(FbdError, match="outside 1..3"):
        plc.scan()                                  # a[4]: the PLC is in FAULT
    plc.restart(cold=False)
    # the faulting scan wrote n := 4 in place before a[4] stopped it (docs/retain.md)
    assert (plc.get("prg.n"), plc.get("prg.i")) == (4, 0)
    plc.scan()
    assert plc.get("prg.n") == 5


def test_a_restarted_python_network_keeps_its_retained_block_and_input():
    net = Network("prg")
    setpoint = net.input("SETPOINT", INT, 0)
    net.output("CV", net.add("c", blocks.CTU(), CU=net.input("CU", BOOL), PV=setpoint).CV)
    net.retain("c")
    net.retain("SETPOINT")
    plc = Plc(net)
    plc.set("SETPOINT", 9)
    for level in (True, False, True):
        plc.set("CU", level)
        plc.scan()
    plc.restart(cold=False)
    assert (plc.get("c.CV"), plc.get("CV"), plc.get("SETPOINT")) == (2, 2, 9)
    plc.scan()          # CU is the process's TRUE again: no edge, the count stays
    assert (plc.get("c.CV"), plc.get("CU")) == (2, True)


# ---------------------------------------------------------------- carrying values
@pytest.mark.parametrize("old, new, value, carried", [
    (INT, DINT, -5, (-5, "converted")), (INT, INT, 7, (7, "kept")),
    ("SINT", INT, 3, (3, "converted")), ("UINT", DINT, 65535, (65535, "converted")),
    ("INT", "REAL", 300, (300.0, "converted")), ("REAL", "LREAL", 0.5, (0.5, "converted")),
    ("BYTE", "WORD", 255, (255, "converted")), ("BOOL", "BYTE", True, (1, "converted")),
    (DINT, INT, 5, (None, "was DINT, is INT")), ("UINT", "INT", 5, (None, "was UINT, is INT")),
    ("DINT", "REAL", 5, (None, "was DINT, is REAL")), ("TIME", "DINT", 5, (None, "was TIME, is DINT")),
    (string_of(10), string_of(200), "abc", ("abc", "converted")),
    (STRING, string_of(200), "abc", ("abc", "converted")),
    (string_of(200), string_of(10), "abc", (None, "was STRING[200], is STRING[10]")),
    (string_of(200), STRING, "abc", (None, "was STRING[200], is STRING")),
    (string_of(200), string_of(200), "abc", ("abc", "kept")),
])
def test_a_value_converts_only_where_the_new_type_holds_every_old_value(old, new, value,
                                                                         carried):
    from fbd import types as t

    def as_type(x):
        return t.by_name(x) if isinstance(x, str) else x
    assert convert(value, as_type(old), as_type(new)) == carried
    assert convert(value, str(as_type(old)), as_type(new)) == carried   # as a file names it


def test_carry_reports_kept_converted_initialised_and_dropped():
    plc = st_plc("PROGRAM prg VAR a : INT; b : DINT; c : INT; END_VAR a := a; END_PROGRAM")
    table = plc.main.s
    old = {"PRG.A": (INT, 1), "prg.b": (INT, 2), "prg.c": (DINT, 3), "prg.gone": (INT, 4)}
    from fbd.runtime.retain import variables
    done = carry(old, variables(plc.program), table)
    assert (plc.get("prg.a"), plc.get("prg.b"), plc.get("prg.c")) == (1, 2, 0)
    assert done.lines() == ["prg.b: converted from INT to DINT",
                            "prg.c: initialised (was DINT, is INT)",
                            "prg.gone: dropped (no longer in the program)"]
    assert done.kept == ["prg.a"]


# ---------------------------------------------------------------- the retain file
def test_the_retain_file_round_trips_every_retained_value(tmp_path):
    source = COUNTERS.replace("VAR_TEMP scratch : INT; END_VAR",
                              "VAR RETAIN arr : ARRAY[1..3] OF REAL; END_VAR") \
                     .replace("o := n;", "o := n; arr[2] := arr[2] + 0.1;")
    plc = st_plc(source)
    plc.scan(4)
    path = str(tmp_path / "r.retain")
    snapshot.write(path, snapshot.take(plc))
    snap = snapshot.read(path)
    assert snap.program == "prg" and snap.scan == 4 and snap.time_us == 20000
    assert snap.variables["prg.n"] == ("INT", "RETAIN", 4)
    assert snap.variables["prg.arr"][2][1] == pytest.approx(0.4, rel=1e-6)
    fresh = st_plc(source)
    done = snapshot.restore(fresh, snap)
    assert done.lines() == [] and len(done.kept) == len(fresh.retained)
    for v in fresh.retained:
        assert fresh.main.s[v.slot] == plc.main.s[v.slot], v.path
    assert fresh.get("o") == 4          # published at once from the restored prg.o
    assert fresh.get("prg.m") == 0      # not retained


@pytest.mark.parametrize("damage, says", [
    (lambda b: b[:-3], "torn or damaged"),
    (lambda b: b.replace(b'"value":4', b'"value":5'), "torn or damaged"),
    (lambda b: b"PK\x03\x04" + b, "not a retain file"),
    (lambda b: b.replace(b"fbd-retain 2", b"fbd-retain 9"), "of version 9"),
    (lambda b: b"", "not a retain file"),
])
def test_a_torn_or_foreign_file_is_refused_whole(tmp_path, damage, says):
    plc = st_plc()
    plc.scan(4)
    path = tmp_path / "r.retain"
    snapshot.write(str(path), snapshot.take(plc))
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(FbdError, match=says) as e:
        snapshot.read(str(path))
    assert str(e.value).startswith(str(path))


def test_a_version_1_file_written_when_time_held_microseconds_restores_its_times_in_ns(tmp_path):
    source = ("PROGRAM prg VAR RETAIN t : TIME; d : DT; ts : ARRAY[1..2] OF TIME; n : INT;\n"
              "changed : TIME; END_VAR n := n + 1; END_PROGRAM")
    body = json.dumps({"program": "prg", "scan": 3, "time_us": 15000, "variables": [
        {"path": "prg.t", "type": "TIME", "qualifier": "RETAIN", "value": 1500},
        {"path": "prg.d", "type": "DT", "qualifier": "RETAIN", "value": 86_400_000_001},
        {"path": "prg.ts", "type": "ARRAY [1..2] OF TIME", "qualifier": "RETAIN", "value": [1, -2]},
        {"path": "prg.n", "type": "INT", "qualifier": "RETAIN", "value": 3},
        {"path": "prg.changed", "type": "LINT", "qualifier": "RETAIN", "value": 7}]}).encode()
    path = tmp_path / "old.retain"
    path.write_bytes(f"fbd-retain 1 {len(body)} {hashlib.sha256(body).hexdigest()}\n".encode() + body)
    plc = st_plc(source)
    done = snapshot.restore(plc, snapshot.read(str(path)))
    assert [plc.get_raw(p) for p in ("prg.t", "prg.d", "prg.ts", "prg.n")] == \
        [1_500_000, 86_400_000_001_000, [1000, -2000], 3]
    assert done.lines() == ["prg.changed: initialised (was LINT, is TIME)"]


def test_a_write_that_fails_leaves_the_last_complete_file(tmp_path, monkeypatch):
    plc = st_plc()
    plc.scan(2)
    path = str(tmp_path / "r.retain")
    snapshot.write(path, snapshot.take(plc))
    plc.scan(3)

    def no_space(*_args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError):
        snapshot.write(path, snapshot.take(plc))
    monkeypatch.undo()
    assert snapshot.read(path).scan == 2
    assert os.listdir(tmp_path) == ["r.retain"]      # no temporary file left


def test_temporary_files_of_a_killed_writer_are_removed_at_the_next_read(tmp_path):
    path = tmp_path / "r.retain"
    (tmp_path / "r.retain.4242.tmp").write_bytes(b"fbd-retain 1 999")
    assert snapshot.read(str(path)) is None          # no file yet: a first start
    assert os.listdir(tmp_path) == []


def test_a_changed_program_restores_what_matches_and_reports_the_rest(tmp_path):
    plc = st_plc("PROGRAM prg VAR RETAIN a : INT; b : INT; c : INT; gone : INT; END_VAR\n"
                 "a := 1; b := 2; c := 3; gone := 4; END_PROGRAM")
    plc.scan()
    snap = snapshot.take(plc)
    changed = st_plc("PROGRAM prg VAR RETAIN a : INT; b : DINT; c : TIME; d : INT; END_VAR\n"
                     "a := a; END_PROGRAM")
    done = snapshot.restore(changed, snap)
    assert (changed.get("prg.a"), changed.get("prg.b")) == (1, 2)
    assert done.lines() == ["prg.b: converted from INT to DINT",
                            "prg.c: initialised (was INT, is TIME)",
                            "prg.d: initialised (not in the retain file)",
                            "prg.gone: dropped (no longer in the program)"]


def test_the_retain_file_saves_every_period_of_plc_time_and_on_close(tmp_path):
    plc = st_plc(cycle=0.01)
    path = str(tmp_path / "r.retain")
    keeper = snapshot.RetainFile(plc, path, period=0.05)
    plc.scan(12)                         # saves after the scans at 50 and 100 ms
    keeper.close()                       # and once more at the stop
    assert keeper.saves >= 1 and keeper.error is None
    assert snapshot.read(path).variables["prg.n"][2] == 12
    with pytest.raises(FbdError, match="must be positive"):
        snapshot.RetainFile(plc, path, period=0)


CONFIGURATION = """
PROGRAM counter
VAR_EXTERNAL g : INT; p : INT; x : INT; END_VAR
VAR n : INT; END_VAR
VAR NON_RETAIN k : INT; END_VAR
n := n + 1; k := k + 1; g := g + 1; p := p + 1; x := x + 1;
END_PROGRAM
CONFIGURATION conf
VAR_GLOBAL RETAIN g : INT; END_VAR
VAR_GLOBAL PERSISTENT p : INT; END_VAR
VAR_GLOBAL x : INT; END_VAR
RESOURCE res ON PLC
  TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
  PROGRAM RETAIN a WITH fast : counter;
  PROGRAM b WITH fast : counter;
END_RESOURCE
END_CONFIGURATION
"""


def test_a_configurations_retained_globals_and_program_retain_instance(tmp_path):
    plc = load("conf.st", text=CONFIGURATION).plc()
    plc.scan(3)
    values = ("a.n", "a.k", "b.n", "g", "p", "x")
    assert tuple(plc.get(v) for v in values) == (3, 3, 3, 6, 6, 6)   # a and b count globals
    plc.restart(cold=False)        # a's variables (PROGRAM RETAIN) but NON_RETAIN k; g, p
    assert tuple(plc.get(v) for v in values) == (3, 0, 0, 6, 6, 0)
    plc.scan()
    plc.restart()                  # cold: PERSISTENT p only
    assert tuple(plc.get(v) for v in values) == (0, 0, 0, 0, 8, 0)
    plc.scan()
    snap = snapshot.take(plc)
    # the main task's variables by their paths in its program, the globals by name
    assert {p: v[1:] for p, v in snap.variables.items()
            if p in ("g", "p", "x", "counter.n", "counter.k")} == {
        "g": ("RETAIN", 2), "p": ("PERSISTENT", 10), "counter.n": ("RETAIN", 1)}
    fresh = load("conf.st", text=CONFIGURATION).plc()
    done = snapshot.restore(fresh, snap)
    assert (fresh.get("g"), fresh.get("p"), fresh.get("a.n"), fresh.get("x")) == (2, 10, 1, 0)
    assert done.dropped == [] and done.initialised == []


def test_a_plc_in_fault_is_not_saved_at_the_stop(tmp_path):
    # The engines leave a faulting scan's table as it stood when it can (the Python
    # engine writes each chunk of blocks back at its end), but not always (the
    # native engine writes in place): the file keeps the last complete scan's.
    plc = st_plc("PROGRAM prg VAR RETAIN n : INT; a : ARRAY[1..3] OF INT; END_VAR\n"
                 "n := n + 1; a[n] := n; END_PROGRAM")
    path = str(tmp_path / "r.retain")
    keeper = snapshot.RetainFile(plc, path, period=0.005)     # after every scan
    plc.scan(3)
    with pytest.raises(FbdError, match="outside 1..3"):
        plc.scan()
    plc.write("prg.n", 40)           # what the table holds in FAULT is no scan's result
    keeper.close()
    assert plc.state == "FAULT" and snapshot.read(path).variables["prg.n"][2] == 3
