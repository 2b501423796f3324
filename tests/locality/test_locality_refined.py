"""The refined mean-field approximation of paper L's population processes (beyond the paper).

Every route is checked against another: the drift against ODE (3.7) and against an
enumeration of the sampled servers, the derivatives against finite differences, V against
rmftool and against exact finite chains extrapolated in 1/N, and against simulation.
"""

import numpy as np
import pytest

from qtheory.errors import InstabilityError, ParameterError
from qtheory.locality import exact, refined
from qtheory.locality.experiments import population_stationary_replication
from qtheory.locality.graphs import complete_bipartite, irg
from qtheory.locality.meanfield import drift as ode_drift
from qtheory.locality.policies import JIQ, LocalJSQ
from qtheory.locality.model import LocalitySystem, paper_initial_occupancy, paper_system, system_sizes
from qtheory.locality.stability import design_compatibility
from qtheory.runtime import child_seed, replicate
from qtheory.stats import mean_ci

SEED = 20240917


def homogeneous(load, d=2):
    return LocalitySystem(load, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), d)


def three_type_system(d=3):
    """A system unlike Sec. 6 (d = 3, three clusters) to exercise every index."""
    return LocalitySystem(1.1, 1.0, (0.3, 0.3, 0.4), (0.4, 0.35, 0.25), (1.0, 2.0, 3.0),
                          ((0.2, 1.0, 0.5), (1.0, 0.4, 0.9), (0.6, 0.6, 0.0)), d)


def random_state(rng, M, L):
    return -np.sort(-rng.random((M, L)), axis=1)


# -- the population process ------------------------------------------------------------
@pytest.mark.parametrize("system", [paper_system(), three_type_system(), homogeneous(0.9, 3)])
def test_population_drift_is_the_right_side_of_ode_37(system):
    rng = np.random.default_rng(1)
    for _ in range(3):
        q = random_state(rng, system.n_types, 7)
        expected = ode_drift(system, q)
        np.testing.assert_allclose(refined.drift(system, q), expected, atol=1e-13)
        np.testing.assert_allclose(refined.transitions(system, q).drift.reshape(q.shape), expected, atol=1e-13)
        # GWSQ with independent draws: no 1/N term at any N
        np.testing.assert_allclose(refined.finite_drift(system, q, 7), expected, atol=1e-13)


def enumerated_local_drift(system, counts_state, d):
    """E[dq/dt] of local JSQ(d) on the complete graph by listing every ordered sample."""
    graph = complete_bipartite(system, counts_state.size)
    sizes = np.bincount(graph.server_type, minlength=system.n_types)
    L = counts_state.max() + 1
    out = np.zeros((system.n_types, L))
    cands = exact.local_candidates(graph.neighbourhood(0), d)
    for tup, prob in cands:
        target = tup[int(np.argmin(counts_state[list(tup)]))]
        m = graph.server_type[target]
        out[m, counts_state[target]] += system.arrival_rate * graph.n_dispatchers * prob / sizes[m]
    for j, x in enumerate(counts_state):
        if x > 0:
            m = graph.server_type[j]
            out[m, x - 1] -= system.u[m] / sizes[m]
    return out


@pytest.mark.parametrize("d", [2, 3])
def test_finite_drift_of_local_jsqd_matches_an_enumeration_of_distinct_samples(d):
    system = LocalitySystem(0.8, 1.0, (1.0,), (0.4, 0.6), (1.0, 2.0), ((1.0, 1.0),), d)
    state = np.array([0, 2, 1, 1, 3])            # types 0 0 1 1 1 (servers numbered type by type)
    graph = complete_bipartite(system, state.size)
    q = np.zeros((2, 4))
    for m in range(2):
        xs = state[graph.server_type == m]
        q[m] = [(xs >= l).mean() for l in range(1, 5)]
    expected = enumerated_local_drift(system, state, d)
    got = refined.finite_drift(system, q, state.size, policy="jsqd")
    np.testing.assert_allclose(got, expected, atol=1e-12)
    # with replacement (GWSQ) the same state drifts differently
    assert np.abs(refined.finite_drift(system, q, state.size) - expected).max() > 0.01


