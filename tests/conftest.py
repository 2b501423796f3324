import os

import pytest
from hypothesis import HealthCheck, settings

# Tests never show progress bars and run replications in-process unless they ask.
os.environ.setdefault("QTHEORY_PROGRESS", "0")

# No test outcome may depend on the machine's speed or load, nor on earlier runs:
# hypothesis gets no deadline (200 ms per example by default, easily missed on a loaded
# machine), no "too slow" health check, the same examples on every run (derandomize)
# and no database of earlier failures to replay. A @settings(...) of a test overrides
# only what it names.
settings.register_profile("qtheory", deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("qtheory")


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    """A private results root for the test."""
    root = tmp_path / "results"
    monkeypatch.setenv("QTHEORY_RESULTS_DIR", str(root))
    return root


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test starts and ends with no open matplotlib figure: tests that draw (item figures,
    figure checks) would otherwise accumulate them, and matplotlib's warning about many open
    figures is an error in this suite."""
    yield
    if "matplotlib.pyplot" in __import__("sys").modules:
        import matplotlib.pyplot as plt

        plt.close("all")


@pytest.fixture(scope="session")
def sweep_tool():
    """``tools/sweep.py`` imported as a module (it is a script, not part of the package)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "sweep.py"
    spec = importlib.util.spec_from_file_location("qtheory_sweep_tool", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)
