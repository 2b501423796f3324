"""Time-averaged stationary statistics of a U run with batch-means standard errors (issue 15),
checked against exact values: the number of tasks per pool has mean rho under every policy
(the tasks form an M/M/infinity queue, Sec. 2.1), and E[u(q_n)] of n = 4 pools comes from the
exact stationary law of the chain (:func:`qtheory.utility.exact.exact_stationary`).

If a standard error `se` is right, z = (estimate - exact) / se of independent runs is close
to Student-t with B - 1 = 19 degrees of freedom: E z^2 = 19/17 = 1.118, Var z^2 = 3.00; over
400 runs the mean of z^2 has standard error 0.087, and the band is 1.118 +- 4.5 * 0.087 =
[0.73, 1.51]. Batches of about 50 time units are long against the relaxation time 1/mu = 1
of the number of tasks."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import exact_stationary
from qtheory.utility.experiments import stationary_statistics
from qtheory.utility.model import LogUtility, PoolSystem

SYSTEM = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
LOW, HIGH = 0.73, 1.51


@pytest.fixture(scope="module", params=["random", "jlmu"])
def runs(request):
    pol = request.param
    return pol, [stationary_statistics(SYSTEM, 4, pol, horizon=1000.0, warmup=10.0, seed=i, n_samples=4000)
                 for i in range(400)]


def _check(runs, name, exact):
    est = np.array([getattr(r, name).mean for r in runs])
    se = np.array([getattr(r, name).se for r in runs])
    assert LOW < np.mean(((est - exact) / se) ** 2) < HIGH
    # the spread of 400 estimates is the typical standard error (+-4.5 x 3.5 %)
    assert 0.84 < est.std(ddof=1) / se.mean() < 1.16


def test_tasks_per_pool(runs):
    _, rs = runs
    _check(rs, "mean_tasks", SYSTEM.rho)


def test_utility_against_the_exact_chain(runs):
    pol, rs = runs
    _check(rs, "mean_utility", exact_stationary(SYSTEM, 4, pol, max_tasks=22).mean_utility)


def test_occupancy_shape_and_bad_windows():
    st = stationary_statistics(SYSTEM, 4, "jlmu", horizon=50.0, warmup=1.0, seed=2, n_samples=100, n_batches=5)
    occ = st.mean_occupancy
    assert occ.mean.shape == occ.se.shape and st.n_batches == 5 == occ.n and st.events > 0
    assert (st.warmup, st.horizon) == (1.0, 50.0)
    # q_n(i, 0) is the class share, the same at every time: its standard error is 0
    assert np.allclose(occ.mean[:, 0], SYSTEM.alpha_array) and np.allclose(occ.se[:, 0], 0.0, atol=1e-12)
    with pytest.raises(ParameterError, match="`warmup`"):
        stationary_statistics(SYSTEM, 4, "jlmu", horizon=5.0, warmup=6.0, seed=0)
    with pytest.raises(ParameterError, match="`n_batches`"):
        stationary_statistics(SYSTEM, 4, "jlmu", horizon=5.0, warmup=1.0, seed=0, n_samples=10, n_batches=11)
