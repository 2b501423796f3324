"""Replicated experiments behind the L notebooks (module-level, picklable, seeded).

Each ``*_replication`` function takes a :class:`numpy.random.SeedSequence` first (as
:func:`qtheory.runtime.replicate` passes it), builds its own graph and initial state
from it, runs one simulation and returns a :class:`Replication`. The summaries turn a list of
replications into estimates with confidence intervals.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..runtime import children
from ..stats import StationaryStatistics, band, batch_estimate, sample_batch_means, sample_batch_values
from ..validation import check_array, check_integer, check_real, check_seed
from .graphs import CompatibilityGraph, complete_bipartite, irg, window_graph
from .meanfield import solve_meanfield
from .model import LocalitySystem
from .policies import as_policy
from .simulation import exact_initial_state, iid_initial_state, simulate, simulate_jsqd

__all__ = ["build_graph", "Replication", "stationary_statistics", "trajectory_replication",
           "stationary_replication", "population_stationary_replication",
           "occupancy_summary", "sup_l1_error", "lemma1_system",
           "lemma1_rows", "lemma2_matrices", "lemma2_rows", "random_design_system", "proposition1_rows",
           "proposition1_summary", "lemma10_rows", "gwsq_printed_weights", "gwsq_hypergeometric_weights",
           "gwsq_weight_rows", "occupancy_drops", "ServerStatistics", "per_server_view", "server_statistics",
           "graph_meanfield_replication", "GraphMeanFieldTables", "graph_meanfield_rows", "graph_meanfield_summary",
           "graph_meanfield_transient_rows"]


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
        return _shared_window_graph(system, n_servers)
    raise ParameterError(f"`kind` must be 'irg', 'complete' or 'window' (got {kind!r})")


@functools.lru_cache(maxsize=1)
def _shared_window_graph(system: LocalitySystem, n_servers: int) -> CompatibilityGraph:
    """:func:`~qtheory.locality.graphs.window_graph`, built once per (system, N) in each process:
    it is deterministic, and at N = 10000 building it (8e6 edges) costs more than simulating on it.
    Simulations only read a graph, so replications may share it."""
    return window_graph(system, n_servers)


def _seeds(seed_sequence: np.random.SeedSequence):
    graph_ss, state_ss, sim_ss = children(seed_sequence, 3)
    return graph_ss, np.random.default_rng(state_ss), sim_ss


@dataclass(frozen=True)
class Replication:
    """What one replication of an L experiment returns: one record type for every ``*_replication``.

    Each function fills the fields it computes; the others are None. Field names follow
    :class:`~qtheory.locality.simulation.SimulationResult`.

    Attributes
    ----------
    events : int
        Events simulated.
    occupancy : ndarray
        :math:`q_{m,l}` at the grid times, shape (T, M, L) (:func:`trajectory_replication`), or
        its time average over ``[warmup, horizon]``, shape (M, L) (the stationary replications).
    mean_queue_length : ndarray
        Mean queue length of the type-m servers, at the grid times (T, M) or time-averaged (M,).
    mean_square : ndarray or None
        Mean square queue length per type at the grid times (T, M) (:func:`trajectory_replication`).
    wall_time : float or None
        Seconds spent in the kernel (:func:`trajectory_replication`).
    servers_per_type : ndarray or None
        Number of servers of each type in the replication's graph (:func:`trajectory_replication`).
    half_means : ndarray or None
        The time-averaged mean queue length per type over the first and the second half of the
        sampling times, shape (2, M) (:func:`stationary_replication` with ``halves=True``: the
        drift check of a policy without a known stability condition).
    """

    events: int
    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    mean_square: np.ndarray | None = None
    wall_time: float | None = None
    servers_per_type: np.ndarray | None = None
    half_means: np.ndarray | None = None


def _recording_grid(warmup, horizon, n_samples, *, fewest: int = 2):
    """Checked ``(warmup, horizon, n_samples)`` of a stationary run and its recording grid: time 0
    (when there is a warm-up) and `n_samples` (at least `fewest`) equally spaced times in
    ``[warmup, horizon]``, the last `n_samples` of which are averaged."""
    warmup = check_real("warmup", warmup, low=0.0)
    horizon = check_real("horizon", horizon, low=0.0)
    if not horizon > warmup:
        raise ParameterError(f"`horizon` must exceed `warmup` (got {horizon!r} <= {warmup!r})")
    n_samples = check_integer("n_samples", n_samples, low=fewest)
    grid = np.concatenate([[0.0], np.linspace(warmup, horizon, n_samples)]) if warmup > 0 else \
        np.linspace(0.0, horizon, n_samples)
    return warmup, horizon, n_samples, grid


def _sampling_window(warmup, horizon, n_samples, n_batches):
    """:func:`_recording_grid` with `n_batches` checked against `n_samples`:
    ``(warmup, horizon, n_samples, n_batches, grid)``."""
    warmup, horizon, n_samples, grid = _recording_grid(warmup, horizon, n_samples)
    n_batches = check_integer("n_batches", n_batches, low=2, high=n_samples)
    return warmup, horizon, n_samples, n_batches, grid


def stationary_statistics(system: LocalitySystem, graph: CompatibilityGraph, policy="jsqd", *, warmup: float,
                          horizon: float, seed, initial_state=None, n_samples: int = 2000, n_batches: int = 20,
                          levels: int = 6) -> StationaryStatistics:
    """Time-averaged stationary statistics of one run of `policy` on `graph`, with standard errors.

    The run starts from `initial_state` (default: empty) at time 0; the averages are over
    `n_samples` equally spaced times in ``[warmup, horizon]`` (the sample mean of the state
    at equally spaced times is an unbiased estimate of its time average over the window).
    Their standard errors come from `n_batches` batches of consecutive samples
    (:func:`qtheory.stats.batch_means`): the window should be long against the relaxation
    time, so that batch means are nearly independent, and `warmup` long enough to forget
    the start (neither is checked here: compare two warm-ups, or replications).

    Returns a :class:`qtheory.stats.StationaryStatistics` with the estimates
    ``mean_queue_length`` (per type, shape (M,)), ``overall_mean_queue_length`` (all servers,
    the types weighted by their numbers of servers) and ``occupancy`` (time average of
    :math:`q_{m,l}`, shape (M, L)).
    """
    warmup, horizon, n_samples, n_batches, grid = _sampling_window(warmup, horizon, n_samples, n_batches)
    x0 = np.zeros(graph.n_servers, np.int64) if initial_state is None else initial_state
    res = simulate(system, graph, as_policy(policy), initial_state=x0, t_grid=grid, seed=seed, levels=levels)
    occ = res.occupancy[-n_samples:]                          # (S, M, L)
    mql = res.mean_queue_length[-n_samples:]                  # (S, M)
    weights = np.bincount(graph.server_type, minlength=graph.n_types) / graph.n_servers
    # batch b: samples [floor(b S / B), floor((b + 1) S / B)), as running sums at the batch ends
    estimates = {"mean_queue_length": batch_estimate(mql, n_batches),
                 "overall_mean_queue_length": batch_estimate(mql @ weights, n_batches),
                 "occupancy": batch_estimate(occ, n_batches)}
    return StationaryStatistics(estimates, n_samples, n_batches, res.events, res.wall_time, warmup, horizon)


def trajectory_replication(seed_sequence, system: LocalitySystem, n_servers: int, graph_kind: str, q0,
                           t_grid, *, levels: int = 10, policy="jsqd", start: str = "iid") -> Replication:
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
    policy : qtheory.locality.policies.Policy or str
        A :mod:`qtheory.locality.policies` object or registered name ("jsqd", "gwsq", ...).
    """
    pol = as_policy(policy)
    graph_seed, rng, sim_ss = _seeds(seed_sequence)
    graph = build_graph(system, n_servers, graph_kind, graph_seed)
    if start == "iid":
        x0 = iid_initial_state(graph, q0, rng)
    elif start == "sorted":
        x0 = exact_initial_state(graph, q0)
    else:
        raise ParameterError(f"`start` must be 'iid' or 'sorted' (got {start!r})")
    res = simulate(system, graph, pol, initial_state=x0, t_grid=t_grid, seed=sim_ss, levels=levels)
    return Replication(events=res.events, occupancy=res.occupancy, mean_queue_length=res.mean_queue_length,
                       mean_square=res.mean_square, wall_time=res.wall_time,
                       servers_per_type=np.bincount(graph.server_type, minlength=system.n_types))


