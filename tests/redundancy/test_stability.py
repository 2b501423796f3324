"""R-V-stab, R-V-local: the stability conditions, the critical subset and local stability."""

import numpy as np
import pytest

from qtheory.errors import InstabilityError
from qtheory.redundancy import model as M
from qtheory.redundancy import stability as St


def random_systems(count, seed=7):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(2, 6))
        k = int(min(rng.integers(1, 7), 2 ** n - 1))
        types = set()
        while len(types) < k:
            size = int(rng.integers(1, n + 1))
            types.add(tuple(sorted(rng.choice(n, size, replace=False).tolist())))
        types = sorted(types)
        if len(set().union(*types)) < n:
            continue
        speeds = rng.uniform(0.5, 2, n) if len(out) % 2 else np.ones(n)
        out.append(M.RedundancySystem(speeds, types, rng.dirichlet(np.ones(k))))
    return out


SYSTEMS = random_systems(120)


def test_three_searches_for_the_critical_subset_agree():
    for sy in SYSTEMS:
        a, b, c = (St.critical_subset(sy, m) for m in ("servers", "flow", "types"))
        assert a.ratio == pytest.approx(c.ratio, rel=1e-12) and b.ratio == pytest.approx(c.ratio, rel=1e-12)
        assert a.types == b.types == c.types
        assert a.unique == b.unique == c.unique


def test_conditions_1_and_2_are_equivalent_and_say_lambda_below_lambda_star():
    for sy in SYSTEMS[:60]:
        lam_star = St.critical_load(sy)
        for factor, stable in ((0.999, True), (1.001, False)):
            c1 = St.condition_1(sy, factor * lam_star)
            c2 = St.condition_2(sy, factor * lam_star)
            assert c1.holds == c2.holds == stable
        # at lambda*, the binding inequality of (1) is the critical subset's
        assert St.condition_1(sy, lam_star).worst_margin == pytest.approx(0.0, abs=1e-9)


def test_power_of_d_reduction_3_matches_the_general_conditions():
    rng = np.random.default_rng(3)
    for n, d in ((5, 2), (6, 3), (6, 1), (7, 6)):
        speeds = rng.uniform(0.2, 3, n)
        sy = M.power_of_d(n, d, speeds)
        assert St.power_of_d_critical_load(speeds, d) == pytest.approx(St.critical_load(sy), rel=1e-12)
    assert St.power_of_d_critical_load(np.ones(8), 3) == pytest.approx(1.0)


def test_local_conditions_7_8_9_11_are_equivalent():
    locally = 0
    for sy in SYSTEMS:
        flags = {St.local_condition_7(sy).holds, St.local_condition_8(sy).holds,
                 St.local_condition_9(sy).holds, St.local_condition_11(sy).holds,
                 St.is_locally_stable(sy)}
        assert len(flags) == 1
        locally += flags.pop()
        if St.is_locally_stable(sy):
            if sy.n_types > 1:  # (10) is (9) for T' = {S0}, a proper subset only when K > 1
                assert St.local_condition_10(sy).holds
            assert St.critical_load(sy) == pytest.approx(sy.mean_speed)
    assert 0 < locally < len(SYSTEMS)  # both cases occur


def test_m_model_critical_load_inside_and_outside_the_cone():
    inside = St.critical_subset(M.m_model(7 / 12))
    assert inside.maximally_stable and inside.critical_load == pytest.approx(1.0)
    outside = St.critical_subset(M.m_model(0.25))
    assert outside.types == (1,) and outside.critical_load == pytest.approx(2 / (3 * 0.75))
    assert not M.m_model(0.25) is None and not St.is_locally_stable(M.m_model(0.25))
    # the cone of Fig. 2(c) is p12 in (1/3, 2/3)
    for p, ok in ((0.34, True), (0.66, True), (0.32, False), (0.7, False)):
        assert St.is_locally_stable(M.m_model(p)) == ok


def test_table1_settings_are_maximally_stable_at_load_09():
    settings = [M.power_of_d(4, 2), M.circular_d(4, 2), M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1]),
                M.RedundancySystem(np.ones(4), [(0,), (1,), (2,), (3,), (0, 1, 2, 3)], [0.175] * 4 + [0.3]),
                M.power_of_d(10, 2), M.circular_d(10, 2), M.power_of_d(10, 8), M.circular_d(10, 8),
                M.power_of_d(20, 2), M.circular_d(20, 2), M.power_of_d(20, 18), M.circular_d(20, 18)]
    for sy in settings:
        assert St.is_locally_stable(sy) and St.is_stable(sy, 0.9)


def test_eps_example_is_locally_stable_only_for_positive_eps():
    speeds = [1, 2, 3, 0.5]
    assert St.is_locally_stable(M.single_plus_full(4, 0.2, speeds))
    assert not St.is_locally_stable(M.single_plus_full(4, 0.0, speeds))
    assert St.local_condition_8(M.single_plus_full(4, 0.2, speeds)).holds


def test_unstable_load_raises_instability_error_naming_the_condition():
    with pytest.raises(InstabilityError, match=r"condition \(1\).*lambda\*"):
        St.require_stable(M.m_model(0.25), 0.95)


def test_flow_search_scales_beyond_the_server_set_transform():
    rng = np.random.default_rng(11)
    sy = M.circular_d(22, 3, rng.dirichlet(np.ones(22)), speeds=rng.uniform(0.5, 2, 22))
    a, b = St.critical_subset(sy, "servers"), St.critical_subset(sy, "flow")
    assert a.ratio == pytest.approx(b.ratio, rel=1e-12) and a.types == b.types and a.unique == b.unique
    big = M.circular_d(40, 2)  # 2^40 server sets: only the flow search applies
    assert St.critical_subset(big).critical_load == pytest.approx(1.0)


def test_capacity_ratio_of_the_critical_subset_is_the_maximum():
    for sy in SYSTEMS[:40]:
        crit = St.critical_subset(sy)
        assert St.capacity_ratio(sy, crit.types) == pytest.approx(crit.ratio, rel=1e-12)
        assert St.capacity_ratio(sy, range(sy.n_types)) <= crit.ratio * (1 + 1e-12)
        for k in range(sy.n_types):
            assert St.capacity_ratio(sy, [k]) <= crit.ratio * (1 + 1e-12)


def test_critical_subset_is_remembered_per_system_and_not_shared_between_systems():
    critical_subset, cache = St.critical_subset, St._CRITICAL_CACHE
    base = M.circular_d(8, 2)
    first = critical_subset(base)
    assert critical_subset(base) is first                     # the second call is a look-up
    # an equal system built again finds the same answer; the cache holds the computed one
    assert critical_subset(M.circular_d(8, 2)) == first == cache[
        (base.speeds.tobytes(), base.types, base.probabilities.tobytes(), "servers")]
    # same types, other speeds or probabilities: other answers, computed afresh
    slow = M.RedundancySystem(np.r_[0.2, np.ones(7)], base.types, base.probabilities)
    assert critical_subset(slow) != first and 0 in critical_subset(slow).servers
    skewed = np.r_[0.5, np.full(7, 0.5 / 7)]
    assert critical_subset(M.RedundancySystem(base.speeds, base.types, skewed)).critical_load < first.critical_load
    for method in ("flow", "types"):
        assert critical_subset(slow, method).types == critical_subset(slow).types
