"""L-F1 and L-P-jsqd: the complete bipartite graph against the designed one (Sec. 6.1, Fig. 1), and
the local JSQ(d) simulator against the exact Markov chain of a tiny graph.

:func:`compute` returns both items of the notebook L-F1:

* **L-F1**: the mean queue length per server type over time for S1 (complete bipartite,
  :math:`p^0`) and S2 (irg(:math:`p^1`)) at the Sec. 6 parameters, simulated and from the ODE
  (3.7). The paper's statements are judged by :func:`monotone_growth_claim` (S1's type-1 queue
  grows almost monotonically), :func:`capacity_claim` (the capacity of Sec. 6) and
  :func:`narrow_ci_claim` (the 95% intervals are narrower than the markers, at the paper's
  scale only).
* **L-P-jsqd**: time averages of :func:`~qtheory.locality.simulation.simulate_jsqd` on a graph of
  3 dispatchers and 4 servers against the stationary law of its Markov chain
  (:mod:`qtheory.locality.exact`), judged by :func:`exact_chain_check` with one sign-flip test
  of every entry; :func:`distinct_picks_check` checks that the chain whose :math:`d` picks are
  drawn with replacement is rejected (the simulator samples distinct neighbours, Sec. 2.2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...claims import Claim
from ...validation import check_integer, check_positive
from ...verdicts import RELATIVE_MARGIN
from ...display import Table
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed, replicate, spawn
from ...stats import band, familywise_t_bound
from ..exact import local_candidates, local_candidates_with_replacement, stationary, type_occupancy
from ..experiments import trajectory_replication
from ..graphs import from_adjacency, irg
from ..meanfield import solve_meanfield
from ..model import LocalitySystem, paper_initial_occupancy, paper_system
from ..simulation import simulate_jsqd

__all__ = ["Results", "compute", "trajectory_rows", "exact_rows", "exact_samples", "monotone_growth_claim", "capacity_claim",
           "narrow_ci_claim", "exact_chain_check", "distinct_picks_check", "SYSTEMS"]

SOURCE = "Sec. 6.1, Fig. 1"
#: the two systems of Sec. 6.1: row label, panel title, paper_system design, graph kind
SYSTEMS = (("S1", "S1 complete bipartite (p0)", "S1: complete bipartite ($p^0$)", "complete", "complete"),
           ("S2", "S2 irg(p1)", "S2: irg($p^1$)", "design", "irg"))
#: "almost monotonically": the mean type-1 queue rises in at least this share of the grid steps
MONOTONE_SHARE = 0.9
#: a plot marker of Fig. 1, read as this tall in queue-length units (our reading of its scale)
MARKER_HEIGHT = 0.05
#: the scale of Fig. 1, below which the claim on its intervals is not judged
PAPER_RUNS, PAPER_SERVERS = 100, 1000
#: the difference that matters in a fraction of servers q_{m,l} of the tiny graph (with 5% of it, the larger)
OCCUPANCY_MARGIN = 0.01
#: familywise level of the Bonferroni bound that must reject the chain with picks drawn with replacement
FAMILY_LEVEL = 0.001
#: the tiny graph of L-P-jsqd: adjacency (dispatchers x servers), server types, dispatcher clusters
TINY_ADJACENCY = np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 0, 1]])
TINY_TYPES, TINY_CLUSTERS = [0, 0, 1, 1], [0, 0, 1]
#: the truncation of the tiny chain's queues (the truncated mass is below 1e-5)
TINY_BUFFER = 14


class Results(NamedTuple):
    """The two items of the notebook L-F1."""

    l_f1: ItemResult
    l_p_jsqd: ItemResult


def monotone_growth_claim(s1_type1) -> Claim:
    """Fig. 1: the mean type-1 queue of S1 increases almost monotonically.

    `s1_type1` is the simulated mean path on the time grid. Holds when it rises in at least
    :data:`MONOTONE_SHARE` of the grid steps and ends above its start.
    """
    path = np.asarray(s1_type1, dtype=float)
    if path.ndim != 1 or path.size < 2:
        raise ParameterError(f"`s1_type1` must be a path of at least two values (got shape {path.shape})")
    rising = float(np.mean(np.diff(path) > 0))
    return Claim(item="L-F1", text="Fig. 1: the mean type-1 queue of S1 (complete bipartite) increases almost monotonically",
                 source=SOURCE, holds=bool(rising >= MONOTONE_SHARE and path[-1] > path[0]),
                 evidence=f"it rises in {rising:.0%} of the {path.size - 1} steps of the grid, from {path[0]:.3f} to "
                          f"{path[-1]:.3f} ('almost monotonically' read as at least 90% of the steps)")


def bounded_claim(rows, system_name: str, n_times: int) -> Claim:
    """Fig. 1: under the designed :math:`p^1` (S2) every type's mean queue length stays bounded.

    Read on the figure's finite horizon as: no type's mean queue grows over the second half of it
    (an increase, if any, within 4 combined standard errors of the two means, which overstates the
    error of a difference of positively correlated means, so errs towards "bounded")."""
    worst, parts = -np.inf, []
    for m in sorted({r["server_type"] for r in rows if r["system"] == system_name}):
        path = [r for r in rows if r["system"] == system_name and r["server_type"] == m and r["method"] == "sim"]
        if len(path) < 2:
            raise ParameterError(f"no simulated path of type {m} of {system_name!r} in `rows`")
        mid, end = path[min(n_times // 2, len(path) - 1)], path[-1]
        t = (end["mean"] - mid["mean"]) / max(np.hypot(end["se"], mid["se"]), 1e-300)
        worst = max(worst, t)
        parts.append(f"type {m}: {mid['mean']:.3f} at $t = {mid['t']:g}$, {end['mean']:.3f} at $t = {end['t']:g}$")
    return Claim(item="L-F1", text=r"Fig. 1: under $p^1$ (S2) every type's mean queue length stays bounded",
                 source=SOURCE, holds=bool(worst <= 4.0),
                 evidence=f"no type grows over the second half of the horizon: {'; '.join(parts)} (largest increase "
                          f"{max(worst, 0.0):.1f} combined standard errors; read as at most 4)")


def capacity_claim(system: LocalitySystem) -> Claim:
    r"""Sec. 6: the capacity :math:`\sum_m v_m u_m` of the example is 4 (above :math:`\lambda\zeta = 3`)."""
    return Claim(item="L-F1", text=r"Sec. 6: capacity sufficiency, $\sum_m v_m u_m$ ($\lambda \zeta = 3$ below it)",
                 paper=4.0, source="Sec. 6", ours=system.capacity, tolerance=1e-12,
                 evidence="$v = (0.5, 0.3, 0.2)$, $u = (1, 5, 10)$")


def narrow_ci_claim(max_half_width: float, n_runs: int, n_servers: int) -> Claim | None:
    """Fig. 1: the 95% intervals at the marked times are narrower than the plot markers.

    Judged only at the paper's scale (at least :data:`PAPER_RUNS` runs of :data:`PAPER_SERVERS`
    servers; None below it): holds when the largest half-width is below :data:`MARKER_HEIGHT`.
    """
    if n_runs < PAPER_RUNS or n_servers < PAPER_SERVERS:
        return None
    return Claim(item="L-F1", text=r"Fig. 1: the 95% CIs at $t = 0.5, \ldots, 2.5$ are narrower than the plot markers",
                 source=SOURCE, holds=bool(max_half_width < MARKER_HEIGHT),
                 evidence=f"largest half-width {max_half_width:.4f} ({n_runs} runs, $N = {n_servers}$); a marker read "
                          "as 0.05 queue-length units tall (our reading of the figure's scale)")


def exact_chain_check(samples, seed: int, horizon: float) -> Claim:
    """The simulator agrees with the exact chain: one sign-flip test
    (:func:`qtheory.verdicts.sign_flip_test`) of every stationary :math:`q_{m,\\ell}` of
    `samples` (see :func:`exact_samples`) at once; the entries of one run are correlated, each
    run's vector is flipped whole. The record's p-value joins the page's Holm family."""
    from ...verdicts import sign_flip_test

    test = sign_flip_test([g["runs"] for g in samples], [g["exact"] for g in samples],
                          seed=child_seed(seed, "jsqd-exact sign flip"),
                          margins=[np.maximum(RELATIVE_MARGIN * g["exact"], OCCUPANCY_MARGIN) for g in samples])
    runs = samples[0]["runs"].shape[0]
    return test.record(item="L-P-jsqd", category="check",
                       text=f"local JSQ($d$) simulator vs exact Markov chain of a tiny graph ({test.size} stationary "
                            "$q_{m,\\ell}$)",
                       evidence=f"{runs} runs of length {horizon:g} for each of $d = 1, 2, 3$, time averages after 5% "
                                f"of the run; the margin of an entry is {RELATIVE_MARGIN:.0%} of it or "
                                f"{OCCUPANCY_MARGIN:g} (one server in a hundred), the larger.")


