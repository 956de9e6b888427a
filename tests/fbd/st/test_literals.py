"""Literal values, and the errors for malformed ones, as matiec checks them."""

import datetime as dt

import pytest

from fbd.st import StSyntaxError, parse_expression

S = 10**9
MS = 10**6


def value(text):
    node = parse_expression(text)
    return node.kind, node.type_name, node.value


@pytest.mark.parametrize("text, ns", [
    ("T#1d2h3m4s5ms", ((24 + 2) * 3600 + 3 * 60 + 4) * S + 5 * MS),
    ("TIME#500ms", 500 * MS), ("t#1.5s", 1500 * MS), ("T#-5s", -5 * S), ("T#90m", 90 * 60 * S),
    ("T#1h30.5m", 3600 * S + 30 * 60 * S + 30 * S), ("T#1s_500ms", 1500 * MS), ("T#0.5d", 12 * 3600 * S),
    ("T#5_000ms", 5 * S), ("T#5S", 5 * S), ("T#250us", 250_000), ("T#7ns", 7), ("T#0.25ms", 250_000),
])
def test_durations_are_exact_nanoseconds(text, ns):
    assert value(text) == ("time", "TIME", ns)


def test_ltime_literals():
    assert value("LTIME#1h") == ("ltime", "LTIME", 3600 * S)
    assert value("LT#5us") == ("ltime", "LTIME", 5000)


@pytest.mark.parametrize("text, problem", [
    ("T#1h90m", "below 60"), ("T#1d25h", "below 24"), ("T#1.5m30s", "only the last unit"),
    ("T#1m_", "ends with '_'"), ("T#5s1m", "out of place"), ("T#5x", "expected a number and a unit"),
])
def test_malformed_durations_are_refused_as_matiec_refuses_them(text, problem):
    with pytest.raises(StSyntaxError, match=problem):
        parse_expression(text)


def test_a_duration_is_refused_past_what_a_time_holds():
    # TIME counts ns in 64 bits here, as the oracle prints matiec's (its timespec goes
    # further; nothing past this fits a variable, nor the clock a task INTERVAL is run on)
    longest = "T#106751d23h47m16s854ms775us807ns"
    assert value(longest)[2] == (1 << 63) - 1
    assert value("T#-" + longest[2:])[2] == -((1 << 63) - 1)
    with pytest.raises(StSyntaxError, match="out of range for TIME"):
        parse_expression("T#106751d23h47m16s854ms775us808ns")
    with pytest.raises(StSyntaxError, match="out of range for TIME"):
        parse_expression("LTIME#1000000000d")


def test_a_date_of_hundreds_of_digits_is_refused_as_a_date():
    with pytest.raises(StSyntaxError, match="invalid date"):
        parse_expression(f"D#{'9' * 190}-01-01")


def ns_of_date(*ymd):
    return (dt.date(*ymd) - dt.date(1970, 1, 1)).days * 86_400 * S