def test_drift_correction_is_the_1_over_n_term_of_sampling_without_replacement():
    system = homogeneous(0.9, 3)
    q = random_state(np.random.default_rng(2), 1, 6)
    f0 = refined.drift(system, q, policy="jsqd")
    f1 = refined.drift_correction(system, q, policy="jsqd")
    assert np.abs(f1).max() > 0.05
    for n in (1000, 100000):
        remainder = refined.finite_drift(system, q, n, policy="jsqd") - f0 - f1 / n
        assert np.abs(remainder).max() < 20.0 / n ** 2       # O(1/N^2)
    assert np.all(refined.drift_correction(system, q) == 0.0)   # GWSQ


@pytest.mark.parametrize("system", [paper_system(), three_type_system()])
def test_jacobian_and_hessian_match_finite_differences(system):
    rng = np.random.default_rng(3)
    q = random_state(rng, system.n_types, 5)
    x = q.ravel()
    n = x.size

    def f(y):
        return refined.drift(system, y.reshape(q.shape)).ravel()

    def jac(y):
        return refined.jacobian(system, y.reshape(q.shape))

    eps = 1e-6
    fd_jac = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(n)]).T
    A = refined.jacobian(system, q)
    np.testing.assert_allclose(A, fd_jac, atol=1e-7)
    eps = 1e-5
    fd_hess = np.array([(jac(x + eps * e) - jac(x - eps * e)) / (2 * eps) for e in np.eye(n)]).transpose(1, 2, 0)
    B = refined.hessian(system, q)
    np.testing.assert_allclose(B, fd_hess, atol=1e-7)
    np.testing.assert_allclose(B, B.transpose(0, 2, 1), atol=1e-12)
    # the vectorised Jacobian and contraction B:W used along trajectories
    W = rng.standard_normal((n, n))
    W = W + W.T
    J2, BW = refined._fast_jacobian_contract(system, q, refined._selection_polynomial(system.d, "limit"), W)
    np.testing.assert_allclose(J2, A, atol=1e-12)
    np.testing.assert_allclose(BW, np.einsum("ijk,jk->i", B, W), atol=1e-11)


def test_jump_covariance_is_diagonal_and_matches_the_transitions():
    system = paper_system()
    q = random_state(np.random.default_rng(4), 3, 5)
    tr = refined.transitions(system, q)
    Q = refined.jump_covariance(system, q)
    np.testing.assert_allclose(tr.covariance, Q, atol=1e-13)
    assert np.all(Q == np.diag(np.diag(Q)))
    assert np.all(tr.rates >= 0)


def test_iid_covariance_is_the_covariance_of_sampled_initial_occupancies():
    system = paper_system()
    q0 = paper_initial_occupancy("Q", "lengths-0-2")
    n_servers, reps = 20, 20000
    sizes = system_sizes(system, n_servers).servers_per_type
    rng = np.random.default_rng(5)
    samples = []
    for m, size in enumerate(sizes):
        u = rng.random((reps, size))
        lengths = (u[:, :, None] < q0[m][None, None, :]).sum(axis=2)
        samples.append(np.stack([(lengths >= l).mean(axis=1) for l in range(1, q0.shape[1] + 1)], axis=1))
    emp = np.cov(np.hstack(samples).T) * n_servers
    W0 = refined.iid_covariance(system, q0)
    # each entry is a sample covariance of 20000 draws: relative SE about 1/sqrt(10000)
    np.testing.assert_allclose(emp, W0, atol=0.05 * np.abs(W0).max())
    assert np.all(W0[:2, 2:4] == 0.0)          # different types are independent


# -- stationary V ----------------------------------------------------------------------
def rmftool_jsqd(load, levels, d=2):
    rmf = pytest.importorskip("rmftool")
    model = rmf.DDPP()
    for i in range(levels):
        e = np.zeros(levels)
        e[i] = 1.0
        if i == 0:
            model.add_transition(e, lambda x, i=i: load * (1 - x[0] ** d))
        else:
            model.add_transition(e, lambda x, i=i: load * (x[i - 1] ** d - x[i] ** d))
        if i < levels - 1:
            model.add_transition(-e, lambda x, i=i: x[i] - x[i + 1])
        else:
            model.add_transition(-e, lambda x, i=i: x[i])
    model.set_initial_state(np.zeros(levels))
    return model


