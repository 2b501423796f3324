"""L-R-finite: how far is N from infinity? Refined mean field, simulation and exact chains (beyond
the paper).

:func:`compute` measures the error of the mean-field limit (3.7) and of its refined
(:math:`1/N`) correction (:mod:`qtheory.locality.refined`) at finite :math:`N` against exact
Markov chains (tiny :math:`N`) and simulation, for the homogeneous JSQ(2) under GWSQ(2) and
local JSQ(2) on the complete graph, and for the Sec. 6 system under GWSQ(2); and the transient
of the Sec. 6 system from the L-F2 start.

Nothing here is a claim of paper L: every judgement is an internal check (category ``check``)
of our own targets.

* Target 1, per point (:func:`target_verdict`): the refined error is at most a quarter of the
  mean-field error (*met*); else it is within 3 standard errors of zero, so the simulation
  cannot tell (*within noise*); else *missed*. The targets table keeps one row per point;
  :func:`target_claim` judges the points of load at most 0.9 that the simulation resolves.
* Target 2 (:func:`speed_claim`): the refined stationary approximation of the Sec. 6 system
  computes in under a second.
* :func:`refined_vs_simulation_check`: the refined mean queue length of the Sec. 6 system at
  :math:`N = 50` against simulation.
"""

from __future__ import annotations

from math import comb

import numpy as np

from ...claims import Claim
from ...display import Table, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed, replicate
from ...stats import band, loglog_slope, mean_ci
from ..exact import occupancy_stationary
from ..experiments import occupancy_summary, population_stationary_replication, trajectory_replication
from ..model import LocalitySystem, paper_initial_occupancy, paper_system, system_sizes
from ..refined import refined_stationary, refined_transient
from ..policies import GWSQ, LocalJSQ

__all__ = ["ITEM", "POLICY_NAME", "compute", "value", "target_verdict", "target_rows", "target_counts",
           "target_claim", "speed_claim", "refined_vs_simulation_check", "error_points", "slope_rows",
           "local_gap_shares", "targets_text"]

ITEM = "L-R-finite"
POLICY_NAME = {"gwsq": "GWSQ(2)", "jsqd-complete": "local JSQ(2), complete graph"}
#: the policy object behind each `policy` label of the rows (local JSQ(d) runs on the complete graph)
ANALYSED = {"gwsq": GWSQ(), "jsqd-complete": LocalJSQ()}
#: target 1: the refined error is at most this share of the mean-field error
TARGET_RATIO = 0.25
#: a refined error within this many SE of zero is "within noise" (some 20 points are judged at once)
NOISE_SE = 3.0
#: the simulation resolves the mean-field error when it exceeds this many SE
RESOLVED_SE = 4.0
#: target 1 covers loads up to this one
TARGET_MAX_LOAD = 0.9
#: target 2: seconds for the refined stationary approximation of the Sec. 6 system
SPEED_SECONDS = 1.0
#: an error point below this many SE is drawn as an open marker at this height (the simulation
#: does not resolve it) and left out of the slope fit
DRAWN_SE = 3.0
SEC6_CASE = "Sec. 6, $p^1$"


def value(rows, case: str, policy: str, n: int, method: str, quantity: str = "mean"):
    """``(value, se)`` of one stationary row, ``(None, None)`` when there is none."""
    for r in rows:
        if (r["case"], r["policy"], r["N"], r["method"], r["quantity"]) == (case, policy, n, method, quantity):
            return r["value"], r["se"]
    return None, None


def target_verdict(mf_error: float, refined_error: float, se: float) -> str:
    """Target 1 at one point: ``"met"`` when the refined error is at most a quarter of the
    mean-field error; else ``"within noise"`` when it is within 3 SE of zero (the simulation
    cannot tell); else ``"missed"``."""
    if refined_error <= TARGET_RATIO * mf_error:
        return "met"
    return "within noise" if refined_error <= NOISE_SE * se else "missed"


