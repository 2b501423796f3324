"""Class-blind join the shortest queue (a baseline of Sec. 8.3)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from . import Policy, _ix, pick

Params = namedtuple("JSQParams", ["m"])


@njit(cache=True)
def rule(u, bound, minocc, perm):
    """A uniformly random pool among the least-occupied pools of all classes."""
    m = minocc.shape[0]
    mo = minocc[0]
    for i in range(1, m):
        if minocc[_ix(i)] < mo:
            mo = minocc[_ix(i)]
    total = 0
    for i in range(m):
        if minocc[_ix(i)] == mo:
            total += bound[_ix(i), _ix(mo + 1)] - bound[_ix(i), _ix(mo)]
    v = pick(u, total)
    pos = -1
    for i in range(m):
        if minocc[_ix(i)] == mo:
            c = bound[_ix(i), _ix(mo + 1)] - bound[_ix(i), _ix(mo)]
            if v < c:
                pos = bound[_ix(i), _ix(mo)] + v
                break
            v -= c
    return perm[_ix(pos)]


@dataclass(frozen=True)
class JSQ(Policy):
    """Join the shortest queue ignoring classes."""

    name = "jsq"
    Params = Params
    rule = rule

    def kernel_params(self, system, n, depth):
        return Params(system.m)

    def exact_rule(self, chain, occ):
        """``(pool, probability)``: uniform over the least-occupied pools of all classes."""
        low = min(occ)
        chosen = [p for p in range(len(occ)) if occ[p] == low]
        return [(p, 1.0 / len(chosen)) for p in chosen]
