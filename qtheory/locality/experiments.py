"""Replicated experiments behind the L notebooks (module-level, picklable, seeded).

Each ``*_replication`` function takes a :class:`numpy.random.SeedSequence` first (as
:func:`qtheory.runtime.replicate` passes it), builds its own graph and initial state
from it, runs one simulation and returns plain arrays. The summaries turn a list of
replications into estimates with confidence intervals.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..stats import mean_ci
from ..validation import check_array, check_integer, check_seed
from .graphs import CompatibilityGraph, complete_bipartite, irg, window_graph
from .model import LocalitySystem
from .simulation import exact_initial_state, iid_initial_state, simulate_gwsq, simulate_jsqd

__all__ = ["build_graph", "trajectory_replication", "stationary_replication", "population_stationary_replication",
           "occupancy_summary", "sup_l1_error", "pair_correlation", "loglog_slope"]


def build_graph(system: LocalitySystem, n_servers: int, kind, seed):
    """``kind`` = "irg" (Definition 3, drawn from `seed`), "complete" (p = 1) or "window"
    (see graphs); a :class:`~qtheory.locality.graphs.CompatibilityGraph` is returned as
    it is (one fixed graph shared by all replications), after checking its size."""
    if isinstance(kind, CompatibilityGraph):
        if kind.n_servers != n_servers or kind.n_types != system.n_types or kind.n_clusters != system.n_clusters:
            raise ParameterError(f"the given graph has {kind.n_servers} servers, {kind.n_types} types and "
                                 f"{kind.n_clusters} clusters; the experiment needs {n_servers} servers, "
                                 f"{system.n_types} types and {system.n_clusters} clusters")
        return kind
    if kind == "irg":
        return irg(system, n_servers, seed)
    if kind == "complete":
        return complete_bipartite(system, n_servers)
    if kind == "window":
        return window_graph(system, n_servers)
    raise ParameterError(f"`kind` must be 'irg', 'complete' or 'window' (got {kind!r})")


def _seeds(seed_sequence: np.random.SeedSequence):
    graph_ss, state_ss, sim_ss = seed_sequence.spawn(3)
    return graph_ss, np.random.default_rng(state_ss), sim_ss


def trajectory_replication(seed_sequence, system: LocalitySystem, n_servers: int, graph_kind: str, q0,
                           t_grid, *, levels: int = 10, policy: str = "jsqd", start: str = "iid") -> dict:
    """One simulated path of the occupancy on `t_grid`.

    Parameters
    ----------
    graph_kind : "irg", "complete", "window" or a CompatibilityGraph
        A new graph per replication (drawn from the replication's seed), or one given
        graph for every replication.
    start : "iid" or "sorted"
        Independent initial lengths with tails `q0` (Theorems 1-2), or the deterministic
        state of :func:`~qtheory.locality.simulation.exact_initial_state` sorted by
        server index (Theorem 3).
    policy : "jsqd" or "gwsq"
    """
    graph_seed, rng, sim_ss = _seeds(seed_sequence)
    graph = build_graph(system, n_servers, graph_kind, graph_seed)
    if start == "iid":
        x0 = iid_initial_state(graph, q0, rng)
    elif start == "sorted":
        x0 = exact_initial_state(graph, q0)
    else:
        raise ParameterError(f"`start` must be 'iid' or 'sorted' (got {start!r})")
    sim = {"jsqd": simulate_jsqd, "gwsq": simulate_gwsq}.get(policy)
    if sim is None:
        raise ParameterError(f"`policy` must be 'jsqd' or 'gwsq' (got {policy!r})")
    res = sim(system, graph, x0, t_grid, sim_ss, levels=levels)
    return {"occupancy": res.occupancy, "mean_queue_length": res.mean_queue_length,
            "mean_square": res.mean_square, "events": res.events, "seconds": res.seconds,
            "servers_per_type": np.bincount(graph.server_type, minlength=system.n_types)}


def stationary_replication(seed_sequence, system: LocalitySystem, n_servers: int, graph_kind: str,
                           burn_in: float, horizon: float, *, n_samples: int = 2000, levels: int = 6,
                           q0=None) -> dict:
    """Time-averaged occupancy over ``[burn_in, horizon]`` (Theorem 6).

    The system starts empty, or from i.i.d. lengths with tails `q0` (to shorten the
    burn-in of slowly mixing systems). The average is over `n_samples` equally spaced
    times; the mean over independent replications estimates ``E q^N(infinity)``.
    """
    graph_seed, rng, sim_ss = _seeds(seed_sequence)
    graph = build_graph(system, n_servers, graph_kind, graph_seed)
    grid = np.concatenate([[0.0], np.linspace(burn_in, horizon, n_samples)])
    x0 = np.zeros(graph.n_servers, np.int64) if q0 is None else iid_initial_state(graph, q0, rng)
    res = simulate_jsqd(system, graph, x0, grid, sim_ss, levels=levels)
    return {"occupancy": res.occupancy[1:].mean(axis=0), "events": res.events}


def population_stationary_replication(seed_sequence, system: LocalitySystem, n_servers: int, policy: str,
                                      burn_in: float, horizon: float, *, n_samples: int = 5000,
                                      levels: int = 4) -> dict:
    """Time averages over ``[burn_in, horizon]`` of a system whose occupancy is a population
    process (the simulation route of :mod:`qtheory.locality.refined`).

    ``policy="gwsq"``: GWSQ(d) (only the server types and clusters of the complete graph
    are used); ``"jsqd-complete"``: local JSQ(d) on the complete bipartite graph. The system
    starts empty; the averages are over `n_samples` equally spaced times (each one a draw
    from the stationary law after the burn-in), so the mean over independent replications
    estimates ``E[q^N]`` and its spread gives the standard error.

    Returns
    -------
    dict with ``occupancy`` (M, levels), ``mean_queue_length`` (M,) and ``events``.
    """
    if policy not in ("gwsq", "jsqd-complete"):
        raise ParameterError(f"`policy` must be 'gwsq' or 'jsqd-complete' (got {policy!r})")
    if not 0.0 <= burn_in < horizon:
        raise ParameterError(f"need 0 <= `burn_in` < `horizon` (got {burn_in}, {horizon})")
    n_samples = check_integer("n_samples", n_samples, low=1)
    graph = complete_bipartite(system, n_servers)
    grid = np.concatenate([[0.0], np.linspace(burn_in, horizon, n_samples)]) if burn_in > 0 else \
        np.linspace(burn_in, horizon, n_samples)
    x0 = np.zeros(graph.n_servers, np.int64)
    sim = simulate_gwsq if policy == "gwsq" else simulate_jsqd
    res = sim(system, graph, x0, grid, seed_sequence, levels=levels)
    keep = slice(1, None) if burn_in > 0 else slice(None)
    return {"occupancy": res.occupancy[keep].mean(axis=0),
            "mean_queue_length": res.mean_queue_length[keep].mean(axis=0), "events": res.events}


def occupancy_summary(occupancy, mean_queue_length, type_fractions) -> dict:
    """The numbers of the finite-N table (page L-R-finite) from an occupancy.

    Parameters
    ----------
    occupancy : (M, L) array, L >= 2
        ``q_{m,l}``.
    mean_queue_length : (M,) array
        Mean queue length per type.
    type_fractions : (M,) array
        ``v_m`` (weights of the overall mean).

    Returns
    -------
    dict
        ``"mean"`` (over all servers) and, for each type m = 1..M, ``"mean[m]"``,
        ``"q[m,1]"`` and ``"q[m,2]"``, in this order.
    """
    occupancy = check_array("occupancy", occupancy, ndim=2)
    if occupancy.shape[1] < 2:
        raise ParameterError(f"`occupancy` needs at least two levels (got shape {occupancy.shape})")
    mean_queue_length = check_array("mean_queue_length", mean_queue_length, shape=(occupancy.shape[0],))
    v = check_array("type_fractions", type_fractions, shape=(occupancy.shape[0],))
    out = {"mean": float(v @ mean_queue_length)}
    for m in range(occupancy.shape[0]):
        out[f"mean[{m + 1}]"] = float(mean_queue_length[m])
        out[f"q[{m + 1},1]"] = float(occupancy[m, 0])
        out[f"q[{m + 1},2]"] = float(occupancy[m, 1])
    return out


def sup_l1_error(occupancy, reference) -> np.ndarray:
    """``sup_t sum_{m,l} |q^N_{m,l}(t) - q_{m,l}(t)|`` for each path (arrays (..., T, M, L))."""
    occupancy = np.asarray(occupancy)
    reference = np.asarray(reference)
    L = min(occupancy.shape[-1], reference.shape[-1])
    diff = np.abs(occupancy[..., :L] - reference[..., :L]).sum(axis=(-1, -2))
    return diff.max(axis=-1)


def pair_correlation(mean, mean_square, n_servers: int, *, n_boot: int = 1000, seed: int = 0):
    """Correlation of two distinct tagged servers of one type, from whole-type sums.

    Servers of a type are exchangeable (random graph, i.i.d. start), so with
    ``S = sum_j X_j`` over the type's n servers, ``Var S = n Var X (1 + (n - 1) corr)``.
    `mean` and `mean_square` are, per replication, the type averages of X and X^2 at
    one time. Returns the estimate and a bootstrap 95% interval (resampling replications).
    """
    mean = check_array("mean", mean, ndim=1, low=0.0)
    mean_square = check_array("mean_square", mean_square, shape=mean.shape, low=0.0)
    if mean.size < 2:
        raise ParameterError(f"`mean` needs at least 2 replications (got {mean.size})")
    n = check_integer("n_servers", n_servers, low=2)
    n_boot = check_integer("n_boot", n_boot, low=1)
    seed = check_seed("seed", seed)

    def estimate(idx):
        s = n * mean[idx]
        var_x = mean_square[idx].mean() - mean[idx].mean() ** 2
        return (s.var(ddof=1) / n - var_x) / ((n - 1) * var_x)

    rng = np.random.default_rng(seed)
    full = estimate(np.arange(mean.size))
    boots = np.array([estimate(rng.integers(0, mean.size, mean.size)) for _ in range(n_boot)])
    low, high = np.percentile(boots, [2.5, 97.5])
    return float(full), float(low), float(high)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    x = check_array("x", x, ndim=1, low=0.0, low_open=True)
    y = check_array("y", y, shape=x.shape, low=0.0, low_open=True)
    if x.size < 2 or np.unique(x).size < 2:
        raise ParameterError("`x` needs at least two distinct values")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def band(samples, axis: int = 0):
    """Mean and 95% t-interval of replications (thin wrapper of :func:`qtheory.stats.mean_ci`)."""
    ci = mean_ci(np.asarray(samples), axis=axis)
    return ci.mean, ci.low, ci.high, ci.se
