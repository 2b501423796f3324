"""Local JSQ(d) and GWSQ(d) simulators against exact Markov chains, the ODE and Lemma 1."""

import numpy as np
from scipy import stats
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.graphs import complete_bipartite, from_adjacency, irg
from qtheory.locality.meanfield import drift, solve_meanfield
from qtheory.locality.model import LocalitySystem, paper_initial_occupancy, paper_system
from qtheory.locality.simulation import (exact_initial_state, iid_initial_state, simulate_gwsq,
                                         simulate_jsqd)
from qtheory.locality.stability import exact_load

from qtheory.locality.exact import gwsq_candidates, local_candidates, stationary, type_occupancy

# a tiny two-type system: 3 dispatchers, 4 servers (types 0, 0, 1, 1)
ADJ = np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 0, 1]])
TYPES = [0, 0, 1, 1]
CLUSTERS = [0, 0, 1]
BUFFER = 14
SMALL = LocalitySystem(0.45, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((1, 1), (1, 1)), 2)


def time_average(sim, system, graph, seeds, horizon=4000.0, warmup=200.0):
    """Per-replication time averages of the occupancy (levels 1..3) after a warm-up."""
    grid = np.linspace(0.0, horizon, 40001)
    out = []
    for s in seeds:
        res = sim(system, graph, initial_state=np.zeros(graph.n_servers, np.int64), t_grid=grid, seed=s, levels=3)
        out.append(res.occupancy[grid >= warmup].mean(axis=0))
    return np.array(out)


def assert_within_5se(samples, exact):
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
    assert np.all(np.abs(mean - exact) <= 5 * se + 1e-4), (mean, exact, se)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_local_jsqd_matches_the_exact_markov_chain(d):
    system = SMALL.with_d(d)
    graph = from_adjacency(ADJ, TYPES, CLUSTERS)
    cands = [local_candidates(np.nonzero(row)[0], d) for row in ADJ]
    states, pi = stationary(cands, system.arrival_rate, system.u[TYPES], buffer=BUFFER)
    assert pi[states.max(axis=1) == BUFFER].sum() < 2e-5           # truncation is negligible
    exact = type_occupancy(states, pi, TYPES, 3)
    assert_within_5se(time_average(simulate_jsqd, system, graph, range(8)), exact)


def test_gwsq_matches_the_exact_markov_chain():
    system = LocalitySystem(0.6, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((0.3, 1.0), (1.0, 0.5)), 2)
    graph = from_adjacency(ADJ, TYPES, CLUSTERS)                    # only types/clusters matter
    share = system.neighbourhood_shares
    cands = [gwsq_candidates(TYPES, share[k], 2) for k in CLUSTERS]
    states, pi = stationary(cands, system.arrival_rate, system.u[TYPES], buffer=BUFFER)
    assert pi[states.max(axis=1) == BUFFER].sum() < 2e-5
    exact = type_occupancy(states, pi, TYPES, 3)
    assert_within_5se(time_average(simulate_gwsq, system, graph, range(8)), exact)


def gwsq_drift_bias_bound(system, n_per_type, h):
    """Bound on |E[q^N(h) - q(0)] / h - (q_ODE(h) - q(0)) / h| for GWSQ(2) with independent draws.

    The generator L of the chain has L q = F(q), the right side of (3.7) (the property under
    test), so E q^N(h) = q0 + h F + (h^2 / 2) L F + O(h^3), while the ODE gives
    q0 + h F + (h^2 / 2) DF F + O(h^3). For d = 2, F is quadratic in q, so along a jump Delta
    the Taylor expansion of F is exact and L F - DF F = (1/2) sum_i d^2F/dq_i^2 sigma_i^2 (a
    jump moves one coordinate; sigma_i^2 = sum of rate x Delta_i^2). In F_(m,l) only
    q_(m,l-1) and q_(m,l) enter squared, with |d^2F/dq^2| = H_m = 2 lambda zeta sum_k
    c_(k,m) r_(k,m) (c = p w / delta, r = v p / delta). Coordinate (m, j) jumps by 1 / n_m at
    rate n_m (arrival + departure) <= n_m (d lambda zeta sum_k c_(k,m) + u_m), a bound valid
    at every state, so sigma^2 <= (d lambda zeta sum_k c_(k,m) + u_m) / n_m. The leading
    bias per unit time is therefore at most (h / 4) H_m 2 sigma_m^2. The next order is
    O(h^2 / N) with at most (h / 3) Lambda times the leading coefficient, Lambda the largest
    row sum of |DF| plus the largest jump rate per unit of q; the caller checks
    h Lambda / 3 <= 1/2, so the factor 2 below covers all higher orders (geometric series)."""
    lam = system.total_arrival_rate
    c = (system.w / system.delta)[:, None] * system.p            # (K, M)
    r = system.neighbourhood_shares
    H = 2 * lam * (c * r).sum(axis=0)                            # (M,)
    sigma2 = (system.d * lam * c.sum(axis=0) + system.u) / n_per_type
    return 2 * (h / 4) * H * 2 * sigma2                           # per type, every level