def _require_policy_stable(system: LocalitySystem, policy) -> None:
    """Raise :class:`~qtheory.errors.InstabilityError` when `policy` is unstable on `system` by
    Lemma 10 (:func:`~qtheory.locality.stability.policy_stability`): its stationary mean does not exist."""
    from ..errors import InstabilityError
    from .stability import policy_stability

    verdict = policy_stability(system, policy)
    if verdict.stable is False:
        raise InstabilityError(f"no stationary mean: {verdict.reason}")


def stationary_replication(seed_sequence, system: LocalitySystem, n_servers: int, graph_kind: str,
                           warmup: float, horizon: float, *, n_samples: int = 2000, levels: int = 6,
                           q0=None, policy="jsqd", halves: bool = False) -> Replication:
    """Time-averaged occupancy over ``[warmup, horizon]`` (Theorem 6) under `policy`
    (a :mod:`qtheory.locality.policies` object or name; default local JSQ(d)).

    The system starts empty, or from i.i.d. lengths with tails `q0` (to shorten the
    warm-up of slowly mixing systems). The average is over `n_samples` equally spaced
    times; the mean over independent replications estimates ``E q^N(infinity)``. With `halves`,
    the averages over the first and the second half of those times are returned too
    (``half_means``; `n_samples` must then be at least 2).

    Stability first: a policy whose asymptotic load (5.2) with its own :math:`d` is at least 1
    (:func:`~qtheory.locality.stability.policy_stability`) has no stationary mean, and the call
    raises :class:`~qtheory.errors.InstabilityError` naming the overloaded server types (for a
    policy without a known condition, such as JIQ, the caller checks the run's drift).
    """
    pol = as_policy(policy)
    _require_policy_stable(system, pol)
    warmup, horizon, n_samples, grid = _recording_grid(warmup, horizon, n_samples, fewest=2 if halves else 1)
    graph_seed, rng, sim_ss = _seeds(seed_sequence)
    graph = build_graph(system, n_servers, graph_kind, graph_seed)
    x0 = np.zeros(graph.n_servers, np.int64) if q0 is None else iid_initial_state(graph, q0, rng)
    res = simulate(system, graph, pol, initial_state=x0, t_grid=grid, seed=sim_ss, levels=levels)
    q = np.asarray(res.mean_queue_length)[-n_samples:]
    half = n_samples // 2
    return Replication(events=res.events, occupancy=res.occupancy[-n_samples:].mean(axis=0),
                       mean_queue_length=q.mean(axis=0),
                       half_means=np.stack([q[:half].mean(axis=0), q[half:].mean(axis=0)]) if halves else None)


def population_stationary_replication(seed_sequence, system: LocalitySystem, n_servers: int, policy: str,
                                      warmup: float, horizon: float, *, n_samples: int = 5000,
                                      levels: int = 4) -> Replication:
    """Time averages over ``[warmup, horizon]`` of a system whose occupancy is a population
    process (the simulation route of :mod:`qtheory.locality.refined`).

    ``policy=GWSQ()`` (or ``"gwsq"``): GWSQ(d) (only the server types and clusters of the
    complete graph are used); ``LocalJSQ()`` (or ``"jsqd"``): local JSQ(d) on the complete
    bipartite graph (checked by :func:`qtheory.locality.refined.check_population_policy`). The system
    starts empty; the averages are over `n_samples` equally spaced times (each one a draw
    from the stationary law after the warm-up), so the mean over independent replications
    estimates ``E[q^N]`` and its spread gives the standard error.

    Returns
    -------
    Replication with ``occupancy`` (M, levels), ``mean_queue_length`` (M,) and ``events``.
    """
    from .refined import check_population_policy

    policy = check_population_policy(system, policy)
    _require_policy_stable(system, policy)
    if not 0.0 <= warmup < horizon:
        raise ParameterError(f"need 0 <= `warmup` < `horizon` (got {warmup}, {horizon})")
    n_samples = check_integer("n_samples", n_samples, low=1)
    graph = complete_bipartite(system, n_servers)
    grid = np.concatenate([[0.0], np.linspace(warmup, horizon, n_samples)]) if warmup > 0 else \
        np.linspace(warmup, horizon, n_samples)
    x0 = np.zeros(graph.n_servers, np.int64)
    res = simulate(system, graph, policy, initial_state=x0, t_grid=grid, seed=seed_sequence, levels=levels, average_from=1 if warmup > 0 else 0)
    return Replication(events=res.events, occupancy=res.occupancy[0], mean_queue_length=res.mean_queue_length[0])


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


# -- the stability page (L-V-stability): Lemma 1, Lemma 2, Proposition 1, Lemma 10 ------------------------

#: the tiny system of the Lemma 1 check: four servers (two slow, u = 0.5; two fast, u = 10)
#: and four dispatchers on the complete graph, d = 2
LEMMA1_RATES = (0.5, 10.0)


