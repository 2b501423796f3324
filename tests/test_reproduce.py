"""The papermill pipeline, end to end on a small fixture notebook."""

import re
from pathlib import Path

import pytest

from qtheory import citation, reproduce, results
from qtheory.errors import NotebookError, ParameterError

FIXTURE = Path(__file__).parent / "fixtures" / "pipeline_demo.ipynb"


def run_fixture(tmp_path, parameters, workers=1):
    run = reproduce.Run("pipeline_demo", "quick", parameters, dict(parameters))
    return reproduce.execute(run, results=tmp_path / "results", workers=workers, source=FIXTURE,
                             executed=tmp_path / "book" / "pipeline_demo.ipynb", items=["L-X-homog"])


def test_overridden_parameters_reach_the_data_file(tmp_path):
    report = run_fixture(tmp_path, {"n_replications": 3, "seed": 9, "rate": 4.0})
    meta = results.load_meta("L-X-homog", root=tmp_path / "results")
    assert meta["parameters"] == {"n_replications": 3, "samples": 1000, "rate": 4.0}
    assert meta["seed"] == 9 and meta["overrides"] == {"n_replications": 3, "seed": 9, "rate": 4.0}
    table = results.read_table("L-X-homog", root=tmp_path / "results")
    assert len(table["mean"]) == 3
    # the mean of 1000 Exp(rate 4) samples is 0.25 with standard error 0.25 / sqrt(1000)
    assert abs(table["mean"].mean() - 0.25) < 5 * 0.25 / (1000 * 3) ** 0.5
    import nbformat

    executed = nbformat.read(report.executed, as_version=4)
    record = next(c for c in executed.cells if c.get("id") == "qtheory-run-record").source
    assert "Run record" in record and "L-X-homog.csv" in record and "`rate = 4.0`" in record
    tags = [c.metadata.get("tags", []) for c in executed.cells if c.cell_type == "code"]
    # papermill's cell of injected values is left out of the page: the rerun box shows them
    assert tags[0] == ["parameters"] and tags[1] == ["injected-parameters", "remove-cell"]
    assert all("hide-input" in t for t in tags[2:])
    assert not list((tmp_path / "results").glob(".run-*")), "the work folder was left behind"


def test_a_result_is_up_to_date_only_for_the_same_notebook_parameters_and_package(tmp_path):
    run = reproduce.Run("pipeline_demo", "quick", {"seed": 4}, {})
    kw = dict(executed=tmp_path / "book" / "pipeline_demo.ipynb", source=FIXTURE, items=["L-X-homog"])
    assert not reproduce.up_to_date(run, tmp_path / "results", **kw)
    reproduce.execute(run, results=tmp_path / "results", **{k: v for k, v in kw.items()})
    assert reproduce.up_to_date(run, tmp_path / "results", **kw)
    other = reproduce.Run("pipeline_demo", "quick", {"seed": 5}, {})
    assert not reproduce.up_to_date(other, tmp_path / "results", **kw)
    meta = results.load_meta("L-X-homog", root=tmp_path / "results")
    assert meta["input_hash"] == reproduce.input_hash(run, FIXTURE)
    # a side run that replaced the executed notebook makes the results out of date
    reproduce.execute(other, results=tmp_path / "other", **kw)
    assert not reproduce.up_to_date(run, tmp_path / "results", **kw)


def test_side_runs_in_another_results_folder_do_not_touch_the_book(tmp_path):
    side = reproduce.executed_path("L-F1", tmp_path / "mine")
    assert side == tmp_path / "mine" / "_executed" / "locality" / "L-F1.ipynb"
    assert reproduce.executed_path("L-F1").parent == reproduce.project_root() / "book" / "locality"


def test_results_do_not_depend_on_the_worker_count(tmp_path):
    run_fixture(tmp_path / "a", {"n_replications": 4, "seed": 3}, workers=1)
    run_fixture(tmp_path / "b", {"n_replications": 4, "seed": 3}, workers=2)
    a = results.read_table("L-X-homog", root=tmp_path / "a" / "results")
    b = results.read_table("L-X-homog", root=tmp_path / "b" / "results")
    assert list(a["mean"]) == list(b["mean"])


