"""Type conversions ``X_TO_Y`` between every two elementary types, and TRUNC.

One block type per ordered pair of different types, 272 in all, generated
below in a loop (each registered explicitly). The rules, by kind of type:

* integer or bit string -> integer or bit string: the low bits of the two's
  complement value, as a C cast (DINT_TO_INT(40000) = -25536,
  INT_TO_UINT(-1) = 65535, BYTE_TO_SINT(16#FF) = -1).
* REAL/LREAL -> integer or bit string: rounded as matiec does (its
  ``__real_round``): ``IN + 0.5`` (``IN - 0.5`` below zero) truncated toward
  zero, except that an exact half goes to the even neighbour (2.5 -> 2,
  3.5 -> 4, -2.5 -> -2), computed in double precision (so 0.49999999999999994,
  whose ``+ 0.5`` is exactly 1.0, gives 0); then wrapped to the width. An
  unsigned integer or bit string gets 0 for a negative REAL (REAL_TO_UINT(-3.2)
  = 0), as matiec's ``__real_to_uint`` gives. NaN and +-inf give 0. TRUNC
  truncates toward zero instead (its docstring says what beyond the range).
* integer, bit string, REAL -> REAL/LREAL: the nearest value, rounded once as
  C's cast does (LREAL_TO_REAL(0.1) = 0.100000001490116, DINT_TO_REAL(16777217)
  = 16777216.0, and a LINT past 2**53 straight to single precision, not
  through a double); REAL_TO_LREAL is exact.
* numbers, bit strings, TIME -> BOOL: TRUE when not zero (a REAL NaN is not
  zero, so TRUE, as in C); BOOL -> numbers: 1 / 0, 1.0 / 0.0.
* TIME <-> integers and bit strings count seconds, as matiec does (IEC leaves
  the unit open; CODESYS counts milliseconds): TIME_TO_DINT(T#1s500ms) = 1
  (the fraction truncated toward zero, T#-1s500ms gives -1), DINT_TO_TIME(5) =
  T#5s. TIME <-> REAL also counts seconds, with the fraction:
  TIME_TO_REAL(T#1500ms) = 1.5, REAL_TO_TIME(1.5) = T#1s500ms, computed as
  matiec's timespec does: a TIME to seconds + ns / 1e9 in double, a REAL to
  its whole seconds and the fraction times 1e9, each truncated toward zero
  (REAL_TO_TIME(1.0E-7) = T#100ns). BOOL_TO_TIME(TRUE) = T#1s (TRUE is 1).
* -> STRING, as matiec's library writes it (IEC leaves the text to the
  implementation; OpenPLC and Beremiz show matiec's): integers in decimal
  ('-5'); bit strings in lower-case hexadecimal ('16#ff'); BOOL 'TRUE'/'FALSE';
  REAL and LREAL as C's ``%.10g`` (ten significant digits, no point for a whole
  number: '42', '0.1', '1e+20', '-0', 'inf', 'nan'), a REAL rounded to single
  precision first as matiec holds it in a C ``float`` (REAL 0.1 gives
  '0.1000000015', 1.0E20 '1.00000002e+20'); a NaN's sign shows as C shows it
  ('-nan'), and the library's own NaNs are positive (matiec's x86 ones are
  negative: SQRT(-1.0) reads '-nan' there, 'nan' here and on ARM); TIME with
  every unit from days down to the largest non-zero one ('T#2d', 'T#0d1h30m',
  'T#0d0h0m1s500ms', the milliseconds with their fraction, a negative TIME with
  each part negative: 'T#0d0h0m-1s-500ms').
* STRING -> integers, bit strings and REALs: read as matiec's library reads
  any text (IEC leaves a text that is not a literal open), never an error:
  '42', '-5', '16#FF', '2#1010_0101' as literals, '42x' as 42, '3.5' as 3,
  '1 2' as 12, 'INT#5' as 0 (see _conv_parse_int), wrapped like the casts
  above ('40000' -> INT -25536); a REAL from a text with a '.' is C's atof
  ('3.5x' is 3.5, '-2.5E3' -2500.0), from one without the integer reading. BOOL
  reads TRUE/FALSE/1/0 in any case, optionally with 'BOOL#', anything else FALSE.
  TIME (and DATE, TOD, DT, blocks/dates.py) reads its IEC literal ('T#1s500ms',
  'TIME#-2m') as IEC says; any other text as matiec reads every text, its
  literals included: the number it starts with, as seconds, the fraction lost
  ('42' is T#42s, '3.5' T#3s, '1s500ms' T#1s; see _conv_text_seconds).
"""

