"""A policy with memory keeps it in its state ``st`` (:meth:`Policy.initial_state`), and takes the
same path whatever integer width holds the queue lengths: each kernel attempt, the overflow
rerun included, starts from a fresh copy of the state as built, not from the one the failed
attempt wrote into (issue 42: from queues at 254 the narrow run of such a policy gave 8,317
events and int32 8,381); the run's result returns the final state."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

import qtheory.locality.simulation as sim
from qtheory.locality.graphs import irg
from qtheory.locality.model import paper_system
from qtheory.locality.policies import REGISTRY, Policy, _ix, distinct_position

RememberParams = namedtuple("RememberTestParams", ["d", "picks"])


@njit(cache=True)
def _remember_last_rule(params, st, rng, i, state, offset, degree, neighbors):
    """The shortest of d samples and the server the previous arrival (at any dispatcher) joined."""
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    n_samples = params.d if params.d < deg else deg
    target = st[0]
    for h in range(n_samples):
        j = neighbors[_ix(base + distinct_position(rng, deg, params.picks, h))]
        if target < 0 or state[_ix(j)] < state[_ix(target)]:
            target = j
    st[0] = target          # remembered for the next arrival
    st[1] += 1              # arrivals decided
    return target


@dataclass(frozen=True)
class RemembersLast(Policy):
    name = "test-remembers-last"
    Params = RememberParams
    rule = _remember_last_rule

    def kernel_params(self, system, graph):
        return RememberParams(int(system.d), np.empty(int(system.d), np.int64))

    def initial_state(self, system, graph):
        return np.array([-1, 0], np.int64)

    def exact_start(self, system, graph):
        return (-1,)

    def exact_rule(self, system, graph, i, state, remembered):   # not used: the test is of the kernel
        raise NotImplementedError


REGISTRY.pop("test-remembers-last", None)   # a test's policy, not one of the package's


def test_a_policy_with_memory_takes_the_same_path_in_every_width(monkeypatch):
    system = paper_system("design", d=2)
    graph = irg(system, 60, seed=2)
    x0 = np.full(60, 254, np.int64)         # the first arrival overflows uint8: the run restarts in uint16
    grid = np.linspace(0.0, 20.0, 41)
    monkeypatch.setattr(sim, "_NARROW_FROM", 1 << 40)
    wide = sim.simulate(system, graph, RemembersLast(), initial_state=x0, t_grid=grid, seed=7)
    monkeypatch.setattr(sim, "_NARROW_FROM", 0)
    narrow = sim.simulate(system, graph, RemembersLast(), initial_state=x0, t_grid=grid, seed=7)
    assert narrow.events == wide.events
    np.testing.assert_array_equal(narrow.final_state, wide.final_state)
    np.testing.assert_array_equal(narrow.occupancy, wide.occupancy)
    np.testing.assert_array_equal(narrow.policy_state, wide.policy_state)
    # the final state is the run's: as many decisions as arrivals, the last one's server remembered
    arrivals = int(wide.final_state.sum() - x0.sum())       # arrivals minus departures, plus ...
    assert wide.policy_state[1] >= max(arrivals, 1) and 0 <= wide.policy_state[0] < 60


def test_the_policy_state_a_policy_builds_is_checked():
    """``initial_state`` must give the kernel what it takes: a 1-D int64 array."""
    import pytest

    class Wrong(RemembersLast):
        def initial_state(self, system, graph):
            return [-1, 0]

    system = paper_system("design", d=2)
    with pytest.raises(TypeError, match="initial_state must return a 1-D int64 numpy array"):
        sim.simulate(system, irg(system, 20, seed=1), Wrong(), initial_state=np.zeros(20, np.int64), t_grid=[0.0, 1.0], seed=1)
