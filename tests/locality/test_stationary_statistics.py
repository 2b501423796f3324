"""Time-averaged stationary statistics of an L run with batch-means standard errors (issue 15),
checked where the stationary law is known in closed form: with d = 1 on the complete graph
every dispatcher routes uniformly at random, so each of the N servers is an M/M/1 queue of
load rho: mean queue length rho / (1 - rho), occupancy q_l = rho^l.

If a standard error `se` is right, z = (estimate - exact) / se of independent runs is close
to Student-t with B - 1 = 19 degrees of freedom: E z^2 = 19/17 = 1.118, Var z^2 =
3 * 19^2 / (17 * 15) - 1.118^2 = 3.00, so over 400 runs the mean of z^2 has standard error
sqrt(3.00 / 400) = 0.087 and the test band is 1.118 +- 4.5 * 0.087 = [0.73, 1.51]. Batches of
200 time units are long against the M/M/1 relaxation time at rho = 0.5 (about
1 / (1 - sqrt(rho))^2 = 12)."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.experiments import stationary_statistics
from qtheory.locality.graphs import complete_bipartite
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import LocalJSQ

RHO = 0.5
SYSTEM = LocalitySystem.homogeneous(RHO, d=1)
GRAPH = complete_bipartite(SYSTEM, 10)
LOW, HIGH = 0.73, 1.51


@pytest.fixture(scope="module")
def runs():
    return [stationary_statistics(SYSTEM, GRAPH, LocalJSQ(1), warmup=50.0, horizon=4000.0, seed=i, n_samples=4000)
            for i in range(400)]


def _mean_z2(est, se, exact):
    return np.mean(((np.asarray(est) - exact) / np.asarray(se)) ** 2, axis=0)


def test_mean_queue_length_and_its_standard_error(runs):
    z2 = _mean_z2([r.mean_queue_length.mean[0] for r in runs], [r.mean_queue_length.se[0] for r in runs],
                  RHO / (1 - RHO))
    assert LOW < z2 < HIGH
    # the spread of the 400 estimates is the typical standard error (relative SE of a sample
    # sd of 400: 3.5 %, +-4.5 of them)
    spread = np.std([r.mean_queue_length.mean[0] for r in runs], ddof=1) / np.mean([r.mean_queue_length.se[0] for r in runs])
    assert 0.84 < spread < 1.16
    # one type: the overall mean is the type's
    assert all(r.overall_mean_queue_length.mean == pytest.approx(r.mean_queue_length.mean[0], rel=1e-12) for r in runs)
    assert all(r.overall_mean_queue_length.se == pytest.approx(r.mean_queue_length.se[0], rel=1e-12) for r in runs)


def test_occupancy_and_its_standard_errors(runs):
    z2 = _mean_z2([r.occupancy.mean[0] for r in runs], [r.occupancy.se[0] for r in runs], RHO ** np.arange(1, 7))
    assert np.all(LOW < z2) and np.all(z2 < HIGH)


def test_two_types_are_weighted_by_their_servers():
    """Overall mean = sum over types of (servers of the type / N) x the type's mean."""
    system = LocalitySystem(0.45, 0.75, (2 / 3, 1 / 3), (0.75, 0.25), (1.0, 1.5), ((1, 1), (1, 1)), 2)
    graph = complete_bipartite(system, 12)
    st = stationary_statistics(system, graph, "jsqd", warmup=5.0, horizon=200.0, seed=3, n_samples=400, n_batches=8)
    w = np.bincount(graph.server_type) / graph.n_servers
    assert w[0] == 0.75                                  # unequal types: uniform weights would differ
    assert st.overall_mean_queue_length.mean == pytest.approx(float(w @ st.mean_queue_length.mean), rel=1e-12)
    assert st.n_batches == 8 and st.n_samples == 400 and st.events > 0
    assert (st.warmup, st.horizon) == (5.0, 200.0)
    assert st.occupancy.mean.shape == st.occupancy.se.shape == (2, 6) and st.occupancy.n == 8


@pytest.mark.parametrize("kwargs, name", [(dict(warmup=10.0, horizon=5.0), "horizon"),
                                           (dict(warmup=-1.0, horizon=5.0), "warmup"),
                                           (dict(warmup=1.0, horizon=5.0, n_samples=1), "n_samples"),
                                           (dict(warmup=1.0, horizon=5.0, n_samples=10, n_batches=11), "n_batches")])
def test_bad_windows_are_refused(kwargs, name):
    with pytest.raises(ParameterError, match=f"`{name}`"):
        stationary_statistics(SYSTEM, GRAPH, "jsqd", seed=0, **kwargs)
