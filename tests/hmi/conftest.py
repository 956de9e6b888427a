"""What every HMI test shares."""

import pytest


@pytest.fixture(autouse=True)
def no_modal_questions(monkeypatch):
    """A question the test did not answer fails it at once: offscreen, a modal
    QMessageBox would wait for a click forever (a test answers through the panel's
    ``confirm`` stand-in)."""
    from PyQt6.QtWidgets import QMessageBox

    def refuse(*args, **kwargs):
        raise AssertionError(f"a modal question was asked: {args[1:3]}; answer it in the "
                             f"test (panel.confirm = ...)")
    monkeypatch.setattr(QMessageBox, "question", refuse)
