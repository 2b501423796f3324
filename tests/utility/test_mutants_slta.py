"""SLTA's compiled rule (``qtheory.utility.policies.slta.rule``) on scripted pool states:
which pools may receive the task, with which law, and the update of r_n and of the
thresholds (Sec. 3.2). Kills mutants of the rule body left alive by ``test_rules.py``
(found by tools/mutation.py; see benchmarks/mutation/README.md).

Every expected value is derived by hand from Sec. 3.2: a class-i pool with x tasks holds
a green token iff x < l_i(r), a yellow token iff i = i_r and x < j_r (x <= l_{i_r}(r) =
j_r - 1); the task goes to a green token of a class other than i_{r-1} if any (uniformly
among those tokens), else to a green token of class i_{r-1}, else to a yellow token, else
to a uniformly random pool; r drops by one if there are >= n beta green tokens and one of
them is of class i_{r-1}, and rises by one if there is no green token and at most one
yellow token.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from qtheory.utility import LogUtility, PiecewiseLinearUtility, PoolSystem
from qtheory.utility.model import TIE_DECIMALS, enumeration, tabulate
from qtheory.utility.policies import SLTA
from qtheory.utility.policies.slta import rule

J = 8
# SMALL's order: (1,1), (0,1), (1,2), (0,2), (1,3) (checked below and in test_rules.py)
SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
# three classes, first marginal utilities 3 > 2 > 1, then 0.5 > 0.4 > 0.3, then 0:
# order (0,1), (1,1), (2,1), (0,2), (1,2), (2,2), then the zero-utility levels
THREE = PoolSystem(tuple(PiecewiseLinearUtility(slopes=(a, b, 0.0), breakpoints=(1.0, 2.0))
                         for a, b in ((3.0, 0.5), (2.0, 0.4), (1.0, 0.3))), (1 / 3, 1 / 3, 1 / 3), 1.0)


def _arrays(system, occ):
    """The kernel's view of a state (as built by ``simulate``): per-pool task counts `occ`,
    pools ordered by class."""
    n = len(occ)
    counts = system.pool_counts(n)
    m = system.m
    occ = np.asarray(occ, dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pool_class = np.repeat(np.arange(m), counts).astype(np.int64)
    perm = np.lexsort((occ, pool_class)).astype(np.int64)
    bound = np.empty((m, J + 2), dtype=np.int64)
    minocc = np.empty(m, dtype=np.int64)
    for i in range(m):
        sorted_i = np.sort(occ[offset[i]:offset[i + 1]])
        bound[i] = offset[i] + np.searchsorted(sorted_i, np.arange(J + 2), side="left")
        minocc[i] = sorted_i[0]
    key = np.round(np.diff(tabulate(system.utilities, J), axis=1), TIE_DECIMALS)
    return n, offset, bound, minocc, perm, pool_class, occ, key


def _thresholds(system, r, depth=J):
    """l_i(r) = #{k < r : i_k = i}, counted from the enumeration."""
    en = enumeration(system, depth)
    return np.bincount(en.cls[: r - 1], minlength=system.m)


def _call(system, occ, r, beta, seed=0, calls=1):
    """`calls` decisions of the rule from the same state (fresh st each time, one generator):
    the chosen pools and the state st after the first call."""
    pol = SLTA(beta=beta, r0=r)
    n = len(occ)
    params = pol.kernel_params(system, n, J)
    n, offset, bound, minocc, perm, pool_class, occ, key = _arrays(system, occ)
    u = np.random.default_rng(seed).integers(0, 2**64, size=calls, dtype=np.uint64)  # the kernel's word of each arrival
    chosen, first = [], None
    for k in range(calls):
        st = pol.initial_state(params, system.m)
        chosen.append(rule(params, st, u[k], n, offset, bound, perm))
        if first is None:
            first = st.copy()
    return np.array(chosen), first


def test_scripted_systems_have_the_order_the_cases_assume():
    en = enumeration(SMALL, J)
    assert list(zip(en.cls[:5].tolist(), en.level[:5].tolist())) == [(1, 1), (0, 1), (1, 2), (0, 2), (1, 3)]
    en = enumeration(THREE, J)
    assert list(zip(en.cls[:6].tolist(), en.level[:6].tolist())) == [
        (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)]


def test_initial_state_holds_the_thresholds_of_r0_and_params_hold_n_beta():
    # l(4) in SMALL: i_1..i_3 = 1, 0, 1 -> l_0 = 1, l_1 = 2; scratch entries zero
    pol = SLTA(beta=0.25, r0=4)
    params = pol.kernel_params(SMALL, 8, J)
    assert params.green_min == 2.0  # n beta_n = 8 * 0.25
    assert pol.initial_state(params, 2).tolist() == [4, 1, 2, 0, 0]
    assert pol.index_bound(params) == params.ecls.shape[0] == enumeration(SMALL, J).valid
    assert SLTA().r0 == 1


