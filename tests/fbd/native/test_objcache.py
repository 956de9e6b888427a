"""The cache of machine code on disk (fbd.native.objcache): a second build takes
its objects from it and scans the same, on the batch and the scalar engine; any
change of IR, LLVM, target or CPU is another key; a torn or altered entry is a
miss and is replaced; it is off with FBD_NATIVE_CACHE=off and keeps to its size."""

from __future__ import annotations

import os

import numpy as np
import pytest

import blocks
import fbd
from fbd import BOOL, INT, Network
from fbd.batch import BatchHarness
from fbd.native import apart, objcache
from fbd.native.objcache import ObjectCache, cache_directory
from fbd.st import pyemit
from fbd.st.project import load as load_st
from tests.fbd.native.test_st_instances import APART

llvm = pytest.importorskip("llvmlite.binding")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FBD_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FBD_NATIVE_CACHE", "on")     # the suite's conftest turns it off
    return tmp_path / "native"


@pytest.fixture
def emitted(monkeypatch):
    """How many modules LLVM's code generator has made objects of."""
    calls = []
    real = llvm.TargetMachine.emit_object

    def emit(self, module):
        calls.append(module)
        return real(self, module)
    monkeypatch.setattr(llvm.TargetMachine, "emit_object", emit)
    return calls


def counter() -> Network:
    net = Network("CacheCounter")
    ctu = net.add("ctu", blocks.CTU(), CU=net.input("PULSE", BOOL), R=net.input("RESET", BOOL),
                  PV=net.input("LIMIT", INT, 3))
    net.output("CV", ctu.CV)
    net.output("Q", ctu.Q)
    return net


def _run(h: BatchHarness) -> list:
    out = []
    for k in range(6):
        h.set(PULSE=np.arange(h.n) % (k + 2) == 0).scan()
        out.append((h.get("CV").tolist(), h.get("Q").tolist()))
    return out


def test_a_second_build_takes_its_machine_code_from_the_cache_and_scans_the_same(
        cache_dir, emitted):
    first = _run(BatchHarness(counter(), n=20, engine="native"))
    assert len(emitted) == 1 and len(list(cache_dir.glob("*/*.o"))) == 1
    again = _run(BatchHarness(counter(), n=20, engine="native"))
    assert len(emitted) == 1            # nothing compiled the second time
    assert again == first


def test_the_scalar_engine_takes_a_second_builds_chunks_and_groups_from_the_cache(
        cache_dir, emitted, monkeypatch):
    # an ST program's procedures compiled apart in groups (fbd.native.apart), some by
    # the thread that compiles ahead: every object of the second build is the first's
    monkeypatch.setattr(pyemit, "PART_STATEMENTS", 2)
    monkeypatch.setattr(apart, "FULL_OPTIMISE_LINES", 0)
    monkeypatch.setattr(apart, "AHEAD_LINES", 0)
    monkeypatch.setattr(apart, "GROUP_LINES", 1)
    net = load_st("apart.st", text=APART).network("prg")
    runs = []
    for _ in range(2):
        plc = fbd.Plc(net, engine="native")
        plc.scan(8)
        runs.append([plc.get(f"prg.{name}") for name in ("a", "b", "n", "ad.total")])
    made = len(list(cache_dir.glob("*/*.o")))
    assert made > 5 and len(emitted) == made       # the second build compiled nothing
    assert runs[0] == runs[1] and runs[0][2] > 0


def test_another_program_or_target_is_another_key(tmp_path):
    cache = ObjectCache("llvmlite 1\nLLVM 2\ntriple\ncpu\n+avx2\nopt=0", tmp_path)
    cache.put("define void @f() {}", b"object bytes")
    assert cache.get("define void @f() {}") == b"object bytes"
    assert cache.get("define void @g() {}") is None
    for changed in ("llvmlite 2\nLLVM 2\ntriple\ncpu\n+avx2\nopt=0",
                    "llvmlite 1\nLLVM 2\ntriple\nother-cpu\n+avx2\nopt=0",
                    "llvmlite 1\nLLVM 2\ntriple\ncpu\n-avx2\nopt=0",
                    "llvmlite 1\nLLVM 2\ntriple\ncpu\n+avx2\nopt=2"):
        assert ObjectCache(changed, tmp_path).get("define void @f() {}") is None, changed


def test_the_salt_names_what_decides_the_object_code():
    llvm.initialize_native_target()
    machine = llvm.Target.from_default_triple().create_target_machine()
    salt = objcache.target_salt(llvm, machine, "somecpu", "+feature", "opt=0").split("\n")
    import llvmlite
    assert salt[0] == llvmlite.__version__ and salt[2] == machine.triple
    assert salt[3:] == ["somecpu", "+feature", "opt=0"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_damaged_entry_is_a_miss_and_the_build_replaces_it(cache_dir, emitted, damage):
    first = _run(BatchHarness(counter(), n=20, engine="native"))
    (entry,) = cache_dir.glob("*/*.o")
    data = bytearray(entry.read_bytes())
    if damage == "flip":
        data[-100] ^= 0xFF
    entry.write_bytes(bytes(data[:len(data) // 2] if damage == "truncate" else
                            b"" if damage == "empty" else data))
    assert _run(BatchHarness(counter(), n=20, engine="native")) == first
    assert len(emitted) == 2            # compiled again ...
    assert _run(BatchHarness(counter(), n=20, engine="native")) == first
    assert len(emitted) == 2            # ... and kept intact


def test_off_with_the_environment_variable(cache_dir, emitted, monkeypatch):
    monkeypatch.setenv("FBD_NATIVE_CACHE", "off")
    assert cache_directory() is None
    BatchHarness(counter(), n=20, engine="native")
    BatchHarness(counter(), n=20, engine="native")
    assert len(emitted) == 2 and not cache_dir.exists()


def test_the_directory_follows_xdg_without_fbd_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("FBD_CACHE_DIR", raising=False)
    monkeypatch.setenv("FBD_NATIVE_CACHE", "on")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_directory() == tmp_path / "fbd" / "native"


def test_the_size_is_checked_at_the_first_put_and_then_every_sixteenth_of_it(
        tmp_path, monkeypatch):
    # the check lists the whole directory: not once per group of a big program
    monkeypatch.setattr(objcache, "MAX_BYTES", 16_000)
    checks = []
    monkeypatch.setattr(ObjectCache, "_trim", lambda self: checks.append(1))
    cache = ObjectCache("salt", tmp_path)
    for k in range(10):
        cache.put(f"ir {k}", bytes(400))
    assert len(checks) == 4        # puts 1, 4, 7 and 10: after 1,000 bytes each time


def test_a_cache_it_cannot_write_is_no_cache(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    cache = ObjectCache("salt", blocked / "native")
    cache.put("ir", b"object")
    assert cache.get("ir") is None


def test_the_cache_keeps_to_its_size_removing_what_was_used_least_recently(tmp_path, monkeypatch):
    monkeypatch.setattr(objcache, "MAX_BYTES", 2500)
    cache = ObjectCache("salt", tmp_path)
    for k, name in enumerate(("a", "b")):
        cache.put(name, bytes(1000))
        os.utime(next(p for p in tmp_path.glob("*/*.o") if cache.key(name)[2:] in p.name),
                 (1000 + k, 1000 + k))
    assert cache.get("a") is not None   # used now: b is the least recent
    cache.put("c", bytes(1000))
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None
