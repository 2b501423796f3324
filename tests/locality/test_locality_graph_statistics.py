"""Condition 1 statistics, the sparsity statistic of Definition 2 and the default test sets,
against a direct transcription of the definitions on small hand-made graphs.

The graphs include what random graphs of the paper's systems rarely contain: dispatchers
with no neighbours, (cluster, type) pairs with no edges, neighbourhoods of a single server
and an empty cluster. (These tests kill mutants of `graphs.py` that the graph tests let
through; see benchmarks/mutation/README.md.)
"""

import math

import numpy as np
import pytest

from qtheory.locality.graphs import (condition1_statistics, default_test_sets, from_adjacency,
                                     sparsity_statistic)


def _graph(seed, n_disp=7, n_serv=9, n_types=4, n_clusters=3, empty_cluster=True):
    rng = np.random.default_rng(seed)
    adj = (rng.random((n_disp, n_serv)) < 0.4).astype(int)
    adj[0] = 0                                   # a dispatcher with no neighbours
    adj[1] = 0
    adj[1, 0] = 1                                # a neighbourhood of one server
    server_type = np.arange(n_serv) % (n_types - 1)     # the last type has no server
    used = n_clusters - 1 if empty_cluster else n_clusters
    cluster = np.arange(n_disp) % used           # the last cluster has no dispatcher
    adj[np.ix_(cluster == 0, server_type == 2)] = 0      # a (cluster, type) pair without edges
    return adj, server_type, cluster, from_adjacency(adj, server_type, cluster, n_types, n_clusters)


def _condition1_by_definition(adj, server_type, cluster, K, M):
    dens = np.full((K, M), np.nan)
    rw = np.full((K, M), np.nan)
    rv = np.full((K, M), np.nan)
    for k in range(K):
        for m in range(M):
            sub = adj[np.ix_(cluster == k, server_type == m)]
            if sub.size == 0:
                continue
            dens[k, m] = sub.mean()
            dw, dv = sub.sum(axis=1), sub.sum(axis=0)
            if dw.max() == 0:
                continue
            rw[k, m] = dw.max() / dw.min() if dw.min() else math.inf
            rv[k, m] = dv.max() / dv.min() if dv.min() else math.inf
    return dens, rw, rv


def _bad_fraction_by_definition(adj, cluster, K, u, eps):
    """max over k of the fraction of cluster-k dispatchers i with
    | |N(i) & U| / |N(i)| - |E_k(U)| / |E_k(V)| | >= eps (a dispatcher without neighbours, or a
    cluster without edges, counts as bad; an empty cluster has fraction 0)."""
    worst = 0.0
    for k in range(K):
        rows = adj[cluster == k]
        if rows.shape[0] == 0:
            continue
        e_u, e_v = rows[:, u].sum(), rows.sum()
        bad = 0
        for row in rows:
            if row.sum() == 0 or e_v == 0:
                bad += 1
            elif abs(row[u].sum() / row.sum() - e_u / e_v) >= eps:
                bad += 1
        worst = max(worst, bad / rows.shape[0])
    return worst


@pytest.mark.parametrize("seed", range(6))
def test_condition1_statistics_follow_the_definition(seed):
    adj, st, dc, g = _graph(seed)
    stats = condition1_statistics(g)
    dens, rw, rv = _condition1_by_definition(adj, st, dc, g.n_clusters, g.n_types)
    np.testing.assert_array_equal(np.isnan(stats.density), np.isnan(dens))
    np.testing.assert_allclose(stats.density, dens, equal_nan=True)
    np.testing.assert_allclose(stats.dispatcher_degree_ratio, rw, equal_nan=True)
    np.testing.assert_allclose(stats.server_degree_ratio, rv, equal_nan=True)
    assert stats.min_dispatcher_degree == adj.sum(axis=1).min() == 0
    # the pair (cluster 0, type 3) has no edges: ratios are nan (not inf), density 0
    assert stats.density[0, 2] == 0 and math.isnan(stats.dispatcher_degree_ratio[0, 2])


