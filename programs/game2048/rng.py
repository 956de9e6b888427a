"""The *Random* macro: pseudo-random cell coordinates and the four-flag, from blocks.

The controller has no random function; the article makes one from the clock:

* a **sawtooth** from three blocks — ``saw_add`` adds a step to the previous
  value (a feedback wire), ``saw_top`` compares the sum with the top of the
  ramp, ``saw`` (a SEL) falls back to the bottom when the top is passed;
* **NOW** gives the controller's time in seconds, shifted by the ``Seed``
  input (``clock``: an offset of the clock, which is how a game is seeded);
* ``ratio`` divides the clock by the sawtooth;
* the fractional remainder from the **4th decimal digit** on,
  ``frac(ratio * 1e3)``, compared with 0.1, is the **four-flag** (10 %);
* the fractional remainder from the **6th decimal digit** on,
  ``frac(ratio * 1e5)`` (output ``Fraction``), times 16, floored, and divided
  by 4 with remainder, gives the **row** (quotient) and the **column**
  (remainder), each 0..3 (the article adds 1 only to show them as 1..4).

A fractional remainder is ``x - TRUNC(x)`` (the values are positive, so TRUNC
is the floor). The numbers are deterministic: the same ``Seed`` and the same
scan number give the same outputs, bit for bit. The ramp's bottom and step are
irrational-looking constants on purpose: with round numbers (a bottom of 1.0)
the quotient of two "round" decimals has few distinct digits and the cells
come out far from uniform. With these constants the 16 cells and the
four-flag are uniform over any run of scans (checked by the tests), and
neighbouring scans give unrelated cells; the one regularity left is that
scans exactly one ramp period (913 scans) apart are related.

Outputs change on every scan, which is what the article's retry placement
relies on: a coordinate that hits an occupied cell is simply replaced by the
next scan's.
"""

from __future__ import annotations

import math

from blocks import ADD, DIV, GT, LINT_TO_LREAL, LT, MOD, MUL, NOW, SEL, SUB, TRUNC
from fbd import INT, LINT, LREAL, Network

#: The sawtooth: from BOTTOM, STEP more every scan, back to BOTTOM past TOP
#: (a period of 913 scans, 4.6 s at 5 ms).
SAW_BOTTOM = 1.7320508076
SAW_STEP = 0.0123456789
SAW_TOP = 13.0
#: Below this, the 4th-decimal remainder means "place a four": 10 %.
FOUR_BELOW = 0.1


#: The seeds' spread: the golden ratio's fractional part (a Weyl sequence).
GOLDEN = 0.6180339887498949


def seed_offset(seed: int) -> float:
    """The clock offset, in seconds, that seeds a game: ``1000 + 1000 * frac((seed mod 10**6) * GOLDEN)``.

    Seeds 0..999999 are distinct games; the offset keeps the clock in
    1000..2000 s plus play time, where the quotient keeps enough digits
    after the 6th decimal place. The offsets are spread by the golden ratio,
    not laid on a grid: games started on the same scan (a Monte-Carlo
    batch) draw their tiles on the same scans, and offsets a whole
    millisecond apart, divided by a sawtooth that starts near 1/81, gave
    them nearly the same fractions there (11 % fours and never a four among
    the first tiles, cells far from uniform among the empty ones).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, not {seed!r}")
    return 1000.0 + 1000.0 * math.modf((seed % 1_000_000) * GOLDEN)[0]


def random_macro() -> Network:
    """Build the *Random* macro (19 blocks).

    Inputs: ``Seed`` (LREAL, seconds added to the clock; default 0.0).
    Outputs: ``Row``, ``Col`` (INT, 0..3), ``Four`` (BOOL, TRUE about one scan
    in ten), ``Fraction`` (LREAL in [0, 1): the 6th-decimal remainder, which
    the smart placement uses to draw among the empty cells).
    """
    net = Network("Random", doc="pseudo-random row, column and four-flag from NOW and a sawtooth")
    seed = net.input("Seed", LREAL, 0.0)
    now = net.add("now", NOW())

    # The sawtooth: three blocks and a feedback wire.
    saw_add = net.add("saw_add", ADD(LREAL), IN2=SAW_STEP)
    saw_top = net.add("saw_top", GT(LREAL), IN1=saw_add.OUT, IN2=SAW_TOP)
    saw = net.add("saw", SEL(LREAL), G=saw_top.OUT, IN0=saw_add.OUT, IN1=SAW_BOTTOM)
    net.connect(saw.OUT, saw_add.IN1, feedback=True)

    clock = net.add("clock", ADD(LREAL), IN1=now.SEC, IN2=seed)
    ratio = net.add("ratio", DIV(LREAL), IN1=clock.OUT, IN2=saw.OUT)

    def remainder(name: str, scale: float):
        shifted = net.add(f"{name}_shift", MUL(LREAL), IN1=ratio.OUT, IN2=scale)
        whole = net.add(f"{name}_whole", TRUNC(LINT), IN=shifted.OUT)
        back = net.add(f"{name}_back", LINT_TO_LREAL(), IN=whole.OUT)
        return net.add(f"{name}_frac", SUB(LREAL), IN1=shifted.OUT, IN2=back.OUT)

    digit4 = remainder("digit4", 1e3)
    four = net.add("four", LT(LREAL), IN1=digit4.OUT, IN2=FOUR_BELOW)

    digit6 = remainder("digit6", 1e5)
    x16 = net.add("x16", MUL(LREAL), IN1=digit6.OUT, IN2=16.0)
    cell = net.add("cell", TRUNC(INT), IN=x16.OUT)
    row = net.add("row", DIV(INT), IN1=cell.OUT, IN2=4)
    col = net.add("col", MOD(INT), IN1=cell.OUT, IN2=4)

    net.output("Row", row.OUT)
    net.output("Col", col.OUT)
    net.output("Four", four.OUT)
    net.output("Fraction", digit6.OUT)
    return net
