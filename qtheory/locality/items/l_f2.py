"""L-F2: convergence of the global occupancy to the ODE (3.7) (Sec. 6.2, Fig. 2).

:func:`compute` simulates local JSQ(2) on irg(:math:`p^1`) systems of the Sec. 6 design for
each :math:`N`, from the initial matrix Q of Sec. 6.2, and returns the mean paths of
:math:`q_{m,1}^N` and :math:`q_{m,2}^N` with 95% intervals beside the ODE (3.7) and the refined
(:math:`1/N`) transient of GWSQ(2). Its main claim, that the occupancy of the N-th system
converges to the limit's as N grows, is judged with its noise by :func:`convergence_claim` on each
run's largest distance from the ODE (:func:`run_distances`); the remark of Sec. 6.2 that
:math:`q_{1,1}^N` and especially :math:`q_{1,2}^N` fall very fast from large initial values is
judged by :func:`fastest_fall_claim` and :func:`own_fall_claim`.
"""

from __future__ import annotations

import math

import numpy as np

from ...claims import Claim
from ...direction import difference, direction_test
from ...display import Table, listing, number
from ...errors import ParameterError
from ...validation import check_integer
from ...results import ItemResult
from ...runtime import child_seed, replicate
from ...stats import band
from ..experiments import occupancy_drops, trajectory_replication
from ..graphs import irg
from ..meanfield import solve_meanfield
from ..model import paper_initial_occupancy, paper_system
from ..refined import refined_transient

__all__ = ["ITEM", "compute", "fastest_fall_claim", "own_fall_claim", "fastest", "run_distances", "convergence_claim",
           "mean_path_distance", "noise_bound"]

ITEM = "L-F2"
#: the system size of the refined GWSQ(2) transient drawn beside the simulations
REFINED_N = 100
#: "early" in the paper's remark: the first grid time at or after t = 0.1
EARLY = 0.1
SOURCE = "Sec. 6.2, Fig. 2"


def fastest(drops: list[dict], level: int, key: str) -> dict:
    """The row of :func:`~qtheory.locality.experiments.occupancy_drops` with the largest `key`
    at `level` (the first one on ties, in server-type order)."""
    return max((r for r in drops if r["level"] == level), key=lambda r: r[key])


def fastest_fall_claim(drops_sim: list[dict], drops_ode: list[dict], n_big: int) -> Claim:
    """Judge Sec. 6.2's remark on the largest system's mean path and on the ODE.

    Read as: the type-1 curves fall fastest at first (largest ``early_drop``), at both levels,
    in the simulation and in the ODE (3.7). ``holds`` is that reading's outcome.
    """
    early_first = {lv: fastest(drops_sim, lv, "early_drop")["server_type"] for lv in (1, 2)}
    total_first = {lv: fastest(drops_sim, lv, "total_drop")["server_type"] for lv in (1, 2)}
    ode_first = {lv: fastest(drops_ode, lv, "early_drop")["server_type"] for lv in (1, 2)}
    holds = all(early_first[lv] == 1 and ode_first[lv] == 1 for lv in (1, 2))
    d = {(r["server_type"], r["level"]): r for r in drops_sim}
    t1 = d[(1, 1)]["t_early"]
    sentence = (f"At $N = {n_big}$, $q_{{{early_first[1]},1}}$ falls fastest at first (from "
                f"{d[(early_first[1], 1)]['start']:.2f} to {d[(early_first[1], 1)]['at_early']:.2f} by $t = {t1:g}$, "
                f"while $q_{{1,1}}$ is still {d[(1, 1)]['at_early']:.2f}); at level 2 the fastest early fall is "
                f"$q_{{{early_first[2]},2}}$'s. Over the whole horizon the largest net falls are "
                f"$q_{{{total_first[1]},1}}$'s ({d[(total_first[1], 1)]['total_drop']:.2f}) and "
                f"$q_{{{total_first[2]},2}}$'s ({d[(total_first[2], 2)]['total_drop']:.2f}).")
    return Claim(item=ITEM, text="Sec. 6.2: $q^N_{1,1}$ and especially $q^N_{1,2}$ decrease very fast when their "
                                 "initial values are large (a ranking of the types: the type-1 curves fall fastest "
                                 "at first, at both levels)",
                 source=SOURCE, holds=bool(holds), reading="as a ranking of the types",
                 evidence=sentence + f" In the ODE (3.7) the fastest early falls are $q_{{{ode_first[1]},1}}$'s and "
                                     f"$q_{{{ode_first[2]},2}}$'s. Type-1 servers serve at rate 1, the slowest of "
                                     "the three.")


