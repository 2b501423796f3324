"""L-R-finite: how far is N from infinity? Refined mean field, simulation and exact chains (beyond
the paper).

:func:`compute` measures the error of the mean-field limit (3.7), of its refined (:math:`1/N`)
correction (:mod:`qtheory.locality.refined`) and of the second-order (:math:`1/N^2`) expansion
(:mod:`qtheory.locality.second_order`) at finite :math:`N` against exact Markov chains (tiny
:math:`N`) and simulation, for the homogeneous JSQ(2) under GWSQ(2) and local JSQ(2) on the
complete graph, for the Sec. 6 system under GWSQ(2) (against N at its own load, and at
:math:`N = 10` against the load); and the transient of the Sec. 6 system from the L-F2 start.

Nothing here is a claim of paper L: every judgement is an internal check (category ``check``)
of our own targets.

* Target 1, per point (:func:`target_verdict`): the refined error is at most a quarter of the
  mean-field error (*met*); else it is within 3 standard errors of zero, so the simulation
  cannot tell (*within noise*); else *missed*. The targets table keeps one row per point;
  :func:`target_claim` judges the points of load at most 0.9 that the simulation resolves.
* Target 2 (:func:`speed_claim`): the refined stationary approximation of the Sec. 6 system
  computes in under a second.
* Target 3 (:func:`second_order_verdict`, :func:`second_order_claim`): on the Sec. 6
  system at :math:`N = 10` and every load of `loads`, the second-order error is at most a third
  of the first-order (refined) error.
* :func:`refined_vs_simulation_check`: the refined mean queue length of the Sec. 6 system at
  :math:`N = 50` against simulation.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from math import comb

import numpy as np

from ...claims import Claim, Finding
from ...display import Table, listing, number
from ...plotting import PALETTE, figure_legend, interval_words, mark_interval, new_figure
from ...errors import ParameterError
from ...results import ItemResult, column, select
from ...runtime import cached_values, child_seed, replicate
from ...stats import band, loglog_slope, mean_ci
from ...validation import check_integer, check_real, check_runs, check_times
from ..exact import occupancy_stationary
from ..experiments import occupancy_summary, population_stationary_replication, trajectory_replication
from ..model import LocalitySystem, paper_initial_occupancy, paper_system, system_sizes
from ..refined import refined_stationary, refined_transient
from ..policies import GWSQ, LocalJSQ
from ..second_order import second_order_stationary

__all__ = ["ITEM", "POLICY_NAME", "METHODS", "compute", "value", "target_verdict", "target_rows", "target_counts",
           "target_claim", "speed_claim", "second_order_verdict", "sweep_rows", "second_order_claim",
           "error_summary", "exact_law", "sweep_case", "sec6_at", "refined_vs_simulation_check", "error_points", "slope_rows",
           "local_gap_shares", "targets_text", "draw_errors"]

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
#: the approximations compared, in order, and how the page names them
METHODS = {"mean-field": "mean field (3.7)", "refined": "refined, 1/N", "second-order": "second order, 1/N²"}
#: target 3: the second-order error is at most this share of the first-order error ...
SECOND_ORDER_RATIO = 1.0 / 3.0
#: ... on the Sec. 6 system at this size
SWEEP_N = 10


def sweep_case(load: float) -> str:
    """Name of the Sec. 6 case at `load` in the N = 10 sweep."""
    return f"Sec. 6, $p^1$, load {load:g}"


def sec6_at(load: float) -> LocalitySystem:
    """The Sec. 6 system (:math:`p^1`) with its arrival rate scaled to `load` (capacity
    :math:`\\sum_m v_m u_m = 4`; the paper's own load is 3/4)."""
    base = paper_system("design")
    return LocalitySystem(load * base.capacity / base.zeta, base.zeta, base.cluster_weights, base.type_fractions,
                          base.service_rates, base.compatibility, base.d)


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
            so, _ = value(rows, c["case"], c["policy"], n, "second-order")
            sim, se = value(rows, c["case"], c["policy"], n, "simulation")
            e_mf, e_rf = abs(mf - sim), abs(rf - sim)
            verdict = target_verdict(e_mf, e_rf, se)
            out.append(dict(case=c["case"], policy=c["policy"], load=c["load"], N=n, mf_error=e_mf,
                            refined_error=e_rf, second_order_error=None if so is None else abs(so - sim), se=se,
                            resolved=bool(e_mf > RESOLVED_SE * se), verdict=verdict, met=verdict == "met"))
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


def second_order_verdict(first_error: float, second_error: float, se: float) -> str:
    """Target 3 at one point: ``"met"`` when the second-order error is at most a third of the
    first-order error; else ``"within noise"`` when it is within 3 SE of zero; else ``"missed"``."""
    if second_error <= SECOND_ORDER_RATIO * first_error:
        return "met"
    return "within noise" if second_error <= NOISE_SE * se else "missed"


def sweep_rows(rows, loads) -> list[dict]:
    """Target 3, one row per load: the Sec. 6 system at N = :data:`SWEEP_N`, the errors of the
    three approximations against simulation, its SE, their ratio, whether the simulation resolves
    the first-order error (above 4 SE) and :func:`second_order_verdict`."""
    out = []
    for load in loads:
        case = sweep_case(load)
        sim, se = value(rows, case, "gwsq", SWEEP_N, "simulation")
        if sim is None:
            raise ParameterError(f"no simulation row of the Sec. 6 system at load {load:g} and N = {SWEEP_N} in `rows`")
        approx = {m: value(rows, case, "gwsq", SWEEP_N, m)[0] for m in METHODS}
        err = {m: abs(approx[m] - sim) for m in METHODS}
        verdict = second_order_verdict(err["refined"], err["second-order"], se)
        out.append(dict(load=load, N=SWEEP_N, simulation=sim, se=se, mean_field=approx["mean-field"],
                        first_order_term=approx["refined"] - approx["mean-field"],
                        second_order_term=approx["second-order"] - approx["refined"], mf_error=err["mean-field"],
                        refined_error=err["refined"], second_order_error=err["second-order"],
                        ratio=err["second-order"] / err["refined"] if err["refined"] > 0 else float("inf"),
                        resolved=bool(err["refined"] > RESOLVED_SE * se), verdict=verdict))
    return out


def second_order_claim(sweep) -> Claim:
    """Target 3 as an internal check: holds when no load whose first-order error the simulation
    resolves is missed (points within noise do not count against it), and at least one is resolved."""
    resolved = [r for r in sweep if r["resolved"]]
    missed = [r for r in resolved if r["verdict"] == "missed"]
    noisy = [r for r in resolved if r["verdict"] == "within noise"]
    ratios = listing([f"{number(r['ratio'], digits=2)} at load {number(r['load'])}" for r in sweep])
    return Claim(item=ITEM, category="check", holds=bool(resolved) and not missed,
                 text=f"Sec. 6 system, $N = {SWEEP_N}$: second-order error at most a third of the refined "
                      "(first-order) error at every load",
                 evidence=f"{len(resolved) - len(missed) - len(noisy)} of {len(resolved)} resolved loads meet it, "
                          f"{len(noisy)} within 3 SE, {len(missed)} missed; {len(sweep) - len(resolved)} unresolved; "
                          f"error ratios {ratios}")


def speed_claim(seconds: float) -> Claim:
    """Target 2 as an internal check: the refined approximation of the Sec. 6 system took less
    than :data:`SPEED_SECONDS` (`seconds`, measured on the build machine)."""
    return Claim(item=ITEM, category="check", holds=bool(seconds < SPEED_SECONDS),
                 text="the refined approximation of the Sec. 6 system computes in under a second",
                 evidence=f"{seconds:.3f} s on the build machine")


def refined_vs_simulation_check(rows, n_list, runs, *, events_per_run: int, seed: int) -> Claim:
    """The refined mean queue length of the Sec. 6 system under GWSQ(2) at :math:`N = 50` (else the
    largest simulated N) against simulation, judged by the book's t test on the simulation's run
    means ``runs[case, policy, N]`` (as :func:`compute`'s stationary rows keep them) where they
    allow it."""
    n = 50 if 50 in n_list else n_list[-1]
    sim, _ = value(rows, SEC6_CASE, "gwsq", n, "simulation")
    refined, _ = value(rows, SEC6_CASE, "gwsq", n, "refined")
    if sim is None or refined is None:
        raise ParameterError(f"no simulation and refined rows of the Sec. 6 system at N = {n} in `rows`")
    if (SEC6_CASE, "gwsq", n) not in runs:
        raise ParameterError(f"`runs` has no run means of the Sec. 6 system at N = {n}")
    sim_runs = tuple(runs[SEC6_CASE, "gwsq", n])
    return Claim(item=ITEM, category="check", ours=refined, reference_runs=sim_runs,
                 text=f"Sec. 6 system, GWSQ(2), $N = {n}$: refined mean queue length against simulation",
                 evidence=f"{len(sim_runs)} independent runs of about {number(events_per_run, digits=1)} events after a "
                          f"warm-up; seed {seed}")


def page_finding(rows, n_list) -> Finding:
    """The page's result in one sentence with its numbers: on the Sec. 6 system under GWSQ(2) at
    :math:`N = 50` (else the largest simulated N), the error of the mean field (3.7) and of the
    refined approximation against simulation."""
    n = 50 if 50 in n_list else n_list[-1]
    sim, se = value(rows, SEC6_CASE, "gwsq", n, "simulation")
    mf, _ = value(rows, SEC6_CASE, "gwsq", n, "mean-field")
    refined, _ = value(rows, SEC6_CASE, "gwsq", n, "refined")
    if sim is None or mf is None or refined is None:
        raise ParameterError(f"no simulation, mean-field and refined rows of the Sec. 6 system at N = {n} in `rows`")
    title = (f"At $N = {n}$ the refined approximation is off by {number(abs(refined - sim), digits=2)} where the mean "
             f"field (3.7) is off by {number(abs(mf - sim), digits=2)} (Sec. 6 system, GWSQ(2), mean queue length "
             f"{number(sim, se)} simulated)")
    return Finding(f"{ITEM}-result", ITEM, title, "The tables below give the error of each approximation at every "
                   "load and size, against exact chains where they exist, else against simulation.",
                   "beyond the papers")


def error_points(rows, case: str, policy: str, method: str) -> list[dict]:
    """The error of `method` at each N of a case: against the exact chain where there is one
    (``se = 0``), else against simulation; ``resolved`` when exact or above 3 SE (else drawn as an
    open marker at 3 SE, ``y``) and ``marker`` for the figure."""
    out = []
    for n in sorted({r["N"] for r in rows if r["case"] == case and r["policy"] == policy}):
        approx, _ = value(rows, case, policy, n, method)
        if approx is None:                    # the method has no row at this N
            continue
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
        for method in METHODS:
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
                 transient_seconds: float, sec6_sizes10, sweep=(), second_order_seconds: float | None = None) -> str:
    """The page's "Targets and what they show" bullets (Markdown), from the data (`sweep`: the
    rows of :func:`sweep_rows`, target 3)."""
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
    text.append(f". At {len(unresolved)} points (N = {listing(sorted({r['N'] for r in unresolved}))}) the mean-field error "
                "itself is within 4 SE of zero, so the simulation cannot tell the two apart there.")
    if high_load:
        ok_high = [r for r in high_load if r["met"]]
        worst = max(high_load, key=lambda r: r["refined_error"] / r["mf_error"])
        text.append(f"\n* Load 0.95 (outside the target): the refined error is at most a quarter of the mean-field "
                    f"error at {len(ok_high)} of {len(high_load)} resolved points; worst ratio "
                    f"{worst['refined_error'] / worst['mf_error']:.2f} (N = {worst['N']}).")
    text.append(f"\n* Target 2: the refined stationary approximation of the Sec. 6 system took {number(sec6_seconds)} s "
                f"({sec6_levels} levels; fixed point, Lyapunov equation and V), the transient on the "
                f"L-F2 grid {number(transient_seconds)} s")
    text.append("." if second_order_seconds is None else
                f"; the second-order expansion {number(second_order_seconds)} s on the build machine "
                "(benchmarks/bench_second_order.py measures it on one core).")
    if sweep:
        resolved = [r for r in sweep if r["resolved"]]
        text.append(f"\n* Target 3 (Sec. 6 system at N = {SWEEP_N}: second-order error at most a third of the refined "
                    "error): " + "; ".join(
                        f"load {number(r['load'])}: errors {number(r['mf_error'], digits=2)} (mean field), "
                        f"{number(r['refined_error'], digits=2)} (refined), {number(r['second_order_error'], digits=2)} "
                        f"(second order), SE {number(r['se'], digits=2)}, ratio {number(r['ratio'], digits=2)}, "
                        + (r["verdict"] if r["resolved"] else "unresolved (refined error below 4 SE)")
                        for r in sweep) + f" ({len(resolved)} of {len(sweep)} loads resolved).")
        short = [r for r in sweep if r["verdict"] != "met"]
        if short:
            text.append(" Where it is not met, the expansion's terms at N = " + str(SWEEP_N) + " shrink slowly: " + "; ".join(
                f"load {number(r['load'])}: V/N adds {number(r['first_order_term'], digits=2)}, V₂/N² adds "
                f"{number(r['second_order_term'], digits=2)}, and the simulation differs from their sum by "
                f"{number(r['simulation'] - r['mean_field'] - r['first_order_term'] - r['second_order_term'], digits=2)} "
                "(the size of a next term, were the terms to keep shrinking by the factor "
                f"{number(r['first_order_term'] / r['second_order_term'], digits=2)}: "
                f"{number(r['second_order_term'] ** 2 / r['first_order_term'], digits=2)})"
                for r in short) + ".")
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
        text.append(f"\n* Exact chains: {len(exact)} cases with N = {listing(sorted({r['N'] for r in exact}))}; the largest "
                    f"boundary mass (share of servers at the buffer) is {number(max(r['boundary_mass'] for r in exact), digits=2)}, "
                    f"the largest chain has {max(r['n_states'] for r in exact)} states.")
    states10 = int(np.prod([comb(int(k) + 8, 8) for k in sec6_sizes10]))
    text.append(f"\n* No exact chain for the Sec. 6 system: its smallest size with integer type fractions is N = 10 "
                f"({', '.join(map(str, sec6_sizes10))} servers per type), whose chain has {states10:,} states "
                "already with buffers of 8 tasks.")
    return "".join(text)


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
    for load in loads:
        cases.append(dict(case=sweep_case(load), load=load, policy="gwsq", system=sec6_at(load), sweep=True))
    for c in cases:
        c["refined"] = refined_stationary(c["system"], policy=ANALYSED[c["policy"]])
        c["second"] = second_order_stationary(c["system"], policy=ANALYSED[c["policy"]])
        c["V_gwsq"] = refined_stationary(c["system"]).V      # the term without f1, for local JSQ(d)
    return cases


