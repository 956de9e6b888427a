"""MEMORY, SR, RS, SEMA, LIFO and FIFO."""

from datetime import timedelta

import pytest

from blocks.memory import FIFO, LIFO, MEMORY, RS, SEMA, SR
from fbd import BOOL, INT, REAL, STRING, TIME
from fbd.block import registry
from fbd.errors import WiringError
from fbd.testing import Harness
from tests.blocks.agreement import assert_agrees_with_interpreter
from tests.blocks.scenario import ENGINES, assert_rows, assert_st_rows


# ---------------------------------------------------------------------- MEMORY
def test_memory_stores_in_while_set_and_keeps_it_after():
    h = Harness.block(MEMORY(INT))
    h.set(IN=5).scan()
    h.expect(OUT=0)                    # SET FALSE: nothing stored yet
    h.set(SET=True).scan()
    h.expect(OUT=5)
    h.set(IN=6).scan()
    h.expect(OUT=6)                    # level-sensitive: follows IN while SET
    h.set(SET=False, IN=7).scan(3)
    h.expect(OUT=6)


def test_memory_reset_clears_to_the_default_and_beats_set():
    h = Harness.block(MEMORY(INT)).set(IN=42, SET=True)
    h.scan()
    h.set(RST=True).scan()
    h.expect(OUT=0)
    h.set(RST=False).scan()
    h.expect(OUT=42)


@pytest.mark.parametrize("tp, value, default", [
    (BOOL, True, False), (REAL, 2.5, 0.0), (STRING, "2048", ""),
    (TIME, "T#1s", timedelta(0)),
])
def test_memory_is_generic_and_resets_to_each_types_default(tp, value, default):
    h = Harness.block(MEMORY(tp)).set(IN=value, SET=True)
    h.scan()
    assert h.get("OUT") == tp.to_python(tp.coerce(value))
    h.set(RST=True).scan()
    assert h.get("OUT") == default


# ---------------------------------------------------------------------- SR, RS
def test_sr_is_set_dominant():
    h = Harness.block(SR())
    h.run([({}, {"Q1": False}),
           ({"S1": True}, {"Q1": True}),
           ({"S1": False}, {"Q1": True}),            # holds
           ({"R": True}, {"Q1": False}),
           ({"R": False}, {"Q1": False}),
           ({"S1": True, "R": True}, {"Q1": True})])  # both: set wins


def test_rs_is_reset_dominant():
    h = Harness.block(RS())
    h.run([({}, {"Q1": False}),
           ({"S": True}, {"Q1": True}),
           ({"S": False}, {"Q1": True}),             # holds
           ({"S": True, "R1": True}, {"Q1": False}),  # both: reset wins
           ({"R1": False}, {"Q1": True}),
           ({"S": False, "R1": True}, {"Q1": False})])


# ------------------------------------------------------------------------- SEMA
SEMA_SETS = {2: {"CLAIM": True}, 3: {"CLAIM": False}, 5: {"RELEASE": True},
             6: {"CLAIM": True}, 7: {"CLAIM": False}, 8: {"RELEASE": False}}
