"""Simulators: conservation laws, Theorem 1 pathwise, JLMU = JSQ when homogeneous,
Sec. 8.3 against closed forms, Poisson(n rho) totals, fluid limit (Theorem 5), SLTA learning."""

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.runtime import spawn
from qtheory.utility import (POLICIES, LogUtility, PoolSystem, conservative_mean_utility,
                             jlmu_mean_utility, l1_distance, optimal_assignment, overall_utility,
                             simulate, solve_fluid, table1_system, two_pool_system)
from qtheory.utility.model import tabulate

SYS = PoolSystem((LogUtility(20), LogUtility(30), LogUtility(8)), (0.25, 0.5, 0.25), 6.0)


@pytest.mark.parametrize("timed", [False, True])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_time_averages_are_consistent_and_obey_the_pathwise_bound(policy, timed):
    # both loops: states weighed by their mean holding times (no sample times) and drawn
    # holding times (sample times); the occupancy integrals (changes times their time) and
    # the law of the task count (per state) are computed apart, so they check each other
    times = np.linspace(0.0, 300.0, 4) if timed else None
    res = simulate(SYS, 40, policy, horizon=300.0, warmup=20.0, seed=3, sample_times=times)
    # u is linear in q: the time average of u(q_n) is u(time average of q_n)
    assert res.mean_utility == pytest.approx(overall_utility(SYS, res.mean_occupancy, ), rel=1e-9)
    assert res.mean_tasks == pytest.approx(res.mean_occupancy[:, 1:].sum(), rel=1e-9)
    # the time-averaged state is feasible for (2) with rho = time-averaged s_n (Sec. 3.4.1)
    bound = optimal_assignment(SYS, res.mean_tasks, alpha=res.alpha).utility
    assert res.mean_utility <= bound + 1e-9
    assert res.count_distribution.sum() == pytest.approx(1.0, rel=1e-12)
    assert res.r_distribution.sum() == pytest.approx(1.0, rel=1e-12)
    k = np.arange(res.count_distribution.size)
    assert res.mean_tasks == pytest.approx((k * res.count_distribution).sum() / 40, rel=1e-12)


def test_theorem1_random_assignment_is_below_the_bound_by_a_computable_gap():
    # under random assignment every pool is an M/M/inf queue with load rho, independently:
    # E[u(q_n)] = sum_i alpha(i) E[u_i(Poisson(rho))], strictly below u(q_n*) by a gap we compute;
    # the simulation must reproduce that value (4.5 SE, t with 7 degrees of freedom), not only
    # stay below the bound
    k = np.arange(80)
    pois = stats.poisson.pmf(k, SYS.rho)
    exact = float(np.dot(SYS.alpha, tabulate(SYS.utilities, k[-1]) @ pois))
    bound = optimal_assignment(SYS).utility
    vals = np.array([simulate(SYS, 40, "random", horizon=400.0, warmup=20.0, seed=ss).mean_utility
                     for ss in spawn(31, 8)])
    se = vals.std(ddof=1) / np.sqrt(vals.size)
    assert abs(vals.mean() - exact) < stats.t.ppf(1 - 1e-4, vals.size - 1) * se
    assert bound - exact > 20 * se  # the bound is loose for random assignment, by bound - exact


def test_homogeneous_jlmu_is_jsq_path_by_path():
    one = PoolSystem((LogUtility(9.0),), (1.0,), 4.0)
    a = simulate(one, 50, "jlmu", horizon=50.0, seed=11, sample_times=np.linspace(0, 50, 26))
    b = simulate(one, 50, "jsq", horizon=50.0, seed=11, sample_times=np.linspace(0, 50, 26))
    np.testing.assert_array_equal(a.occupancy, b.occupancy)
    assert a.mean_utility == b.mean_utility


@pytest.mark.parametrize("policy", ["jlmu", "random"])
def test_number_of_tasks_is_poisson_n_rho(policy):
    # n s_n is M/M/inf(n rho): mean over independent runs within 4.5 SE, and the time
    # fraction spent at each count close to the Poisson pmf
    sys = PoolSystem((LogUtility(4), LogUtility(6)), (0.5, 0.5), 1.5)
    n = 20
    means, dists = [], []
    for ss in spawn(7, 8):
        r = simulate(sys, n, policy, horizon=400.0, warmup=20.0, seed=ss)
        means.append(r.mean_tasks * n)
        dists.append(np.pad(r.count_distribution, (0, 80))[:80])
    means = np.array(means)
    se = means.std(ddof=1) / np.sqrt(means.size)
    assert abs(means.mean() - n * 1.5) < 4.5 * se
    # the time fraction at each count k, per count against the Poisson pmf: t statistics over
    # the 8 independent runs, Bonferroni over the counts with pmf > 1e-3, two-sided level 1e-3
    pmf = stats.poisson.pmf(np.arange(80), n * 1.5)
    dists = np.array(dists)
    keep = pmf > 1e-3
    se = dists.std(axis=0, ddof=1)[keep] / np.sqrt(dists.shape[0])
    t = np.abs(dists.mean(axis=0)[keep] - pmf[keep]) / se
    assert np.all(t < stats.t.ppf(1 - 1e-3 / (2 * keep.sum()), dists.shape[0] - 1)), t.max()


