"""``fbd serve``'s own options: a bad value is one ``fbd: error:`` line, status 2,
quoting at most a short piece of what was given, never a traceback."""

import pytest

from fbd.tools import cli

TARGET = "tests.robustness.modbus_rig:echo_program"
HUGE = "9" * 5000


@pytest.mark.parametrize("option, value, says", [
    ("--port", "abc", "--port abc: a TCP port is a whole number 0..65535"),
    ("--port", "-1", "--port -1: a TCP port"),
    ("--port", "65536", "--port 65536: a TCP port"),
    ("--port", HUGE, "--port 9999999999"),
    ("--cycle", "0ms", "--cycle 0ms: the cycle must be positive"),
    ("--cycle", "5", "--cycle 5: give a unit"),
    ("--cycle", "soon", "--cycle soon: not a duration"),
    ("--cycle", "T#2h", "--cycle T#2h: a real-time scan cycle is at most an hour"),
    ("--cycle", f"T#{'9' * 100}d", "not a duration"),
    ("--cycle", f"T#{HUGE}d", "--cycle T#999"),
    ("--idle-timeout", "-1", "--idle-timeout -1: give seconds"),
    ("--idle-timeout", "nan", "--idle-timeout nan: give seconds"),
    ("--idle-timeout", "inf", "--idle-timeout inf: give seconds"),
    ("--idle-timeout", "1e999", "--idle-timeout 1e999: give seconds"),
    ("--idle-timeout", "soon", "--idle-timeout soon: give seconds, e.g. 10 or 0.5 (0: never)"),
    ("--idle-timeout", HUGE, "--idle-timeout 9999"),
    ("--max-clients", "0", "--max-clients 0: the number of clients is a whole number"),
    ("--max-clients", "2.5", "--max-clients 2.5: the number of clients"),
    ("--max-clients", "1e3", "--max-clients 1e3: the number of clients"),
    ("--max-clients", HUGE, "--max-clients 9999"),
    ("--stats", "0", "--stats 0: give seconds"),
    ("--stats", "-5", "--stats -5: give seconds"),
    ("--stats", "often", "--stats often: give seconds"),
    ("--missed-cycles", "slip", "argument --missed-cycles: invalid choice: 'slip'"),
    ("--bind", "a" * 3000, "--bind aaaa"),
    ("--bind", "nosuch\x00host", "--bind nosuch"),
    ("--bind", "300.1.2.3", "--bind 300.1.2.3: not an address of this machine"),
])
def test_a_bad_option_value_is_one_line_and_status_2(capsys, option, value, says):
    assert cli.main(["serve", TARGET, option, value, "--port", "0"] if option != "--port"
                    else ["serve", TARGET, option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and says in err, err[:300]
    assert err.count("\n") == 1 and len(err) < 300 and "Traceback" not in err


def test_a_project_whose_task_interval_is_too_long_is_refused(capsys, tmp_path):
    xml = tmp_path / "slow.xml"
    assert cli.main(["export", TARGET, "-o", str(xml), "--cycle", "T#2h"]) == 0
    capsys.readouterr()
    assert cli.main(["serve", str(xml), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "its task's interval: a real-time scan cycle is at most an hour" in err
    assert err.count("\n") == 1