@pytest.mark.parametrize("load", [0.7, 0.9, 0.95])
def test_homogeneous_jsq2_refined_term_matches_rmftool(load):
    ours = refined.refined_stationary(homogeneous(load))
    levels = ours.levels
    pi, V, _ = rmftool_jsqd(load, levels).meanFieldExpansionSteadyState(order=1)
    np.testing.assert_allclose(ours.q[0], pi, atol=1e-7)         # rmftool's ODE-based fixed point
    np.testing.assert_allclose(ours.V[0], V, atol=1e-6 * max(1.0, np.abs(V).max()))


def test_transient_refined_term_matches_rmftool_equations():
    pytest.importorskip("rmftool")
    from scipy.integrate import solve_ivp
    from rmftool import refinedRefined_transientRegime as rr

    load, levels = 0.9, 10
    model = rmftool_jsqd(load, levels)
    x0 = np.zeros(levels)
    x0[:3] = (1.0, 1.0, 0.5)
    F = model.defineDrift()
    Fp, Fpp, Qf = model.defineDriftDerivativeQ()
    y0 = np.zeros(2 * levels + levels ** 2)
    y0[:levels] = x0
    times = np.array([0.0, 0.5, 1.5, 3.0])
    sol = solve_ivp(lambda _t, y: rr.drift_r_vector(y, levels, F, Fp, Fpp, Qf), (0, 3), y0, t_eval=times,
                    rtol=1e-10, atol=1e-12)
    theirs = sol.y.T[:, levels:2 * levels]
    ours = refined.refined_transient(homogeneous(load), x0[None, :4], times, start="deterministic")
    assert np.abs(theirs[-1]).max() > 0.02
    np.testing.assert_allclose(ours.V[:, 0, :levels], theirs, atol=1e-7)


def exact_mean_lengths(system, policy, buffers):
    return {n: exact.occupancy_stationary(system, n, policy=policy, buffer=b) for n, b in buffers.items()}


@pytest.mark.parametrize("policy", ["gwsq", "jsqd"])
def test_refined_term_matches_exact_chains_extrapolated_in_1_over_n(policy):
    system = homogeneous(0.5)
    laws = exact_mean_lengths(system, policy, {2: 14, 3: 11, 4: 10, 5: 9, 6: 8})
    assert max(law.boundary_mass for law in laws.values()) < 1e-6
    ref = refined.refined_stationary(system, policy=policy)
    ns = np.array(sorted(laws), dtype=float)
    gap = np.array([laws[int(n)].mean_queue_length[0] for n in ns]) - ref.mean_queue_length()[0]
    fits = {}
    for order in (3, 4):                          # gap = V/N + c2/N^2 + ... + c_order/N^order
        X = np.stack([ns ** -k for k in range(1, order + 1)], axis=1)
        fits[order] = np.linalg.lstsq(X, gap, rcond=None)[0][0]
    V = ref.V[0].sum()
    # the two fits differ by the neglected higher orders; V must sit within twice that
    tolerance = max(2 * abs(fits[4] - fits[3]), 1e-3)
    assert abs(V - fits[4]) <= tolerance
    assert tolerance < 0.1 * abs(V)
    # the other policy's term (with / without the 1/N drift term f1) is rejected
    other = refined.refined_stationary(system, policy="gwsq" if policy != "gwsq" else "jsqd")
    assert abs(other.V[0].sum() - fits[4]) > 5 * tolerance


def test_local_jsqd_and_gwsq_differ_at_order_1_over_n_only_through_f1():
    system = homogeneous(0.9)
    gw = refined.refined_stationary(system)
    loc = refined.refined_stationary(system, policy="jsqd")
    np.testing.assert_allclose(gw.q, loc.q)
    A = refined.jacobian(system, gw.q)
    f1 = refined.drift_correction(system, gw.q, policy="jsqd").ravel()
    np.testing.assert_allclose((loc.V - gw.V).ravel(), -np.linalg.solve(A, f1), atol=1e-10)
    assert loc.V.sum() < gw.V.sum()      # distinct samples see more queues: shorter queues


def test_refined_term_keeps_the_flow_balance_of_every_finite_system():
    # sum_m v_m u_m E[q^N_{m,1}] = lambda zeta for every N, so the 1/N term must cancel
    system = paper_system()
    ref = refined.refined_stationary(system)
    assert abs(ref.V[:, 0] @ (system.v * system.u)) < 1e-9
    assert np.abs(ref.V[:, 0]).max() > 0.01
    assert abs(refined.refined_stationary(homogeneous(0.8)).V[0, 0]) < 1e-12


