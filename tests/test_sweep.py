"""tools/sweep.py: how a run's outcome is read, which boundary values are tried, and one real run
of each outcome on the fastest notebook (R-F2c, quick preset, a temporary results folder)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def sweep(sweep_tool):
    return sweep_tool


RUNNER = "; set on the command line: {} (executed copy: x.ipynb); no results were published"


@pytest.mark.parametrize("rc, stderr, params, outcome", [
    (0, "[1/1] R-F2c running ...\n", {"seed": 3}, "ran"),
    (2, "qtheory: error: notebook R-F2c failed in cell 4: ParameterError: `seed` must be a non-negative integer"
        + RUNNER.format("seed = -3"), {"seed": -3}, "refused"),
    # the runner's note names n_runs, but the error itself names only a derived parameter
    (2, "qtheory: error: notebook L-F2 failed in cell 4: ParameterError: `n_replications` must be >= 1 (got 0)"
        + RUNNER.format("n_runs = 0"), {"n_runs": 0}, "refused, other name"),
    (2, "qtheory: error: parameter `n_list` of notebook L-F2 must be a non-empty list", {"n_list": []}, "refused"),
    (2, "qtheory: error: notebook L-F2 failed in cell 4: AttributeError: 'list' object has no attribute 'T'"
        + RUNNER.format("n_times = 1"), {"n_times": 1}, "failed"),
    (2, "qtheory: error: notebook U-V could not run: the notebook's kernel died: it was killed by signal 9",
     {"seed": 33}, "failed"),
    (-9, "", {"seed": 33}, "failed"),
])
def test_outcomes_are_read_from_the_error_line(sweep, rc, stderr, params, outcome):
    assert sweep.classify(rc, stderr, False, params)[0] == outcome


def test_a_time_limit_is_a_failure(sweep):
    assert sweep.classify(0, "", True) == ("failed", "time limit reached")


def test_boundary_values_cover_sizes_loads_lists_and_words(sweep):
    assert sweep.boundary_values("n_runs", 10) == [0, 1, 2, 100]
    assert sweep.boundary_values("rho", 9.75) == [0.0, 0.0975, 0.99, 1.0, 1.2]
    assert sweep.boundary_values("horizon", 20.0) == [0.0, 0.2]
    assert sweep.boundary_values("loads", [0.5, 0.9]) == [[], [0.5], [0.99, 1.0]]
    assert sweep.boundary_values("reading", "lengths-1-3") == ["no-such-value"]
    assert sweep.boundary_values("seed", 4711) == [0, 2 ** 32 - 1]


def test_a_real_run_of_each_outcome(sweep):
    """R-F2c at the quick preset with another seed runs; with a negative seed it is refused by name."""
    ran = sweep.run_one("R-F2c", "quick", {"seed": 2}, timeout=600)
    assert ran["outcome"] == "ran", ran
    refused = sweep.run_one("R-F2c", "quick", {"seed": -3}, timeout=600)
    assert refused["outcome"] == "refused" and "`seed`" in refused["message"], refused


def test_an_indexed_parameter_counts_as_named(sweep):
    line = ("qtheory: error: notebook R-F3cd failed in cell 3: ParameterError: `loads[1]` must be < 1.0 (got 1.2)"
            + RUNNER.format("loads = [0.6, 1.2]"))
    assert sweep.classify(2, line, False, {"loads": [0.6, 1.2]})[0] == "refused"


def _report(sweep, tmp_path, **change):
    """The report of a finished one-run sweep (R-F2c, seed 2) at this checkout's commit."""
    import json
    import subprocess

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=sweep.ROOT, capture_output=True,
                            text=True).stdout.strip()
    run = dict(notebook="R-F2c", preset="quick", parameters={"seed": 2}, outcome="ran", seconds=1.0, message="")
    report = dict(what="seeds 2", preset="quick", date="2026-01-01", commit=commit, command="python tools/sweep.py x",
                  planned=1, runs=[run]) | change
    (tmp_path / "r.json").write_text(json.dumps(report), encoding="utf-8")
    return tmp_path / "r"


def test_resume_keeps_the_runs_of_the_report_and_reruns_none(sweep, tmp_path, monkeypatch):
    import json

    out = _report(sweep, tmp_path)
    monkeypatch.setattr(sweep, "run_one", lambda *a, **k: pytest.fail("a run the report holds was rerun"))
    assert sweep.main(["--only", "R-F2c", "--seeds", "2", "--out", str(out), "--resume"]) == 0
    kept = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert [r["parameters"] for r in kept["runs"]] == [{"seed": 2}] and kept["command"] == "python tools/sweep.py x"


@pytest.mark.parametrize("change", [dict(commit="0000000"), dict(preset="paper"), dict(planned=2)])
def test_resume_refuses_a_report_of_another_commit_or_plan(sweep, tmp_path, change):
    out = _report(sweep, tmp_path, **change)
    with pytest.raises(SystemExit):
        sweep.main(["--only", "R-F2c", "--seeds", "2", "--out", str(out), "--resume"])


def test_retry_failed_reruns_only_the_failed_runs_and_says_so(sweep, tmp_path, monkeypatch):
    """A run that reached the time limit on a loaded machine is run again alone with a longer limit;
    the runs that ran are kept, the retried one replaces its entry, the report names the retry."""
    import json

    failed = dict(notebook="R-F2c", preset="quick", parameters={"seed": 3}, outcome="failed", seconds=900.0,
                  message="time limit reached")
    ran = dict(notebook="R-F2c", preset="quick", parameters={"seed": 2}, outcome="ran", seconds=1.0, message="")
    out = _report(sweep, tmp_path, what="seeds 2-3", planned=2, runs=[ran, failed])
    calls = []

    def run_one(nb, preset, params, timeout):
        calls.append((params, timeout))
        return dict(failed, outcome="ran", seconds=1200.0, message="")
    monkeypatch.setattr(sweep, "run_one", run_one)
    argv = ["--only", "R-F2c", "--seeds", "2-3", "--timeout", "3600", "--out", str(out), "--resume", "--retry-failed"]
    assert sweep.main(argv) == 0
    assert calls == [({"seed": 3}, 3600.0)]
    kept = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert [(r["parameters"], r["outcome"]) for r in kept["runs"]] == [({"seed": 2}, "ran"), ({"seed": 3}, "ran")]
    assert kept["retried"] == ["python tools/sweep.py " + " ".join(argv)]
    assert "retried by" in out.with_suffix(".md").read_text(encoding="utf-8")
    with pytest.raises(SystemExit):   # without --resume there is no report to retry
        sweep.main(["--only", "R-F2c", "--seeds", "2-3", "--retry-failed"])
