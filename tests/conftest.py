import os
from pathlib import Path

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

HERE = Path(__file__).resolve().parent


def pytest_addoption(parser):
    parser.addoption("--sweep", action="store_true",
                     help="also run tests/sweep: every notebook at the quick preset and one more seed "
                          "(about 4 minutes on 2 cores; CI runs it after the quick book)")


def pytest_ignore_collect(collection_path, config):
    """tests/sweep runs notebooks end to end at a further seed: a sweep, not a unit test. The README's
    test command leaves it out; CI runs it (``pytest tests/sweep``) after the quick book."""
    if collection_path == HERE / "sweep" and not config.getoption("--sweep"):
        return True
    return None


#: where a session writes its time per test directory (benchmarks/stages.py sets it)
_TIMES = os.environ.get("QTHEORY_TEST_TIMES")
_durations: dict[str, list[float]] = {}


def pytest_runtest_logreport(report):
    """Seconds per test directory (set-up, call and tear-down of each test; under xdist the
    controller receives every worker's reports), kept only when QTHEORY_TEST_TIMES is set."""
    if _TIMES:
        directory = report.nodeid.split("::")[0].rsplit("/", 1)[0]
        entry = _durations.setdefault(directory, [0, 0.0])
        entry[0] += report.when == "call" or (report.when == "setup" and report.skipped)
        entry[1] += report.duration


def pytest_sessionfinish(session, exitstatus):
    if not _TIMES or hasattr(session.config, "workerinput"):
        return
    import json
    import time

    args = [a for a in session.config.args if not a.startswith("-")] or ["tests"]
    name = "-".join(Path(args[0]).parts) if len(args) == 1 else "tests"
    out = Path(_TIMES) / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    workers = getattr(session.config.option, "numprocesses", None)
    data = {"session": name, "exit_status": int(exitstatus), "workers": workers,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "directories": {d: {"tests": int(n), "seconds": round(t, 2)} for d, (n, t) in sorted(_durations.items())}}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """A failed run names the shuffled order it ran in (pytest-randomly's seed, also in its header)."""
    seed = getattr(config.option, "randomly_seed", None)
    if exitstatus == pytest.ExitCode.TESTS_FAILED and isinstance(seed, int) and config.pluginmanager.hasplugin("randomly"):
        terminalreporter.write_line(f"the tests ran in the shuffled order of seed {seed}: "
                                    f"`make test TEST_ORDER_SEED={seed}` repeats it")


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