# matiec (iec2c 6bb2c339df6f): oracle.py sema.st --cycle 5ms --scans 8 --set claim=TRUE@2
#   --set claim=FALSE@3 --set release=TRUE@5 --set claim=TRUE@6 --set claim=FALSE@7
#   --set release=FALSE@8 --watch claim --watch release --watch sem.BUSY
SEMA_ROWS = """
scan,t_ms,claim,release,sem.BUSY
1,0,FALSE,FALSE,FALSE
2,5,TRUE,FALSE,TRUE
3,10,FALSE,FALSE,TRUE
4,15,FALSE,FALSE,TRUE
5,20,FALSE,TRUE,FALSE
6,25,TRUE,TRUE,TRUE
7,30,FALSE,TRUE,FALSE
8,35,FALSE,FALSE,FALSE
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_sema_is_claimed_until_released_and_a_claim_wins_as_matiec_on_every_engine(engine):
    assert_rows(SEMA(), ["CLAIM", "RELEASE", "BUSY"], SEMA_SETS, SEMA_ROWS, engine)


def test_sema_called_from_st_runs_the_block_as_matiec():
    assert_st_rows("SEMA", "sem", {"CLAIM": "BOOL", "RELEASE": "BOOL"}, SEMA_SETS, SEMA_ROWS)


# ------------------------------------------------------------------ LIFO, FIFO
def push(h: Harness, value) -> None:
    h.set(IN=value, PUSH=True).scan()
    h.set(PUSH=False).scan()


def pop(h: Harness):
    """Read the element OUT shows, then remove it (one POP edge)."""
    value = h.get("OUT")
    h.set(POP=True).scan()
    h.set(POP=False).scan()
    return value


def flags(h: Harness) -> dict:
    return {p: h.get(p) for p in ("COUNT", "EMPTY", "FULL", "OVERFLOW", "UNDERFLOW")}


def test_lifo_starts_empty_with_out_at_the_default():
    h = Harness.block(LIFO(INT)).scan()
    h.expect(OUT=0, COUNT=0, EMPTY=True, FULL=False, OVERFLOW=False, UNDERFLOW=False)


def test_lifo_returns_elements_last_in_first_out():
    h = Harness.block(LIFO(INT))
    for v in (1, 2, 3):
        push(h, v)
    h.expect(OUT=3, COUNT=3, EMPTY=False)
    assert [pop(h) for _ in range(3)] == [3, 2, 1]
    h.expect(OUT=0, COUNT=0, EMPTY=True)


def test_fifo_returns_elements_first_in_first_out():
    h = Harness.block(FIFO(INT))
    for v in (1, 2, 3):
        push(h, v)
    h.expect(OUT=1, COUNT=3)
    assert [pop(h) for _ in range(3)] == [1, 2, 3]
    h.expect(OUT=0, EMPTY=True)


@pytest.mark.parametrize("kind", [LIFO, FIFO])
def test_push_and_pop_act_once_per_rising_edge_not_per_scan(kind):
    h = Harness.block(kind(INT)).set(IN=7, PUSH=True)
    h.scan(10)
    h.expect(COUNT=1)
    h.set(PUSH=False, POP=True).scan(10)
    h.expect(COUNT=0, UNDERFLOW=False)


@pytest.mark.parametrize("kind, order", [(LIFO, [4, 3, 2, 1]), (FIFO, [1, 2, 3, 4])])
def test_push_when_full_is_refused_flagged_and_loses_nothing(kind, order):
    h = Harness.block(kind(INT, depth=4))
    for v in (1, 2, 3, 4):
        push(h, v)
    assert flags(h) == {"COUNT": 4, "EMPTY": False, "FULL": True,
                        "OVERFLOW": False, "UNDERFLOW": False}
    push(h, 99)
    push(h, 98)
    assert flags(h) == {"COUNT": 4, "EMPTY": False, "FULL": True,
                        "OVERFLOW": True, "UNDERFLOW": False}
    assert [pop(h) for _ in range(4)] == order      # 99 and 98 never went in
    h.expect(OVERFLOW=False)                        # cleared by the first successful pop


@pytest.mark.parametrize("kind", [LIFO, FIFO])
def test_pop_when_empty_raises_underflow_until_the_next_successful_operation(kind):
    h = Harness.block(kind(INT))
    pop(h)
    h.scan(3)
    assert flags(h) == {"COUNT": 0, "EMPTY": True, "FULL": False,
                        "OVERFLOW": False, "UNDERFLOW": True}
    push(h, 5)
    h.expect(UNDERFLOW=False, COUNT=1, OUT=5)


@pytest.mark.parametrize("kind", [LIFO, FIFO])
def test_rst_empties_and_clears_flags_and_beats_a_push_edge(kind):
    h = Harness.block(kind(INT, depth=2))
    for v in (1, 2, 3):
        push(h, v)
    h.expect(OVERFLOW=True)
    h.set(RST=True, PUSH=True, IN=9).scan()
    h.expect(COUNT=0, EMPTY=True, OVERFLOW=False, UNDERFLOW=False, OUT=0)
    h.set(RST=False).scan()
    h.expect(COUNT=0)       # the PUSH edge fell in the RST scan: dropped, not deferred


def test_lifo_pop_and_push_in_the_same_scan_replace_the_top_even_when_full():
    h = Harness.block(LIFO(INT, depth=2))
    push(h, 1)
    push(h, 2)
    h.set(IN=5, PUSH=True, POP=True).scan()
    h.expect(OUT=5, COUNT=2, OVERFLOW=False, UNDERFLOW=False)
    h.set(PUSH=False, POP=False).scan()
    assert [pop(h), pop(h)] == [5, 1]


def test_fifo_pop_and_push_in_the_same_scan_shift_a_full_queue():
    h = Harness.block(FIFO(INT, depth=2))
    push(h, 1)
    push(h, 2)
    h.set(IN=3, PUSH=True, POP=True).scan()
    h.expect(OUT=2, COUNT=2, OVERFLOW=False)
    h.set(PUSH=False, POP=False).scan()
    assert [pop(h), pop(h)] == [2, 3]


def test_fifo_pop_and_push_on_empty_flags_underflow_and_stores_in():
    h = Harness.block(FIFO(INT))
    h.set(IN=8, PUSH=True, POP=True).scan()
    h.expect(UNDERFLOW=True, OVERFLOW=False, COUNT=1, OUT=8)


def test_lifo_of_depth_729_holds_a_full_sudoku_undo_history():
    h = Harness.block(LIFO(INT, depth=729))
    for v in range(729):
        push(h, v)
    h.expect(COUNT=729, FULL=True, OVERFLOW=False, OUT=728)
    push(h, -1)
    h.expect(COUNT=729, OVERFLOW=True, OUT=728)
    assert [pop(h) for _ in range(729)] == list(range(728, -1, -1))
    h.expect(EMPTY=True, OVERFLOW=False, UNDERFLOW=False)


@pytest.mark.parametrize("tp, values, default", [
    (BOOL, [True, False, True], False),
    (STRING, ["a", "", "2048"], ""),
    (TIME, ["T#1s", "T#5ms", "T#0s"], timedelta(0)),
])
@pytest.mark.parametrize("kind", [LIFO, FIFO])
def test_stores_hold_elements_of_other_types(kind, tp, values, default):
    h = Harness.block(kind(tp, depth=3))
    for v in values:
        push(h, v)
    want = [tp.to_python(tp.coerce(v)) for v in values]
    got = [pop(h) for _ in values]
    assert got == (want[::-1] if kind is LIFO else want)
    assert h.get("OUT") == default


def test_each_plc_gets_its_own_storage_and_a_restart_empties_it():
    block = LIFO(INT)
    a, b = Harness.block(block), Harness.block(block)
    push(a, 1)
    b.scan()
    b.expect(COUNT=0)
    a.plc.restart()
    a.scan()
    a.expect(COUNT=0, OUT=0)


@pytest.mark.parametrize("depth", [0, -1, 32768, 2.0, True, "16"])
def test_depth_must_be_an_int_from_1_to_32767(depth):
    with pytest.raises(WiringError, match="depth"):
        LIFO(INT, depth=depth)


# ----------------------------------------------------------------- declarations
@pytest.mark.parametrize("name", ["MEMORY", "SR", "RS", "SEMA", "LIFO", "FIFO"])
def test_memory_blocks_are_registered_function_blocks_with_a_summary(name):
    cls = registry()[name]
    assert cls.family == "memory" and cls.stateful
    assert cls.summary() and "Ports::" in cls.__doc__


@pytest.mark.parametrize("block", [MEMORY(INT), MEMORY(STRING), SR(), RS(), SEMA(),
                                   LIFO(INT, depth=3), FIFO(BOOL, depth=2),
                                   FIFO(STRING, depth=4)], ids=repr)
def test_memory_blocks_agree_with_the_interpreter(block):
    assert_agrees_with_interpreter(block)
