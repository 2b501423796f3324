"""Compatibility graphs between dispatchers and servers, stored compactly.

A graph keeps, for each dispatcher i, the slice ``neighbors[offset[i] : offset[i] +
degree[i]]`` of one int32 array. Slices may share storage: the complete bipartite graph
stores ``arange(N)`` once, so it costs O(N + W) memory for any N; an irg(p) graph costs
4 bytes per edge (:math:`N = 10^4` with the design :math:`p^1` of Sec. 6 is about 170 MB).

Samplers: :func:`irg` (Definition 3), :func:`complete_bipartite`, and
:func:`window_graph`, a deterministic graph with the same edge densities that satisfies
Condition 1 but is *not* clustered proportionally sparse (a counterexample for Theorems
3 and 8). Diagnostics: :func:`condition1_statistics` (Condition 1) and
:func:`sparsity_statistic` (Definition 2, empirically over test sets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import ParameterError
from .._rng import uniform
from ..runtime import kernel_state
from ..validation import check_array, check_integer, check_real, check_seed
from .model import LocalitySystem, SystemSizes, system_sizes

__all__ = ["CompatibilityGraph", "irg", "complete_bipartite", "window_graph", "from_adjacency",
           "Condition1Statistics", "condition1_statistics", "sparsity_statistic", "default_test_sets"]


@dataclass(frozen=True, eq=False)
class CompatibilityGraph:
    """A bipartite dispatcher/server graph.

    Attributes
    ----------
    server_type : int64 array (N,)
        Type of each server.
    dispatcher_cluster : int64 array (W,)
        Cluster of each dispatcher.
    offset, degree : int64 arrays (W,)
        Dispatcher i's neighbours are ``neighbors[offset[i]:offset[i] + degree[i]]``.
    neighbors : int32 array
        Concatenated (possibly shared) neighbour lists, each without repeats.
    n_types, n_clusters : int
        M and K (some types/clusters may be empty in hand-made graphs).
    """

    server_type: np.ndarray
    dispatcher_cluster: np.ndarray
    offset: np.ndarray
    degree: np.ndarray
    neighbors: np.ndarray
    n_types: int
    n_clusters: int

    @property
    def n_servers(self) -> int:
        return self.server_type.size

    @property
    def n_dispatchers(self) -> int:
        return self.dispatcher_cluster.size

    @property
    def n_edges(self) -> int:
        return int(self.degree.sum())

    def neighbourhood(self, dispatcher: int) -> np.ndarray:
        """Servers compatible with `dispatcher`."""
        i = check_integer("dispatcher", dispatcher, low=0, high=self.n_dispatchers - 1)
        return self.neighbors[self.offset[i]:self.offset[i] + self.degree[i]]

    def to_dense(self) -> np.ndarray:
        """Dense 0/1 adjacency (W, N); only for small graphs."""
        if self.n_servers * self.n_dispatchers > 10**8:
            raise ParameterError("the graph is too large for a dense adjacency matrix")
        adj = np.zeros((self.n_dispatchers, self.n_servers), dtype=np.int8)
        for i in range(self.n_dispatchers):
            adj[i, self.neighbourhood(i)] = 1
        return adj


def from_adjacency(adjacency, server_type, dispatcher_cluster, n_types: int | None = None,
                   n_clusters: int | None = None) -> CompatibilityGraph:
    """Build a graph from a dense 0/1 matrix ``adjacency[i, j]`` (dispatcher i, server j)."""
    adj = check_array("adjacency", adjacency, ndim=2, low=0, high=1, dtype=np.int64)
    st = check_array("server_type", server_type, ndim=1, low=0, dtype=np.int64)
    dc = check_array("dispatcher_cluster", dispatcher_cluster, ndim=1, low=0, dtype=np.int64)
    if st.size != adj.shape[1]:
        raise ParameterError(f"`server_type` must have one entry per column of `adjacency` "
                             f"({adj.shape[1]} servers, got {st.size})")
    if dc.size != adj.shape[0]:
        raise ParameterError(f"`dispatcher_cluster` must have one entry per row of `adjacency` "
                             f"({adj.shape[0]} dispatchers, got {dc.size})")
    degree = adj.sum(axis=1).astype(np.int64)
    offset = np.concatenate([[0], np.cumsum(degree)[:-1]]).astype(np.int64)
    neighbors = np.nonzero(adj)[1].astype(np.int32)
    return CompatibilityGraph(st, dc, offset, degree, neighbors,
                              int(n_types if n_types is not None else st.max() + 1),
                              int(n_clusters if n_clusters is not None else dc.max() + 1))


def complete_bipartite(system: LocalitySystem, n_servers: int) -> CompatibilityGraph:
    """The fully flexible system: every dispatcher is connected to every server (p = 1)."""
    sizes = system_sizes(system, n_servers)
    w = sizes.n_dispatchers
    return CompatibilityGraph(sizes.server_type, sizes.dispatcher_cluster, np.zeros(w, np.int64),
                              np.full(w, sizes.n_servers, np.int64),
                              np.arange(sizes.n_servers, dtype=np.int32), system.n_types, system.n_clusters)


@njit(cache=True)
def _kernel_irg(rng_state, dispatcher_cluster, type_start, type_size, p, max_edges):
    rng = rng_state.copy()
    n_disp = dispatcher_cluster.size
    n_types = type_start.size
    neighbors = np.empty(max_edges, np.int32)
    degree = np.zeros(n_disp, np.int64)
    e = 0
    for i in range(n_disp):
        k = dispatcher_cluster[i]
        for m in range(n_types):
            prob = p[k, m]
            if prob <= 0.0:
                continue
            start = type_start[m]
            size = type_size[m]
            if prob >= 1.0:
                if e + size > max_edges:
                    return neighbors, degree, -1
                for j in range(size):
                    neighbors[e] = start + j
                    e += 1
                degree[i] += size
                continue
            # geometric skips: the gaps between successes of independent Bernoulli(prob)
            # trials, G = floor(log(1 - U) / log(1 - prob)) failures before each success
            log_q = np.log1p(-prob)
            j = -1
            while True:
                j += 1 + int(np.floor(np.log(1.0 - uniform(rng)) / log_q))
                if j >= size:
                    break
                if e >= max_edges:
                    return neighbors, degree, -1
                neighbors[e] = start + j
                e += 1
                degree[i] += 1
    return neighbors, degree, e


def _first_edge_buffer(expected: float, most: int) -> int:
    """Size of irg's first edge buffer: the mean number of edges plus 10 standard deviations
    and 1000, at most every possible edge (a retry doubles it; tests replace this function
    to reach the retry)."""
    return min(int(expected + 10 * np.sqrt(expected + 1) + 1000), most)


def irg(system: LocalitySystem, n_servers: int, seed, *, compatibility=None) -> CompatibilityGraph:
    """Sample the N-th graph of irg(p) (Definition 3).

    Dispatcher i of cluster k and server j of type m are joined with probability
    ``p[k, m]``, independently over all pairs (sampled by geometric skipping, O(edges)).
    The draws come from the kernels' xoshiro256+ generator (:mod:`qtheory._rng`) seeded
    by :func:`qtheory.runtime.kernel_state` of `seed`, so the graph is a function of
    `seed` alone (the same in every process, whatever numba's global generator holds).

    Parameters
    ----------
    system : LocalitySystem
        Gives the sizes and, unless `compatibility` is given, p.
    n_servers : int
        N.
    seed : int or numpy.random.SeedSequence
        Seed of the graph (e.g. ``child_seed(seed, "graph", ...)`` or a child sequence).
    compatibility : array (K, M), optional
        Edge probabilities to use instead of ``system.p``.
    """
    if not isinstance(seed, np.random.SeedSequence):
        seed = check_seed("seed", seed)
    state = kernel_state(seed)
    sizes = system_sizes(system, n_servers)
    p = system.p if compatibility is None else check_array(
        "compatibility", compatibility, shape=system.p.shape, low=0.0, high=1.0)
    p = np.ascontiguousarray(p, dtype=np.float64)
    type_size = sizes.servers_per_type.astype(np.int64)
    type_start = np.concatenate([[0], np.cumsum(type_size)[:-1]]).astype(np.int64)
    pairs = sizes.dispatchers_per_cluster[:, None] * type_size[None, :]
    expected = float((pairs * p).sum())
    most = int((pairs * (p > 0)).sum())           # every possible edge present
    max_edges = _first_edge_buffer(expected, most)
    # the edge buffer (int32), its copy, and what a simulation then keeps per edge (the
    # neighbour list and its type-grouped copy): about 16 bytes per edge
    from .._memory import require_memory
    require_memory(16.0 * max_edges + 64.0 * sizes.n_servers,
                   what=f"an irg graph with N = {sizes.n_servers:,} servers (about {expected:.3g} edges: with fixed "
                        "edge densities the edges grow as N squared)", parameter="n_servers")
    while True:
        # the same state each time: a retry with a larger buffer draws the same graph
        neighbors, degree, used = _kernel_irg(state, sizes.dispatcher_cluster, type_start, type_size, p,
                                              max(max_edges, 1))
        if used >= 0:
            break
        max_edges = min(2 * max_edges, most)
    neighbors = neighbors[:used].copy()
    offset = np.concatenate([[0], np.cumsum(degree)[:-1]]).astype(np.int64)
    return CompatibilityGraph(sizes.server_type, sizes.dispatcher_cluster, offset, degree, neighbors,
                              system.n_types, system.n_clusters)


def window_graph(system: LocalitySystem, n_servers: int) -> CompatibilityGraph:
    """A deterministic graph with edge densities p that is not proportionally sparse.

    The r-th dispatcher of cluster k is joined, for every type m, to a cyclic window of
    ``round(p[k, m] |V_m|)`` consecutive type-m servers starting at ``r |V_m| / |W_k|``.
    Degrees are (nearly) equal, so Condition 1 holds, but neighbourhoods of nearby
    dispatchers overlap almost completely: a set of servers concentrated in a few windows
    is seen very differently by different dispatchers, so (3.8) fails.
    """
    sizes = system_sizes(system, n_servers)
    type_size = sizes.servers_per_type
    type_start = np.concatenate([[0], np.cumsum(type_size)[:-1]])
    lists = []
    for k, nk in enumerate(sizes.dispatchers_per_cluster):
        for r in range(nk):
            parts = []
            for m in range(system.n_types):
                width = int(round(system.p[k, m] * type_size[m]))
                first = (r * type_size[m]) // nk
                parts.append(type_start[m] + (first + np.arange(width)) % type_size[m])
            lists.append(np.concatenate(parts).astype(np.int32))
    degree = np.array([a.size for a in lists], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(degree)[:-1]]).astype(np.int64)
    return CompatibilityGraph(sizes.server_type, sizes.dispatcher_cluster, offset, degree,
                              np.concatenate(lists), system.n_types, system.n_clusters)


# -- Condition 1 -----------------------------------------------------------------------

@njit(cache=True)
def _kernel_degrees(offset, degree, neighbors, server_type, dispatcher_cluster, n_types, n_clusters):
    n_disp = offset.size
    deg_w = np.zeros((n_disp, n_types), np.int64)        # deg_w(i, m)
    deg_v = np.zeros((n_clusters, server_type.size), np.int64)  # deg_v(k, j)
    for i in range(n_disp):
        k = dispatcher_cluster[i]
        for e in range(offset[i], offset[i] + degree[i]):
            j = neighbors[e]
            deg_w[i, server_type[j]] += 1
            deg_v[k, j] += 1
    return deg_w, deg_v


@dataclass(frozen=True)
class Condition1Statistics:
    """Empirical version of Condition 1 for one graph.

    Attributes
    ----------
    density : (K, M) array
        ``|E(k, m)| / (|W_k| |V_m|)``, which tends to ``p[k, m]`` (2.2).
    dispatcher_degree_ratio : (K, M) array
        ``max_i deg_w(i, m) / min_i deg_w(i, m)`` over cluster-k dispatchers (tends to 1).
    server_degree_ratio : (K, M) array
        ``max_j deg_v(k, j) / min_j deg_v(k, j)`` over type-m servers (tends to 1).
    min_dispatcher_degree : int
        Smallest neighbourhood size ``delta_i``.
    """

    density: np.ndarray
    dispatcher_degree_ratio: np.ndarray
    server_degree_ratio: np.ndarray
    min_dispatcher_degree: int


def condition1_statistics(graph: CompatibilityGraph) -> Condition1Statistics:
    """Edge densities and degree ratios of Condition 1 (ratios are inf if a min is 0, nan
    for a pair with no edges at all)."""
    deg_w, deg_v = _kernel_degrees(graph.offset, graph.degree, graph.neighbors, graph.server_type,
                                   graph.dispatcher_cluster, graph.n_types, graph.n_clusters)
    K, M = graph.n_clusters, graph.n_types
    density = np.full((K, M), np.nan)
    ratio_w = np.full((K, M), np.nan)
    ratio_v = np.full((K, M), np.nan)
    for k in range(K):
        disp = graph.dispatcher_cluster == k
        for m in range(M):
            serv = graph.server_type == m
            if not disp.any() or not serv.any():
                continue
            dw = deg_w[disp, m]
            dv = deg_v[k, serv]
            density[k, m] = dw.sum() / (disp.sum() * serv.sum())
            if dw.max() > 0:
                ratio_w[k, m] = dw.max() / dw.min() if dw.min() > 0 else np.inf
                ratio_v[k, m] = dv.max() / dv.min() if dv.min() > 0 else np.inf
    return Condition1Statistics(density, ratio_w, ratio_v, int(graph.degree.min()))


# -- clustered proportional sparsity (Definition 2) --------------------------------------

@njit(cache=True)
def _kernel_hits(offset, degree, neighbors, in_sets):
    """``hits[s, i] = |N(i) & U_s|`` for every test set s and dispatcher i.

    Dispatcher-major: each neighbour list is read from memory once and scanned once per
    set while it sits in the first-level cache (the sets, one byte per server each, stay
    in the second level up to N of about 10^4 with 43 sets)."""
    n_sets = in_sets.shape[0]
    n_disp = offset.size
    hits = np.zeros((n_sets, n_disp), np.int64)
    for i in range(n_disp):
        lo = offset[i]
        hi = lo + degree[i]
        for s in range(n_sets):
            row = in_sets[s]
            c = 0
            for e in range(lo, hi):
                c += row[neighbors[e]]
            hits[s, i] = c
    return hits


def _bad_fractions(hits, degree, dispatcher_cluster, n_clusters, eps):
    """Fraction of eps-bad dispatchers of each cluster, for each test set (rows of `hits`)."""
    edges_u = np.zeros((hits.shape[0], n_clusters))
    for k in range(n_clusters):
        edges_u[:, k] = hits[:, dispatcher_cluster == k].sum(axis=1)
    edges_v = np.bincount(dispatcher_cluster, weights=degree, minlength=n_clusters).astype(float)
    count = np.bincount(dispatcher_cluster, minlength=n_clusters).astype(float)
    ev = edges_v[dispatcher_cluster]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = edges_u[:, dispatcher_cluster] / ev
        own = hits / degree
        bad = (degree == 0) | (ev == 0) | (np.abs(own - share) >= eps)
    frac = np.zeros((hits.shape[0], n_clusters))
    for k in range(n_clusters):
        if count[k] > 0:
            frac[:, k] = bad[:, dispatcher_cluster == k].sum(axis=1) / count[k]
    return frac


def default_test_sets(graph: CompatibilityGraph, seed: int, n_random: int = 8,
                      n_neighbourhoods: int = 8) -> list[np.ndarray]:
    """Test sets U for :func:`sparsity_statistic`.

    Each server type; random subsets of density 1/4, 1/2 and 3/4 (`n_random` each);
    and the neighbourhoods of `n_neighbourhoods` random dispatchers together with the
    union of the neighbourhoods of a few consecutive dispatchers (the sets that expose
    graphs whose neighbourhoods are clumped, such as :func:`window_graph`).
    """
    rng = np.random.default_rng(seed)
    n = graph.n_servers
    sets = [graph.server_type == m for m in range(graph.n_types)]
    for density in (0.25, 0.5, 0.75):
        sets += [rng.random(n) < density for _ in range(n_random)]
    for i in rng.choice(graph.n_dispatchers, size=min(n_neighbourhoods, graph.n_dispatchers), replace=False):
        u = np.zeros(n, dtype=bool)
        u[graph.neighbourhood(int(i))] = True
        sets.append(u)
        block = np.zeros(n, dtype=bool)
        for r in range(int(i), min(int(i) + 5, graph.n_dispatchers)):
            block[graph.neighbourhood(r)] = True
        sets.append(block)
    return sets


def sparsity_statistic(graph: CompatibilityGraph, eps, test_sets=None, seed: int = 0):
    """Empirical left side of (3.8) (Definition 2) over a family of test sets.

    For each test set U and cluster k, the fraction of cluster-k dispatchers i with
    ``| |N(i) & U| / |N(i)| - |E_k(U)| / |E_k(V)| | >= eps``; the maximum over U and k is
    returned. The supremum over all :math:`2^N` sets in (3.8) cannot be computed, so this is a
    lower bound of it; clustered proportional sparsity requires it to tend to 0 for
    every :math:`\\varepsilon > 0`.

    Parameters
    ----------
    graph : CompatibilityGraph
    eps : float or sequence of floats
        Tolerance (> 0). For a sequence, one value per tolerance is returned (a list);
        the intersections ``N(i) & U`` are counted once for all of them.
    test_sets : list of boolean arrays (N,), optional
        Default :func:`default_test_sets` (graph, `seed`).
    """
    many = np.ndim(eps) == 1
    if np.ndim(eps) > 1:
        raise ParameterError("`eps` must be a number or a one-dimensional sequence of numbers")
    tolerances = [check_real("eps", e, low=0.0, low_open=True) for e in (eps if many else [eps])]
    if many and not tolerances:
        raise ParameterError("`eps` must not be empty")
    if test_sets is None:
        test_sets = default_test_sets(graph, seed)
    rows = []
    for s, u in enumerate(test_sets):
        u = np.asarray(u, dtype=np.bool_)
        if u.shape != (graph.n_servers,):
            raise ParameterError(f"`test_sets[{s}]` must be a boolean array of length {graph.n_servers}")
        rows.append(u)
    if not rows:
        return [0.0] * len(tolerances) if many else 0.0
    in_sets = np.ascontiguousarray(np.array(rows, dtype=np.uint8))
    hits = _kernel_hits(graph.offset, graph.degree, graph.neighbors, in_sets)
    worst = [float(_bad_fractions(hits, graph.degree, graph.dispatcher_cluster, graph.n_clusters, e).max())
             for e in tolerances]
    return worst if many else worst[0]
