"""Tests that kill mutants of qtheory/utility/fluid.py left alive by test_fluid.py
(found by tools/mutation.py; see benchmarks/mutation/README.md).

Closed form used: the total mass of (12) solves s' = lam - mu s whatever the policy's
ranking, so s(t) = rho + (s(0) - rho) e^{-mu t}.
"""

from __future__ import annotations

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import LogUtility, PoolSystem, solve_fluid, solve_fluid_splitting
from qtheory.utility.fluid import check_state, l1_distance

# class 0 has u(x) = x log(20/x), class 1 x log(30/x): Delta(i, 0) = log r_i, so (1, 1) ranks first
SYS = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 9.75)


def test_check_state_refuses_a_state_with_the_wrong_number_of_classes():
    # Kills 53:7:drop:0 (only the number of levels checked).
    q = np.zeros((3, 4))
    q[:, 0] = 1 / 3
    with pytest.raises(ParameterError, match="shape"):
        check_state(SYS, q)
    with pytest.raises(ParameterError, match="shape"):
        check_state(SYS, np.array([[0.5], [0.5]]))


def test_an_increasing_state_is_refused_naming_both_coordinates():
    # Kills 61:82:arith:0 and 61:98:arith:0 (the message names q[i, j - 1] for q[i, j + 1]).
    q = np.zeros((2, 4))
    q[:, 0] = 0.5
    q[1, 1] = 0.2
    q[1, 2] = 0.3
    with pytest.raises(ParameterError, match=r"q0\[1, 2\] = \S*0\.3\S* > q0\[1, 1\] = \S*0\.2"):
        check_state(SYS, q)


@pytest.mark.parametrize("solver", ["exact", "splitting"])
def test_a_deep_start_in_the_lower_ranked_class_is_kept_whole(solver):
    # Kills 90:56:cmp:0 and 92:11:bool:0 (the enumeration prefix returned before it holds
    # the deepest occupied level of every class). Class 0 pools start with 30 tasks: its
    # levels 23..30 rank below level 33 of class 1, so a prefix sized by the mass alone
    # misses them. The start must be kept whole and the total mass follow its closed form.
    q0 = np.zeros((2, 32))
    q0[:, 0] = 0.5
    q0[0, 1:31] = 0.5
    t = np.linspace(0.0, 2.0, 5)
    if solver == "exact":
        sol = solve_fluid(SYS, q0, t)
    else:
        sol = solve_fluid_splitting(SYS, q0, t, 1e-3)
    J = sol.q.shape[2]
    assert J >= 32
    np.testing.assert_array_equal(sol.q[0, :, :32], q0)
    assert not sol.q[0, :, 32:].any()
    assert sol.total[0] == pytest.approx(15.0, rel=1e-12)
    if solver == "exact":
        np.testing.assert_allclose(sol.total, 9.75 + (15 - 9.75) * np.exp(-t), rtol=1e-9)


def test_sigma_gives_the_class_and_level_of_the_active_rank():
    # Kills 210:12:arith:0 (sigma read one rank too deep). From the empty state the first
    # coordinate of the ranking, (class 1, level 1), is active; once it is full at
    # s = 1/2 (t = -log(1 - 0.5 / 9.75)), (class 0, level 1) follows, Delta = log 20.
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    t1 = -np.log(1 - 0.5 / 9.75)
    sol = solve_fluid(SYS, q0, [0.0, 0.5 * t1, 1.5 * t1])
    assert list(sol.sigma_rank) == [1, 1, 2]
    assert [sol.sigma(k) for k in range(3)] == [(1, 1), (1, 1), (0, 1)]


def test_output_times_must_not_decrease():
    # Kills 216:7:bool:0 (only an empty t_eval refused).
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    for bad in ([1.0, 0.5], [], [0.0, 2.0, 1.0]):
        with pytest.raises(ParameterError, match="t_eval"):
            solve_fluid(SYS, q0, bad)


def test_a_full_coordinate_the_arrivals_cannot_keep_full_is_the_active_one():
    # Kills 148:15:drop:0 (sigma moved up only when the inflow left is ~0 and falling).
    # rho = 0.3: only (class 1, level 1) holds tasks, full at alpha = 1/2. The inflow left
    # for the next coordinate would be lam - mu (1/2) = -0.2 < 0 (and constant, as nothing
    # lies below), so (1, 1) itself is active and q(1, 1) = rho + (1/2 - rho) e^{-t}
    # with no other coordinate ever used.
    sys = SYS.with_rho(0.3)
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    q0[1, 1] = 0.5
    t = np.linspace(0.0, 4.0, 9)
    sol = solve_fluid(sys, q0, t)
    assert np.all(sol.sigma_rank == 1) and sol.events == []
    np.testing.assert_allclose(sol.q[:, 1, 1], 0.3 + 0.2 * np.exp(-t), rtol=1e-10)
    assert not sol.q[:, 0, 1:].any() and not sol.q[:, 1, 2:].any()


