"""The repository stands on its own: every data file has its origin and licence written
beside it, and no file names a folder or document outside the repository; and its
packages import one another one way only."""

import ast
import fnmatch
import re

import pytest

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


# -- layers: hmi -> programs -> blocks -> fbd, and inside fbd ---------------------------
#: (the files of, never imports, because)
NEVER = [
    ("fbd", ("blocks", "programs", "hmi", "PyQt6"), "the language knows no block library, "
                                                  "program or screen (entry points find them)"),
    ("blocks", ("programs", "hmi", "PyQt6"), "blocks are the library programs use"),
    ("programs", ("hmi", "PyQt6"), "programs are models without widgets"),
    ("fbd/st", ("fbd.plcopen",), "ST is a front end of its own; PLCopen uses it for text bodies"),
    ("fbd/project.py", ("fbd.st", "fbd.plcopen"), "the project model knows no file format"),
    ("fbd/runtime", ("fbd.st", "fbd.plcopen", "fbd.debug", "fbd.tools"),
     "the runtime runs what the front ends give it"),
]


def imports(path):
    """Every module ``path`` imports (at its top or in a function), relative
    imports resolved; ``from a import b`` gives ``a`` and ``a.b``."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


@pytest.mark.parametrize("where, forbidden, why", NEVER, ids=[n[0] for n in NEVER])
def test_packages_import_each_other_one_way_only(where, forbidden, why):
    top = ROOT / where
    files = [top] if top.suffix == ".py" else sorted(top.rglob("*.py"))
    assert files, where
    found = [f"{path.relative_to(ROOT)} imports {name}" for path in files
             for name in imports(path)
             if any(name == f or name.startswith(f + ".") for f in forbidden)]
    assert not found, f"{why}:\n" + "\n".join(found)


def test_the_import_check_sees_relative_and_lazy_imports(tmp_path, monkeypatch):
    probe = ROOT / "fbd" / "st" / "project.py"
    names = set(imports(probe))
    assert {"fbd.project", "fbd.st.ast", "fbd.errors"} <= names
