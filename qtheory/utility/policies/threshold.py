"""Threshold assignment (a policy beyond the paper): an arriving task joins a uniformly
random pool holding fewer than ``threshold`` tasks, and a uniformly random pool if there is
none. Class-blind like JSQ, but it needs one bit per pool (below the threshold or not)
instead of the least occupancy; ``threshold = 1`` joins an idle pool when there is one.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ...validation import check_integer
from . import Policy, _ix, pick

Params = namedtuple("ThresholdParams", ["threshold"])


@njit(cache=True)
def rule(params, u, n, offset, bound, perm):
    """A uniform pool among those below the threshold (the first positions of each class in
    ``perm``), else a uniform pool."""
    m = offset.shape[0] - 1
    level = params.threshold
    if level > bound.shape[1] - 1:
        level = bound.shape[1] - 1  # every pool is below a threshold past the table
    below = 0
    for i in range(m):
        below += bound[_ix(i), _ix(level)] - offset[_ix(i)]
    p = -1
    if below == 0:
        p = pick(u, n)
    else:
        v = pick(u, below)
        for i in range(m):
            c = bound[_ix(i), _ix(level)] - offset[_ix(i)]
            if v < c:
                p = perm[_ix(offset[_ix(i)] + v)]
                break
            v -= c
    return p


@dataclass(frozen=True)
class Threshold(Policy):
    """A uniformly random pool with fewer than ``threshold`` tasks, else a uniformly random pool."""

    threshold: int = 1
    name = "threshold"
    Params = Params
    rule = rule

    def __post_init__(self):
        object.__setattr__(self, "threshold", check_integer("threshold", self.threshold, low=1))

    def kernel_params(self, system, n, depth):
        return Params(self.threshold)

    def exact_rule(self, chain, occ):
        """``(pool, probability)``: uniform over the pools below the threshold, else over all."""
        chosen = [p for p in range(len(occ)) if occ[p] < self.threshold] or list(range(len(occ)))
        return [(p, 1.0 / len(chosen)) for p in chosen]