def distinct_picks_check(rows, bound: float) -> tuple[Claim, dict, str]:
    """The chain with picks drawn with replacement is rejected: for some :math:`d \\ge 2` entry the
    simulator is further than `bound` standard errors from it. Returns the check, the worst row
    and the sentence that describes it."""
    alt_rows = [r for r in rows if r["d"] >= 2]
    if not alt_rows:
        raise ParameterError("`rows` must hold entries with d >= 2 (with and without replacement differ only there)")
    worst = max(alt_rows, key=lambda r: abs(r["z_with_replacement"]))
    sentence = (f"Against the chain with picks drawn with replacement the simulator's $q_{{{worst['server_type']},"
                f"{worst['level']}}}$ at $d = {worst['d']}$ is off by {abs(worst['z_with_replacement']):.0f} "
                f"standard errors ({worst['sim_mean']:.4f} against {worst['exact_with_replacement']:.4f}; "
                f"the distinct-pick chain gives {worst['exact']:.4f}).")
    claim = Claim(item="L-P-jsqd", category="check", holds=bool(abs(worst["z_with_replacement"]) > bound),
                  text="the simulator samples $d$ distinct neighbours (Sec. 2.2): the chain with picks drawn with "
                       "replacement is rejected",
                  evidence=sentence + f" Bonferroni t bound {bound:.2f}.")
    return claim, worst, sentence


