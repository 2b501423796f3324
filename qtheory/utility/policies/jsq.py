"""Class-blind join the shortest queue (a baseline of Sec. 8.3)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ..._rng import randint
from . import Policy, register

Params = namedtuple("JSQParams", ["m"])


@njit(cache=True)
def rule(params, st, rng, n, offset, bound, minocc, perm, pool_class, occ, key):
    """A uniformly random pool among the least-occupied pools of all classes."""
    m = minocc.shape[0]
    mo = minocc[0]
    for i in range(1, m):
        if minocc[i] < mo:
            mo = minocc[i]
    total = 0
    for i in range(m):
        if minocc[i] == mo:
            total += bound[i, mo + 1] - bound[i, mo]
    v = randint(rng, total)
    pos = -1
    for i in range(m):
        if minocc[i] == mo:
            c = bound[i, mo + 1] - bound[i, mo]
            if v < c:
                pos = bound[i, mo] + v
                break
            v -= c
    return perm[pos]


@register(Params, rule)
@dataclass(frozen=True)
class JSQ(Policy):
    """Join the shortest queue ignoring classes."""

    name = "jsq"

    def kernel_params(self, system, n, depth):
        return Params(system.m)
