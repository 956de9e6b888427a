"""Running a .st text scan by scan and printing rows as the matiec oracle
prints them (TRUE/FALSE, T#<ms>ms, decimal integers), so a test compares
with matiec's rows written into it; and reading the value of one of the
oracle's columns from a PLC."""

import datetime
import re

from fbd import types as t
from fbd.real32 import real32_text
from fbd.st.project import load
from fbd.testing import Harness
from fbd.types import DT, REAL
from fbd.values import format_value


def text(value, single: bool = False) -> str:
    """``single``: a REAL, which the oracle shows as the shortest text of its
    single-precision value (``0.1``), an LREAL as Python's repr; a DT as its
    literal (``DT#2024-02-29-23:59:59.99``)."""
    if single:
        return real32_text(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime.datetime):
        return format_value(DT, DT.coerce(value))
    if isinstance(value, datetime.timedelta):
        us = value // datetime.timedelta(microseconds=1)
        return f"T#{us // 1000}ms" if us % 1000 == 0 else f"T#{us / 1000}ms"
    return str(value)


def harness(source: str, program: str = "main", cycle: float = 0.005, name: str = "prog.st",
            engine: str = "auto") -> Harness:
    return Harness(load(name, text=source).network(program), cycle=cycle, engine=engine)


def rows(source: str, columns: list[str], scans: int, sets: dict | None = None, program: str = "main",
         cycle_ms: int = 5, engine: str = "auto") -> str:
    """``scan,t_ms,<columns>`` for each scan; ``sets`` maps a scan number to the
    values written just before it (as the oracle's ``--set``)."""
    h = harness(source, program, cycle_ms / 1000, engine=engine)
    reals = {c: h.plc.program.signal(f"{program}.{c}").type is REAL for c in columns}
    out = []
    for k in range(1, scans + 1):
        for name, value in (sets or {}).get(k, {}).items():
            h.write(f"{program}.{name}", value)
        h.scan()
        out.append(",".join([str(k), str((k - 1) * cycle_ms)]
                            + [text(h.get(f"{program}.{c}"), reals[c]) for c in columns]))
    return "\n".join(out)


def expected(csv: str) -> str:
    """The oracle's CSV without its header line."""
    return "\n".join(line.strip() for line in csv.strip().splitlines()[1:])


def resolve(plc, task_name, signals, program, column):
    """The value of one of matiec's columns (``x``, ``T1.Q``, ``a[3]``, ``g[1,2]``, ``p.X``)."""
    parts = re.findall(r"[A-Za-z_]\w*|\[[^\]]*\]", column)
    for cut in range(len(parts), 0, -1):
        names = [p for p in parts[:cut] if not p.startswith("[")]
        if len(names) != cut:
            continue
        path = signals.get(f"{program}.{'.'.join(names)}".upper())
        if path is not None:
            break
    else:
        raise KeyError(column)
    info = plc.task(task_name).program.signal(path)
    value, tp = plc.get_raw(f"{task_name}:{path}"), info.type
    for part in parts[cut:]:
        c = tp.canonical
        if part.startswith("["):
            indices = [int(x) for x in part[1:-1].split(",")]
            value, tp = value[c.offset(indices)], c.element
        else:
            k = c.field_index(part)
            value, tp = value[k], c.fields[k].type
    c = tp.canonical
    if c.kind is t.Kind.ENUM:
        return c.name_of(value)
    return value


def configuration_rows(source: str, columns: list[str], ticks: int, sets: dict | None = None,
                       tick_ms: int = 10, name: str = "conf.st") -> str:
    """The oracle's rows for a whole CONFIGURATION: one per tick of ``tick_ms``
    (the GCD of its task intervals), ``columns`` named as the oracle names them
    (``inst.var``, a global alone), ``sets`` written just before their tick."""
    plc = load(name, text=source).plc()
    out = []
    for k in range(1, ticks + 1):
        for path, value in (sets or {}).get(k, {}).items():
            plc.set(path, value)
        plc.run_for(f"T#{tick_ms}ms")
        out.append(",".join([str(k), str((k - 1) * tick_ms)] + [text(plc.get(c)) for c in columns]))
    return "\n".join(out)