def lemma1_system(arrival_rate: float) -> LocalitySystem:
    """The four-server system of the Lemma 1 check at the given arrival rate per dispatcher."""
    return LocalitySystem(arrival_rate, 1.0, (1.0,), (0.5, 0.5), LEMMA1_RATES, ((1.0, 1.0),), 2)


def lemma1_rows(seed: int, arrival_rates, n_runs: int, horizon: float, *, return_runs: bool = False):
    """Lemma 1 on a tiny complete graph: exact ``rho^N`` against simulated queue growth.

    For each arrival rate (index i) ``rho^N`` and its maximising server set are found by
    enumerating all 15 sets (:func:`~qtheory.locality.stability.exact_load`) and by the
    complete-graph closed form; `n_runs` simulations from empty (seeds
    ``child_seed(seed, "lemma1", i)``) give the growth rate of the total queue length
    over ``[horizon / 2, horizon]``. Above ``rho^N = 1`` the fluid prediction is
    ``(rho^N - 1) * (service rate of the worst set)``; below it is 0.

    ``growth_predicted_with_replacement`` is the prediction of the alternative reading in
    which the d picks are drawn with replacement (the slow pair is hit with probability
    :math:`(2/4)^d` instead of :math:`\\binom{2}{d} / \\binom{4}{d}`); the simulator samples distinct
    servers (Sec. 2.2).

    Returns one row per arrival rate: ``arrival_rate, rho_N, worst_set, closed_form_rho_N,
    growth_sim, ci_low, ci_high, se, growth_predicted, growth_predicted_with_replacement,
    runs``; with `return_runs`, ``(rows, runs)`` where ``runs[i]`` is the tuple of the run
    growth rates behind row i (for a test that checks them, :mod:`qtheory.verdicts`).
    """
    from ..runtime import child_seed, spawn
    from .stability import complete_bipartite_exact_load, exact_load

    n_runs = check_integer("n_runs", n_runs, low=2)
    if not (isinstance(horizon, (int, float)) and np.isfinite(horizon) and horizon > 0):
        raise ParameterError(f"`horizon` must be a finite number > 0 (got {horizon!r})")
    rows, run_values = [], []
    for idx, lam in enumerate(arrival_rates):
        tiny = lemma1_system(lam)
        graph = complete_bipartite(tiny, 4)
        rates = tiny.u[graph.server_type]
        rho, worst = exact_load(graph, tiny, return_set=True)
        predicted = max(rho - 1.0, 0.0) * rates[worst].sum()
        # the reading with replacement: a task lands in the slow pair with probability (2/4)^d
        rho_repl = 4 * lam * 0.5 ** tiny.d / (2 * LEMMA1_RATES[0])
        predicted_repl = max(rho_repl - 1.0, 0.0) * 2 * LEMMA1_RATES[0]
        slopes = []
        for ss in spawn(child_seed(seed, "lemma1", idx), n_runs):
            res = simulate_jsqd(tiny, graph, initial_state=np.zeros(4, np.int64), t_grid=[0.0, horizon / 2, horizon], seed=ss, levels=1)
            total = (res.mean_queue_length * 2).sum(axis=1)      # two servers per type
            slopes.append((total[2] - total[1]) / (horizon / 2))
        mean, low, high, se = band(slopes)
        run_values.append(tuple(float(x) for x in slopes))
        rows.append(dict(arrival_rate=float(lam), rho_N=rho, worst_set=str(np.nonzero(worst)[0].tolist()),
                         closed_form_rho_N=complete_bipartite_exact_load(rates, 4, lam, 2),
                         growth_sim=mean, ci_low=low, ci_high=high, se=se, growth_predicted=predicted,
                         growth_predicted_with_replacement=predicted_repl, runs=n_runs))
    return (rows, run_values) if return_runs else rows


def lemma2_matrices(system: LocalitySystem) -> dict:
    """The compatibility matrices of the Lemma 2 page: :math:`p^0` (all ones), :math:`p^1` (Sec. 6.1) and the
    Proposition 1 design of :func:`~qtheory.locality.stability.design_compatibility`."""
    from .model import PAPER_DESIGN
    from .stability import design_compatibility

    return {"p0 (complete)": np.ones((system.n_clusters, system.n_types)), "p1 (Sec. 6.1)": np.array(PAPER_DESIGN),
            "Prop. 1 design": design_compatibility(system)}


def lemma2_rows(seed: int, n_servers: int, n_runs: int, horizon: float, *, return_runs: bool = False):
    """Criterion (3.1) as the random-routing load of each type, against simulation.

    For the matrices of :func:`lemma2_matrices` (Sec. 6 system) each row gives the left
    side of (3.1) for one type, whether (3.1) holds, and the asymptotic load (5.2). For
    :math:`p^1` it adds the time-averaged busy fraction of the type in `n_runs` simulations of
    :math:`d = 1` (random routing) on :math:`\\mathrm{irg}(p^1)` with `n_servers` servers (seed
    ``child_seed(seed, "lemma2")``), averaged over ``[horizon / 10, horizon]``: an M/M/1
    queue is busy a fraction equal to its load. The runs start from the product-form law
    of independent M/M/1 queues at the (3.1) loads (geometric tails), so that slowly
    relaxing type-2 queues (load 0.91: relaxation time about ``1 / (u (1 - sqrt(rho))^2)``,
    80 time units) start near stationarity. With `return_runs`, returns ``(rows, runs)`` where
    ``runs[m]`` is the tuple of the run busy fractions of type m + 1 (for a test that checks them,
    :mod:`qtheory.verdicts`).
    """
    from ..runtime import child_seed, replicate
    from .model import paper_system
    from .stability import asymptotic_load, type_loads

    base = paper_system("design")
    matrices = lemma2_matrices(base)
    loads = {name: type_loads(base.with_compatibility(p)) for name, p in matrices.items()}
    geometric = loads["p1 (Sec. 6.1)"][:, None] ** np.arange(1, 200)[None, :]
    rr = replicate(stationary_replication, n_runs, child_seed(seed, "lemma2"),
                   args=(base.with_d(1), n_servers, "irg", horizon / 10, horizon),
                   kwargs={"levels": 1, "q0": geometric}, desc="random routing")
    busy_mean, busy_low, busy_high, busy_se = band([r.occupancy[:, 0] for r in rr])
    rows = []
    for name, ld in loads.items():
        rho = asymptotic_load(base.with_compatibility(matrices[name])).rho
        for m in range(base.n_types):
            row = dict(matrix=name, server_type=m + 1, load_31=float(ld[m]), criterion_holds=bool(np.all(ld < 1)),
                       rho_lemma10=rho)
            if name.startswith("p1"):
                row.update(busy_sim=busy_mean[m], ci_low=busy_low[m], ci_high=busy_high[m], se=busy_se[m], runs=n_runs)
            rows.append(row)
    if return_runs:
        return rows, [tuple(float(r.occupancy[m, 0]) for r in rr) for m in range(base.n_types)]
    return rows


