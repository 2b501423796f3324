"""The refined graph mean field (the 1/N correction of the per-server mean field, beyond paper L).

Checked against: the exact stationary law of a tiny truncated chain, enumerated from the policy's
definition (the second-order identity holds exactly there, and the refined value is closer to
it than the mean field); finite differences of the graph mean field's drift (the Jacobian);
and, on the complete graph, the homogeneous refined mean field of
:mod:`qtheory.locality.refined` (the exact 1/N term of each type's mean).
"""

import dataclasses
from itertools import combinations, product
from math import comb

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality import graphmf, graphrefined
from qtheory.locality.graphs import complete_bipartite, from_adjacency, irg
from qtheory.locality.model import LocalitySystem, paper_system
from qtheory.locality.policies import LocalJSQ
from qtheory.locality.refined import refined_stationary

SEED = 20261205
LEVELS = 3


def tiny_system():
    return LocalitySystem(1.0, 1.0, (0.5, 0.5), (0.5, 0.5), (1.0, 2.0), ((1.0, 1.0), (1.0, 1.0)), 2)


def tiny_graph():
    """Four servers, four dispatchers: lists of 1, 2, 3 and 2 servers; servers 0 and 3 share no
    dispatcher (their coupling is zero), server 0 has a dispatcher of its own."""
    adjacency = np.array([[1, 0, 0, 0],
                          [1, 1, 0, 0],
                          [0, 1, 1, 1],
                          [1, 0, 1, 0]])
    return from_adjacency(adjacency, [1, 0, 1, 0], [0, 0, 1, 1], n_types=2, n_clusters=2)


def exact_chain(system, graph, levels):
    """Stationary law of local JSQ(2) on `graph` with queues truncated at `levels` (a task sent
    to a full queue is lost), written from the definition: every state, every dispatcher, every
    pair of its neighbours (the shorter gets the task, ties half each). Returns the exact means
    ``y[j, l-1] = P(Q_j >= l)`` and the covariance of the indicators (N L, N L)."""
    n = graph.n_servers
    states = list(product(range(levels + 1), repeat=n))
    index = {s: k for k, s in enumerate(states)}
    gen = np.zeros((len(states), len(states)))
    lam = system.arrival_rate
    rates = system.u[graph.server_type]

    def send(k, s, j, rate):
        if s[j] < levels:
            t = list(s)
            t[j] += 1
            gen[k, index[tuple(t)]] += rate

    for k, s in enumerate(states):
        for i in range(graph.n_dispatchers):
            nbrs = list(graph.neighbourhood(i))
            if len(nbrs) == 1:
                send(k, s, nbrs[0], lam)
                continue
            share = lam / comb(len(nbrs), 2)
            for a, b in combinations(nbrs, 2):
                if s[a] == s[b]:
                    send(k, s, a, share / 2)
                    send(k, s, b, share / 2)
                else:
                    send(k, s, a if s[a] < s[b] else b, share)
        for j in range(n):
            if s[j] > 0:
                t = list(s)
                t[j] -= 1
                gen[k, index[tuple(t)]] += rates[j]
    np.fill_diagonal(gen, -gen.sum(axis=1))
    # pi gen = 0, sum pi = 1
    lhs = np.vstack([gen.T, np.ones(len(states))])
    pi = np.linalg.lstsq(lhs, np.concatenate([np.zeros(len(states)), [1.0]]), rcond=None)[0]
    ind = np.array([[[1.0 if s[j] >= l else 0.0 for l in range(1, levels + 1)] for j in range(n)] for s in states])
    ind = ind.reshape(len(states), n * levels)
    mean = pi @ ind
    cov = (ind * pi[:, None]).T @ ind - np.outer(mean, mean)
    return mean.reshape(n, levels), cov


@pytest.fixture(scope="module")
def tiny():
    system, graph = tiny_system(), tiny_graph()
    y, cov = exact_chain(system, graph, LEVELS)
    # the graph mean field truncated at the same level (tol only bounds the top level here)
    fp = graphmf.fixed_point(system, graph, levels=LEVELS, max_levels=LEVELS, tol=0.99)
    assert fp.levels == LEVELS and fp.residual < 1e-9
    v, C = graphrefined.refined_correction(system, graph, fp.x)
    return system, graph, y, cov, fp.x, v, C


def test_the_second_order_expansion_of_the_drift_is_exact_at_the_exact_stationary_law(tiny):
    """For d = 2 the drift is quadratic with cross-server products only, so at the exact law
    ``F(E Y) + B:Cov(Y) / 2 = E F(Y) = 0`` with no remainder."""
    system, graph, y, cov, *_ = tiny
    beta, _ = graphrefined.pair_rates(system, graph)
    total = graphmf.drift(system, graph, y) + graphrefined.second_order_term(beta, cov, graph.n_servers, LEVELS)
    assert np.abs(total).max() < 1e-11
    # without the covariance term the exact mean is not a zero of the mean-field drift
    assert np.abs(graphmf.drift(system, graph, y)).max() > 1e-3


