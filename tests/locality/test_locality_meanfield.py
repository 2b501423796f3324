"""ODE (3.7), its fixed point (Theorem 4), tails (Theorem 7), homogeneous formula (L-X-homog)."""

import numpy as np
import pytest

from qtheory.errors import InstabilityError, ParameterError
from qtheory.locality.meanfield import (drift, fixed_point, homogeneous_fixed_point, log_tail, refined_tail,
                                        solve_meanfield, tail_decay_ratios)
from qtheory.locality.model import LocalitySystem, paper_initial_occupancy, paper_system
from qtheory.locality.stability import type_loads


def homogeneous(load, d, K=1, M=1):
    return LocalitySystem(load, 1.0, np.full(K, 1 / K), np.full(M, 1 / M), np.ones(M), np.ones((K, M)), d)


@pytest.mark.parametrize("load, d", [(0.5, 2), (0.9, 2), (0.8, 3), (0.7, 1)])
def test_homogeneous_fixed_point_is_doubly_exponential(load, d):
    fp = fixed_point(homogeneous(load, d))
    exact = homogeneous_fixed_point(load, d, fp.q.shape[1])
    assert np.allclose(fp.q[0], exact, atol=1e-13)
    if d == 1:
        return
    q = refined_tail(homogeneous(load, d), fp)
    exact = homogeneous_fixed_point(load, d, q.shape[1])
    keep = exact > 1e-280
    # relative accuracy at every level, far below the root solve's absolute 1e-16
    assert np.allclose(q[0][keep], exact[keep], rtol=1e-12, atol=0)


def test_identical_types_and_full_flexibility_reduce_to_the_homogeneous_formula():
    s = homogeneous(0.85, 2, K=2, M=3)
    fp = fixed_point(s)
    for m in range(3):
        assert np.allclose(fp.q[m], homogeneous_fixed_point(0.85, 2, fp.q.shape[1]), atol=1e-13)


def test_drift_is_zero_at_the_homogeneous_fixed_point_and_matches_hand_formula():
    s = homogeneous(0.6, 2)
    q = homogeneous_fixed_point(0.6, 2, 30)[None, :]
    assert np.max(np.abs(drift(s, q))) < 1e-15
    # single type: dq_l/dt = -(q_l - q_{l+1}) + lambda (q_{l-1}^2 - q_l^2)
    x = np.array([[0.7, 0.4, 0.1]])
    qp = np.array([1.0, 0.7, 0.4, 0.1, 0.0])
    hand = -(qp[1:4] - qp[2:5]) + 0.6 * (qp[0:3] ** 2 - qp[1:4] ** 2)
    assert np.allclose(drift(s, x)[0], hand)


def test_drift_of_a_two_type_system_matches_direct_sampling_formula():
    s = paper_system()
    rng = np.random.default_rng(0)
    q = np.sort(rng.random((3, 4)), axis=1)[:, ::-1]
    qp = np.hstack([np.ones((3, 1)), q, np.zeros((3, 1))])
    hand = np.zeros((3, 4))
    r = s.neighbourhood_shares
    for m in range(3):
        for l in range(1, 5):
            arr = 0.0
            for k in range(2):
                # prob. that the shorter of two i.i.d. picks from cluster k's view is a type-m
                # server with exactly l-1 tasks: 2 x * P(other >= l-1) - x^2
                x = r[k, m] * (qp[m, l - 1] - qp[m, l])
                other = r[k] @ qp[:, l - 1]
                longer = r[k] @ qp[:, l]
                # one pick is (m, l-1) and the other longer, either order; or both have
                # l-1 tasks and the fair tie-break picks the (m, l-1) one
                arr += s.w[k] * (2 * x * longer + x * (other - longer))
            hand[m, l - 1] = s.total_arrival_rate * arr / s.v[m] - s.u[m] * (qp[m, l] - qp[m, l + 1])
    assert np.allclose(drift(s, q), hand, atol=1e-12)


def test_fixed_point_agrees_with_long_integration_from_every_start():
    s = paper_system()
    fp = fixed_point(s)
    assert fp.residual < 1e-12 and abs(fp.flow_balance) < 1e-12
    starts = [paper_initial_occupancy(n, r) for n in ("Q", "Q1", "Q2") for r in ("lengths-1-3", "lengths-0-2")]
    starts += [np.zeros((3, 1)), np.full((3, 12), 1.0)]   # empty, and everyone with 12 tasks
    for q0 in starts:
        sol = solve_meanfield(s, q0, [0.0, 60.0])
        L = min(sol.q.shape[2], fp.q.shape[1])
        assert np.allclose(sol.q[-1][:, :L], fp.q[:, :L], atol=1e-8)


def test_truncation_error_is_reported_and_doubling_levels_changes_nothing():
    s = paper_system()
    q0 = paper_initial_occupancy("Q")
    a = solve_meanfield(s, q0, np.linspace(0, 5, 11), levels=8, tol=1e-9)
    b = solve_meanfield(s, q0, np.linspace(0, 5, 11), levels=32, tol=1e-9)
    assert a.truncation_error <= 1e-9 and a.levels >= 8
    assert np.allclose(a.q, b.q[:, :, :a.levels], atol=1e-8)


