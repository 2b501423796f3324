"""Sec. 8.3's conventions: `rho` is the total load, the closed forms give total utilities,
and the generic routes (`exact_stationary`, `simulate`) report utility per pool."""

import numpy as np
import pytest

from qtheory.runtime import child_seed
from qtheory.utility import exact_stationary, simulate
from qtheory.utility.suboptimal import (conservative_mean_utility, jlmu_mean_utility, jlmu_rule,
                                        stationary_mean_utility, two_pool_system)

EPS, RHO = 0.3, 1.2


def test_two_pool_system_stores_the_per_pool_load():
    assert two_pool_system(EPS, RHO).rho == pytest.approx(RHO / 2)


def test_per_pool_exact_chain_times_two_pools_is_the_closed_form_total():
    per_pool = exact_stationary(two_pool_system(EPS, RHO), 2, "jlmu", max_tasks=30).mean_utility
    total = jlmu_mean_utility(EPS, RHO)
    # Poisson(1.2) mass beyond 30 tasks is < 1e-25: the truncation does not show at 1e-10
    assert 2 * per_pool == pytest.approx(total, rel=1e-10)
    assert stationary_mean_utility(EPS, RHO, jlmu_rule) == pytest.approx(total, rel=1e-10)
    # the per-pool value is not the total (the two conventions differ by the factor n = 2)
    assert abs(per_pool - total) > 0.3


def test_simulated_per_pool_utility_times_two_is_the_closed_form_total():
    vals = np.array([simulate(two_pool_system(EPS, RHO), 2, "jlmu", horizon=4000.0, warmup=10.0,
                              seed=child_seed(7, "sec83-conventions", i)).mean_utility for i in range(8)])
    se = vals.std(ddof=1) / np.sqrt(vals.size)
    # 8 runs: t_7 quantile at 1e-4 two-sided is about 6.1; one comparison
    assert abs(2 * vals.mean() - jlmu_mean_utility(EPS, RHO)) < 2 * 6.1 * se
    assert abs(2 * vals.mean() - conservative_mean_utility(EPS, RHO)) > 2 * 6.1 * se


def test_class_numbering_python_from_0_rows_from_1():
    from qtheory.utility import optimal_assignment
    from qtheory.utility.experiments import assignment_rows
    from qtheory.utility.model import LinearUtility, StepUtility, PoolSystem
    system = PoolSystem((StepUtility(1.0), LinearUtility(0.3)), (0.5, 0.5), 0.2)
    a = optimal_assignment(system, 0.2)
    # the step class (index 0) fills first: its level-1 coordinate holds sigma* at low load
    assert a.sigma == (0, 1)
    rows = assignment_rows(system, [0.2])
    assert [r["cls"] for r in rows] == [1, 2]
    assert all(r["sigma_cls"] == 1 for r in rows)