def random_design_system(rng: np.random.Generator) -> tuple[LocalitySystem, float]:
    """A random system of the Proposition 1 check and its load over capacity
    ``lambda zeta / sum_m v_m u_m`` (uniform on [0.05, 1.5]): K, M uniform on 1..4,
    w and v Dirichlet(1), u uniform on [0.1, 10], p uniform on [0.001, 1], d = 2."""
    K, M = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    v = rng.dirichlet(np.ones(M))
    u = rng.uniform(0.1, 10.0, M)
    frac = float(rng.uniform(0.05, 1.5))
    system = LocalitySystem(frac * float(v @ u), 1.0, rng.dirichlet(np.ones(K)), v, u,
                            rng.uniform(1e-3, 1.0, (K, M)), 2)
    return system, frac


def proposition1_rows(seed: int, n_designs: int, design=None) -> list[dict]:
    """Proposition 1 on `n_designs` random systems (generator ``child_seed(seed, "prop1")``).

    For each system (:func:`random_design_system`) below capacity the design
    (`design`, default :func:`~qtheory.locality.stability.design_compatibility`, i.e.
    ``p[k, m] = u_m / max u``) is applied and checked: the largest (3.1) load, whether
    (3.1) holds, and the asymptotic load (5.2). Every row also has the largest (3.1)
    load of the system's own random p. Above capacity the design raises
    :class:`~qtheory.errors.InstabilityError` and the row records ``design = "none (2.1
    fails)"``.
    """
    from ..errors import InstabilityError
    from ..runtime import child_seed
    from .stability import asymptotic_load, design_compatibility, lemma2_criterion, type_loads

    n_designs = check_integer("n_designs", n_designs, low=1)
    design = design_compatibility if design is None else design
    rng = np.random.default_rng(child_seed(seed, "prop1"))
    rows = []
    for trial in range(n_designs):
        system, frac = random_design_system(rng)
        row = dict(trial=trial, K=system.n_clusters, M=system.n_types, load_over_capacity=frac,
                   random_p_max_load=float(type_loads(system).max()))
        try:
            designed = system.with_compatibility(design(system))
        except InstabilityError:
            row.update(design="none (2.1 fails)", max_load=np.nan, criterion_holds=False, rho=np.nan)
        else:
            row.update(design="u_m / max u", max_load=float(type_loads(designed).max()),
                       criterion_holds=lemma2_criterion(designed), rho=asymptotic_load(designed).rho)
        rows.append(row)
    return rows


def proposition1_summary(rows) -> dict:
    """Counts of :func:`proposition1_rows`: systems below capacity and how many the design
    stabilises ((3.1) holds and :math:`\\rho < 1`); systems at or above capacity and how many of
    their random :math:`p` violate (3.1)."""
    below = [r for r in rows if r["load_over_capacity"] < 1]
    above = [r for r in rows if r["load_over_capacity"] >= 1]
    return dict(n_below_capacity=len(below),
                design_stable=sum(bool(r["criterion_holds"] and r["rho"] < 1) for r in below),
                n_above_capacity=len(above),
                random_p_violating=sum(bool(r["random_p_max_load"] >= 1) for r in above))


def lemma10_rows(seed: int, n_list, n_runs: int, horizon: float, *, n_times: int = 41,
                 exact_n_list=(10, 20, 50, 100, 1000, 10000, 100000), return_runs: bool = False):
    """Lemma 10 / (5.2) at the Sec. 6 parameters, and the growth of the unstable complete graph.

    Parts (column ``part``):

    * ``"rho by set of types"``: the left side of (5.2) at each 0/1 vector :math:`\\alpha` (a set
      of server types) for :math:`p^0` and :math:`p^1`; ``critical`` marks the maximiser.
    * ``"rho^N complete graph"``: Lemma 1's exact ``rho^N`` of the complete graph with N
      servers (closed form), for N in `exact_n_list`.
    * ``"type-1 growth rate"``: for N in `n_list` (index i), `n_runs` simulations of the
      complete graph from the Sec. 6 start Q (seed ``child_seed(seed, "lemma10", i)``);
      the growth rate of the mean type-1 queue over ``[horizon / 2, horizon]``; ``ode``
      is the same rate of the ODE (3.7) (the N = infinity limit over the same window),
      ``long_run = (rho^N - 1) u_1`` the rate once every type-1 queue is longer than the
      others: a type-1 server then receives the tasks whose d picks are all type 1, rate
      ``rho^N u_1``, and serves at ``u_1`` (the set of all type-1 servers maximises
      ``rho^N``). The ODE's rate exceeds the long-run one while mixed pairs still reach
      short type-1 queues, and tends to ``(rho - 1) u_1 = 0.5``.
    * ``"type-1 mean queue"``: the mean path with its 95% band on `n_times` times and the
      ODE's value (``ode``).

    With `return_runs`, returns ``(rows, runs)`` where ``runs[N]`` is the tuple of the run growth
    rates behind the growth-rate row of size N (for a test that checks them, :mod:`qtheory.verdicts`).
    """
    from ..runtime import child_seed, replicate
    from .model import paper_initial_occupancy, paper_system, system_sizes
    from .stability import asymptotic_load, complete_bipartite_exact_load

    n_runs = check_integer("n_runs", n_runs, low=2)
    n_times = check_integer("n_times", n_times, low=3)
    rows = []
    for name, comp in (("p0 (complete)", "complete"), ("p1 (Sec. 6.1)", "design")):
        al = asymptotic_load(paper_system(comp))
        for types, value in al.by_set.items():
            rows.append(dict(part="rho by set of types", matrix=name, types=str([t + 1 for t in types]), value=value,
                             critical=types == al.critical_types))
    complete = paper_system("complete")

    def rho_n(n):
        sz = system_sizes(complete, n)
        return complete_bipartite_exact_load(complete.u[sz.server_type], sz.n_dispatchers, complete.arrival_rate,
                                             complete.d)

    for n in exact_n_list:
        rows.append(dict(part="rho^N complete graph", matrix="p0 (complete)", N=int(n), value=rho_n(n)))
    t_grid = np.linspace(0.0, horizon, n_times)
    q0 = paper_initial_occupancy("Q")
    half = n_times // 2
    run_values = {}
    ode = solve_meanfield(complete, q0, t_grid).mean_queue_length[:, 0]
    ode_slope = float((ode[-1] - ode[half]) / (t_grid[-1] - t_grid[half]))
    for idx, n in enumerate(n_list):
        runs = replicate(trajectory_replication, n_runs, child_seed(seed, "lemma10", idx),
                         args=(complete, n, "complete", q0, t_grid), kwargs={"levels": 1}, desc=f"complete N={n}")
        mq = np.array([r.mean_queue_length[:, 0] for r in runs])
        slopes = (mq[:, -1] - mq[:, half]) / (t_grid[-1] - t_grid[half])
        run_values[int(n)] = tuple(float(x) for x in slopes)
        mean, low, high, se = band(slopes)
        rows.append(dict(part="type-1 growth rate", matrix="p0 (complete)", N=int(n), value=mean, ci_low=low,
                         ci_high=high, se=se, runs=n_runs, ode=ode_slope,
                         long_run=(rho_n(n) - 1.0) * float(complete.u[0]),
                         t_from=float(t_grid[half]), t_to=float(t_grid[-1])))
        for g, t in enumerate(t_grid):
            m, lo, hi, _ = band(mq[:, g])
            rows.append(dict(part="type-1 mean queue", matrix="p0 (complete)", N=int(n), t=float(t), value=m,
                             ci_low=lo, ci_high=hi, ode=float(ode[g])))
    return (rows, run_values) if return_runs else rows



