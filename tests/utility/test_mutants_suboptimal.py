"""Tests that kill mutants of qtheory/utility/suboptimal.py left alive by test_suboptimal.py
and test_sec83_conventions.py (found by tools/mutation.py; see benchmarks/mutation/README.md).

Closed forms (module docstring, Sec. 8.3): the total number of tasks is Poisson(rho) (an
M/M/inf queue) whatever the rule, pool 2 under JLMU is a two-state chain, under the
conservative rule an M/M/inf queue.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.utility.suboptimal import (conservative_mean_utility, conservative_rule, critical_eps,
                                        jlmu_mean_utility, jlmu_rule, stationary_mean_utility)


def test_critical_eps_returns_a_float_for_a_scalar_and_an_array_for_an_array():
    # Kills 86:25:cmp:0 and 86:37:const:0 (the scalar/array return switched).
    v = critical_eps(1.0)
    assert type(v) is float
    # eps_c(1) = [(1 + 1)(1 - e^{-1}) - 1] / 1 = 1 - 2/e
    assert v == pytest.approx(1 - 2 / math.e, rel=1e-12)
    arr = critical_eps(np.array([1.0, 2.0]))
    assert isinstance(arr, np.ndarray) and arr.shape == (2,)
    assert arr[1] == pytest.approx((3 * (1 - math.exp(-2)) - 2) / 4, rel=1e-12)


def test_rules_name_the_pool_as_0_or_1():
    # Kills 91:11:const:0 and 96:11:const:0 (pool 2 returned as 2): the documented contract
    # of a rule is 0 for pool 1 and 1 for pool 2.
    assert [jlmu_rule(x, y) for x, y in [(0, 0), (5, 0), (0, 1), (3, 2)]] == [1, 1, 0, 0]
    assert {conservative_rule(x, y) for x in range(3) for y in range(3)} == {1}


def test_default_truncation_is_deep_enough_at_a_large_load():
    # Kills 112:31:arith:0 (truncation rho + 12 / sqrt(rho) + 30): at rho = 100 that is
    # 131.2 tasks, where the Poisson(100) tail is ~1e-3; the default rho + 12 sqrt(rho) + 30
    # = 250 leaves a tail far below 1e-15.
    rho, eps = 100.0, 0.3
    assert stationary_mean_utility(eps, rho, jlmu_rule) == pytest.approx(jlmu_mean_utility(eps, rho), rel=1e-10)


def test_the_smallest_truncation_and_a_service_rate_other_than_one():
    # Kills 113:52:const:0 (truncation = 2 refused) and 114:10:arith:0 (lam = rho / mu).
    # Conservative rule, arrivals blocked at 2 tasks: Y is M/M/inf truncated at 2, so
    # P(Y >= 1) = (rho + rho^2 / 2) / (1 + rho + rho^2 / 2).
    rho = 0.8
    p = (rho + rho ** 2 / 2) / (1 + rho + rho ** 2 / 2)
    assert stationary_mean_utility(0.2, rho, conservative_rule, a=1.5, truncation=2) == pytest.approx(1.5 * p, rel=1e-12)
    # the stationary law depends on lam and mu through rho = lam / mu only
    for mu in (0.25, 3.0):
        assert stationary_mean_utility(0.2, rho, conservative_rule, mu=mu) == pytest.approx(
            conservative_mean_utility(0.2, rho), rel=1e-10)
        assert stationary_mean_utility(0.2, rho, jlmu_rule, mu=mu) == pytest.approx(
            jlmu_mean_utility(0.2, rho), rel=1e-10)


def test_simulated_route_agrees_with_the_closed_forms():
    # Kills 143:49:const:0 (the simulation run on 3 pools instead of the two of Sec. 8.3).
    # 8 replications per policy, two comparisons: the t quantile at a Bonferroni-corrected
    # two-sided level of 1e-4 bounds |mean - exact| / se.
    from scipy import stats

    from qtheory.utility.suboptimal import simulated_mean_utility

    limit = stats.t.ppf(1 - 1e-4 / 4, 7)
    eps, rho = 0.3, 1.0
    for policy, exact in (("jlmu", jlmu_mean_utility(eps, rho)), ("conservative", conservative_mean_utility(eps, rho))):
        ci = simulated_mean_utility(eps, rho, policy, horizon=2000.0, n_runs=8, seed=11)
        assert ci.n == 8
        assert abs(float(ci.mean) - exact) < limit * float(ci.se), (policy, float(ci.mean), exact, float(ci.se))