def test_mean_field_of_the_unstable_complete_graph_grows_at_the_predicted_rate():
    s = paper_system("complete")
    sol = solve_meanfield(s, paper_initial_occupancy("Q"), np.array([0.0, 20.0, 30.0]), tol=1e-8)
    slope = (sol.mean_queue_length[2, 0] - sol.mean_queue_length[1, 0]) / 10.0
    # type 1 gets lambda zeta v_1^2 / v_1 = 1.5 per server once it is the longest, serves 1
    assert slope == pytest.approx(0.5, abs=0.02)
    with pytest.raises(InstabilityError):
        fixed_point(s)


def test_theorem7_tail_ratios_tend_to_d_and_to_one_for_random_routing():
    s = paper_system()
    q = refined_tail(s, fixed_point(s))
    ratios = tail_decay_ratios(q)
    deep = ratios[:, 6:9]
    assert np.all(np.abs(deep - 2.0) < 0.05)
    s1 = s.with_d(1)
    q1 = fixed_point(s1).q
    assert np.allclose(q1, type_loads(s1)[:, None] ** np.arange(1, q1.shape[1] + 1), atol=1e-12)
    r1 = tail_decay_ratios(q1[:, :40])
    assert np.all(np.abs(r1[:, 20:39] - 1.0) < 0.06)


def test_bad_initial_state_is_rejected():
    with pytest.raises(ParameterError, match="non-increasing"):
        solve_meanfield(paper_system(), [[0.2, 0.5], [0.1, 0.0], [0.0, 0.0]], [0.0, 1.0])
    with pytest.raises(ParameterError, match="one row per server type"):
        solve_meanfield(paper_system(), [[0.2]], [0.0, 1.0])


def test_times_must_increase_strictly():
    q0 = paper_initial_occupancy("Q")
    for t_eval in ([0.0, 1.0, 1.0], [0.0, 2.0, 1.0], []):
        with pytest.raises(ParameterError, match="increasing"):
            solve_meanfield(paper_system(), q0, t_eval)


def test_tail_ratios_are_nan_where_a_tail_is_zero_or_one():
    q = np.array([[1.0, 0.5, 0.25, 0.0, 0.0], [0.0, 0.5, 0.5, 0.25, 0.125]])
    r = tail_decay_ratios(q)
    assert r[0, 1] == pytest.approx(2.0)          # log 0.25 / log 0.5
    assert r[1, 2] == pytest.approx(2.0) and r[1, 3] == pytest.approx(1.5)
    # a 1 below, a 0 above or below: no ratio
    assert np.isnan(r[0, 0]) and np.isnan(r[0, 2]) and np.isnan(r[0, 3]) and np.isnan(r[1, 0])


@pytest.mark.parametrize("load, d", [(0.5, 2), (0.9, 2), (0.8, 3)])
def test_log_tail_keeps_relative_accuracy_where_the_tail_underflows(load, d):
    # independent closed form: log q_l = (d^l - 1)/(d - 1) log rho (Mitzenmacher's fixed point)
    s = homogeneous(load, d)
    levels = 14 if d == 2 else 10
    lt = log_tail(s, fixed_point(s), levels)
    l = np.arange(1, levels + 1)
    exact = (float(d) ** l - 1) / (d - 1) * np.log(load)
    assert np.exp(exact[-1]) == 0.0   # the deepest levels lie below double precision
    assert np.all(np.isfinite(lt))
    assert np.allclose(lt[0], exact, rtol=1e-10, atol=0)


def test_log_tail_agrees_with_refined_tail_on_the_paper_system():
    s = paper_system()
    fp = fixed_point(s)
    q = refined_tail(s, fp)
    lt = log_tail(s, fp, q.shape[1])
    keep = q > 1e-250
    assert np.allclose(lt[keep], np.log(q[keep]), rtol=1e-9, atol=0)
    assert np.all(np.isfinite(lt))


def test_log_tail_rejects_random_routing_and_foreign_fixed_points():
    with pytest.raises(ParameterError, match="d >= 2"):
        log_tail(homogeneous(0.5, 1), fixed_point(homogeneous(0.5, 1)), 5)
    with pytest.raises(ParameterError, match="fp"):
        log_tail(homogeneous(0.5, 2), None, 5)
    with pytest.raises(ParameterError, match="levels"):
        log_tail(homogeneous(0.5, 2), fixed_point(homogeneous(0.5, 2)), 0)


def test_a_one_time_grid_returns_the_start_from_every_solver():
    """One time is a grid (``n_times = 1`` on a page): the path is the start, in the solvers' shapes.
    scipy's solver over the empty span returns a list, and all three solvers once crashed on it."""
    from qtheory.locality import graphmf, refined
    from qtheory.locality.graphs import complete_bipartite

    system = paper_system()
    q0 = paper_initial_occupancy("Q")
    sol = solve_meanfield(system, q0, [2.5])
    assert sol.q.shape[0] == 1 and sol.t.tolist() == [2.5]
    np.testing.assert_array_equal(sol.q[0, :, :q0.shape[1]], q0)
    assert not sol.q[0, :, q0.shape[1]:].any()
    tr = refined.refined_transient(system, q0, [0.0], start="deterministic")
    np.testing.assert_array_equal(tr.q[0, :, :q0.shape[1]], q0)
    assert not tr.V.any() and not tr.variance.any()
    homog = LocalitySystem.homogeneous(0.5, 2)
    graph = complete_bipartite(homog, 4)
    x0 = graphmf.per_server_tails(graph, np.array([[0.5, 0.25]]))
    gsol = graphmf.solve(homog, graph, x0, [1.0])
    np.testing.assert_array_equal(gsol.x[0, :, :2], x0)
