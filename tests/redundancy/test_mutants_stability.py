"""Tests that kill mutants of qtheory/redundancy/stability.py left alive by test_stability.py
and test_limits.py (found by tools/mutation.py; see benchmarks/mutation/README.md).

Every expected number below is worked out by hand in the comments, on two-server systems
with unit speeds (N = 2, total speed N mu = 2), where conditions (1), (2) and (7)-(11)
have two to seven inequalities each.
"""

from __future__ import annotations

import pytest

from qtheory.errors import InstabilityError, ParameterError
from qtheory.redundancy import model as M
from qtheory.redundancy import stability as St

# A: types {1}, {2}, {1,2} (code: (0,), (1,), (0, 1)) with p = 1/2, 1/4, 1/4.
# Capacity ratios p_T / mu_T: {(0,)}: 1/2, {(1,)}: 1/4, every set containing (0, 1) or
# both singletons covers both servers: p_T / 2 <= 1/2, with equality for all three types.
# So the maximum 1/2 is attained by {(0,)} and by S: a tie; lambda* = 1 / (N 1/2) = 1.
A = M.RedundancySystem([1.0, 1.0], [(0,), (1,), (0, 1)], [0.5, 0.25, 0.25])
# A with the servers swapped: the tied proper maximiser is server 1 alone.
A_SWAPPED = M.RedundancySystem([1.0, 1.0], [(1,), (0,), (0, 1)], [0.5, 0.25, 0.25])
# B: two dedicated servers, p = 1/2 each: {1}, {2} and S all have ratio 1/2.
B = M.RedundancySystem([1.0, 1.0], [(0,), (1,)], [0.5, 0.5])
# C: as A with p = 0.4, 0.3, 0.3: ratios 0.4, 0.3 and 1/2 for S: S is the unique maximiser.
C = M.RedundancySystem([1.0, 1.0], [(0,), (1,), (0, 1)], [0.4, 0.3, 0.3])


@pytest.mark.parametrize("method", ["servers", "flow", "types"])
@pytest.mark.parametrize("system, tied", [(A, True), (A_SWAPPED, True), (B, True), (C, False)])
def test_ties_of_the_capacity_ratio_are_reported_by_every_search(method, system, tied):
    # Kills 245:15:arith:0 (a tie restarts the list of maximisers of the type search),
    # 359:34:cmp:0, 359:41:const:0, 359:92:arith:0 (the flow search's uniqueness test:
    # never, never for server mask 1, or only above the maximum), 385:15:drop:1 (the
    # residual search ignoring capacities) and 388:11:const:0 (server 0 always added).
    crit = St.critical_subset(system, method)
    assert crit.servers == (0, 1)
    assert crit.types == tuple(range(system.n_types))   # the largest maximiser is S
    assert crit.ratio == pytest.approx(0.5, rel=1e-12)
    assert crit.critical_load == pytest.approx(1.0, rel=1e-12)
    assert crit.unique is (not tied)
    assert crit.maximally_stable is (not tied)


def test_stability_is_strict_at_the_critical_load():
    # Kills 487:11:cmp:0 (lambda = lambda* accepted by require_stable).
    assert St.critical_load(A) == 1.0
    assert not St.is_stable(A, 1.0) and St.is_stable(A, 0.999)
    with pytest.raises(InstabilityError, match="lambda must be < lambda"):
        St.require_stable(A, 1.0)
    assert St.require_stable(A, 0.999).servers == (0, 1)


def test_conditions_1_and_2_at_and_below_the_critical_load():
    # Kills 444:31:cmp:0 (margin 0 counted as holding) and 460:62:arith:0 (the count of (2)).
    # (1) at lambda = 1, margin mu_T - 2 p_T over the 7 type sets: {(0,)}: 1 - 1 = 0,
    # {(1,)}: 1/2, {(0,1)}: 3/2, {(0,),(1,)}: 1/2, {(0,),(0,1)}: 1/2, {(1,),(0,1)}: 1, S: 0.
    c1 = St.condition_1(A, 1.0)
    assert (c1.holds, c1.worst_margin, c1.worst_set, c1.count) == (False, 0.0, (0,), 7)
    # (2) at lambda = 1 over the 3 server sets: {1}: 1 - 2 (1/2) = 0, {2}: 1/2, {1,2}: 0.
    c2 = St.condition_2(A, 1.0)
    assert (c2.holds, c2.worst_margin, c2.worst_set, c2.count) == (False, 0.0, (0,), 3)
    # at lambda = 0.9 the smallest margin is 1 - 0.9 (server 1 alone) and both hold
    for c in (St.condition_1(A, 0.9), St.condition_2(A, 0.9)):
        assert c.holds and c.worst_margin == pytest.approx(0.1, rel=1e-12) and c.worst_set == (0,)