def target_rows(rows, cases, n_list) -> list[dict]:
    """One row per case and simulated N: the mean-field and refined errors against simulation,
    its SE, whether the simulation resolves the mean-field error, and :func:`target_verdict`."""
    out = []
    for c in cases:
        for n in n_list:
            mf, _ = value(rows, c["case"], c["policy"], n, "mean-field")
            rf, _ = value(rows, c["case"], c["policy"], n, "refined")
            sim, se = value(rows, c["case"], c["policy"], n, "simulation")
            e_mf, e_rf = abs(mf - sim), abs(rf - sim)
            verdict = target_verdict(e_mf, e_rf, se)
            out.append(dict(case=c["case"], policy=c["policy"], load=c["load"], N=n, mf_error=e_mf,
                            refined_error=e_rf, se=se, resolved=bool(e_mf > RESOLVED_SE * se), verdict=verdict,
                            met=verdict == "met"))
    return out


def target_counts(targets) -> dict[str, list]:
    """The rows of the targets table by role: ``resolved`` (load <= 0.9, mean-field error resolved),
    its ``missed`` and ``noisy`` (within noise) points, the ``unresolved`` ones of load <= 0.9, and
    ``high_load`` (load above 0.9, resolved: outside the target)."""
    in_scope = [r for r in targets if r["load"] <= TARGET_MAX_LOAD + 1e-12]
    resolved = [r for r in in_scope if r["resolved"]]
    return dict(resolved=resolved, missed=[r for r in resolved if r["verdict"] == "missed"],
                noisy=[r for r in resolved if r["verdict"] == "within noise"],
                unresolved=[r for r in in_scope if not r["resolved"]],
                high_load=[r for r in targets if r["load"] > TARGET_MAX_LOAD + 1e-12 and r["resolved"]])


def target_claim(targets) -> Claim:
    """Target 1 as an internal check: holds when no resolved point of load <= 0.9 is missed
    (points within noise do not count against it)."""
    k = target_counts(targets)
    n_met = len(k["resolved"]) - len(k["missed"]) - len(k["noisy"])
    return Claim(item=ITEM, category="check", holds=not k["missed"],
                 text=r"refined error $\le 1/4$ of the mean-field error (load $\le 0.9$, $N \ge 10$, points the "
                      "simulation resolves)",
                 evidence=f"{n_met} of {len(k['resolved'])} resolved points meet it, {len(k['noisy'])} within 3 SE, "
                          f"{len(k['missed'])} missed; {len(k['unresolved'])} points unresolved")


def speed_claim(seconds: float) -> Claim:
    """Target 2 as an internal check: the refined approximation of the Sec. 6 system took less
    than :data:`SPEED_SECONDS` (`seconds`, measured on the build machine)."""
    return Claim(item=ITEM, category="check", holds=bool(seconds < SPEED_SECONDS),
                 text="the refined approximation of the Sec. 6 system computes in under a second",
                 evidence=f"{seconds:.3f} s on the build machine")


def refined_vs_simulation_check(rows, n_list, *, n_runs: int, events_per_run: int, seed: int) -> Claim:
    """The refined mean queue length of the Sec. 6 system under GWSQ(2) at :math:`N = 50` (else the
    largest simulated N) against simulation, judged in standard errors of the simulation."""
    n = 50 if 50 in n_list else n_list[-1]
    sim, se = value(rows, SEC6_CASE, "gwsq", n, "simulation")
    refined, _ = value(rows, SEC6_CASE, "gwsq", n, "refined")
    if sim is None or refined is None:
        raise ParameterError(f"no simulation and refined rows of the Sec. 6 system at N = {n} in `rows`")
    return Claim(item=ITEM, category="check", ours=refined, reference=sim, reference_se=se,
                 text=f"Sec. 6 system, GWSQ(2), $N = {n}$: refined mean queue length against simulation",
                 evidence=f"{n_runs} independent runs of about {number(events_per_run, digits=1)} events after a warm-up; seed {seed}")


