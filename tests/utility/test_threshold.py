"""Threshold assignment (beyond the paper): its reading against the policies it reduces to;
the registry's generic tests (test_registered_policies.py) compare its simulator with the
exact chain of this reading."""

import numpy as np

from qtheory.utility import LogUtility, PoolSystem, exact_stationary
from qtheory.utility.exact import ExactChain
from qtheory.utility.policies import REGISTRY, Random, Threshold

SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
CLS = np.array([0, 0, 1, 1])


def test_it_is_registered_by_its_file_alone():
    assert REGISTRY["threshold"] is Threshold


def test_pools_below_the_threshold_share_the_task():
    chain = ExactChain(SMALL, 4, CLS, None, None, 22)
    assert Threshold(threshold=2).exact_rule(chain, [3, 1, 0, 2]) == [(1, 0.5), (2, 0.5)]
    assert Threshold(threshold=1).exact_rule(chain, [3, 1, 0, 2]) == [(2, 1.0)]


def test_a_threshold_above_every_pool_is_random_assignment():
    far = exact_stationary(SMALL, 4, Threshold(threshold=40), max_tasks=22)
    rand = exact_stationary(SMALL, 4, Random(), max_tasks=22)
    assert abs(far.mean_utility - rand.mean_utility) < 1e-12
    idle_first = exact_stationary(SMALL, 4, Threshold(threshold=1), max_tasks=22)
    assert idle_first.mean_utility > rand.mean_utility   # idle pools first spreads the tasks