import math
import re

from fbd.block import Block, Port, register
from fbd.real32 import int_to_real32, round_real32
from fbd.types import (
    ANY_INT,
    ANY_REAL,
    ELEMENTARY,
    STRING_MAX,
    TIME,
    parse_time,
)
from fbd.values import NS_PER_SECOND, Kind

# ---------------------------------------------------------------- helpers
#: the types converted among each other here (conversions to and from the
#: date types follow matiec's own list and are declared apart)
CONVERTIBLE = tuple(tp for tp in ELEMENTARY if tp.kind not in (Kind.DATE, Kind.TOD, Kind.DT))


def round_half_away(x: float) -> int:
    """``trunc(x + 0.5)`` for x >= 0, else ``trunc(x - 0.5)``; NaN and +-inf give 0.
    (MUL_TIME and DIV_TIME round their REAL products so.)"""
    if not math.isfinite(x):
        return 0
    return math.trunc(x + 0.5) if x >= 0 else math.trunc(x - 0.5)


def round_matiec(x: float) -> int:
    """REAL -> integer as matiec's ``__preal_to_sint`` / ``__real_round`` do:
    ``x + 0.5`` (``x - 0.5`` below zero) truncated, an exact half to the even
    neighbour. NaN and +-inf give 0; the caller wraps to the width."""
    if not math.isfinite(x):
        return 0
    y = x + 0.5 if x >= 0 else x - 0.5
    if y == math.floor(y):          # x was an exact half: C's (LINT)y / 2 * 2
        q = math.trunc(y)
        return int(q / 2) * 2 if abs(q) < 1 << 52 else q - q % 2
    return math.trunc(y)


def round_matiec_unsigned(x: float) -> int:
    """REAL -> unsigned integer or bit string as matiec's ``__preal_to_uint``:
    0 for a negative REAL, else :func:`round_matiec`."""
    return round_matiec(x) if x >= 0 else 0


def _conv_trunc(x: float) -> int:
    """REAL -> integer toward zero; NaN and +-inf give 0."""
    return math.trunc(x) if math.isfinite(x) else 0


def _conv_real_text(x: float, single: bool = False) -> str:
    """A REAL or LREAL as matiec's library writes it: C's ``%.10g`` of the value, a
    REAL (``single``) first rounded to the C ``float`` matiec holds it in."""
    if single:
        x = round_real32(x)
    if x != x:                      # C prints the sign of a NaN, Python's %g does not
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return "%.10g" % x


def _conv_time_text(ns: int) -> str:
    """A TIME as matiec's library writes it: days, then hours, minutes, seconds
    and milliseconds (C's ``%g``, so with a fraction) down to the last non-zero
    part, each part truncated toward zero and so negative for a negative TIME."""
    seconds = abs(ns) // NS_PER_SECOND * (1 if ns >= 0 else -1)
    fraction_ns = ns - seconds * NS_PER_SECOND
    parts = []
    rest = seconds
    for size in (86400, 3600, 60):
        whole = abs(rest) // size * (1 if rest >= 0 else -1)
        parts.append(whole)
        rest -= whole * size
        if rest == 0 and fraction_ns == 0:
            return "T#" + "".join(f"{n}{u}" for n, u in zip(parts, "dhm"))
    text = "T#{}d{}h{}m{}s".format(*parts, rest)
    return text if fraction_ns == 0 else text + "%gms" % (fraction_ns / 1_000_000)


def whole_seconds(x: str) -> str:
    """Python for the whole seconds of ``x`` ns, toward zero: a timespec's tv_sec."""
    return f"({x} // {NS_PER_SECOND} if {x} >= 0 else -(-{x} // {NS_PER_SECOND}))"


def seconds_of_time(x: str) -> str:
    """Python for ``x`` ns as a double of seconds, as matiec's ``__time_to_real``
    computes it: ``tv_sec + tv_nsec / 1e9`` (``x / 1e9`` may differ in the last bit)."""
    # of the magnitude, then signed: the native engine bounds abs(x) // s, where it
    # cannot bound a signed quotient (its interval of x // s is x's own)
    sign = f"(-1.0 if {x} < 0 else 1.0)"
    return f"({sign} * (float(abs({x}) // {NS_PER_SECOND}) + abs({x}) % {NS_PER_SECOND} / 1e9))"