def error_points(rows, case: str, policy: str, method: str) -> list[dict]:
    """The error of `method` at each N of a case: against the exact chain where there is one
    (``se = 0``), else against simulation; ``resolved`` when exact or above 3 SE (else drawn as an
    open marker at 3 SE, ``y``) and ``marker`` for the figure."""
    out = []
    for n in sorted({r["N"] for r in rows if r["case"] == case and r["policy"] == policy}):
        approx, _ = value(rows, case, policy, n, method)
        ex, _ = value(rows, case, policy, n, "exact")
        sim, se = value(rows, case, policy, n, "simulation")
        if ex is not None:
            out.append(dict(N=n, error=abs(approx - ex), se=0.0, source="exact"))
        elif sim is not None:
            out.append(dict(N=n, error=abs(approx - sim), se=se, source="simulation"))
    for p in out:
        p["resolved"] = p["source"] == "exact" or p["error"] > DRAWN_SE * p["se"]
        p["y"] = p["error"] if p["resolved"] else DRAWN_SE * p["se"]
        p["yerr"] = p["se"] if p["resolved"] else 0.0
        p["marker"] = "s" if p["source"] == "exact" else ("o" if p["resolved"] else "v")
    return out


def slope_rows(rows, panels) -> list[dict]:
    """Log-log slopes of the error against N over the resolved points (at least two), per panel
    ``(case, policy)`` and method."""
    out = []
    for case, policy in panels:
        for method in ("mean-field", "refined"):
            resolved = [p for p in error_points(rows, case, policy, method) if p["resolved"]]
            if len(resolved) >= 2:
                out.append(dict(case=case, policy=policy, method=method,
                                slope=loglog_slope([p["N"] for p in resolved], [p["error"] for p in resolved]),
                                points=len(resolved), n_min=min(p["N"] for p in resolved),
                                n_max=max(p["N"] for p in resolved)))
    return out


def local_gap_shares(rows, cases, n_list) -> list[dict]:
    """For local JSQ(2) on the complete graph, where the simulation resolves the gap to the mean
    field (above 4 SE): the shares of it the refined term, its f1 part and the rest explain."""
    out = []
    for c in cases:
        if c["policy"] != "jsqd-complete":
            continue
        for n in n_list:
            mf, _ = value(rows, c["case"], c["policy"], n, "mean-field")
            rf, _ = value(rows, c["case"], c["policy"], n, "refined")
            no_f1, _ = value(rows, c["case"], c["policy"], n, "refined without f1")
            sim, se = value(rows, c["case"], c["policy"], n, "simulation")
            if abs(sim - mf) > RESOLVED_SE * se:
                out.append(dict(case=c["case"], N=n, gap=sim - mf, refined_share=(rf - mf) / (sim - mf),
                                f1_share=(rf - no_f1) / (sim - mf), no_f1_share=(no_f1 - mf) / (sim - mf)))
    return out


