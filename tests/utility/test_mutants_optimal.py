"""Tests that kill mutants of qtheory/utility/optimal.py left alive by test_optimal.py
(found by tools/mutation.py; see benchmarks/mutation/README.md)."""

from __future__ import annotations

import numpy as np

from qtheory.utility import LogUtility, PoolSystem, optimal_assignment


def test_ranking_depth_is_doubled_until_rho_is_placed():
    # Kills 106:102:const:0 (depth = 1 refused) and 117:8:arith:0 (depth halved instead of
    # doubled): started from one level per class, the search must grow the ranking until
    # rho = 9.75 is placed (8 and 12 levels are needed) and find the same optimum as from
    # the default first guess.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 9.75)
    a = optimal_assignment(system, depth=1)
    b = optimal_assignment(system)
    assert a.sigma == b.sigma == (1, 12)
    assert np.array_equal(a.q, b.q) and a.theta == b.theta


def test_rank_of_sigma_counts_the_coordinates_at_or_above_it():
    # Kills 126:56:const:0 (rank = k + 2). rho = 9.75 in Table 1's system: class 1 holds
    # levels 1..8 and class 2 levels 1..12 (the last one fractional), so sigma* = (2, 12)
    # is the 8 + 12 = 20th coordinate of the ranking; the count of positive q entries
    # above level 0 is an independent route to the same number.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 9.75)
    a = optimal_assignment(system)
    assert a.rank == 20 == int((a.q[:, 1:] > 0).sum())
