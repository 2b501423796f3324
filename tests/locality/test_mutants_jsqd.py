"""Local JSQ(d)'s rule (locality/policies/jsqd.py) on scripted states: the law of the server
that receives a task, against its exact value (mutation testing, issue 13)."""

from itertools import combinations

import numpy as np
import pytest
from numba import njit
from scipy import stats

from qtheory._rng import uniform
from qtheory.locality.policies.jsqd import Params, rule
from qtheory.runtime import kernel_state

# dispatcher 0 sees servers 0..1, dispatcher 1 sees servers 2..6 (5 neighbours)
OFFSET = np.array([0, 2], np.int64)
DEGREE = np.array([2, 5], np.int64)
NEIGHBORS = np.array([0, 1, 2, 3, 4, 5, 6], np.int32)
DRAWS = 200_000


@njit
def _counts(params, rng, i, state, offset, degree, neighbors, draws):
    """The servers chosen in `draws` arrivals, each with a fresh uniform ``u`` (the kernel's:
    independent of the generator's later draws)."""
    out = np.zeros(state.size, np.int64)
    for _ in range(draws):
        u = uniform(rng)
        out[rule(params, rng, i, u, state, offset, degree, neighbors)] += 1
    return out


def exact_law(state, members, d):
    """P(server j receives the task): a uniform d-subset of `members`, its shortest server,
    ties uniformly (the sampling order is uniform)."""
    law = np.zeros(state.size)
    subsets = list(combinations(members, d))
    for sub in subsets:
        low = min(state[j] for j in sub)
        best = [j for j in sub if state[j] == low]
        for j in best:
            law[j] += 1.0 / (len(subsets) * len(best))
    return law


def _chi2_pvalue(counts, law):
    keep = law > 0
    assert counts[~keep].sum() == 0, f"a server outside the support was chosen: {counts}"
    return stats.chisquare(counts[keep], DRAWS * law[keep]).pvalue


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("state", [[0, 0, 4, 1, 3, 0, 2], [0, 0, 2, 2, 5, 1, 1]])
def test_law_of_the_chosen_server_is_the_shortest_of_a_uniform_subset(d, state):
    state = np.array(state, np.int64)
    params = Params(d, np.empty(d, np.int64))
    counts = _counts(params, kernel_state(100 + d), 1, state, OFFSET, DEGREE, NEIGHBORS, DRAWS)
    law = exact_law(state, range(2, 7), d)
    assert _chi2_pvalue(counts, law) > 1e-6, (counts / DRAWS, law)


def test_fewer_neighbours_than_d_gives_a_uniform_neighbour():
    state = np.array([3, 0, 0, 0, 0, 0, 0], np.int64)
    params = Params(3, np.empty(3, np.int64))
    counts = _counts(params, kernel_state(7), 0, state, OFFSET, DEGREE, NEIGHBORS, DRAWS)
    law = np.zeros(7)
    law[:2] = 0.5  # dispatcher 0 has 2 < d = 3 neighbours: each with probability 1/2
    assert _chi2_pvalue(counts, law) > 1e-6, counts
    # dispatcher 1 (5 neighbours) with d = 6 > 5 as well: uniform over servers 2..6
    params = Params(6, np.empty(6, np.int64))
    counts = _counts(params, kernel_state(8), 1, state, OFFSET, DEGREE, NEIGHBORS, DRAWS)
    law = np.zeros(7)
    law[2:] = 0.2
    assert _chi2_pvalue(counts, law) > 1e-6, counts


def test_d1_and_a_dispatcher_with_one_neighbour_are_allowed():
    from qtheory.locality.graphs import from_adjacency
    from qtheory.locality.model import LocalitySystem
    from qtheory.locality.policies import LocalJSQ

    system = LocalitySystem(0.5, 2 / 3, (1.0,), (1 / 3, 1 / 3, 1 / 3), (1.0, 1.0, 1.0), ((1.0, 1.0, 1.0),), 2)
    graph = from_adjacency(np.array([[1, 0, 0], [0, 1, 1]]), [0, 1, 2], [0, 0])
    params = LocalJSQ(d=1).kernel_params(system, graph)   # degree 1 is allowed, d = 1 too
    assert params.d == 1 and params.picks.size == 1
    assert LocalJSQ().kernel_params(system, graph).d == 2  # the system's d