def test_gwsq_mean_drift_is_the_ode_right_side():
    """With independent candidate draws the occupancy drift equals (3.7) for every N."""
    s = paper_system()
    g = irg(s, 2000, seed=1)
    q0 = paper_initial_occupancy("Q", "lengths-0-2")
    x0 = exact_initial_state(g, q0)
    q_start = np.array([[np.mean(x0[g.server_type == m] >= l) for l in (1, 2, 3)] for m in range(3)])
    h, runs = 0.02, 400
    incr = []
    for seed in range(runs):
        res = simulate_gwsq(s, g, initial_state=x0, t_grid=[0.0, h], seed=seed, levels=3)
        incr.append((res.occupancy[-1] - q_start) / h)
    incr = np.array(incr)
    ode = (solve_meanfield(s, q_start, [0.0, h]).q[-1, :, :3] - q_start) / h
    se = incr.std(axis=0, ddof=1) / np.sqrt(len(incr))
    n_per_type = np.bincount(g.server_type, minlength=3)
    bias = gwsq_drift_bias_bound(s, n_per_type, h)[:, None]
    # the series argument of the bound needs h Lambda / 3 <= 1/2: Jacobian row sums by differences
    from qtheory.locality.meanfield import _drift             # unchecked: a perturbed state may leave S

    eps, state = 1e-6, np.concatenate([q_start, np.zeros((3, 1))], axis=1)
    base = _drift(s, state)
    jac = np.zeros((12, 12))
    for i in range(12):
        q = state.copy()
        q.flat[i] += eps
        jac[:, i] = ((_drift(s, q) - base) / eps).ravel()
    jump_rate = (s.d * s.total_arrival_rate * ((s.w / s.delta)[:, None] * s.p).sum(axis=0) + s.u).max()
    assert h * (np.abs(jac).sum(axis=1).max() + jump_rate) / 3 <= 0.5
    assert bias.max() < 0.01                                     # small against the standard errors
    # 9 entries, familywise level 1e-3: two-sided Bonferroni t quantile with runs - 1 df
    t = stats.t.ppf(1 - 1e-3 / (2 * 9), runs - 1)
    assert np.all(np.abs(incr.mean(axis=0) - ode) <= t * se + bias), (incr.mean(axis=0), ode, se)
    # and the increment is far from the drift of a policy that ignores p (complete graph)
    flexible = (solve_meanfield(s.with_compatibility(np.ones((2, 3))), q_start, [0.0, h]).q[-1, :, :3] - q_start) / h
    assert np.max(np.abs(incr.mean(axis=0) - flexible)) > 10 * se.max()


def test_simulation_follows_the_ode_for_large_n():
    s = paper_system()
    q0 = paper_initial_occupancy("Q")
    grid = np.linspace(0, 2.5, 6)
    ode = solve_meanfield(s, q0, grid).q[:, :, :3]
    n_runs = 32
    runs = []
    for seed in range(n_runs):
        g = irg(s, 3000, seed=100 + seed)
        res = simulate_jsqd(s, g, initial_state=iid_initial_state(g, q0, seed), t_grid=grid, seed=seed, levels=3)
        runs.append(res.occupancy)
    runs = np.array(runs)
    mean = runs.mean(axis=0)
    se = runs.std(axis=0, ddof=1) / np.sqrt(n_runs)
    # every (time, type, level) cell at family-wise level 1e-3: a t(31) quantile with a
    # Bonferroni correction over the cells (5.05 SE); the finite-N bias of the mean is
    # O(1/N) and a random graph's fluctuation O(1/sqrt(N * p)), below 2e-3 here
    q = stats.t.ppf(1 - 1e-3 / (2 * ode.size), n_runs - 1)
    assert np.all(np.abs(mean - ode) <= q * se + 2e-3), np.max(np.abs(mean - ode) - q * se)


