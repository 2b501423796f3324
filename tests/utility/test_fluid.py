"""The fluid model (12): exact solver, uniqueness (Theorem 3), global attraction (Theorem 4)."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import (LogUtility, PoolSystem, l1_distance, optimal_assignment, solve_fluid,
                             solve_fluid_splitting, table1_system)
from qtheory.utility.fluid import _Prefix, fluid_prefix


def empty(sys, depth=2):
    q = np.zeros((sys.m, depth + 1))
    q[:, 0] = sys.alpha
    return q


def full(sys, level):
    q = np.zeros((sys.m, level + 2))
    q[:, : level + 1] = np.array(sys.alpha)[:, None]
    return q


def test_single_class_from_empty_fills_levels_one_after_another():
    # one class: q(t, j) = min(1, max(0, s(t) - (j - 1))) with s(t) = rho (1 - e^{-mu t})
    sys = PoolSystem((LogUtility(50.0),), (1.0,), 3.4, mu=1.3)
    t = np.linspace(0, 6, 61)
    sol = solve_fluid(sys, empty(sys), t)
    s = 3.4 * (1 - np.exp(-1.3 * t))
    J = sol.q.shape[2] - 1
    closed = np.clip(s[:, None] - np.arange(J)[None, :], 0, 1)
    np.testing.assert_allclose(sol.q[:, 0, 1:], closed, atol=1e-10)


def test_from_empty_the_trajectory_is_the_optimal_assignment_of_the_current_mass():
    # below the load the mass grows and (12) pours it in rank order: q(t) = q*(s(t))
    sys = table1_system(9.75)
    t = np.linspace(0.01, 8, 60)
    sol = solve_fluid(sys, empty(sys), t)
    np.testing.assert_allclose(sol.total, 9.75 * (1 - np.exp(-t)), rtol=1e-10)
    for k in range(t.size):
        assert l1_distance(sol.q[k], optimal_assignment(sys, sol.total[k]).q) < 1e-9


def test_total_mass_solves_s_dot_equals_lambda_minus_mu_s_from_an_overloaded_start():
    sys = table1_system(10.0)
    t = np.linspace(0, 6, 31)
    sol = solve_fluid(sys, full(sys, 20), t)
    np.testing.assert_allclose(sol.total, 10 + 10 * np.exp(-t), rtol=1e-10)
    assert any(kind == "starve" for _, kind, _ in sol.events)


def test_coordinates_above_sigma_are_full_and_inflow_is_nonnegative_along_the_path():
    sys = table1_system(9.75)
    q0 = full(sys, 15)
    q0[1, 3:] = 0.0  # class 2 pools start with 2 tasks, class 1 with 15
    t = np.linspace(0, 5, 101)
    sol = solve_fluid(sys, q0, t)
    pre = _Prefix(sys, sol.enumeration)
    for k in range(1, t.size):
        x = pre.to_vector(sol.q[k])
        a = int(sol.sigma_rank[k]) - 1
        np.testing.assert_allclose(x[:a], pre.alpha[:a], atol=1e-9)
        assert pre.inflow_left(x, a) >= -1e-8  # (12b)


@pytest.mark.parametrize("start", ["empty", "full20", "mixed"])
def test_splitting_scheme_converges_to_the_exact_solution_at_first_order(start):
    sys = table1_system(10.0)
    q0 = {"empty": empty(sys), "full20": full(sys, 20)}.get(start)
    if q0 is None:
        q0 = full(sys, 14)
        q0[0, 4:] = 0.0
    t = np.linspace(0, 3, 31)
    exact = solve_fluid(sys, q0, t)
    errs = [l1_distance(solve_fluid_splitting(sys, q0, t, dt).q, exact.q).max() for dt in (0.004, 0.002, 0.001)]
    assert errs[2] < errs[1] < errs[0]
    assert errs[0] / errs[2] == pytest.approx(4.0, rel=0.2)  # O(dt)
    assert errs[2] < 0.02


def test_optimal_assignment_is_an_equilibrium():
    for rho in (9.75, 10.0):
        sys = table1_system(rho)
        qs = optimal_assignment(sys).q
        sol = solve_fluid(sys, qs, np.linspace(0, 5, 11))
        assert l1_distance(sol.q, qs).max() < 1e-9


@pytest.mark.parametrize("rho", [9.75, 10.0])
def test_theorem4_every_start_converges_to_q_star_in_l1(rho):
    sys = table1_system(rho)
    qs = optimal_assignment(sys).q
    mixed = full(sys, 3)
    mixed[1, :] = 0.0
    mixed[1, 0] = 0.5
    mixed = np.concatenate([mixed, np.zeros((2, 30))], axis=1)
    mixed[1, 1:31] = 0.5  # class 2 pools start with 30 tasks, class 1 with 3
    t = np.array([0.0, 5.0, 10.0, 20.0])
    for q0 in (empty(sys), full(sys, 25), mixed):
        d = l1_distance(solve_fluid(sys, q0, t).q, qs)
        assert np.all(np.diff(d) < 0)
        assert d[-1] < 25 * np.exp(-20 + 1) + 1e-6  # the mass gap decays like e^{-mu t}


# starts whose decisions hinge on the tolerances of the inflow left Lambda (_Prefix.active);
# the classes of two-class starts rank (1,1), (0,1), (1,2), ... (test_mutants_fluid.py)
UNIT_FREE_STARTS = {
    # level 1 full: Lambda = -5e-9 mu for level 2 (benchmarks/mutation/README.md), falling
    "one class, level 1 full": (((LogUtility(50.0),), (1.0,), 1.0 - 5e-9), [[1.0, 1.0, 0.0]]),
    # (1,1) full and nothing below: Lambda = -5e-9 mu for (0,1), constant, so (1,1) is sigma
    "Lambda below 0 and steady": (((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.5 - 5e-9),
                                  [[0.5, 0.0, 0.0], [0.5, 0.5, 0.0]]),
    # (1,1) full, q(1,2) = 1e-9: Lambda = 0 for (0,1), falling at 2e-9 mu^2, so (1,1) is sigma
    "Lambda 0 and falling slowly": (((LogUtility(20), LogUtility(30)), (0.5, 0.5), 0.5 - 1e-9),
                                    [[0.5, 0.0, 0.0], [0.5, 0.5, 1e-9]]),
    "four fills": (((LogUtility(20), LogUtility(30)), (0.5, 0.5), 2.3),
                   [[0.5, 0.5, 0.5, 0.2, 0.0], [0.5, 0.1, 0.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("mu", [1e-6, 0.01, 100.0])
@pytest.mark.parametrize("start", sorted(UNIT_FREE_STARTS))
def test_the_solution_does_not_depend_on_the_unit_of_time(start, mu):
    # (12) at service rate mu is (12) at mu = 1 with time measured in units of 1 / mu:
    # q_mu(t) = q_1(mu t), with the same switches of sigma. The solver's default step scales
    # the same way, so the two runs differ by round-off (1e-12 allows 1e-16 per step over the
    # few hundred steps); absolute tolerances on the rates would break this at small mu.
    (utilities, alpha, rho), q0 = UNIT_FREE_STARTS[start]
    tau = np.linspace(0.0, 5.0, 21)
    ref = solve_fluid(PoolSystem(utilities, alpha, rho), np.array(q0), tau)
    sol = solve_fluid(PoolSystem(utilities, alpha, rho, mu=mu), np.array(q0), tau / mu)
    assert [(kind, rank) for _, kind, rank in sol.events] == [(kind, rank) for _, kind, rank in ref.events]
    # events are located by brentq to 1e-14 of a step
    np.testing.assert_allclose([mu * s for s, _, _ in sol.events], [s for s, _, _ in ref.events], rtol=1e-9)
    np.testing.assert_array_equal(sol.sigma_rank, ref.sigma_rank)
    np.testing.assert_allclose(sol.q, ref.q, rtol=0, atol=1e-12)


def test_bad_initial_state_is_rejected():
    sys = table1_system()
    q = empty(sys)
    q[0, 2] = 0.3
    with pytest.raises(ParameterError, match="non-increasing"):
        solve_fluid(sys, q, [0.0, 1.0])
    with pytest.raises(ParameterError, match="class fractions"):
        solve_fluid(sys, np.zeros((2, 3)), [0.0, 1.0])