def test_a_single_neighbour_gives_a_finite_degree_ratio():
    adj = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
    g = from_adjacency(adj, [0, 0, 0], [0, 0, 0])
    stats = condition1_statistics(g)
    assert stats.dispatcher_degree_ratio[0, 0] == 3.0          # degrees 2, 1, 3
    assert stats.server_degree_ratio[0, 0] == 3.0              # degrees 3, 2, 1


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("eps", [0.05, 0.2, 0.5])
def test_sparsity_statistic_follows_definition_2(seed, eps):
    adj, st, dc, g = _graph(seed, n_disp=12, n_serv=10)
    rng = np.random.default_rng(100 + seed)
    sets = [rng.random(g.n_servers) < 0.5 for _ in range(5)] + [st == 1]
    expected = max(_bad_fraction_by_definition(adj, dc, g.n_clusters, u, eps) for u in sets)
    assert sparsity_statistic(g, eps, test_sets=sets) == pytest.approx(expected, abs=1e-15)
    # one set at a time too (the maximum could hide a wrong fraction)
    for u in sets:
        assert sparsity_statistic(g, eps, test_sets=[u]) == pytest.approx(
            _bad_fraction_by_definition(adj, dc, g.n_clusters, u, eps), abs=1e-15)


def test_sparsity_statistic_by_hand():
    adj = np.array([[1, 1, 1, 0], [0, 0, 0, 1]])
    g = from_adjacency(adj, [0, 0, 1, 1], [0, 0])
    u = np.array([True, False, False, False])
    # |E(U)| / |E(V)| = 1/4; dispatcher 0 sees 1/3 (off by 1/12), dispatcher 1 sees 0 (off by 1/4)
    assert sparsity_statistic(g, 0.05, test_sets=[u]) == 1.0
    assert sparsity_statistic(g, 0.1, test_sets=[u]) == 0.5
    assert sparsity_statistic(g, 0.25, test_sets=[u]) == 0.5      # ">= eps" counts the boundary
    assert sparsity_statistic(g, 0.26, test_sets=[u]) == 0.0


def test_a_cluster_of_one_dispatcher_without_neighbours_is_all_bad():
    # In a cluster of one dispatcher, |N(i) & U| / |N(i)| is the cluster's own share
    # |E_k(U)| / |E_k(V)|, so the only eps-bad dispatcher such a cluster can hold is one
    # without neighbours (which Definition 2's ratio leaves undefined and we count as bad):
    # its fraction is 1/1, whatever eps
    u = np.array([True, False, False])
    lonely = from_adjacency(np.array([[1, 1, 0], [1, 0, 1], [0, 0, 0]]), [0, 0, 1], [0, 0, 1])
    for eps in (0.01, 0.5, 1.0):
        assert sparsity_statistic(lonely, eps, test_sets=[u]) == 1.0
    # cluster 0 alone: both dispatchers see 1/2 of their edges in U, as the cluster does
    assert sparsity_statistic(from_adjacency(np.array([[1, 1, 0], [1, 0, 1]]), [0, 0, 1], [0, 0]),
                              0.01, test_sets=[u]) == 0.0
    # a one-dispatcher cluster with neighbours is never bad: its share is its own
    served = from_adjacency(np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]]), [0, 0, 1], [0, 0, 1])
    assert sparsity_statistic(served, 0.01, test_sets=[u]) == 0.0


def test_default_test_sets_start_with_the_server_types():
    adj, st, dc, g = _graph(0, n_disp=12)
    sets = default_test_sets(g, 5)
    for m in range(g.n_types):
        np.testing.assert_array_equal(sets[m], st == m)
    assert len(sets) == g.n_types + 3 * 8 + 2 * 8


def test_irg_may_draw_a_graph_without_edges():
    from qtheory.locality.graphs import irg
    from qtheory.locality.model import LocalitySystem

    system = LocalitySystem(0.5, 1.0, (1.0,), (0.5, 0.5), (1.0, 1.0), ((1e-6, 1e-6),), 2)
    g = irg(system, 4, seed=1)              # 4 x 4 pairs at p = 1e-6: no edge (probability 1 - 1.6e-5)
    assert g.neighbors.size == 0 and not g.degree.any()
    assert condition1_statistics(g).min_dispatcher_degree == 0
