"""A policy that keeps state in its ``params`` arrays (memory of a server, as in JSQ(d) with
memory) takes the same path whatever integer width holds the queue lengths: the kernel's
overflow rerun starts from fresh ``params``, not from the ones the failed attempt wrote into
(issue 42: from queues at 254 the narrow run gave 8,317 events and int32 8,381)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

import qtheory.locality.simulation as sim
from qtheory.locality.graphs import irg
from qtheory.locality.model import paper_system
from qtheory.locality.policies import REGISTRY, Policy, _ix, distinct_position

MemoryParams = namedtuple("MemoryTestParams", ["d", "picks", "memory"])


@njit(cache=True)
def _memory_rule(params, rng, i, state, offset, degree, neighbors):
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    n_samples = params.d if params.d < deg else deg
    target = params.memory[0]
    for h in range(n_samples):
        j = neighbors[_ix(base + distinct_position(rng, deg, params.picks, h))]
        if target < 0 or state[_ix(j)] < state[_ix(target)]:
            target = j
    params.memory[0] = target          # the policy's own state: remembered for the next arrival
    return target


def test_a_stateful_policy_takes_the_same_path_in_every_width(monkeypatch):
    @dataclass(frozen=True)
    class RemembersLast(Policy):
        name = "test-remembers-last"
        Params = MemoryParams
        rule = _memory_rule
        exact_rule = None

        def kernel_params(self, system, graph):
            return MemoryParams(int(system.d), np.empty(int(system.d), np.int64), np.full(1, -1, np.int64))

    try:
        system = paper_system("design", d=2)
        graph = irg(system, 60, seed=2)
        x0 = np.full(60, 254, np.int64)         # the first arrival overflows uint8: the run restarts in uint16
        grid = np.linspace(0.0, 20.0, 41)
        monkeypatch.setattr(sim, "_NARROW_FROM", 1 << 40)
        wide = sim.simulate(system, graph, RemembersLast(), x0, grid, 7)
        monkeypatch.setattr(sim, "_NARROW_FROM", 0)
        narrow = sim.simulate(system, graph, RemembersLast(), x0, grid, 7)
        assert narrow.events == wide.events
        np.testing.assert_array_equal(narrow.final_state, wide.final_state)
        np.testing.assert_array_equal(narrow.occupancy, wide.occupancy)
    finally:
        REGISTRY.pop("test-remembers-last", None)