def test_inflow_left_is_lam_minus_the_departures_of_the_full_coordinates():
    # Kills 136:15:arith:0 (lam + departures). Lambda(q, sigma) of (12b) on scripted states:
    # empty pools with the first a coordinates of the ranking, (1,1), (0,1), (1,2), taken
    # full: only the deepest full level of each class departs (its next level is empty).
    from qtheory.utility.fluid import _Prefix, fluid_prefix
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    pre = _Prefix(SYS, fluid_prefix(SYS, q0))
    assert [(int(c), int(l)) for c, l in zip(pre.en.cls[:3], pre.en.level[:3])] == [(1, 1), (0, 1), (1, 2)]
    lam = SYS.lam
    x = np.zeros(pre.K)
    assert pre.inflow_left(x, 0) == pytest.approx(lam)
    assert pre.inflow_left(x, 1) == pytest.approx(lam - 0.5)            # (1,1) departs at mu 1 (1/2)
    assert pre.inflow_left(x, 2) == pytest.approx(lam - 0.5 - 0.5)      # and (0,1)
    x[:3] = 0.5                                                          # (1,1), (0,1), (1,2) full
    assert pre.inflow_left(x, 3) == pytest.approx(lam - 0.5 - 2 * 0.5)  # (1,2) departs at mu 2 (1/2)
    y = np.append(x, 1.0)
    for a in range(4):
        assert pre.starve_functional(a) @ y == pytest.approx(pre.inflow_left(x, a))


def test_check_state_names_the_increasing_coordinates_with_plain_numbers():
    # the message shows 0.3, not np.float64(0.3)
    q = np.array([[0.5, 0.2, 0.3], [0.5, 0.1, 0.0]])
    with pytest.raises(ParameterError) as err:
        check_state(SYS, q)
    assert str(err.value) == "`q0` must be non-increasing in j: q0[0, 2] = 0.3 > q0[0, 1] = 0.2"
    assert "np.float64" not in str(err.value)


def test_splitting_step_limit_is_reported_as_a_plain_number():
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    with pytest.raises(ParameterError, match=r"`dt` = 10.0 must be <= 1 / \(mu \* deepest level\) = 0\.") as err:
        solve_fluid_splitting(SYS, q0, [0.0, 1.0], dt=10.0)
    assert "np.float64" not in str(err.value)


def test_check_state_accepts_a_state_with_a_single_level():
    # Kills 53:46:const:0 (J >= 2 demanded): shape (m, J + 1) with J = 1 is a state of Q
    q = np.array([[0.5, 0.2], [0.5, 0.0]])
    np.testing.assert_array_equal(check_state(SYS, q), q)


def test_a_full_coordinate_whose_inflow_is_zero_and_falling_is_active_at_once():
    # Kills 148:15:drop:1 (the tangential case of _Prefix.active dropped). Order: (1,1),
    # (0,1), (1,2), ... (Delta(1,0) = log 30 > Delta(0,0) = log 20 > Delta(1,1) = 2 log 15 -
    # log 30). At rho = 0.3 with (1,1) full and q(1,2) = 0.2, the first non-full
    # coordinate (0,1) would get Lambda = lam - mu [alpha(1) - q(1,2)] = 0.3 - 0.3 = 0 (mu = 1), and
    # q(1,2)' = -2 mu q(1,2) < 0 makes it negative at once, against (12b). So sigma(q(t)) =
    # (1,1) from t = 0 on, and q(1,1) starts to fall: no switch right after t = 0.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.3)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, 0.2]])
    sol = solve_fluid(system, q0, [0.0, 0.5])
    assert sol.sigma(0) == (1, 1)
    assert all(t > 1e-3 for t, _, _ in sol.events), sol.events[:3]
    assert sol.q[1, 1, 1] < 0.5


def test_first_event_from_the_empty_state_fills_the_top_coordinate_in_closed_form():
    # Kills 319:40:const:0 (events record rank a + 2). From q = 0 every arrival goes to
    # sigma = (1,1) (rank 1) and nothing reaches level 2, so q(1,1)' = lam - mu q(1,1):
    # q(1,1)(t) = rho (1 - e^{-t}) (mu = 1) reaches alpha(1) = 1/2 at t1 = -log(1 - 0.5 / rho).
    # Then (0,1), rank 2, becomes sigma: its inflow lam - mu [alpha(1) - q(1,2)] = rho - 0.5 > 0.
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    sol = solve_fluid(SYS, q0, [0.0, 0.2])
    t1, kind, rank = sol.events[0]
    assert (kind, rank) == ("fill", 2)
    assert t1 == pytest.approx(-np.log(1 - 0.5 / SYS.rho), abs=1e-8)


