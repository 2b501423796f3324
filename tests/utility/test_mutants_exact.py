"""Tests that kill mutants of qtheory/utility/exact.py left alive by test_exact.py and
test_rules.py (found by tools/mutation.py; see benchmarks/mutation/README.md).

Closed form used: whatever the dispatching policy, the total number of tasks S of the
chain is a birth-death process with birth rate n lam while S < max_tasks and death rate
mu S (infinite-server pools), i.e. a Poisson(n rho) law truncated at max_tasks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import LogUtility, PoolSystem, exact_stationary
from qtheory.utility.exact import ExactChain
from qtheory.utility.model import TIE_DECIMALS, enumeration, tabulate
from qtheory.utility.policies import SLTA, Conservative

SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)


def truncated_poisson_mean(a, k):
    w = np.array([a ** j / math.factorial(j) for j in range(k + 1)])
    return float(np.arange(k + 1) @ w / w.sum())


@pytest.mark.parametrize("policy", ["random", "jsq", "jlmu", "slta", "conservative"])
@pytest.mark.parametrize("max_tasks", [1, 2, 5])
def test_one_pool_holds_a_truncated_poisson_number_of_tasks(policy, max_tasks):
    # Kills 98:34:const:0 (n = 1 refused), 99:58:const:0 (max_tasks = 1 refused) and
    # 104:29:arith:0 (SLTA's enumeration max_tasks - 2 levels deep: none for max_tasks <= 2).
    system = PoolSystem((LogUtility(4),), (1.0,), 1.3)
    ex = exact_stationary(system, 1, policy, max_tasks=max_tasks)
    if policy != "slta":  # SLTA's states also carry r_n
        assert ex.states == max_tasks + 1
    assert ex.mean_tasks == pytest.approx(truncated_poisson_mean(1.3, max_tasks), rel=1e-12)
    w = np.array([1.3 ** j / math.factorial(j) for j in range(max_tasks + 1)])
    u = np.array([j * math.log(4 / j) if j else 0.0 for j in range(max_tasks + 1)])  # x log(r/x)
    assert ex.mean_utility == pytest.approx(float(u @ w / w.sum()), rel=1e-12)


@pytest.mark.parametrize("target_class", [0, 1])
def test_conservative_chain_accepts_every_class_and_keeps_the_total_law(target_class):
    # Kills 108:103:const:0 (target_class = 0 refused by the second check): the total number
    # of tasks does not depend on the policy, and every task goes to the target class.
    ex = exact_stationary(SMALL, 2, "conservative", max_tasks=8, target_class=target_class)
    assert ex.mean_tasks * 2 == pytest.approx(truncated_poisson_mean(3.0, 8), rel=1e-12)
    assert ex.class_tasks[1 - target_class] == 0.0
    ex2 = exact_stationary(SMALL, 2, Conservative(target_class=target_class), max_tasks=8)
    assert ex2.mean_utility == ex.mean_utility


def test_conservative_policy_object_with_a_class_beyond_m_is_refused():
    # Kills 109:75:arith:0 (high = m + 1): a policy object's target_class is checked against
    # m only here (the object does not know the system).
    with pytest.raises(ParameterError, match="target_class"):
        exact_stationary(SMALL, 2, Conservative(target_class=SMALL.m), max_tasks=4)


@pytest.mark.parametrize("policy", ["random", "jsq", "jlmu", "conservative"])
def test_policies_without_an_index_report_r_equal_to_one(policy):
    # Kills 124:55:const:0 (the r carried by non-SLTA states is 2): the chain has no r for
    # these policies and reports SLTA's starting value r = 1 with probability 1.
    ex = exact_stationary(SMALL, 2, policy, max_tasks=6)
    assert ex.r_distribution == {1: pytest.approx(1.0)}


# SMALL's order: (1,1), (0,1), (1,2), (0,2), (1,3), ... (checked in test_rules.py). At r = 4:
# i_{r-1} = i_3 = class 1, (i_4, j_4) = (0, 2); thresholds l_0 = 1, l_1 = 2. Pools [c0, c0, c1, c1].
def _scripted(occ, r=4, beta=0.5):
    """SLTA's exact rule (its plain-Python reading, the chain's) at index `r`: ``(law, next r)``."""
    n = len(occ)
    cls = np.repeat(np.arange(SMALL.m), SMALL.pool_counts(n))
    key = np.round(np.diff(tabulate(SMALL.utilities, 9), axis=1), TIE_DECIMALS)
    chain = ExactChain(SMALL, n, cls, key, enumeration(SMALL, 8), 6)
    law = SLTA(beta=beta).exact_rule(chain, list(occ), r)
    assert len({nxt for _, _, nxt in law}) == 1          # the index moves once, whatever the pool
    return [(p, pr) for p, pr, _ in law], law[0][2]


@pytest.mark.parametrize("occ, r_after", [
    ([1, 1, 1, 2], 4),  # one green token (class 1) < n beta = 2: no decrement
    ([1, 1, 1, 1], 3),  # two green tokens = n beta, of class 1: decrement (at equality)
    ([0, 0, 1, 2], 3),  # three green tokens, one of class 1: decrement
    ([0, 0, 2, 2], 4),  # two green tokens, none of class 1: no decrement
    ([1, 2, 2, 2], 5),  # no green token, one yellow: increment
    ([1, 1, 2, 2], 4),  # no green token, two yellow: no change
])
def test_exact_chain_slta_rule_on_scripted_token_states(occ, r_after):
    # Kills 71:10:drop:1 (decrement without "at least n beta_n green tokens"): the chain's own
    # copy of the learning rule, read on the same scripted states as the kernel's.
    probs, new_r = _scripted(occ)
    assert new_r == r_after
    assert sum(p for _, p in probs) == pytest.approx(1.0)


def test_the_exact_jlmu_reading_breaks_ties_to_the_smaller_class():
    """Equal linear utilities: every comparison between classes ties, and JLMU (8) sends every
    task to class 0, so class 1 never holds a task (a tie to the larger class would invert it)."""
    from qtheory.utility import LinearUtility

    tied = PoolSystem((LinearUtility(1.0), LinearUtility(1.0)), (0.5, 0.5), 1.2)
    ex = exact_stationary(tied, 2, "jlmu", max_tasks=8)
    assert ex.class_tasks[1] == 0 and ex.class_tasks[0] > 0
