"""Utilities, marginal utilities and the total order of coordinates (Sec. 2.1, 2.3)."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import (CallableUtility, LinearUtility, LogUtility, PiecewiseLinearUtility,
                             PoolSystem, ResourceUtility, StepUtility, enumeration,
                             marginal_utilities, overall_utility, tabulate)


def table1_system(rho=10.0):
    return PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), rho)


def test_log_utility_values_and_zero():
    u = LogUtility(20)
    x = np.arange(1, 6)
    assert u(0) == 0.0
    np.testing.assert_allclose(u(x), x * np.log(20 / x))


def test_resource_utility_is_perspective_of_g():
    u = ResourceUtility(3.0, g=np.sqrt)
    np.testing.assert_allclose(u(np.arange(1, 5)), np.sqrt(3.0 * np.arange(1, 5)))


def test_piecewise_linear_values_at_integers():
    u = PiecewiseLinearUtility((10, 4, 0), (5, 10))
    np.testing.assert_allclose(u(np.array([0, 1, 5, 7, 10, 12])), [0, 10, 50, 58, 70, 70])


def test_nonconcave_callable_is_rejected_naming_class_and_level():
    sys = PoolSystem((LinearUtility(1.0), CallableUtility(lambda x: x ** 2, "square")), (0.5, 0.5), 1.0)
    with pytest.raises(ParameterError, match=r"utilities\[1\].*not concave.*Delta\(1\)"):
        tabulate(sys.utilities, 5)


def test_callable_concave_only_on_small_range_is_checked_on_the_range_used():
    # concave on 0..3, convex beyond: accepted for 3 levels, rejected for 6
    f = CallableUtility(lambda x: np.where(x <= 3, np.minimum(x, 3) * 1.0, 3 + (x - 3) ** 2), "kinked")
    tabulate((f,), 3)
    with pytest.raises(ParameterError, match="not concave"):
        tabulate((f,), 6)


def test_increasing_slopes_rejected():
    with pytest.raises(ParameterError, match="non-increasing"):
        PiecewiseLinearUtility((1, 2), (3,))


@pytest.mark.parametrize("alpha, msg", [((0.5, 0.6), "sum to 1"), ((1.0,), "one entry per class"),
                                        ((0.0, 1.0), r"alpha\[0\]")])
def test_pool_system_validation(alpha, msg):
    with pytest.raises(ParameterError, match=msg):
        PoolSystem((LogUtility(2), LogUtility(3)), alpha, 1.0)


def test_pool_counts_must_be_whole():
    with pytest.raises(ParameterError, match="whole numbers"):
        table1_system().pool_counts(7)
    assert table1_system().pool_counts(8).tolist() == [4, 4]


def test_enumeration_is_sorted_by_marginal_utility_then_dictionary_order():
    en = enumeration(table1_system(), 30)
    assert np.all(np.diff(en.delta) <= 1e-12)
    # ties: two identical classes alternate, class 0 first at every level
    twins = PoolSystem((LogUtility(5), LogUtility(5)), (0.5, 0.5), 1.0)
    en2 = enumeration(twins, 6)
    assert en2.cls[:6].tolist() == [0, 1, 0, 1, 0, 1]
    assert en2.level[:6].tolist() == [1, 1, 2, 2, 3, 3]


def test_enumeration_prefix_stops_where_unseen_levels_could_interleave():
    en = enumeration(table1_system(), 10)
    # class 1 (r = 30) reaches level 10 first; the prefix ends there
    assert en.level[-1] == 10 and en.cls[-1] == 1
    assert en.valid == en.cls.size
    assert np.all(en.level <= 10)


def test_table1_ranking_near_the_optimum():
    # marginal utilities around 8 tasks (class 1) and 12 tasks (class 2), by hand
    d = marginal_utilities(table1_system(), 14)
    hand = lambda r, j: (j + 1) * np.log(r / (j + 1)) - j * np.log(r / j)
    assert d[0, 7] == pytest.approx(hand(20, 7))
    en = enumeration(table1_system(), 20)
    order = list(zip(en.cls.tolist(), en.level.tolist()))
    # (1, 8) then (2, 12) then (2, 13) then (1, 9) in the paper's 1-based classes
    k = order.index((0, 8))
    assert order[k + 1: k + 4] == [(1, 12), (1, 13), (0, 9)]


def test_overall_utility_is_the_average_pool_utility():
    rng = np.random.default_rng(1)
    sys = PoolSystem((LogUtility(20), StepUtility(2.0), LinearUtility(-0.5)), (0.25, 0.25, 0.5), 3.0)
    n = 40
    counts = sys.pool_counts(n)
    occ = [rng.integers(0, 9, size=c) for c in counts]
    direct = sum(u(o).sum() for u, o in zip(sys.utilities, occ)) / n
    q = np.zeros((3, 10))
    for i, o in enumerate(occ):
        for j in range(10):
            q[i, j] = np.sum(o >= j) / n
    assert overall_utility(sys, q) == pytest.approx(direct, rel=1e-12)
