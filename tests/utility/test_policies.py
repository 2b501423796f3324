"""Policy objects: they own and check their parameters, and the object and the old string
interface run the same kernel with the same arguments (identical paths for one seed)."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import LogUtility, PoolSystem, simulate
from qtheory.utility.policies import JLMU, JSQ, REGISTRY, SLTA, Conservative, Random, as_policy
from qtheory.utility.simulation import POLICIES

SYS = PoolSystem((LogUtility(20), LogUtility(30), LogUtility(8)), (0.25, 0.5, 0.25), 6.0)
TIMES = np.linspace(0.0, 30.0, 7)


def test_registry_codes_are_distinct_and_match_the_old_map():
    assert POLICIES == {"jlmu": 0, "slta": 1, "random": 2, "jsq": 3, "conservative": 4}
    assert len({cls.code for cls in REGISTRY.values()}) == len(REGISTRY)


@pytest.mark.parametrize("name, kwargs, obj", [
    ("jlmu", {}, JLMU()), ("random", {}, Random()), ("jsq", {}, JSQ()),
    ("slta", {"beta": 0.3, "r0": 2}, SLTA(beta=0.3, r0=2)),
    ("conservative", {"target_class": 1}, Conservative(target_class=1)),
])
def test_object_and_string_give_identical_paths(name, kwargs, obj):
    assert as_policy(name, **kwargs) == obj
    a = simulate(SYS, 40, name, t_end=30.0, seed=5, sample_times=TIMES, **kwargs)
    b = simulate(SYS, 40, obj, t_end=30.0, seed=5, sample_times=TIMES)
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
        simulate(SYS, 40, Conservative(target_class=3), t_end=1.0, seed=1)


def test_policies_are_frozen():
    with pytest.raises(AttributeError):
        SLTA(beta=0.3).beta = 0.5
