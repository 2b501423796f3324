"""Property-based tests of the models' invariants on random small inputs (hypothesis).

- occupancy vectors stay in [0, 1] and non-increasing in the level (simulators, ODE);
- simulated totals conserve jobs (per-level sums against the exact per-server counts);
- exact stationary probabilities (DP of the product forms, Markov chains) sum to 1;
- optimal assignments meet the load constraint and the class capacities;
- seeded runs repeat exactly.

Examples are few and small (every one runs a simulator), and derandomized: hypothesis
draws the same examples in every run, so a failure always reproduces.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from qtheory.locality import exact as lexact
from qtheory.locality.graphs import from_adjacency
from qtheory.locality.meanfield import solve_meanfield
from qtheory.locality.model import LocalitySystem
from qtheory.locality.simulation import simulate_gwsq, simulate_jsqd
from qtheory.redundancy.experiments import random_system
from qtheory.redundancy.productform import joint_type_pmf, total_jobs_pmf
from qtheory.redundancy.simulation import simulate as r_simulate
from qtheory.redundancy.stability import critical_load
from qtheory.utility import LogUtility, PoolSystem, exact_stationary, optimal_assignment
from qtheory.utility import simulate as u_simulate

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def locality_case(draw):
    """A random 2-type, 2-cluster system and a random bipartite graph on 4-7 servers.

    Only plain data are drawn here, every entry through a hypothesis strategy (so examples
    shrink and nothing touches a global random state inside the strategy); `build_case`
    makes the system and the graph in the test body.
    """
    n, w = draw(st.integers(4, 7)), draw(st.integers(2, 5))
    types = [0, 1] + draw(st.lists(st.integers(0, 1), min_size=n - 2, max_size=n - 2))
    clusters = [0, 1] + draw(st.lists(st.integers(0, 1), min_size=w - 2, max_size=w - 2))
    adj = draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=w, max_size=w))
    linked = draw(st.lists(st.integers(0, n - 1), min_size=w, max_size=w))  # every dispatcher has a server
    u = tuple(draw(st.floats(0.5, 3.0)) for _ in range(2))
    load = draw(st.floats(0.05, 0.9))                    # load below 1 on average
    d = draw(st.integers(1, 3))
    x0 = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return dict(n=n, w=w, types=types, clusters=clusters, adj=adj, linked=linked, u=u, load=load, d=d, x0=x0)


def build_case(case):
    """(system, graph, initial queue lengths) from a `locality_case` draw."""
    n, w, u = case["n"], case["w"], case["u"]
    adj = np.array(case["adj"], dtype=int)
    adj[np.arange(w), case["linked"]] = 1
    lam = case["load"] * min(u) * n / w
    system = LocalitySystem(lam, w / n, (0.5, 0.5), (0.5, 0.5), u, ((1, 1), (1, 1)), case["d"])
    graph = from_adjacency(adj, np.array(case["types"]), np.array(case["clusters"]))
    return system, graph, np.array(case["x0"])


@SETTINGS
@given(locality_case(), st.integers(0, 2**32 - 1), st.sampled_from([simulate_jsqd, simulate_gwsq]))
def test_locality_occupancy_is_a_tail_and_conserves_the_queue_lengths(case, seed, sim):
    system, graph, x0 = build_case(case)
    levels = 40                                          # above any queue reached in 20 time units
    res = sim(system, graph, initial_state=x0, t_grid=np.linspace(0.0, 20.0, 11), seed=seed, levels=levels)
    occ = res.occupancy
    assert np.all((occ >= 0) & (occ <= 1))
    assert np.all(np.diff(occ, axis=-1) <= 0)
    assert res.final_state.max() < levels
    # sum_l P(X >= l) = E[X]: the recorded levels account for every job present
    np.testing.assert_allclose(occ.sum(axis=-1), res.mean_queue_length, rtol=0, atol=1e-12)
    sizes = np.bincount(graph.server_type, minlength=2)
    final_mean = np.bincount(graph.server_type, weights=res.final_state, minlength=2) / sizes
    np.testing.assert_allclose(res.mean_queue_length[-1], final_mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.mean_queue_length[0],
                               np.bincount(graph.server_type, weights=x0, minlength=2) / sizes, atol=1e-12)
    # seeded runs repeat exactly
    again = sim(system, graph, initial_state=x0, t_grid=np.linspace(0.0, 20.0, 11), seed=seed, levels=levels)
    assert np.array_equal(again.occupancy, occ) and np.array_equal(again.final_state, res.final_state)


@SETTINGS
@given(locality_case())
def test_the_mean_field_ode_stays_in_the_state_space(case):
    system, _, _ = build_case(case)
    q0 = np.array([[0.9, 0.5, 0.2], [0.3, 0.1, 0.0]])
    sol = solve_meanfield(system, q0, np.linspace(0.0, 5.0, 6))
    assert np.all(sol.q >= -1e-9) and np.all(sol.q <= 1 + 1e-9)
    assert np.all(np.diff(sol.q, axis=-1) <= 1e-9)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.floats(0.1, 0.9))
def test_product_form_probabilities_sum_to_one(seed, load):
    system = random_system(np.random.default_rng(seed), max_servers=4, max_types=4)
    lam = load * critical_load(system)
    for mechanism in ("coc", "cos"):
        pmf = total_jobs_pmf(system, lam, 400, mechanism)
        assert np.all(pmf >= 0)
        # the tail beyond 400 jobs is below load^400 times a constant, i.e. negligible here
        assert abs(pmf.sum() - 1.0) < 1e-9
    if system.n_types <= 3:
        joint = joint_type_pmf(system, lam, 40)
        assert np.all(joint >= 0) and joint.sum() <= 1.0 + 1e-12
        # the joint law's total-count marginal is the c.o.c. pmf
        counts = np.indices(joint.shape).sum(axis=0)
        marg = np.bincount(counts.ravel(), weights=joint.ravel())[:41]   # totals <= 40 are complete
        np.testing.assert_allclose(marg, total_jobs_pmf(system, lam, 40, "coc"), atol=1e-12)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_redundancy_simulation_is_consistent_and_repeats(system_seed, seed):
    system = random_system(np.random.default_rng(system_seed), max_servers=4, max_types=4)
    lam = 0.6 * critical_load(system)
    for mechanism in ("coc", "cos"):
        a = r_simulate(system, lam, n_events=3000, mechanism=mechanism, seed=seed)
        assert abs(a.count_distribution.sum() - 1.0) < 1e-12 and abs(a.event_count_distribution.sum() - 1.0) < 1e-12
        # Q is the sum of the per-type counts, in time and in event averages
        assert abs(a.type_means.sum() - a.mean_jobs) < 1e-9 * max(1.0, a.mean_jobs)
        assert abs(a.event_type_means.sum() - a.event_mean_jobs) < 1e-9 * max(1.0, a.event_mean_jobs)
        b = r_simulate(system, lam, n_events=3000, mechanism=mechanism, seed=seed)
        for name, value in vars(a).items():
            if name != "wall_time":  # the kernel's clock time, the one field that may differ
                assert np.array_equal(value, getattr(b, name), equal_nan=True), name


U_SYS = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)


@SETTINGS
@given(st.lists(st.floats(0.5, 30.0), min_size=1, max_size=3), st.floats(0.05, 20.0))
def test_optimal_assignments_meet_the_load_and_capacity_constraints(rs, rho):
    m = len(rs)
    system = PoolSystem(tuple(LogUtility(r) for r in rs), tuple([1.0 / m] * m), rho)
    opt = optimal_assignment(system)
    q = opt.q
    alpha = np.array(system.alpha)
    np.testing.assert_allclose(q[:, 0], alpha)
    assert np.all(q >= -1e-15) and np.all(q <= alpha[:, None] + 1e-15)
    assert np.all(np.diff(q, axis=1) <= 1e-15)                # a tail in the level
    assert abs(q[:, 1:].sum() - rho) < 1e-9                  # every task is assigned (s = rho)
    assert opt.theta <= rho + 1e-12 and rho < opt.theta + alpha[opt.sigma[0]] + 1e-12


@SETTINGS
@given(st.sampled_from(["jlmu", "slta", "random", "jsq", "conservative"]), st.integers(0, 2**32 - 1))
def test_utility_simulation_counts_tasks_consistently_and_repeats(policy, seed):
    n = 4
    times = np.linspace(0.0, 30.0, 16)
    a = u_simulate(U_SYS, n, policy, horizon=30.0, seed=seed, sample_times=times)
    # n s_n is a whole number of tasks, and the occupancy's level sums count them
    tasks = n * a.s
    np.testing.assert_allclose(tasks, np.round(tasks), atol=1e-9)
    np.testing.assert_allclose(n * a.occupancy[:, :, 1:].sum(axis=(1, 2)), tasks, atol=1e-9)
    assert np.all(np.diff(a.occupancy, axis=-1) <= 1e-12) and np.all((a.occupancy >= 0) & (a.occupancy <= 1))
    assert abs(a.count_distribution.sum() - 1.0) < 1e-9
    b = u_simulate(U_SYS, n, policy, horizon=30.0, seed=seed, sample_times=times)
    assert a.mean_utility == b.mean_utility and np.array_equal(a.occupancy, b.occupancy)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.sampled_from(["jlmu", "slta", "random", "jsq", "conservative"]), st.floats(0.3, 2.0))
def test_exact_chains_are_probability_laws(policy, rho):
    ex = exact_stationary(U_SYS.with_rho(rho), 2, policy, max_tasks=10)
    r = np.array(list(ex.r_distribution.values()))
    assert np.all(r >= 0) and abs(r.sum() - 1.0) < 1e-9
    assert 0 <= ex.mean_tasks <= 10 / 2


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.floats(0.1, 1.5), st.floats(0.5, 2.0))
def test_the_exact_locality_chain_is_a_probability_law(lam, mu):
    cands = [lexact.local_candidates([0, 1], 2), lexact.local_candidates([1], 2)]
    states, pi = lexact.stationary(cands, lam, [mu, 2 * mu], buffer=6)
    assert np.all(pi >= 0) and abs(pi.sum() - 1.0) < 1e-12
    assert states.shape == (49, 2)
