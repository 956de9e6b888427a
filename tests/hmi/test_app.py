"""The application shell: real-time loop on a fake clock, menus, panels, the ``fbd hmi`` verb."""

import subprocess
import sys
from pathlib import Path

import pytest
from PyQt6.QtWidgets import QApplication

from fbd.tools import cli
from hmi import app as app_module
from hmi.app import MAX_SCANS_PER_TICK, MainWindow
from hmi.panel import Panel
from hmi.panels import PANELS, PanelEntry, register_panel
from tests.hmi.rig import TICK_NS, Clock, Rig

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rig(qtbot, tmp_path):
    return Rig(qtbot, tmp_path / "best.json")


def menu_titles(window):
    return [a.text() for a in window.menuBar().actions()]


def test_each_tick_runs_the_scans_the_wall_time_owes(rig):
    plc = rig.game.plc
    before, t0 = plc.scans, plc.time
    assert rig.advance(50) == 10                     # 5 ticks of 10 ms, 5 ms scans
    assert plc.scans == before + 10
    assert plc.time == pytest.approx(t0 + 0.050)
    rig.clock.ns += 7_000_000
    assert rig.window.tick() == 1                    # 7 ms: one scan, 2 ms carried
    rig.clock.ns += 3_000_000
    assert rig.window.tick() == 1


def test_a_stalled_ui_catches_up_at_most_the_cap(rig):
    plc = rig.game.plc
    before = plc.scans
    rig.clock.ns += 10_000_000_000                   # 10 s without a tick
    assert rig.window.tick() == MAX_SCANS_PER_TICK
    assert plc.scans == before + MAX_SCANS_PER_TICK
    assert "dropped" in rig.window.loop_label.text()
    assert rig.advance(10) == 2                       # and real time again


def test_pause_and_speed_from_the_simulation_menu(rig):
    plc = rig.game.plc
    rig.window.pause_action.trigger()
    before = plc.scans
    assert rig.advance(500) == 0 and plc.scans == before
    assert rig.window.loop_label.text() == "paused"
    rig.window.pause_action.trigger()
    assert rig.advance(10) == 0                       # resumed: the paused time is not owed
    assert rig.advance(10) == 2
    rig.window.speed_actions[4.0].trigger()
    assert rig.advance(10) == 8
    assert "4x real time" in rig.window.loop_label.text()


def test_menus_of_the_shell_and_the_panel(rig):
    window = rig.window
    assert menu_titles(window) == ["&File", "&Program", "&Game", "&Simulation", "&Help"]
    assert window.program_actions["2048"].isChecked()
    assert window.debug_action.isEnabled()
    assert window.windowTitle().startswith("2048")


class Dummy(Panel):
    """A panel with no PLC, to switch to."""
    title = "Dummy"
    refreshed = 0

    def refresh(self):
        self.refreshed += 1


def test_switching_program_replaces_the_panel_and_its_menus(rig, monkeypatch, tmp_path):
    monkeypatch.setitem(PANELS, "dummy", PanelEntry("dummy", Dummy, "Dummy"))
    saved = []
    monkeypatch.setattr(rig.panel, "shutdown", lambda: saved.append(True))
    panel = rig.window.open_program("dummy")
    assert saved == [True]
    assert rig.window.centralWidget() is panel
    assert "&Game" not in menu_titles(rig.window)
    assert rig.window.windowTitle().startswith("Dummy")
    rig.clock.ns += TICK_NS
    assert rig.window.tick() == 0 and panel.refreshed >= 2
    with pytest.raises(KeyError, match="no panel named 'nope'"):
        rig.window.open_program("nope")


def test_registering_a_panel_twice_is_an_error():
    with pytest.raises(ValueError, match="already registered"):
        register_panel("2048", Dummy)


class Broken(Dummy):
    class _Plc:
        """A stand-in whose scan raises what no fbd.Plc would (it makes a PlcFault)."""
        cycle = 0.005
        state = "RUN"
        fault = None

        def serve_requests(self):
            pass

        def scan(self, n):
            raise RuntimeError("watchdog")

    @property
    def plc(self):
        return self._Plc()


def test_a_plc_that_raises_pauses_the_loop_and_says_why(qtbot, caplog):
    clock = Clock()
    window = MainWindow(None, panel=Broken(), clock=clock, autostart=False)
    qtbot.addWidget(window)
    window.tick()
    clock.ns += TICK_NS
    assert window.tick() == 0
    assert window.loop.paused and window.pause_action.isChecked()
    assert "PLC stopped: RuntimeError: watchdog" in window.message_field.message()


def test_the_timer_drives_the_loop_in_real_time(rig, qtbot):
    # The only wall-clock test: the QTimer is wired to tick(). Two ticks come within
    # 20 ms; the long timeout is for a machine busy with other work.
    ticks = rig.window.loop.ticks
    rig.window.timer.start()
    qtbot.waitUntil(lambda: rig.window.loop.ticks > ticks + 1, timeout=30_000)
    rig.window.timer.stop()


def test_closing_the_window_saves_the_best_score(rig, qtbot, tmp_path):
    rig.load([[8, 8, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    rig.panel.command("left")
    rig.settle()
    assert rig.game.score == 16
    rig.window.close()
    assert (tmp_path / "best.json").exists()


# ------------------------------------------------------------------ fbd hmi
def fbd(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_fbd_hmi_opens_the_window(qtbot, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    shown = []

    def exec_(app):
        windows = [w for w in QApplication.topLevelWidgets()
                   if isinstance(w, MainWindow) and w.isVisible()]
        shown.extend(w.program for w in windows)
        for w in windows:
            w.close()
        return 0
    monkeypatch.setattr(app_module, "_exec", exec_)
    assert fbd(capsys, "hmi") == (0, "", "")
    assert fbd(capsys, "hmi", "2048") == (0, "", "")
    assert shown == ["2048", "2048"]


def test_fbd_hmi_help_lists_the_programs(capsys):
    status, out, _ = fbd(capsys, "hmi", "--help")
    assert status == 0 and "Programs: 2048, sudoku, jigsaw, hidato." in " ".join(out.split())


def test_fbd_hmi_unknown_program_is_one_line_and_status_2(capsys):
    status, out, err = fbd(capsys, "hmi", "2049")
    assert status == 2 and out == ""
    assert err.splitlines() == [
        "fbd: error: no HMI panel for program '2049' (there are: 2048, sudoku, jigsaw, hidato); "
        "did you mean 2048?"]


def test_fbd_hmi_without_a_display_says_so(capsys, monkeypatch):
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    status, _, err = fbd(capsys, "hmi", "2048")
    assert status == 2
    assert err.startswith("fbd: error: no display") and len(err.splitlines()) == 1


def test_the_installed_command_has_the_hmi_verb():
    exe = Path(sys.executable).with_name("fbd")
    done = subprocess.run([str(exe), "hmi", "nosuch"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "fbd: error: no HMI panel for program 'nosuch' (there are: 2048, sudoku, jigsaw, hidato)"]


def test_about_names_the_version(rig):
    from importlib.metadata import version
    assert f"</b> {version('fbd-sim')}<p>" in rig.window.about_text()
    # the application main() makes carries it (pytest-qt may have made the instance first)
    assert app_module.application() is QApplication.instance()
    assert QApplication.instance().applicationVersion() == version("fbd-sim")