def test_a_start_whose_inflow_left_is_within_the_tolerance_below_zero_is_solved():
    # Kills 276:31:drop:0 (a starve crossing flagged without g(0) > -_TOL). One class, rho =
    # 1 - 5e-11, start with level 1 full and nothing above: Lambda = rho - 1 = -5e-11, which
    # `active` accepts as 0 (its tolerance is 1e-10), and which stays below -_TOL = -1e-12
    # over the first step. The switching function never crossed -_TOL from above, so there is
    # no starve event to locate (the mutant asks brentq for a root between two negative
    # values and raises). The true solution, q(t, 1) = rho + (1 - rho) e^{-t}, q(t, j) = 0 for
    # j >= 2, is within 1e-9 of the returned one.
    rho = 1.0 - 5e-11
    system = PoolSystem((LogUtility(20),), (1.0,), rho)
    q0 = np.zeros((1, 4))
    q0[0, :2] = 1.0
    t = np.linspace(0.0, 5.0, 11)
    sol = solve_fluid(system, q0, t)
    np.testing.assert_allclose(sol.q[:, 0, 1], rho + (1.0 - rho) * np.exp(-t), rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol.q[:, 0, 2:], 0.0, rtol=0, atol=1e-9)


def test_a_first_column_off_by_exactly_the_tolerance_is_accepted():
    # Kills 55:14:cmp:0 (`> 1e-9` -> `>= 1e-9`). |q[0, 0] - alpha_0| must be 1e-9 to the bit:
    # with alpha_0 = 2^-31, alpha_0 + 1e-9 and its difference with alpha_0 are exact (both are
    # multiples of the last bit of 1e-9, 2^-82), so the difference is the tolerance itself.
    a0 = 2.0 ** -31
    alpha = np.array([a0, 1.0 - a0])
    q = np.zeros((2, 3))
    q[:, 0] = alpha
    q[0, 0] = a0 + 1e-9
    assert abs(q[0, 0] - alpha[0]) == 1e-9
    check_state(SYS, q, alpha=alpha)
    q[0, 0] = np.nextafter(a0 + 1e-9, 1.0)
    with pytest.raises(ParameterError, match="class fractions"):
        check_state(SYS, q, alpha=alpha)


def test_a_wrong_first_column_is_named_by_its_own_values():
    # Kills 57:42:const:0 (the message showed q[:, 1], the first level, for q[:, 0]).
    q = np.zeros((2, 3))
    q[:, 0] = (0.7, 0.3)
    q[:, 1] = (0.125, 0.0625)
    with pytest.raises(ParameterError, match=r"got \[0\.7, 0\.3\]"):
        check_state(SYS, q)


def test_an_increase_of_exactly_the_rounding_tolerance_is_accepted():
    # Kills 58:10:cmp:0 (`> 1e-12` -> `>= 1e-12`): 1e-12 - 0 is exactly 1e-12.
    q = np.zeros((2, 4))
    q[:, 0] = 0.5
    q[1, 2] = 1e-12
    check_state(SYS, q)
    q[1, 2] = np.nextafter(1e-12, 1.0)
    with pytest.raises(ParameterError, match="non-increasing"):
        check_state(SYS, q)


def test_l1_distance_pads_the_narrower_state_with_zeros():
    # Kills 70:34:const:0 (the width of b read from its number of classes, b.shape[-2]).
    a = np.array([[0.5, 0.25], [0.5, 0.5]])
    b = np.array([[0.5, 0.25, 0.125, 0.0625], [0.5, 0.5, 0.25, 0.0]])
    assert l1_distance(a, b) == 0.125 + 0.0625 + 0.25
    assert l1_distance(b, a) == 0.125 + 0.0625 + 0.25


def test_a_light_class_that_ranks_first_does_not_shorten_the_prefix():
    # Kills 82:12:arith:0 (the prefix sized by max(s0, rho) - alpha_max instead of
    # + alpha_max). Class 1 holds a tenth of the pools and its marginal utilities stay above
    # class 0's for many levels, so a prefix with little more than rho - alpha_max of mass
    # ends before the fluid limit's mass rho fits. From the empty state the total mass must
    # follow s(t) = rho (1 - e^{-t}) (closed form, module docstring) and reach rho.
    from qtheory.utility import LogUtility as Log

    sys_ = PoolSystem((Log(2.0), Log(1e6)), (0.9, 0.1), 3.0)
    q0 = np.zeros((2, 2))
    q0[:, 0] = (0.9, 0.1)
    t = np.array([0.0, 1.0, 5.0, 30.0])
    sol = solve_fluid(sys_, q0, t)
    np.testing.assert_allclose(sol.total, 3.0 * (1 - np.exp(-t)), rtol=1e-9, atol=1e-12)