def own_fall_claim(drops_sim: list[dict], n_big: int) -> Claim:
    """Sec. 6.2's remark in its own words: "when the average queue length of type 1 servers is
    large, it will decrease very fast" (type 1 being sampled least often under :math:`p^1`).

    Read as: type 1's own occupancies fall, :math:`q_{1,2}` more than :math:`q_{1,1}` ("especially"),
    and :math:`q_{1,2}`'s net fall over the horizon is the largest of the level-2 curves."""
    d = {(r["server_type"], r["level"]): r for r in drops_sim}
    top2 = fastest(drops_sim, 2, "total_drop")["server_type"]
    holds = d[(1, 2)]["total_drop"] > d[(1, 1)]["total_drop"] > 0 and top2 == 1
    return Claim(item=ITEM, text="Sec. 6.2: $q^N_{1,1}$ and especially $q^N_{1,2}$ decrease very fast when their "
                                 "initial values are large (in the paper's own words: type 1's occupancy falls, "
                                 "level 2 most)",
                 source=SOURCE, holds=bool(holds), reading="in the paper's own words",
                 evidence=(f"At $N = {n_big}$, $q_{{1,1}}$ falls from {d[(1, 1)]['start']:.2f} to {d[(1, 1)]['end']:.2f} "
                           f"and $q_{{1,2}}$ from {d[(1, 2)]['start']:.2f} to {d[(1, 2)]['end']:.2f} over the horizon; "
                           f"the largest net fall at level 2 is $q_{{{top2},2}}$'s "
                           f"({d[(top2, 2)]['total_drop']:.2f})."))


def run_distances(occupancy, ode) -> np.ndarray:
    """Each run's largest distance from the ODE: :math:`\\max_{t,m,\\ell} |q^N_{m,\\ell}(t) - q_{m,\\ell}(t)|`
    over the grid times, types and levels of `occupancy` (runs x times x types x levels) against
    `ode` (times x types x levels). It falls as N grows when each system's occupancy converges
    to the limit's (in probability, uniformly on the horizon), the convergence Sec. 6.2 shows."""
    x = np.asarray(occupancy, dtype=float)
    return np.abs(x - np.asarray(ode, dtype=float)[None]).reshape(x.shape[0], -1).max(axis=1)


def mean_path_distance(mean, se, reference) -> tuple[float, float, float]:
    """The mean path's largest distance from `reference` (times x types x levels, like `mean` and its
    standard errors `se`): ``(distance, se, z)``, the standard error of the mean at the point where it
    is largest and the distance in those standard errors. The largest of many noisy distances is a
    few standard errors even where the mean path and the reference agree (:func:`noise_bound`)."""
    gap = np.abs(np.asarray(mean, dtype=float) - np.asarray(reference, dtype=float))
    k = np.unravel_index(int(np.argmax(gap)), gap.shape)
    err = float(np.asarray(se, dtype=float)[k])
    return float(gap[k]), err, float(gap[k] / err) if err > 0 else math.inf


def noise_bound(points: int, level: float = 0.05) -> float:
    """The distance, in standard errors, that the largest of `points` noisy distances of a mean path
    from the curve it equals exceeds at most a fraction `level` of the time (Bonferroni over the
    points: :math:`\\Phi^{-1}(1 - \\text{level} / (2 \\cdot \\text{points}))`; conservative, since the
    points of one path are correlated)."""
    from scipy.special import ndtri

    return float(-ndtri(level / (2.0 * points)))


