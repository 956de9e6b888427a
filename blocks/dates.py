"""Dates and times of day: the arithmetic and the conversions IEC gives them, as
matiec (the compiler inside Beremiz and OpenPLC) implements them.

DATE, TIME_OF_DAY (TOD) and DATE_AND_TIME (DT) hold nanoseconds (see
:mod:`fbd.types`): DATE and DT since 1970-01-01 00:00, TOD since midnight.

Arithmetic (IEC 61131-3 table 30), each a function of its own name, which the
PLCopen importer also picks for ADD and SUB wired to these types, as matiec
resolves the overloads:

* ADD_TOD_TIME, SUB_TOD_TIME: a time of day moved by a duration, not wrapped
  at midnight, as matiec (a timespec) and CODESYS (a UDINT of ms) keep it:
  TOD#23:00:00 + T#2h is 25 h, above TOD#23:59:59, and TOD#00:00:00 - T#1s is
  -1 s, below every time of day (IEC leaves the overflow open);
* ADD_DT_TIME, SUB_DT_TIME: a date and time moved by a duration;
* SUB_DATE_DATE, SUB_TOD_TOD, SUB_DT_DT: the duration between two (negative
  when the second is later);
* CONCAT_DATE_TOD: a date and a time of day into a DATE_AND_TIME: their sum,
  as matiec (a TOD past 24 h runs into the next day).

Conversions (matiec's list; IEC leaves the units open, matiec counts seconds):

* DT_TO_DATE, DT_TO_TOD (and DATE_AND_TIME_TO_DATE,
  DATE_AND_TIME_TO_TIME_OF_DAY): the date, the time of day of a DT;
* DATE, TOD, DT -> integers and bit strings: whole seconds since 1970 (since
  midnight for TOD), truncated toward zero, wrapped to the width; -> REAL and
  LREAL: seconds with the fraction; -> BOOL: not zero;
* integers, bit strings and BOOL -> DATE, TOD, DT: that many seconds; REAL
  and LREAL -> DATE, TOD, DT: seconds with the fraction, truncated to the ns;
* DATE, TOD, DT -> STRING: matiec's text, ``'D#2024-01-31'``,
  ``'TOD#12:30:15'``, ``'TOD#12:30:15.500000'`` (six decimals whenever there
  is a fraction), ``'DT#2024-01-31-12:30:15'``; as matiec breaks a value down:
  its whole seconds toward zero, taken around the clock (a TOD of -1.5 s is
  ``'TOD#23:59:58.500000'``), the signed fraction added to the seconds (-0.5 s
  is ``'TOD#00:00:-0.500000'``); a TOD of 24 h or more is ``'TOD#ERROR'``;
* STRING -> DATE, TOD, DT: the IEC literal (``'D#2024-01-31'``); anything else
  gives 1970-01-01 / midnight (matiec has these conversions but returns zero
  for every string; we read the literal).

matiec does not convert between TIME and the date types, nor DATE/TOD to DT:
neither do we.
"""


from blocks.convert import _conv_text_seconds, _conv_trunc, seconds_of_time, time_of_seconds, whole_seconds
from fbd import values as fv
from fbd.block import Block, Port, register
from fbd.types import (
    BOOL,
    DATE,
    DT,
    ELEMENTARY,
    LREAL,
    REAL,
    STRING,
    STRING_MAX,
    TIME,
    TOD,
    InvalidValue,
)
from fbd.values import Kind

_SECOND = fv.NS_PER_SECOND
_DAY = 86_400 * _SECOND


def _dates_date_text(ns: int) -> str:
    return "D#" + fv.format_date(ns).split("#", 1)[1]


