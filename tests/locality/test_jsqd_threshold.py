"""JSQ(d) with a threshold (beyond the paper): its reading against local JSQ(d) and random
routing, the two policies it interpolates; the registry's generic tests
(test_registered_policies.py) compare its simulator with the exact chain of this reading."""

import numpy as np

from qtheory.locality.graphs import from_adjacency
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import REGISTRY, LocalJSQ, ThresholdJSQ

GRAPH = from_adjacency(np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 0, 1]]), [0, 0, 1, 1], [0, 0, 1])
SYSTEM = LocalitySystem(0.6, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((1.0, 1.0), (1.0, 1.0)), 2)
STATES = [np.array(s) for s in ([0, 0, 0, 0], [3, 1, 2, 0], [2, 2, 1, 1], [5, 0, 0, 4])]


def test_it_is_registered_by_its_file_alone():
    assert REGISTRY["jsqd-threshold"] is ThresholdJSQ


def test_threshold_zero_is_local_jsqd():
    for state in STATES:
        for i in range(3):
            assert ThresholdJSQ(threshold=0).exact_rule(SYSTEM, GRAPH, i, state) == \
                LocalJSQ().exact_rule(SYSTEM, GRAPH, i, state)


def test_a_threshold_above_every_queue_is_random_routing():
    for state in STATES:
        for i in range(3):
            law = ThresholdJSQ(threshold=10).exact_rule(SYSTEM, GRAPH, i, state)
            nb = GRAPH.neighbourhood(i)
            assert [j for j, _ in law] == sorted(nb.tolist())
            np.testing.assert_allclose([p for _, p in law], 1.0 / nb.size)


def test_the_first_sample_below_the_threshold_wins():
    # dispatcher 0 sees servers 0, 1, 2 with queues 3, 1, 0; threshold 2: servers 1 and 2 are
    # below it and win when sampled first (1/3 each), or second after server 0 (1/6 each)
    law = dict(ThresholdJSQ(threshold=2).exact_rule(SYSTEM, GRAPH, 0, np.array([3, 1, 0, 0])))
    np.testing.assert_allclose([law[1], law[2]], [0.5, 0.5])
    assert 0 not in law
