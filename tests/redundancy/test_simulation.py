"""R-P-coc, R-P-cos, R-V-pf: the simulators agree with the exact product-form values."""

import numpy as np
import pytest
from scipy import stats

from qtheory import runtime
from qtheory.errors import InstabilityError, ParameterError
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF
from qtheory.redundancy import simulation as SIM

SYSTEM = M.RedundancySystem([1.0, 2.0, 0.5], [(0,), (0, 1), (1, 2), (0, 1, 2)], [0.2, 0.3, 0.1, 0.4])


FAMILY_ALPHA = 1e-3  # chance that the correct code fails one of the tests below, per test


def _tolerance_in_se(n_runs: int, n_comparisons: int) -> float:
    """Two-sided t(n_runs - 1) quantile, Bonferroni-corrected over the comparisons of one test."""
    return float(stats.t.ppf(1 - FAMILY_ALPHA / (2 * n_comparisons), n_runs - 1))


def _sim_vs_exact(mechanism: str, seed: int, n_runs: int = 16, n_events: int = 400_000):
    """(estimates, standard errors, exact values) of E[Q], P(Q = 0..3) and, for c.o.c., E[Q_S]."""
    lam = 0.7
    runs = runtime.replicate(SIM.simulate_replication, n_runs, seed, args=(SYSTEM, lam, n_events),
                             kwargs=dict(mechanism=mechanism, warmup_events=5_000), workers=1)
    per_run = [[r.mean_jobs, *r.count_distribution[:4]] for r in runs]
    exact = [PF.total_jobs_moments(SYSTEM, lam, mechanism).mean, *PF.total_jobs_pmf(SYSTEM, lam, 3, mechanism)]
    if mechanism == "coc":
        per_run = [row + list(r.type_means) for row, r in zip(per_run, runs)]
        exact += [m.mean for m in PF.type_moments(SYSTEM, lam)]
    x = np.array(per_run)
    return x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(n_runs), np.array(exact)


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_time_averages_match_the_product_form(mechanism):
    # 16 independent runs; the tolerance is the t(15) quantile for a family-wise false
    # alarm rate of 1e-3 over all compared quantities (about 5.4 SE for c.o.c.); seeds
    # 0..29 of the correct code all pass (checked when the test was written)
    mean, se, exact = _sim_vs_exact(mechanism, 20240)
    z = np.abs(mean - exact) / se
    assert np.all(z < _tolerance_in_se(16, exact.size)), z


def test_event_averages_differ_from_time_averages():
    runs = [SIM.simulate(M.m_model(7 / 12), 0.6, n_events=300_000, mechanism="cos", seed=s) for s in range(4)]
    exact = PF.total_jobs_moments(M.m_model(7 / 12), 0.6, "cos").mean
    ev = np.array([r.event_mean_jobs for r in runs])
    # the jump chain over-samples busy states: its mean is well above the stationary mean
    assert ev.mean() - exact > 10 * ev.std(ddof=1) / 2


def test_single_server_is_an_mm1_queue():
    runs = [SIM.simulate(M.fully_flexible(1), 0.5, n_events=200_000, mechanism="coc", seed=s) for s in range(6)]
    m = np.array([r.mean_jobs for r in runs])
    assert abs(m.mean() - 1.0) < 5 * m.std(ddof=1) / np.sqrt(6)


def test_simulator_validates_its_input():
    with pytest.raises(InstabilityError):
        SIM.simulate(M.m_model(0.25), 0.95, n_events=10, seed=0)
    with pytest.raises(ParameterError, match="mechanism"):
        SIM.simulate(SYSTEM, 0.5, n_events=10, mechanism="fifo", seed=0)
    with pytest.raises(ParameterError, match="n_events"):
        SIM.simulate(SYSTEM, 0.5, n_events=0, seed=0)


def test_a_run_without_recorded_arrivals_has_undefined_arrival_averages_and_no_warning():
    import warnings

    system = M.circular_d(6, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # one recorded event after a warm-up: a departure for some seeds
        runs = [SIM.simulate(system, 0.5, n_events=1, seed=s, warmup_events=50) for s in range(20)]
    without = [r for r in runs if np.isnan(r.arrival_mean_jobs)]
    assert without and all(np.isnan(r.arrival_var_jobs) and np.isnan(r.arrival_ratio_first) for r in without)
    assert all(np.isfinite(r.mean_jobs) and r.events == 1 for r in runs)
    with_arrival = [r for r in runs if not np.isnan(r.arrival_mean_jobs)]
    assert with_arrival and all(r.arrival_mean_jobs >= 1 and r.arrival_var_jobs == 0.0 for r in with_arrival)


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_the_initial_jobs_are_placed_by_arrivals_only(mechanism):
    """Appendix E's start: floor(s Exp(1)) jobs placed as arrivals, no departure in between.
    With one recorded event, the time average of Q is the count the run starts recording
    with, so over seeds its mean is E[floor(s E)] = 1 / (e^{1/s} - 1) (within 4.5 SE); a
    start that lets jobs leave while they are placed ends far below it."""
    s, runs = 30.0, 400
    q0 = np.array([SIM.simulate(SYSTEM, 0.5, n_events=1, mechanism=mechanism, seed=seed, initial_scale=s).mean_jobs
                   for seed in range(runs)])
    assert np.all(np.abs(q0 - np.round(q0)) < 1e-9)    # a count, read before the first event
    expected = 1.0 / np.expm1(1.0 / s)
    assert abs(q0.mean() - expected) < 4.5 * q0.std(ddof=1) / np.sqrt(runs), (q0.mean(), expected)


def test_simulate_requires_a_seed():
    with pytest.raises(TypeError, match="seed"):
        SIM.simulate(SYSTEM, 0.5, n_events=10)
    with pytest.raises(ParameterError, match="seed"):
        SIM.simulate(SYSTEM, 0.5, n_events=10, seed=None)


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_a_seed_sequence_is_read_not_spawned_from(mechanism):
    """The caller's SeedSequence is left as it was (no child spawned from it), and the same one gives
    the same run every time: the run of its integer seed, the initial condition included (with one
    recorded event, Q's time average is the initial count floor(30 Exp(1)))."""
    def initial_count(seed):
        return SIM.simulate(SYSTEM, 0.5, n_events=1, mechanism=mechanism, seed=seed, initial_scale=30.0).mean_jobs

    fresh, used = np.random.SeedSequence(11), np.random.SeedSequence(11)
    used.spawn(2)
    counts = [initial_count(fresh) for _ in range(5)] + [initial_count(used)]
    counts.append(SIM.simulate_replication(fresh, SYSTEM, 0.5, 1, mechanism, initial_scale=30.0).mean_jobs)
    assert fresh.n_children_spawned == 0 and used.n_children_spawned == 2
    assert counts == [initial_count(11)] * 7
    # the initial count does depend on the seed
    assert len({initial_count(s) for s in range(12, 20)}) > 1