# -- judging simulated values against predictions (L-V-stability, L-V-limits) -------------------------------

__all__ += ["t_statistic", "bootstrap_l1_interval"]


def t_statistic(value: float, reference: float, se: float) -> float:
    """``|value - reference| / se``; a zero spread counts as 0 when the values agree exactly, else
    as infinite (a deterministic mismatch)."""
    if se > 0:
        return abs(value - reference) / se
    return 0.0 if value == reference else float("inf")


def bootstrap_l1_interval(samples, target, rng: np.random.Generator, n_boot: int = 1000) -> tuple[float, float]:
    """95% bootstrap interval of the :math:`\\ell_1` distance between the mean of `samples`
    (replications along axis 0) and `target`: `n_boot` resamples of the replications drawn from
    `rng` (which advances), percentiles 2.5 and 97.5 (Theorem 6 on L-V-limits)."""
    samples = np.asarray(samples, dtype=float)
    if samples.ndim < 1 or samples.shape[0] < 2:
        raise ParameterError(f"`samples` needs at least 2 replications along axis 0 (got shape {samples.shape})")
    n_boot = check_integer("n_boot", n_boot, low=1)
    n = len(samples)
    boots = [np.abs(samples[rng.integers(0, n, n)].mean(axis=0) - target).sum() for _ in range(n_boot)]
    return float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))


# -- Algorithm 1 (GWSQ(d)) as printed ----------------------------------------------------------------------

def gwsq_printed_weights(system: LocalitySystem, q) -> np.ndarray:
    """Algorithm 1's ``x_{k,m,l} = (v_m p_{k,m} / delta_k)(q_{m,l+1} - q_{m,l})`` as printed, for
    l = 0 .. L (array (K, M, L + 1)); `q` is the (M, L) array of tails ``q_{m,l}``, l >= 1
    (``q_{m,0} = 1`` and ``q_{m,L+1} = 0`` are added). Each cluster's entries sum to -1."""
    q = check_array("q", q, ndim=2, low=0.0, high=1.0)
    if q.shape[0] != system.n_types:
        raise ParameterError(f"`q` needs one row per server type ({system.n_types}), got {q.shape[0]}")
    full = np.concatenate([np.ones((q.shape[0], 1)), q, np.zeros((q.shape[0], 1))], axis=1)
    share = system.v * system.p / system.delta[:, None]
    return share[:, :, None] * (full[None, :, 1:] - full[None, :, :-1])


def gwsq_hypergeometric_weights(counts, n_servers: int, d: int) -> list[tuple[tuple, float]]:
    """The selection law of Algorithm 1: ``prod_i C(X_i, Y_i) / C(N, d)`` for every
    multiset Y of d classes i (``sum_i Y_i = d``), with generalized binomial coefficients
    ``C(x, y) = x (x - 1) ... (x - y + 1) / y!`` for the counts ``X_i = N x_i``, which need
    not be integers. Returns the list of (Y as a tuple of class indices, weight).

    By the Chu-Vandermonde identity the weights sum to ``C(sum X, d) / C(N, d)``, i.e. to
    one when the counts sum to N, integer or not; for integer counts they are the
    hypergeometric probabilities of drawing d distinct servers, and a count strictly
    between 0 and d - 1 makes some weights negative.
    """
    from scipy.special import binom

    counts = check_array("counts", counts, ndim=1, low=0.0)
    n = check_integer("n_servers", n_servers, low=1)
    d = check_integer("d", d, low=1)
    live = np.nonzero(counts > 0)[0]
    out = []
    for sel in itertools.combinations_with_replacement(live.tolist(), d):
        ys = np.bincount(sel, minlength=counts.size)
        w = float(np.prod([binom(counts[i], ys[i]) for i in set(sel)]) / binom(n, d))
        out.append((sel, w))
    return out


def gwsq_weight_rows(system: LocalitySystem, states: dict, n_list, d: int | None = None) -> list[dict]:
    """For each named occupancy state (dict name -> (M, L) tails) and N in `n_list`, per
    cluster k: the sum and the smallest entry of the printed ``x_{k,m,l}``, and the total
    and the smallest of Algorithm 1's selection weights with the sign-corrected counts
    ``X = N |x|`` (:func:`gwsq_hypergeometric_weights`), plus the largest distance of a
    count from an integer."""
    d = system.d if d is None else check_integer("d", d, low=1)
    rows = []
    for name, q in states.items():
        printed = gwsq_printed_weights(system, q)
        for n in n_list:
            for k in range(system.n_clusters):
                counts = -n * printed[k].ravel()
                counts = np.where(counts > 0, counts, 0.0)
                weights = [w for _, w in gwsq_hypergeometric_weights(counts, n, d)]
                rows.append(dict(state=name, N=int(n), cluster=k + 1, printed_sum=float(printed[k].sum()),
                                 printed_max=float(printed[k].max()), weight_total=float(np.sum(weights)),
                                 weight_min=float(np.min(weights)),
                                 fractional_count=float(np.max(np.abs(counts - np.round(counts))))))
    return rows