def test_a_start_whose_deepest_level_is_the_first_outside_the_prefix_is_kept_whole():
    # Kills 89:35:const:0 (the deepest occupied level looked up one level too shallow).
    # Class 0 pools start with 16 tasks: the first prefix (depth 23, sized by the mass
    # 8 + 0.5 against rho = 9.75) holds levels 1..15 of class 0 and not 16 (computed
    # beside the assertion), so only the check of level 16 itself makes the prefix grow.
    from qtheory.utility.model import enumeration

    first = enumeration(SYS, 23)
    assert first.level[first.cls == 0].max() == 15
    q0 = np.zeros((2, 17))
    q0[:, 0] = 0.5
    q0[0, 1:17] = 0.5
    t = np.array([0.0, 0.5])
    sol = solve_fluid(SYS, q0, t)
    np.testing.assert_array_equal(sol.q[0, :, :17], q0)
    np.testing.assert_allclose(sol.total, 9.75 + (8 - 9.75) * np.exp(-t), rtol=1e-9)


def test_a_full_coordinate_whose_inflow_left_is_positive_but_falling_stays_full():
    # Kills 148:33:bool:0 and 148:33:drop:0 (sigma moved up when the inflow left is
    # falling, whatever its sign). Order (1,1), (0,1), (1,2) (see above); rho = 0.3, mu = 1,
    # (1,1) full and q(1,2) = 0.3: the first non-full coordinate (0,1) gets
    # Lambda = lam - mu [alpha(1) - q(1,2)] = 0.3 - 0.2 = 0.1 > 0, falling (q(1,2)' =
    # -2 mu q(1,2)), so by (12b) sigma = (0,1) and q(0,1) starts to grow at rate 0.1.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.3)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, 0.3]])
    sol = solve_fluid(system, q0, [0.0, 1e-3])
    assert sol.sigma(0) == (0, 1)
    # q(0,1)(h) = 0.1 h + Lambda'(0) h^2 / 2 with Lambda'(0) = mu q(1,2)' = -0.6: 3e-3 relative at h = 1e-3
    assert sol.q[1, 0, 1] == pytest.approx(1e-4, rel=1e-2)


def test_a_full_coordinate_whose_inflow_left_is_zero_and_steady_leaves_sigma_below_it():
    # Kills 148:33:drop:1 (sigma moved up whenever the inflow left is ~0). rho = 1/2 with
    # (1,1) full and nothing else: the optimal assignment q*, a fixed point. The inflow left
    # for (0,1) is lam - mu alpha(1) = 0 and stays 0 (nothing lies below (1,1)), so (12b)
    # keeps (1,1) full with sigma = (0,1), the first non-full coordinate.
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.5)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, 0.0]])
    sol = solve_fluid(system, q0, [0.0, 1.0])
    assert sol.sigma(0) == (0, 1) and sol.sigma(1) == (0, 1)
    np.testing.assert_allclose(sol.q[1, :, :3], q0, atol=1e-12)


def test_output_times_may_repeat():
    # Kills 216:29:cmp:0 (equal consecutive times refused): `t_eval` is non-decreasing, and
    # a repeated time gives the same state twice.
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    sol = solve_fluid(SYS, q0, [0.0, 0.5, 0.5, 1.0])
    np.testing.assert_array_equal(sol.q[1], sol.q[2])


def test_an_inflow_left_that_falls_through_zero_is_a_starve_event_in_closed_form():
    # Kills 260:51:const:0 (no starve functional, so no starve event, while rank 2 is active).
    # The start of test_a_full_coordinate_whose_inflow_left_is_positive_but_falling_stays_full:
    # sigma = (0,1) and nothing lies below (1,2), which only departs: q(1,2) = 0.3 e^{-2t}
    # (mu = 1), so Lambda(t) = lam - mu [alpha(1) - q(1,2)] = -0.2 + 0.3 e^{-2t} reaches 0 at
    # t* = log(1.5) / 2; there (1,1) can no longer be kept full and becomes sigma (rank 1).
    system = PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.3)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, 0.3]])
    sol = solve_fluid(system, q0, [0.0, 0.5])
    t1, kind, rank = sol.events[0]
    assert (kind, rank) == ("starve", 1)
    assert t1 == pytest.approx(np.log(1.5) / 2, abs=1e-8)
    assert sol.sigma(1) == (1, 1) and sol.q[1, 1, 1] < 0.5


def test_outputs_inside_the_step_of_an_event_are_the_state_before_it():
    # Kills 287:22:cmp:0, 287:22:drop:0 (the last output read past t_eval), 288:46:arith:0
    # (an output at t_eval + t), 289:35:arith:0 and 289:39:const:0 (its rank a - 1, a + 2).
    # From q = 0, q(1,1)(t) = rho (1 - e^{-t}) with sigma = (1,1) until it fills at
    # t1 = -log(1 - 0.5 / rho) (see above). Both output times lie in the step that holds t1,
    # the last one is the horizon: the solver stops in the event branch.
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    t1 = -np.log(1 - 0.5 / SYS.rho)
    t = np.array([t1 - 1e-7, t1 - 1e-9])
    sol = solve_fluid(SYS, q0, t)
    np.testing.assert_allclose(sol.q[:, 1, 1], SYS.rho * (1 - np.exp(-t)), rtol=1e-12)
    assert sol.sigma(0) == (1, 1) and sol.sigma(1) == (1, 1)
    assert not sol.q[:, 0, 1:].any() and sol.events == []