def exact_law(system: LocalitySystem, n: int, policy, buffer: int) -> dict:
    """The fields ``occupancy``, ``mean_queue_length``, ``boundary_mass`` and ``n_states`` of
    :func:`~qtheory.locality.exact.occupancy_stationary`, kept on disk by
    :func:`~qtheory.runtime.cached_values` (the chains of the paper preset take about 10 s to
    solve, a rerun loads them)."""
    def solve() -> dict:
        law = occupancy_stationary(system, n, policy=policy, buffer=buffer)
        return dict(occupancy=law.occupancy, mean_queue_length=law.mean_queue_length,
                    boundary_mass=float(law.boundary_mass), n_states=int(law.n_states))

    return cached_values("locality-occupancy-stationary",
                         dict(system=system, n=int(n), policy=policy, buffer=int(buffer)), solve)


def _stationary_rows(cases, *, seed, n_list, n_runs, events_per_run, sweep_events_per_run, warmup_relaxations,
                     exact_buffers):
    """The stationary rows of every case, and the run means of each simulated mean queue length
    (``runs[case, policy, N]``, for the checks that judge them)."""
    rows, run_means = [], {}
    # every case's simulations start now, two replicate calls at a time on the shared pool (so
    # that its queue never runs dry between cases), while the analytic rows are computed here;
    # each call has its own seed: the numbers do not depend on the order
    runs_of = {}
    with ThreadPoolExecutor(max_workers=2) as threads:
        try:
            for ci_, c in enumerate(cases):
                warmup = warmup_relaxations * c["refined"].relaxation_time
                for n in ([SWEEP_N] if c.get("sweep") else n_list):
                    rate = 2.0 * c["system"].total_arrival_rate * n        # arrivals plus as many departures
                    # the load sweep (N = SWEEP_N only) has its own run length: its first-order errors are
                    # small, and a run long enough to resolve them costs little at one small N
                    horizon = warmup + (sweep_events_per_run if c.get("sweep") else events_per_run) / rate
                    n_samples = int(min(200_000, max(1000, 10 * (horizon - warmup) / c["refined"].relaxation_time)))
                    runs_of[ci_, n] = (warmup, horizon, threads.submit(
                        replicate, population_stationary_replication, n_runs, child_seed(seed, "stationary", ci_, n),
                        args=(c["system"], n, ANALYSED[c["policy"]], warmup, horizon),
                        kwargs={"n_samples": n_samples, "levels": 2}, desc=f"{c['case']} {c['policy']} N={n}"))
            _add_stationary_rows(rows, cases, runs_of, n_list=n_list, exact_buffers=exact_buffers,
                                 run_means=run_means)
        except BaseException:
            threads.shutdown(wait=False, cancel_futures=True)
            raise
    return rows, run_means


