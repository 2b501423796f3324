"""irg(p) (Definition 3), complete bipartite and window graphs; Condition 1; Definition 2."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.graphs import (complete_bipartite, condition1_statistics, from_adjacency, irg,
                                     sparsity_statistic, window_graph)
from qtheory.locality.model import paper_system, system_sizes


def test_irg_edges_have_the_prescribed_probabilities():
    s = paper_system()
    g = irg(s, 400, seed=11)
    sizes = system_sizes(s, 400)
    stats = condition1_statistics(g)
    pairs = sizes.dispatchers_per_cluster[:, None] * sizes.servers_per_type[None, :]
    se = np.sqrt(s.p * (1 - s.p) / pairs)
    assert np.all(np.abs(stats.density - s.p) <= 5 * se + 1e-12)
    assert np.all(stats.density[:, 2] == 1.0)        # p = 1: every edge present


def test_irg_neighbour_lists_have_no_repeats_and_respect_types():
    s = paper_system()
    g = irg(s, 200, seed=3)
    for i in range(0, g.n_dispatchers, 17):
        nb = g.neighbourhood(i)
        assert np.unique(nb).size == nb.size
    dense = g.to_dense()
    assert dense.sum() == g.n_edges
    rebuilt = from_adjacency(dense, g.server_type, g.dispatcher_cluster)
    assert np.array_equal(rebuilt.to_dense(), dense)


def test_irg_is_reproducible_and_seed_dependent():
    s = paper_system()
    a, b, c = irg(s, 100, 5), irg(s, 100, 5), irg(s, 100, 6)
    assert np.array_equal(a.neighbors, b.neighbors)
    assert not np.array_equal(a.to_dense(), c.to_dense())


def test_complete_bipartite_is_stored_once_for_large_n():
    s = paper_system("complete")
    g = complete_bipartite(s, 20000)
    assert g.n_edges == 20000 * 20000
    assert g.neighbors.nbytes == 4 * 20000             # one shared list, not N * W entries
    assert np.array_equal(g.neighbourhood(123), np.arange(20000))


def test_irg_at_ten_thousand_servers_is_compact():
    s = paper_system()
    g = irg(s, 10_000, seed=1)
    expected = 10_000 * (0.2 * 0.405 + 0.8 * 0.46) * 10_000
    assert abs(g.n_edges - expected) < 5 * np.sqrt(expected)
    assert g.neighbors.dtype == np.int32 and g.neighbors.nbytes < 4.1 * expected


def test_condition1_degree_ratios_shrink_for_irg():
    s = paper_system()
    ratios = []
    for n in (200, 800, 3200):
        st = condition1_statistics(irg(s, n, seed=2))
        ratios.append(max(np.nanmax(st.dispatcher_degree_ratio), np.nanmax(st.server_degree_ratio)))
    # max/min degree ratios tend to 1 slowly (about 1 + c sqrt(log N / N)); the sparsest
    # pair (p = 0.05) dominates
    assert ratios[0] > ratios[1] > ratios[2] > 1


def test_sparsity_statistic_vanishes_for_irg_but_not_for_window_graph():
    s = paper_system()
    irg_stat = [sparsity_statistic(irg(s, n, seed=4), eps=0.1, seed=1) for n in (200, 2000)]
    win_stat = sparsity_statistic(window_graph(s, 2000), eps=0.1, seed=1)
    assert irg_stat[1] < irg_stat[0] or irg_stat[1] == 0.0
    assert irg_stat[1] < 0.01
    assert win_stat > 0.3                               # (3.8) fails for clumped neighbourhoods
    st = condition1_statistics(window_graph(s, 2000))   # ... although Condition 1 holds
    assert np.allclose(st.density, s.p, atol=0.01)
    assert np.nanmax(st.dispatcher_degree_ratio) == 1.0


def test_sparsity_statistic_checks_its_inputs():
    g = irg(paper_system(), 50, seed=1)
    with pytest.raises(ParameterError, match="eps"):
        sparsity_statistic(g, eps=0.0)
    with pytest.raises(ParameterError, match=r"test_sets\[0\]"):
        sparsity_statistic(g, eps=0.1, test_sets=[np.ones(3, bool)])
