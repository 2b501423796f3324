"""Execute one notebook through papermill and publish its results.

For a notebook, :func:`execute`

1. executes it with papermill into a temporary file, with ``$QTHEORY_RESULTS_DIR``
   pointing to a private staging folder, so nothing is published while it runs;
2. on success moves each result folder into ``results/<ID>/`` and the executed
   notebook to ``book/<part>/<notebook>.ipynb``, where the book renders it
   (the book itself never executes code);
3. on failure publishes nothing, keeps the failed copy under ``_build/failed/`` for
   debugging, and raises :class:`~qtheory.errors.NotebookError` naming the notebook,
   the cell and the error.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .errors import NotebookError
from .fingerprint import input_hash
from .notebooks import KERNEL, executed_path, notebook_path
from .presets import Run
from .results import _git_commit, project_root, replace_dir
from .runrecord import append_run_record


@dataclass
class Report:
    notebook: str
    preset: str
    items: list[str]
    seconds: float
    executed: str


def _env_for(run: Run, staging: Path, workers: int, source: Path) -> dict[str, str]:
    return {
        "QTHEORY_INPUT_HASH": input_hash(run, source),
        "QTHEORY_RESULTS_DIR": str(staging),
        "QTHEORY_PRESET": run.preset if not run.overrides else f"{run.preset}+overrides",
        "QTHEORY_OVERRIDES": json.dumps(run.overrides),
        "QTHEORY_WORKERS": str(workers),
        "QTHEORY_PROGRESS": "0",
        "QTHEORY_GIT_COMMIT": _git_commit() or "",
        "QTHEORY_RUN_STARTED": repr(time.time()),
    }


def execute(run: Run, *, results: Path, workers: int = 1, progress_bar: bool = False,
            source: Path | None = None, executed: Path | None = None,
            items: Sequence[str] | None = None) -> Report:
    """Execute one notebook and publish its results (see the module docstring).

    Papermill and the kernel run in a child process (:mod:`qtheory._runner`) whose
    output goes to a log file; a failure is reported by :class:`NotebookError` in one
    line. An interrupt (KeyboardInterrupt, or :class:`qtheory._runner.Interrupted` from
    the command line's handlers) kills the child and its kernel and publishes nothing.
    `source`, `executed` and `items` default to the manifest's notebook, its book
    location and its manifest items; tests pass their own. `progress_bar` is ignored
    (kept for callers; the command line prints one line per notebook).
    """
    from . import _runner

    source = source or notebook_path(run.notebook)
    executed = executed or executed_path(run.notebook, results)
    items = list(items if items is not None else run.items)
    results.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".run-{run.notebook}-", dir=results))
    # Unix socket paths are limited to ~100 bytes: the kernel's sockets go to a short folder
    ipc_dir = tempfile.mkdtemp(prefix="qtk-")
    staging = work / "results"
    output = work / f"{run.notebook}.ipynb"
    log = work / "kernel.log"
    spec = {"source": str(source), "output": str(output), "parameters": run.parameters, "kernel": KERNEL,
            "cwd": str(source.parent), "ipc_dir": ipc_dir, "log": str(log), "outcome": str(work / "outcome.pickle")}
    env = {**os.environ, **_env_for(run, staging, workers, source)}
    start = time.time()
    try:
        proc = _runner.start(spec, work, env, run.notebook)
        try:
            proc.wait()
        except BaseException:
            with _runner.signals_ignored():
                _runner.kill_tree(proc)
                shutil.rmtree(work, ignore_errors=True)
                shutil.rmtree(ipc_dir, ignore_errors=True)
            raise
        finally:
            _runner.finish(proc)
        outcome = _read_outcome(Path(spec["outcome"]))
        if outcome is None:
            failed = _keep_failed(log, run.notebook, suffix=".log")
            raise NotebookError(f"notebook {run.notebook} could not run: its runner exited with status "
                                f"{proc.returncode} (log: {failed}); no results were published")
        if not outcome["ok"]:
            if outcome["cell"] is not None:
                failed = _keep_failed(output, run.notebook)
                # the package names its own argument (e.g. `n_replications`): say which
                # values came from the command line, so the user sees what to change
                mine = ", ".join(f"{k} = {v!r}" for k, v in run.overrides.items())
                set_here = f"; set on the command line: {mine}" if mine else ""
                raise NotebookError(
                    f"notebook {run.notebook} failed in cell {outcome['cell']}: {outcome['error']}{set_here}"
                    f" (executed copy: {failed}); no results were published")
            failed = _keep_failed(log, run.notebook, suffix=".log")
            mine = ", ".join(f"{k} = {v!r}" for k, v in run.overrides.items())
            raise NotebookError(f"notebook {run.notebook} could not run: {outcome['error']}"
                                + (f"; set on the command line: {mine}" if mine else "")
                                + f" (log: {failed}); no results were published")
        produced = {p.name for p in staging.iterdir() if p.is_dir() and not p.name.startswith(".")} \
            if staging.exists() else set()
        missing = [i for i in items if i not in produced]
        if missing:
            raise NotebookError(f"notebook {run.notebook} ran but wrote no result for {', '.join(missing)}; "
                                f"no results were published")
        extra = sorted(produced - set(items))
        if extra:
            raise NotebookError(f"notebook {run.notebook} wrote results for {', '.join(extra)}, "
                                f"which the manifest assigns to other notebooks; no results were published")
        append_run_record(output, source, staging, items, executed, results)
        for item in items:
            replace_dir(staging / item, results / item)
        executed.parent.mkdir(parents=True, exist_ok=True)
        os.replace(output, executed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(ipc_dir, ignore_errors=True)
    return Report(run.notebook, run.preset, items, round(time.time() - start, 2), str(executed))


def _read_outcome(path: Path) -> dict | None:
    import pickle

    try:
        return pickle.loads(path.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError):
        return None


def _keep_failed(output: Path, name: str, suffix: str = ".ipynb") -> Path | None:
    if not output.exists():
        return None
    dest = project_root() / "_build" / "failed" / f"{name}{suffix}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(output, dest)
    return dest