def trajectory_rows(*, seed: int, n_servers: int, n_runs: int, t_grid, levels: int, reading: str,
                    irg_graphs: str) -> list[dict]:
    """L-F1's rows: ``system, server_type, t, method, mean`` (+ ``ci_low, ci_high, se, runs`` for
    ``method = "sim"``), simulation and ODE (3.7) interleaved per grid time."""
    if irg_graphs not in ("one", "per-run"):
        raise ParameterError(f"`irg_graphs` must be 'one' or 'per-run' (got {irg_graphs!r})")
    q0 = paper_initial_occupancy("Q", reading)
    rows = []
    for key, label, _, design, kind in SYSTEMS:
        system = paper_system(design)
        # Sec. 6.1 simulates "each system" 100 times: one drawn graph S2 (or a new one per run)
        graph = irg(system, n_servers, child_seed(seed, "graph", key)) if kind == "irg" and irg_graphs == "one" \
            else kind
        runs = replicate(trajectory_replication, n_runs, child_seed(seed, "runs", key),
                         args=(system, n_servers, graph, q0, t_grid), kwargs={"levels": levels}, desc=label)
        mean, low, high, se = band([r.mean_queue_length for r in runs])
        ode = solve_meanfield(system, q0, t_grid, tol=1e-8).mean_queue_length
        for m in range(system.n_types):
            for g, t in enumerate(t_grid):
                rows.append(dict(system=label, server_type=m + 1, t=t, method="sim", mean=mean[g, m],
                                 ci_low=low[g, m], ci_high=high[g, m], se=se[g, m], runs=n_runs))
                rows.append(dict(system=label, server_type=m + 1, t=t, method="ode", mean=ode[g, m]))
    return rows


