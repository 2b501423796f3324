"""JLMU's and SLTA's decision rules (Sec. 3.1, 3.2) on scripted states, in the kernel, and
through the law of r_n and of the class occupancies against the exact chain.

Each test here was run against a named mutant and fails for it (see the developer guide's
audit table): (a) SLTA's decrement rule without "at least one green token of class
i_{r-1}", (b) SLTA's increment rule with "no yellow token" instead of "at most one",
(c) JLMU's ties broken towards the larger class instead of the dictionary order.
"""

import numpy as np
import pytest
from scipy import stats

from qtheory.runtime import spawn
from qtheory.utility import LogUtility, PiecewiseLinearUtility, PoolSystem, exact_stationary, simulate
from qtheory.utility.model import TIE_DECIMALS, enumeration, tabulate
from qtheory.utility.rules import jlmu_class, slta_decrement, slta_increment

# two classes whose marginal utilities tie across classes: u0 = 0, 1, 2, 2, ...; u1 = 0, 1, 1.5, 1.5, ...
TIED = (PiecewiseLinearUtility(slopes=(1.0, 0.0), breakpoints=(2.0,)),
        PiecewiseLinearUtility(slopes=(1.0, 0.5, 0.0), breakpoints=(1.0, 2.0)))
SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)


def _key(system, J=8):
    return np.round(np.diff(tabulate(system.utilities, J), axis=1), TIE_DECIMALS)


# ---------------------------------------------------------------- pure rules on scripted counts

def test_jlmu_picks_the_largest_marginal_utility_and_breaks_ties_by_dictionary_order():
    key = _key(PoolSystem(TIED, (0.5, 0.5), 1.0))  # key[0] = 1, 1, 0, ...; key[1] = 1, 0.5, 0, ...
    assert jlmu_class(key, np.array([0, 0])) == 0  # Delta(0,0) = Delta(1,0): the smaller class
    assert jlmu_class(key, np.array([1, 0])) == 0  # Delta(0,1) = Delta(1,0) = 1: again class 0
    assert jlmu_class(key, np.array([2, 0])) == 1  # 0 < 1
    assert jlmu_class(key, np.array([2, 1])) == 1  # 0 < 0.5
    assert jlmu_class(key, np.array([2, 2])) == 0  # 0 = 0: tie to class 0
    assert jlmu_class(key, np.array([3, 2])) == 0
    assert jlmu_class(key, np.array([key.shape[1], 0])) == -1  # beyond the table


@pytest.mark.parametrize("prev, green_total, green_prev, green_min, expected", [
    (1, 5, 1, 5.0, True),     # enough green tokens, one of class i_{r-1}
    (1, 5, 0, 5.0, False),    # enough green tokens, none of class i_{r-1}  (mutant a)
    (1, 4, 4, 4.5, False),    # fewer than n beta_n green tokens
    (1, 5, 5, 4.5, True),
    (-1, 9, 0, 1.0, False),   # r_n = 1: there is no i_{r-1}, r_n cannot drop
    (0, 2, 2, 2.0, True),     # ">= n beta_n", not ">"
])
def test_slta_decrement_rule(prev, green_total, green_prev, green_min, expected):
    assert slta_decrement(prev, green_total, green_prev, green_min) is expected


@pytest.mark.parametrize("green_total, yellow, expected", [
    (0, 0, True),
    (0, 1, True),     # at most one yellow token  (mutant b)
    (0, 2, False),
    (1, 0, False),    # a green token: no increment
    (1, 1, False),
])
def test_slta_increment_rule(green_total, yellow, expected):
    assert slta_increment(green_total, yellow) is expected


# ---------------------------------------------------------------- the kernel, one arrival at a time

def _first_arrival(system, n, policy, initial, r0=1, beta=None):
    """State (per-class occupancy counts) and r_n right before and after the first arrival
    of the first seed whose first event is an arrival (the kernel records its state on a
    grid fine enough to see single events; the grid step is checked)."""
    J = 8
    for seed in range(100):
        rate = n * system.lam + system.mu * float(np.sum(initial))
        horizon = 8.0 / rate
        times = np.linspace(0.0, horizon, 40001)
        res = simulate(system, n, policy, horizon=horizon, seed=seed, initial=initial, r0=r0, beta=beta,
                       sample_times=times, max_occupancy=J)
        ns = np.rint(res.s * n).astype(int)
        changed = np.nonzero(ns != ns[0])[0]
        if changed.size == 0 or ns[changed[0]] != ns[0] + 1:
            continue  # no event, or a departure first
        k = changed[0]
        if not np.array_equal(res.occupancy[k - 1], res.occupancy[0]):
            continue  # an arrival and a departure fell between two grid points
        occ = lambda idx: np.rint(res.occupancy[idx] * n).astype(int)  # noqa: E731
        return occ(k - 1), occ(k), int(res.r[k - 1]), int(res.r[k])
    raise AssertionError("no seed gave an arrival first")