def time_of_seconds(x: str) -> str:
    """Python for the ns of ``x`` seconds (a REAL or LREAL), as matiec's
    ``__real_to_time`` makes a timespec: the whole seconds and the fraction times
    1e9, each truncated toward zero; NaN and inf give 0."""
    # the whole seconds cut to 64 bits before the subtraction, as C's (LINT)IN is: the
    # engines then agree beyond that range too, where C's cast is undefined
    whole = TIME.wrap(f"_conv_trunc({x})")
    return f"(_conv_trunc({x}) * {NS_PER_SECOND} + _conv_trunc(({x} - {whole}) * 1e9))"


def _int64(value: int) -> int:
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def _conv_parse_int(text: str) -> int:
    """A text read as matiec's ``__pstring_to_sint`` reads it, as a LINT. '2#', '8#'
    and '16#' prefixes: the digits of the base from the right, anything else
    skipped (2# and 8# digits shifted as C ints, as gcc on x86 does: the count
    masked to 5 bits, the int sign-extended). Otherwise at most 20 decimal digits
    from the right, the sign from the first character; characters below '.'
    (blanks, '+', '-', '#', ',') are skipped, and any other non-digit starts
    the number again: '42x' is 42, '3.5' is 3, '1 2' is 12, 'INT#5' is 0."""
    n = len(text)
    for prefix, digits, bits in (("2#", "01", 1), ("8#", "01234567", 3), ("16#", None, 4)):
        if n > len(prefix) and text.startswith(prefix):
            value, shift = 0, 0
            for c in reversed(text[len(prefix):]):
                if shift >= 64:
                    break
                if digits is None:
                    if c in "0123456789abcdefABCDEF":
                        value |= int(c, 16) << shift    # a LWORD shift
                        shift += 4
                elif c in digits:
                    part = (int(c) << (shift & 31)) & 0xFFFFFFFF
                    value |= part - (1 << 32) if part >> 31 else part
                    shift += bits
            return _int64(value)
    sign = -1 if text[:1] == "-" else 1
    value, factor, count = 0, sign, 0
    for c in reversed(text):
        if count >= 20:
            break
        if "0" <= c <= "9":
            value = _int64(value + int(c) * factor)
            factor = _int64(factor * 10)
            count += 1
        elif c >= ".":
            value, factor, count = 0, sign, 0
    return value


#: what C's atof reads of a text's start (hexadecimal floats aside)
_ATOF = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   r"|inf(?:inity)?|nan))", re.I)


def _conv_parse_real(text: str) -> float:
    """A text read as matiec's ``__string_to_real``: with a '.' after its first
    character, C's atof (the number the text starts with: '3.5x' is 3.5, 'REAL#1.5'
    0.0); without one, the integer reading of :func:`_conv_parse_int`."""
    if text.rfind(".") > 0:
        m = _ATOF.match(text)
        if m is None:
            return 0.0
        try:
            return float(m.group(1))
        except OverflowError:
            return math.inf
    return float(_conv_parse_int(text))


def _conv_parse_bool(text: str) -> bool:
    """'TRUE', '1', 'BOOL#TRUE', 'bool#1' (any case) -> TRUE; anything else FALSE."""
    body = text.strip().upper()
    if body.startswith("BOOL#"):
        body = body[5:]
    return body in ("TRUE", "1")


def _conv_text_seconds(text: str) -> int:
    """What matiec's ``__string_to_time`` makes of any text, for TIME, DATE, TOD
    and DT alike (its "quick hack: only transform seconds"), in ns: with a '.'
    after the first character C's atof, truncated to whole seconds (the fraction
    is lost: '3.5' is 3 s); else the integer reading of :func:`_conv_parse_int`
    as seconds ('42' 42 s, '12:00:00' 12 s); wrapped to 64 bits of ns."""
    if text.rfind(".") > 0:
        m = _ATOF.match(text)
        seconds = _conv_trunc(float(m.group(1))) if m else 0
    else:
        seconds = _conv_parse_int(text)
    return _int64(seconds * NS_PER_SECOND)


def _conv_parse_time(text: str) -> int:
    """A TIME literal ('T#1s500ms', 'TIME#-2m') -> its ns, as IEC reads it; any other
    text as matiec reads it (:func:`_conv_text_seconds`)."""
    body = text.strip()
    if "#" in body:
        try:
            return TIME.wrap_value(parse_time(body))
        except (ValueError, OverflowError):  # InvalidValue is a ValueError
            pass
    return _conv_text_seconds(text)


