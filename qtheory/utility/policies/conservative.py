"""The conservative policy: every task to one class (with one pool per class, the
"all tasks to pool 2" policy of Sec. 8.3)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

from numba import njit

from ...validation import check_integer
from . import Policy, _ix, pick

Params = namedtuple("ConservativeParams", ["target"])


@njit(cache=True)
def rule(params, u, bound, minocc, perm):
    """A uniformly random least-occupied pool of the target class."""
    target = params.target
    x = minocc[_ix(target)]
    lo = bound[_ix(target), _ix(x)]
    return perm[_ix(lo + pick(u, bound[_ix(target), _ix(x + 1)] - lo))]


@dataclass(frozen=True)
class Conservative(Policy):
    """Every task to class ``target_class`` (``None``: the last class)."""

    target_class: int | None = None
    name = "conservative"
    Params = Params
    rule = rule

    def __post_init__(self):
        if self.target_class is not None:
            object.__setattr__(self, "target_class",
                               check_integer("target_class", self.target_class, low=0))

    def kernel_params(self, system, n, depth):
        if self.target_class is None:
            return Params(system.m - 1)
        return Params(check_integer("target_class", self.target_class, low=0, high=system.m - 1))

    def exact_rule(self, chain, occ):
        """``(pool, probability)``: uniform over the least-occupied pools of the target class."""
        cls = chain.cls
        target = int(max(cls)) if self.target_class is None else self.target_class
        pools = [p for p in range(len(occ)) if cls[p] == target]
        low = min(occ[p] for p in pools)
        chosen = [p for p in pools if occ[p] == low]
        return [(p, 1.0 / len(chosen)) for p in chosen]
