"""Resumable reproduce: interrupted or killed runs keep the published results, and the
next run recomputes only what is out of date.

The runs use a throw-away project (``$QTHEORY_PROJECT``) whose notebooks stand in for two
of the manifest's notebooks (L-F1 and L-F2): each writes its manifest items with the
real ResultWriter, can sleep (to be interrupted) or kill its own kernel.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from qtheory import reproduce
from qtheory.errors import NotebookError

NOTEBOOKS = {"L-F1": ["L-P-jsqd", "L-F1"], "L-F2": ["L-F2"]}


def _write_notebook(path: Path, items: list[str], *, sleep: bool, note: str = "", die: bool = False) -> None:
    params = f"seed = 1\nvalue = 1.0\ndie = {die}\nboom = False\n" + ("sleep = 0.0\nhold = False\n" if sleep else "")
    body = (
        "import os, signal, time\n"
        "from qtheory.results import ResultWriter\n"
        "project = os.environ['QTHEORY_PROJECT']\n"
        f"for item in {items!r}:\n"
        "    rec = ResultWriter(item, parameters=dict(value=value), seed=seed)\n"
        "    rec.write_table([{'x': 1, 'value': value}])\n"
        "    if boom:\n"
        "        raise ValueError('boom: the stand-in failed')\n"
        "    if die:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        # the marker tells a test that the notebook is inside its sleep (kernel started);
        # with `hold` it then waits for the test's file `release` instead of sleeping
        + ("    open(os.path.join(project, 'sleeping'), 'w').close()\n"
           "    time.sleep(sleep)\n"
           "    while hold and not os.path.exists(os.path.join(project, 'release')):\n"
           "        time.sleep(0.02)\n" if sleep else "")
        + "    rec.finish()\n")
    cells = [nbformat.v4.new_markdown_cell(f"# stand-in {note}"),
             nbformat.v4.new_code_cell(params, metadata={"tags": ["parameters"]}),
             nbformat.v4.new_code_cell(body)]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "notebooks" / "presets").mkdir(parents=True)
    (root / "_config.yml").write_text("title: test\n")
    for name, items in NOTEBOOKS.items():
        _write_notebook(root / "notebooks" / f"{name}.ipynb", items, sleep=(name == "L-F2"))
    monkeypatch.setenv("QTHEORY_PROJECT", str(root))
    return root


def _meta(results: Path, item: str) -> str:
    return (results / item / f"{item}.json").read_text()


def _leftovers(results: Path) -> list[Path]:
    """Work and staging folders or temporary files left in the results root."""
    return [p for p in results.rglob("*") if p.name.startswith((".run-", ".staging", "."))
            and not (p.is_dir() and not any(p.iterdir())) and p != results / reproduce.LOCK_NAME]


def _run(results, **kw):
    lines = []
    reports = reproduce.reproduce("quick", list(NOTEBOOKS), results_dir=results, workers=1,
                                  echo=lines.append, **kw)
    return reports, lines


def test_a_killed_kernel_publishes_nothing_and_the_next_run_redoes_only_that_notebook(project, tmp_path):
    results = tmp_path / "results"
    reports, _ = _run(results)
    assert [r.notebook for r in reports] == ["L-F1", "L-F2"]
    before = {i: _meta(results, i) for items in NOTEBOOKS.values() for i in items}

    # L-F2 changes and now kills its own kernel half-way (after writing a table)
    _write_notebook(project / "notebooks" / "L-F2.ipynb", NOTEBOOKS["L-F2"], sleep=True, note="v2", die=True)
    with pytest.raises(NotebookError, match="L-F2") as info:
        _run(results)
    assert "no results were published" in str(info.value)
    assert {i: _meta(results, i) for i in before} == before, "a killed run changed published results"
    assert not _leftovers(results), _leftovers(results)

    # the next run (L-F2 repaired): L-F1 is up to date and skipped, L-F2 is recomputed
    _write_notebook(project / "notebooks" / "L-F2.ipynb", NOTEBOOKS["L-F2"], sleep=True, note="v3")
    reports, lines = _run(results)
    assert [r.notebook for r in reports] == ["L-F2"]
    assert any(line.startswith("L-F1: up to date") for line in lines)
    assert _meta(results, "L-F1") == before["L-F1"]
    assert _meta(results, "L-F2") != before["L-F2"]
    # and a third run has nothing left to do
    reports, lines = _run(results)
    assert reports == [] and sum("up to date" in line for line in lines) == 2


HANG = 600  # s: only a hung process (a bug) ever gets near this; no test outcome depends on it


def _cmd(results: Path) -> list[str]:
    return [sys.executable, "-m", "qtheory", "reproduce", "--preset", "quick", "--results-dir", str(results),
            "--workers", "1", "--only", *NOTEBOOKS]


def _wait_for(path: Path, proc: subprocess.Popen) -> None:
    """Wait until `path` exists (written by the notebook's kernel); fail if `proc` ends first."""
    while not path.exists():
        assert proc.poll() is None, "reproduce ended before the notebook reached its marker:\n" + proc.communicate()[1]
        time.sleep(0.02)


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_keeps_published_results_and_the_next_run_picks_up(project, tmp_path, signum, status):
    results = tmp_path / "results"
    cmd = _cmd(results)
    env = {**os.environ, "QTHEORY_PROJECT": str(project)}
    subprocess.run(cmd + ["-p", "sleep", "0"], env=env, check=True, capture_output=True, timeout=HANG)
    first = {i: _meta(results, i) for items in NOTEBOOKS.values() for i in items}

    # L-F1 changes (so it reruns first), L-F2 is made slow and is interrupted while it sleeps
    _write_notebook(project / "notebooks" / "L-F1.ipynb", NOTEBOOKS["L-F1"], sleep=False, note="v2")
    marker = project / "sleeping"
    marker.unlink()
    # in a session of its own, so that the interrupt reaches its process group, as a
    # terminal's Ctrl-C does
    proc = subprocess.Popen(cmd + ["-p", "sleep", str(HANG)], env=env, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # the interrupt comes once L-F2's kernel is inside its sleep (an event, not a delay)
    _wait_for(marker, proc)
    os.killpg(proc.pid, signum)
    try:
        err = proc.communicate(timeout=HANG)[1]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("reproduce did not stop after the interrupt:\n" + proc.communicate()[1])
    assert proc.returncode == status, err
    lines = err.strip().splitlines()
    # every line is qtheory's own: no traceback of the kernel, papermill, asyncio or zmq
    assert all(line.startswith(("reproducing ", "[1/2] L-F1", "[2/2] L-F2", "qtheory: interrupted"))
               for line in lines), err
    assert lines[-1].startswith("qtheory: interrupted") and sum("interrupted" in x for x in lines) == 1, err
    assert "while running L-F2; nothing of L-F2 was published" in lines[-1], err
    # L-F1 finished before the interrupt and is published; L-F2 still shows the first run
    assert _meta(results, "L-F1") != first["L-F1"]
    assert json.loads(_meta(results, "L-F1"))["input_hash"] is not None
    assert _meta(results, "L-F2") == first["L-F2"]
    assert not _leftovers(results), _leftovers(results)

    # the next run with the first run's parameters recomputes nothing
    out = subprocess.run(cmd + ["-p", "sleep", "0"], env=env, check=True, capture_output=True, text=True,
                         timeout=HANG)
    assert "L-F1: up to date" in out.stderr and "L-F2: up to date" in out.stderr
    assert "reproducing 0 notebook(s)" in out.stderr


def test_a_second_run_on_the_same_results_folder_stops_or_waits(project, tmp_path):
    results = tmp_path / "results"
    cmd = [*_cmd(results)[:-2], "L-F2", "-p", "hold", "True"]
    env = {**os.environ, "QTHEORY_PROJECT": str(project)}
    first = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_for(project / "sleeping", first)  # the first run holds the lock and sits in L-F2
        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=HANG)
        assert second.returncode == 2, second.stderr
        assert second.stderr.strip() == (f"qtheory: error: results folder {results} is in use by another "
                                         f"reproduce run (PID {first.pid}); wait for it to finish or pass --wait")
        # with --wait the second run blocks until the first one ends, then finds its result
        waiting = subprocess.Popen(cmd + ["--wait"], env=env, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        line = waiting.stderr.readline()
        assert f"in use by PID {first.pid}; waiting" in line, line
        assert first.poll() is None and waiting.poll() is None
        (project / "release").touch()
        assert first.wait(timeout=HANG) == 0, first.communicate()[1]
        rest = waiting.communicate(timeout=HANG)[1]
        assert waiting.returncode == 0, rest
        assert "L-F2: up to date" in rest and "reproducing 0 notebook(s)" in rest
    finally:
        for proc in (first, *([waiting] if "waiting" in locals() else [])):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()  # else a ResourceWarning (an error under filterwarnings = error)


@pytest.mark.parametrize("how, message", [
    ("boom", r"notebook L-F2 failed in cell \d+: ValueError: boom: the stand-in failed; set on the command line: "
             r"boom = True \(executed copy: .*\); no results were published"),
    ("die", r"notebook L-F2 could not run: the notebook's kernel died: it was killed by signal 9 \(SIGKILL: most "
            r"often the operating system's out-of-memory killer\)(; its peak memory \(with its workers\) was about "
            r"[\d.]+ [MG]B of [\d.]+ [MG]B available)?; set on the command line: die = True \(log: .*\); no results "
            r"were published"),
])
def test_a_failing_notebook_reaches_the_log_in_one_line(project, tmp_path, how, message):
    """The quiet log keeps what matters: the error of a failing notebook, without tracebacks."""
    import re

    env = {**os.environ, "QTHEORY_PROJECT": str(project)}
    out = subprocess.run([*_cmd(tmp_path / "results")[:-2], "L-F2", "-p", how, "True"], env=env,
                         capture_output=True, text=True, timeout=HANG)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines[:2] == ["reproducing 1 notebook(s) with preset 'quick', 1 at a time, 1 worker(s) each; results in "
                         f"{tmp_path / 'results'}", "[1/1] L-F2 running ..."], lines
    assert len(lines) == 3 and re.fullmatch("qtheory: error: " + message, lines[2]), lines