def occupancy_drops(t_grid, occupancy, *, early: float) -> list[dict]:
    """How fast each ``q_{m,l}`` falls: for a path (T, M, L) on `t_grid`, one row per (m, l)
    with the values at t = 0, at the first grid time >= `early` and at the last time, the
    drops ``early_drop = q(0) - q(early)`` and ``total_drop = q(0) - q(end)`` (negative
    when the curve rises)."""
    t_grid = check_array("t_grid", t_grid, ndim=1, low=0.0)
    occupancy = check_array("occupancy", occupancy, ndim=3)
    if occupancy.shape[0] != t_grid.size:
        raise ParameterError(f"`occupancy` needs one entry per time ({t_grid.size}), got {occupancy.shape[0]}")
    if not t_grid[0] < early <= t_grid[-1]:
        raise ParameterError(f"`early` must lie in ({t_grid[0]:g}, {t_grid[-1]:g}] (got {early!r})")
    g = int(np.argmax(t_grid >= early - 1e-12))
    rows = []
    for m in range(occupancy.shape[1]):
        for l in range(occupancy.shape[2]):
            q = occupancy[:, m, l]
            rows.append(dict(server_type=m + 1, level=l + 1, start=float(q[0]), t_early=float(t_grid[g]),
                             at_early=float(q[g]), end=float(q[-1]), early_drop=float(q[0] - q[g]),
                             total_drop=float(q[0] - q[-1])))
    return rows


# -- the graph mean field against simulation of the same graph --------------------------
from typing import NamedTuple  # noqa: E402 (with the functions below, added at the end)

@dataclass(frozen=True)
class ServerStatistics:
    """Per-server and per-type stationary means of one long run, with batch-means standard errors.

    Attributes
    ----------
    mean_queue_length, mean_queue_length_se : (N,) arrays or None
        Time average of each server's queue length (None when only type means are recorded).
    type_mean_queue_length, type_mean_queue_length_se : (M,) arrays
        Time average of the mean queue length of the type-m servers.
    n_samples, n_batches, events : int
    wall_time : float
    type_batch_means : (n_batches, M) array or None
        The batch means behind ``type_mean_queue_length_se``
        (:func:`qtheory.stats.sample_batch_values`).
    """

    mean_queue_length: np.ndarray
    mean_queue_length_se: np.ndarray
    type_mean_queue_length: np.ndarray
    type_mean_queue_length_se: np.ndarray
    n_samples: int
    n_batches: int
    events: int
    wall_time: float
    type_batch_means: np.ndarray | None = None


def per_server_view(system: LocalitySystem, graph: CompatibilityGraph):
    """The same system with every server a type of its own: ``(system', graph')`` with N types of
    fraction 1/N, type j's rate the rate of server j and compatibility ``p[:, type(j)]``.

    Local JSQ(d) and JIQ read only the neighbour lists, the dispatcher's arrival rate and the
    servers' rates, so a run on ``(system', graph')`` is a run of the original system (the same
    law; another use of the random numbers when choosing a departing server), and the
    simulator's per-type records become per-server records. GWSQ(d) samples by type weights
    and is not the same policy there."""
    n = graph.n_servers
    rates = system.u[graph.server_type]
    view = LocalitySystem(system.arrival_rate, system.zeta, system.cluster_weights, tuple(np.full(n, 1.0 / n)),
                          tuple(rates), system.p[:, graph.server_type], system.d)
    single = CompatibilityGraph(np.arange(n, dtype=np.int64), graph.dispatcher_cluster, graph.offset, graph.degree,
                                graph.neighbors, n, graph.n_clusters)
    return view, single


def server_statistics(system: LocalitySystem, graph: CompatibilityGraph, policy="jsqd", *, warmup: float,
                      horizon: float, seed, initial_state=None, n_samples: int = 2000,
                      n_batches: int = 20) -> ServerStatistics:
    """Stationary mean queue length of every server and of every type from one run of `policy`
    (local JSQ(d) or JIQ) on `graph`, averaged over `n_samples` equally spaced times in
    ``[warmup, horizon]``, with batch-means standard errors (as :func:`stationary_statistics`).
    The run is on :func:`per_server_view` (one type per server), which costs O(N) per event."""
    warmup, horizon, n_samples, n_batches, grid = _sampling_window(warmup, horizon, n_samples, n_batches)
    pol = as_policy(policy)
    if pol.name == "gwsq":
        raise ParameterError("`policy` GWSQ(d) samples by type weights: per-server records need a policy that "
                             "reads the neighbour lists (local JSQ(d), JIQ)")
    view, single = per_server_view(system, graph)
    x0 = np.zeros(graph.n_servers, np.int64) if initial_state is None else initial_state
    res = simulate(view, single, pol, initial_state=x0, t_grid=grid, seed=seed, levels=1)
    lengths = res.mean_queue_length[-n_samples:]                       # (S, N): each server's length
    size = np.bincount(graph.server_type, minlength=graph.n_types).astype(float)
    indicator = (graph.server_type[:, None] == np.arange(graph.n_types)[None, :]) / size[None, :]
    m, m_se = sample_batch_means(lengths, n_batches)
    t, t_se = sample_batch_means(lengths @ indicator, n_batches)
    return ServerStatistics(m, m_se, t, t_se, n_samples, n_batches, res.events, res.wall_time,
                            sample_batch_values(lengths @ indicator, n_batches))


def _type_statistics(system: LocalitySystem, graph: CompatibilityGraph, *, warmup: float, horizon: float, seed,
                     n_samples: int, n_batches: int) -> ServerStatistics:
    """:func:`server_statistics` for the type means only: one run of local JSQ(d) on `graph` itself
    (O(M) per event), averaged over the same window as :func:`stationary_statistics`; the
    per-server fields are None."""
    warmup, horizon, n_samples, n_batches, grid = _sampling_window(warmup, horizon, n_samples, n_batches)
    res = simulate(system, graph, as_policy("jsqd"), initial_state=np.zeros(graph.n_servers, np.int64), t_grid=grid,
                   seed=seed, levels=1)
    types = res.mean_queue_length[-n_samples:]                          # (S, M)
    t, t_se = sample_batch_means(types, n_batches)
    return ServerStatistics(None, None, t, t_se, n_samples, n_batches, res.events, res.wall_time,
                            sample_batch_values(types, n_batches))