def test_local_conditions_at_their_boundary():
    # A sits on the boundary of local stability (its critical set is tied with S).
    # (7) over type sets not covering both servers: {(0,)}: 1/2 - 1/2 = 0, {(1,)}: 1/2 - 1/4.
    c7 = St.local_condition_7(A)
    assert (c7.holds, c7.worst_margin, c7.worst_set, c7.count) == (False, 0.0, (0,), 2)
    # (8) over proper server sets: {1}: 1/2 - 1/2 = 0, {2}: 1/2 - 1/4.
    c8 = St.local_condition_8(A)
    assert (c8.holds, c8.worst_margin, c8.worst_set, c8.count) == (False, 0.0, (0,), 2)
    # (9) over the 6 proper type sets T', margin p_T' - mu(servers of no type outside T')/2:
    # {0}: 1/2, {1}: 1/4, {2}: 1/4, {0,1}: 3/4, {0,2}: 3/4 - 1/2, {1,2}: 1/2 - 1/2 = 0.
    c9 = St.local_condition_9(A)
    assert (c9.holds, c9.worst_margin, c9.worst_set, c9.count) == (False, 0.0, (1, 2), 6)
    # (11) over proper server sets U', margin p(types meeting U') - mu(U')/2:
    # {1}: 3/4 - 1/2, {2}: 1/2 - 1/2 = 0.
    c11 = St.local_condition_11(A)
    assert (c11.holds, c11.worst_margin, c11.worst_set, c11.count) == (False, 0.0, (1,), 2)
    # (10), one type at a time: the other types cover both servers for every type of A, so
    # the margins are the p's: 1/2, 1/4, 1/4.
    c10 = St.local_condition_10(A)
    assert c10.holds and c10.worst_margin == 0.25 and c10.count == 3
    # C is locally stable: (7) {(0,)}: 1/2 - 0.4, {(1,)}: 1/2 - 0.3.
    c7c = St.local_condition_7(C)
    assert c7c.holds and c7c.worst_margin == pytest.approx(0.1, rel=1e-12) and c7c.count == 2


def test_local_condition_10_uses_the_servers_no_other_type_reaches():
    # Kills 550:17:const:0 (server 1 always counted as reached) and 555:17:arith:0 (the
    # margin's sign): in B each type's server is reached by no other type, so the margin of
    # type {n} is p - mu_n / 2 = 1/2 - 1/2 = 0 for both types, and (10) fails.
    c10 = St.local_condition_10(B)
    assert (c10.holds, c10.worst_margin, c10.worst_set, c10.count) == (False, 0.0, (0,), 2)


def test_one_server_has_no_proper_server_or_type_sets():
    # Kills the counts max(2^N - 2, 0) and max(2^K - 2, 0) mutated to floor at 1
    # (573:*, 588:80:const:0, 542:*): with N = K = 1 there is nothing to check, and an
    # empty family of inequalities holds (its smallest margin is +inf).
    one = M.RedundancySystem([2.0], [(0,)], [1.0])
    for check in (St.local_condition_8, St.local_condition_9, St.local_condition_11):
        c = check(one)
        assert c.count == 0 and c.worst_set == () and c.holds and c.worst_margin == float("inf")
    assert St.local_condition_7(one).count == 0
    assert St.is_locally_stable(one)


def test_type_subset_indices_are_checked_against_the_number_of_types():
    # Kills 128:7:drop:0, 128:7:drop:1 (one side of the index check dropped) and
    # 129:70:arith:0 (the range named in the message).
    assert St.capacity_ratio(A, [2]) == pytest.approx(0.25 / 2, rel=1e-12)
    assert St.capacity_ratio(A, [0, 0]) == pytest.approx(0.5, rel=1e-12)
    for bad in ([-1], [3], [0, 3]):
        with pytest.raises(ParameterError, match=r"in 0 \.\. 2"):
            St.capacity_ratio(A, bad)


def test_enumeration_and_transform_size_limits():
    # Kills 424:7:cmp:0 and 424:8:const:0 (2^20 sets refused), 68:21:const:0 (N = 25
    # accepted by the O(N 2^N) transforms) and 107:7:cmp:0 (N = 24 refused).
    St._enumerate_guard(20, "type sets")
    with pytest.raises(ParameterError, match="2\\^20"):
        St._enumerate_guard(21, "type sets")
    assert St.MAX_SUBSET_SERVERS == 24
    n = 24
    big = M.RedundancySystem([1.0] * n, [(s,) for s in range(n)], [1.0 / n] * n)
    mu = St.server_speed_sums(big)
    assert mu.size == 1 << n and mu[-1] == n and mu[(1 << 5) - 1] == 5
    del mu
    wide = M.RedundancySystem([1.0] * 25, [(s,) for s in range(25)], [1.0 / 25] * 25)
    with pytest.raises(ParameterError, match="N <= 24"):
        St.subset_sums(wide)
    with pytest.raises(ParameterError, match="exceeds 24"):
        St.server_speed_sums(wide)


def test_the_reported_worst_set_is_the_first_of_smallest_margin():
    # Kills 442:11, 458:11, 540:11, 556:11, 571:11 (`margin < worst` -> `<=`: the last tied
    # set reported). Convention: among sets of equal smallest margin, the first in the
    # enumeration order (binary code of the set) is reported, so reports are reproducible.
    # In B every inequality of (7)-(11) is tight for both servers / both types:
    # (7) {(0,)}: 1/2 - 1/2, {(1,)}: the same; (8) {1}, {2}: 1/2 - 1/2; (9) T' = {(0,)}:
    # 1/2 - mu({1})/2 = 0, T' = {(1,)}: 0; (10) as (9); (11) U' = {1}, {2}: 1/2 - 1/2.
    for check in (St.local_condition_7, St.local_condition_8, St.local_condition_9,
                  St.local_condition_10, St.local_condition_11):
        c = check(B)
        assert (c.holds, c.worst_margin, c.worst_set) == (False, 0.0, (0,)), check.__name__
    # A at lambda* = 1: (1) is tight for {(0,)} (code 1) and for S (code 7); (2) for {1}
    # (code 1) and {1, 2} (code 3).
    assert St.condition_1(A, 1.0).worst_set == (0,)
    assert St.condition_2(A, 1.0).worst_set == (0,)
