"""The README's example is code that runs: its test passes as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_macro_example_passes():
    text = README.read_text()
    example = re.search(r"## Build and test a macro.*?```python\n(.*?)```", text, re.S).group(1)
    assert len(example.strip().splitlines()) <= 20
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    namespace["test_latch_holds_until_reset"]()


def test_the_readme_opens_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README.read_text(), re.S).group(1).strip().splitlines()
    assert len(first_block) == 2
    assert first_block[0].endswith("fbd hmi 2048")
    assert first_block[1].endswith("python -m pytest")
