"""A block alone or a network, driven as the matiec oracle drives a program (values
written just before a scan, kept until written again) and read back as the oracle
prints its rows, on any engine: a test records the oracle's rows once and checks
every engine against them."""

from fbd.batch import BatchHarness
from fbd.compiler.interp import Interpreter
from fbd.network import Network
from fbd.testing import Harness
from fbd.types import REAL
from tests.fbd.st import scans
from tests.fbd.st.scans import text

#: the Python engine, the native one, the interpreter, the batch engine (three
#: instances, which must agree with each other)
ENGINES = ("python", "native", "interpreter", "batch")


class _Scalar:
    """A Harness's or the interpreter's verbs, as the batch's below."""

    def __init__(self, runner):
        self.runner = runner

    def set(self, name, value):
        self.runner.set(name, value)

    def scan(self):
        self.runner.scan()

    def get(self, path):
        return self.runner.get(path)


class _Batched(_Scalar):
    def set(self, name, value):
        self.runner.set({name: value})

    def get(self, path):
        raw = self.runner.get_raw(path)
        first = raw[0].item()
        assert all(x.item() == first or x != x for x in raw), (path, raw)
        return self.runner.flat.signal(path).type.to_python(first)


def block_rows(element, columns: list[str], scans: int, sets: dict, engine: str = "python",
               cycle_ms: int = 5) -> str:
    """``scan,t_ms,<columns>`` lines (no header) of ``element``, a block alone
    (``Harness.block``) or a network, on ``engine``; ``sets`` maps a scan number to
    ``{input: value}`` written before it, ``columns`` are signal paths (``XOUT``,
    ``blk.ITERM.XOUT``, an input's name)."""
    options = {"cycle": cycle_ms / 1000, "engine": "native" if engine == "native" else "python"}
    h = Harness(element, **options) if isinstance(element, Network) else \
        Harness.block(element, **options)
    program = h.plc.program
    if engine == "interpreter":
        run = _Scalar(Interpreter(program, cycle_us=cycle_ms * 1000))
    elif engine == "batch":
        run = _Batched(BatchHarness(h.network, n=3, cycle=cycle_ms / 1000))
    else:
        run = _Scalar(h.plc)
    reals = {c: program.signal(c).type is REAL for c in columns}
    out = []
    for k in range(1, scans + 1):
        for name, value in sets.get(k, {}).items():
            run.set(name, value)
        run.scan()
        out.append(",".join([str(k), str((k - 1) * cycle_ms)]
                            + [text(run.get(c), reals[c]) for c in columns]))
    return "\n".join(out)


def st_program(fb: str, instance: str, ports: dict) -> str:
    """``PROGRAM main`` calling ``instance : fb`` with each input from a variable of
    its name in lower case, which the oracle's --set writes."""
    decls = "\n".join(f"    {port.lower()} : {tp};" for port, tp in ports.items())
    args = ", ".join(f"{port} := {port.lower()}" for port in ports)
    return f"""PROGRAM main
  VAR
{decls}
    {instance} : {fb};
  END_VAR
  {instance}({args});
END_PROGRAM
"""


def st_sets(sets: dict) -> dict:
    return {k: {port.lower(): value for port, value in values.items()} for k, values in sets.items()}


def assert_rows(element, columns: list[str], sets: dict, oracle: str, engine: str,
                cycle_ms: int = 5) -> None:
    """``element`` on ``engine`` prints the ``oracle``'s rows (CSV with its header), one
    per scan, the oracle's columns read from ``columns``."""
    want = scans.expected(oracle)
    assert block_rows(element, columns, len(want.splitlines()), sets, engine, cycle_ms) == want


def assert_st_rows(fb: str, instance: str, ports: dict, sets: dict, oracle: str) -> None:
    """:func:`st_program` prints the ``oracle``'s rows, its columns named as the
    oracle's header names them (``ctrl.XOUT``)."""
    want = scans.expected(oracle)
    columns = oracle.strip().splitlines()[0].split(",")[2:]
    got = scans.rows(st_program(fb, instance, ports), columns, len(want.splitlines()),
                     st_sets(sets))
    assert got == want
