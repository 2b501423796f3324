"""Sec. 8.3: closed forms against the truncated CTMC, and the region where JLMU loses."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import (conservative_mean_utility, conservative_rule, critical_eps, jlmu_mean_utility,
                             jlmu_rule, stationary_mean_utility, two_pool_system)


@pytest.mark.parametrize("eps, rho", [(0.1, 1.0), (0.3, 0.5), (0.05, 3.0), (0.7, 6.0)])
def test_closed_forms_equal_the_stationary_law_of_the_ctmc(eps, rho):
    assert stationary_mean_utility(eps, rho, jlmu_rule) == pytest.approx(jlmu_mean_utility(eps, rho), abs=1e-12)
    assert stationary_mean_utility(eps, rho, conservative_rule) == pytest.approx(
        conservative_mean_utility(eps, rho), abs=1e-12)


def test_jlmu_loses_exactly_below_the_critical_eps():
    for rho in (0.2, 1.0, 3.0, 8.0):
        ec = critical_eps(rho)
        for eps, loses in ((0.9 * ec, True), (1.1 * ec, False)):
            diff = (stationary_mean_utility(eps, rho, conservative_rule)
                    - stationary_mean_utility(eps, rho, jlmu_rule))
            assert (diff > 0) == loses


def test_critical_eps_limits():
    assert critical_eps(1e-4) == pytest.approx(0.5, abs=1e-3)
    assert critical_eps(200.0) * 200.0 ** 2 == pytest.approx(1.0, rel=0.01)


def test_two_pool_system_is_normalised_per_pool():
    sys = two_pool_system(0.1, 3.0)
    assert sys.rho == 1.5 and sys.pool_counts(2).tolist() == [1, 1]


def test_eps_must_lie_below_a():
    with pytest.raises(ParameterError, match="eps"):
        jlmu_mean_utility(1.5, 1.0)