_HELPERS = {
    "_conv_round": round_matiec,
    "_conv_round_u": round_matiec_unsigned,
    "_conv_trunc": _conv_trunc,
    "_conv_real_text": _conv_real_text,
    "_conv_time_text": _conv_time_text,
    "_conv_parse_int": _conv_parse_int,
    "_conv_parse_real": _conv_parse_real,
    "_conv_parse_bool": _conv_parse_bool,
    "_conv_parse_time": _conv_parse_time,
    "_conv_text_seconds": _conv_text_seconds,
    "_conv_int_real32": int_to_real32,
}


# ------------------------------------------------------------- the rules
def _fits(src, dst) -> bool:
    """Every value of integral ``src`` is a value of integral ``dst``: no wrap needed."""
    return dst.min <= src.min and src.max <= dst.max


def _expression(src, dst, x: str) -> str:
    """Python for ``src_TO_dst(x)``."""
    s, d = src.kind, dst.kind
    if d == "string":
        if s == "bool":
            return f"'TRUE' if {x} else 'FALSE'"
        if s == "bits":
            return f"'16#%x' % {x}"
        if s == "int":
            return f"str({x})"
        if s == "real":
            return f"_conv_real_text({x}, {src.name == 'REAL'})"
        return f"_conv_time_text({x})"  # time
    if s == "string":
        if d == "bool":
            return f"_conv_parse_bool({x})"
        if d == "real":
            return dst.wrap(f"_conv_parse_real({x})")
        if d == "time":
            return f"_conv_parse_time({x})"
        return dst.wrap(f"_conv_parse_int({x})")
    if d == "bool":
        return f"{x} != 0"
    if s == "bool":
        if d == "real":
            return f"1.0 if {x} else 0.0"
        if d == "time":
            return f"{NS_PER_SECOND} if {x} else 0"
        return f"1 if {x} else 0"
    if d == "real":
        if s == "time":
            return dst.wrap(seconds_of_time(x))
        if s == "real":
            return dst.wrap(x)  # LREAL_TO_REAL rounds; REAL_TO_LREAL is exact
        if dst.bits == 32 and src.bits > 53:  # through a double it would round twice
            return f"_conv_int_real32({x})"
        if src.bits <= (24 if dst.bits == 32 else 53):   # every value exact: no rounding
            return f"float({x})"
        return dst.wrap(f"float({x})")
    if s == "real":
        if d == "time":
            return dst.wrap(time_of_seconds(x))
        if dst.signed:
            return dst.wrap(f"_conv_round({x})")
        return dst.wrap(f"_conv_round_u({x})")
    if d == "time":  # from an integer or bit string, in seconds
        return dst.wrap(f"{x} * {NS_PER_SECOND}") if src.bits > 32 else f"{x} * {NS_PER_SECOND}"
    if s == "time":  # to an integer or bit string, in seconds, truncated toward zero
        return dst.wrap(whole_seconds(x))
    return x if _fits(src, dst) else dst.wrap(x)


def _summary(src, dst) -> str:
    """The one-line docstring of ``src_TO_dst``."""
    s, d = src.kind, dst.kind
    head = f"Convert {src} to {dst}"
    if d == "string":
        return head + {"bool": ": 'TRUE' or 'FALSE'.",
                       "bits": ": lower-case hexadecimal, '16#ff', as matiec.",
                       "int": ": decimal text, '-5'.",
                       "real": ": ten significant digits (C's %.10g), '42', '1e+20', as matiec.",
                       "time": ": every unit down to the last, 'T#0d0h0m1s500ms', as matiec."}[s]
    if s == "string":
        return head + {"bool": ": TRUE for 'TRUE' or '1' (any case), else FALSE.",
                       "real": ": parses a real or integer literal; 0.0 if it is none.",
                       "time": ": parses a duration literal ('T#1s500ms'); T#0s if it is none."
                       }.get(d, f": parses an integer literal ('-5', '16#FF'), wrapped to "
                                f"{dst.bits} bits; 0 if it is none.")
    if d == "bool":
        return head + (": TRUE when not zero (NaN too, as in C)." if s == "real"
                       else ": TRUE when not zero.")
    if s == "bool":
        return head + {"real": ": 1.0 or 0.0.", "time": ": T#1s or T#0s."}.get(d, ": 1 or 0.")
    if d == "real":
        if s == "time":
            return head + ": seconds, with the fraction (T#1500ms -> 1.5), as matiec."
        if s == "real":
            return head + (": the nearest single-precision value." if dst.bits == 32
                           else ": the same value (exact).")
        if dst.bits == 32:
            return head + (": the nearest REAL, rounded once (exact up to 2**24)."
                           if src.bits > 16 else ": the same value.")
        if src.bits > 32:
            return head + ": the nearest double (exact up to 2**53)."
        return head + ": the same value as a double."
    if s == "real":
        if d == "time":
            return head + (": the value in seconds (1.5 -> T#1s500ms), truncated to the ns; "
                           "NaN/inf give T#0s.")
        neg = "" if dst.signed else ", below 0 gives 0"
        return head + f": rounded as matiec (a half to even){neg}; wraps; NaN/inf give 0."
    if d == "time":
        return head + ": the value in seconds (5 -> T#5s), as matiec."
    if s == "time":
        return head + (f": whole seconds, truncated toward zero, wrapped to "
                       f"{dst.bits} bits, as matiec.")
    if _fits(src, dst):
        return head + ": the same value."
    return head + f": the low {dst.bits} bits, as a C cast (wraps)."