def test_lemma1_unstable_small_graph_grows_at_the_fluid_rate():
    # 2 slow + 2 fast servers, 4 dispatchers, complete graph: the slow pair receives a task
    # only when both picks are slow, rate 4 * 3 / C(4, 2) = 2, and serves 2 * 0.5 = 1
    s = LocalitySystem(3.0, 1.0, (1.0,), (0.5, 0.5), (0.5, 10.0), ((1.0, 1.0),), 2)
    g = complete_bipartite(s, 4)
    rho, worst = exact_load(g, s, return_set=True)
    assert rho == pytest.approx(2.0) and worst.tolist() == [True, True, False, False]
    slopes = []
    for seed in range(10):
        res = simulate_jsqd(s, g, initial_state=np.zeros(4, np.int64), t_grid=[0.0, 1000.0, 2000.0], seed=seed, levels=1)
        slow = res.mean_queue_length[:, 0] * 2
        slopes.append((slow[2] - slow[1]) / 1000.0)
    slopes = np.array(slopes)
    se = slopes.std(ddof=1) / np.sqrt(slopes.size)
    assert abs(slopes.mean() - 1.0) <= 5 * se + 1e-3


def test_mean_and_square_are_exact_beyond_the_recorded_levels():
    s = paper_system("complete")
    g = complete_bipartite(s, 100)
    x0 = np.full(100, 7, np.int64)
    res = simulate_jsqd(s, g, initial_state=x0, t_grid=[0.0, 0.5, 1.0], seed=1, levels=2)
    assert np.allclose(res.mean_queue_length[0], 7.0) and np.allclose(res.mean_square[0], 49.0)
    final = res.final_state
    for m in range(3):
        assert res.mean_queue_length[-1, m] == pytest.approx(final[g.server_type == m].mean())
        assert res.occupancy[-1, m, 1] == pytest.approx(np.mean(final[g.server_type == m] >= 2))


def test_same_seed_same_path_and_seed_sequences_are_accepted():
    s = paper_system()
    g = irg(s, 100, seed=1)
    x0 = iid_initial_state(g, paper_initial_occupancy("Q"), 0)
    a = simulate_jsqd(s, g, initial_state=x0, t_grid=[0.0, 1.0, 2.0], seed=5)
    b = simulate_jsqd(s, g, initial_state=x0, t_grid=[0.0, 1.0, 2.0], seed=5)
    c = simulate_jsqd(s, g, initial_state=x0, t_grid=[0.0, 1.0, 2.0], seed=np.random.SeedSequence(5))
    assert np.array_equal(a.occupancy, b.occupancy) and a.events == b.events
    assert np.array_equal(x0, iid_initial_state(g, paper_initial_occupancy("Q"), 0))
    assert c.occupancy.shape == (3, 3, 10)


def test_exact_initial_state_realises_the_occupancy_in_sorted_order():
    s = paper_system()
    g = irg(s, 1000, seed=1)
    q0 = paper_initial_occupancy("Q")
    x0 = exact_initial_state(g, q0)
    type1 = x0[g.server_type == 0]
    assert np.all(np.diff(type1) >= 0)
    assert np.mean(type1 >= 2) == pytest.approx(0.8) and np.mean(type1 >= 3) == pytest.approx(0.3)