def test_random_routing_has_no_finite_n_correction():
    # d = 1: every queue is an independent M/M/1 queue, E[q^N_{m,l}] = rho_m^l at every N
    system = paper_system(d=1).with_compatibility(design_compatibility(paper_system()))   # loads 3/4
    ref = refined.refined_stationary(system, tol=1e-6)
    assert np.abs(ref.V).max() < 1e-12
    assert np.abs(refined.refined_stationary(system.with_d(2), tol=1e-6).V).max() > 0.1


def test_truncation_leaves_v_unchanged():
    ref = refined.refined_stationary(paper_system())
    assert ref.top_level <= 1e-13
    assert ref.truncation_change < 1e-10


def test_transient_refined_term_settles_at_the_stationary_one():
    system = homogeneous(0.7)
    stat = refined.refined_stationary(system)
    tr = refined.refined_transient(system, np.zeros((1, 1)), np.array([0.0, 80.0]), start="deterministic")
    L = min(stat.levels, tr.levels)
    np.testing.assert_allclose(tr.V[-1, 0, :L], stat.V[0, :L], atol=1e-6)
    np.testing.assert_allclose(tr.variance[-1].ravel()[:L], np.diag(stat.W)[:L], atol=1e-6)


def test_exact_occupancy_chain_matches_the_per_server_chain():
    system = LocalitySystem(0.8, 1.0, (0.5, 0.5), (0.5, 0.5), (1.0, 2.0), ((0.5, 1.0), (1.0, 0.3)), 2)
    n, buffer = 4, 4
    sizes = system_sizes(system, n)
    share = system.p * (sizes.servers_per_type / n)[None]
    share /= share.sum(axis=1, keepdims=True)
    cands = [exact.gwsq_candidates(sizes.server_type, share[k], 2) for k in sizes.dispatcher_cluster]
    states, pi = exact.stationary(cands, system.arrival_rate, system.u[sizes.server_type], buffer)
    per_server = exact.type_occupancy(states, pi, sizes.server_type, buffer)
    law = exact.occupancy_stationary(system, n, buffer=buffer)
    np.testing.assert_allclose(law.occupancy, per_server, atol=1e-12)
    complete = system.with_compatibility(np.ones((2, 2)))
    graph = complete_bipartite(complete, n)
    cands = [exact.local_candidates(graph.neighbourhood(i), 2) for i in range(graph.n_dispatchers)]
    states, pi = exact.stationary(cands, complete.arrival_rate, complete.u[sizes.server_type], buffer)
    law = exact.occupancy_stationary(complete, n, policy="jsqd", buffer=buffer)
    np.testing.assert_allclose(law.occupancy, exact.type_occupancy(states, pi, sizes.server_type, buffer),
                               atol=1e-12)


def test_simulation_agrees_with_the_refined_approximation_at_n50():
    system = paper_system()
    ref = refined.refined_stationary(system)
    runs = replicate(population_stationary_replication, 8, child_seed(SEED, "refined-sim", 50),
                     args=(system, 50, "gwsq", 50.0, 3000.0), kwargs={"n_samples": 3000, "levels": 2},
                     workers=1, progress=False)
    ci = mean_ci(np.array([np.concatenate([r.mean_queue_length, r.occupancy.ravel()]) for r in runs]))
    rmf = np.concatenate([ref.mean_queue_length(50), ref.occupancy(50)[:, :2].ravel()])
    mf = np.concatenate([ref.mean_queue_length(), ref.q[:, :2].ravel()])
    z_refined = np.abs(ci.mean - rmf) / ci.se
    z_meanfield = np.abs(ci.mean - mf) / ci.se
    # 9 quantities: 5 SE leaves a false-alarm chance below 1e-5
    assert z_refined.max() < 5.0
    assert z_meanfield.max() > 8.0           # the limit alone is rejected at N = 50


# -- bad input -------------------------------------------------------------------------
def test_unstable_systems_have_no_refined_stationary_approximation():
    with pytest.raises(InstabilityError, match="5.2"):
        refined.refined_stationary(paper_system("complete"))
    with pytest.raises(InstabilityError):
        refined.refined_stationary(homogeneous(1.0))


