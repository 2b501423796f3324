"""JLMU(d) (manifest U-R-jlmud, beyond the paper): the sampled rule against an exact chain
written from its definition, its two limits, and its tie-breaking."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.runtime import spawn
from qtheory.utility import (LinearUtility, LogUtility, PiecewiseLinearUtility, PoolSystem, exact_stationary,
                             simulate)
from qtheory.utility.policies import JLMU, JLMUd, Random

SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
# equal linear utilities: every comparison between classes is a tie, which goes to class 0
TIED = PoolSystem((LinearUtility(1.0), LinearUtility(1.0)), (0.5, 0.5), 1.2)
# within a class, occupancies 0 and 1 tie (slope 1 up to 2 tasks, then 0.2): the tie goes to
# the emptier pool, which keeps pools below 2 tasks longer
FLAT = PoolSystem((PiecewiseLinearUtility((1.0, 0.2), (2.0,)), PiecewiseLinearUtility((1.0, 0.1), (2.0,))),
                  (0.5, 0.5), 2.0)


def _replications(system, n, policy, horizon, seeds):
    runs = [simulate(system, n, policy, horizon=horizon, warmup=10.0, seed=ss) for ss in seeds]
    util = np.array([r.mean_utility for r in runs])
    class0 = np.array([r.mean_occupancy[0, 1:].sum() for r in runs])  # tasks in class-0 pools / n
    return util, class0


def test_d1_is_random_assignment_path_for_path():
    times = np.linspace(0.0, 40.0, 9)
    a = simulate(SMALL, 6, JLMUd(d=1), horizon=40.0, seed=11, sample_times=times)
    b = simulate(SMALL, 6, Random(), horizon=40.0, seed=11, sample_times=times)
    np.testing.assert_array_equal(a.occupancy, b.occupancy)
    assert a.mean_utility == b.mean_utility


def test_exact_rule_reduces_to_random_for_d1_and_approaches_jlmu_for_large_d():
    rand = exact_stationary(SMALL, 2, Random(), max_tasks=16)
    one = exact_stationary(SMALL, 2, JLMUd(d=1), max_tasks=16)
    assert one.mean_utility == pytest.approx(rand.mean_utility, abs=1e-12)
    jlmu = exact_stationary(SMALL, 2, JLMU(), max_tasks=16)
    gaps = [jlmu.mean_utility - exact_stationary(SMALL, 2, JLMUd(d=d), max_tasks=16).mean_utility
            for d in (1, 2, 4, 7)]
    # sampling with replacement misses the best pool with probability (1 - 1/n)^d -> 0
    assert gaps[0] > gaps[1] > gaps[2] > gaps[3] > 0
    assert gaps[3] < 0.1 * gaps[0]


@pytest.mark.parametrize("d", [2, 3])
def test_simulation_matches_the_exact_chain(d):
    n = 4
    exact = exact_stationary(SMALL, n, JLMUd(d=d), max_tasks=22)  # Poisson(6) tail < 1e-6
    util, class0 = _replications(SMALL, n, JLMUd(d=d), 20000.0, spawn(21 + d, 8))
    se = util.std(ddof=1) / np.sqrt(util.size)
    # 8 replications: t(7) two-sided 1e-4 quantile is 7.1; two comparisons per d
    assert abs(util.mean() - exact.mean_utility) < 7.1 * se
    se0 = class0.std(ddof=1) / np.sqrt(class0.size)
    assert abs(class0.mean() - exact.class_tasks[0]) < 7.1 * se0


def test_ties_go_to_the_smaller_class():
    n, d = 4, 2
    exact = exact_stationary(TIED, n, JLMUd(d=d), max_tasks=20)
    # with ties to class 0, class 0 holds more tasks than class 1 (exactly, in the chain)
    assert exact.class_tasks[0] > exact.class_tasks[1] + 0.05
    _, class0 = _replications(TIED, n, JLMUd(d=d), 20000.0, spawn(31, 8))
    se0 = class0.std(ddof=1) / np.sqrt(class0.size)
    assert abs(class0.mean() - exact.class_tasks[0]) < 7.1 * se0


def test_ties_within_a_class_go_to_the_emptier_pool():
    n, d = 4, 3
    exact = exact_stationary(FLAT, n, JLMUd(d=d), max_tasks=24)
    util, _ = _replications(FLAT, n, JLMUd(d=d), 20000.0, spawn(41, 8))
    se = util.std(ddof=1) / np.sqrt(util.size)
    assert abs(util.mean() - exact.mean_utility) < 7.1 * se


@pytest.mark.parametrize("d", [0, -1, 1.5, "2"])
def test_bad_d_is_refused(d):
    with pytest.raises(ParameterError, match="`d`"):
        JLMUd(d=d)