# ---------------------------------------------------------------------------------------
# Survivors of chunk 4 and the open ones of chunks 2-3 (benchmarks/mutation/README.md,
# utility_fluid.rest_*.json), killed below. SYS ranks (1,1), (0,1), (1,2), ... (see above);
# with (1,1) full, nothing at (1,3) and (0,1) active, (1,2) only departs, so
# q(1,2)(t) = q(1,2)(0) e^{-2 mu t} and the inflow left for (0,1) is
# Lambda(t) = lam - mu [alpha(1) - q(1,2)(t)].


def _two_class(rho, mu=1.0):
    return PoolSystem((LogUtility(20), LogUtility(30)), (0.5, 0.5), rho, mu=mu)


def test_a_full_start_whose_inflow_left_stays_positive_switches_once_to_the_next_rank():
    # Kills 280:51:arith:0 (the fill root sought at -_TOL: brentq gets no sign change),
    # 311:15:cmp:0 (after the fill, sigma kept on the filled coordinate), 312:24, 312:28,
    # 312:52, 312:56, 312:62 (the next rank chosen or tested wrongly after that fill).
    # q(1,2)(0) = b = 6e-11 and lam = 1/2 - b + 9e-11 (mu = 1): Lambda(t) = 3e-11 +
    # 6e-11 e^{-2t} > 0 for all t, so by (12b) (1,1) stays full and sigma = (0,1) from the
    # start. Lambda(0) <= 1e-10 and Lambda'(0) = -1.2e-10 make the solver's tangential rule
    # take (1,1) as sigma at t = 0; (1,1) then rises, and once it is full (one "fill" event)
    # the positive inflow left puts sigma at (0,1), rank 2, for good: exactly one switch.
    b = 6e-11
    system = _two_class(0.5 - b + 9e-11)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, b]])
    t = np.array([0.0, 0.1, 0.5, 2.0])
    sol = solve_fluid(system, q0, t)
    assert [(kind, rank) for _, kind, rank in sol.events] == [("fill", 2)]
    assert 0.0 < sol.events[0][0] < 0.1
    assert list(sol.sigma_rank[1:]) == [2, 2, 2]
    np.testing.assert_allclose(sol.q[:, 1, 1], 0.5, rtol=0, atol=1e-11)
    np.testing.assert_allclose(sol.q[:, 1, 2], b * np.exp(-2 * t), rtol=1e-9, atol=0)
    # what (0,1) has received is at most the integral of Lambda, below 1e-10
    assert np.all(sol.q[:, 0, 1] <= 1e-10)


def test_a_start_a_little_above_alpha_within_the_tolerance_of_check_state_has_no_fill_event():
    # Kills 272:25:drop:0 (a fill crossing flagged without g_fill(0) < _TOL). check_state
    # accepts q[:, 0] within 1e-9 of alpha, so (1,1) may start 5e-10 above alpha(1). With
    # lam = 1/2 - 2e-10 the inflow left for (0,1) is -2e-10 < 0: (1,1) is sigma and falls,
    # q(1,1)(t) = rho + (q(1,1)(0) - rho) e^{-t} (only (1,1) holds tasks), with no switch.
    # Its fill function starts above _TOL and stays there over the first step; the mutant
    # takes that for a crossing and asks brentq for a root with no sign change.
    system = _two_class(0.5 - 2e-10)
    top = 0.5 + 5e-10
    q0 = np.array([[0.5, 0.0, 0.0], [top, top, 0.0]])
    t = np.linspace(0.0, 3.0, 7)
    sol = solve_fluid(system, q0, t)
    assert sol.events == [] and np.all(sol.sigma_rank == 1)
    np.testing.assert_allclose(sol.q[:, 1, 1], system.rho + (top - system.rho) * np.exp(-t),
                               rtol=0, atol=1e-14)
    assert not sol.q[:, 0, 1:].any() and not sol.q[:, 1, 2:].any()


