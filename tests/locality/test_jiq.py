"""JIQ with locality (manifest L-R-jiq, beyond the paper): the simulator against the
exact stationary law of a small graph, written here from the policy's definition."""

import numpy as np
import pytest
from scipy import stats
from scipy.sparse import coo_matrix
from scipy.sparse.linalg import spsolve

from qtheory.locality.graphs import from_adjacency
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import JIQ, LocalJSQ
from qtheory.locality.simulation import simulate
from qtheory.runtime import spawn

# 2 dispatchers, 3 servers of 3 types (one per type, so the per-type means are per-server
# means); server 1 is shared; unequal service rates
ADJ = np.array([[1, 1, 0], [0, 1, 1]])
RATES = (1.0, 1.5, 0.7)
LAM = 0.6
SYSTEM = LocalitySystem(LAM, 2 / 3, (1.0,), (1 / 3, 1 / 3, 1 / 3), RATES, ((1.0, 1.0, 1.0),), 2)
GRAPH = from_adjacency(ADJ, [0, 1, 2], [0, 0])


def exact_means(cap: int, adj=ADJ) -> np.ndarray:
    """Stationary mean queue length of each server under JIQ, arrivals blocked at `cap`."""
    states = [(a, b, c) for a in range(cap + 1) for b in range(cap + 1) for c in range(cap + 1)]
    index = {s: k for k, s in enumerate(states)}
    rows, cols, rates = [], [], []
    for s, k in index.items():
        for i in range(adj.shape[0]):
            nbrs = [j for j in range(3) if adj[i, j]]
            idle = [j for j in nbrs if s[j] == 0]
            choice = idle if idle else nbrs
            for j in choice:
                if s[j] < cap:
                    t = list(s)
                    t[j] += 1
                    rows.append(k), cols.append(index[tuple(t)]), rates.append(LAM / len(choice))
        for j in range(3):
            if s[j] > 0:
                t = list(s)
                t[j] -= 1
                rows.append(k), cols.append(index[tuple(t)]), rates.append(RATES[j])
    size = len(states)
    Q = coo_matrix((rates, (rows, cols)), shape=(size, size)).tocsr()
    A = (Q - coo_matrix((np.asarray(Q.sum(axis=1)).ravel(), (range(size), range(size))),
                        shape=(size, size))).T.tolil()
    A[0, :] = 1.0
    b = np.zeros(size)
    b[0] = 1.0
    pi = spsolve(A.tocsr(), b)
    return pi @ np.array(states, dtype=float)


def simulated_means(policy, seeds, horizon=4000.0, warmup=50.0, graph=GRAPH):
    grid = np.concatenate([[0.0], np.linspace(warmup, horizon, 4000)])
    runs = [simulate(SYSTEM, graph, policy, initial_state=np.zeros(3, np.int64), t_grid=grid, seed=ss, levels=2).mean_queue_length[1:].mean(axis=0)
            for ss in seeds]
    return np.array(runs)


def test_truncation_is_negligible():
    np.testing.assert_allclose(exact_means(16), exact_means(22), atol=1e-7)


def test_simulated_per_server_means_match_the_exact_chain():
    exact = exact_means(22)
    sims = simulated_means(JIQ(), spawn(7, 10))
    se = sims.std(axis=0, ddof=1) / np.sqrt(sims.shape[0])
    t = float(stats.t.ppf(1 - 1e-4 / 6, sims.shape[0] - 1))  # two-sided 1e-4 over 3 servers
    assert np.all(np.abs(sims.mean(axis=0) - exact) < t * se), (sims.mean(axis=0), exact, se)


def test_a_dispatcher_with_one_server_is_served_by_it():
    # dispatcher 0 sees server 0 only (degree 1 is allowed; only degree 0 is refused)
    adj = np.array([[1, 0, 0], [0, 1, 1]])
    exact = exact_means(22, adj)
    sims = simulated_means(JIQ(), spawn(12, 10), graph=from_adjacency(adj, [0, 1, 2], [0, 0]))
    se = sims.std(axis=0, ddof=1) / np.sqrt(sims.shape[0])
    t = float(stats.t.ppf(1 - 1e-4 / 6, sims.shape[0] - 1))
    assert np.all(np.abs(sims.mean(axis=0) - exact) < t * se), (sims.mean(axis=0), exact, se)


def test_jiq_is_not_local_jsq1_on_this_graph():
    # d = 1 local JSQ is random routing: its exact per-server means differ from JIQ's by far
    # more than the simulation's error, so the test above distinguishes the two rules
    jiq = simulated_means(JIQ(), spawn(8, 6), horizon=2000.0)
    rnd = simulated_means(LocalJSQ(d=1), spawn(9, 6), horizon=2000.0)
    se = np.sqrt(jiq.var(axis=0, ddof=1) / 6 + rnd.var(axis=0, ddof=1) / 6)
    assert np.max(np.abs(jiq.mean(axis=0) - rnd.mean(axis=0)) / se) > 6


def test_a_dispatcher_without_servers_is_refused():
    graph = from_adjacency(np.array([[1, 1, 0], [0, 0, 0]]), [0, 1, 2], [0, 0])
    with pytest.raises(Exception, match="no compatible server"):
        simulate(SYSTEM, graph, JIQ(), initial_state=np.zeros(3, np.int64), t_grid=[0.0, 1.0], seed=1)
