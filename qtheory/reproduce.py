"""Run the notebooks through papermill and publish their results: ``python -m qtheory reproduce``.

:func:`reproduce` plans the runs of a preset (:mod:`qtheory.presets`), skips the notebooks
whose results are up to date (:mod:`qtheory.fingerprint`), holds the lock of the results
folder (:mod:`qtheory.runlock`) and executes the others, one or several at a time, longest
first, those that keep every core busy on their own alone (:func:`fills_the_cores`). Execution
is :mod:`qtheory.execution`, which also closes each page with its run record
(:mod:`qtheory.runrecord`) and its preset badge (:mod:`qtheory.badges`).

The names of those modules that callers use are importable from here too (the surface
this module had before it was split by concern).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Iterable

from .badges import badge, book_presets, preset_warnings
from .errors import ParameterError
from .execution import Report, execute
from .fingerprint import input_hash, package_fingerprint, up_to_date
from .notebooks import KERNEL, executed_path, notebook_parameters, notebook_path, notebooks_dir
from .presets import PRESETS, Run, check_parameter, load_presets, parse_value, plan, select
from .results import project_root, results_root
from .runlock import LOCK_NAME, ResultsBusy, results_lock
from .runrecord import run_record, split_title

__all__ = [
    "KERNEL", "LOCK_NAME", "PRESETS", "Report", "ResultsBusy", "Run", "badge", "book_presets",
    "check_parameter", "default_notebook_workers", "execute", "executed_path", "expected_seconds",
    "expected_wall_seconds", "fills_the_cores", "WIDE_SHARE",
    "input_hash", "load_presets", "longest_first", "notebook_parameters", "notebook_path",
    "notebooks_dir", "package_fingerprint", "parse_value", "plan", "preset_warnings",
    "project_root", "reproduce", "results_lock", "run_record", "select", "split_title",
    "up_to_date",
]


def _interrupted(exc: BaseException, notebooks: list[str]):
    from . import _runner

    with _runner.signals_ignored():
        _runner.stop_all()
    signum = exc.signum if isinstance(exc, _runner.Interrupted) else signal.SIGINT
    return _runner.Interrupted(signum, tuple(notebooks))


def reproduce(preset: str = "paper", only: Iterable[str] | None = None,
              overrides: dict[str, Any] | None = None, *, jobs: int = 1,
              results_dir: str | os.PathLike | None = None, workers: int | None = None,
              force: bool = False, echo=None, wait: bool = False) -> list[Report]:
    """Plan and execute the selected notebooks; stops at the first failure.

    Parameters
    ----------
    preset : {"paper", "quick"}
        Parameter preset (default ``paper``, the papers' own settings, as ``make book``).
    only : iterable of str, optional
        Manifest IDs or notebook names; default all notebooks.
    overrides : dict, optional
        Parameter values applied to every selected notebook that has the parameter.
    jobs : int
        Notebooks executed at the same time.
    results_dir : path, optional
        Results root (default ``results/``).
    workers : int, optional
        Worker processes per notebook for replications (default:
        :func:`default_notebook_workers`).
    force : bool
        Rerun notebooks whose results are up to date (same notebook, parameters and
        package sources, see :func:`input_hash`); by default they are skipped, so an
        interrupted run picks up where it stopped.
    echo : callable, optional
        Receives one progress line per event (default: print to stderr).
    wait : bool
        When another run holds the results folder (:func:`results_lock`), wait for it
        instead of raising :class:`ResultsBusy`.

    Notes
    -----
    An interrupt (Ctrl-C, or SIGTERM under the command line) kills the running
    notebooks' kernels, publishes nothing of them and raises
    :class:`qtheory._runner.Interrupted` naming them.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"`jobs` must be a positive integer (got {jobs!r})")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"`workers` must be a positive integer (got {workers!r})")
    echo = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = plan(preset, only, overrides)
    results = Path(results_dir) if results_dir is not None else results_root()
    with results_lock(results, wait=wait, echo=echo):
        return _reproduce_locked(runs, results, preset=preset, jobs=jobs, workers=workers, force=force,
                                 echo=echo)


