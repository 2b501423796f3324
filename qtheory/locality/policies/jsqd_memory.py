"""JSQ(d) with memory (a policy beyond the paper; Mitzenmacher, Prabhakar and Shah 2002): each
dispatcher remembers one of its compatible servers. An arrival at dispatcher ``i`` samples ``d``
distinct compatible servers and joins the shortest of them and the remembered one; the
dispatcher then remembers the least loaded of these candidates counting the task just placed.

Read on paper L's bipartite graphs: the memory is per dispatcher (a dispatcher can only
remember a server it may send to), and it starts empty (the first arrival at a dispatcher
sees only its ``d`` samples). Ties go to the first of the candidates in the order remembered
server, then the samples in sampling order (uniformly random), both when placing the task and
when choosing what to remember.

This is a policy with memory in the sense of the policy contract
(:mod:`qtheory.locality.policies`): the remembered servers are its state ``st`` (one entry per
dispatcher, -1 for none), built by :meth:`JSQdMemory.initial_state`; its exact rule maps
(queue lengths, remembered servers) to the law of (server, next remembered servers).
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...validation import check_integer
from . import Policy, _ix, distinct_position, require_served

#: ``picks``: scratch for the sampled positions, ``sampled``: for the sampled servers (d entries each)
Params = namedtuple("MemoryJSQParams", ["d", "picks", "sampled"])


@njit(cache=True)
def rule(params, st, rng, i, state, offset, degree, neighbors):
    """``min(d, deg)`` distinct uniform neighbours of ``i`` and the remembered server ``st[i]``
    (if any): the first shortest of (remembered, samples in order) receives the task; then
    ``st[i]`` becomes the first least loaded of them counting that task."""
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    n_samples = params.d if params.d < deg else deg
    remembered = st[_ix(i)]
    target = remembered
    for h in range(n_samples):
        j = neighbors[_ix(base + distinct_position(rng, deg, params.picks, h))]
        params.sampled[_ix(h)] = j
        if target < 0 or state[_ix(j)] < state[_ix(target)]:
            target = j
    best = remembered
    best_len = 0
    if remembered >= 0:
        best_len = np.int64(state[_ix(remembered)]) + (1 if remembered == target else 0)
    for h in range(n_samples):
        j = params.sampled[_ix(h)]
        x = np.int64(state[_ix(j)]) + (1 if j == target else 0)
        if best < 0 or x < best_len:
            best = j
            best_len = x
    st[_ix(i)] = best
    return target


@dataclass(frozen=True)
class JSQdMemory(Policy):
    """JSQ(d) with memory: the shortest of ``d`` distinct sampled neighbours and the server the
    dispatcher remembers, which is then the least loaded of them after the task is placed;
    ``d = None`` takes the system's ``d``."""

    d: int | None = None
    name = "jsqd-memory"
    Params = Params
    rule = rule

    def __post_init__(self):
        if self.d is not None:
            object.__setattr__(self, "d", check_integer("d", self.d, low=1))

    def _d(self, system) -> int:
        return int(system.d if self.d is None else self.d)

    def kernel_params(self, system, graph):
        require_served(graph)
        d = self._d(system)
        return Params(d, np.empty(d, np.int64), np.empty(d, np.int64))

    def initial_state(self, system, graph) -> np.ndarray:
        """No dispatcher remembers a server yet: -1 for each."""
        return np.full(graph.n_dispatchers, -1, np.int64)

    def exact_start(self, system, graph):
        return (-1,) * graph.n_dispatchers

    def exact_rule(self, system, graph, i, state, remembered):
        """Every ordered tuple of ``min(d, deg)`` distinct neighbours equally likely; the
        candidates are the remembered server of ``i`` (if any) and the tuple, in that order;
        the first shortest receives the task and the first least loaded after it is remembered.
        Returns ``(server, probability, remembered servers after)``."""
        nb = [int(j) for j in graph.neighbors[graph.offset[i]:graph.offset[i] + graph.degree[i]]]
        samples = list(itertools.permutations(nb, min(self._d(system), len(nb))))
        mine = remembered[i]
        law: dict[tuple, float] = {}
        for sample in samples:
            candidates = ([mine] if mine >= 0 else []) + list(sample)
            winner = min(candidates, key=lambda j: state[j])           # min keeps the first of equals
            after = min(candidates, key=lambda j: state[j] + (j == winner))
            nxt = remembered[:i] + (after,) + remembered[i + 1:]
            law[(winner, nxt)] = law.get((winner, nxt), 0.0) + 1.0 / len(samples)
        return [(j, p, nxt) for (j, nxt), p in sorted(law.items())]
