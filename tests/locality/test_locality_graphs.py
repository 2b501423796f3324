"""irg(p) (Definition 3), complete bipartite and window graphs; Condition 1; Definition 2."""

import hashlib
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from qtheory.errors import ParameterError
from qtheory.locality.graphs import (_kernel_irg, complete_bipartite, condition1_statistics, from_adjacency, irg,
                                     sparsity_statistic, window_graph)
from qtheory.locality.model import paper_system, system_sizes
from qtheory.runtime import kernel_state


def _pair_counts(s, n):
    sizes = system_sizes(s, n)
    return sizes.dispatchers_per_cluster[:, None] * sizes.servers_per_type[None, :]


def test_irg_edges_have_the_prescribed_probabilities():
    # each of the 4 random pairs (k, m) has |E(k, m)| ~ Binomial(|W_k| |V_m|, p_km): its density
    # is judged at 5 standard errors (two-sided P(|Z| > 5) = 6e-7 per pair, 4 pairs). At N = 2000
    # the SE of the sparsest pair (p = 0.05, 4e5 pairs) is 3.4e-4, so a sampler that draws the
    # density p / (1 - p) (skips one short: the failures of the geometric gap without the success)
    # is 7.6 SE off and fails.
    s = paper_system()
    n = 2000
    g = irg(s, n, seed=11)
    stats = condition1_statistics(g)
    pairs = _pair_counts(s, n)
    random = s.p < 1
    se = np.sqrt(s.p * (1 - s.p) / pairs)
    z = np.abs(stats.density - s.p)[random] / se[random]
    assert np.all(z <= 5), z
    assert np.all(stats.density[~random] == 1.0)       # p = 1: every edge present


def test_irg_edges_reach_every_position_of_a_type_uniformly():
    # deg_v(k, j) ~ Binomial(|W_k|, p_km) for every server j, including the first and the last of
    # its type: summed over 20 graphs (seeds 0..19), the edges to the first (last) server of each
    # type from all dispatchers have mean sum_k |W_k| p_km per graph; judged at 5 SE each
    s = paper_system()
    n = 500
    sizes = system_sizes(s, n)
    first = np.concatenate([[0], np.cumsum(sizes.servers_per_type)[:-1]])
    last = first + sizes.servers_per_type - 1
    mean = sizes.dispatchers_per_cluster @ s.p                       # (M,)
    var = sizes.dispatchers_per_cluster @ (s.p * (1 - s.p))
    graphs = 20
    hits_first, hits_last = np.zeros(3), np.zeros(3)
    for seed in range(graphs):
        dense = irg(s, n, seed=seed).to_dense()
        hits_first += dense[:, first].sum(axis=0)
        hits_last += dense[:, last].sum(axis=0)
    for hits in (hits_first, hits_last):
        random = var > 0
        z = np.abs(hits - graphs * mean)[random] / np.sqrt(graphs * var[random])
        assert np.all(z <= 5), z
        assert np.all(hits[~random] == graphs * mean[~random])


def test_irg_neighbour_lists_have_no_repeats_and_respect_types():
    s = paper_system()
    g = irg(s, 200, seed=3)
    for i in range(g.n_dispatchers):
        nb = g.neighbourhood(i)
        assert np.unique(nb).size == nb.size
    dense = g.to_dense()
    assert dense.sum() == g.n_edges
    rebuilt = from_adjacency(dense, g.server_type, g.dispatcher_cluster)
    assert np.array_equal(rebuilt.to_dense(), dense)


def test_irg_is_reproducible_and_seed_dependent():
    s = paper_system()
    a, b, c = irg(s, 100, 5), irg(s, 100, 5), irg(s, 100, 6)
    assert np.array_equal(a.neighbors, b.neighbors) and np.array_equal(a.degree, b.degree)
    assert not np.array_equal(a.to_dense(), c.to_dense())
    # an integer seed means SeedSequence(seed), as for the simulation kernels
    d = irg(s, 100, np.random.SeedSequence(5))
    assert np.array_equal(a.neighbors, d.neighbors)
    distinct = {irg(s, 100, seed).neighbors.tobytes() for seed in range(20)}
    assert len(distinct) == 20


@njit
def _seed_numba_global_generator(seed):
    np.random.seed(seed)
    return np.random.random()


def test_irg_does_not_depend_on_numbas_global_generator():
    s = paper_system()
    _seed_numba_global_generator(1)
    a = irg(s, 300, 9)
    _seed_numba_global_generator(2)
    b = irg(s, 300, 9)
    assert np.array_equal(a.neighbors, b.neighbors)


def _digest(graph):
    return hashlib.sha256(graph.neighbors.tobytes() + graph.degree.tobytes()).hexdigest()


