"""Every notebook at the quick preset with a seed besides its own (the book build runs the
preset's seed): each runs to its published results, whatever the seed draws.

This is the CI share of ``tools/sweep.py`` (issue 40): each notebook and seed runs as the reader
would run it, ``python -m qtheory reproduce --preset quick --only NOTEBOOK -p seed S`` in a process
of its own with a temporary results folder, two at a time. About 4 minutes on 2 cores, run by
``.ci/run`` after the quick book and left out of ``make test`` (``pytest --sweep`` or ``pytest
tests/sweep`` runs it). It was two seeds until issue 51 (CI in 20 minutes): the command itself
covers seeds 1-20, the paper preset and boundary values (``benchmarks/sweep/``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from qtheory.presets import plan

#: besides each notebook's own seed; the sweep reports cover 1-20
SEEDS = (2,)
NOTEBOOKS = [run.notebook for run in plan("quick")]
#: seconds per run: the slowest quick notebook takes about a minute on an idle machine
TIME_LIMIT = 1200


@pytest.fixture(scope="module")
def outcomes(sweep_tool) -> dict:
    jobs = [(nb, seed) for seed in SEEDS for nb in NOTEBOOKS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda job: sweep_tool.run_one(job[0], "quick", {"seed": job[1]}, TIME_LIMIT), jobs)
        return dict(zip(jobs, done))


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_notebook_runs_at_other_seeds(outcomes, notebook):
    for seed in SEEDS:
        run = outcomes[notebook, seed]
        assert run["outcome"] == "ran", f"{notebook} at seed {seed}: {run['outcome']}: {run['message']}"


def test_every_notebook_of_the_manifest_is_swept():
    """The sweep's list is the runner's: a notebook added to the manifest is swept without a change here."""
    from qtheory import manifest

    assert sorted(NOTEBOOKS) == sorted(manifest.notebooks())
