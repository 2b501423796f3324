"""Random assignment: every task to a uniformly random pool (a baseline of Sec. 8.3)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from . import Policy, pick

Params = namedtuple("RandomParams", ["m"])


@njit(cache=True)
def rule(u, n):
    """A uniformly random pool."""
    return pick(u, n)


@dataclass(frozen=True)
class Random(Policy):
    """A uniformly random pool."""

    name = "random"
    Params = Params
    rule = rule

    def kernel_params(self, system, n, depth):
        return Params(system.m)

    def exact_rule(self, chain, occ):
        """``(pool, probability)``: every pool equally likely."""
        return [(p, 1.0 / len(occ)) for p in range(len(occ))]