def targets_text(rows, targets, local_share, *, sec6_seconds: float, sec6_levels: int,
                 transient_seconds: float, sec6_sizes10) -> str:
    """The page's "Targets and what they show" bullets (Markdown), from the data."""
    k = target_counts(targets)
    resolved, missed, noisy, unresolved, high_load = (k[x] for x in ("resolved", "missed", "noisy", "unresolved",
                                                                     "high_load"))
    text = [f"* Target 1 (load <= 0.9, N >= 10: refined error at most a quarter of the mean-field error): "
            f"of the {len(resolved)} points where the simulation resolves the mean-field error (more than 4 SE), "
            f"{len(resolved) - len(missed) - len(noisy)} meet it"]
    if noisy:
        text.append(f"; at {len(noisy)} the refined error is above a quarter of the mean-field one but within 3 SE of "
                    "zero (" + ", ".join(f"{r['case']} {POLICY_NAME[r['policy']]} N = {r['N']}" for r in noisy) + ")")
    if missed:
        text.append("; it is missed at " + ", ".join(f"{r['case']} {POLICY_NAME[r['policy']]} N = {r['N']} "
                                                    f"(ratio {r['refined_error'] / r['mf_error']:.2f}, refined error "
                                                    f"{r['refined_error'] / r['se']:.1f} SE)" for r in missed))
    text.append(f". At {len(unresolved)} points (N = {sorted({r['N'] for r in unresolved})}) the mean-field error "
                "itself is within 4 SE of zero, so the simulation cannot tell the two apart there.")
    if high_load:
        ok_high = [r for r in high_load if r["met"]]
        worst = max(high_load, key=lambda r: r["refined_error"] / r["mf_error"])
        text.append(f"\n* Load 0.95 (outside the target): the refined error is at most a quarter of the mean-field "
                    f"error at {len(ok_high)} of {len(high_load)} resolved points; worst ratio "
                    f"{worst['refined_error'] / worst['mf_error']:.2f} (N = {worst['N']}).")
    text.append(f"\n* Target 2: the refined stationary approximation of the Sec. 6 system took {sec6_seconds:.3f} s "
                f"({sec6_levels} levels; fixed point, Lyapunov equation and V), the transient on the "
                f"L-F2 grid {transient_seconds:.2f} s.")
    if local_share:
        f1s = np.array([r["f1_share"] for r in local_share])
        tot = np.array([r["refined_share"] for r in local_share])
        text.append(f"\n* Local JSQ(2) on the complete graph: where the gap to the mean field is resolved "
                    f"({len(local_share)} points), the refined term explains {tot.min():.0%} to {tot.max():.0%} of "
                    f"it, and the 1/N drift term f1 of sampling without replacement alone accounts for "
                    f"{f1s.min():.0%} to {f1s.max():.0%} of it "
                    + ("(negative: distinct samples shorten the queues, against the fluctuation part)."
                       if f1s.max() < 0 else "."))
    exact = [r for r in rows if r["method"] == "exact" and r["quantity"] == "mean"]
    if exact:
        text.append(f"\n* Exact chains: {len(exact)} cases with N = {sorted({r['N'] for r in exact})}; the largest "
                    f"boundary mass (share of servers at the buffer) is {number(max(r['boundary_mass'] for r in exact), digits=2)}, "
                    f"the largest chain has {max(r['n_states'] for r in exact)} states.")
    states10 = int(np.prod([comb(int(k) + 8, 8) for k in sec6_sizes10]))
    text.append(f"\n* No exact chain for the Sec. 6 system: its smallest size with integer type fractions is N = 10 "
                f"({', '.join(map(str, sec6_sizes10))} servers per type), whose chain has {states10:,} states "
                "already with buffers of 8 tasks.")
    return "".join(text)


def _fmt(x, se=None) -> str:
    if x is None:
        return ""
    return f"{x:.4f}" if se is None else f"{x:.4f} ± {se:.4f}"


def _homogeneous(load: float) -> LocalitySystem:
    """The JSQ(2) supermarket model at `load` (one type, one cluster, full compatibility)."""
    return LocalitySystem.homogeneous(load, 2)


def _cases(loads) -> list[dict]:
    cases = []
    for load in loads:
        for policy in ("gwsq", "jsqd-complete"):
            cases.append(dict(case=f"JSQ(2), load {load}", load=load, policy=policy, system=_homogeneous(load)))
    sec6 = paper_system("design")
    cases.append(dict(case=SEC6_CASE, load=sec6.total_arrival_rate / sec6.capacity, policy="gwsq", system=sec6))
    for c in cases:
        c["refined"] = refined_stationary(c["system"], policy=ANALYSED[c["policy"]])
        c["V_gwsq"] = refined_stationary(c["system"]).V      # the term without f1, for local JSQ(d)
    return cases