def _add_stationary_rows(rows, cases, runs_of, *, n_list, exact_buffers, run_means=None):
    """The rows of :func:`_stationary_rows`, case by case: the analytic ones, then the simulations
    (``runs_of[case index, N]``: warm-up, horizon and the future of the replications); the run
    means of each simulated mean queue length go to `run_means` (``[case, policy, N]``) when given."""

    def add_rows(c, n, method, summary, se=None, **extra):
        for quantity, val in summary.items():
            rows.append(dict(case=c["case"], load=c["load"], policy=c["policy"], N=n, method=method,
                             quantity=quantity, value=val, se=None if se is None else se[quantity], **extra))

    for ci_, c in enumerate(cases):
        ref, v = c["refined"], c["system"].v
        sizes_exact = {int(k): b for k, b in exact_buffers.get(str(c["load"]), {}).items()} \
            if c["system"].n_types == 1 else {}
        sizes = [SWEEP_N] if c.get("sweep") else n_list
        second = c["second"]
        for n in sorted(set(sizes) | set(sizes_exact)):
            add_rows(c, n, "mean-field", occupancy_summary(ref.q, ref.mean_queue_length(), v))
            add_rows(c, n, "refined", occupancy_summary(ref.occupancy(n), ref.mean_queue_length(n), v))
            add_rows(c, n, "second-order", occupancy_summary(second.occupancy(n), second.mean_queue_length(n), v))
            if c["policy"] == "jsqd-complete":
                occ = ref.q + c["V_gwsq"] / n
                add_rows(c, n, "refined without f1", occupancy_summary(occ, occ.sum(axis=1), v))
        for n, buffer in sorted(sizes_exact.items()):
            law = exact_law(c["system"], n, ANALYSED[c["policy"]], buffer)
            add_rows(c, n, "exact", occupancy_summary(law["occupancy"], law["mean_queue_length"], v),
                     buffer=buffer, boundary_mass=law["boundary_mass"], n_states=law["n_states"])
        for n in sizes:
            warmup, horizon, future = runs_of[ci_, n]
            runs = future.result()
            per_run = [occupancy_summary(r.occupancy, r.mean_queue_length, v) for r in runs]
            if run_means is not None:
                run_means[c["case"], c["policy"], n] = tuple(float(p["mean"]) for p in per_run)
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


