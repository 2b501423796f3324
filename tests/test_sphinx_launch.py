"""qtheory._sphinx._thebe: sphinx-thebe's handlers leave when no launch target is set, and Thebe
points at the repository when one is (the built book's side: tests/book/test_launch.py)."""

from __future__ import annotations

from types import SimpleNamespace

import sphinx_thebe

from qtheory import _sphinx


class _App:
    def __init__(self):
        other = SimpleNamespace(id=3, handler=_sphinx._repository)
        self.events = SimpleNamespace(listeners={
            "env-before-read-docs": [SimpleNamespace(id=1, handler=sphinx_thebe.init_thebe_core)],
            "doctree-resolved": [SimpleNamespace(id=2, handler=sphinx_thebe.update_thebe_context), other]})
        self.gone = []

    def disconnect(self, listener_id):
        self.gone.append(listener_id)


def _config(repository=""):
    return SimpleNamespace(qtheory_repository=repository, thebe_config={"selector": ".cell"},
                           html_theme_options={"repository_branch": "main"})


def test_without_a_repository_sphinx_thebe_is_disconnected(monkeypatch):
    monkeypatch.delenv("QTHEORY_REPOSITORY", raising=False)
    app, config = _App(), _config()
    _sphinx._thebe(app, config)
    assert sorted(app.gone) == [1, 2] and config.thebe_config == {"selector": ".cell"}


def test_with_a_repository_thebe_points_at_it(monkeypatch):
    monkeypatch.delenv("QTHEORY_REPOSITORY", raising=False)
    app, config = _App(), _config("https://github.com/someone/qtheory/")
    _sphinx._thebe(app, config)
    assert app.gone == []
    assert config.thebe_config == {"selector": ".cell", "repository_url": "https://github.com/someone/qtheory",
                                   "repository_branch": "main"}


def test_the_performance_page_says_when_its_measurements_are_of_another_commit():
    page = "# Performance\n\nlast run 2026-12-05 (qtheory 9f9e6a1); run before (qtheory ec3c7e9).\n"
    note = _sphinx.measured_commits_note(page, "5add037aaaaaaa")
    assert note.startswith(":::{note}") and "`9f9e6a1`, `ec3c7e9`" in note and "built from commit `5add037`" in note
    assert _sphinx.measured_commits_note(page.replace("ec3c7e9", "9f9e6a1"), "9f9e6a1bbbb") is None
    assert _sphinx.measured_commits_note(page, None) is None