def test_simulator_rejects_bad_inputs():
    s = paper_system()
    g = irg(s, 50, seed=1)
    x0 = np.zeros(50, np.int64)
    with pytest.raises(ParameterError, match="t_grid"):
        simulate_jsqd(s, g, initial_state=x0, t_grid=[1.0, 0.5], seed=0)
    with pytest.raises(ParameterError, match="initial_state"):
        simulate_jsqd(s, g, initial_state=np.zeros(49, np.int64), t_grid=[0.0, 1.0], seed=0)
    with pytest.raises(ParameterError, match="initial_state"):
        simulate_jsqd(s, g, initial_state=-np.ones(50, np.int64), t_grid=[0.0, 1.0], seed=0)
    lonely = from_adjacency([[1, 0], [0, 0]], [0, 1], [0, 0])
    two = LocalitySystem(1.0, 1.0, (1.0,), (0.5, 0.5), (1.0, 1.0), ((1.0, 1.0),), 2)
    with pytest.raises(ParameterError, match="dispatcher 1"):
        simulate_jsqd(two, lonely, initial_state=np.zeros(2, np.int64), t_grid=[0.0, 1.0], seed=0)


def test_a_queue_too_long_for_the_int32_state_is_refused_by_name():
    from qtheory.errors import ParameterError
    from qtheory.locality.graphs import complete_bipartite
    from qtheory.locality.model import paper_system
    from qtheory.locality.simulation import simulate

    system = paper_system("design")
    g = complete_bipartite(system, 10)
    x0 = np.zeros(10, np.int64)
    x0[3] = 2**31
    with pytest.raises(ParameterError, match="initial_state"):
        simulate(system, g, "jsqd", initial_state=x0, t_grid=[0.0, 1.0], seed=0)
    x0[3] = 5
    res = simulate(system, g, "jsqd", initial_state=x0, t_grid=[0.0, 1.0], seed=0)
    assert res.final_state.dtype == np.int64


@pytest.mark.parametrize("d", [1, 2, 3, 12])
def test_complete_graph_fast_path_takes_the_neighbour_list_path(d):
    """complete_bipartite stores one list 0..N-1, so Local JSQ(d) takes sampled positions as
    servers without reading it; the same complete graph with one stored list per dispatcher
    (from_adjacency) reads the lists. One seed: the same run, event for event (d = 12 > N is
    the branch of a dispatcher with fewer than d neighbours)."""
    from qtheory.locality.policies import LocalJSQ
    from qtheory.locality.simulation import simulate

    system = paper_system("complete", d=2)          # 3 types, 2 clusters, unequal speeds
    shared = complete_bipartite(system, 10)
    separate = from_adjacency(np.ones((shared.n_dispatchers, shared.n_servers)), shared.server_type,
                              shared.dispatcher_cluster, shared.n_types, shared.n_clusters)
    assert separate.offset[1] > 0                    # a list per dispatcher: the general path
    policy = LocalJSQ(d=d)
    assert policy.kernel_params(system, shared).identity
    assert not policy.kernel_params(system, separate).identity
    x0 = iid_initial_state(shared, np.full((3, 4), 0.5), 3)
    grid = np.linspace(0.0, 20.0, 41)
    fast = simulate(system, shared, policy, initial_state=x0, t_grid=grid, seed=11, levels=4)
    general = simulate(system, separate, policy, initial_state=x0, t_grid=grid, seed=11, levels=4)
    assert fast.events == general.events > 500
    for name in ("occupancy", "mean_queue_length", "mean_square", "final_state"):
        assert np.array_equal(getattr(fast, name), getattr(general, name)), name


def test_identity_lists_are_recognised_only_as_stored_by_complete_bipartite():
    from qtheory.locality.policies import _identity_lists

    system = paper_system("complete", d=2)
    graph = complete_bipartite(system, 10)
    assert _identity_lists(graph)
    # the same shared list in another order, or a missing server: not the identity
    permuted = type(graph)(graph.server_type, graph.dispatcher_cluster, graph.offset, graph.degree,
                           graph.neighbors[::-1].copy(), graph.n_types, graph.n_clusters)
    assert not _identity_lists(permuted)
    short = type(graph)(graph.server_type, graph.dispatcher_cluster, graph.offset, graph.degree - 1,
                        graph.neighbors, graph.n_types, graph.n_clusters)
    assert not _identity_lists(short)
    assert not _identity_lists(irg(paper_system("design", d=2), 10, seed=1))
