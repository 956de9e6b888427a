"""The runner of the differential tests compares bit for bit, in matiec's
units, and says what happened in one outcome; matiec's rows come from the
oracle once and from a file afterwards."""

import math

from tests.fidelity import iectypes as ty
from tests.fidelity.oracle import Recorded, Rows
from tests.fidelity.runner import (
    AGREE,
    DIFFER,
    FBD_REFUSES,
    Outcome,
    comparable,
    compare,
    in_outs,
    normalise,
    relation,
    same,
)

SMALL = """PROGRAM prg
VAR_INPUT
  in_1 : INT;
END_VAR
VAR
  loc_2 AT %IX0.0 : BOOL;
END_VAR
VAR
  x_3 : INT;
  t_5 : TON;
END_VAR
  x_3 := in_1 * 2;
  t_5(IN := loc_2, PT := T#40ms);
END_PROGRAM
"""
SETS = [(2, "in_1", "7"), (2, "loc_2", "TRUE")]
# matiec's rows (iec2c 6bb2c339df6f, through the oracle: --scans 5 --set in_1=7@2 --set loc_2=TRUE@2)
COLUMNS = ["in_1", "loc_2", "x_3", "t_5.EN", "t_5.ENO", "t_5.IN", "t_5.PT", "t_5.Q", "t_5.ET", "t_5.STATE",
           "t_5.PREV_IN", "t_5.CURRENT_TIME", "t_5.START_TIME"]
TYPES = dict(zip(COLUMNS, "INT BOOL INT BOOL BOOL BOOL TIME BOOL TIME SINT BOOL TIME TIME".split()))
ROWS = [[0, False, 0, True, True, False, 40, False, 0, 0, False, 0, 0],
        [7, True, 14, True, True, True, 40, False, 0, 1, True, 20, 20],
        [7, True, 14, True, True, True, 40, False, 20, 1, True, 40, 20],
        [7, True, 14, True, True, True, 40, True, 40, 2, True, 60, 20],
        [7, True, 14, True, True, True, 40, True, 40, 2, True, 80, 20]]


def run(tmp_path, rows, source=SMALL):
    path = tmp_path / "prg.st"
    path.write_text(source)
    return compare(path, SETS, Rows(COLUMNS, TYPES, rows))


def test_inputs_written_as_the_oracle_writes_them_give_matiecs_rows(tmp_path):
    # the VAR_INPUT as a variable, the located input through the process image;
    # EN, ENO and the TON's own internals (STATE, PREV_IN ...) are not compared
    assert run(tmp_path, ROWS).kind == AGREE


def test_the_first_difference_is_named_by_scan_and_column(tmp_path):
    rows = [list(r) for r in ROWS]
    rows[2][2] = 15
    outcome = run(tmp_path, rows)
    found = outcome.kind, outcome.scan, outcome.column, outcome.mine, outcome.theirs
    assert found == (DIFFER, 3, "x_3", 14, 15)
    assert outcome.signature == "differ: INT"


def test_a_program_refused_here_is_one_line_without_the_place(tmp_path):
    outcome = run(tmp_path, ROWS, SMALL.replace("x_3 := in_1 * 2;", "x_3 := in_1 * 2.5;"))
    assert outcome.kind == FBD_REFUSES
    assert "\n" not in outcome.detail and "prg.st:" not in outcome.signature


def test_a_real_here_must_be_the_binary32_matiec_computed():
    tenth = ty.float32(0.1)
    assert same("REAL", tenth, tenth)
    assert not same("REAL", 0.1, tenth)
    assert relation("REAL", 0.1, tenth) == "not a binary32 value here"
    assert relation("REAL", math.nextafter(tenth, 1), tenth) == "not a binary32 value here"
    next_binary32 = ty.float32(tenth + math.ulp(tenth) * 2 ** 29)
    assert next_binary32 > tenth and relation("REAL", next_binary32, tenth) == "in the last bits"
    assert relation("REAL", ty.float32(0.25), tenth) == ""


