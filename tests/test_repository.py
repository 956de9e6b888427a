"""The repository stands on its own: every data file has its origin and licence written
beside it, and no file names a folder or document outside the repository."""

import fnmatch
import re

from tests.paths import DATA, ROOT

SKIPPED_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
                "build", "dist", "out"}
# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([
    r"\.\./sha" + "red",                       # a folder beside the clone
    "/wo" + "rk/",                            # an absolute path of one machine
    r"[\"']sha" + r"red[\"']",                # ... built with pathlib
    "DESIGN" + r"\.md",                       # a design file the repository never had
    r"\bseed " + r"0\d\d\b", r"\(seed \d+",   # how the work was organised
    "issue " + r"#\d+", r"\bissue " + r"\d+\b",
]))


def tracked_text_files():
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if (any(p in SKIPPED_DIRS or p.endswith(".egg-info") for p in parts) or not path.is_file()
                or path.suffix in {".png", ".pyc"}):
            continue
        yield path


def test_no_file_names_anything_outside_the_repository():
    found = []
    for path in tracked_text_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def data_folders():
    return ([d for d in sorted(DATA.iterdir()) if d.is_dir()]
            + [ROOT / p for p in ("fbd/data", "tests/benchmark/hidato", "programs/sudoku/puzzles",
                                  "programs/hidato/puzzles")])


def test_every_data_file_is_named_in_its_folders_readme():
    for folder in data_folders():
        readme = (folder / "README.md").read_text()
        assert "licen" in readme.lower(), folder
        named = {n.rstrip("/") for n in
                 set(re.findall(r"`([^`]+)`", readme)) | set(re.findall(r"\]\(([^)]+)\)", readme))}
        for path in folder.iterdir():
            if path.name != "README.md":
                assert any(fnmatch.fnmatch(path.name, name) for name in named), \
                    f"{path.relative_to(ROOT)} is not described in its folder's README"