def convergence_claim(distances: dict, mean_paths: dict | None = None, points: int = 0) -> Claim:
    """Sec. 6.2's main statement: the occupancy of the N-th system converges to that of the limit
    system (the ODE (3.7)) as N grows.

    Read as: a run's largest distance from the ODE (:func:`run_distances`) falls at every step of N,
    judged with its noise by :func:`qtheory.direction.direction_test`: one part per step, the ratio
    of the geometric means of the runs' distances (a run's distance is right-skewed, its logarithm
    near symmetric) above 1; the runs of two sizes are independent and paired by index. `distances`
    maps N to the runs' distances; `mean_paths`, N to :func:`mean_path_distance` of the mean path
    over `points` grid points, adds the mean paths' distances to the evidence, beside the
    :func:`noise_bound` that noise alone reaches 5% of the time."""
    ns = sorted(distances, key=int)
    if len(ns) < 2:
        raise ParameterError(f"the distance can fall only between two sizes or more (got N = {ns})")
    parts = [difference(distances[a], distances[b], log=True, by_index=True,
                        name=f"a run's largest distance at $N = {a}$ over $N = {b}$") for a, b in zip(ns, ns[1:])]
    test = direction_test(parts)
    runs = len(distances[ns[0]])
    evidence = ("A run's largest distance from the ODE over times, types and levels, mean ± standard error over the "
                f"{runs} runs of each size: "
                + ", ".join(f"{number(float(np.mean(distances[n])), float(np.std(distances[n], ddof=1) / np.sqrt(len(distances[n]))))}"
                            f" at $N = {n}$" for n in ns) + ".")
    if mean_paths:
        if points < 1:
            raise ParameterError(f"`points` must give the grid points of the mean paths (got {points!r})")
        bound = noise_bound(points)
        within = [n for n in ns if mean_paths[n][2] <= bound]
        beyond = [n for n in ns if n not in within]
        evidence += (" The mean path's largest distance is "
                     + ", ".join(f"{number(d, e)} at $N = {n}$ ({z:.1f} standard errors)"
                                 for n, (d, e, z) in ((n, mean_paths[n]) for n in ns))
                     + f". When a mean path equals the ODE, the largest of its {points} noisy points exceeds "
                       f"{bound:.1f} standard errors at most 5% of the time")
        if within:
            evidence += (f"; at $N$ = {listing(within, conjunction='and')} the mean path is within that noise, so its "
                         "distance there "
                         "measures the noise of the mean, not a difference from the ODE")
        if beyond:
            evidence += f"; at $N$ = {listing(beyond, conjunction='and')} it is beyond it"
        evidence += "."
    return test.record(item=ITEM, source=SOURCE, evidence=evidence,
                       text=r"Sec. 6.2: the occupancy paths $q^N_{m,\ell}(t)$ approach the ODE (3.7) as $N$ grows "
                            "(read as: a run's largest distance from the ODE falls at every step of $N$)")