def test_kernel_jlmu_sends_a_tied_task_to_the_smaller_class():
    system = PoolSystem(TIED, (0.5, 0.5), 2.0)
    before, after, _, _ = _first_arrival(system, 2, "jlmu", np.zeros(2, dtype=int))
    assert (after - before)[:, 1].tolist() == [1, 0]  # the class-0 pool went from 0 to 1 task


# SMALL's order: (1,1), (0,1), (1,2), (0,2), (1,3), ...; at r = 4: i_3 = class 1, (i_4, j_4) = (0, 2),
# thresholds l_0 = 1, l_1 = 2; green: class-0 pools with 0 tasks, class-1 pools with < 2 tasks;
# yellow: class-0 pools with <= 1 task. Pools are ordered by class: [c0, c0, c1, c1], n = 4.
def test_small_order_is_the_one_the_scripted_states_assume():
    en = enumeration(SMALL, 6)
    assert list(zip(en.cls[:5], en.level[:5])) == [(1, 1), (0, 1), (1, 2), (0, 2), (1, 3)]


@pytest.mark.parametrize("occupancy, r_after", [
    ([0, 0, 2, 2], 4),   # 2 green tokens >= n beta = 2, none of class i_3 = 1: no decrement  (mutant a)
    ([0, 0, 1, 2], 3),   # 3 green tokens, one of class 1: decrement
    ([1, 2, 2, 2], 5),   # no green token, one yellow: increment  (mutant b)
    ([2, 2, 2, 2], 5),   # no token at all: increment
    ([1, 1, 2, 2], 4),   # two yellow tokens: no change
])
def test_kernel_slta_updates_r_from_scripted_token_states(occupancy, r_after):
    before, after, r_before, r_new = _first_arrival(SMALL, 4, "slta", np.array(occupancy), r0=4, beta=0.5)
    assert r_before == 4
    assert r_new == r_after


# ---------------------------------------------------------------- laws against the exact chain

def _compare(sim, exact, n_tests):
    """Per-component t statistics of replicated estimates against exact values, judged at a
    Bonferroni-corrected two-sided level of 1e-4 with the t distribution (few replicates)."""
    sim = np.asarray(sim)
    mean = sim.mean(axis=0)
    se = sim.std(axis=0, ddof=1) / np.sqrt(sim.shape[0])
    limit = stats.t.ppf(1 - 1e-4 / (2 * n_tests), sim.shape[0] - 1)
    return np.abs(mean - exact) / np.maximum(se, 1e-12), limit


def test_slta_law_of_r_matches_the_exact_chain_where_both_learning_rules_act():
    # n = 2, beta = 1/2: n beta_n = 1, so the decrement needs a green token of class i_{r-1}
    # often enough to matter; both mutants (a) and (b) move P(r_n = 1..4) by 0.01-0.1
    ex = exact_stationary(SMALL, 2, "slta", max_tasks=20, beta=0.5)
    R = 8
    exact = np.array([ex.r_distribution.get(r, 0.0) for r in range(1, R + 1)])
    sims = [simulate(SMALL, 2, "slta", horizon=40000.0, warmup=10.0, beta=0.5, seed=ss).r_distribution[1:R + 1]
            for ss in spawn(13, 12)]
    t, limit = _compare(sims, exact, R)
    assert np.all(t < limit), (t, limit)


def test_jlmu_class_occupancy_matches_the_exact_chain_with_ties():
    system = PoolSystem(TIED, (0.5, 0.5), 2.0)
    ex = exact_stationary(system, 2, "jlmu", max_tasks=20)
    sims = []
    for ss in spawn(17, 8):
        res = simulate(system, 2, "jlmu", horizon=20000.0, warmup=10.0, seed=ss)
        sims.append(res.mean_occupancy[:, 1:].sum(axis=1))
    t, limit = _compare(sims, ex.class_tasks, 2)
    assert np.all(t < limit), (t, limit)
