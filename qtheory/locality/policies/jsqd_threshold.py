"""JSQ(d) with a threshold (a policy beyond the paper): an arrival samples up to ``d``
distinct compatible servers one at a time and joins the first whose queue is shorter than
``threshold``; if none is, it joins the shortest of the ``d`` (the first sampled on ties).

At light load most arrivals stop at the first sample (one queue length read instead of
``d``); ``threshold = 0`` never stops early and is local JSQ(d) read with one draw per
sample.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...validation import check_integer
from . import Policy, _ix, distinct_position, require_served

#: ``picks``: scratch for the sampled positions (d entries)
Params = namedtuple("ThresholdJSQParams", ["d", "threshold", "picks"])


@njit(cache=True)
def rule(params, rng, i, state, offset, degree, neighbors):
    """Distinct uniform neighbours of ``i`` in sampling order, up to ``min(d, deg)`` of them:
    the first below the threshold, else the first shortest."""
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    picks = params.picks
    n_samples = params.d if params.d < deg else deg
    best = 1 << 62
    target = -1
    for h in range(n_samples):
        c = distinct_position(rng, deg, picks, h)
        j = neighbors[_ix(base + c)]
        if state[_ix(j)] < params.threshold:
            target = j
            break
        if state[_ix(j)] < best:
            best = state[_ix(j)]
            target = j
    return target


@dataclass(frozen=True)
class ThresholdJSQ(Policy):
    """JSQ(d) with a threshold: the first of up to ``d`` distinct sampled neighbours whose
    queue is below ``threshold``, else the shortest of them; ``d = None`` takes the
    system's ``d``."""

    d: int | None = None
    threshold: int = 1
    name = "jsqd-threshold"
    Params = Params
    rule = rule

    def __post_init__(self):
        if self.d is not None:
            object.__setattr__(self, "d", check_integer("d", self.d, low=1))
        object.__setattr__(self, "threshold", check_integer("threshold", self.threshold, low=0))

    def kernel_params(self, system, graph):
        require_served(graph)
        d = int(system.d if self.d is None else self.d)
        return Params(d, int(self.threshold), np.empty(d, np.int64))

    def exact_rule(self, system, graph, i, state):
        """Every ordered tuple of ``min(d, deg)`` distinct neighbours equally likely; the first
        entry below the threshold wins, else the first shortest entry."""
        d = system.d if self.d is None else self.d
        nb = [int(j) for j in graph.neighbors[graph.offset[i]:graph.offset[i] + graph.degree[i]]]
        samples = list(itertools.permutations(nb, min(d, len(nb))))
        law: dict[int, float] = {}
        for sample in samples:
            below = [j for j in sample if state[j] < self.threshold]
            winner = below[0] if below else min(sample, key=lambda j: state[j])
            law[winner] = law.get(winner, 0.0) + 1.0 / len(samples)
        return sorted(law.items())