def _stationary_rows(cases, *, seed, n_list, n_runs, events_per_run, warmup_relaxations, exact_buffers):
    rows = []

    def add_rows(c, n, method, summary, se=None, **extra):
        for quantity, val in summary.items():
            rows.append(dict(case=c["case"], load=c["load"], policy=c["policy"], N=n, method=method,
                             quantity=quantity, value=val, se=None if se is None else se[quantity], **extra))

    for ci_, c in enumerate(cases):
        ref, v = c["refined"], c["system"].v
        sizes_exact = {int(k): b for k, b in exact_buffers.get(str(c["load"]), {}).items()} \
            if c["system"].n_types == 1 else {}
        for n in sorted(set(n_list) | set(sizes_exact)):
            add_rows(c, n, "mean-field", occupancy_summary(ref.q, ref.mean_queue_length(), v))
            add_rows(c, n, "refined", occupancy_summary(ref.occupancy(n), ref.mean_queue_length(n), v))
            if c["policy"] == "jsqd-complete":
                occ = ref.q + c["V_gwsq"] / n
                add_rows(c, n, "refined without f1", occupancy_summary(occ, occ.sum(axis=1), v))
        for n, buffer in sorted(sizes_exact.items()):
            law = occupancy_stationary(c["system"], n, policy=ANALYSED[c["policy"]], buffer=buffer)
            add_rows(c, n, "exact", occupancy_summary(law.occupancy, law.mean_queue_length, v),
                     buffer=buffer, boundary_mass=law.boundary_mass, n_states=law.n_states)
        warmup = warmup_relaxations * ref.relaxation_time
        for n in n_list:
            rate = 2.0 * c["system"].total_arrival_rate * n        # arrivals plus as many departures
            horizon = warmup + events_per_run / rate
            n_samples = int(min(200_000, max(1000, 10 * (horizon - warmup) / ref.relaxation_time)))
            runs = replicate(population_stationary_replication, n_runs, child_seed(seed, "stationary", ci_, n),
                             args=(c["system"], n, ANALYSED[c["policy"]], warmup, horizon),
                             kwargs={"n_samples": n_samples, "levels": 2}, desc=f"{c['case']} {c['policy']} N={n}")
            per_run = [occupancy_summary(r.occupancy, r.mean_queue_length, v) for r in runs]
            keys = list(per_run[0])
            ci = mean_ci(np.array([[p[k] for k in keys] for p in per_run]))
            add_rows(c, n, "simulation", dict(zip(keys, ci.mean)), dict(zip(keys, ci.se)),
                     warmup=warmup, horizon=horizon, events=int(sum(r.events for r in runs)))
    return rows


def _transient(sec6, *, seed, transient_n_list, transient_runs, horizon, n_times, reading):
    q0 = paper_initial_occupancy("Q", reading)
    t_grid = np.linspace(0.0, horizon, n_times)
    transient = refined_transient(sec6, q0, t_grid, start="iid")
    tr_rows, sup_rows, bands = [], [], {}
    for n in transient_n_list:
        runs = replicate(trajectory_replication, transient_runs, child_seed(seed, "transient", n),
                         args=(sec6, n, "complete", q0, t_grid), kwargs={"levels": 2, "policy": "gwsq"},
                         desc=f"transient N={n}")
        mean, low, high, se = band([r.occupancy for r in runs])
        bands[n] = [dict(server_type=m + 1, level=lv + 1, t=t, mean=mean[g, m, lv], ci_low=low[g, m, lv],
                         ci_high=high[g, m, lv]) for m in range(3) for lv in range(2) for g, t in enumerate(t_grid)]
        approx = {"ode": transient.q[:, :, :2], "refined": transient.occupancy(n)[:, :, :2]}
        for m in range(3):
            for lv in range(2):
                for g, t in enumerate(t_grid):
                    tr_rows.append(dict(N=n, server_type=m + 1, level=lv + 1, t=t, sim=mean[g, m, lv],
                                        se=se[g, m, lv], ode=approx["ode"][g, m, lv],
                                        refined=approx["refined"][g, m, lv]))
        for method, a in approx.items():
            gap = np.abs(mean - a)
            g, m, lv = np.unravel_index(np.argmax(gap), gap.shape)
            sup_rows.append(dict(N=n, method=method, sup_error=float(gap.max()), se_at_sup=float(se[g, m, lv]),
                                 t=float(t_grid[g]), server_type=int(m + 1), level=int(lv + 1)))
    return transient, tr_rows, sup_rows, bands