def test_irg_is_the_same_graph_in_a_fresh_process():
    code = ("import hashlib, numpy as np\n"
            "from qtheory.locality.graphs import irg\n"
            "from qtheory.locality.model import paper_system\n"
            "g = irg(paper_system(), 300, 9)\n"
            "print(hashlib.sha256(g.neighbors.tobytes() + g.degree.tobytes()).hexdigest())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == _digest(irg(paper_system(), 300, 9))


def test_irg_kernel_stops_before_overflowing_its_buffer():
    # a p = 1 block larger than the remaining buffer must not be written past its end; irg then
    # retries with a larger buffer from the same generator state, so the graph does not change
    s = paper_system()
    sizes = system_sizes(s, 60)
    type_size = sizes.servers_per_type.astype(np.int64)
    type_start = np.concatenate([[0], np.cumsum(type_size)[:-1]]).astype(np.int64)
    state = kernel_state(4)
    p = np.ascontiguousarray(s.p)
    full = _kernel_irg(state, sizes.dispatcher_cluster, type_start, type_size, p, 10**5)
    assert full[2] > 0
    # room for the first dispatcher's random edges but not for its p = 1 block of type 3
    first_random = int(full[1][0]) - int(type_size[2])
    short = _kernel_irg(state, sizes.dispatcher_cluster, type_start, type_size, p, first_random + 1)
    assert short[2] == -1
    exact = _kernel_irg(state, sizes.dispatcher_cluster, type_start, type_size, p, full[2])
    assert exact[2] == full[2] and np.array_equal(exact[0], full[0][:full[2]])
    assert _kernel_irg(state, sizes.dispatcher_cluster, type_start, type_size, p, full[2] - 1)[2] == -1
    g = irg(s, 60, 4)
    assert np.array_equal(g.neighbors, full[0][:full[2]]) and np.array_equal(g.degree, full[1])


@pytest.mark.parametrize("first", [1, 7, 100])
def test_irg_retries_with_a_doubled_buffer_until_the_graph_fits(monkeypatch, first):
    """The first buffer (mean + 10 SD + 1000 edges) always fits in practice; forced to
    `first` edges, irg must double it (capped at every possible edge) until the graph fits and
    return the graph the default buffer gives, to the bit."""
    from qtheory.locality import graphs

    s = paper_system()
    reference = irg(s, 60, 4)
    sizes = []

    def small(expected, most):
        sizes.append(most)
        return first

    monkeypatch.setattr(graphs, "_first_edge_buffer", small)
    calls = []
    kernel = graphs._kernel_irg

    def counting(*args):
        calls.append(args[-1])
        return kernel(*args)

    monkeypatch.setattr(graphs, "_kernel_irg", counting)
    g = irg(s, 60, 4)
    assert np.array_equal(g.neighbors, reference.neighbors) and np.array_equal(g.degree, reference.degree)
    edges = reference.neighbors.size
    # buffers first, 2 first, 4 first, ... (at most every possible edge) until one holds the graph
    expected_calls = [first]
    while expected_calls[-1] < edges:
        expected_calls.append(min(2 * expected_calls[-1], sizes[0]))
    assert calls == expected_calls
    assert all(type(c) is int for c in calls)


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


def test_sparsity_statistic_for_several_tolerances_equals_one_call_per_tolerance():
    from qtheory.locality.graphs import default_test_sets, irg, sparsity_statistic, window_graph
    from qtheory.locality.model import paper_system

    system = paper_system("design")
    for g in (irg(system, 300, 4), window_graph(system, 300)):
        sets = default_test_sets(g, 9)
        eps = [0.02, 0.05, 0.1, 0.2, 0.4]
        together = sparsity_statistic(g, eps, sets)
        assert together == [sparsity_statistic(g, e, sets) for e in eps]
        assert len(set(together)) > 1     # the tolerances are not all answered alike


def test_sparsity_statistic_names_a_bad_tolerance():
    from qtheory.locality.graphs import complete_bipartite, sparsity_statistic
    from qtheory.locality.model import paper_system

    g = complete_bipartite(paper_system("design"), 30)
    for bad in (0.0, [0.1, -1.0], [], [[0.1]]):
        with pytest.raises(ParameterError, match="eps"):
            sparsity_statistic(g, bad)


def test_irg_refuses_a_graph_beyond_memory_by_its_estimate():
    """With fixed edge densities irg(p^1) has about 0.45 N^2 edges: N = 10^6 would need terabytes;
    the estimate refuses it before the edge buffer is allocated, naming n_servers."""
    from qtheory.errors import MemoryBudgetError
    from qtheory.locality.graphs import irg
    from qtheory.locality.model import paper_system

    with pytest.raises(MemoryBudgetError, match=r"N = 1,000,000 servers .* needs about \d+(\.\d)? GB.*`n_servers`"):
        irg(paper_system("design"), 10 ** 6, 1)


def test_a_system_beyond_memory_is_refused_before_any_array():
    """N = 10^9 servers and as many dispatchers (zeta = 1) at 64 bytes each: 128 GB, refused by name."""
    from qtheory.errors import MemoryBudgetError
    from qtheory.locality.model import paper_system, system_sizes

    with pytest.raises(MemoryBudgetError, match=r"N = 1,000,000,000 servers and 1,000,000,000 dispatchers needs about "
                                                r"128.0 GB.*`n_servers`"):
        system_sizes(paper_system(), 10 ** 9)
    assert system_sizes(paper_system(), 10 ** 6).n_servers == 10 ** 6