def error_summary(rows, cases) -> list[dict]:
    """One row per N: the largest error of each approximation of the mean queue length over the
    cases measured at that N (against the exact chain where there is one, else simulation), the
    number of such cases and the largest simulation SE among them (0 when all are exact)."""
    out = []
    sizes = sorted({r["N"] for c in cases for r in rows if r["case"] == c["case"]})
    for n in sizes:
        errors = {m: [] for m in METHODS}
        ses, sources = [], set()
        for c in cases:
            ex, _ = value(rows, c["case"], c["policy"], n, "exact")
            sim, se = value(rows, c["case"], c["policy"], n, "simulation")
            target = ex if ex is not None else sim
            if target is None:
                continue
            sources.add("exact" if ex is not None else "simulation")
            ses.append(0.0 if ex is not None else se)
            for m in METHODS:
                errors[m].append(abs(value(rows, c["case"], c["policy"], n, m)[0] - target))
        if ses:
            out.append(dict(N=n, cases=len(ses), against=" and ".join(sorted(sources)), max_se=max(ses),
                            **{f"{m}_max_error": max(errors[m]) for m in METHODS}))
    return out


def _displays(summary_rows, sweep, sup_rows, transient_n_list) -> tuple:
    def err(r, m):
        return number(r[f"{m}_max_error"], digits=2)

    summary = Table(tuple(summary_rows),
                    {"N": lambda r: r["N"], "cases": lambda r: r["cases"], "against": lambda r: r["against"],
                     **{f"largest error, {METHODS[m]}": (lambda r, m=m: err(r, m)) for m in METHODS},
                     "largest SE": lambda r: number(r["max_se"], digits=2) if r["max_se"] > 0 else "exact"},
                    caption="Largest error of each approximation of the stationary mean queue length over the cases "
                            "measured at each N (the homogeneous JSQ(2) at every load under both policies, and the "
                            "Sec. 6 system), against the exact chain where there is one, else against simulation; "
                            "errors below about 3 SE are noise. Every case and quantity is in the CSV file.")
    targets3 = Table(tuple(sweep),
                     {"load": lambda r: number(r["load"]), "simulation": lambda r: number(r["simulation"], r["se"]),
                      **{f"error, {METHODS[m]}": (lambda r, m=m: number(r[f"{_key(m)}_error"], digits=2))
                         for m in METHODS},
                      "ratio second / first": lambda r: number(r["ratio"], digits=2),
                      "target 3": lambda r: r["verdict"] if r["resolved"] else "unresolved"},
                     caption=f"Sec. 6 system ($p^1$, GWSQ(2)) at $N = {SWEEP_N}$: mean queue length from simulation "
                             "(± 1 SE) and the error of each approximation; target 3 asks for a ratio of at most 1/3.")

    def sup(n, method):
        r = next(r for r in sup_rows if r["N"] == n and r["method"] == method)
        return (f"{number(r['sup_error'], digits=2)} (t = {number(r['t'], digits=2)}, "
                f"type {r['server_type']}, level {r['level']})", number(r["se_at_sup"], digits=2))

    gaps = Table(tuple(transient_n_list),
                 {"N": lambda n: n, "largest gap, ODE (3.7)": lambda n: sup(n, "ode")[0],
                  "largest gap, refined": lambda n: sup(n, "refined")[0],
                  "SE there (ODE, refined)": lambda n: f"{sup(n, 'ode')[1]}, {sup(n, 'refined')[1]}"},
                 caption="Largest gap over $t$ and the six curves between the mean of the runs and each "
                         "approximation (transient of the Sec. 6 system under GWSQ(2)).")
    return summary, targets3, gaps