# (system, occupancy per pool, r, beta, pools that may receive the task, r after)
# Pools of SMALL with n = 4: [c0, c0, c1, c1]; of THREE with n = 6: [c0, c0, c1, c1, c2, c2].
CASES = [
    # SMALL, r = 4: l = (1, 2), (i_4, j_4) = (0, 2), i_3 = 1; n beta = 2
    (SMALL, [0, 1, 0, 2], 4, 0.5, [0], 3),      # green: pool 0 (class 0), pool 2 (class 1 = i_3): other class first; 2 green, one of i_3: r - 1
    (SMALL, [1, 1, 0, 1], 4, 0.5, [2, 3], 3),   # green only of class i_3 (pools 2, 3): one of them; decrement
    (SMALL, [1, 1, 0, 1], 4, 0.75, [2, 3], 4),  # same, n beta = 3 > 2 green tokens: r stays
    (SMALL, [0, 0, 2, 2], 4, 0.5, [0, 1], 4),   # 2 green, none of class i_3: r stays (SLTA mutant (a))
    (SMALL, [1, 1, 2, 2], 4, 0.5, [0, 1], 4),   # no green, yellow: pools 0, 1 (two): r stays
    (SMALL, [1, 2, 2, 2], 4, 0.5, [0], 5),      # one yellow token: increment
    (SMALL, [2, 2, 3, 2], 4, 0.5, [0, 1, 2, 3], 5),  # no token: uniform over all pools; increment
    # SMALL, r = 1: no green token (l = 0), (i_1, j_1) = (1, 1): yellow = class-1 pools with 0 tasks
    (SMALL, [0, 0, 0, 0], 1, 0.25, [2, 3], 1),  # two yellow tokens: r stays (no i_0: no decrement)
    (SMALL, [0, 0, 0, 5], 1, 0.25, [2], 2),     # one yellow token: increment to r = 2
    # SMALL, r = 2: l = (0, 1), (i_2, j_2) = (0, 1), i_1 = 1
    (SMALL, [0, 0, 0, 1], 2, 0.25, [2], 1),     # one green token, of class i_1, n beta = 1: r back to 1
    (SMALL, [3, 0, 1, 1], 2, 0.25, [1], 3),     # no green, yellow only pool 1: increment to r = 3
    # SMALL, r = 3: l = (1, 1), (i_3, j_3) = (1, 2), i_2 = 0
    (SMALL, [0, 2, 0, 1], 3, 0.5, [2], 2),      # green: pool 0 (class i_2), pool 2: other class first; decrement
    (SMALL, [2, 2, 1, 3], 3, 0.5, [2], 4),      # no green, one yellow (pool 2 with 1 < j_3 = 2): increment
    # THREE, r = 4: l = (1, 1, 1), (i_4, j_4) = (0, 2), i_3 = 2; n beta = 3
    (THREE, [0, 1, 0, 0, 0, 1], 4, 0.5, [0, 2, 3], 3),   # green of classes 0, 1 (three tokens) before class 2's
    (THREE, [1, 1, 0, 1, 1, 0], 4, 0.5, [2], 4),         # green: pool 2 (class 1), pool 5 (class 2): 2 < 3 tokens
    (THREE, [1, 1, 1, 1, 0, 0], 4, 0.5, [4, 5], 4),      # green only of class i_3 = 2; 2 < n beta = 3
    (THREE, [1, 1, 1, 1, 0, 0], 4, 1 / 3, [4, 5], 3),    # same, n beta = 2: decrement
    (THREE, [1, 2, 1, 1, 1, 1], 4, 0.5, [0], 5),         # no green, one yellow (pool 0): increment
    (THREE, [2, 2, 1, 1, 1, 1], 4, 0.5, list(range(6)), 5),  # no token: uniform; increment
]


@pytest.mark.parametrize("system, occ, r, beta, pools, r_after", CASES)
def test_rule_sends_the_task_to_the_right_tokens_and_updates_r(system, occ, r, beta, pools, r_after):
    calls = 600
    chosen, st = _call(system, occ, r, beta, seed=r, calls=calls)
    # the task goes to the tokens Sec. 3.2 names, uniformly among them (chi-square, level 1e-6)
    assert set(chosen.tolist()) == set(pools), chosen
    if len(pools) > 1:
        counts = np.array([np.sum(chosen == p) for p in pools])
        assert stats.chisquare(counts).pvalue > 1e-6, counts
    # r_n and the thresholds after the task is dispatched
    m = system.m
    assert st[0] == r_after
    assert st[1: 1 + m].tolist() == _thresholds(system, r_after).tolist()


def test_green_tokens_are_counted_per_class_in_the_scratch_entries():
    # THREE, r = 4, l = (1, 1, 1): class 0 has 1 empty pool, class 1 two, class 2 one
    _, st = _call(THREE, [0, 1, 0, 0, 0, 1], 4, 10.0)  # n beta = 60: no decrement
    assert st.tolist() == [4, 1, 1, 1, 1, 2, 1]


def test_an_increment_past_the_enumeration_stops_the_run():
    # r at the last enumerated coordinate (level J of some class) and every pool at J tasks:
    # no token, an increment, and the index would leave the table
    pol = SLTA(beta=0.5)
    last = pol.kernel_params(SMALL, 4, J).ecls.shape[0]
    chosen, st = _call(SMALL, [J] * 4, last, 0.5)
    assert chosen.tolist() == [-2]
    assert st[0] == last + 1
    # one index below, the same state is an ordinary increment
    chosen, st = _call(SMALL, [J] * 4, last - 1, 0.5)
    assert chosen[0] >= 0 and st[0] == last