class Conversion(Block):
    """Base of the generated ``X_TO_Y`` blocks; ``source`` and ``target`` are the types."""
    family = "convert"
    helpers = _HELPERS
    source = None
    target = None

    def code(self, io):
        # a longer STRING[n] is read as the STRING parameter of matiec's C holds it,
        # as the ST call cuts it and the string functions read it (blocks/strings.py)
        x = f"{io.IN}[:{STRING_MAX}]" if self.source.kind == "string" else io.IN
        return f"{io.OUT} = {_expression(self.source, self.target, x)}"


for _src in CONVERTIBLE:
    for _dst in CONVERTIBLE:
        if _src is _dst:
            continue
        _name = f"{_src}_TO_{_dst}"
        _cls = type(_name, (Conversion,), {
            "__doc__": _summary(_src, _dst),
            "__module__": __name__,
            "__qualname__": _name,
            "source": _src,
            "target": _dst,
            "inputs": [Port("IN", _src)],
            "outputs": [Port("OUT", _dst)],
        })
        globals()[_name] = register(_cls)
del _src, _dst, _name, _cls


@register
class TRUNC(Block):
    """Truncate a REAL toward zero to an integer type: TRUNC(DINT) gives a DINT.

    matiec's TRUNC is a C cast, ``(DINT)x``: in the target's range the value
    truncated toward zero. Beyond it C says nothing, and this follows what gcc
    makes of the cast on x86-64, where Beremiz and OpenPLC run on a PC (checked
    with iec2c 6bb2c339df6f): SINT, INT, DINT, USINT and UINT convert through a
    32-bit integer and UDINT and LINT through a 64-bit one, keeping its low bits
    (TRUNC(INT) of 70000.5 is 4464, of -2.7 as USINT 254); a value beyond that
    integer, NaN or an infinity gives its lowest value, -2**31 or -2**63, then
    cut (0 for all but DINT and LINT); ULINT takes values up to 2**64 and gives
    0 above, 2**63 below -2**63 and for NaN. (ARM processors saturate instead.)
    """
    family = "convert"
    types = {"I": ANY_INT, "R": ANY_REAL}  # the output first: TRUNC(DINT)
    inputs = [Port("IN", "R")]
    outputs = [Port("OUT", "I")]
    helpers = {"_conv_trunc": _conv_trunc}

    def code(self, io):
        tp, x = io.I, io.IN
        value = tp.wrap(f"_conv_trunc({x})")
        if tp.bits == 64 and not tp.signed:
            return (f"{io.OUT} = {value} if -9223372036854775808.0 <= {x} < 18446744073709551616.0"
                    f" else (0 if {x} >= 18446744073709551616.0 else 9223372036854775808)")
        if tp.bits < 32 or tp.bits == 32 and tp.signed:
            inside, lowest = f"-2147483649.0 < {x} < 2147483648.0", -(1 << 31)
        else:
            inside, lowest = f"-9223372036854775808.0 <= {x} < 9223372036854775808.0", -(1 << 63)
        return f"{io.OUT} = {value} if {inside} else {tp.wrap_value(lowest)}"


__all__ = ["Conversion", "TRUNC", "round_half_away", "round_matiec", "round_matiec_unsigned",
           "CONVERTIBLE"] + sorted(
    f"{a}_TO_{b}" for a in CONVERTIBLE for b in CONVERTIBLE if a is not b)
