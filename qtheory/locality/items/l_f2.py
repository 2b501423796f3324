"""L-F2: convergence of the global occupancy to the ODE (3.7) (Sec. 6.2, Fig. 2).

:func:`compute` simulates local JSQ(2) on irg(:math:`p^1`) systems of the Sec. 6 design for
each :math:`N`, from the initial matrix Q of Sec. 6.2, and returns the mean paths of
:math:`q_{m,1}^N` and :math:`q_{m,2}^N` with 95% intervals beside the ODE (3.7) and the refined
(:math:`1/N`) transient of GWSQ(2). Its one paper claim, the remark of Sec. 6.2 that
:math:`q_{1,1}^N` and especially :math:`q_{1,2}^N` fall very fast from large initial values,
is judged by :func:`fastest_fall_claim`.
"""

from __future__ import annotations

import math

import numpy as np

from ...claims import Claim
from ...display import Table
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

__all__ = ["ITEM", "compute", "fastest_fall_claim", "fastest"]

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
                 source=SOURCE, holds=bool(holds),
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
                 source=SOURCE, holds=bool(holds),
                 evidence=(f"At $N = {n_big}$, $q_{{1,1}}$ falls from {d[(1, 1)]['start']:.2f} to {d[(1, 1)]['end']:.2f} "
                           f"and $q_{{1,2}}$ from {d[(1, 2)]['start']:.2f} to {d[(1, 2)]['end']:.2f} over the horizon; "
                           f"the largest net fall at level 2 is $q_{{{top2},2}}$'s "
                           f"({d[(top2, 2)]['total_drop']:.2f})."))


def convergence_claim(gap: dict, n_runs: int) -> Claim:
    """Sec. 6.2's main statement: the simulated mean occupancy approaches the ODE (3.7) as N grows
    (the largest distance to the ODE over types, levels and times falls at every step of N)."""
    ns = sorted(gap, key=int)
    values = [gap[n] for n in ns]
    holds = all(b < a for a, b in zip(values, values[1:]))
    return Claim(item=ITEM, text=r"Sec. 6.2: the mean paths $q^N_{m,\ell}(t)$ approach the ODE (3.7) as $N$ grows",
                 source=SOURCE, holds=bool(holds),
                 evidence="Largest distance between the mean of " + f"{n_runs} runs and the ODE: "
                          + ", ".join(f"{gap[n]:.4f} at $N = {n}$" for n in ns) + ".")


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
    rows = []
    for n in n_list:
        # Sec. 6.2 simulates each generated system 100 times: one graph per N, or a new one per run
        graph = irg(system, n, child_seed(seed, "graph", n)) if irg_graphs == "one" else "irg"
        runs = replicate(trajectory_replication, n_runs, child_seed(seed, "runs", n),
                         args=(system, n, graph, q0, t_grid), kwargs={"levels": 2}, desc=f"N={n}")
        mean, low, high, se = band([r.occupancy for r in runs])
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

    ode_path = np.array([r["mean"] for r in rows if r["method"] == "ode"])
    gap = {str(n): float(np.max(np.abs(path(n, "sim") - ode_path))) for n in n_list}
    summary = {"max_abs_gap_mean_vs_ode": gap}
    if REFINED_N in n_list:
        summary[f"max_abs_gap_mean_vs_refined_gwsq_N{REFINED_N}"] = float(
            np.max(np.abs(path(REFINED_N, "sim") - path(REFINED_N, "refined-gwsq"))))
    # how fast each curve falls, in the largest simulated system and in the ODE
    n_big = max(n_list)
    sim_big = path(n_big, "sim").reshape(3, 2, len(t_grid))
    drops = {"sim": occupancy_drops(t_grid, sim_big.transpose(2, 0, 1), early=EARLY),
             "ode": occupancy_drops(t_grid, ode[:, :, :2], early=EARLY)}
    claim = fastest_fall_claim(drops["sim"], drops["ode"], n_big)
    own = own_fall_claim(drops["sim"], n_big)
    sentence = claim.evidence.split(" In the ODE")[0]
    summary.update(drops=drops, drop_sentence=sentence)
    shown = [(n, "the ODE (3.7)", v) for n, v in gap.items()] + \
        [(REFINED_N, "the refined GWSQ(2) transient $q + V/N$", v) for k, v in summary.items()
         if k.startswith("max_abs_gap_mean_vs_refined")]
    table = Table(tuple(shown), {"$N$": lambda r: r[0], "compared with": lambda r: r[1],
                                 r"$\max_{t,m,\ell} |\bar q^N_{m,\ell}(t) - \cdot|$": lambda r: f"{r[2]:.4f}"},
                  caption="Largest distance between the simulated mean occupancy and the deterministic curves")
    caption = (
        rf"occupancy $q_{{m,\ell}}(t)$ of the Sec. 6 system on irg($p^1$) (JSQ(2), $\lambda = 3$): fraction of type-$m$ "
        rf"servers with at least $\ell$ tasks, $\ell = 1$ (top) and 2 (bottom), for "
        rf"$N = {', '.join(str(n) for n in n_list)}$ "
        + ("(one graph per $N$)" if irg_graphs == "one" else "(a new graph per run)")
        + f", {n_runs} runs each (95% CI), the ODE (3.7) (dashed) and the refined transient of GWSQ(2) at "
        f"$N = {REFINED_N}$ (diamonds at every second time; it differs from the ODE by a term of order $1/N$), "
        f"from the initial matrix Q read as lengths {'1-3' if reading == 'lengths-1-3' else '0-2'}, up to "
        f"$t = {horizon:g}$")
    return ItemResult(ITEM, params, seed, rows, claims=(convergence_claim(gap, n_runs), own, claim), summary=summary, displays=(table,), text=sentence,
                      figure={"caption": caption, "n_list": list(n_list), "refined_n": REFINED_N})