def _displays(rows, cases, n_list, sup_rows, transient_n_list) -> tuple:
    lines = []
    for c in cases:
        for n in sorted({r["N"] for r in rows if r["case"] == c["case"] and r["policy"] == c["policy"]}):
            mf, _ = value(rows, c["case"], c["policy"], n, "mean-field")
            rf, _ = value(rows, c["case"], c["policy"], n, "refined")
            sim, se = value(rows, c["case"], c["policy"], n, "simulation")
            ex, _ = value(rows, c["case"], c["policy"], n, "exact")
            target = ex if ex is not None else sim
            err = (f"{abs(mf - target):.4f}", f"{abs(rf - target):.4f}") if target is not None else ("", "")
            lines.append({"case": c["case"], "policy": POLICY_NAME[c["policy"]], "N": n, "mean field": f"{mf:.4f}",
                          "refined": f"{rf:.4f}", "simulation ± SE": _fmt(sim, se), "exact": _fmt(ex),
                          "MF error": err[0], "refined error": err[1]})
    means = Table(tuple(lines), {h: (lambda r, h=h: r[h]) for h in lines[0]},
                  caption="Mean queue length (all servers). Errors are against the exact value where there is one, "
                          "else against the simulation (whose SE they include).")
    sec6 = cases[-1]
    quantities = list(occupancy_summary(sec6["refined"].q, sec6["refined"].mean_queue_length(), sec6["system"].v))
    per_type = []
    for n in n_list:
        for method in ("mean-field", "refined", "simulation"):
            per_type.append({"N": n, "method": method,
                             **{q: _fmt(*value(rows, sec6["case"], "gwsq", n, method, q)) for q in quantities}})
    types = Table(tuple(per_type), {h: (lambda r, h=h: r[h]) for h in per_type[0]},
                  caption="Sec. 6 system, GWSQ(2), $p^1$: per server type (mean[m]: mean queue length of type $m$; "
                          r"q[m,l]: fraction of type-$m$ servers with at least $\ell$ tasks).")

    def sup(n, method):
        r = next(r for r in sup_rows if r["N"] == n and r["method"] == method)
        return f"{r['sup_error']:.4f} (t = {r['t']:.1f}, q[{r['server_type']},{r['level']}])", f"{r['se_at_sup']:.4f}"

    gaps = Table(tuple(transient_n_list),
                 {"N": lambda n: n, "sup error, ODE (3.7)": lambda n: sup(n, "ode")[0],
                  "sup error, refined": lambda n: sup(n, "refined")[0],
                  "SE there (ODE, refined)": lambda n: f"{sup(n, 'ode')[1]}, {sup(n, 'refined')[1]}"},
                 caption="Largest gap over $t$ and the six curves between the mean of the runs and each "
                         "approximation (transient of the Sec. 6 system under GWSQ(2)).")
    return means, types, gaps