def test_a_failing_notebook_names_itself_and_publishes_nothing(tmp_path):
    run_fixture(tmp_path, {"seed": 1})  # an earlier good result
    before = (tmp_path / "results" / "L-X-homog" / "L-X-homog.json").read_text()
    with pytest.raises(NotebookError, match=r"notebook pipeline_demo failed in cell \d+: ValueError: `fail`.*"
                                            r"set on the command line: seed = 2, fail = True"):
        run_fixture(tmp_path, {"seed": 2, "fail": True})
    assert (tmp_path / "results" / "L-X-homog" / "L-X-homog.json").read_text() == before
    leftovers = [p for p in (tmp_path / "results").rglob("*") if "L-X-homog" not in p.parts]
    assert all(p.is_dir() for p in leftovers), f"partial files left: {leftovers}"


def test_parse_value_reads_literals():
    assert reproduce.parse_value("20") == 20
    assert reproduce.parse_value("[100, 500]") == [100, 500]
    assert reproduce.parse_value("true") is True
    assert reproduce.parse_value("irg") == "irg"


def test_plan_rejects_unknown_presets_ids_and_parameters():
    with pytest.raises(ParameterError, match="preset"):
        reproduce.plan("huge")
    with pytest.raises(ParameterError, match="unknown manifest ID"):
        reproduce.plan("quick", ["Z-F1"])


def test_presets_only_name_known_notebooks_and_parameters():
    from qtheory import manifest

    presets = reproduce.load_presets()
    for preset, tables in presets.items():
        for nb, values in tables.items():
            assert nb in manifest.notebooks(), f"preset {preset}.{nb}: no such notebook"
            defaults = reproduce.notebook_parameters(reproduce.notebook_path(nb))
            assert set(values) <= set(defaults), f"preset {preset}.{nb} sets unknown parameters"


def test_every_result_page_opens_with_a_badge_of_its_preset_and_overrides(tmp_path, monkeypatch):
    import nbformat

    # results computed at another commit than the checkout's: the page is cited at theirs
    monkeypatch.setenv("QTHEORY_GIT_COMMIT", "0123456789abcdef0123456789abcdef01234567")
    report = run_fixture(tmp_path, {"seed": 9, "rate": 4.0})
    cells = nbformat.read(report.executed, as_version=4).cells
    badge = next(c for c in cells if c.get("id") == "qtheory-preset-badge")
    # the page's title, its verdict box, then the badge: before the parameters
    assert cells[0].source.lstrip().startswith("# ") and cells[1].get("id") == "qtheory-verdict"
    assert cells[1].source.startswith("````{admonition} Verdict") and cells[2] is badge
    assert "<strong>quick</strong> preset" in badge.source
    assert "<code>seed = 9</code>" in badge.source and "<code>rate = 4.0</code>" in badge.source
    meta = results.load_meta("L-X-homog", root=tmp_path / "results")
    assert meta["preset"] == "quick+overrides" and meta["overrides"] == {"seed": 9, "rate": 4.0}
    assert nbformat.read(report.executed, as_version=4).metadata["qtheory"]["overrides"] == meta["overrides"]
    # the page closes with its run record, the rerun box, then the cite box
    ids = [c.get("id") for c in cells]
    assert ids[-3:] == ["qtheory-run-record", "qtheory-rerun", "qtheory-cite"]
    assert ids.index("qtheory-preset-badge") < ids.index("qtheory-introduction") < ids.index("qtheory-run-record")
    rerun, cite = cells[-2].source, cells[-1].source
    assert rerun.startswith("````{admonition} Rerun this page")
    assert "python -m qtheory reproduce --preset quick --only pipeline_demo -p seed 9 -p rate 4.0\n" in rerun
    assert "python -m qtheory reproduce --only pipeline_demo\n" in rerun
    # every parameter, with its meaning (from the cell's comments here) and its paper value
    for name, meaning in [("item_id", "the manifest item this fixture writes"), ("seed", "root seed of the replications"),
                          ("rate", "rate of the exponential distribution"), ("fail", "fail on purpose")]:
        assert re.search(rf"^\| `{name}` \| {re.escape(meaning)}", rerun, re.M), name
    assert "| `rate` | rate of the exponential distribution | `2.0` | `2.0` | number |" in rerun
    assert "{download}`L-X-homog.csv <../results/L-X-homog/L-X-homog.csv>`" in rerun
    # keyed by the page (its notebook), not by its first item (issue 41)
    assert meta["git_commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert cite == citation.cite_box(["L-X-homog"], title="Pipeline demo (test fixture)", page="pipeline_demo",
                                     commit=meta["git_commit"])
    assert "swhid        = {swh:1:rev:0123456789abcdef0123456789abcdef01234567}" in cite  # issue 50
    assert "@misc{qtheory-companion:pipeline_demo," in cite
    # no override, no list of them
    assert reproduce.badge("paper", {}) == '<p class="qtheory-badge">Computed with the <strong>paper</strong> preset.</p>'


