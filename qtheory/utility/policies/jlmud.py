"""JLMU(d): JLMU among d sampled pools (a policy beyond the paper, manifest U-R-jlmud).

An arriving task samples ``d`` pools independently and uniformly (with replacement) and
joins the sampled pool whose next coordinate ``(i, x + 1)`` ranks highest in the total
order of Sec. 2.3: the largest marginal utility ``Delta(i, x)``, ties to the smaller class
and then to the smaller occupancy (the dictionary order), remaining ties to the first
sampled. It needs ``d`` pool states per arrival instead of JLMU's global ranking, as
power-of-d policies do for JSQ; ``d = 1`` is random assignment (its one sample is taken
from the kernel's uniform, as random assignment's pool is, hence the same path as
:class:`~qtheory.utility.policies.Random` for one seed).
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ..._rng import randint
from ...validation import check_integer
from . import Policy, _ix, pick

Params = namedtuple("JLMUdParams", ["d"])


@njit(cache=True)
def rule(params, u, rng, n, pool_class, occ, key):
    """The best-ranked of ``d`` uniformly sampled pools (the first from the kernel's uniform
    `u`, the others from `rng`)."""
    J = key.shape[1]
    best = -1
    for k in range(params.d):
        p = pick(u, n) if k == 0 else randint(rng, n)
        i = pool_class[_ix(p)]
        x = occ[_ix(p)]
        if x >= J:
            best = -1  # its marginal utility is not tabulated
            break
        if best < 0:
            best = p
        else:
            bi = pool_class[_ix(best)]
            bx = occ[_ix(best)]
            if key[_ix(i), _ix(x)] > key[_ix(bi), _ix(bx)] or (key[_ix(i), _ix(x)] == key[_ix(bi), _ix(bx)] and (i < bi or (i == bi and x < bx))):
                best = p
    return best


@dataclass(frozen=True)
class JLMUd(Policy):
    """Join the largest marginal utility among ``d`` pools sampled with replacement."""

    d: int = 2
    name = "jlmud"
    Params = Params
    rule = rule

    def __post_init__(self):
        object.__setattr__(self, "d", check_integer("d", self.d, low=1))

    def kernel_params(self, system, n, depth):
        return Params(self.d)

    def exact_rule(self, chain, occ):
        """``(pool, probability)`` pairs: every one of the ``n^d`` ordered samples is equally
        likely; the winner of a sample is its best-ranked pool, first sampled on ties."""
        cls = chain.cls
        key = chain.key
        n = len(occ)
        weight = 1.0 / n ** self.d
        probs: dict[int, float] = {}
        for sample in itertools.product(range(n), repeat=self.d):
            ranked = sorted(sample, key=lambda p: (-key[cls[p], occ[p]], cls[p], occ[p]))  # stable
            probs[ranked[0]] = probs.get(ranked[0], 0.0) + weight
        return sorted(probs.items())
