"""Optimal task assignment (4)-(5), (10)-(11), Proposition 1 and Theorem 1's bound."""

import itertools

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import (LogUtility, PiecewiseLinearUtility, PoolSystem, optimal_assignment,
                             optimal_assignment_lp, overall_utility, upper_bound)
from qtheory.utility.examples import figure3_left_system, figure3_right_system


def table1(rho):
    return PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), rho)


def test_table1_assignments_match_the_paper_text():
    # Sec. 3.4.1: rho = 9.75 -> class 1 pools hold 8, class 2 half 11 half 12 (fractional);
    # rho = 10 -> 8 and 12 (integral)
    a = optimal_assignment(table1(9.75))
    assert a.sigma == (1, 12) and a.q[1, 12] == pytest.approx(0.25) and not a.integral
    assert a.q[0, 8] == 0.5 and a.q[0, 9] == 0.0 and a.q[1, 11] == 0.5
    b = optimal_assignment(table1(10.0))
    assert b.integral and b.levels().tolist() == [8, 12]
    assert b.utility == pytest.approx(10 * np.log(2.5), rel=1e-12)


def test_sigma_satisfies_its_defining_inequalities():
    for rho in (0.3, 2.0, 9.75, 10.0, 17.2):
        a = optimal_assignment(table1(rho))
        i = a.sigma[0]
        assert a.theta <= rho < a.theta + 0.5
        assert a.q[:, 1:].sum() == pytest.approx(rho, rel=1e-12)


def random_concave_system(rng, m):
    utils = []
    for _ in range(m):
        k = rng.integers(1, 4)
        slopes = np.sort(rng.normal(size=k + 1))[::-1]
        bps = np.cumsum(rng.integers(1, 4, size=k)).astype(float)
        utils.append(PiecewiseLinearUtility(tuple(slopes), tuple(bps), float(rng.normal())))
    alpha = rng.dirichlet(np.ones(m))
    return PoolSystem(tuple(utils), tuple(alpha), float(rng.uniform(0.2, 6)))


@pytest.mark.parametrize("case", range(12))
def test_proposition1_greedy_assignment_solves_the_linear_program(case):
    rng = np.random.default_rng(100 + case)
    sys = random_concave_system(rng, int(rng.integers(1, 4)))
    a = optimal_assignment(sys)
    q_lp, value = optimal_assignment_lp(sys)
    assert value == pytest.approx(a.utility, rel=1e-9, abs=1e-9)
    assert overall_utility(sys, q_lp) == pytest.approx(value, rel=1e-9, abs=1e-9)


def test_bound_dominates_every_integer_assignment_of_a_small_system():
    # n = 4 pools (2 per class) and n rho = 6 tasks: enumerate every placement
    sys = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
    n, tasks = 4, 6
    best = -np.inf
    for occ in itertools.product(range(tasks + 1), repeat=n):
        if sum(occ) != tasks:
            continue
        val = (sys.utilities[0](np.array(occ[:2])).sum() + sys.utilities[1](np.array(occ[2:])).sum()) / n
        best = max(best, val)
    bound = upper_bound(sys, n)
    assert best <= bound + 1e-12
    # q* is integral here (every pool of a class holds the same number of tasks), so
    # the bound is attained by a whole-number placement
    assert optimal_assignment(sys).integral
    assert best == pytest.approx(bound, rel=1e-12)


def test_bound_of_finite_systems_converges():
    # alpha_n = (nearest whole numbers of pools) / n differs from alpha for every n below, so
    # u(q_n*) (greedy (4)-(5) with alpha_n) differs from u(q_*); the gap must be positive, shrink
    # like 1/n (|alpha_n - alpha| <= m / n), and u(q_n*) must equal the LP optimum with alpha_n
    sys = PoolSystem((LogUtility(20), LogUtility(30), LogUtility(7)), (1 / 3, 0.45, 1 - 1 / 3 - 0.45), 8.0)
    alpha = np.array(sys.alpha)
    limit = optimal_assignment(sys).utility
    gaps, dist = [], []
    for n in (10, 100, 1000, 10000):
        counts = np.floor(n * alpha + 0.5)
        counts[-1] = n - counts[:-1].sum()
        alpha_n = counts / n
        assert np.abs(alpha_n - alpha).max() > 1e-6, n
        value = optimal_assignment(sys, alpha=alpha_n).utility
        assert value == pytest.approx(optimal_assignment_lp(sys, alpha=alpha_n)[1], abs=1e-9)
        gaps.append(abs(value - limit))
        dist.append(np.abs(alpha_n - alpha).sum())
    gaps, dist = np.array(gaps), np.array(dist)
    assert gaps[0] > 1e-3  # not identically zero
    # the optimum of the LP (2) is Lipschitz in its right-hand side alpha, and here
    # |alpha_n - alpha|_1 falls by a factor 1500 from n = 10 to n = 10000
    assert dist[0] / dist[-1] > 1000
    assert gaps[-1] < gaps[0] / 100


def test_figure3_right_breakpoints():
    sys = figure3_right_system()
    rho = np.linspace(0.05, 10, 200)
    levels = np.array([optimal_assignment(sys, r).q[:, 1:].sum(axis=1) / np.array(sys.alpha) for r in rho])
    grow = np.diff(levels, axis=0) > 1e-12
    mid = 0.5 * (rho[1:] + rho[:-1])
    seg = lambda lo, hi: (mid > lo + 0.06) & (mid < hi - 0.06)
    for lo, hi, cls in [(0, 1.25, 1), (1.25, 6.25, 2), (7.5, 10, 0)]:
        g = grow[seg(lo, hi)]
        assert np.all(g[:, cls]) and not np.any(np.delete(g, cls, axis=1)), (lo, hi)
    # class 3 overtakes class 2 between 1.25 and 6.25
    at = lambda r: optimal_assignment(sys, r).q[:, 1:].sum(axis=1) / np.array(sys.alpha)
    assert at(1.25)[2] < at(1.25)[1] and at(6.25)[2] > at(6.25)[1]


def test_figure3_left_occupancies_keep_ratios_of_resources():
    sys = figure3_left_system()
    r = np.array([u.r for u in sys.utilities])
    for rho in (3.0, 6.0, 9.0):
        per_pool = optimal_assignment(sys, rho).q[:, 1:].sum(axis=1) / np.array(sys.alpha)
        ratio = per_pool / r
        assert ratio.max() - ratio.min() < 1.01 / r.min()  # rounding to whole tasks only


def test_class_change_loads_are_the_cumulative_masses_of_the_ranking():
    from qtheory.utility import class_change_loads
    assert class_change_loads(figure3_right_system(), 10.0) == [1.25, 6.25, 7.5]
    # two identical classes alternate at every coordinate: a change after every alpha = 1/2
    twins = PoolSystem((LogUtility(5), LogUtility(5)), (0.5, 0.5), 1.0)
    assert class_change_loads(twins, 2.0) == [0.5, 1.0, 1.5]


def test_zero_load_gives_the_empty_assignment_and_negative_load_is_refused():
    system = table1(10.0)
    opt = optimal_assignment(system, 0.0)
    assert np.array_equal(opt.q[:, 0], system.alpha_array) and not np.any(opt.q[:, 1:])
    assert opt.theta == 0.0 and opt.rank == 1
    empty = np.zeros_like(opt.q)
    empty[:, 0] = system.alpha_array
    assert opt.utility == pytest.approx(overall_utility(system, empty))
    with pytest.raises(ParameterError, match="`rho` must be >= 0"):
        optimal_assignment(system, -0.1)
