"""JIQ, join the idle queue with locality (a policy beyond the paper, manifest L-R-jiq).

An arrival at dispatcher ``i`` joins a uniformly chosen idle server among its compatible
servers if one is idle, else a uniformly chosen compatible server. It needs one bit per
server (idle or not) instead of ``d`` queue lengths; each arrival scans the dispatcher's
neighbourhood (``O(deg)``), which suits the sparse irg graphs of Sec. 6.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ..._rng import randint
from . import Policy, _ix, require_served

#: JIQ has no parameters (its rule does not take `params`)
Params = namedtuple("JIQParams", [])


@njit(cache=True)
def rule(rng, i, state, offset, degree, neighbors):
    """A uniform idle neighbour of ``i`` if any, else a uniform neighbour."""
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    idle = 0
    for c in range(deg):
        if state[_ix(neighbors[_ix(base + c)])] == 0:
            idle += 1
    if idle == 0:
        target = neighbors[_ix(base + randint(rng, deg))]
    else:
        v = randint(rng, idle)
        target = -1
        for c in range(deg):
            j = neighbors[_ix(base + c)]
            if state[_ix(j)] == 0:
                if v == 0:
                    target = j
                    break
                v -= 1
    return target


@dataclass(frozen=True)
class JIQ(Policy):
    """Join an idle compatible server, else a uniformly random compatible one."""

    name = "jiq"
    Params = Params
    rule = rule

    def kernel_params(self, system, graph):
        require_served(graph)
        return Params()

    def exact_rule(self, system, graph, i, state):
        """A uniform idle neighbour of ``i`` if one is idle, else a uniform neighbour."""
        nb = [int(j) for j in graph.neighbors[graph.offset[i]:graph.offset[i] + graph.degree[i]]]
        idle = [j for j in nb if state[j] == 0]
        chosen = idle or nb
        return [(j, 1.0 / len(chosen)) for j in chosen]
