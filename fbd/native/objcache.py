"""Machine code made by LLVM, kept on disk between processes.

Code generation is most of a native build that is the same from one run to
the next (the 2048 program's batch scan: 0.08 s of its 0.2 s build, run after
run of a Monte-Carlo study). :class:`ObjectCache` keeps the object file LLVM
emits for a module, keyed by the SHA-256 of everything that decides its bytes:
the module's IR text, and the cache's *salt*, which is llvmlite's and LLVM's
versions, the target triple, the CPU's name and features, and the code
generator's options. Any change to one gives another key, so an entry is
never used for code it was not made from; stale entries are left to the size
limit, which removes the least recently used (checked at a cache's first put,
then every sixteenth of the limit it puts: the check lists the directory).

Where: ``$FBD_CACHE_DIR/native``, else ``$XDG_CACHE_HOME/fbd/native``, else
``~/.cache/fbd/native`` (made private to the user: what is there becomes
machine code of this process). ``FBD_NATIVE_CACHE=off`` (or ``0``, ``no``,
``false``) turns it off. An entry holds the SHA-256 of its object bytes; an
entry that does not match (a torn or tampered file) is a miss and is
replaced. A cache that cannot be read or written is no cache: the code is
compiled as without one, and nothing is reported.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

#: The cache keeps at most about this many bytes; beyond, the entries used
#: least recently go.
MAX_BYTES = 256 << 20
_MAGIC = b"FBDOBJ1\n"
_DIGEST = 32
_OFF = ("0", "off", "no", "false")


def cache_directory() -> Path | None:
    """Where the cache lies (see the module docstring), or None where it is off."""
    if os.environ.get("FBD_NATIVE_CACHE", "").strip().lower() in _OFF:
        return None
    base = os.environ.get("FBD_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "fbd")
    return Path(base) / "native"


def target_salt(llvm, machine, cpu: str, features: str, options: str) -> str:
    """What besides the IR decides the object code: the versions of llvmlite and
    LLVM, the target machine's triple, the CPU and its features, and the code
    generator's ``options`` (its optimisation level, code model, ...)."""
    import llvmlite
    version = ".".join(map(str, llvm.llvm_version_info))
    return "\n".join([llvmlite.__version__, version, machine.triple, cpu, features, options])


class ObjectCache:
    """Object files by their module's IR text, under :func:`cache_directory`
    (``directory`` overrides it; None: no cache, :meth:`get` always misses)."""

    def __init__(self, salt: str, directory: Path | None | str = "default"):
        self.directory = cache_directory() if directory == "default" else directory
        self.salt = salt.encode()
        #: bytes put since the size was last checked (None: not checked yet); the
        #: check lists the whole directory, so it runs at the first put and then
        #: every MAX_BYTES / 16 (a big program puts a group's object at a time)
        self._unchecked: int | None = None

    def key(self, ir: str) -> str:
        return hashlib.sha256(self.salt + b"\0" + ir.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.o"

    def get(self, ir: str) -> bytes | None:
        """The object file of ``ir``, or None (not there, off, or not intact)."""
        if self.directory is None:
            return None
        path = self._path(self.key(ir))
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head, digest, obj = data[:len(_MAGIC)], data[len(_MAGIC):len(_MAGIC) + _DIGEST], \
            data[len(_MAGIC) + _DIGEST:]
        if head != _MAGIC or hashlib.sha256(obj).digest() != digest:
            return None     # replaced by the put() that follows the compile
        try:
            os.utime(path)  # recently used: the size limit removes others first
        except OSError:
            pass
        return obj

    def put(self, ir: str, obj: bytes) -> None:
        """Keep ``obj``, the object file of ``ir`` (written whole or not at all)."""
        if self.directory is None:
            return
        path = self._path(self.key(ir))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(self.directory, 0o700)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(obj).digest() + obj)
            os.replace(tmp, path)
            if self._unchecked is None or self._unchecked >= MAX_BYTES // 16:
                self._trim()
                self._unchecked = 0
            self._unchecked += len(obj)
        except OSError:
            pass

    def _trim(self) -> None:
        entries = []
        for path in self.directory.glob("*/*.o"):
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= MAX_BYTES:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size


__all__ = ["ObjectCache", "cache_directory", "target_salt", "MAX_BYTES"]
