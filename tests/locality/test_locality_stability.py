"""Lemma 1 (exact rho^N), criterion (3.1) (Lemma 2), Lemma 10 (5.2), Proposition 1."""

import itertools

import numpy as np
import pytest

from qtheory.errors import InstabilityError
from qtheory.locality.graphs import complete_bipartite, from_adjacency, irg
from qtheory.locality.model import LocalitySystem, paper_system
from qtheory.locality.stability import (asymptotic_load, complete_bipartite_exact_load,
                                        design_compatibility, exact_load, lemma2_criterion,
                                        require_stable, type_loads)


def test_exact_load_of_complete_bipartite_matches_closed_form():
    s = paper_system("complete")
    g = complete_bipartite(s, 10)            # 5 slow, 3 medium, 2 fast servers, 10 dispatchers
    rho, worst = exact_load(g, s, return_set=True)
    closed = complete_bipartite_exact_load(s.u[g.server_type], g.n_dispatchers, s.arrival_rate, s.d)
    assert rho == pytest.approx(closed, rel=1e-12)
    # the worst set is made of slow servers only: 3 * 10 * C(5,2)/C(10,2) / 5 = 4/3
    assert rho == pytest.approx(4.0 / 3.0)
    assert set(g.server_type[worst]) == {0}


def test_exact_load_with_random_routing_is_the_worst_single_queue():
    s = paper_system().with_d(1)
    g = irg(s, 12, seed=7)
    per_server = np.zeros(g.n_servers)
    for i in range(g.n_dispatchers):
        nb = g.neighbourhood(i)
        per_server[nb] += s.arrival_rate / nb.size
    assert exact_load(g, s) == pytest.approx(np.max(per_server / s.u[g.server_type]), rel=1e-12)


def test_exact_load_agrees_with_direct_subset_formula():
    rng = np.random.default_rng(0)
    adj = (rng.random((4, 6)) < 0.6).astype(int)
    adj[:, 0] = 1
    s = LocalitySystem(1.3, 4 / 6, (0.5, 0.5), (0.5, 0.5), (1.0, 2.0), ((1, 1), (1, 1)), 2)
    g = from_adjacency(adj, [0, 0, 0, 1, 1, 1], [0, 0, 1, 1])
    from math import comb
    best = 0.0
    for size in range(1, 7):
        for U in itertools.combinations(range(6), size):
            inflow = sum(s.arrival_rate * (comb(len(set(U) & set(np.nonzero(row)[0])), 2) / comb(row.sum(), 2)
                                           if row.sum() >= 2 else len(set(U) & set(np.nonzero(row)[0])) / row.sum())
                         for row in adj)
            best = max(best, inflow / sum(s.u[[0, 0, 0, 1, 1, 1][j]] for j in U))
    assert exact_load(g, s) == pytest.approx(best, rel=1e-12)


def test_lemma10_complete_bipartite_example_is_unstable():
    load = asymptotic_load(paper_system("complete"))
    assert load.rho == pytest.approx(1.5)              # 3 * 0.5^2 / 0.5, attained by type 1
    assert load.critical_types == (0,)
    with pytest.raises(InstabilityError, match=r"\(5.2\).*1.5"):
        require_stable(paper_system("complete"))


def test_lemma10_vertex_is_the_supremum_over_all_alpha():
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = rng.random((2, 3))
        s = paper_system(p, d=int(rng.integers(1, 4)))
        rho = asymptotic_load(s).rho
        alpha = rng.random((4000, 3))
        share = alpha @ s.neighbourhood_shares.T
        ratio = s.total_arrival_rate * (share ** s.d @ s.w) / (alpha @ (s.v * s.u))
        assert ratio.max() <= rho * (1 + 1e-12)


def test_exact_load_approaches_lemma10_for_growing_complete_graphs():
    s = paper_system("complete")
    values = []
    for n in (10, 40, 400, 4000):
        g = complete_bipartite(s, n)
        values.append(complete_bipartite_exact_load(s.u[g.server_type], g.n_dispatchers, s.arrival_rate, 2))
    assert abs(values[-1] - 1.5) < abs(values[0] - 1.5)
    assert values[-1] == pytest.approx(1.5, abs=1e-3)


def test_criterion_31_for_the_paper_matrices():
    assert np.allclose(type_loads(paper_system("complete")), [3.0, 0.6, 0.3])
    loads = type_loads(paper_system("design"))
    assert np.all(loads < 1) and loads[1] == pytest.approx(0.9082, abs=1e-4)
    assert lemma2_criterion(paper_system("design")) and not lemma2_criterion(paper_system("complete"))


def test_criterion_31_implies_subcritical_load():
    rng = np.random.default_rng(2)
    hits = 0
    for _ in range(300):
        s = paper_system(rng.random((2, 3)), d=int(rng.integers(1, 4)))
        if lemma2_criterion(s):
            hits += 1
            assert asymptotic_load(s).rho < 1
        assert asymptotic_load(s).rho <= asymptotic_load(s.with_d(1)).rho + 1e-12
        assert asymptotic_load(s.with_d(1)).rho == pytest.approx(type_loads(s).max())
    assert hits >= 5


def test_proposition1_design_balances_every_type_whenever_capacity_suffices():
    rng = np.random.default_rng(3)
    for _ in range(50):
        K, M = rng.integers(1, 4), rng.integers(1, 5)
        v = rng.dirichlet(np.ones(M))
        u = rng.uniform(0.2, 10, M)
        lam = rng.uniform(0.05, 0.999) * (v @ u)
        s = LocalitySystem(lam, 1.0, rng.dirichlet(np.ones(K)), v, u, np.ones((K, M)), 2)
        p = design_compatibility(s)
        designed = s.with_compatibility(p)
        assert np.allclose(type_loads(designed), lam / (v @ u))
        assert lemma2_criterion(designed) and asymptotic_load(designed).rho < 1


def test_proposition1_is_impossible_without_capacity():
    s = LocalitySystem(4.5, 1.0, (0.2, 0.8), (0.5, 0.3, 0.2), (1, 5, 10), np.ones((2, 3)), 2)
    with pytest.raises(InstabilityError, match=r"\(2.1\)"):
        design_compatibility(s)
    # the v u-weighted mean of the loads is lambda zeta / sum v u for any p: no p can help
    rng = np.random.default_rng(4)
    for _ in range(20):
        t = s.with_compatibility(rng.random((2, 3)))
        assert (s.v * s.u) @ type_loads(t) / s.capacity == pytest.approx(s.total_arrival_rate / s.capacity)
        assert type_loads(t).max() >= 1
