"""The names the semantic layer knows without a declaration: the IEC 61131-3
standard functions and function blocks, with the interfaces a call is checked
against, as matiec's library has them (its ``lib/*.txt``; a test parses
those files and compares).

A :class:`Library` answers by name, case-insensitively, including the typed
variants (``ADD_INT``, ``MUX_INT_BOOL``, ``MAX_REAL``) and the conversions
(``INT_TO_REAL``, ``BCD_TO_WORD``, ``TRUNC``) that matiec generates. Whoever
compiles programs for an engine passes its own library (the engine's blocks)
or extends :data:`STANDARD` with :meth:`Library.extended`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ELEMENTARY_TYPES = frozenset("""BOOL SINT INT DINT LINT USINT UINT UDINT ULINT BYTE WORD DWORD LWORD
REAL LREAL TIME LTIME DATE TOD DT STRING WSTRING""".split())
INTEGER_TYPES = frozenset("SINT INT DINT LINT USINT UINT UDINT ULINT".split())
BIT_STRING_TYPES = frozenset("BOOL BYTE WORD DWORD LWORD".split())
# spellings of elementary types that name the same type
TYPE_ALIASES = {"TIME_OF_DAY": "TOD", "DATE_AND_TIME": "DT"}

#: matiec parses WSTRING but cannot compile it: iec2c stops with an internal error
#: on a WSTRING variable or "..." literal, its C library has no WSTRING type, and
#: its standard functions take none (checked with iec2c 6bb2c339df6f)
WSTRING_REFUSED = ("WSTRING is not supported: matiec refuses it too (iec2c stops with an internal "
                   "error, its library has no WSTRING); use STRING and 'single-quoted' literals")
WSTRING_LITERAL_REFUSED = ("a \"double-quoted\" string is a WSTRING literal, which matiec refuses too "
                           "(iec2c has no operation on WSTRING); write a STRING as 'single-quoted'")
#: iec2c: "C code generator does not currently support anonymous enumerated data types"
ANONYMOUS_ENUM_REFUSED = ("an enumeration declared in a variable's or member's type is refused "
                          "(matiec refuses it too: no anonymous enumerations); declare it in "
                          "TYPE ... END_TYPE and name it")


@dataclass(frozen=True)
class LibraryPou:
    """A function or function block the library provides.

    ``extensible`` is the prefix of an input group of any size (``IN`` for
    ADD's IN1, IN2, ...), numbered from ``first``. Every one also takes EN
    and gives ENO, as matiec adds them.
    """
    name: str
    kind: str                           # FUNCTION or FUNCTION_BLOCK
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    in_outs: tuple[str, ...] = ()
    internals: tuple[str, ...] = ()     # an FB's own variables, readable as inst.NAME (matiec allows)
    extensible: str | None = None
    first: int = 1

    def has_input(self, name: str) -> bool:
        key = name.upper()
        if key == "EN" or key in self.inputs or key in self.in_outs:
            return True
        if self.extensible and key.startswith(self.extensible):
            digits = key[len(self.extensible):]
            return digits.isdigit() and int(digits) >= self.first
        return False

    def has_output(self, name: str) -> bool:
        key = name.upper()
        return key == "ENO" or key in self.outputs or key in self.in_outs

    def describe(self) -> str:
        ins = list(self.inputs)
        if self.extensible:
            ins.append(f"{self.extensible}{self.first}..{self.extensible}n")
        return (f"inputs {', '.join(ins) or 'none'}; outputs {', '.join(self.outputs) or 'none'}"
                + (f"; in-outs {', '.join(self.in_outs)}" if self.in_outs else ""))


def _fn(name, inputs="IN", outputs="OUT", extensible=None, first=1):
    return LibraryPou(name, "FUNCTION", tuple(inputs.split()), tuple(outputs.split()),
                      extensible=extensible, first=first)


def _fb(name, inputs, outputs, internals=""):
    return LibraryPou(name, "FUNCTION_BLOCK", tuple(inputs.split()), tuple(outputs.split()),
                      internals=tuple(internals.split()))


_FUNCTIONS = [
    *(_fn(n) for n in "ABS SQRT LN LOG EXP SIN COS TAN ASIN ACOS ATAN MOVE NOT LEN TRUNC".split()),
    *(_fn(n, "", extensible="IN") for n in "ADD MUL AND OR XOR MAX MIN GT GE EQ LE LT CONCAT".split()),
    *(_fn(n, "IN1 IN2") for n in """SUB DIV MOD EXPT NE FIND ADD_TIME ADD_TOD_TIME ADD_DT_TIME SUB_TIME
        SUB_DATE_DATE SUB_TOD_TIME SUB_TOD_TOD SUB_DT_TIME SUB_DT_DT MULTIME DIVTIME
        CONCAT_DATE_TOD""".split()),
    *(_fn(n, "IN N") for n in "SHL SHR ROL ROR".split()),
    _fn("SEL", "G IN0 IN1"), _fn("LIMIT", "MN IN MX"), _fn("MUX", "K", extensible="IN", first=0),
    _fn("LEFT", "IN L"), _fn("RIGHT", "IN L"), _fn("MID", "IN L P"), _fn("INSERT", "IN1 IN2 P"),
    _fn("DELETE", "IN L P"), _fn("REPLACE", "IN1 IN2 L P"),
]

_BLOCKS = [
    _fb("SR", "S1 R", "Q1"), _fb("RS", "S R1", "Q1"),
    _fb("R_TRIG", "CLK", "Q", "M"), _fb("F_TRIG", "CLK", "Q", "M"),
    *(_fb("CTU" + s, "CU R PV", "Q CV", "CU_T") for s in ("", "_DINT", "_LINT", "_UDINT", "_ULINT")),
    *(_fb("CTD" + s, "CD LD PV", "Q CV", "CD_T") for s in ("", "_DINT", "_LINT", "_UDINT", "_ULINT")),
    *(_fb("CTUD" + s, "CU CD R LD PV", "QU QD CV", "CD_T CU_T")
      for s in ("", "_DINT", "_LINT", "_UDINT", "_ULINT")),
    *(_fb(n, "IN PT", "Q ET", "STATE PREV_IN CURRENT_TIME START_TIME") for n in ("TP", "TON", "TOF")),
    _fb("RTC", "IN PDT", "Q CDT", "PREV_IN OFFSET CURRENT_TIME"),
    _fb("SEMA", "CLAIM RELEASE", "BUSY", "Q_INTERNAL"),
    _fb("PID", "AUTO PV SP X0 KP TR TD CYCLE", "XOUT", "ERROR ITERM DTERM"),
    _fb("RAMP", "RUN X0 X1 TR CYCLE", "BUSY XOUT", "XI T"),
    _fb("HYSTERESIS", "XIN1 XIN2 EPS", "Q"),
    _fb("INTEGRAL", "RUN R1 XIN X0 CYCLE", "Q XOUT"),
    _fb("DERIVATIVE", "RUN XIN CYCLE", "XOUT", "X1 X2 X3"),
]

_TYPE_NAMES = "|".join(sorted(ELEMENTARY_TYPES | {"TIME_OF_DAY", "DATE_AND_TIME"}, key=len, reverse=True))
_TYPED = re.compile(rf"([A-Z]+)((?:_(?:{_TYPE_NAMES}))+)")

# The conversions matiec's library has (lib/standard_functions.txt), by source type.
_NUMBERS = frozenset("BOOL SINT INT DINT LINT USINT UINT UDINT ULINT BYTE WORD DWORD LWORD REAL LREAL"
                     .split())
_UNSIGNED = frozenset("USINT UINT UDINT ULINT".split())
_BCD_WORDS = frozenset("BYTE WORD DWORD LWORD".split())
_CONVERSIONS = {
    **{n: _NUMBERS | {"DATE", "DT", "STRING", "TIME", "TOD"} for n in _NUMBERS},
    "DATE": _NUMBERS | {"DATE", "STRING"},
    "DT": _NUMBERS | {"DATE", "DT", "STRING", "TOD"},
    "TIME": _NUMBERS | {"STRING", "TIME"},
    "TOD": _NUMBERS | {"STRING", "TOD"},
    "STRING": _NUMBERS | {"DATE", "DT", "TIME", "TOD"},
}
_CONVERSION = re.compile(r"(\w+?)_TO_(\w+)")


def conversion_exists(name: str) -> bool:
    """Whether ``X_TO_Y`` (upper case) is one of matiec's conversion functions."""
    m = _CONVERSION.fullmatch(name)
    if m is None:
        return False
    source, target = m.groups()
    if (source, target) in (("DATE_AND_TIME", "DATE"), ("DATE_AND_TIME", "TIME_OF_DAY")):
        return True
    if source == "BCD" or source.endswith("_BCD") and source[:-4] in _BCD_WORDS:
        return target in _UNSIGNED
    if target == "BCD" or target.startswith("BCD_") and target[4:] in _BCD_WORDS:
        return source in _UNSIGNED
    return target in _CONVERSIONS.get(source, ())


class Library:
    """Library POUs by name (case-insensitive), typed variants and conversions included."""

    def __init__(self, pous=(), *, conversions: bool = True):
        self._pous = {p.name.upper(): p for p in pous}
        self._conversions = conversions

    def extended(self, pous) -> "Library":
        """A library with these POUs added (a name already known is replaced)."""
        return Library([*self._pous.values(), *pous], conversions=self._conversions)

    def lookup(self, name: str) -> LibraryPou | None:
        key = name.upper()
        pou = self._pous.get(key)
        if pou is not None:
            return pou
        if not self._conversions:
            return None
        if conversion_exists(key):
            return _fn(key)
        m = _TYPED.fullmatch(key)
        if m is not None:
            base = self._pous.get(m.group(1))
            if base is not None and base.kind == "FUNCTION":
                return LibraryPou(key, base.kind, base.inputs, base.outputs, extensible=base.extensible,
                                  first=base.first)
        return None

    def __contains__(self, name: str) -> bool:
        return self.lookup(name) is not None

    def names(self) -> list[str]:
        return sorted(self._pous)

    def parameter_names(self) -> frozenset:
        """Every input, output and internal name of the library's POUs."""
        found = {"EN", "ENO"}
        for p in self._pous.values():
            found.update(p.inputs, p.outputs, p.in_outs, p.internals)
            if p.extensible:
                found.add(p.extensible)
                found.update(f"{p.extensible}{i}" for i in range(p.first, 10))
        return frozenset(found)


#: the IEC 61131-3 standard functions and FBs, with matiec's additions
STANDARD = Library([*_FUNCTIONS, *_BLOCKS])
#: no library at all: for analysing a library's own source (matiec's lib/*.txt)
EMPTY = Library(conversions=False)
