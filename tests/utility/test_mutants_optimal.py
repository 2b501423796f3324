"""Tests that kill mutants of qtheory/utility/optimal.py left alive by test_optimal.py
(found by tools/mutation.py; see benchmarks/mutation/README.md)."""

from __future__ import annotations

import numpy as np
import pytest

from qtheory.utility import LinearUtility, LogUtility, PoolSystem, StepUtility, optimal_assignment, optimal_assignment_lp


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


def test_q_ends_with_exactly_one_empty_level():
    # Kills 121:27:const:0 and 121:39:const:0 (one more trailing all-zero column). q has the
    # columns 0..J with J one past the deepest level holding load (q(i, J) = 0, as in
    # overall_utility's convention q(i, J + 1) = 0); for a generic rho, q*(sigma*) =
    # rho - theta > 0, so level J - 1 holds load.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 9.75)
    for rho in np.linspace(0.1, 9.9, 37) + 1e-3:
        a = optimal_assignment(system, rho)
        used = np.nonzero(a.q[:, 1:].max(axis=0) > 0)[0] + 1
        assert a.q.shape[1] - 1 == used[-1] + 1, rho
        assert not a.q[:, -1].any() and a.q[:, -2].max() > 0, rho
        assert a.q[:, 1:].sum() == pytest.approx(rho, rel=1e-12)


@pytest.mark.parametrize("utilities, alpha, rho", [
    ((LinearUtility(1.0),), (1.0,), 2.5),
    ((LinearUtility(1.0), LinearUtility(1.0)), (0.5, 0.5), 1.7),
    ((StepUtility(1.0), LinearUtility(0.5)), (0.3, 0.7), 2.2),
])
def test_lp_solution_is_a_state_even_when_utilities_tie(utilities, alpha, rho):
    # Kills 162:31:const:0 (the ordering constraint q(i, depth) <= q(i, depth - 1) dropped).
    # With linear pieces many q share the optimal value; only the constraints of (2) keep the
    # LP's answer a state: q(i, j) non-increasing in j, at most alpha(i), summing to rho.
    system = PoolSystem(utilities, alpha, rho)
    for depth in (None, 6, 9):
        q, value = optimal_assignment_lp(system, depth=depth)
        assert np.all(np.diff(q, axis=1) <= 1e-12), q
        assert q[:, 1:].sum() == pytest.approx(rho, rel=1e-9)
        assert value == pytest.approx(optimal_assignment(system).utility, rel=1e-9)
