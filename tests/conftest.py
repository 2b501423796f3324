import os

import pytest

# Tests never show progress bars and run replications in-process unless they ask.
os.environ.setdefault("QTHEORY_PROGRESS", "0")


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    """A private results root for the test."""
    root = tmp_path / "results"
    monkeypatch.setenv("QTHEORY_RESULTS_DIR", str(root))
    return root