def compute(*, seed: int, loads, n_list, n_runs: int, events_per_run: int, warmup_relaxations: float,
            exact_buffers, transient_n_list, transient_runs: int, horizon: float, n_times: int,
            reading: str) -> ItemResult:
    """L-R-finite at the notebook's parameters (see the notebook for their meaning).

    Rows (``L-R-finite.csv``): ``case, load, policy, N, method, quantity, value, se`` (+ the
    exact chain's ``buffer, boundary_mass, n_states``, the simulation's ``warmup, horizon,
    events``), methods ``mean-field``, ``refined``, ``refined without f1`` (local JSQ(2)),
    ``exact``, ``simulation``. Tables: ``transient`` (mean paths beside the ODE and the refined
    transient), ``transient_sup`` (largest gaps), ``targets`` (target 1 per point, with
    :func:`target_verdict`) and ``slopes``.
    """
    if not list(n_list) or not list(transient_n_list):
        raise ParameterError("`n_list` and `transient_n_list` must name at least one system size")
    if not all(0 < load < 1 for load in loads):
        raise ParameterError(f"`loads` must lie in (0, 1) for a stationary system (got {list(loads)!r})")
    # exact_buffers may name loads that are not run (a rerun with fewer loads keeps the preset's buffers)
    params = dict(seed=seed, loads=list(loads), n_list=list(n_list), n_runs=n_runs, events_per_run=events_per_run,
                  warmup_relaxations=warmup_relaxations, exact_buffers=exact_buffers,
                  transient_n_list=list(transient_n_list), transient_runs=transient_runs, horizon=horizon,
                  n_times=n_times, reading=reading)
    cases = _cases(loads)
    # load the compiled simulation kernels once here, so that the forked workers inherit them
    for policy in ANALYSED.values():
        population_stationary_replication(np.random.SeedSequence(0), _homogeneous(0.5), 2, policy, 1.0, 2.0)
    rows = _stationary_rows(cases, seed=seed, n_list=n_list, n_runs=n_runs, events_per_run=events_per_run,
                            warmup_relaxations=warmup_relaxations, exact_buffers=exact_buffers)
    panels = [(c["case"], c["policy"]) for c in cases if c["policy"] == "gwsq"] + \
        [(c["case"], c["policy"]) for c in cases if c["policy"] == "jsqd-complete"]
    slopes = slope_rows(rows, panels)
    sec6 = cases[-1]
    transient, tr_rows, sup_rows, bands = _transient(sec6["system"], seed=seed, transient_n_list=transient_n_list,
                                              transient_runs=transient_runs, horizon=horizon, n_times=n_times,
                                              reading=reading)
    targets = target_rows(rows, cases, n_list)
    counts = target_counts(targets)
    local_share = local_gap_shares(rows, cases, n_list)
    sec6_time = sec6["refined"].seconds
    claims = (refined_vs_simulation_check(rows, list(n_list), n_runs=n_runs, events_per_run=events_per_run, seed=seed),
              target_claim(targets), speed_claim(sec6_time))
    text = targets_text(rows, targets, local_share, sec6_seconds=sec6_time, sec6_levels=sec6["refined"].levels,
                        transient_seconds=transient.seconds,
                        sec6_sizes10=system_sizes(sec6["system"], 10).servers_per_type)
    summary = dict(own_results="every number on this page is a computation of ours (beyond paper L), none is a "
                               "paper claim",
                   sec6_refined_seconds=sec6_time, transient_seconds=transient.seconds,
                   target_points_resolved=len(counts["resolved"]), target_points_missed=len(counts["missed"]),
                   target_points_within_noise=len(counts["noisy"]), slopes=slopes, local_jsqd_gap_shares=local_share)
    slope_of = {(s["case"], s["policy"], s["method"]): s["slope"] for s in slopes}
    points = [dict(case=case, policy=policy, method=method, **p) for case, policy in panels
              for method in ("mean-field", "refined") for p in error_points(rows, case, policy, method)]
    n_show = transient_n_list[min(1, len(transient_n_list) - 1)]
    figure = {
        "caption": (f"error of the mean-field and refined mean-field approximations of the stationary mean queue "
                    f"length against $N = {', '.join(str(n) for n in n_list)}$ at loads "
                    f"{', '.join(f'{x:g}' for x in loads)}, measured against the exact Markov chains where they fit "
                    f"and otherwise against {n_runs} simulation runs of {events_per_run:,} events each (95% CI); one "
                    "panel per system and policy"),
        "panels": [dict(case=case, policy=policy, title=f"{case}\n{POLICY_NAME[policy]}",
                        labels={m: (f"{m} (slope {slope_of[(case, policy, m)]:.2f})"
                                    if (case, policy, m) in slope_of else m) for m in ("mean-field", "refined")})
                   for case, policy in panels],
        "error_points": points,
        "transient_n": n_show,
        # the 95% band of the mean path at N = transient_n (the transient table holds its SE)
        "transient_band": bands[n_show],
        "transient_caption": (rf"Sec. 6 system under GWSQ(2) from the L-F2 start: occupancy $q_{{m,\ell}}(t)$, mean of "
                              rf"{transient_runs} runs with $N = {n_show}$ (95% CI) up to $t = {horizon:g}$, against the "
                              "ODE (3.7) and the refined transient"),
    }
    return ItemResult(ITEM, params, seed, rows, claims=claims,
                      tables={"transient": tr_rows, "transient_sup": sup_rows, "targets": targets, "slopes": slopes},
                      summary=summary, figure=figure, displays=_displays(rows, cases, n_list, sup_rows, transient_n_list),
                      text=text)
