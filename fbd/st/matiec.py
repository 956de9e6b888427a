"""matiec's C for an ST program, timed: what the speed of fbd's engines is compared
with (``python -m fbd.st.bench --programs``).

matiec (``iec2c``, the compiler Beremiz and OpenPLC run) turns the program
into C; this module compiles that C with ``gcc -O2`` (``-fwrapv``, as integer
overflow wraps on every PLC) into a harness that runs ``n`` scans the way
OpenPLC's runtime does (the clock set, ``config_run__(tick)``) and prints
the CPU nanoseconds a scan took, for each of several rounds. matiec is not
part of fbd: give its directory (``iec2c`` and ``lib/``) with
``FBD_MATIEC_DIR`` or ``--matiec``; without it, or without gcc, the C column
is left out and the reason printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HARNESS = r"""
#include "iec_std_lib.h"
TIME __CURRENT_TIME;
BOOL __DEBUG = 0;
/* storage for the located variables, as OpenPLC's runtime gives them */
%(located)s
%(includes)s
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
static long long cpu_ns(void) {
  struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
int main(int argc, char **argv) {
  long n = atol(argv[1]); long long cycle = atoll(argv[2]); int rounds = atoi(argv[3]);
  unsigned long tick = 0;
  config_init__();
  for (int r = 0; r <= rounds; r++) {      /* round 0 warms up */
    long long t0 = cpu_ns();
    for (long k = 0; k < n; k++) {
      long long ns = (long long)tick * cycle;
      __CURRENT_TIME.tv_sec = ns / 1000000000LL; __CURRENT_TIME.tv_nsec = ns %% 1000000000LL;
      config_run__(tick++);
    }
    if (r) printf("%%.3f\n", (double)(cpu_ns() - t0) / n);
  }
  return 0;
}
"""


def find(given: str | None = None) -> tuple[Path | None, str]:
    """(matiec's directory, "") or (None, why it cannot be used)."""
    where = given or os.environ.get("FBD_MATIEC_DIR")
    if not where:
        return None, "matiec not given (set FBD_MATIEC_DIR to a directory holding iec2c and lib/)"
    d = Path(where)
    if not os.access(d / "iec2c", os.X_OK) or not (d / "lib").is_dir():
        return None, f"{d} holds no iec2c and lib/"
    if shutil.which("gcc") is None:
        return None, "no gcc to compile matiec's C"
    return d, ""


def with_configuration(text: str, program: str, cycle_ms: int) -> str:
    """The text with a configuration running ``program`` every ``cycle_ms`` when it
    has none (as OpenPLC's editor adds one)."""
    if re.search(r"\bCONFIGURATION\b", text, re.IGNORECASE):
        return text
    return (text + f"\n\nCONFIGURATION Config0\n  RESOURCE Res0 ON PLC\n"
            f"    TASK task0(INTERVAL := T#{cycle_ms}ms, PRIORITY := 0);\n"
            f"    PROGRAM instance0 WITH task0 : {program};\n  END_RESOURCE\nEND_CONFIGURATION\n")


class CProgram:
    """One program built into a timing harness (a temporary directory, removed by
    :meth:`close`)."""

    def __init__(self, matiec: Path, text: str, program: str, cycle_us: int):
        self.cycle_ns = cycle_us * 1000
        self.work = Path(tempfile.mkdtemp(prefix="fbd-matiec-"))
        src = self.work / "prog.st"
        src.write_text(with_configuration(text, program, max(1, cycle_us // 1000)))
        out = self.work / "c"
        out.mkdir()
        lib = matiec / "lib"
        run = subprocess.run([str(matiec / "iec2c"), "-f", "-l", "-p", "-I", str(lib), "-T",
                              str(out), str(src)], capture_output=True, text=True)
        if run.returncode:
            raise RuntimeError(f"iec2c: {(run.stderr or run.stdout).strip()[:300]}")
        includes = "\n".join(f'#include "{c.name}"' for c in sorted(out.glob("*.c"))
                             if c.name != "POUS.c")
        # read as the oracle reads it: iec2c may write other text into the file too
        located = "\n".join(f"{tp} __store{name}; {tp} *{name} = &__store{name};"
                             for tp, name in re.findall(r"__LOCATED_VAR\(\s*(\w+)\s*,\s*(\w+)",
                                                        (out / "LOCATED_VARIABLES.h").read_text()))
        (self.work / "harness.c").write_text(HARNESS % {"includes": includes, "located": located})
        self.exe = self.work / "harness"
        run = subprocess.run(["gcc", "-O2", "-w", "-fwrapv", "-I", str(out), "-I",
                              str(lib / "C"), str(self.work / "harness.c"), "-o", str(self.exe),
                              "-lm"], capture_output=True, text=True)
        if run.returncode:
            raise RuntimeError(f"gcc: {run.stderr.strip()[:300]}")

    def time(self, scans: int, rounds: int) -> list[float]:
        """CPU ns per scan, one figure per round of ``scans`` scans."""
        run = subprocess.run([str(self.exe), str(scans), str(self.cycle_ns), str(rounds)],
                             capture_output=True, text=True, check=True)
        return [float(x) for x in run.stdout.split()]

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)


__all__ = ["find", "CProgram", "with_configuration"]