@pytest.mark.parametrize("eps, rho", [(0.1, 1.0), (0.3, 0.5)])
def test_section83_simulation_matches_the_closed_forms(eps, rho):
    sys = two_pool_system(eps, rho)
    for policy, exact in (("jlmu", jlmu_mean_utility(eps, rho)),
                          ("conservative", conservative_mean_utility(eps, rho))):
        vals = np.array([2 * simulate(sys, 2, policy, horizon=4000.0, warmup=10.0, seed=ss).mean_utility
                         for ss in spawn(21, 10)])
        se = vals.std(ddof=1) / np.sqrt(vals.size)
        assert abs(vals.mean() - exact) < 4.5 * se, policy


def test_theorem5_jlmu_occupancy_approaches_the_fluid_trajectory():
    sys = table1_system(9.75)
    q0 = np.zeros((2, 6))
    q0[:, :6] = 0.5  # every pool starts with 5 tasks
    t = np.array([0.5, 1.0, 2.0, 4.0])
    fluid = solve_fluid(sys, q0, t)
    errs = []
    for n in (100, 6400):
        e = [l1_distance(simulate(sys, n, "jlmu", horizon=4.5, seed=ss, initial=q0, sample_times=t).occupancy,
                         fluid.q).max() for ss in spawn(3, 4)]
        errs.append(np.mean(e))
    # the error shrinks like n^{-1/2}: a factor 8 from n = 100 to 6400, at least 3 here
    assert errs[1] < errs[0] / 3
    assert errs[1] < 0.08


def test_theorem6_slta_learns_r_star_from_empty():
    sys = table1_system(9.75)
    r_star = optimal_assignment(sys).rank
    res = simulate(sys, 1000, "slta", horizon=60.0, warmup=20.0, seed=8, sample_times=np.linspace(20, 60, 41))
    assert res.r_distribution[r_star] > 0.9
    assert np.all(np.abs(res.r - r_star) <= 1)
    assert l1_distance(res.mean_occupancy, optimal_assignment(sys, alpha=res.alpha).q) < 0.1


def test_invalid_input_is_rejected():
    with pytest.raises(ParameterError, match="policy"):
        simulate(SYS, 40, "best", horizon=1.0, seed=0)
    with pytest.raises(ParameterError, match="whole numbers"):
        simulate(SYS, 42, "jlmu", horizon=1.0, seed=0)
    with pytest.raises(ParameterError, match="max_occupancy"):
        simulate(SYS, 40, "random", horizon=50.0, seed=0, max_occupancy=2)
    with pytest.raises(ParameterError, match="warmup"):
        simulate(SYS, 40, "jlmu", horizon=1.0, warmup=2.0, seed=0)
    # the kernel's task and pool numbers are int32
    with pytest.raises(ParameterError, match="max_tasks"):
        simulate(SYS, 40, "jlmu", horizon=1.0, seed=0, max_tasks=2**31)


def test_theorem2_gap_to_the_limit_shrinks_with_n_for_jlmu_and_slta():
    from qtheory.utility import policy_runs
    sys = table1_system(9.75)
    limit = optimal_assignment(sys).utility
    for policy in ("jlmu", "slta"):
        small = policy_runs(sys, 50, policy, horizon=400.0, warmup=20.0, n_runs=4, seed=1)
        large = policy_runs(sys, 1000, policy, horizon=60.0, warmup=20.0, n_runs=4, seed=2)
        gap_small = limit - small["mean_utility_cv"]
        gap_large = limit - large["mean_utility_cv"]
        half = small["utility_cv_ci_high"] - small["mean_utility_cv"]
        assert gap_small > 4 * half / 2.0  # clearly below the limit for n = 50
        assert abs(gap_large) < gap_small / 5


def test_a_simulation_beyond_memory_is_refused_by_its_estimate(monkeypatch):
    """n = 4 x 10^8 pools at load 9.75 need about 72 GB; under a 1 GB limit n = 10^7 (about 1.8 GB)
    is refused as well, before any per-pool array is allocated; n = 40 runs."""
    from qtheory.errors import MemoryBudgetError
    from qtheory.utility.examples import table1_system

    with pytest.raises(MemoryBudgetError, match=r"n = 400,000,000 pools at load 9.75 needs about 72.4 GB.*`n`"):
        simulate(table1_system(9.75), 400_000_000, "jlmu", horizon=1.0, seed=1)
    monkeypatch.setenv("QTHEORY_MEMORY_LIMIT", "1e9")
    with pytest.raises(MemoryBudgetError, match=r"n = 10,000,000 pools"):
        simulate(table1_system(9.75), 10_000_000, "jlmu", horizon=1.0, seed=1)
    assert simulate(table1_system(9.75), 40, "jlmu", horizon=1.0, seed=1).n == 40
