"""Cancel-on-start with random assignment (a variant beyond paper R's two mechanisms)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from ..._policy import _ix
from ..._rng import randint
from . import Mechanism


@njit(cache=True)
def random_idle(rng, t, deg, type_servers, busy):
    """A uniformly random idle compatible server of a type-``t`` job (-1 if none)."""
    idle = 0
    for c in range(deg):
        if not busy[_ix(type_servers[_ix(t), _ix(c)])]:
            idle += 1
    best = -1
    if idle > 0:
        v = randint(rng, idle)
        for c in range(deg):
            s = type_servers[_ix(t), _ix(c)]
            if not busy[_ix(s)]:
                if v == 0:
                    best = s
                    break
                v -= 1
    return best


@dataclass(frozen=True)
class CancelOnStartRandom(Mechanism):
    """c.o.s. with random assignment: an arriving job with idle compatible servers starts on
    one chosen uniformly at random. Its stationary law is not the product form (6); its exact
    chain is the c.o.s. chain of :func:`~qtheory.redundancy.chain.solve_cos_chain` with its
    :meth:`exact_start`."""

    name: ClassVar[str] = "cos-random"
    rule = random_idle
    product_form = False

    def exact_start(self, idle):
        """Rule (i): each idle compatible server with equal probability."""
        return [(v, 1.0 / len(idle)) for v in idle]