def graph_meanfield_replication(seed_sequence, system: LocalitySystem, n_servers: int, warmup: float,
                                horizon: float, *, n_samples: int = 2000, n_batches: int = 20,
                                refine: bool = False, per_server: bool = True) -> dict:
    """One irg graph of `system` with `n_servers` servers (drawn from `seed_sequence`): the graph
    mean field's stationary means (:func:`qtheory.locality.graphmf.fixed_point`) and a simulation
    of local JSQ(d) on the same graph (:func:`server_statistics`), per server and per type; with
    `refine`, also the refined graph mean field
    (:func:`qtheory.locality.graphrefined.refined_fixed_point`, local JSQ(2) only) under the keys
    ``grmf_server``, ``grmf_type``, ``grmf_seconds``. Without `per_server` the simulation records
    the type means only (O(M) per event instead of O(N)) and ``sim_server``, ``sim_server_se`` are
    None. ``sim_type_batches`` holds the batch means behind ``sim_type_se`` (batches x types)."""
    from .graphmf import fixed_point as graph_fixed_point
    from .graphrefined import refined_fixed_point

    graph_seed, _rng, sim_ss = _seeds(seed_sequence)
    graph = irg(system, n_servers, graph_seed)
    fp = graph_fixed_point(system, graph)
    out = {}
    if refine:
        rf = refined_fixed_point(system, graph)
        out = {"grmf_server": rf.refined_mean_queue_length, "grmf_type": rf.refined_type_mean_queue_length,
               "grmf_seconds": rf.seconds}
    statistics = server_statistics if per_server else _type_statistics
    sim = statistics(system, graph, warmup=warmup, horizon=horizon, seed=sim_ss, n_samples=n_samples,
                     n_batches=n_batches)
    records = {"sim_server": sim.mean_queue_length, "sim_server_se": sim.mean_queue_length_se,
               "sim_type": sim.type_mean_queue_length, "sim_type_se": sim.type_mean_queue_length_se,
               "sim_type_batches": sim.type_batch_means}
    return {"server_type": graph.server_type.copy(), "gmf_server": fp.mean_queue_length,
            "gmf_type": fp.type_mean_queue_length, "gmf_seconds": fp.seconds, **records, "events": sim.events,
            "sim_seconds": sim.wall_time, "edges": graph.n_edges, **out}


class GraphMeanFieldTables(NamedTuple):
    """Tables of :func:`graph_meanfield_rows`: one row per (N, graph, type), per (N, graph, server)
    and per (N, graph, type, batch)."""

    types: list
    servers: list
    batches: list


def graph_meanfield_rows(seed: int, n_list=(20, 50, 100, 200), n_graphs: int = 5, *, system=None,
                         warmup: float = 200.0, horizon: float = 20200.0, n_samples: int = 2000,
                         n_batches: int = 20, workers: int | None = None,
                         refine_up_to: int = 0, per_server_up_to: int | None = None,
                         events_per_run: int | None = None) -> GraphMeanFieldTables:
    """The graph mean field and ODE (3.7) against simulation of the same irg graphs.

    For each N in `n_list`, `n_graphs` graphs irg(p) of `system` (default Sec. 6's design
    :math:`p^1` at :math:`\\lambda = 3`), each from ``child_seed(seed, "graph-meanfield", N)``'s
    k-th child: the stationary mean queue length of every server and every type by the graph
    mean field, by (3.7)'s fixed point (the same for every server of a type) and by one
    simulation of local JSQ(d) on that graph (:func:`server_statistics`, with its SE). For
    N <= `refine_up_to` also the refined graph mean field (local JSQ(2):
    :func:`qtheory.locality.graphrefined.refined_fixed_point`). For N > `per_server_up_to` (default:
    every N) the simulation records type means only and the ``servers`` table has no rows for that N.
    With `events_per_run`, each run's averaging window holds about that many events: `horizon` is
    ``warmup + events_per_run / (2 lambda zeta N)`` (arrivals and departures) instead of the value given.

    Returns
    -------
    GraphMeanFieldTables
        ``types``: N, graph, server_type (1-based), servers (of the type), sim, sim_se, gmf, ode,
        gmf_error, ode_error (approximation minus simulation), gmf_seconds, events, and for refined
        sizes grmf, grmf_error, grmf_seconds (empty otherwise).
        ``servers``: N, graph, server, server_type, sim, sim_se, gmf, ode (and grmf when refined).
        ``batches``: N, graph, server_type, batch (0-based), sim: the batch means behind ``sim_se``.
    """
    from .meanfield import fixed_point as ode_fixed_point
    from ..runtime import child_seed, replicate

    seed = check_seed("seed", seed)
    system = _paper_design() if system is None else system
    if not isinstance(system, LocalitySystem):
        raise ParameterError(f"`system` must be a LocalitySystem (got {type(system).__name__})")
    n_list = [check_integer("n_list", n, low=2) for n in n_list]
    n_graphs = check_integer("n_graphs", n_graphs, low=1)
    refine_up_to = check_integer("refine_up_to", refine_up_to, low=0)
    if per_server_up_to is not None:
        per_server_up_to = check_integer("per_server_up_to", per_server_up_to, low=0)
    if events_per_run is not None:
        events_per_run = check_integer("events_per_run", events_per_run, low=1)
    ode = ode_fixed_point(system).q.sum(axis=1)
    types, servers, batches = [], [], []
    for n in n_list:
        refine = n <= refine_up_to
        per_server = per_server_up_to is None or n <= per_server_up_to
        end = horizon if events_per_run is None else \
            warmup + events_per_run / (2.0 * float(system.arrival_rate) * float(system.zeta) * n)
        reps = replicate(graph_meanfield_replication, n_graphs, child_seed(seed, "graph-meanfield", n),
                         args=(system, n, warmup, end),
                         kwargs=dict(n_samples=n_samples, n_batches=n_batches, refine=refine, per_server=per_server),
                         workers=workers, desc=f"graph mean field N={n}")
        for k, rep in enumerate(reps):
            st = rep["server_type"]
            for m in range(system.n_types):
                refined = dict(grmf=float(rep["grmf_type"][m]),
                               grmf_error=float(rep["grmf_type"][m] - rep["sim_type"][m]),
                               grmf_seconds=float(rep["grmf_seconds"])) if refine else {}
                types.append(dict(N=n, graph=k, server_type=m + 1, servers=int(np.sum(st == m)),
                                  sim=float(rep["sim_type"][m]), sim_se=float(rep["sim_type_se"][m]),
                                  gmf=float(rep["gmf_type"][m]), ode=float(ode[m]),
                                  gmf_error=float(rep["gmf_type"][m] - rep["sim_type"][m]),
                                  ode_error=float(ode[m] - rep["sim_type"][m]),
                                  gmf_seconds=float(rep["gmf_seconds"]), events=int(rep["events"]),
                                  horizon=float(end), **refined))
                batches += [dict(N=n, graph=k, server_type=m + 1, batch=b, sim=float(x))
                            for b, x in enumerate(rep["sim_type_batches"][:, m])]
            for j in range(st.size if per_server else 0):
                servers.append(dict(N=n, graph=k, server=j, server_type=int(st[j]) + 1,
                                    sim=float(rep["sim_server"][j]), sim_se=float(rep["sim_server_se"][j]),
                                    gmf=float(rep["gmf_server"][j]), ode=float(ode[st[j]]),
                                    **({"grmf": float(rep["grmf_server"][j])} if refine else {})))
    return GraphMeanFieldTables(types, servers, batches)


