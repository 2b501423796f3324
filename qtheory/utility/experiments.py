"""Experiments behind the U notebooks: each returns tidy rows (one per parameter point and
method) that the notebooks save with :class:`qtheory.results.ResultWriter` and plot.

Every replicated experiment goes through :func:`qtheory.runtime.replicate`; the seed of a
parameter point is :func:`qtheory.runtime.child_seed` of the root `seed`, the experiment's
name and the point's indices (e.g. ``child_seed(seed, "table1", rho_index, n_index, policy)``),
so that points are independent however long a preset makes a list, and each can be rerun alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ..errors import ParameterError
from ..runtime import child_seed, replicate
from ..validation import check_integer, check_positive, check_real
from ..stats import StationaryStatistics, batch_estimate, mean_ci
from .fluid import l1_distance, solve_fluid, solve_fluid_splitting
from .model import PoolSystem
from .optimal import optimal_assignment, optimal_assignment_lp
from .policies import as_policy
from .simulation import simulate

__all__ = ["Replication", "stationary_statistics", "policy_runs", "table1_rows", "poisson_rows", "fluid_limit_rows",
           "slta_learning_rows", "fluid_convergence_rows", "solver_agreement_rows", "assignment_rows",
           "lp_rows", "pool_columns", "Table1Tables", "PoissonTables", "poisson_samples", "poisson_bins", "poisson_test", "FluidLimitTables", "LearningTables"]


@dataclass(frozen=True)
class Replication:
    """What one replication of a U experiment returns: one record type for every experiment.

    Each replicated experiment of this module (and of :mod:`~qtheory.utility.suboptimal`) runs
    :func:`~qtheory.utility.simulation.simulate` once and keeps what it needs: the fields it
    does not compute are NaN (numbers) or None (arrays). Field names follow
    :class:`~qtheory.utility.simulation.SimulationResult`.

    Attributes
    ----------
    horizon, warmup : float
        Horizon and start of the averaging window, in time units.
    events : int
        Arrivals plus departures simulated.
    wall_time : float
        Seconds spent in the kernel.
    mean_utility : float
        Time average of :math:`u(q_n(t))` over ``[warmup, horizon]``.
    mean_tasks : float
        Time average of :math:`s_n(t)`, tasks per pool (its exact mean is :math:`\\rho`).
    mean_utility_cv : float
        `mean_utility` with the control variate :math:`s_n` (:func:`policy_runs`).
    empirical_bound : float
        :math:`u(q_n^*)` with :math:`\\rho` replaced by `mean_tasks` (Sec. 3.4.1).
    time_at_r_star : float
        SLTA: fraction of ``[warmup, horizon]`` with :math:`r_n = r_*`.
    count_distribution : ndarray or None
        Fraction of the window with :math:`n s_n = k` tasks, ``k = 0..kmax``.
    times : ndarray or None
        Sample times of the paths below.
    occupancy : ndarray or None
        :math:`q_n(t)` at `times`, shape (S, m, J + 1).
    rank : ndarray or None
        SLTA's index :math:`r_n(t)` at `times`.
    l1_to_q_star : ndarray or None
        :math:`\\|q_n(t) - q_n^*\\|_1` at `times`.
    """

    horizon: float
    warmup: float
    events: int
    wall_time: float
    mean_utility: float = math.nan
    mean_tasks: float = math.nan
    mean_utility_cv: float = math.nan
    empirical_bound: float = math.nan
    time_at_r_star: float = math.nan
    count_distribution: np.ndarray | None = None
    times: np.ndarray | None = None
    occupancy: np.ndarray | None = None
    rank: np.ndarray | None = None
    l1_to_q_star: np.ndarray | None = None

    @classmethod
    def of(cls, res, **fields) -> "Replication":
        """The record of simulation result `res` (horizon, window, events, wall time) with `fields`."""
        return cls(horizon=res.horizon, warmup=res.warmup, events=int(res.events), wall_time=float(res.wall_time),
                   **fields)


def _one_run(ss, system: PoolSystem, n: int, policy: str, horizon: float, warmup: float) -> Replication:
    res = simulate(system, n, policy, horizon=horizon, warmup=warmup, seed=ss)
    emp = optimal_assignment(system, res.mean_tasks, alpha=res.alpha).utility
    opt = optimal_assignment(system, alpha=res.alpha)
    at_r = float(res.r_distribution[opt.rank]) if as_policy(policy).has_index else float("nan")
    # control variate: E[s_n] = rho exactly, and u(q*(s)) has slope Delta(sigma*) at s = rho
    slope = float(opt.enumeration.delta[opt.rank - 1])
    u_cv = res.mean_utility - slope * (res.mean_tasks - system.rho)
    return Replication.of(res, mean_utility=res.mean_utility, mean_tasks=res.mean_tasks, empirical_bound=emp,
                          time_at_r_star=at_r, mean_utility_cv=u_cv)


def policy_runs(system: PoolSystem, n: int, policy: str, *, horizon: float, warmup: float, n_runs: int,
                seed: int, desc: str | None = None, keep_runs: bool = False) -> dict:
    """Independent stationary runs of one policy: means and 95% CIs of the time-averaged
    ``u(q_n)``, ``s_n``, the empirical bound ``u(q_n*)`` with ``rho`` replaced by the time
    average of ``s_n`` (Sec. 3.4.1) and, for SLTA, the time fraction with ``r_n = r_*``.

    ``mean_utility_cv`` is the same estimate with the control variate ``s_n``: since
    ``E[s_n] = rho`` exactly, ``u - Delta(sigma*) (s - rho)`` has the same mean and a much
    smaller variance (the slope of ``rho -> u(q_n*(rho))`` at ``rho`` is ``Delta(sigma*)``).

    With `keep_runs`, the result also holds ``utility_runs``: each run's time-averaged ``u(q_n)``
    (a tuple in run order; the run means a record of ``mean_utility`` carries, see
    :class:`qtheory.claims.Claim`), and ``utility_cv_runs``, each run's control-variate estimate.
    """
    out = replicate(_one_run, n_runs, seed, args=(system, n, policy, horizon, warmup),
                    desc=desc or f"{policy} n={n}")
    arr = np.array([(o.mean_utility, o.mean_tasks, o.empirical_bound, o.time_at_r_star, o.mean_utility_cv)
                    for o in out], dtype=float)
    u, s, emp, at_r, cv = (mean_ci(arr[:, k]) for k in range(5))
    kept = {"utility_runs": tuple(float(x) for x in arr[:, 0]),
            "utility_cv_runs": tuple(float(x) for x in arr[:, 4])} if keep_runs else {}
    return {**kept,
        "mean_utility": float(u.mean), "utility_ci_low": float(u.ci_low), "utility_ci_high": float(u.ci_high),
        "utility_se": float(u.se), "runs": int(n_runs),
        "mean_utility_cv": float(cv.mean), "utility_cv_ci_low": float(cv.ci_low), "utility_cv_ci_high": float(cv.ci_high),
        "mean_tasks": float(s.mean), "tasks_ci_low": float(s.ci_low), "tasks_ci_high": float(s.ci_high),
        "empirical_bound": float(emp.mean), "empirical_bound_ci_low": float(emp.ci_low),
        "empirical_bound_ci_high": float(emp.ci_high),
        "gap_to_empirical_bound": float(np.mean(arr[:, 2] - arr[:, 0])),
        "max_run_excess_over_empirical_bound": float(np.max(arr[:, 0] - arr[:, 2])),
        "time_at_r_star": float(at_r.mean) if as_policy(policy).has_index else float("nan"),
        "runs": int(n_runs), "events": int(sum(o.events for o in out)),
    }


def stationary_statistics(system: PoolSystem, n: int, policy="jlmu", *, horizon: float, warmup: float, seed,
                          n_samples: int = 2000, n_batches: int = 20, **options) -> StationaryStatistics:
    """Time-averaged :math:`u(q_n)`, :math:`s_n` and :math:`q_n` of one run, with standard errors.

    Returns a :class:`qtheory.stats.StationaryStatistics` with the estimates ``mean_utility``,
    ``mean_tasks`` (per pool) and ``mean_occupancy`` (shape (m, J + 1)).

    The averages are over `n_samples` equally spaced times in ``[warmup, horizon]`` (an unbiased
    estimate of the time average over the window; :func:`~qtheory.utility.simulation.simulate`'s
    own ``mean_utility`` is the exact time average of the same run); their standard errors
    come from `n_batches` batches of consecutive samples (:func:`qtheory.stats.batch_means`),
    valid when the batches are long against the relaxation time (of order :math:`1/\\mu`
    for the number of tasks). `options` go to :func:`~qtheory.utility.simulation.simulate`
    (``beta``, ``r0``, ``initial``).
    """
    horizon = check_positive("horizon", horizon)
    warmup = check_real("warmup", warmup, low=0.0, high=horizon, high_open=True)
    n_samples = check_integer("n_samples", n_samples, low=2)
    n_batches = check_integer("n_batches", n_batches, low=2, high=n_samples)
    times = np.linspace(warmup, horizon, n_samples)
    res = simulate(system, n, policy, horizon=horizon, warmup=warmup, seed=seed, sample_times=times, **options)
    estimates = {"mean_utility": batch_estimate(res.u, n_batches), "mean_tasks": batch_estimate(res.s, n_batches),
                 "mean_occupancy": batch_estimate(res.occupancy, n_batches)}
    return StationaryStatistics(estimates, n_samples, n_batches, int(res.events), float(res.wall_time), warmup, horizon)


class Table1Tables(NamedTuple):
    """The two tidy tables of :func:`table1_rows` (a tuple: ``rows, runs = ...`` works)."""

    rows: list[dict]
    runs: list[dict]


def table1_rows(rhos, n_values, policies, *, horizon: float, warmup: float, n_runs: int, seed: int,
                system_factory) -> Table1Tables:
    """Table 1: for each ``rho`` and ``n``, ``u(q_n*)``, ``u(q_*)`` and each policy's estimate
    (:func:`policy_runs`), and each run's estimates.

    Returns the tables ``(rows, runs)``: one row per ``(rho, n, policy)``; one per run of each with
    ``rho, n, policy, run`` (0-based), ``upper_bound``, ``mean_utility`` and ``mean_utility_cv``
    (the run means the estimates average)."""
    rows, runs = [], []
    for a, rho in enumerate(rhos):
        system = system_factory(rho)
        limit = optimal_assignment(system).utility
        for b, n in enumerate(n_values):
            bound = optimal_assignment(system, alpha=system.pool_counts(n) / n).utility
            for policy in policies:
                stats_ = policy_runs(system, n, policy, horizon=horizon, warmup=warmup, n_runs=n_runs,
                                     seed=child_seed(seed, "table1", a, b, policy),
                                     desc=f"{policy} rho={rho} n={n}", keep_runs=True)
                each = zip(stats_.pop("utility_runs"), stats_.pop("utility_cv_runs"))
                runs += [{"rho": rho, "n": n, "policy": policy, "run": k, "upper_bound": bound, "mean_utility": u,
                          "mean_utility_cv": cv} for k, (u, cv) in enumerate(each)]
                rows.append({"rho": rho, "n": n, "policy": policy, "upper_bound": bound,
                             "limit_utility": limit, **stats_,
                             "gap_to_bound": bound - stats_["mean_utility"]})
    return Table1Tables(rows, runs)


class PoissonTables(NamedTuple):
    """The two tidy tables of :func:`poisson_rows` (a tuple: ``pmf, summary = ...`` works)."""

    pmf: list[dict]
    summary: list[dict]


class FluidLimitTables(NamedTuple):
    """The two tidy tables of :func:`fluid_limit_rows`."""

    errors: list[dict]
    paths: list[dict]


class LearningTables(NamedTuple):
    """The two tidy tables of :func:`slta_learning_rows`."""

    paths: list[dict]
    summary: list[dict]


def _poisson_run(ss, system, n, policy, horizon, warmup, kmax) -> Replication:
    res = simulate(system, n, policy, horizon=horizon, warmup=warmup, seed=ss)
    d = np.zeros(kmax + 1)
    m = min(kmax + 1, res.count_distribution.size)
    d[:m] = res.count_distribution[:m]
    return Replication.of(res, mean_utility=res.mean_utility, mean_tasks=res.mean_tasks, count_distribution=d)


def poisson_samples(system: PoolSystem, n: int, policies, *, horizon: float, warmup: float, n_runs: int,
                    seed: int) -> list[dict]:
    """U-X-poisson's runs: per policy (stream ``child_seed(seed, "poisson", policy)``), each run's
    time-averaged law of ``n s_n`` on ``0..kmax`` (``kmax = n rho + 8 sqrt(n rho) + 10``) and its
    mean count. Returns one dict per policy: ``policy, dists`` (runs x counts), ``counts``."""
    mean = n * system.rho
    kmax = int(mean + 8 * np.sqrt(mean) + 10)
    out = []
    for policy in policies:
        runs = replicate(_poisson_run, n_runs, child_seed(seed, "poisson", policy),
                         args=(system, n, policy, horizon, warmup, kmax), desc=f"poisson {policy}")
        out.append(dict(policy=policy, dists=np.array([o.count_distribution for o in runs]),
                        counts=np.array([o.mean_tasks * n for o in runs])))
    return out


def poisson_rows(system: PoolSystem, n: int, policies, *, horizon: float, warmup: float, n_runs: int,
                 seed: int, samples: list[dict] | None = None) -> PoissonTables:
    """Law of ``n s_n`` under each policy against Poisson(``n rho``) (Sec. 2.1, 3.3).

    Returns the tables ``(pmf, summary)``: the time-averaged pmf per count and policy (with
    CIs over runs), and per policy the mean count with its CI, its z-score against
    ``n rho``, the total-variation distance between the averaged pmf and Poisson, and the
    largest per-count t statistic (``max_count_t``, counts with Poisson probability above
    1e-3; :func:`poisson_test` judges them all at once). From `samples` of
    :func:`poisson_samples` when given, else simulated.
    """
    if samples is None:
        samples = poisson_samples(system, n, policies, horizon=horizon, warmup=warmup, n_runs=n_runs, seed=seed)
    mean = n * system.rho
    pmf_rows, summary = [], []
    for g in samples:
        policy, dists, counts = g["policy"], g["dists"], g["counts"]
        pmf = stats.poisson.pmf(np.arange(dists.shape[1]), mean)
        ci = mean_ci(dists)
        for k in range(dists.shape[1]):
            pmf_rows.append({"policy": policy, "tasks": k, "time_fraction": float(ci.mean[k]),
                             "ci_low": float(ci.ci_low[k]), "ci_high": float(ci.ci_high[k]), "poisson_pmf": float(pmf[k])})
        c = mean_ci(counts)
        keep = pmf > POISSON_KEEP
        se_k = dists.std(axis=0, ddof=1)[keep] / np.sqrt(dists.shape[0])
        t_k = np.abs(dists.mean(axis=0)[keep] - pmf[keep]) / np.maximum(se_k, 1e-300)
        summary.append({"policy": policy, "n": n, "rho": system.rho, "mean_tasks": float(c.mean),
                        "ci_low": float(c.ci_low), "ci_high": float(c.ci_high), "se": float(c.se), "runs": int(dists.shape[0]),
                        "poisson_mean": mean, "z_score": float((c.mean - mean) / c.se),
                        "total_variation": float(0.5 * np.abs(ci.mean - pmf).sum()),
                        "max_count_t": float(t_k.max())})
    return PoissonTables(pmf_rows, summary)


#: counts whose Poisson probability is above this are shown one by one (``max_count_t``)
POISSON_KEEP = 1e-3
#: the law of n s_n is judged on the share of time in each of this many bins of equal Poisson probability
POISSON_BINS = 5
#: the margin of each bin's share of time, relative to its Poisson probability
POISSON_BIN_MARGIN = 0.1


def poisson_bins(mean: float, size: int, n_bins: int = POISSON_BINS) -> tuple[np.ndarray, np.ndarray]:
    """The bins of counts between the quantiles of Poisson(`mean`) at ``1/n_bins, ..., (n_bins - 1)/n_bins``
    (with ``n_bins = 5``, its fifths): bin ``j`` holds the counts ``k`` with ``c_{j-1} < k <= c_j``, ``c_j``
    the ``j/n_bins`` quantile (the last bin every count above the last quantile).

    Returns ``(which, probability)``: the bin of each count ``0..size-1`` and each bin's Poisson
    probability (the last one's includes the counts from `size` on). Quantiles that coincide (a
    small mean) make one bin."""
    check_positive("mean", mean)
    n_bins = check_integer("n_bins", n_bins, low=2)
    cuts = np.unique(stats.poisson.ppf(np.arange(1, n_bins) / n_bins, mean).astype(int))
    which = np.searchsorted(cuts, np.arange(int(size)), side="left")
    cdf = stats.poisson.cdf(cuts, mean)
    probability = np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    return which, probability


def poisson_test(system: PoolSystem, n: int, samples: list[dict], seed: int):
    """One sign-flip test (:func:`qtheory.verdicts.sign_flip_test`) that the time-averaged law of
    ``n s_n`` is Poisson(``n rho``) under every policy of `samples`, on each run's share of time in
    the :data:`POISSON_BINS` bins between the Poisson quantiles (:func:`poisson_bins`: its fifths);
    the shares of one run are correlated, each run's vector is flipped whole.

    Why bins and not the probability of each count: a run's share of time at a count in the tail
    comes from few excursions, so it is right-skewed over runs, and the sign-flip test assumes
    symmetric run means (:func:`qtheory.verdicts.symmetry_check`). Measured on 300-400 runs of the
    Table 1 system: with 20 pools and windows of 100 time units (100 relaxation times
    :math:`1/\\mu`) the skewness of a tail count's share reaches 1.1, with 10 pools and 580 time
    units 0.6, with 50 pools and 1300 time units 0.36; that of a fifth's share is at most 0.25 in
    the last two (within the sampling error of 0.14). The margin of each bin is
    :data:`POISSON_BIN_MARGIN` of its Poisson probability (0.02 for a fifth): with 5% (the book's
    default) the shares of 30 such runs would rarely resolve it, at either preset."""
    from ..verdicts import sign_flip_test

    mean = n * system.rho
    groups, exact, margins = [], [], []
    for g in samples:
        which, probability = poisson_bins(mean, g["dists"].shape[1])
        shares = np.stack([g["dists"][:, which == j].sum(axis=1) for j in range(probability.size)], axis=1)
        groups.append(shares)
        exact.append(probability)
        margins.append(POISSON_BIN_MARGIN * probability)
    return sign_flip_test(groups, exact, seed=child_seed(seed, "poisson sign flip"), margins=margins)


def _fluid_run(ss, system, n, q0, times) -> Replication:
    res = simulate(system, n, "jlmu", horizon=float(times[-1]) + 1e-9, seed=ss, initial=q0, sample_times=times)
    return Replication.of(res, times=res.times, occupancy=res.occupancy)


def fluid_limit_rows(system: PoolSystem, q0, n_values, times, *, n_runs: int, seed: int,
                     track=()) -> FluidLimitTables:
    """Theorem 5: ``||q_n(t) - q(t)||_1`` for JLMU from `q0` against the exact fluid trajectory.

    Returns the tables ``(errors, paths)``; path rows give the mean of the coordinates in
    `track` (``(i, j)`` pairs) for each ``n`` next to the fluid value.
    """
    times = np.asarray(times, dtype=float)
    fluid = solve_fluid(system, q0, times)
    err_rows, path_rows = [], []
    for idx, n in enumerate(n_values):
        out = replicate(_fluid_run, n_runs, child_seed(seed, "fluid_limit", idx), args=(system, n, q0, times),
                        desc=f"fluid limit n={n}")
        qs = [o.occupancy for o in out]
        errs = np.array([l1_distance(q, fluid.q) for q in qs])     # (runs, T)
        sup = mean_ci(errs.max(axis=1))
        err_rows.append({"n": n, "sup_l1_error": float(sup.mean), "ci_low": float(sup.ci_low),
                         "ci_high": float(sup.ci_high), "sqrt_n_times_error": float(np.sqrt(n) * sup.mean),
                         "runs": n_runs})
        for (i, j) in track:
            vals = np.array([q[:, i, j] if j < q.shape[2] else np.zeros(times.size) for q in qs])
            ci = mean_ci(vals)
            fl = fluid.q[:, i, j] if j < fluid.q.shape[2] else np.zeros(times.size)
            for k, t in enumerate(times):
                path_rows.append({"n": n, "cls": i + 1, "j": j, "t": float(t), "sim_mean": float(ci.mean[k]),
                                  "ci_low": float(ci.ci_low[k]), "ci_high": float(ci.ci_high[k]), "fluid": float(fl[k])})
    return FluidLimitTables(err_rows, path_rows)


def _slta_run(ss, system, n, horizon, times, beta) -> Replication:
    res = simulate(system, n, "slta", horizon=horizon, seed=ss, sample_times=times, beta=beta)
    qs = optimal_assignment(system, alpha=res.alpha).q
    return Replication.of(res, times=res.times, rank=res.r, l1_to_q_star=l1_distance(res.occupancy, qs))


def slta_learning_rows(system: PoolSystem, n_values, times, *, n_runs: int, seed: int, t_late: float,
                       beta=None) -> LearningTables:
    """Theorem 6: SLTA from an empty system with ``r_n(0) = 1``.

    Returns the tables ``(paths, summary)``: per ``n`` and time the mean of ``r_n(t)`` and of
    ``||q_n(t) - q_n*||_1``, and per ``n`` the fraction of sampled times after
    ``tau_eq`` (the fluid time at which the mass above ``sigma_*`` is reached) with
    ``r_n = r_*`` and the mean distance there.
    """
    times = np.asarray(times, dtype=float)
    qs = optimal_assignment(system)
    theta = qs.theta
    # time at which s(t) = rho (1 - e^{-mu t}) exceeds the mass above sigma_* (Sec. 7.2.2)
    tau = np.log(system.rho / (system.rho - theta)) / system.mu if theta < system.rho else np.inf
    path_rows, summary = [], []
    for idx, n in enumerate(n_values):
        out = replicate(_slta_run, n_runs, child_seed(seed, "slta_learning", idx),
                        args=(system, n, float(times[-1]) + 1e-9, times, beta), desc=f"slta n={n}")
        r = np.array([o.rank for o in out], dtype=float)
        d = np.array([o.l1_to_q_star for o in out])
        r_star = optimal_assignment(system, alpha=system.pool_counts(n) / n).rank
        rci, dci = mean_ci(r), mean_ci(d)
        for k, t in enumerate(times):
            path_rows.append({"n": n, "t": float(t), "r_mean": float(rci.mean[k]), "r_ci_low": float(rci.ci_low[k]),
                              "r_ci_high": float(rci.ci_high[k]), "l1_to_q_star": float(dci.mean[k]),
                              "l1_ci_low": float(dci.ci_low[k]), "l1_ci_high": float(dci.ci_high[k]), "r_star": r_star})
        late = times >= t_late
        summary.append({"n": n, "r_star": r_star, "tau_fluid": float(tau),
                        "fraction_at_r_star_late": float(np.mean(r[:, late] == r_star)),
                        "mean_l1_late": float(d[:, late].mean()), "runs": n_runs})
    return LearningTables(path_rows, summary)


def fluid_convergence_rows(system: PoolSystem, starts: dict, times) -> list[dict]:
    """Theorem 4: ``||q(t) - q_*||_1`` and ``s(t)`` along exact fluid trajectories from `starts`."""
    qs = optimal_assignment(system).q
    rows = []
    for name, q0 in starts.items():
        sol = solve_fluid(system, q0, times)
        d = l1_distance(sol.q, qs)
        s0 = sol.total[0]
        for k, t in enumerate(sol.t):
            rows.append({"start": name, "t": float(t), "l1_to_q_star": float(d[k]), "total": float(sol.total[k]),
                         "total_closed_form": float(system.rho + (s0 - system.rho) * np.exp(-system.mu * t)),
                         "sigma_rank": int(sol.sigma_rank[k]), "switches": len(sol.events)})
    return rows


def solver_agreement_rows(system: PoolSystem, starts: dict, times, dts) -> list[dict]:
    """Theorem 3 (uniqueness), numerically: the exact solver and the splitting scheme agree,
    with an error of order ``dt``."""
    rows = []
    for name, q0 in starts.items():
        exact = solve_fluid(system, q0, times)
        for dt in dts:
            approx = solve_fluid_splitting(system, q0, times, dt)
            rows.append({"start": name, "dt": float(dt),
                         "sup_l1_difference": float(l1_distance(approx.q, exact.q).max())})
    return rows


def assignment_rows(system: PoolSystem, rhos) -> list[dict]:
    """Fig. 3: the optimal assignment ``q_*`` against ``rho``: tasks per pool of each class,
    the fraction of class pools at the top level and ``sigma_*``.

    Numbering convention of the package: Python objects index classes from 0 (array rows,
    ``Assignment.sigma[0]``); tidy rows and tables number them from 1 as the paper does
    (``cls``, ``sigma_cls`` = ``sigma[0] + 1``). Levels are numbered from 1 everywhere.
    """
    rows = []
    alpha = system.alpha_array
    for rho in rhos:
        a = optimal_assignment(system, float(rho))
        per_pool = a.q[:, 1:].sum(axis=1) / alpha
        for i in range(system.m):
            rows.append({"rho": float(rho), "cls": i + 1, "tasks_per_pool": float(per_pool[i]),
                         "sigma_cls": a.sigma[0] + 1, "sigma_j": a.sigma[1], "utility": a.utility})
    return rows


def lp_rows(cases: dict) -> list[dict]:
    """Proposition 1: value of the greedy ``q*`` against a linear-programming solution of (2)."""
    rows = []
    for name, (system, rho) in cases.items():
        a = optimal_assignment(system, rho)
        q_lp, value = optimal_assignment_lp(system, rho)
        rows.append({"case": name, "rho": rho, "greedy_value": a.utility, "lp_value": value,
                     "difference": a.utility - value, "l1_between_solutions": float(l1_distance(q_lp, a.q))})
    return rows


def pool_columns(system: PoolSystem, n: int, rho: float) -> list[dict]:
    """Fig. 3 in the paper's form: the optimal assignment ``q_n*`` of ``n`` pools at load `rho`
    as one column per pool (``pool``, ``cls`` numbered from 1, ``tasks``), pools ordered by class
    and, within a class, by decreasing number of tasks. ``n alpha(i)`` and ``n rho`` must be
    whole numbers, so that ``n q_n*(i, j)`` counts pools."""
    n = check_integer("n", n, low=1)
    rho = check_positive("rho", rho)
    if abs(n * rho - round(n * rho)) > 1e-9:
        raise ParameterError(f"`n` * `rho` must be a whole number of tasks (got {n} x {rho!r} = {n * rho!r})")
    counts = system.pool_counts(n)
    a = optimal_assignment(system, rho, alpha=counts / n)
    nq = n * a.q
    whole = np.rint(nq)
    if np.any(np.abs(nq - whole) > 1e-6):
        raise ParameterError(f"n q_n*(i, j) is not a whole number of pools for n = {n}, rho = {rho!r}")
    rows, pool = [], 0
    for i in range(system.m):
        col = whole[i].astype(int)  # col[j] = number of class-i pools with at least j tasks
        for k in range(int(counts[i])):
            tasks = int(np.sum(col[1:] > k))
            rows.append({"pool": pool, "cls": i + 1, "tasks": tasks})
            pool += 1
    return rows
