"""Small JSON files in the user's data directory (best scores, settings).

The directory is Qt's ``QStandardPaths.AppDataLocation`` for the application
name the shell sets (``fbd-sim``): ``~/.local/share/fbd-sim`` on Linux,
``%APPDATA%/fbd-sim`` on Windows. A file that cannot be read or parsed is
ignored with a logged warning (the caller gets its default): a corrupt best
score must never stop a game from opening. Writes go to a temporary file that
replaces the old one, so a crash mid-write leaves the previous file.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from PyQt6.QtCore import QStandardPaths

__all__ = ["data_dir", "load_json", "save_json"]

log = logging.getLogger("hmi")


def data_dir() -> Path:
    """The application's writable data directory (not created)."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    if not location:
        raise OSError("Qt reports no writable application data directory")
    return Path(location)


def load_json(path: Path, default=None):
    """The JSON value in ``path``; ``default`` if it is missing, unreadable or not JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except OSError as e:
        log.warning("cannot read %s (%s); ignoring it", path, e)
    except ValueError as e:        # not UTF-8, or not JSON
        log.warning("%s is not valid JSON (%s); ignoring it", path, e)
    return default


def save_json(path: Path, value) -> None:
    """Write ``value`` as JSON to ``path`` atomically, creating its directory."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
