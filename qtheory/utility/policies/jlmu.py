"""JLMU, join the largest marginal utility (Sec. 3.1, eq. (8))."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ..rules import jlmu_class
from . import Policy, _ix, pick

Params = namedtuple("JLMUParams", ["m"])


@njit(cache=True)
def rule(u, bound, minocc, perm, key):
    """The class with the best-ranked coordinate ``(i, min occupancy + 1)`` (ties to the
    smaller class), then a uniformly random least-occupied pool of that class."""
    best = jlmu_class(key, minocc)
    p = -1  # stays -1 if the marginal utility of some class is not tabulated
    if best >= 0:
        x = minocc[_ix(best)]
        lo = bound[_ix(best), _ix(x)]
        p = perm[_ix(lo + pick(u, bound[_ix(best), _ix(x + 1)] - lo))]
    return p


@dataclass(frozen=True)
class JLMU(Policy):
    """Join the largest marginal utility (8), ties to the smaller class."""

    name = "jlmu"
    Params = Params
    rule = rule

    def kernel_params(self, system, n, depth):
        return Params(system.m)

    def exact_rule(self, chain, occ):
        """``(pool, probability)``: the best-ranked coordinate among occupied levels, the
        largest marginal utility of a least-occupied pool of each class, ties to the smaller
        class (eq. (8)); uniform over the least-occupied pools of that class."""
        cls = chain.cls
        key = chain.key
        best = None
        for i in range(int(max(cls)) + 1):
            low = min(occ[p] for p in range(len(occ)) if cls[p] == i)
            if best is None or key[i, low] > key[best[0], best[1]]:
                best = (i, low)
        chosen = [p for p in range(len(occ)) if cls[p] == best[0] and occ[p] == best[1]]
        return [(p, 1.0 / len(chosen)) for p in chosen]