def test_a_short_excursion_to_full_is_found_by_the_default_step():
    # Kills 244:46:arith:0 and 244:53:arith:0 (the default step 0.1 mu J or 0.1 J / mu
    # instead of 0.1 / (mu J), here 0.5 instead of 0.02: a fill and the starve after it fall
    # inside one step and are both missed). rho = 0.3, q(1,1)(0) = 0.451, q(1,2)(0) = 0.45.
    # While (1,1) is sigma: q(1,1)' = lam - q(1,1) + q(1,2), so
    # q(1,1)(t) = 0.3 + C e^{-t} - 0.45 e^{-2t} with C = 0.601; it reaches 1/2 where
    # u = e^{-t} is the larger root of 0.45 u^2 - 0.601 u + 0.2 = 0 (t1 = 0.3477...). Then
    # Lambda(t) = -0.2 + 0.45 e^{-2t} > 0, so (0,1) is sigma, until Lambda = 0 at
    # t2 = log(1.5) ("starve"); from t2 on q(1,1) = 0.3 + 0.6 e^{-t} - 0.45 e^{-2t} and
    # q(0,1) decays like e^{-(t - t2)} from q(0,1)(t2), where on [t1, t2]
    # q(0,1)(t) = -0.2 (1 - e^{-(t - t1)}) + 0.45 e^{-t} (e^{-t1} - e^{-t}).
    system = _two_class(0.3)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.451, 0.45]])
    u1 = (0.601 + np.sqrt(0.601**2 - 4 * 0.45 * 0.2)) / (2 * 0.45)
    t1, t2 = -np.log(u1), np.log(1.5)

    def q01(t):
        return -0.2 * (1 - np.exp(-(t - t1))) + 0.45 * np.exp(-t) * (np.exp(-t1) - np.exp(-t))

    t = np.array([0.38, 0.45, 1.0])
    sol = solve_fluid(system, q0, t)
    assert [(kind, rank) for _, kind, rank in sol.events] == [("fill", 2), ("starve", 1)]
    assert sol.events[0][0] == pytest.approx(t1, abs=1e-8)
    assert sol.events[1][0] == pytest.approx(t2, abs=1e-8)
    assert list(sol.sigma_rank) == [2, 1, 1]
    expected_q01 = [q01(0.38), q01(t2) * np.exp(-(0.45 - t2)), q01(t2) * np.exp(-(1.0 - t2))]
    np.testing.assert_allclose(sol.q[:, 0, 1], expected_q01, rtol=1e-7)
    np.testing.assert_allclose(sol.q[1:, 1, 1], 0.3 + 0.6 * np.exp(-t[1:]) - 0.45 * np.exp(-2 * t[1:]),
                               rtol=1e-9)
    assert sol.q[0, 1, 1] == pytest.approx(0.5, abs=1e-11)


def test_a_prefix_too_short_for_the_trajectory_is_an_internal_error_naming_it(monkeypatch):
    # Kills 316:11:cmp:0 (a_new == K let through: an IndexError instead of the message).
    # fluid_prefix always returns a prefix long enough; given one of depth 2 instead
    # ((1,1), (0,1), (1,2): K = 3), the trajectory from q = 0 at rho = 9.75 fills all three
    # (s(t) = rho (1 - e^{-t}) passes 1.5) and must then stop with the solver's message.
    import qtheory.utility.fluid as fluid
    from qtheory.utility.model import enumeration

    monkeypatch.setattr(fluid, "fluid_prefix", lambda system, q0: enumeration(system, 2))
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    with pytest.raises(ParameterError, match="left the enumerated coordinates"):
        solve_fluid(SYS, q0, [0.0, 1.0])


def test_the_switch_limit_allows_exactly_100000_switches(monkeypatch):
    # Kills 320:11:cmp:0 and 320:25:const:0 (the limit at 100000 or 100002 switches).
    # From q = 0 the k-th switch is the fill at s(t) = k alpha = k / 2, t_k = -log(1 - k / (2 rho))
    # (test_first_event_...). The module's `len` is shifted so that the solver counts
    # 99998 switches more than it made: two real switches (horizon at s = 1.25) are then
    # the 100000 allowed, a third (horizon at s = 1.75) is one too many.
    import builtins

    import qtheory.utility.fluid as fluid

    monkeypatch.setattr(fluid, "len", lambda seq: builtins.len(seq) + 99998, raising=False)
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    sol = solve_fluid(SYS, q0, [0.0, -np.log(1 - 1.25 / SYS.rho)])
    assert builtins.len(sol.events) == 2
    with pytest.raises(ParameterError, match="more than 100000 switches"):
        solve_fluid(SYS, q0, [0.0, -np.log(1 - 1.75 / SYS.rho)])


# The splitting scheme on one class (alpha = 1) at rho = 1, mu = 2, from q = 0: the prefix
# ends at level J = 4 (fluid_prefix: ceil((rho + alpha) / alpha) + 2), so the step limit
# 1 / (mu J) is 1/8, a binary fraction: the grid times n dt are exact. Departures remove
# dt mu s from the total mass and the pour adds lam dt (the pour always fits), so
# s_n = rho + (s_0 - rho) (1 - mu dt)^n = 1 - 0.75^n at the limit step.
ONE = PoolSystem((LogUtility(50.0),), (1.0,), 1.0, mu=2.0)
ONE_Q0 = np.array([[1.0, 0.0, 0.0]])