def test_the_kernel_talks_over_ipc_and_is_not_interrupted_at_shutdown(tmp_path):
    """The causes of the build log's noise: TCP warnings, 'KeyboardInterrupt caught in kernel'."""
    import os
    import pickle

    from qtheory import _runner

    work = tmp_path / "work"
    work.mkdir()
    ipc = tmp_path / "ipc"
    ipc.mkdir()
    # the kernel reports its own transport; the runner's log holds everything the kernel printed
    spec = {"source": str(FIXTURE), "output": str(work / "out.ipynb"), "parameters": {"n_replications": 1},
            "kernel": reproduce.KERNEL, "cwd": str(FIXTURE.parent), "ipc_dir": str(ipc), "log": str(work / "log"),
            "outcome": str(work / "outcome")}
    env = {**os.environ, "QTHEORY_RESULTS_DIR": str(tmp_path / "res"), "QTHEORY_WORKERS": "1"}
    proc = _runner.start(spec, work, env, "pipeline_demo")
    assert proc.wait() == 0, (work / "log").read_text()
    _runner.finish(proc)
    assert pickle.loads((work / "outcome").read_bytes()) == {"ok": True}
    log = (work / "log").read_text()
    assert "without encryption" not in log and "KeyboardInterrupt" not in log, log
    assert not list(ipc.iterdir()), "the kernel's sockets were left behind"
    km = _runner.kernel_manager_class(str(ipc))(kernel_name=reproduce.KERNEL)
    assert km.transport == "ipc" and km.ip == str(ipc / "kernel")


def test_notebook_processes_get_one_blas_thread_unless_the_user_chose():
    from qtheory import _runner

    env = _runner.child_environment({"PATH": "/bin", "OPENBLAS_NUM_THREADS": "4"})
    assert env["OPENBLAS_NUM_THREADS"] == "4"  # the user's choice is kept
    assert env["OMP_NUM_THREADS"] == "1" and env["MKL_NUM_THREADS"] == "1" and env["PATH"] == "/bin"


def test_parallel_runs_start_with_the_longest_notebook(monkeypatch):
    from qtheory import reproduce as rp

    runs = [rp.Run(nb, "paper", {}) for nb in ("L-F1", "U-T1", "R-T1", "L-F2")]
    monkeypatch.setattr(rp, "expected_seconds", lambda preset: {"L-F1": 5.0, "U-T1": 90.0, "R-T1": 20.0})
    assert [r.notebook for r in rp.longest_first(runs)] == ["U-T1", "R-T1", "L-F1", "L-F2"]


def test_a_notebook_that_fills_the_cores_runs_alone_before_the_others(monkeypatch, tmp_path):
    import threading
    import time

    from qtheory import reproduce as rp

    runs = [rp.Run(nb, "paper", {}) for nb in ("L-F1", "U-T1", "R-T1", "L-F2", "L-R-finite")]
    cpu = {"L-F1": 5.0, "U-T1": 90.0, "R-T1": 20.0, "L-F2": 4.0, "L-R-finite": 60.0}
    wall = {"L-F1": 5.0, "U-T1": 50.0, "R-T1": 19.0, "L-F2": 4.0, "L-R-finite": 42.9}   # 60 / 42.9 < 1.4
    monkeypatch.setattr(rp, "expected_seconds", lambda preset: cpu)
    monkeypatch.setattr(rp, "expected_wall_seconds", lambda preset: wall)
    assert rp.WIDE_SHARE == 1.4
    assert rp.fills_the_cores(runs) == {("paper", "U-T1")}
    wall["L-R-finite"] = 60 / 1.4                                                    # exactly 1.4
    assert rp.fills_the_cores(runs) == {("paper", "U-T1"), ("paper", "L-R-finite")}

    running, beside, lock = set(), {}, threading.Lock()

    def execute(run, *, results, workers):
        with lock:
            beside[run.notebook] = set(running)
            running.add(run.notebook)
        time.sleep(0.2)
        with lock:
            running.discard(run.notebook)
            for other in running:
                beside[other].add(run.notebook)
        return rp.Report(run.notebook, run.preset, [run.notebook], 0.2, "")

    monkeypatch.setattr(rp, "execute", execute)
    reports = rp._reproduce_locked(runs, tmp_path, preset="paper", jobs=2, workers=2, force=True, echo=lambda m: None)
    order = [r.notebook for r in reports]
    assert order[:2] == ["U-T1", "L-R-finite"] and sorted(order[2:]) == ["L-F1", "L-F2", "R-T1"]
    assert beside["U-T1"] == set() and beside["L-R-finite"] == set()
    assert any(beside[nb] for nb in ("L-F1", "L-F2", "R-T1"))     # the others still run side by side


