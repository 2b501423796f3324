"""SLTA, self-learning threshold assignment (Sec. 3.2).

Thresholds ``l_i(r) = #{k < r : i_k = i}`` over the ranked coordinates ``(i_k, j_k)`` of
Sec. 2.3; green tokens are the free slots below the thresholds, yellow tokens those of
the coordinate ``(i_r, j_r)``. The learning rules (:mod:`qtheory.utility.rules`) are
evaluated on the token state right before the task is placed, and ``r_n`` is updated
after it ("when a task arrives ... after the task is dispatched").
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import ParameterError
from ...validation import check_integer, check_positive
from ..model import enumeration
from ..rules import slta_decrement, slta_increment
from . import Policy, _ix, pick

Params = namedtuple("SLTAParams", ["ecls", "elev", "green_min"])


@njit(cache=True)
def rule(params, st, u, n, offset, bound, perm):
    """A green token of a class other than ``i_{r-1}`` if any, else one of ``i_{r-1}``,
    else a yellow token, else a uniformly random pool; then the learning step.

    ``st = [r, thr_0..thr_{m-1}, green_0..green_{m-1}]`` (thresholds and scratch). The
    arrays of `params` are read in place, not bound to names: in the kernel such a name
    would hold a reference counted at every arrival."""
    m = offset.shape[0] - 1
    r = st[0]
    ir = params.ecls[_ix(r - 1)]
    jr = params.elev[_ix(r - 1)]
    prev = params.ecls[_ix(r - 2)] if r >= 2 else -1
    g_total = 0
    g_other = 0
    for i in range(m):
        g = bound[_ix(i), _ix(st[_ix(1 + i)])] - offset[_ix(i)]
        st[_ix(1 + m + i)] = g
        g_total += g
        if i != prev:
            g_other += g
    yellow = bound[_ix(ir), _ix(jr)] - offset[_ix(ir)]
    dec = slta_decrement(prev, g_total, st[_ix(1 + m + prev)] if prev >= 0 else 0, params.green_min)
    inc = slta_increment(g_total, yellow)
    p = -1
    if g_other > 0:
        v = pick(u, g_other)
        for i in range(m):
            if i == prev:
                continue
            g = st[_ix(1 + m + i)]
            if v < g:
                p = perm[_ix(offset[_ix(i)] + v)]
                break
            v -= g
    elif g_total > 0:
        p = perm[_ix(offset[_ix(prev)] + pick(u, st[_ix(1 + m + prev)]))]
    elif yellow > 0:
        p = perm[_ix(offset[_ix(ir)] + pick(u, yellow))]
    else:
        p = pick(u, n)
    if dec:
        r -= 1
        st[_ix(1 + params.ecls[_ix(r - 1)])] -= 1
    elif inc:
        st[_ix(1 + params.ecls[_ix(r - 1)])] += 1
        r += 1
        if r > params.ecls.shape[0]:
            p = -2
    st[0] = r
    return p


@dataclass(frozen=True)
class SLTA(Policy):
    """Self-learning threshold assignment (Sec. 3.2); ``beta=None`` means
    :func:`~qtheory.utility.simulation.default_beta` of ``n``; ``r0`` is the initial index."""

    beta: float | None = None
    r0: int = 1
    name = "slta"
    Params = Params
    rule = rule
    has_index = True

    def __post_init__(self):
        if self.beta is not None:
            object.__setattr__(self, "beta", check_positive("beta", self.beta))
        object.__setattr__(self, "r0", check_integer("r0", self.r0, low=1))

    def beta_for(self, n: int) -> float:
        """``beta_n``: the given `beta`, or :func:`~qtheory.utility.simulation.default_beta` of `n`."""
        from ..simulation import default_beta  # the simulation module imports this package

        return default_beta(n) if self.beta is None else self.beta

    def kernel_params(self, system, n, depth):
        en = enumeration(system, depth)
        check_integer("r0", self.r0, low=1, high=en.valid)
        return Params(en.cls.astype(np.int64), en.level.astype(np.int64), float(n * self.beta_for(n)))

    def initial_state(self, params, m):
        """``[r0, thresholds l_i(r0) of the m classes, m scratch entries]``."""
        st = np.zeros(1 + 2 * m, dtype=np.int64)
        st[0] = self.r0
        for k in range(self.r0 - 1):
            st[1 + params.ecls[k]] += 1
        return st

    def exact_start(self, chain):
        """The index ``r = 1``: the stationary law does not depend on ``r0``."""
        return 1

    def exact_rule(self, chain, occ, r):
        """Sec. 3.2 read in plain Python, independently of :func:`rule`: ``(pool, probability,
        next r)``. Green tokens are the free slots below the thresholds ``l_i(r) = #{k < r - 1 :
        i_k = i}``, yellow ones those of the coordinate ``(i_r, j_r)``; the task goes to a
        uniform green pool of a class other than ``i_{r-1}`` if any, else a uniform green pool,
        else a uniform yellow one, else a uniform pool; ``r`` decreases when at least ``n
        beta_n`` green tokens remain and one is of class ``i_{r-1}``, increases when none is
        green and at most one yellow, both judged before the task is placed."""
        en = chain.enumeration
        n, cls = chain.n, chain.cls
        thr = [0] * chain.system.m
        for k in range(r - 1):
            thr[int(en.cls[k])] += 1
        ir, jr = int(en.cls[r - 1]), int(en.level[r - 1])
        prev = int(en.cls[r - 2]) if r >= 2 else -1
        green = [p for p in range(n) if occ[p] < thr[cls[p]]]
        yellow = [p for p in range(n) if cls[p] == ir and occ[p] <= jr - 1]
        dec = prev >= 0 and len(green) >= n * self.beta_for(n) and any(cls[p] == prev for p in green)
        inc = not green and len(yellow) <= 1
        chosen = [p for p in green if cls[p] != prev] or green or yellow or list(range(n))
        new_r = r - 1 if dec else (r + 1 if inc else r)
        if new_r > en.valid:
            raise ParameterError("SLTA's index r ran past the enumerated coordinates of the exact chain; "
                                 "raise `max_tasks`")
        return [(p, 1.0 / len(chosen), new_r) for p in chosen]

    def index_bound(self, params):
        return params.ecls.shape[0]