def exact_samples(*, seed: int, horizon: float, n_runs: int) -> list[dict]:
    """L-P-jsqd's runs: per :math:`d = 1, 2, 3`, the exact stationary :math:`q_{m,\\ell}` (server
    type m = 1, 2, levels 1-3, flattened type-major) of the distinct-pick chain and of the chain
    with picks drawn with replacement, and each run's time average after 5% of `horizon`
    (``runs``: runs x 6)."""
    graph = from_adjacency(TINY_ADJACENCY, TINY_TYPES, TINY_CLUSTERS)
    out = []
    for d in (1, 2, 3):
        tiny = LocalitySystem(0.45, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((1, 1), (1, 1)), d)
        rates = tiny.u[TINY_TYPES]
        states, pi = stationary([local_candidates(np.nonzero(row)[0], d) for row in TINY_ADJACENCY],
                                tiny.arrival_rate, rates, buffer=TINY_BUFFER)
        exact = type_occupancy(states, pi, TINY_TYPES, 3)
        # the other reading: d independent picks with repeats (only differs for d >= 2)
        alt_states, alt_pi = stationary([local_candidates_with_replacement(np.nonzero(row)[0], d)
                                         for row in TINY_ADJACENCY], tiny.arrival_rate, rates, buffer=TINY_BUFFER)
        alt = type_occupancy(alt_states, alt_pi, TINY_TYPES, 3)
        grid = np.linspace(0.0, horizon, 20001)
        sims = []
        for ss in spawn(child_seed(seed, "jsqd-exact", d), n_runs):
            res = simulate_jsqd(tiny, graph, initial_state=np.zeros(4, np.int64), t_grid=grid, seed=ss, levels=3)
            sims.append(np.asarray(res.occupancy[grid >= 0.05 * horizon].mean(axis=0), dtype=float).ravel())
        out.append(dict(d=d, runs=np.array(sims), exact=np.asarray(exact, dtype=float).ravel(),
                        exact_with_replacement=np.asarray(alt, dtype=float).ravel()))
    return out


def exact_rows(*, seed: int, horizon: float, n_runs: int, samples: list[dict] | None = None) -> list[dict]:
    """L-P-jsqd's rows: per :math:`d = 1, 2, 3`, server type and level, the exact stationary
    :math:`q_{m,\\ell}` (distinct picks, and picks with replacement), the simulated time average
    over `n_runs` runs with its 95% interval, and the :math:`z` scores (from `samples` of
    :func:`exact_samples` when given, else simulated)."""
    samples = exact_samples(seed=seed, horizon=horizon, n_runs=n_runs) if samples is None else samples
    rows = []
    for g in samples:
        mean, low, high, se = band(list(g["runs"].reshape(-1, 2, 3)))
        exact, alt = g["exact"].reshape(2, 3), g["exact_with_replacement"].reshape(2, 3)
        for m in range(2):
            for lv in range(3):
                rows.append(dict(d=g["d"], server_type=m + 1, level=lv + 1, exact=exact[m, lv], sim_mean=mean[m, lv],
                                 ci_low=low[m, lv], ci_high=high[m, lv], se=se[m, lv],
                                 z=(mean[m, lv] - exact[m, lv]) / se[m, lv], exact_with_replacement=alt[m, lv],
                                 z_with_replacement=(mean[m, lv] - alt[m, lv]) / se[m, lv]))
    return rows