def test_refined_value_is_closer_to_the_exact_chain_than_the_mean_field(tiny):
    _system, _graph, y, _cov, x, v, _C = tiny
    exact = y.sum(axis=1)
    mf_error = np.abs(x.sum(axis=1) - exact)
    refined_error = np.abs((x + v).sum(axis=1) - exact)
    assert refined_error.sum() < 0.5 * mf_error.sum()
    assert np.abs(x + v - y).max() < np.abs(x - y).max()


def test_lyapunov_covariance_approximates_the_exact_one_and_pairs_without_a_dispatcher_barely_correlate(tiny):
    """Same-server blocks: O(1), close to the exact; servers 0 and 3 share no dispatcher."""
    _system, graph, _y, cov, _x, _v, C = tiny
    n, L = graph.n_servers, LEVELS
    C4, E4 = C.reshape(n, L, n, L), cov.reshape(n, L, n, L)
    for j in range(n):
        assert np.abs(C4[j, :, j, :] - E4[j, :, j, :]).max() < 0.05
    assert np.abs(C4[0, :, 3, :]).max() < np.abs(C4[0, :, 1, :]).max()


def test_pair_rates_give_the_graph_mean_fields_arrival_intensity():
    system = paper_system("design")
    graph = irg(system, 30, SEED)
    rng = np.random.default_rng(SEED)
    x = -np.sort(-rng.random((graph.n_servers, 5)), axis=1)
    beta, single = graphrefined.pair_rates(system, graph)
    assert np.allclose(beta, beta.T) and np.all(np.diag(beta) == 0.0)
    ours = graphrefined._intensity(beta, single, x)
    assert np.allclose(ours, graphmf.arrival_intensity(system, graph, x), rtol=1e-12, atol=1e-12)


def test_jacobian_is_the_derivative_of_the_graph_mean_field_drift():
    system = paper_system("design")
    graph = irg(system, 20, SEED)
    rng = np.random.default_rng(SEED + 1)
    L = 4
    x = -np.sort(-rng.uniform(0.1, 0.9, (graph.n_servers, L)), axis=1)
    beta, single = graphrefined.pair_rates(system, graph)
    A = graphrefined.jacobian(beta, single, system.u[graph.server_type], x)
    h = 1e-6
    for k in rng.choice(x.size, 25, replace=False):
        dx = np.zeros(x.size)
        dx[k] = h
        up = graphmf.drift(system, graph, x + dx.reshape(x.shape))
        down = graphmf.drift(system, graph, x - dx.reshape(x.shape))
        assert np.allclose((up - down).ravel() / (2 * h), A[:, k], atol=1e-7)


def test_on_the_complete_graph_the_refined_value_has_the_exact_1_over_n_term_of_each_type():
    """Per type, N (graph-refined mean - q*) tends to V of the homogeneous refined mean field
    (local JSQ(2) on the complete graph), the gap falling like 1/N; the graph mean field alone
    has another 1/N term (partner exclusion and independence, see graphmf)."""
    system = dataclasses.replace(paper_system("complete"), arrival_rate=1.5)
    hom = refined_stationary(system, policy=LocalJSQ())
    q_star, V = hom.q.sum(axis=1), hom.V.sum(axis=1)
    gaps, mf_gaps = {}, {}
    for n in (20, 40):
        res = graphrefined.refined_fixed_point(system, complete_bipartite(system, n))
        gaps[n] = np.abs(n * (res.refined_type_mean_queue_length - q_star) - V)
        mf_gaps[n] = np.abs(n * (res.type_mean_queue_length - q_star) - V)
        # servers of a type stay alike, with the correction too
        for m in range(3):
            vals = res.refined_mean_queue_length[res.server_type == m]
            assert np.ptp(vals) < 1e-9
    # rate 1/N: the gap roughly halves from 20 to 40 (type 1 carries the 1/N term)
    assert 0.35 < gaps[40][0] / gaps[20][0] < 0.65
    assert np.all(gaps[40] < 4.0 / 40)
    assert mf_gaps[40][0] > 10 * gaps[40][0]


def test_inputs_are_checked_and_named():
    system = paper_system("design")
    graph = irg(system, 20, SEED)
    with pytest.raises(ParameterError, match="JSQ\\(2\\) only"):
        graphrefined.refined_fixed_point(dataclasses.replace(system, d=3), graph)
    with pytest.raises(ParameterError, match="JSQ\\(2\\) only"):
        graphrefined.refined_fixed_point(system, graph, policy="jiq")
    with pytest.raises(ParameterError, match="max_dimension"):
        graphrefined.refined_fixed_point(system, graph, max_dimension=10)
    with pytest.raises(ParameterError, match="`x`"):
        graphrefined.refined_correction(system, graph, np.ones((3, 2)))