def default_notebook_workers(jobs: int, cpus: int | None = None) -> int:
    """Replication workers per notebook when `jobs` notebooks run at once: CPUs / jobs, but at
    least 2 (and at most the CPUs).

    Up to twice as many processes as cores: while one notebook runs serial code (its
    kernel's start, exact solvers, figures) the other's workers keep every core busy, and
    the longest notebook still replicates on two cores once the short ones are done.
    """
    cpus = cpus or os.cpu_count() or 1
    return max(1, min(cpus, max(2, cpus // jobs)))


def expected_seconds(preset: str = "paper") -> dict[str, float]:
    """Processor seconds of each notebook's last measured run at `preset`
    (``notebooks/presets/seconds.json``, written from ``benchmarks/``); {} if unknown."""
    return {nb: float(v) for nb, v in _measured_seconds().get(preset, {}).items()}


def _measured_seconds() -> dict:
    """``notebooks/presets/seconds.json`` as written by ``benchmarks/run.py``; {} if absent."""
    path = notebooks_dir() / "presets" / "seconds.json"
    return json.loads(path.read_text()) if path.is_file() else {}


#: a notebook whose processor seconds exceed its wall seconds by this factor keeps the cores of the
#: 2-core reference machine busy through its replication workers most of its run (see
#: :func:`fills_the_cores`): in a paper-preset `make book` run two such notebooks side by side took
#: 29-30 s each, alone 16-17 s
WIDE_SHARE = 1.4


def expected_wall_seconds(preset: str = "paper") -> dict[str, float]:
    """Wall seconds of each notebook's last measured run at `preset`, run alone
    (``notebooks/presets/seconds.json``, key ``wall``); {} if unknown."""
    return {nb: float(v) for nb, v in _measured_seconds().get("wall", {}).get(preset, {}).items()}


def fills_the_cores(runs: list[Run]) -> set[tuple[str, str]]:
    """The ``(preset, notebook)`` of `runs` that keep the machine's cores busy on their own: measured
    processor seconds at least :data:`WIDE_SHARE` times their wall seconds. A parallel run starts
    each of them alone: beside another notebook both would take about twice as long, and the book
    would be done no sooner."""
    wide = set()
    for preset in {run.preset for run in runs}:
        cpu, wall = expected_seconds(preset), expected_wall_seconds(preset)
        wide |= {(preset, nb) for nb in cpu if nb in wall and cpu[nb] >= WIDE_SHARE * wall[nb]}
    return {(run.preset, run.notebook) for run in runs} & wide


def longest_first(runs: list[Run]) -> list[Run]:
    """`runs` ordered by :func:`expected_seconds`, longest first (stable; unknown ones last,
    in their given order)."""
    cost = {}
    for preset in {run.preset for run in runs}:
        for nb, sec in expected_seconds(preset).items():
            cost[(preset, nb)] = sec
    return sorted(runs, key=lambda run: -cost.get((run.preset, run.notebook), -1.0))


def _reproduce_locked(runs: list[Run], results: Path, *, preset: str, jobs: int, workers: int | None,
                      force: bool, echo) -> list[Report]:
    from . import _runner

    _runner.reset()
    if not force:
        todo = []
        for run in runs:
            if up_to_date(run, results):
                echo(f"{run.notebook}: up to date ({', '.join(run.items)}), skipped; --force reruns it")
            else:
                todo.append(run)
        runs = todo
    if workers is None:
        workers = default_notebook_workers(jobs)
    total = len(runs)
    echo(f"reproducing {total} notebook(s) with preset {preset!r}, {jobs} at a time, "
         f"{workers} worker(s) each; results in {results}")
    reports: list[Report] = []

    def done(rep: Report) -> None:
        reports.append(rep)
        echo(f"[{len(reports)}/{total}] {rep.notebook}: {', '.join(rep.items)} done in {rep.seconds:.1f} s")

    def one_at_a_time(some: list[Run]) -> None:
        current = None
        try:
            for run in some:
                current = run.notebook
                echo(f"[{len(reports) + 1}/{total}] {run.notebook} running ...")
                done(execute(run, results=results, workers=workers))
                current = None
        except KeyboardInterrupt as exc:
            raise _interrupted(exc, [current] if current else []) from None

    if jobs == 1:
        one_at_a_time(runs)
        return reports
    # each notebook runs in a child process of its own (qtheory._runner): threads suffice here;
    # the longest first, so that no long notebook starts last and runs alone at the end; those
    # that fill the cores on their own first, one at a time
    runs = longest_first(runs)
    wide = fills_the_cores(runs)
    if wide:
        echo(f"{', '.join(r.notebook for r in runs if (r.preset, r.notebook) in wide)}: each alone "
             "(its replications keep every core busy)")
    one_at_a_time([r for r in runs if (r.preset, r.notebook) in wide])
    runs = [r for r in runs if (r.preset, r.notebook) not in wide]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending = {pool.submit(execute, run, results=results, workers=workers): run for run in runs}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_EXCEPTION)
                for fut in finished:
                    pending.pop(fut)
                    err = fut.exception()
                    if err is not None:
                        raise err
                    done(fut.result())
        except KeyboardInterrupt as exc:
            names = [pending[f].notebook for f in pending if f.running()]
            for other in pending:
                other.cancel()
            raise _interrupted(exc, names) from None
        except BaseException:
            for other in pending:
                other.cancel()
            raise
    return reports