def compute(*, seed: int, n_servers: int, n_runs: int, horizon: float, n_times: int, levels: int, reading: str,
            exact_horizon: float, exact_runs: int, irg_graphs: str = "one") -> Results:
    """L-F1 and L-P-jsqd at the notebook's parameters (see the notebook for their meaning)."""
    if n_times < 2:
        raise ParameterError(f"`n_times` must be at least 2 (got {n_times!r})")
    # the reader's parameters first, in the reader's words (the functions below name their own)
    check_integer("n_runs", n_runs, low=2)
    check_integer("exact_runs", exact_runs, low=2)
    check_positive("horizon", horizon)
    check_positive("exact_horizon", exact_horizon)
    params = dict(seed=seed, n_servers=n_servers, n_runs=n_runs, horizon=horizon, n_times=n_times, levels=levels,
                  reading=reading, exact_horizon=exact_horizon, exact_runs=exact_runs, irg_graphs=irg_graphs)
    t_grid = np.linspace(0.0, horizon, n_times)
    rows = trajectory_rows(seed=seed, n_servers=n_servers, n_runs=n_runs, t_grid=t_grid, levels=levels,
                           reading=reading, irg_graphs=irg_graphs)
    s1 = SYSTEMS[0][1]
    s1_type1 = np.array([r["mean"] for r in rows if r["system"] == s1 and r["server_type"] == 1
                         and r["method"] == "sim"])
    growth = s1_type1[-1] - s1_type1[n_times // 2]
    max_half = max(r["ci_high"] - r["mean"] for r in rows if r["method"] == "sim")
    narrow = narrow_ci_claim(max_half, n_runs, n_servers)
    claims = (monotone_growth_claim(s1_type1), bounded_claim(rows, SYSTEMS[1][1], n_times),
              capacity_claim(paper_system()), *((narrow,) if narrow else ()))
    table = Table((("S1: growth of the mean type-1 queue over the second half", f"{growth:.3f}"),
                   ("largest 95% CI half-width", f"{max_half:.4f}")),
                  {"quantity": lambda r: r[0], "value": lambda r: r[1]})
    caption = (
        rf"mean queue length per server of each type against time for the Sec. 6 system (JSQ(2), $\lambda = 3$, "
        rf"$u = (1, 5, 10)$) on S1, the complete bipartite graph, and S2, "
        + ("one" if irg_graphs == "one" else "a new") + r" irg($p^1$) graph" + ("" if irg_graphs == "one" else " per run")
        + rf": {n_runs} simulation runs with $N = {n_servers}$ servers (95% CI) and the ODE (3.7), from the initial "
        f"matrix Q read as lengths {'1-3' if reading == 'lengths-1-3' else '0-2'}, up to $t = {horizon:g}$")
    l_f1 = ItemResult("L-F1", params, seed, rows, claims=claims, displays=(table,),
                      summary=dict(type1_growth_second_half_S1=growth, max_ci_half_width=max_half),
                      figure={"caption": caption, "systems": [(s[1], s[2]) for s in SYSTEMS],
                              "u": [float(x) for x in paper_system().u]})

    samples = exact_samples(seed=seed, horizon=exact_horizon, n_runs=exact_runs)
    tiny_rows = exact_rows(seed=seed, horizon=exact_horizon, n_runs=exact_runs, samples=samples)
    check = exact_chain_check(samples, seed, exact_horizon)
    bound = familywise_t_bound(exact_runs - 1, sum(r["d"] >= 2 for r in tiny_rows), alpha=FAMILY_LEVEL)
    picks, worst, sentence = distinct_picks_check(tiny_rows, bound)
    max_z = max(abs(r["z"]) for r in tiny_rows)
    l_p_jsqd = ItemResult("L-P-jsqd", params, seed, tiny_rows, claims=(check, picks),
                          summary=dict(max_abs_z=max_z, max_abs_z_with_replacement=abs(worst["z_with_replacement"]),
                                       alt_sentence=sentence),
                          text=f"Largest $|$simulation $-$ exact$|$ / SE over the {len(tiny_rows)} entries: "
                               f"{max_z:.2f}. " + sentence,
                          figure={"caption": r"stationary occupancy $q_{m,\ell}$ of the tiny graph for $d = 1, 2, 3$: "
                                             f"time averages of {exact_runs} simulation runs (95% CI) against the "
                                             "exact Markov chain"})
    return Results(l_f1, l_p_jsqd)