def _key(method: str) -> str:
    return {"mean-field": "mf", "refined": "refined", "second-order": "second_order"}[method]


def compute(*, seed: int, loads, n_list, n_runs: int, events_per_run: int, sweep_events_per_run: int,
            warmup_relaxations: float, exact_buffers, transient_n_list, transient_runs: int, horizon: float, n_times: int,
            reading: str) -> ItemResult:
    """L-R-finite at the notebook's parameters (see the notebook for their meaning).

    Rows (``L-R-finite.csv``): ``case, load, policy, N, method, quantity, value, se`` (+ the
    exact chain's ``buffer, boundary_mass, n_states``, the simulation's ``warmup, horizon,
    events``), methods ``mean-field``, ``refined``, ``second-order``, ``refined without f1``
    (local JSQ(2)), ``exact``, ``simulation``; the Sec. 6 system at each load of `loads` is a
    case of its own (``Sec. 6, $p^1$, load x``), simulated at N = :data:`SWEEP_N` only. Tables:
    ``transient`` (mean paths beside the ODE and the refined transient), ``transient_sup``
    (largest gaps), ``targets`` (target 1 per point, with :func:`target_verdict`, and the
    second-order error), ``sweep`` (target 3 per load, :func:`sweep_rows`), ``errors``
    (:func:`error_summary`) and ``slopes``.
    """
    if not list(n_list) or not list(transient_n_list):
        raise ParameterError("`n_list` and `transient_n_list` must name at least one system size")
    check_runs(n_runs=n_runs, transient_runs=transient_runs)
    check_integer("events_per_run", events_per_run, low=1)
    check_integer("sweep_events_per_run", sweep_events_per_run, low=1)
    check_real("warmup_relaxations", warmup_relaxations, low=0.0)
    check_times(horizon=horizon)
    check_integer("n_times", n_times, low=2)
    if not all(0 < load < 1 for load in loads):
        raise ParameterError(f"`loads` must lie in (0, 1) for a stationary system (got {listing(list(loads))})")
    # exact_buffers may name loads that are not run (a rerun with fewer loads keeps the preset's buffers)
    params = dict(seed=seed, loads=list(loads), n_list=list(n_list), n_runs=n_runs, events_per_run=events_per_run,
                  sweep_events_per_run=sweep_events_per_run,
                  warmup_relaxations=warmup_relaxations, exact_buffers=exact_buffers,
                  transient_n_list=list(transient_n_list), transient_runs=transient_runs, horizon=horizon,
                  n_times=n_times, reading=reading)
    cases = _cases(loads)
    main_cases = [c for c in cases if not c.get("sweep")]
    # load the compiled simulation kernels once here, so that the forked workers inherit them
    for policy in ANALYSED.values():
        population_stationary_replication(np.random.SeedSequence(0), _homogeneous(0.5), 2, policy, 1.0, 2.0)
    rows, run_means = _stationary_rows(cases, seed=seed, n_list=n_list, n_runs=n_runs, events_per_run=events_per_run,
                            sweep_events_per_run=sweep_events_per_run,
                            warmup_relaxations=warmup_relaxations, exact_buffers=exact_buffers)
    panels = [(c["case"], c["policy"]) for c in main_cases if c["policy"] == "gwsq"] + \
        [(c["case"], c["policy"]) for c in main_cases if c["policy"] == "jsqd-complete"]
    slopes = slope_rows(rows, panels)
    sec6 = next(c for c in cases if c["case"] == SEC6_CASE)
    transient, tr_rows, sup_rows, bands = _transient(sec6["system"], seed=seed, transient_n_list=transient_n_list,
                                              transient_runs=transient_runs, horizon=horizon, n_times=n_times,
                                              reading=reading)
    targets = target_rows(rows, main_cases, n_list)
    counts = target_counts(targets)
    local_share = local_gap_shares(rows, main_cases, n_list)
    sweep = sweep_rows(rows, list(loads))
    errors = error_summary(rows, main_cases)
    sec6_time = sec6["refined"].seconds
    claims = (refined_vs_simulation_check(rows, list(n_list), run_means, events_per_run=events_per_run, seed=seed),
              speed_claim(sec6_time))
    # targets 1 and 3 are accuracy goals for approximations, not statements that must hold if the code is
    # right: they are shown as numbers (the tables of errors, ratios and SEs), not judged as checks
    text = targets_text(rows, targets, local_share, sec6_seconds=sec6_time, sec6_levels=sec6["refined"].levels,
                        transient_seconds=transient.seconds,
                        sec6_sizes10=system_sizes(sec6["system"], 10).servers_per_type,
                        sweep=sweep, second_order_seconds=sec6["second"].seconds)
    summary = dict(own_results="every number on this page is a computation of ours (beyond paper L), none is a "
                               "paper claim",
                   sec6_refined_seconds=sec6_time, sec6_second_order_seconds=sec6["second"].seconds,
                   transient_seconds=transient.seconds,
                   target_points_resolved=len(counts["resolved"]), target_points_missed=len(counts["missed"]),
                   target_points_within_noise=len(counts["noisy"]), slopes=slopes, local_jsqd_gap_shares=local_share,
                   second_order_ratios={f"load {r['load']:g}": r["ratio"] for r in sweep})
    points = [dict(case=case, policy=policy, method=method, **p) for case, policy in panels
              for method in METHODS for p in error_points(rows, case, policy, method)]
    n_show = transient_n_list[min(1, len(transient_n_list) - 1)]
    homogeneous_panels = [dict(title=f"JSQ(2), load {number(load)}", cases=[(f"JSQ(2), load {load}", p)
                                                                            for p in ("gwsq", "jsqd-complete")])
                          for load in loads]
    sec6_panel = dict(title=f"Sec. 6 system, load {number(sec6['load'])}", cases=[(SEC6_CASE, "gwsq")])
    figure = {
        "caption": (f"Error of the three approximations of the stationary mean queue length against $N$, on log "
                    f"axes: the homogeneous JSQ(2) at loads {listing(list(loads))} with replacement (GWSQ(2), "
                    f"circles) and without (local JSQ(2) on the complete graph, squares), and the Sec. 6 system "
                    f"(GWSQ(2), $p^1$). Errors are against the exact Markov chains for tiny $N$ (no bar) and "
                    f"otherwise against {n_runs} simulation runs of {number(events_per_run)} events each "
                    f"({interval_words('se1')}); open markers: the simulation does not resolve the error (below 3 SE), "
                    "drawn at 3 SE"),
        "panels": homogeneous_panels + [sec6_panel],
        "methods": METHODS,
        "error_points": points,
        "sweep": sweep,
        "sweep_columns": {m: f"{_key(m)}_error" for m in METHODS},
        "sweep_caption": (f"Sec. 6 system ($p^1$, GWSQ(2)) at $N = {SWEEP_N}$: error of the three approximations "
                          f"of the mean queue length against the load, against {n_runs} simulation runs of "
                          f"{number(events_per_run)} events each ({interval_words('se1')}); target 3 asks the "
                          "second-order error to be at most a third of the refined one"),
        "transient_n": n_show,
        # the 95% band of the mean path at N = transient_n (the transient table holds its SE)
        "transient_band": bands[n_show],
        "transient_caption": (rf"Sec. 6 system under GWSQ(2) from the L-F2 start: occupancy $q_{{m,\ell}}(t)$, mean of "
                              rf"{transient_runs} runs with $N = {n_show}$ ({interval_words('ci95')}) up to "
                              rf"$t = {horizon:g}$, against the ODE (3.7) and the refined transient"),
    }
    return ItemResult(ITEM, params, seed, rows, claims=claims, findings=(page_finding(rows, list(n_list)),),
                      tables={"transient": tr_rows, "transient_sup": sup_rows, "targets": targets, "sweep": sweep,
                              "errors": errors, "slopes": slopes},
                      summary=summary, figure=figure, displays=_displays(errors, sweep, sup_rows, transient_n_list),
                      text=text)


