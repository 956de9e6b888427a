"""A function block written in ST, IL or SFC tested alone (``Harness.block``) or
placed in a network with inputs left open: every open input starts at its
declared initial value, else its type's, for inputs of every elementary type,
arrays, structures, enumerations, subranges and derived types."""

import datetime

import pytest

from fbd import Network
from fbd.st.project import load
from fbd.testing import Harness

TYPES = """
TYPE
  Mode : (IDLE, RUN) := RUN;
  Point : STRUCT x : INT := 4; tm : TIME := T#1s; END_STRUCT;
  Cnt : DINT := 7;
  Lvl : INT (0..100) := 50;
  Row : ARRAY[1..2] OF TIME := [T#2s, T#3s];
END_TYPE
"""
INPUTS = """
VAR_INPUT
  PT : TIME := T#1s500ms; b : BOOL := TRUE; si : SINT := -5; i : INT; di : DINT; li : LINT;
  us : USINT; ui : UINT; ud : UDINT; ul : ULINT := 18446744073709551615;
  r : REAL := 1.5; lr : LREAL; bt : BYTE := 16#0F; w : WORD; dw : DWORD; lw : LWORD;
  s : STRING := 'abc'; d : DATE := D#2024-01-31; tod1 : TOD := TOD#12:00:00;
  dt1 : DT := DT#2024-01-31-12:00:00; t0 : TIME;
  m : Mode; p : Point; c : Cnt; lv : Lvl; rw : Row; a : ARRAY[1..2] OF DATE := [D#2020-01-01];
END_VAR
VAR_OUTPUT et : TIME; o : STRING; END_VAR
"""
BODIES = {
    "ST": "  et := PT + rw[2] + p.tm;\n  o := s;\n",
    "IL": "  LD PT\n  ADD rw[2]\n  ADD p.tm\n  ST et\n  LD s\n  ST o\n",
    "SFC": ("  INITIAL_STEP start: go(N); END_STEP\n"
            "  ACTION go:\n    et := PT + rw[2] + p.tm;\n    o := s;\n  END_ACTION\n"),
}
EXPECTED = {
    "PT": datetime.timedelta(seconds=1.5), "b": True, "si": -5, "i": 0, "di": 0, "li": 0,
    "us": 0, "ui": 0, "ud": 0, "ul": 18446744073709551615, "r": 1.5, "lr": 0.0, "bt": 15,
    "w": 0, "dw": 0, "lw": 0, "s": "abc", "d": datetime.date(2024, 1, 31),
    "tod1": datetime.time(12), "dt1": datetime.datetime(2024, 1, 31, 12),
    "t0": datetime.timedelta(0), "m": "RUN",
    "p": {"x": 4, "tm": datetime.timedelta(seconds=1)}, "c": 7, "lv": 50,
    "rw": [datetime.timedelta(seconds=2), datetime.timedelta(seconds=3)],
    "a": [datetime.date(2020, 1, 1), datetime.date(1970, 1, 1)],
}


def fb(language: str):
    text = f"{TYPES}\nFUNCTION_BLOCK Fb\n{INPUTS}\n{BODIES[language]}END_FUNCTION_BLOCK\n"
    return load(f"fb_{language}.st", text=text).blocks["Fb"]


@pytest.mark.parametrize("language", BODIES)
def test_an_fb_alone_starts_every_input_at_its_initial_value(language):
    h = Harness.block(fb(language)())
    h.scan()
    assert {name: h.get(name) for name in EXPECTED} == EXPECTED
    assert h.get("et") == datetime.timedelta(seconds=5.5) and h.get("o") == "abc"
    h.set(PT="T#1s", s="xyz").scan()
    assert h.get("et") == datetime.timedelta(seconds=5) and h.get("o") == "xyz"


@pytest.mark.parametrize("language", BODIES)
def test_an_fb_in_a_network_with_its_inputs_open_starts_them_at_their_initial_values(language):
    net = Network("open")
    inst = net.add("f", fb(language)())
    net.output("et", inst.et)
    h = Harness(net)
    h.scan()
    assert h.get("et") == datetime.timedelta(seconds=5.5)
    assert {name: h.get(f"f.{name}") for name in EXPECTED} == EXPECTED