def _broken_down(ns: int) -> tuple[int, str]:
    """(days since 1970, matiec's hh:mm:ss or hh:mm:ss.ffffff) of ``ns``:
    matiec breaks down the whole seconds (a timespec's, toward zero) by floor
    and prints the seconds and the signed fraction as one double, ``%09.6f`` of
    ``sec + nsec / 1e9`` (rounded: 12:00:00.123456789 reads '12:00:00.123457')."""
    seconds = ns // _SECOND if ns >= 0 else -(-ns // _SECOND)
    frac = ns - seconds * _SECOND
    day, rest = divmod(seconds, _DAY // _SECOND)
    h, rest = divmod(rest, 3600)
    m, sec = divmod(rest, 60)
    if not frac:
        return day, f"{h:02d}:{m:02d}:{sec:02d}"
    return day, f"{h:02d}:{m:02d}:" + "%09.6f" % (float(sec) + frac / 1e9)


def _dates_tod_text(ns: int) -> str:
    if ns >= _DAY:
        return "TOD#ERROR"
    return "TOD#" + _broken_down(ns)[1]


def _dates_dt_text(ns: int) -> str:
    day, clock = _broken_down(ns)
    return "DT#" + fv.format_date(day * _DAY).split("#", 1)[1] + "-" + clock


def _parser(parse):
    """Its IEC literal as IEC reads it; any other text as matiec reads every text."""
    def read(text: str) -> int:
        try:
            return parse(text.strip())
        except InvalidValue:
            return _conv_text_seconds(text)
    return read


_HELPERS = {
    "_dates_date_text": _dates_date_text,
    "_dates_tod_text": _dates_tod_text,
    "_dates_dt_text": _dates_dt_text,
    "_dates_parse_date": _parser(fv.parse_date),
    "_dates_parse_tod": _parser(fv.parse_tod),
    "_dates_parse_dt": _parser(fv.parse_dt),
    "_conv_trunc": _conv_trunc,   # the conversions' own: REAL toward zero, NaN and inf 0
}


# ---------------------------------------------------------------- arithmetic
def _wrapped(block, expr: str) -> str:
    """``expr`` wrapped to the output's width, where it is an integer that could leave
    it (a date near the end of the 64-bit range, moved or cut to its day)."""
    out = type(block).outputs[0].type
    return out.wrap(expr) if out.is_integral and "_w" not in expr and "&" not in expr else expr


class _Binary(Block):
    family = "dates"
    a = b = out = None
    expr = ""

    def code(self, io):
        return f"{io.OUT} = {_wrapped(self, self.expr.format(a=io.IN1, b=io.IN2, day=_DAY))}"


def _arith(name, a, b, out, expr, doc):
    cls = type(name, (_Binary,), {
        "__doc__": doc, "__module__": __name__, "__qualname__": name,
        "inputs": [Port("IN1", a), Port("IN2", b)], "outputs": [Port("OUT", out)],
        "expr": expr})
    return register(cls)


ADD_TOD_TIME = _arith("ADD_TOD_TIME", TOD, TIME, TOD, TOD.wrap("{a} + {b}"),
                      "A time of day moved forward by a duration (not wrapped at midnight).")
SUB_TOD_TIME = _arith("SUB_TOD_TIME", TOD, TIME, TOD, TOD.wrap("{a} - {b}"),
                      "A time of day moved back by a duration (not wrapped at midnight).")
ADD_DT_TIME = _arith("ADD_DT_TIME", DT, TIME, DT, DT.wrap("{a} + {b}"),
                     "A date and time moved forward by a duration.")
SUB_DT_TIME = _arith("SUB_DT_TIME", DT, TIME, DT, DT.wrap("{a} - {b}"),
                     "A date and time moved back by a duration.")
SUB_DATE_DATE = _arith("SUB_DATE_DATE", DATE, DATE, TIME, TIME.wrap("{a} - {b}"),
                       "The duration from IN2 to IN1, two dates (negative if IN2 is later).")
SUB_TOD_TOD = _arith("SUB_TOD_TOD", TOD, TOD, TIME, TIME.wrap("{a} - {b}"),
                     "The duration from IN2 to IN1, two times of day.")
SUB_DT_DT = _arith("SUB_DT_DT", DT, DT, TIME, TIME.wrap("{a} - {b}"),
                   "The duration from IN2 to IN1, two dates and times.")
CONCAT_DATE_TOD = _arith("CONCAT_DATE_TOD", DATE, TOD, DT, DT.wrap("{a} + {b}"),
                         "A date and a time of day as one DATE_AND_TIME (their sum, as matiec).")


# --------------------------------------------------------------- conversions
class DateConversion(Block):
    """Base of the conversions to and from the date types."""
    family = "dates"
    helpers = _HELPERS
    expr = ""

    def code(self, io):
        return f"{io.OUT} = {_wrapped(self, self.expr.format(x=io.IN, day=_DAY, s=_SECOND))}"


def _convert(name, src, dst, expr, doc):
    cls = type(name, (DateConversion,), {
        "__doc__": doc, "__module__": __name__, "__qualname__": name,
        "inputs": [Port("IN", src)], "outputs": [Port("OUT", dst)], "expr": expr})
    globals()[name] = register(cls)


_convert("DT_TO_DATE", DT, DATE, DATE.wrap("{x} - {x} % {day}"), "The date of a DATE_AND_TIME.")
_convert("DT_TO_TOD", DT, TOD, "{x} % {day}", "The time of day of a DATE_AND_TIME.")
_convert("DATE_AND_TIME_TO_DATE", DT, DATE, DATE.wrap("{x} - {x} % {day}"),
         "The date of a DATE_AND_TIME (IEC's long name of DT_TO_DATE).")
_convert("DATE_AND_TIME_TO_TIME_OF_DAY", DT, TOD, "{x} % {day}",
         "The time of day of a DATE_AND_TIME (IEC's long name of DT_TO_TOD).")

_TEXT = {DATE: "_dates_date_text", TOD: "_dates_tod_text", DT: "_dates_dt_text"}
_SAMPLE = {DATE: "'D#2024-01-31'", TOD: "'TOD#12:30:15.500000'", DT: "'DT#2024-01-31-12:30:15'"}
_PARSE = {DATE: "_dates_parse_date", TOD: "_dates_parse_tod", DT: "_dates_parse_dt"}
for _d in (DATE, TOD, DT):
    _convert(f"{_d}_TO_STRING", _d, STRING, f"{_TEXT[_d]}({{x}})",
             f"Convert {_d} to STRING: matiec's text, {_SAMPLE[_d]}.")
    # a longer STRING[n] read as the STRING parameter holds it (see blocks/convert.py)
    _convert(f"STRING_TO_{_d}", STRING, _d, f"{_PARSE[_d]}({{x}}[:{STRING_MAX}])",
             f"Convert STRING to {_d}: reads its IEC literal; any other text as matiec "
             f"does, the number it starts with as seconds.")
    _convert(f"{_d}_TO_BOOL", _d, BOOL, "{x} != 0", f"Convert {_d} to BOOL: TRUE when not zero.")
    _convert(f"BOOL_TO_{_d}", BOOL, _d, "{s} if {x} else 0",
             f"Convert BOOL to {_d}: TRUE is one second.")
    for _r in (REAL, LREAL):
        _convert(f"{_d}_TO_{_r}", _d, _r, _r.wrap(seconds_of_time("{x}")),
                 f"Convert {_d} to {_r}: seconds, with the fraction, as matiec.")
        _convert(f"{_r}_TO_{_d}", _r, _d, _d.wrap(time_of_seconds("{x}")),
                 f"Convert {_r} to {_d}: that many seconds, truncated to the ns.")
    for _i in ELEMENTARY:
        if _i.kind in (Kind.INT, Kind.BITS):
            wrap = _i.wrap(whole_seconds("{x}"))
            _convert(f"{_d}_TO_{_i}", _d, _i, wrap,
                     f"Convert {_d} to {_i}: whole seconds, truncated, wrapped, as matiec.")
            _convert(f"{_i}_TO_{_d}", _i, _d, _d.wrap("{x} * {s}"),
                     f"Convert {_i} to {_d}: that many seconds, as matiec.")
del _d, _r, _i

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, Block) and v.family == "dates")