def test_dates_and_times_of_day_are_ns_as_the_variables_hold_them():
    assert value("D#2024-01-31") == ("date", "DATE", ns_of_date(2024, 1, 31))
    assert value("DATE#2024-1-5") == ("date", "DATE", ns_of_date(2024, 1, 5))
    assert value("D#1969-12-31") == ("date", "DATE", -86_400 * S)
    assert value("TOD#12:30:15.5") == ("tod", "TOD", (12 * 3600 + 30 * 60 + 15) * S + S // 2)
    assert value("TIME_OF_DAY#1:2:3") == ("tod", "TOD", (3600 + 2 * 60 + 3) * S)
    assert value("DT#2024-01-31-12:00:00") == ("dt", "DT", ns_of_date(2024, 1, 31) + 12 * 3600 * S)
    assert value("DATE_AND_TIME#2024-01-31-12:00:00.25")[2] == (ns_of_date(2024, 1, 31)
                                                               + 12 * 3600 * S + S // 4)


def test_a_time_of_day_keeps_its_nanoseconds_as_matiec_does():
    # matiec's rows: TOD#12:30:15.123456789, DT#2024-01-31-12:00:00.987654321,
    # TOD#00:00:00.000000001, TOD#00:00:00.1234567 (they had kept only the µs here)
    assert value("TOD#12:30:15.123456789")[2] % S == 123_456_789
    assert value("DT#2024-01-31-12:00:00.987654321")[2] % S == 987_654_321
    assert value("TOD#00:00:00.000000001")[2] == 1
    assert value("TOD#00:00:00.1234567")[2] == 123_456_700
    assert value("TOD#00:00:00.1234567891")[2] == 123_456_789   # past the ns: cut


def test_a_date_past_what_64_bits_of_ns_hold_is_refused_by_name():
    assert value("DT#2262-04-11-23:47:16.854775807")[2] == (1 << 63) - 1
    for text in ("DT#2262-04-11-23:47:16.854775808", "D#2263-01-01", "D#1677-01-01"):
        with pytest.raises(StSyntaxError, match="out of range: a date is held in 64-bit ns"):
            parse_expression(text)


@pytest.mark.parametrize("text", ["D#2024-02-30", "TOD#25:00:00", "TOD#12:61:00"])
def test_impossible_dates_are_refused(text):
    # matiec takes these without a check; no such day or time exists to run with
    with pytest.raises(StSyntaxError, match="invalid"):
        parse_expression(text)


@pytest.mark.parametrize("text, kind, type_name, v", [
    ("42", "int", None, 42), ("1_000", "int", None, 1000), ("16#FF", "int", None, 255),
    ("2#1010_0101", "int", None, 0xA5), ("8#777", "int", None, 511), ("1.5E3", "real", None, 1500.0),
    ("2.5e-1", "real", None, 0.25), ("INT#-5", "int", "INT", -5), ("INT#16#7FFF", "int", "INT", 32767),
    ("BYTE#16#FF", "int", "BYTE", 255), ("UDINT#4294967295", "int", "UDINT", 2**32 - 1),
    ("REAL#1.5", "real", "REAL", 1.5), ("LREAL#-1.0E5", "real", "LREAL", -1e5),
    ("BOOL#TRUE", "bool", "BOOL", True), ("BOOL#0", "bool", "BOOL", False),
    ("TRUE", "bool", None, True), ("false", "bool", None, False),
])
def test_numbers_booleans_typed_and_based(text, kind, type_name, v):
    assert value(text) == (kind, type_name, v)


@pytest.mark.parametrize("text, problem", [
    ("INT#40000", "does not fit in INT"), ("BYTE#256", "does not fit in BYTE"), ("BYTE#-1", "has no sign"),
    ("INT#-16#10", "has no sign"), ("8#8", "not a octal digit"), ("2#1012", "not a binary digit"),
    ("16#FG", "not a hexadecimal digit"), ("REAL#5", "not a real number"), ("BOOL#2", "TRUE, FALSE, 0 or 1"),
    ("1__000", "underscore"), ("SINT#128", "does not fit in SINT"),
])
def test_malformed_numbers_name_the_problem(text, problem):
    with pytest.raises(StSyntaxError, match=problem):
        parse_expression(text)


def test_a_literal_error_points_into_the_literal():
    with pytest.raises(StSyntaxError) as e:
        parse_expression("x + 16#FG")
    assert (e.value.line, e.value.col) == (1, 9)


@pytest.mark.parametrize("text, v", [
    (r"'it$'s'", "it's"), ("'a$$b'", "a$b"), ("'$L$N$P$R$T'", "\n\n\f\r\t"), ("'$l$t'", "\n\t"),
    ("'$41$42'", "AB"), ("'ab\"c'", 'ab"c'), ("''", ""), ("'Température'", "Température"),
])
def test_single_quoted_strings_and_their_escapes(text, v):
    assert value(text) == ("string", None, v)


def test_double_quoted_strings_are_wstrings():
    assert value('"ab$"c"') == ("wstring", None, 'ab"c')
    assert value('"$00E9t$00E9"') == ("wstring", None, "été")
    assert value('"it\'s"') == ("wstring", None, "it's")


@pytest.mark.parametrize("text", ["'$x'", "'$\"'", "'$4'"])
def test_invalid_escapes_are_refused(text):
    with pytest.raises(StSyntaxError, match="invalid escape"):
        parse_expression(text)


def test_a_string_must_close_on_its_line():
    with pytest.raises(StSyntaxError, match="not closed on this line") as e:
        parse_expression("x + 'abc\ndef'")
    assert (e.value.line, e.value.col) == (1, 5)