def test_the_splitting_step_limit_is_one_over_mu_times_the_deepest_level_inclusive():
    # Kills 343:7:cmp:0 (dt = 1 / (mu J) refused), 343:7:arith:0.2 (dt mu J read as
    # dt J / mu), 343:38:const:0 (dt mu J up to 2 accepted), 345:32:const:0 (the message's
    # limit 2 / (mu J)).
    from qtheory.utility.fluid import fluid_prefix

    assert int(fluid_prefix(ONE, ONE_Q0).level.max()) == 4
    n = np.arange(6)
    sol = solve_fluid_splitting(ONE, ONE_Q0, n * 0.125, 0.125)
    np.testing.assert_allclose(sol.total, 1 - 0.75**n, rtol=1e-14)
    above = 0.125 * (1 + 2.0**-10)
    with pytest.raises(ParameterError) as err:
        solve_fluid_splitting(ONE, ONE_Q0, [0.0, 1.0], above)
    assert f"`dt` = {above} must be <= 1 / (mu * deepest level) = 0.125 for" in str(err.value)


def test_a_splitting_output_half_way_between_grid_times_is_the_earlier_state():
    # Kills 353:36:cmp:0 (the tie t = (n + 1/2) dt given the later grid state). Each output
    # is the state at the nearest grid time n dt, the earlier at a tie; with dt = 1/8 the
    # ties 1/16 and 3/16 are exact. Totals from s_n = 1 - 0.75^n.
    t = np.array([0.0625, 0.1875, 2.4 * 0.125, 3.6 * 0.125])
    sol = solve_fluid_splitting(ONE, ONE_Q0, t, 0.125)
    np.testing.assert_allclose(sol.total, 1 - 0.75 ** np.array([0, 1, 2, 4]), rtol=1e-14)


def test_the_splitting_scheme_reports_the_rank_of_sigma():
    # Kills 355:25:arith:0 and 355:41:const:0 (the reported rank active - 1, active + 2).
    # From q = 0 the scheme pours in rank order and departures only lower the coordinates
    # it has filled, which the next pour fills again first: after each step the first
    # floor(s_n / alpha) coordinates are full and the next one holds the rest (alpha = 1/2
    # for both classes of SYS). At rho = 9.75 the inflow left for it is positive, so its
    # rank floor(2 s_n) + 1 is sigma's, with s_n = rho (1 - (1 - dt)^n) (mu = 1); at n = 0
    # nothing is full and sigma is the first coordinate.
    dt = 1 / 64
    n = np.array([0, 8, 40, 100, 200, 300])
    s = SYS.rho * (1 - (1 - dt) ** n)
    assert np.all(np.abs(2 * s[1:] - np.round(2 * s[1:])) > 1e-3)  # no output near a switch
    sol = solve_fluid_splitting(SYS, np.array([[0.5, 0.0], [0.5, 0.0]]), n * dt, dt)
    np.testing.assert_allclose(sol.total, s, rtol=1e-12)
    np.testing.assert_array_equal(sol.sigma_rank, np.floor(2 * s).astype(int) + 1)


def test_a_slow_starve_moves_sigma_up_one_rank_and_keeps_it_there():
    # Kills 315:31:arith:0 (after a starve, sigma = min(active, a + 1) instead of
    # min(active, a - 1)). rho = 1/2 - eps with eps = 1e-11, (1,1) full, q(1,2)(0) = 0.3:
    # while (0,1) is sigma, Lambda(t) = -eps + 0.3 e^{-2t}, which reaches 0 at
    # t* = log(0.3 / eps) / 2 with the tiny slope -2 eps, too slow for `active`'s
    # tangential rule (|Lambda'| > 1e-10): only the starve branch itself moves sigma up.
    # Afterwards Lambda < 0 for good, so (1,1) cannot be kept full: sigma = (1,1), rank 1,
    # and q(1,1) falls towards rho. The event is located where Lambda has overshot to
    # -_TOL = -1e-12 (see solve_fluid), at t = log(0.3 / (eps - 1e-12)) / 2, 0.05 after t*.
    eps = 1e-11
    system = _two_class(0.5 - eps)
    q0 = np.array([[0.5, 0.0, 0.0], [0.5, 0.5, 0.3]])
    t = np.array([11.0, 13.0, 20.0])
    sol = solve_fluid(system, q0, t)
    assert [(kind, rank) for _, kind, rank in sol.events] == [("starve", 1)]
    assert sol.events[0][0] == pytest.approx(np.log(0.3 / (eps - 1e-12)) / 2, abs=1e-4)
    assert list(sol.sigma_rank) == [2, 1, 1]
    np.testing.assert_allclose(sol.q[:, 1, 2], 0.3 * np.exp(-2 * t), rtol=1e-8)
    assert sol.q[0, 1, 1] == 0.5 and np.all(sol.q[1:, 1, 1] < 0.5)


