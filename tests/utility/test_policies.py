"""Policy objects: they own and check their parameters, and the object and the old string
interface run the same kernel with the same arguments (identical paths for one seed)."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import LogUtility, PoolSystem, simulate
from qtheory.utility.policies import JLMU, JSQ, REGISTRY, SLTA, Conservative, Policy, Random, as_policy
from qtheory.utility.simulation import POLICIES

SYS = PoolSystem((LogUtility(20), LogUtility(30), LogUtility(8)), (0.25, 0.5, 0.25), 6.0)
TIMES = np.linspace(0.0, 30.0, 7)


def test_registry_holds_the_papers_policies_each_with_its_own_rule():
    assert {"jlmu", "slta", "random", "jsq", "conservative"} <= set(POLICIES)
    assert POLICIES == tuple(REGISTRY)
    rules = [cls.rule for cls in REGISTRY.values()]
    assert len(set(rules)) == len(rules)  # one compiled kernel per rule


def test_a_name_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="'jlmu' of .*Again is already registered by .*JLMU"):
        type("Again", (JLMU,), {"name": "jlmu"})
    assert REGISTRY["jlmu"] is JLMU


def test_a_policy_without_params_or_rule_is_refused_when_defined():
    with pytest.raises(TypeError, match="must set `Params`"):
        type("NoParams", (Policy,), {"name": "no-params", "rule": JLMU.rule})
    with pytest.raises(TypeError, match="must set `rule`"):
        type("NoRule", (Policy,), {"name": "no-rule", "Params": JLMU.Params})
    assert "no-params" not in REGISTRY and "no-rule" not in REGISTRY


@pytest.mark.parametrize("name, kwargs, obj", [
    ("jlmu", {}, JLMU()), ("random", {}, Random()), ("jsq", {}, JSQ()),
    ("slta", {"beta": 0.3, "r0": 2}, SLTA(beta=0.3, r0=2)),
    ("conservative", {"target_class": 1}, Conservative(target_class=1)),
])
def test_object_and_string_give_identical_paths(name, kwargs, obj):
    assert as_policy(name, **kwargs) == obj
    a = simulate(SYS, 40, name, horizon=30.0, seed=5, sample_times=TIMES, **kwargs)
    b = simulate(SYS, 40, obj, horizon=30.0, seed=5, sample_times=TIMES)
    assert a.policy == b.policy == name
    assert a.mean_utility == b.mean_utility
    np.testing.assert_array_equal(a.u, b.u)


@pytest.mark.parametrize("make", [lambda: SLTA(beta=0.0), lambda: SLTA(beta=-1.0),
                                  lambda: SLTA(r0=0), lambda: Conservative(target_class=-1),
                                  lambda: as_policy("nope"), lambda: as_policy(JLMU(), beta=0.5)])
def test_bad_parameters_raise(make):
    with pytest.raises(ParameterError):
        make()


def test_system_dependent_checks_still_apply():
    with pytest.raises(ParameterError, match="target_class"):
        simulate(SYS, 40, Conservative(target_class=3), horizon=1.0, seed=1)


def test_policies_are_frozen():
    with pytest.raises(AttributeError):
        SLTA(beta=0.3).beta = 0.5


def test_exact_chain_accepts_policy_objects():
    from qtheory.utility.exact import exact_stationary
    small = PoolSystem((LogUtility(2), LogUtility(3)), (0.5, 0.5), 0.8)
    a = exact_stationary(small, 2, "slta", max_tasks=5, beta=0.7)
    b = exact_stationary(small, 2, SLTA(beta=0.7), max_tasks=5)
    assert a.mean_utility == b.mean_utility
    c = exact_stationary(small, 2, Conservative(target_class=0), max_tasks=5)
    d = exact_stationary(small, 2, "conservative", max_tasks=5, target_class=0)
    assert c.mean_utility == d.mean_utility
    e = exact_stationary(small, 2, Conservative(), max_tasks=5)  # default: the last class
    assert e.mean_utility != c.mean_utility  # the object's target_class reaches the chain


def test_pick_is_floor_of_u_k_over_two_to_the_64():
    """pick(u, k) = floor(u k / 2**64), written out with Python's integers: every value in
    {0, ..., k - 1}, each for an equal share (up to one) of the 2**64 words."""
    from qtheory.utility.policies import pick

    rng = np.random.default_rng(5)
    words = [0, 1, 2**63, 2**64 - 1, *rng.integers(0, 2**64, size=200, dtype=np.uint64).tolist()]
    for k in (1, 2, 3, 7, 100, 2**31 - 1, 2**40 + 3):
        for u in words:
            assert pick(np.uint64(u), k) == (u * k) >> 64
        # the first word of each value j is ceil(j 2**64 / k): the values split the words evenly
        for j in range(min(k, 5)):
            first = -((-j * 2**64) // k)
            assert pick(np.uint64(first), k) == j
            if first > 0:
                assert pick(np.uint64(first - 1), k) == j - 1


@pytest.mark.parametrize("name, kwargs, named", [
    ("jlmu", dict(beta=0.5, r0=3, target_class=1), "`beta`, `r0`, `target_class` are not parameters of policy 'jlmu'"),
    ("slta", dict(target_class=1), "`target_class` is not a parameter of policy 'slta' (its parameters: `beta`, `r0`)"),
    ("conservative", dict(beta=0.2), "`beta` is not a parameter of policy 'conservative'"),
])
def test_as_policy_refuses_an_option_the_named_policy_would_drop(name, kwargs, named):
    with pytest.raises(ParameterError) as err:
        as_policy(name, **kwargs)
    assert named in str(err.value)
    with pytest.raises(ParameterError, match="|".join(kwargs)):      # simulate refuses them by name too
        simulate(SYS, 40, name, horizon=1.0, seed=1, **kwargs)


def test_as_policy_accepts_options_left_at_their_defaults():
    assert as_policy("jlmu", beta=None, r0=1, target_class=None) == JLMU()   # the U wrapper's defaults
    assert as_policy("slta", beta=None) == SLTA()
