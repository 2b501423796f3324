"""The decision rules of JLMU (Sec. 3.1) and SLTA (Sec. 3.2) as pure functions.

Each function takes the few counts a rule looks at and returns the decision, so that the
rules can be tested on scripted token states. The numba kernel of
:mod:`~qtheory.utility.simulation` calls them for every arrival. The exact chain of
:mod:`~qtheory.utility.exact` keeps its own plain-Python reading of Sec. 3 on purpose: it is
the independent route the simulator is compared with (the law of ``r_n``, mean utility).

The rules are evaluated on the token state right before the arrival is dispatched, as in
Sec. 3.2 ("when a task arrives ... after the task is dispatched").
"""

from __future__ import annotations

from numba import njit

__all__ = ["jlmu_class", "slta_decrement", "slta_increment"]

from .._policy import _ix  # subscripts cast their index to unsigned, as in the kernels


@njit(cache=True)
def jlmu_class(key, minocc):
    """JLMU's class (Sec. 3.1, eq. (8)): the class ``i`` whose least-occupied pools have the
    largest marginal utility ``key[i, minocc[i]]`` (``Delta(i, min occupancy)`` rounded to
    ``TIE_DECIMALS``). Ties go to the smaller class: among coordinates with equal marginal
    utility the total order of Sec. 2.3 ranks first the one that comes first in the
    dictionary order, and the coordinates compared here, one per class, differ in the class.
    Returns -1 if some ``minocc[i]`` lies beyond the table ``key`` (the caller must stop).
    """
    m = minocc.shape[0]
    J = key.shape[1]
    best = 0
    x = minocc[0]
    if x >= J:
        return -1
    top = key[0, _ix(x)]
    for i in range(1, m):
        x = minocc[_ix(i)]
        if x >= J:
            return -1
        k = key[_ix(i), _ix(x)]
        # selects, not branches: which class is best changes from arrival to arrival
        better = k > top
        best = i if better else best
        top = k if better else top
    return best


@njit(cache=True)
def slta_decrement(prev_class, green_total, green_prev, green_min):
    """SLTA's first learning rule (Sec. 3.2): ``r_n`` drops by one if there are at least
    ``n beta_n`` (= `green_min`) green tokens and at least one of them belongs to a pool of
    class ``i_{r_n - 1}`` (`prev_class`, -1 when ``r_n = 1``; `green_prev` is the number of
    green tokens of that class)."""
    return prev_class >= 0 and green_total >= green_min and green_prev >= 1


@njit(cache=True)
def slta_increment(green_total, yellow):
    """SLTA's second learning rule (Sec. 3.2): ``r_n`` rises by one if there are no green
    tokens and at most one yellow token."""
    return green_total == 0 and yellow <= 1
