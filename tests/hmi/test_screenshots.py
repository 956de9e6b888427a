"""The README's screenshots come from a script that runs here, so they cannot rot."""

from PyQt6.QtGui import QColor, QImage

from hmi.debugger.diagram import CURRENT_COLOUR
from hmi.debugger.source import ACTIVE_STEP, BREAKPOINT, CURRENT_LINE
from hmi.screenshots import SHOTS, main, make_screenshots
from tests.paths import ROOT

DOCS = ROOT / "docs"


def colours(image: QImage, step: int = 4) -> set[str]:
    return {QColor(image.pixel(x, y)).name()
            for x in range(0, image.width(), step) for y in range(0, image.height(), step)}


def test_the_script_draws_the_2048_panel_and_the_debugger(qtbot, tmp_path):
    written = make_screenshots(tmp_path)
    assert [p.name for p in written] == list(SHOTS)
    game, debugger, _trends, source = (QImage(str(p)) for p in written)
    assert {"#faf8ef", "#bbada0", "#cdc1b4"} <= colours(game)        # page, board, empty cell
    assert CURRENT_COLOUR.lighter(150).name() in colours(debugger, 2)  # the block stepped to
    # the line paused at, the breakpoint's disc, the active step
    assert {CURRENT_LINE.name(), BREAKPOINT.name(), ACTIVE_STEP.name()} <= colours(source, 1)


def test_the_committed_screenshots_are_the_scripts(qtbot, tmp_path):
    """docs/ holds what the script makes now (same files, same sizes): rerun
    ``python -m hmi.screenshots`` when a panel changes."""
    assert set(SHOTS) <= {p.name for p in DOCS.glob("*.png")}
    for path in make_screenshots(tmp_path):
        committed = QImage(str(DOCS / path.name))
        assert committed.size() == QImage(str(path)).size(), path.name
    # each is shown in the README or in the document of its part (docs/debugger.md)
    readme = (ROOT / "README.md").read_text()
    docs = "".join(p.read_text() for p in DOCS.glob("*.md"))
    assert all(f"docs/{name}" in readme or f"({name})" in docs for name in SHOTS)


def test_the_command_line_writes_into_the_folder_it_is_given(qtbot, tmp_path, capsys):
    assert main(["--out", str(tmp_path / "shots")]) == 0
    assert sorted(p.name for p in (tmp_path / "shots").iterdir()) == sorted(SHOTS)
    assert "screenshots: wrote" in capsys.readouterr().err