@pytest.mark.parametrize("n", [0, -3, 2.5, 10.0, True])
def test_system_size_must_be_a_positive_integer(n):
    ref = refined.refined_stationary(homogeneous(0.7))
    with pytest.raises(ParameterError, match="n_servers"):
        ref.occupancy(n)
    with pytest.raises(ParameterError, match="n_servers"):
        refined.finite_drift(homogeneous(0.7), ref.q, n, policy="jsqd")


def test_graphs_that_are_not_population_processes_are_refused():
    system = paper_system()
    graph = irg(system, 50, 1)
    with pytest.raises(ParameterError, match="not a population process"):
        refined.refined_stationary(system, policy=graph)
    with pytest.raises(ParameterError, match="compatibility"):
        refined.refined_stationary(system, policy="jsqd")
    with pytest.raises(ParameterError, match="policy"):
        refined.refined_stationary(system, policy="jsq")
    with pytest.raises(ParameterError, match="JIQ.*not a population process"):
        refined.refined_stationary(system, policy=JIQ())
    with pytest.raises(ParameterError, match="`policy.d` = 3"):
        refined.refined_stationary(homogeneous(0.7), policy=LocalJSQ(d=3))
    flexible = homogeneous(0.7)
    by_graph = refined.refined_stationary(flexible, policy=complete_bipartite(flexible, 20))
    assert by_graph.policy == LocalJSQ()


def test_transient_rejects_bad_times_and_starts():
    system = paper_system()
    q0 = paper_initial_occupancy("Q")
    with pytest.raises(ParameterError, match="t_eval"):
        refined.refined_transient(system, q0, [1.0, 0.5])
    with pytest.raises(ParameterError, match="start"):
        refined.refined_transient(system, q0, [0.0, 1.0], start="sorted")


def test_occupancy_summary_weights_the_types_by_their_fractions():
    from qtheory.locality.experiments import occupancy_summary

    occ = np.array([[0.5, 0.2, 0.1], [0.9, 0.4, 0.0]])
    out = occupancy_summary(occ, occ.sum(axis=1), [0.25, 0.75])
    assert out["mean"] == pytest.approx(0.25 * 0.8 + 0.75 * 1.3)
    assert (out["q[2,1]"], out["q[1,2]"], out["mean[2]"]) == (0.9, 0.2, 1.3)
    assert list(out)[:4] == ["mean", "mean[1]", "q[1,1]", "q[1,2]"]
    with pytest.raises(ParameterError, match="two levels"):
        occupancy_summary(occ[:, :1], occ.sum(axis=1), [0.25, 0.75])


def test_iid_start_begins_from_the_covariance_of_independent_lengths():
    """``start="iid"`` starts W from :func:`refined.iid_covariance` (not 0): the variance at
    t = 0 is its diagonal, and V(t) follows rmftool's transient equations started from that W(0)
    (an independent integration), which differ from the deterministic start's by far more than
    the tolerance."""
    pytest.importorskip("rmftool")
    from scipy.integrate import solve_ivp
    from rmftool import refinedRefined_transientRegime as rr

    load, levels = 0.9, 10
    system = homogeneous(load)
    x0 = np.zeros(levels)
    x0[:3] = (0.9, 0.6, 0.3)
    W0 = refined.iid_covariance(system, x0[None, :])
    assert np.abs(W0).max() > 0.2
    model = rmftool_jsqd(load, levels)
    F = model.defineDrift()
    Fp, Fpp, Qf = model.defineDriftDerivativeQ()
    times = np.array([0.0, 0.25, 1.0, 3.0])
    theirs = {}
    for name, w0 in (("iid", W0), ("deterministic", np.zeros_like(W0))):
        y0 = np.concatenate([x0, np.zeros(levels), w0.ravel()])
        sol = solve_ivp(lambda _t, y: rr.drift_r_vector(y, levels, F, Fp, Fpp, Qf), (0, 3), y0, t_eval=times,
                        rtol=1e-10, atol=1e-12)
        theirs[name] = sol.y.T[:, levels:2 * levels]
    ours = refined.refined_transient(system, x0[None, :4], times, start="iid")
    np.testing.assert_allclose(ours.variance[0, 0, :levels], np.diag(W0), atol=1e-12)
    # the two starts' V differ by much more than the agreement asked below
    assert np.abs(theirs["iid"] - theirs["deterministic"]).max() > 0.05
    np.testing.assert_allclose(ours.V[:, 0, :levels], theirs["iid"], atol=1e-6)
