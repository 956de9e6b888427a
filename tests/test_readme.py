"""The README works as written: its example passes, its commands come in the order a
newcomer needs them, CI runs its test command verbatim, and what it links exists."""

import re

from tests.paths import ROOT

README = ROOT / "README.md"


def sh_blocks(text: str) -> list[list[str]]:
    return [block.strip().splitlines() for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_the_readme_macro_example_passes():
    text = README.read_text()
    example = re.search(r"## Test a macro.*?```python\n(.*?)```", text, re.S).group(1)
    assert len(example.strip().splitlines()) <= 20
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    namespace["test_latch_holds_until_reset"]()


def test_the_readme_says_the_system_libraries_before_the_two_commands():
    libraries, commands = sh_blocks(README.read_text())[:2]
    assert len(libraries) == 1 and libraries[0].startswith("sudo apt-get install python3-venv ")
    assert {"libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= set(libraries[0].split())
    assert len(commands) == 2
    assert commands[0].endswith("fbd hmi 2048")
    assert commands[1].endswith("python -m pytest")


def test_ci_runs_the_readmes_test_command_verbatim_and_the_slow_tests():
    test_command = sh_blocks(README.read_text())[1][1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci
    assert ".venv/bin/python -m pytest -m slow" in ci[ci.index(test_command) + 1:]
    assert "set -euo pipefail" in ci and any(line.startswith("git clone ") for line in ci)


def test_every_file_the_readme_links_exists():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert links and all((ROOT / link).is_file() for link in links), links
    for doc in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text()):
            assert (doc.parent / link).is_file(), f"{doc.name} links {link}"
