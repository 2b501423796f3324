"""JLMU's compiled rule (``qtheory.utility.policies.jlmu.rule``) on scripted pool states:
the class whose least-occupied pools have the largest marginal utility (eq. (8), ties to
the smaller class), then a uniformly random least-occupied pool of that class (Sec. 3.1).
Kills mutants of the rule body (tools/mutation.py; see benchmarks/mutation/README.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from qtheory.utility.model import enumeration
from qtheory.utility.policies import JLMU
from qtheory.utility.policies.jlmu import rule

from .test_mutants_slta import J, SMALL, _arrays


def _choices(system, occ, calls=600, seed=1):
    n, offset, bound, minocc, perm, pool_class, occ, key = _arrays(system, occ)
    u = np.random.default_rng(seed).integers(0, 2**64, size=calls, dtype=np.uint64)  # the kernel's word of each arrival
    return np.array([rule(u[k], bound, minocc, perm, key) for k in range(calls)])


def test_small_order():
    en = enumeration(SMALL, J)
    assert list(zip(en.cls[:4].tolist(), en.level[:4].tolist())) == [(1, 1), (0, 1), (1, 2), (0, 2)]


# SMALL with n = 6: pools [c0, c0, c0, c1, c1, c1]; by the order above
# Delta(1, 0) > Delta(0, 0) > Delta(1, 1) > Delta(0, 1)
@pytest.mark.parametrize("occ, pools", [
    ([0, 0, 1, 0, 0, 2], [3, 4]),   # least occupancies (0, 0): (1,1) ranks first -> class 1, its empty pools
    ([1, 0, 1, 0, 1, 1], [3]),      # the same class, one empty pool
    ([0, 1, 0, 1, 1, 1], [0, 2]),   # (0, 1): (0,1) above (1,2) -> class 0; pool 1 (one task) is not least occupied
    ([1, 1, 1, 1, 2, 1], [3, 5]),   # (1, 1): (1,2) above (0,2) -> class 1
    ([1, 2, 1, 2, 2, 2], [0, 2]),   # (1, 2): (0,2) above (1,3) -> class 0, not pool 1 with 2 tasks
])
def test_rule_picks_a_least_occupied_pool_of_the_best_class_uniformly(occ, pools):
    chosen = _choices(SMALL, occ)
    assert set(chosen.tolist()) == set(pools), chosen
    if len(pools) > 1:
        counts = np.array([np.sum(chosen == p) for p in pools])
        assert stats.chisquare(counts).pvalue > 1e-6, counts


def test_rule_stops_when_a_least_occupancy_leaves_the_table():
    # every class-1 pool holds J tasks: Delta(1, J) is not tabulated, the rule returns -1
    # (the kernel's error 1, "raise max_occupancy")
    assert _choices(SMALL, [0, 0, 0, J, J, J], calls=1).tolist() == [-1]


def test_params_and_state():
    params = JLMU().kernel_params(SMALL, 6, J)
    assert params.m == 2
    assert JLMU().initial_state(params, 2).tolist() == [1]
