"""The simulators against the exact stationary law of small systems; Theorem 1 exactly."""

import numpy as np
import pytest

from qtheory.runtime import spawn
from qtheory.utility import POLICIES, LogUtility, PoolSystem, exact_stationary, simulate, upper_bound

SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
N = 4


@pytest.fixture(scope="module")
def exact():
    return {p: exact_stationary(SMALL, N, p, max_tasks=22) for p in POLICIES}


@pytest.mark.parametrize("policy", list(POLICIES))
def test_simulated_mean_utility_matches_the_exact_chain(policy, exact):
    vals = np.array([simulate(SMALL, N, policy, horizon=20000.0, warmup=10.0, seed=ss).mean_utility
                     for ss in spawn(5, 8)])
    se = vals.std(ddof=1) / np.sqrt(vals.size)
    # truncation at 22 tasks (Poisson(6) tail < 1e-6) is far below the standard error
    assert abs(vals.mean() - exact[policy].mean_utility) < 4.5 * se + 1e-5


def test_theorem1_holds_exactly_for_every_policy(exact):
    bound = upper_bound(SMALL, N)
    for policy, ex in exact.items():
        assert ex.mean_tasks == pytest.approx(1.5, abs=1e-5)  # E[s_n] = rho
        assert ex.mean_utility < bound, policy
    # JLMU is the best of the five here, and strictly below the bound (Sec. 8.3's point)
    assert max(exact, key=lambda p: exact[p].mean_utility) == "jlmu"
