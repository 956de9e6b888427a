"""The pieces of ``python -m fbd.st.bench --programs`` that decide what is
measured and how it is judged (the timings themselves are a benchmark's, not a
test's): matiec found or the reason it is not, the configuration OpenPLC's
editor would add, the programs it times loading on both engines, the target's
verdict, the big programs' size."""

import pytest

from fbd.st import matiec, progbench


def test_matiec_is_left_out_saying_why_when_it_is_not_given_or_not_there(tmp_path, monkeypatch):
    monkeypatch.delenv("FBD_MATIEC_DIR", raising=False)
    assert matiec.find() == (None, "matiec not given (set FBD_MATIEC_DIR to a directory "
                                   "holding iec2c and lib/)")
    monkeypatch.setenv("FBD_MATIEC_DIR", str(tmp_path))
    assert matiec.find() == (None, f"{tmp_path} holds no iec2c and lib/")


def test_a_program_without_a_configuration_gets_one_task_running_it_and_one_with_keeps_it():
    text = "PROGRAM prg VAR x : INT; END_VAR x := x + 1; END_PROGRAM"
    added = matiec.with_configuration(text, "prg", 20)
    assert "TASK task0(INTERVAL := T#20ms, PRIORITY := 0);" in added
    assert "PROGRAM instance0 WITH task0 : prg;" in added
    assert matiec.with_configuration(added, "prg", 5) == added


def test_the_target_is_three_times_the_c_or_20_ns_where_the_c_takes_under_7():
    assert progbench.verdict(30.0, 10.0) == "PASS"
    assert progbench.verdict(30.1, 10.0) == "MISS"
    assert progbench.verdict(19.9, 6.9) == "PASS"      # 2.9x of the C would be 20 ns
    assert progbench.verdict(20.0, 6.0) == "MISS"
    assert progbench.verdict(5.0, None) == "(no C)"


@pytest.mark.parametrize("entry", progbench.PROGRAMS, ids=[e[0] for e in progbench.PROGRAMS])
def test_every_program_timed_runs_on_both_engines_with_the_same_table(entry):
    pytest.importorskip("llvmlite")
    text, name = progbench.source(entry)
    native = progbench.make_plc(text, name, entry[2], "native")
    python = progbench.make_plc(text, name, entry[2], "python")
    assert native.engine == "native"
    native.scan(30)
    python.scan(30)
    assert list(native.main.s) == list(python.main.s)


def test_the_big_program_holds_the_statements_asked_for():
    from fbd.st.project import load
    text = progbench.statements(400)
    body = text.split("END_VAR\n")[1].split("END_PROGRAM")[0].splitlines()
    assert len(body) == 400      # a top-level statement a line
    assert "big" in load("big.st", text=text).pous