def test_the_sign_of_a_zero_counts_and_nans_agree():
    assert not same("LREAL", 0.0, -0.0)
    assert same("LREAL", *comparable("LREAL", math.nan, "nan"))
    assert same("REAL", *comparable("REAL", -math.inf, "-inf"))


def test_times_compare_in_ns_and_below_a_microsecond_is_told_apart():
    assert comparable("TIME", 1_500_000, 1.5) == (1_500_000, 1_500_000)
    assert comparable("TIME", 3_333_333, 3.333333) == (3_333_333, 3_333_333)   # T#10ms / 3
    here, there = comparable("TIME", 1, 0.0)        # T#1ms / 1000000: exact here, a double there
    assert (here, there) == (1, 0)
    assert relation("TIME", here, there) == "below 1 µs"
    assert relation("TIME", *comparable("TIME", 3_000_000, 3.333333)) == ""


def test_dates_and_enumerations_compare_as_matiec_prints_them():
    ns = ((19753 * 86400 + 12 * 3600) * 10**9) + 500_000_000    # 2024-01-31-12:00:00.5
    assert same("DT", *comparable("DT", ns, "DT#2024-01-31-12:00:00.5"))
    assert same("TOD", *comparable("TOD", 500_000_000, "TOD#00:00:00.5"))
    assert same("DATE", *comparable("DATE", 19753 * 86400 * 10**9, "D#2024-01-31"))
    assert same("E_1", *comparable("E_1", "e_1_b", "E_1#E_1_B"))
    assert not same("E_1", *comparable("E_1", "e_1_a", "E_1#E_1_B"))


def test_times_beyond_292_years_compare_as_the_oracle_prints_them():
    # seeds 2129 and 2174: the oracle's C long long of ns wrapped, as a 64-bit ns wraps here
    # (9517824000000000 µs, 11322800793750000 µs); matiec's rows, scan 10 and 4
    assert same("DT", *comparable("DT", -8928920073709551616, "DT#1687-01-20-00:25:26.290448384"))
    assert same("TIME", *comparable("TIME", -7123943279959551616, -7123943279959.552))
    assert not same("TIME", *comparable("TIME", -7123943279958551616, -7123943279959.552))
    assert same("TOD", *comparable("TOD", -1_000_000_000, "TOD#23:59:59"))     # -1 s, read as its clock


def test_signatures_leave_out_what_differs_from_one_program_to_the_next():
    a = Outcome(FBD_REFUSES, "/tmp/x/prg.st:12:5: in PROGRAM prg: cannot assign INT to di_10, which is DINT: "
                             '"di_10 := LEN(s_3);"')
    b = Outcome(FBD_REFUSES, "/tmp/y/prg.st:3:9: in FUNCTION fn_2: cannot assign INT to di_7, which is DINT: "
                             '"di_7 := LEN(s_1);"')
    assert a.signature == b.signature == "fbd refuses: cannot assign INT to di_N, which is DINT"
    assert normalise("value[3]: 1000000 is not a TIME") == "value[N]: N is not a TIME"


def test_in_outs_are_found_in_the_text():
    text = ("FUNCTION_BLOCK fb_1\nVAR_INPUT\n  a_2 : INT;\nEND_VAR\n"
            "VAR_IN_OUT\n  io_3 : REAL;\n  io_4 : INT;\nEND_VAR\n")
    assert in_outs(text) == {"IO_3", "IO_4"}


class CountingOracle:
    def __init__(self):
        self.calls = 0

    def run(self, source, sets, scans, watch, main="prg"):
        self.calls += 1
        return Rows(["x"], {"x": "INT"}, [[scans]])


def test_recorded_rows_answer_without_the_oracle(tmp_path):
    oracle = CountingOracle()
    store = Recorded(tmp_path / "rows.json", oracle)
    first = store.run("PROGRAM prg ...", [(1, "x", "3")], 4, ["x"])
    store.save("test")
    again = Recorded(tmp_path / "rows.json").run("PROGRAM prg ...", [(1, "x", "3")], 4, ["x"])
    assert oracle.calls == 1 and first.rows == again.rows == [[4]]