@pytest.mark.parametrize("case", ["one class", "Lambda below 0 and steady", "Lambda 0 and falling slowly"])
def test_at_a_small_mu_the_inflow_left_is_judged_in_units_of_mu(case):
    # benchmarks/mutation/README.md, "(2) `_Prefix.active`'s tolerances". mu = 0.01, and a
    # start whose full coordinate cannot stay full by (12b), so it is sigma (rank 1) from
    # t = 0 with no switch, in closed form (exact up to round-off: 1e-12):
    # - one class, rho = 1 - 5e-9, level 1 full: the inflow left for level 2 is
    #   Lambda = lam - mu = -5e-11 < 0; q(t, 1) = rho + (1 - rho) e^{-mu t};
    # - SYS's classes (rank (1,1), (0,1), (1,2), ...), rho = 1/2 - 5e-9, (1,1) full, nothing
    #   else: Lambda = lam - mu alpha(1) = -5e-11 for (0,1), constant; q(t, 1, 1) as above
    #   with 1/2 for 1;
    # - the same with rho = 1/2 - b, q(1,2) = b = 1e-9: Lambda = 0, falling at -2 b mu^2 =
    #   -2e-13; q(t, 1, 2) = b e^{-2 mu t} and q(t, 1, 1) = 1/2 - b (1 - e^{-mu t})^2.
    # With tolerances of 1e-10 in absolute terms (in units of mu: 1e-12 and 1e-14 here) the
    # first two Lambdas were taken as 0 and the third as steady: sigma went to the next rank,
    # which drifted towards Lambda / (j mu) and left Q (the solver stopped with "left Q" on
    # the first start), or a starve event followed.
    mu = 0.01
    t = np.linspace(0.0, 2000.0, 41)
    decay = np.exp(-mu * t)
    if case == "one class":
        rho = 1.0 - 5e-9
        system, q0 = PoolSystem((LogUtility(20),), (1.0,), rho, mu=mu), [[1.0, 1.0, 0.0]]
        closed = {(0, 1): rho + (1.0 - rho) * decay}
    elif case == "Lambda below 0 and steady":
        rho = 0.5 - 5e-9
        system, q0 = _two_class(rho, mu), [[0.5, 0.0, 0.0], [0.5, 0.5, 0.0]]
        closed = {(1, 1): rho + (0.5 - rho) * decay}
    else:
        b = 1e-9
        system, q0 = _two_class(0.5 - b, mu), [[0.5, 0.0, 0.0], [0.5, 0.5, b]]
        closed = {(1, 1): 0.5 - b * (1.0 - decay) ** 2, (1, 2): b * decay ** 2}
    sol = solve_fluid(system, np.array(q0), t)
    assert sol.events == [] and np.all(sol.sigma_rank == 1)
    expected = np.zeros_like(sol.q)
    expected[:, :, 0] = system.alpha
    for (i, j), values in closed.items():
        expected[:, i, j] = values
    np.testing.assert_allclose(sol.q, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("fault", ["below sigma, losing mass", "above sigma, gaining mass"])
def test_a_propagation_that_leaves_Q_stops_the_solver_with_its_message(monkeypatch, fault):
    # Kills 305:15:bool:0, 305:15:drop:0 and 305:15:drop:1 (the solver's check that every
    # step ends in Q weakened to both bounds at once or to one of them). A correct
    # propagation never leaves Q, so the fault is injected: the generator of the linear
    # dynamics gets a constant drift of rate 1 on a coordinate the switching functions do
    # not read: the last coordinate of the prefix (empty, below sigma), or (1,1) (full,
    # above sigma = (0,1) at this start, rank 1 and the next level of no coordinate). Over
    # the first step (0.1 / (mu J), far above 1e-9) it leaves [0, alpha] by more than the
    # check's 1e-9 before any switch (q(0,1) needs about 0.05 to fill), and the solver must
    # stop with its message instead of returning a state outside Q.
    import qtheory.utility.fluid as fluid

    generator = fluid._Prefix.generator

    def faulty(self, a):
        M = generator(self, a)
        if fault.startswith("below"):
            M[self.K - 1, self.K] -= 1.0
        else:
            M[0, self.K] += 1.0
        return M

    monkeypatch.setattr(fluid._Prefix, "generator", faulty)
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    q0[1, 1] = 0.5
    with pytest.raises(ParameterError, match="fluid solver left Q"):
        solve_fluid(SYS, q0, [0.0, 1.0])


@pytest.mark.parametrize("levels", [3, 40])
def test_a_start_check_state_admits_is_not_reported_as_leaving_q(levels):
    # check_state lets q[:, 0] be 1e-9 from alpha and a level 1e-12 above the one before, so a
    # full level-1 coordinate may start 1.0008e-9 above alpha and stays there while full; the
    # solver's "left Q" check used to refuse it at the first step (an internal error on a valid
    # input). The total mass still follows s(t) = rho + (s(0) - rho) e^{-mu t} (module docstring).
    q0 = np.zeros((2, levels + 1))
    q0[:, 0] = 0.5
    q0[1, 0] = 0.5 + 9.999e-10
    q0[1, 1] = q0[1, 0] + 9e-13
    sol = solve_fluid(SYS, q0, [0.0, 0.01, 1.0])
    s0 = q0[:, 1:].sum()
    rho = SYS.lam / SYS.mu
    expected = rho + (s0 - rho) * np.exp(-SYS.mu * 1.0)
    assert abs(sol.q[-1][:, 1:].sum() - expected) < 1e-8