def draw_errors(res: ItemResult):
    """The page's first figure from ``res.figure``: per panel (a load, or the Sec. 6 system) the
    absolute error of each approximation against N, both policies (GWSQ(2) solid with circles, local
    JSQ(2) on the complete graph dashed with squares), ±1 SE bars, filled markers where the
    simulation resolves the error. Returns the matplotlib figure."""
    panels, methods, points = res.figure["panels"], res.figure["methods"], res.figure["error_points"]
    marker = {"gwsq": "o", "jsqd-complete": "s"}
    line = {"gwsq": "-", "jsqd-complete": "--"}
    how = {"gwsq": "with replacement", "jsqd-complete": "without replacement"}
    ncols = 2
    nrows = -(-len(panels) // ncols)
    fig, axes = new_figure(ncols, nrows, sharex=True, sharey=True)
    mark_interval(fig, "se1")
    sizes = sorted({p["N"] for p in points})
    for i, panel in enumerate(panels):
        ax = axes[i // ncols][i % ncols]
        for case, policy in panel["cases"]:
            for j, (method, name) in enumerate(methods.items()):
                pts = select(points, case=case, policy=policy, method=method)
                ax.plot(column(pts, "N"), column(pts, "y"), line[policy], color=PALETTE[j], lw=1,
                        label=f"{name}, {how[policy]}")
                for p in pts:
                    ax.errorbar([p["N"]], [p["y"]], yerr=p["yerr"], fmt=marker[policy], color=PALETTE[j],
                                mfc=PALETTE[j] if p["resolved"] else "none", ms=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(panel["title"])
    ticks = [n for n in (2, 5, 10, 20, 50, 100, 1000) if sizes[0] <= n <= sizes[-1]]
    for row in axes:
        for ax in row:
            ax.set_xticks(ticks, [str(n) for n in ticks])
            ax.minorticks_off()
        row[0].set_ylabel("|error| of the mean\nqueue length")
    for ax in axes[-1]:
        ax.set_xlabel("$N$")
    for k in range(len(panels), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    figure_legend(fig, axes, ncol=2)
    return fig
