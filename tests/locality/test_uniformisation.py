"""The L kernel's clock: uniformisation at the constant rate Lambda = lambda W + sum_m u_m |V_m|,
a Poisson number of steps between recording times (``simulation.poisson``).

* ``poisson`` has the Poisson law for every mean: the multiplication method below mean 10 and
  Hoermann's transformed rejection (PTRS) from 10 on, each against scipy's probabilities
  (chi-square over cells of about equal probability, level 1e-6, so that a correct sampler
  fails once in a million runs of these fixed seeds; a wrong constant moves the law by far more);
* the state of the kernel at a time h with Lambda h >= 10 (so that the steps come from PTRS)
  has the exact transient law of the chain (the chi-square test of ``test_mutants_simulation``
  at a longer horizon);
* the number of events per unit time matches the flow: at stationarity every real event is an
  arrival or a departure, 2 lambda W of them per unit time (steps of idle service slots are
  not events).
"""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from qtheory import runtime
from qtheory.errors import ParameterError
from qtheory.locality import simulation as sim
from qtheory.locality.graphs import complete_bipartite
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import LocalJSQ


@njit(cache=True)
def _draws(state, mean, n):
    out = np.empty(n, np.int64)
    for k in range(n):
        out[k] = sim.poisson(state, mean)
    return out


@pytest.mark.parametrize("mean", [0.0, 0.3, 4.68, 9.99, 10.0, 37.5, 1234.5, 2.0e6])
def test_poisson_draws_have_the_poisson_law(mean):
    n = 2_000_000          # enough to see a squeeze of PTRS relaxed by 0.05 at mean 1234.5 (p ~ 1e-14)
    draws = _draws(runtime.kernel_state(int(mean * 100) + 1), mean, n)
    if mean == 0.0:
        assert (draws == 0).all()
        return
    lo, hi = stats.poisson.ppf(1e-13, mean), stats.poisson.ppf(1 - 1e-13, mean)
    assert lo <= draws.min() and draws.max() <= hi
    # cells between the integer quantiles of levels 0.005, 0.01, ..., 0.995 (each value its own
    # cell at small means): cell k holds cuts[k - 1] <= x < cuts[k]
    cuts = np.unique(stats.poisson.ppf(np.linspace(0.0, 1.0, 201)[1:-1], mean))
    cuts = cuts[cuts > 0]
    obs = np.bincount(np.searchsorted(cuts, draws, side="right"), minlength=cuts.size + 1)
    cdf = np.concatenate([[0.0], stats.poisson.cdf(cuts - 1, mean), [1.0]])
    exp = n * np.diff(cdf)
    assert exp.min() >= 5 and obs.sum() == n
    assert stats.chisquare(obs, exp).pvalue > 1e-6
    # the mean within 5 standard errors (sd sqrt(mean / n)): a slip of one in PTRS's k moves it by 1
    assert abs(draws.mean() - mean) < 5 * np.sqrt(mean / n)


def test_the_state_at_a_longer_time_has_the_exact_transient_law():
    """Lambda h = 5.85 x 2.5 >= 10: the kernel's steps come from PTRS."""
    from tests.locality import test_mutants_simulation as exact

    x0, h, runs = (2, 0, 1, 3), 2.5, 6000
    rate = exact.LAM * exact.ADJ.shape[0] + sum(exact.RATES[m] for m in exact.TYPES)
    assert rate * h >= 10.0
    states, law = exact.transient_law(x0, h)
    assert law[-1] < 1e-4
    counts = {}
    for seed in range(runs):
        res = sim.simulate(exact.SYSTEM, exact.GRAPH, LocalJSQ(), initial_state=np.array(x0), t_grid=[0.0, h], seed=seed, levels=3)
        key = tuple(res.final_state.tolist())
        counts[key] = counts.get(key, 0) + 1
    exact.assert_counts_follow_law(counts, states, law, runs)


def test_idle_service_slots_are_not_events():
    """The supermarket (N = 200, lambda = 0.9) from its stationary region: events per unit time
    are arrivals plus departures, 2 lambda N at stationarity, not the uniformisation's rate
    (lambda + 1) N; 4 standard errors of the mean over 20 runs (their spread estimated)."""
    system = LocalitySystem(0.9, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2)
    n = 200
    graph = complete_bipartite(system, n)
    x0 = np.ones(n, np.int64) * (np.arange(n) % 10 < 9) + (np.arange(n) % 3 == 0)
    rates = []
    for seed in range(20):
        res = sim.simulate(system, graph, LocalJSQ(d=2), initial_state=x0, t_grid=[0.0, 100.0], seed=seed)
        rates.append(res.events / 100.0)
    rates = np.array(rates)
    se = rates.std(ddof=1) / np.sqrt(rates.size)
    assert abs(rates.mean() - 2 * 0.9 * n) < 4 * se + 0.01 * n


@pytest.mark.parametrize("n_times", [11, 4001])
@pytest.mark.parametrize("first", [0, 1, 7])
def test_the_averaged_run_is_the_mean_of_the_recorded_rows(n_times, first):
    """``average_from``: one row, the mean of the rows ``first:`` of the same seeded run with every
    recording time kept (same path: the same events and final state), with the statistics counted
    at the recording times (11 of them) and kept per event (4001: more recording times than
    servers counted pays); exact integer sums against numpy's float mean, so to 1e-12."""
    system = LocalitySystem(0.8, 1.0, (1.0,), (0.5, 0.5), (1.0, 1.5), ((1.0, 1.0),), 2)
    graph = complete_bipartite(system, 12)
    x0 = np.arange(12) % 4
    grid = np.linspace(0.0, 40.0, n_times)
    full = sim.simulate(system, graph, LocalJSQ(), initial_state=x0, t_grid=grid, seed=5, levels=3)
    mean = sim.simulate(system, graph, LocalJSQ(), initial_state=x0, t_grid=grid, seed=5, levels=3, average_from=first)
    scan = sim._prepare(system, graph, LocalJSQ(), x0, grid, 3)[2].scan
    assert scan == (n_times == 11)
    assert mean.events == full.events and np.array_equal(mean.final_state, full.final_state)
    assert mean.occupancy.shape == (1, 2, 3) and np.array_equal(mean.times, grid[first:])
    np.testing.assert_allclose(mean.occupancy[0], full.occupancy[first:].mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(mean.mean_queue_length[0], full.mean_queue_length[first:].mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(mean.mean_square[0], full.mean_square[first:].mean(axis=0), rtol=1e-12)


def test_average_from_must_name_a_recording_time():
    system = LocalitySystem(0.8, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2)
    graph = complete_bipartite(system, 4)
    for bad in (-1, 3, 1.0):
        with pytest.raises(ParameterError, match="`average_from`"):
            sim.simulate(system, graph, LocalJSQ(), initial_state=np.zeros(4, np.int64), t_grid=[0.0, 1.0, 2.0], seed=1, average_from=bad)