def _paper_design() -> LocalitySystem:
    from .model import paper_system
    return paper_system("design")


def graph_meanfield_summary(tables: GraphMeanFieldTables) -> list[dict]:
    """Per N and type: the mean over graphs of the absolute and of the signed error (approximation
    minus simulation) of the graph mean field and of (3.7), the ratio of the mean absolute errors, and
    the standard error of the mean of the simulated values behind them; where the rows hold the
    refined graph mean field, also its mean absolute and signed errors and ``refined_ratio`` (its
    mean absolute error over the graph mean field's). Per N, in a row whose ``server_type`` is
    ``"all"``: over the graphs, the mean and smallest Pearson correlation of the per-server means of
    the graph mean field with the simulated ones, the same within types (deviations from each
    type's mean, which (3.7) cannot predict), the correlation of (3.7)'s per-server values (its
    type means), and the mean per-server SE of the simulation."""
    rows = []
    types, servers = tables.types, tables.servers
    for n in sorted({r["N"] for r in types}):
        sel = [r for r in types if r["N"] == n]
        for m in sorted({r["server_type"] for r in sel}):
            part = [r for r in sel if r["server_type"] == m]
            gmf = float(np.mean([abs(r["gmf_error"]) for r in part]))
            ode = float(np.mean([abs(r["ode_error"]) for r in part]))
            se = float(np.sqrt(np.sum([r["sim_se"] ** 2 for r in part])) / len(part))
            row = dict(N=n, server_type=str(m), graphs=len(part), gmf_abs_error=gmf, ode_abs_error=ode,
                       ratio=gmf / ode if ode > 0 else None,
                       gmf_signed_error=float(np.mean([r["gmf_error"] for r in part])),
                       ode_signed_error=float(np.mean([r["ode_error"] for r in part])), sim_se_of_mean=se)
            if all(r.get("grmf_error") is not None for r in part):
                grmf = float(np.mean([abs(r["grmf_error"]) for r in part]))
                row.update(grmf_abs_error=grmf, grmf_signed_error=float(np.mean([r["grmf_error"] for r in part])),
                           refined_ratio=grmf / gmf if gmf > 0 else None)
            rows.append(row)
        if not any(r["N"] == n for r in servers):
            continue
        corr, within, ode_corr, ses = [], [], [], []
        for k in sorted({r["graph"] for r in sel}):
            part = [r for r in servers if r["N"] == n and r["graph"] == k]
            if len(part) < 2:
                continue
            gmf = np.array([r["gmf"] for r in part])
            sim = np.array([r["sim"] for r in part])
            ode = np.array([r["ode"] for r in part])
            kind = np.array([r["server_type"] for r in part])
            corr.append(float(np.corrcoef(gmf, sim)[0, 1]))
            ode_corr.append(float(np.corrcoef(ode, sim)[0, 1]) if np.ptp(ode) > 0 else float("nan"))
            gmf_dev, sim_dev = gmf.copy(), sim.copy()
            for m in np.unique(kind):
                gmf_dev[kind == m] -= gmf[kind == m].mean()
                sim_dev[kind == m] -= sim[kind == m].mean()
            within.append(float(np.corrcoef(gmf_dev, sim_dev)[0, 1]))
            ses.append(float(np.mean([r["sim_se"] for r in part])))
        rows.append(dict(N=n, server_type="all", graphs=len(corr), correlation=float(np.mean(corr)),
                         correlation_min=float(np.min(corr)), within_type_correlation=float(np.mean(within)),
                         within_type_correlation_min=float(np.min(within)), ode_correlation=float(np.mean(ode_corr)),
                         server_sim_se=float(np.mean(ses))))
    return rows


def graph_meanfield_transient_rows(seed: int, n_list=(50, 100, 1000), n_runs: int = 40, *, system=None, q0=None,
                                   horizon: float = 2.5, n_times: int = 26, workers: int | None = None) -> list[dict]:
    """L-F1's S2 setting (Sec. 6.1: irg(:math:`p^1`), initial matrix Q with lengths 1-3, i.i.d. start) on
    one graph per N: per type and time, the mean queue length of `n_runs` simulations on that
    graph (:func:`trajectory_replication` with the graph given, new initial state per run; mean
    and SE over the runs), the graph mean field's transient
    (:func:`qtheory.locality.graphmf.solve` from :func:`~qtheory.locality.graphmf.per_server_tails`)
    and (3.7)'s solution. One row per (N, server_type, t) with ``sim``, ``sim_se``, ``gmf``, ``ode``
    and the errors ``gmf - sim``, ``ode - sim``."""
    from .graphmf import per_server_tails, solve as graph_solve
    from .model import paper_initial_occupancy
    from ..runtime import child_seed, replicate

    seed = check_seed("seed", seed)
    system = _paper_design() if system is None else system
    q0 = paper_initial_occupancy("Q") if q0 is None else q0
    n_runs = check_integer("n_runs", n_runs, low=2)
    t_grid = np.linspace(0.0, check_real("horizon", horizon, low=0.0, low_open=True), check_integer("n_times", n_times,
                                                                                                 low=2))
    ode = solve_meanfield(system, q0, t_grid, tol=1e-9).mean_queue_length
    rows = []
    for n in n_list:
        graph = irg(system, check_integer("n_list", n, low=2), child_seed(seed, "graph", "S2", n))
        gmf = graph_solve(system, graph, per_server_tails(graph, q0), t_grid).type_mean_queue_length
        runs = replicate(trajectory_replication, n_runs, child_seed(seed, "runs", "S2", n),
                         args=(system, n, graph, q0, t_grid), workers=workers, desc=f"S2 transient N={n}")
        paths = np.array([r.mean_queue_length for r in runs])             # (runs, T, M)
        mean = paths.mean(axis=0)
        se = paths.std(axis=0, ddof=1) / np.sqrt(n_runs)
        for m in range(system.n_types):
            for g, t in enumerate(t_grid):
                rows.append(dict(N=int(n), server_type=m + 1, t=float(t), sim=float(mean[g, m]),
                                 sim_se=float(se[g, m]), runs=n_runs, gmf=float(gmf[g, m]), ode=float(ode[g, m]),
                                 gmf_error=float(gmf[g, m] - mean[g, m]), ode_error=float(ode[g, m] - mean[g, m])))
    return rows