def test_the_committed_notebook_costs_name_existing_notebooks():
    from qtheory import manifest
    from qtheory import reproduce as rp

    costs, wall = rp.expected_seconds("paper"), rp.expected_wall_seconds("paper")
    assert costs and set(costs) <= set(manifest.notebooks())
    assert set(wall) == set(costs)
    assert all(v > 0 for v in costs.values()) and all(v > 0 for v in wall.values())


def test_default_workers_per_notebook_keep_two_per_notebook_on_two_cores():
    from qtheory.reproduce import default_notebook_workers

    assert default_notebook_workers(1, cpus=2) == 2
    assert default_notebook_workers(2, cpus=2) == 2      # 4 processes on 2 cores
    assert default_notebook_workers(2, cpus=8) == 4
    assert default_notebook_workers(8, cpus=8) == 2
    assert default_notebook_workers(3, cpus=1) == 1      # never more than the CPUs


def _try_lock(folder, wait, report):
    """In a child process: take the results lock of `folder`, reporting to the queue `report`
    ("waiting" when told the folder is busy, then "got" and the PID in the lock file, or "busy"
    and the message)."""
    try:
        with reproduce.results_lock(Path(folder), wait=wait, echo=lambda _msg: report.put(("waiting", None))):
            report.put(("got", Path(folder, reproduce.LOCK_NAME).read_text().strip()))
    except reproduce.ResultsBusy as exc:
        report.put(("busy", str(exc)))
    except BaseException as exc:  # reported, so that the test fails at once rather than at its timeout
        report.put(("error", repr(exc)))


@pytest.fixture
def lock_child():
    """Start ``_try_lock`` in a forked child: ``(process, its report queue)``; a child still
    alive at the end of the test (a lock that never came) is killed."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    started = []

    def start(folder, wait):
        report = ctx.Queue()
        proc = ctx.Process(target=_try_lock, args=(str(folder), wait, report))
        proc.start()
        started.append(proc)
        return proc, report

    yield start
    for proc in started:
        if proc.is_alive():
            proc.kill()
        proc.join(15)


def test_a_second_results_lock_in_another_process_is_refused_at_once(tmp_path, lock_child):
    """The folder lock, directly (not through a second reproduce run that would hang when it fails)."""
    import os
    import time

    folder = tmp_path / "results"
    with reproduce.results_lock(folder):
        start = time.monotonic()
        proc, report = lock_child(folder, wait=False)
        kind, message = report.get(timeout=15)
        proc.join(15)
        assert kind == "busy", (kind, message)
        assert f"PID {os.getpid()}" in message and "--wait" in message
        assert time.monotonic() - start < 20
    proc, report = lock_child(folder, wait=False)   # released: the next run takes it
    assert report.get(timeout=15)[0] == "got"
    proc.join(15)


def test_a_waiting_results_lock_gets_the_folder_when_the_holder_releases_it(tmp_path, lock_child):
    """With `wait` the second process says it waits, waits while the first holds the folder and
    takes it once released (also when the holder forked children, which inherit its open lock file)."""
    import queue

    folder = tmp_path / "results"
    with reproduce.results_lock(folder):
        proc, report = lock_child(folder, wait=True)
        assert report.get(timeout=15) == ("waiting", None)
        with pytest.raises(queue.Empty):        # it does wait
            report.get(timeout=0.5)
    kind, holder = report.get(timeout=15)
    proc.join(15)
    assert kind == "got" and holder == str(proc.pid)   # it holds the lock now, under its own PID


def test_the_run_record_says_deterministic_instead_of_none_and_rounds_its_time():
    from qtheory.runrecord import run_record

    meta = dict(id="R-F3ab", preset="paper", seed=None, wall_time_s=3.0641234, finished_utc="2026-12-06T08:00:00")
    record = run_record([meta])
    assert "| R-F3ab | paper | none (deterministic) | 3.06 s |" in record and "None" not in record
    assert "| 7 |" in run_record([meta | dict(seed=7)])
