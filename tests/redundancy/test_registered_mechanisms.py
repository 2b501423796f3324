"""Facts every mechanism of :data:`qtheory.redundancy.mechanisms.MECHANISMS` must satisfy,
parametrised over that table: the simulator (compiled with the mechanism's start rule)
against the mechanism's own exact chain, written from its definition
(:mod:`qtheory.redundancy.chain`), on a tiny system."""

import numpy as np
import pytest
from scipy import stats

from qtheory.redundancy.mechanisms import MECHANISMS
from qtheory.redundancy.model import m_model
from qtheory.redundancy.simulation import simulate
from qtheory.runtime import spawn

SYSTEM = m_model(7 / 12)
LAM = 0.3
MAX_JOBS = 12


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_the_simulator_matches_the_exact_chain(name):
    mechanism = MECHANISMS[name]
    chain = mechanism.exact_chain(SYSTEM, LAM, MAX_JOBS)
    assert chain.pmf[-1] < 1e-5                                  # the truncation is negligible
    exact = np.array([chain.jobs @ chain.probabilities, *chain.pmf[:3]])
    runs = np.array([[r.mean_jobs, *r.count_distribution[:3]]
                     for r in (simulate(SYSTEM, LAM, 100_000, mechanism=mechanism, seed=ss, warmup=2_000)
                               for ss in spawn(5, 16))])
    mean, se = runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    # 16 independent runs, 4 comparisons: the two-sided t(15) quantile at 1e-4 / 4 keeps the
    # chance of a false alarm below 1e-4 for a correct mechanism
    t = float(stats.t.ppf(1 - 0.5e-4 / exact.size, runs.shape[0] - 1))
    assert np.all(np.abs(mean - exact) <= t * se), (mean, exact, se)