def compute(*, seed: int, n_list, n_runs: int, horizon: float, n_times: int, reading: str,
            irg_graphs: str = "one") -> ItemResult:
    """L-F2 at the notebook's parameters (see the notebook for their meaning).

    Rows: ``N, server_type, level, t, method, mean`` (+ ``ci_low, ci_high, se`` for
    ``method = "sim"``); the ODE rows have ``N = "inf"``, the refined GWSQ(2) transient's
    ``N = REFINED_N``.
    """
    if irg_graphs not in ("one", "per-run"):
        raise ParameterError(f"`irg_graphs` must be 'one' or 'per-run' (got {irg_graphs!r})")
    # the reader's parameters first, in the reader's words (the functions below name their own)
    check_integer("n_runs", n_runs, low=2)
    check_integer("n_times", n_times, low=2)
    if not (isinstance(horizon, (int, float)) and not isinstance(horizon, bool) and math.isfinite(horizon)
            and horizon >= EARLY):
        raise ParameterError(f"`horizon` must be a number >= {EARLY:g}, the time by which the paper's remark on "
                             f"early falls is read (got {horizon!r})")
    params = dict(seed=seed, n_list=list(n_list), n_runs=n_runs, horizon=horizon, n_times=n_times, reading=reading,
                  irg_graphs=irg_graphs)
    system = paper_system("design")
    q0 = paper_initial_occupancy("Q", reading)
    t_grid = np.linspace(0.0, horizon, n_times)
    ode = solve_meanfield(system, q0, t_grid).q
    refined = refined_transient(system, q0, t_grid, start="iid").occupancy(REFINED_N)
    rows, distances, mean_paths = [], {}, {}
    for n in n_list:
        # Sec. 6.2 simulates each generated system 100 times: one graph per N, or a new one per run
        graph = irg(system, n, child_seed(seed, "graph", n)) if irg_graphs == "one" else "irg"
        runs = replicate(trajectory_replication, n_runs, child_seed(seed, "runs", n),
                         args=(system, n, graph, q0, t_grid), kwargs={"levels": 2}, desc=f"N={n}")
        mean, low, high, se = band([r.occupancy for r in runs])
        distances[str(n)] = run_distances([r.occupancy for r in runs], ode[:, :, :2])
        mean_paths[str(n)] = mean_path_distance(mean, se, ode[:, :, :2])
        for m in range(3):
            for lv in range(2):
                for g, t in enumerate(t_grid):
                    rows.append(dict(N=n, server_type=m + 1, level=lv + 1, t=t, method="sim", mean=mean[g, m, lv],
                                     ci_low=low[g, m, lv], ci_high=high[g, m, lv], se=se[g, m, lv]))
    for m in range(3):
        for lv in range(2):
            for g, t in enumerate(t_grid):
                rows.append(dict(N="inf", server_type=m + 1, level=lv + 1, t=t, method="ode", mean=ode[g, m, lv]))
                rows.append(dict(N=REFINED_N, server_type=m + 1, level=lv + 1, t=t, method="refined-gwsq",
                                 mean=refined[g, m, lv]))

    def path(n, method):
        return np.array([r["mean"] for r in rows if r["N"] == n and r["method"] == method])

    gap = {n: d for n, (d, _, _) in mean_paths.items()}
    summary = {"max_abs_gap_mean_vs_ode": gap,
               "max_abs_gap_mean_vs_ode_se": {n: e for n, (_, e, _) in mean_paths.items()},
               "run_distance_mean": {n: float(np.mean(d)) for n, d in distances.items()},
               "run_distance_se": {n: float(np.std(d, ddof=1) / np.sqrt(d.size)) for n, d in distances.items()}}
    refined_gap = None
    if REFINED_N in n_list:
        sim_se = np.array([r["se"] for r in rows if r["N"] == REFINED_N and r["method"] == "sim"])
        refined_gap = mean_path_distance(path(REFINED_N, "sim"), sim_se, path(REFINED_N, "refined-gwsq"))
        summary[f"max_abs_gap_mean_vs_refined_gwsq_N{REFINED_N}"] = refined_gap[0]
    # how fast each curve falls, in the largest simulated system and in the ODE
    n_big = max(n_list)
    sim_big = path(n_big, "sim").reshape(3, 2, len(t_grid))
    drops = {"sim": occupancy_drops(t_grid, sim_big.transpose(2, 0, 1), early=EARLY),
             "ode": occupancy_drops(t_grid, ode[:, :, :2], early=EARLY)}
    claim = fastest_fall_claim(drops["sim"], drops["ode"], n_big)
    own = own_fall_claim(drops["sim"], n_big)
    sentence = claim.evidence.split(" In the ODE")[0]
    summary.update(drops=drops, drop_sentence=sentence)
    shown = [(n, "the ODE (3.7)", mean_paths[str(n)], (summary["run_distance_mean"][str(n)],
                                                        summary["run_distance_se"][str(n)])) for n in n_list]
    if refined_gap is not None:
        shown.append((REFINED_N, "the refined GWSQ(2) transient $q + V/N$", refined_gap, None))
    table = Table(tuple(shown), {"$N$": lambda r: r[0], "compared with": lambda r: r[1],
                                 "mean path: largest distance": lambda r: number(r[2][0], r[2][1]),
                                 "in standard errors": lambda r: f"{r[2][2]:.1f}",
                                 "one run: largest distance": lambda r: "\u2014" if r[3] is None else number(*r[3])},
                  caption=f"Largest distance over times, types and levels between the simulated occupancy and the "
                          f"deterministic curves: of the mean path of the {n_runs} runs (± the standard error of the "
                          "mean where it is largest, and that distance in standard errors) and of one run's own path "
                          f"(mean ± standard error over the {n_runs} runs)")
    caption = (
        rf"occupancy $q_{{m,\ell}}(t)$ of the Sec. 6 system on irg($p^1$) (JSQ(2), $\lambda = 3$): fraction of type-$m$ "
        rf"servers with at least $\ell$ tasks, $\ell = 1$ (top) and 2 (bottom), for "
        rf"$N = {', '.join(str(n) for n in n_list)}$ "
        + ("(one graph per $N$)" if irg_graphs == "one" else "(a new graph per run)")
        + f", {n_runs} runs each (95% CI), the ODE (3.7) (dashed) and the refined transient of GWSQ(2) at "
        f"$N = {REFINED_N}$ (diamonds at every second time; it differs from the ODE by a term of order $1/N$), "
        f"from the initial matrix Q read as lengths {'1-3' if reading == 'lengths-1-3' else '0-2'}, up to "
        f"$t = {horizon:g}$")
    converges = convergence_claim(distances, mean_paths, points=int(ode[:, :, :2].size))
    return ItemResult(ITEM, params, seed, rows, claims=(converges, own, claim), summary=summary, displays=(table,),
                      text=sentence,
                      figure={"caption": caption, "n_list": list(n_list), "refined_n": REFINED_N})
