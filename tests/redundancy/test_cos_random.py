"""c.o.s. with random assignment (beyond the paper): the simulator against the exact chain
of :func:`~qtheory.redundancy.chain.solve_cos_chain` with its own exact start rule, told apart
from c.o.s.-ALIS, and refused by the product forms, which are not its law."""

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.redundancy import productform as PF
from qtheory.redundancy.mechanisms import MECHANISMS, CancelOnStart, CancelOnStartRandom
from qtheory.redundancy.model import RedundancySystem
from qtheory.redundancy.simulation import simulate
from qtheory.runtime import spawn

# a flexible type served by a slow and a fast server, and a type of the fast server only:
# which idle server starts a flexible job matters, so ALIS and random assignment differ
SYSTEM = RedundancySystem([1.0, 6.0], [(0, 1), (1,)], [0.8, 0.2])
LAM = 0.5


def _exact(mechanism):
    chain = mechanism.exact_chain(SYSTEM, LAM, 12)            # truncated mass below 1e-9
    return np.array([chain.jobs @ chain.probabilities, *chain.pmf[:2]])


def test_it_is_registered_by_its_class():
    assert MECHANISMS["cos-random"] == CancelOnStartRandom()


def test_the_simulator_matches_its_chain_and_not_alis():
    runs = np.array([[r.mean_jobs, *r.count_distribution[:2]]
                     for r in (simulate(SYSTEM, LAM, n_events=200_000, mechanism="cos-random", seed=ss, warmup_events=2_000)
                               for ss in spawn(17, 16))])
    mean, se = runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    # 16 independent runs, 3 comparisons: the two-sided t(15) quantile at 1e-4 / 3
    t = float(stats.t.ppf(1 - 0.5e-4 / 3, runs.shape[0] - 1))
    mine, alis = _exact(CancelOnStartRandom()), _exact(CancelOnStart())
    assert np.all(np.abs(mean - mine) <= t * se), (mean, mine, se)
    # the laws differ by about 0.013 in P(Q = 0), many standard errors: ALIS in place of
    # random assignment would fail here
    assert np.all(np.abs(mean - alis) > t * se), (mean, alis, se)


def test_the_product_forms_refuse_it():
    with pytest.raises(ParameterError, match="no product form"):
        PF.total_jobs_moments(SYSTEM, LAM, "cos-random")
    with pytest.raises(ParameterError, match="no product form"):
        CancelOnStartRandom().stationary_law(SYSTEM, LAM)
