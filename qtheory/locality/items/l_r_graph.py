"""L-R-graph: how far is *this* graph from the limit? The graph mean field and its refinement (beyond paper L).

:func:`compute` draws irg(:math:`p^1`) graphs of the Sec. 6 system for each N and compares, per
server type and per server, the stationary mean queue length of local JSQ(2) simulated on each
graph with three approximations: paper L's limit ODE (3.7) (its fixed point, the same for every
graph), the graph mean field of the given graph (:mod:`qtheory.locality.graphmf`) and, for small
N, its refinement (:mod:`qtheory.locality.graphrefined`). It also follows L-F1's S2 setting in
time on one graph per N. No paper states these values: every record is an internal check.

The page's headline, that the graph mean field is closer to the simulation than (3.7), is judged
with its noise (:func:`closer_records`): per batch of the runs' windows, the mean over graphs and
types of (3.7)'s squared error minus the graph mean field's against that batch's simulated mean
(:func:`advantage_runs`), tested by :func:`qtheory.direction.direction_test`.
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim, Finding
from ...direction import Difference, DirectionTest, difference, direction_test
from ...display import Table, listing, number
from ...errors import ParameterError
from ...plotting import interval_words
from ...results import ItemResult
from ...runtime import child_seed
from ...validation import RELAXATIONS, check_integer, check_positive, check_runs, check_times
from ..experiments import graph_meanfield_rows, graph_meanfield_summary, graph_meanfield_transient_rows
from ..graphmf import fixed_point as graph_fixed_point
from ..graphs import irg
from ..model import paper_system
from ..refined import refined_stationary

__all__ = ["ITEM", "METHODS", "RESOLVED_SE", "N_BATCHES", "compute", "error_rows", "ratio_points", "ratio_claim",
           "correlation_claim", "advantage_runs", "advantage_part", "closer_records", "page_finding", "usage_text",
           "miss_text"]

ITEM = "L-R-graph"
#: the approximations compared, by column of the rows, and how the page names them
METHODS = {"ode": "ODE (3.7)", "gmf": "graph mean field", "grmf": "refined graph mean field"}
#: an error is resolved by the simulation when it exceeds this many standard errors of the mean
RESOLVED_SE = 3.0
#: the label of the simulation's standard error of the mean in the error figure
SE_LABEL = "SE of the simulated mean"
#: the refinement's target and the graph mean field's: error at most this fraction
TARGET_RATIO = 0.5
#: the graph mean field's target against (3.7) is judged for N up to this
GRAPH_TARGET_N = 200
#: batches of each run's window: its standard errors and the run means of the headline's test
#: (at least :data:`qtheory.verdicts.MIN_RUNS`)
N_BATCHES = 30
#: samples of each run's window, a multiple of :data:`N_BATCHES` (equal batches average to the run's mean)
N_SAMPLES = 2100


def error_rows(summary: list[dict]) -> list[dict]:
    """The per-type rows of :func:`~qtheory.locality.experiments.graph_meanfield_summary`
    (``server_type`` "1", "2", ...), without the per-N correlation rows."""
    return [r for r in summary if r["server_type"] != "all"]


def ratio_points(summary: list[dict], better: str, worse: str, n_max: int) -> list[dict]:
    """For each (N <= `n_max`, type) where both are present: the mean absolute errors of `better`
    and `worse` (keys of :data:`METHODS`), their ratio and whether `worse`'s error is resolved
    (above :data:`RESOLVED_SE` standard errors of the simulated mean); a point whose `worse`
    error is not resolved cannot show a ratio and is not judged."""
    out = []
    for r in error_rows(summary):
        if r["N"] > n_max or r.get(f"{better}_abs_error") is None or r.get(f"{worse}_abs_error") is None:
            continue
        b, w = r[f"{better}_abs_error"], r[f"{worse}_abs_error"]
        out.append(dict(N=r["N"], server_type=r["server_type"], better=b, worse=w,
                        ratio=b / w if w > 0 else None, se=r["sim_se_of_mean"],
                        resolved=bool(w > RESOLVED_SE * r["sim_se_of_mean"])))
    return out


def ratio_claim(summary: list[dict], better: str, worse: str, n_max: int) -> Claim:
    """Internal check: `better`'s mean absolute error (over the graphs) is at most
    :data:`TARGET_RATIO` of `worse`'s at every resolved (N <= `n_max`, type) point."""
    points = ratio_points(summary, better, worse, n_max)
    judged = [p for p in points if p["resolved"]]
    missed = [p for p in judged if p["ratio"] > TARGET_RATIO]
    shown = "; ".join(f"N = {p['N']}, type {p['server_type']}: {number(p['ratio'], digits=2)}"
                      + ("" if p["resolved"] else " (not resolved)") for p in points)
    return Claim(item=ITEM, category="check", holds=bool(judged) and not missed,
                 text=f"{METHODS[better]}: error at most {number(TARGET_RATIO)} of the {METHODS[worse]}'s "
                      f"(per type, mean over graphs, $N \\le {n_max}$, points the simulation resolves)",
                 evidence=f"ratios {shown}; {len(judged) - len(missed)} of {len(judged)} resolved points meet it "
                          f"(resolved: the {METHODS[worse]}'s error above {number(RESOLVED_SE)} SE of the "
                          "simulated mean)")


def correlation_claim(summary: list[dict], n: int, threshold: float = 0.9) -> Claim:
    """Internal check: at N = `n`, the per-server means of the graph mean field correlate with the
    simulated ones at least at `threshold` on every graph."""
    rows = [r for r in summary if r["server_type"] == "all" and r["N"] == n]
    if not rows:
        raise ParameterError(f"no per-server rows at N = {n} (is `scatter_n` in `n_list` and per-server?)")
    r = rows[0]
    return Claim(item=ITEM, category="check", holds=bool(r["correlation_min"] >= threshold),
                 text=f"graph mean field against simulation, per server at $N = {n}$: correlation at least "
                      f"{number(threshold)} on every graph",
                 evidence=f"smallest over {r['graphs']} graphs {number(r['correlation_min'], digits=4)}, mean "
                          f"{number(r['correlation'], digits=4)}; within types (deviations from each type's mean) "
                          f"smallest {number(r['within_type_correlation_min'], digits=3)}")


def advantage_runs(types: list[dict], batches: list[dict], n: int) -> tuple[float, ...]:
    """The graph mean field's advantage over (3.7) at :math:`N` = `n`, one value per batch of the
    runs' windows: the mean over the graphs and server types of

    .. math:: (o - s_k)^2 - (g - s_k)^2 = (o - g)(o + g - 2 s_k),

    (3.7)'s squared error minus the graph mean field's against batch `k`'s simulated mean
    :math:`s_k` of that graph and type (:math:`o`, :math:`g` the two approximations). It is linear
    in :math:`s_k`, so its mean has no bias from the simulation's noise: it estimates
    :math:`(o - \\mu)^2 - (g - \\mu)^2` for the stationary means :math:`\\mu` of the simulated graphs
    (a mean absolute error against a noisy simulated value is inflated by the noise, both
    approximations' alike). The batches of one index over all graphs form one value: graphs and
    runs are independent, batches nearly so (each covers several relaxation times, see
    :func:`shortest_events`).

    `types` are the rows of :func:`~qtheory.locality.experiments.graph_meanfield_rows` (``gmf``,
    ``ode`` per N, graph and type) and `batches` its ``batches`` table."""
    approx = {(r["graph"], r["server_type"]): (r["ode"], r["gmf"]) for r in types if r["N"] == n}
    if not approx:
        raise ParameterError(f"no rows at N = {n}")
    values: dict[int, list[float]] = {}
    for r in batches:
        if r["N"] != n:
            continue
        o, g = approx[(r["graph"], r["server_type"])]
        values.setdefault(r["batch"], []).append((o - g) * (o + g - 2.0 * r["sim"]))
    counts = {len(v) for v in values.values()}
    if len(counts) != 1 or counts.pop() != len(approx):
        raise ParameterError(f"the batches at N = {n} must cover every graph and type once each")
    return tuple(float(np.mean(values[k])) for k in sorted(values))


def advantage_part(types: list[dict], batches: list[dict], n: int) -> Difference:
    """:func:`advantage_runs` at `n` as a stated sign: the graph mean field closer than (3.7)."""
    return difference(advantage_runs(types, batches, n),
                      name=f"(3.7)'s mean squared error minus the graph mean field's at $N = {n}$")


def closer_records(types: list[dict], batches: list[dict], n_graphs: int) -> tuple[tuple[Claim, ...], dict]:
    """Internal checks, one per N: the graph mean field is closer than (3.7) to the simulated
    stationary means, each judged with its noise by :func:`qtheory.direction.direction_test` on
    :func:`advantage_runs`; the largest N's is the page's headline. One record per size rather than
    one statement over all sizes: a size whose batch means fail their checks then leaves only its
    own record unjudged.

    Returns the records (in increasing N) and the tests by N (``{n: DirectionTest}``) for the
    headline's numbers."""
    ns = sorted({r["N"] for r in types})
    tests = {n: direction_test([advantage_part(types, batches, n)]) for n in ns}
    records = []
    for n in ns:
        how = (f"Each value is one batch of the runs' windows ({tests[n].parts[0].runs[0]} batches): the mean over "
               f"{n_graphs} irg($p^1$) graphs and the server types of (3.7)'s squared error minus the graph mean "
               "field's against that batch's simulated mean queue length. A difference of two squared errors "
               "against one simulated value is linear in it, so the simulation's noise adds no bias.")
        records.append(tests[n].record(
            item=ITEM, category="check", evidence=how,
            text=f"the graph mean field is closer than (3.7) to the simulated stationary mean queue lengths at "
                 f"$N = {n}$ (mean squared error per server type)"))
    return tuple(records), tests


def _outcome(test: DirectionTest) -> str:
    """What one N's test shows (:attr:`qtheory.direction.DirectionTest.outcome`) in the headline's
    words: closer, farther ((3.7) closer), not resolved, or cannot be judged."""
    return {"shown": "closer", "contradicted": "farther", "not shown": "not resolved",
            "not judged": "cannot be judged"}[test.outcome]


def page_finding(summary: list[dict], tests: dict, n_graphs: int) -> Finding:
    """The page's result in one sentence with its numbers: at the largest N, whether the graph mean
    field is closer to the simulation than (3.7) (:func:`closer_records`' test), the difference of
    their mean squared errors with its standard error, and the same at the smaller sizes; the text
    adds the mean absolute errors of the table and the simulation's SE."""
    ns = sorted(tests)
    n = ns[-1]
    c = tests[n].parts[0].comparison
    size = number(c.difference, c.se)
    outcome = _outcome(tests[n])
    head = {"closer": f"At $N = {n}$ the graph mean field is closer to the simulation than (3.7): their mean squared "
                      f"errors per server type differ by {size}",
            "farther": f"At $N = {n}$ (3.7) is closer to the simulation than the graph mean field: their mean squared "
                       f"errors per server type differ by {size}",
            "not resolved": f"At $N = {n}$ the data do not show which of the graph mean field and (3.7) is closer to "
                            f"the simulation: their mean squared errors per server type differ by {size}, within the "
                            "noise",
            "cannot be judged": f"At $N = {n}$ the mean squared errors per server type of (3.7) and the graph mean "
                                f"field differ by {size}, but the batch means are too few or too skewed to judge it"}
    title = head[outcome]
    rest = ns[:-1]
    if rest:
        closer = [m for m in rest if _outcome(tests[m]) == "closer"]
        unjudged = [m for m in rest if _outcome(tests[m]) == "cannot be judged"]
        other = [m for m in rest if m not in closer and m not in unjudged]
        if len(closer) == len(rest):
            title += "; at every smaller size the graph mean field is closer"
        else:
            said = ([f"closer at {_sizes(closer)}"] if closer else []) + (
                [f"not shown closer at {_sizes(other)}"] if other else []) + (
                [f"not judged at {_sizes(unjudged)} (its batch means fail their checks)" if len(unjudged) == 1 else
                 f"not judged at {_sizes(unjudged)} (their batch means fail their checks)"] if unjudged else [])
            title += "; at the smaller sizes the graph mean field is " + listing(said, conjunction="and")
    ode, gmf = _mean_over_types(summary, n, "ode_abs_error"), _mean_over_types(summary, n, "gmf_abs_error")
    se = _mean_over_types(summary, n, "sim_se_of_mean")
    text = ("(3.7)'s mean squared error minus the graph mean field's, per server type, over "
            f"{n_graphs} graphs per size: "
            + listing([f"{number(tests[m].parts[0].comparison.difference, tests[m].parts[0].comparison.se)} at "
                       f"$N = {m}$" for m in ns], conjunction="and")
            + f" (± one standard error over the batch means of the runs). At $N = {n}$ the table's mean absolute "
              f"errors, {number(gmf, digits=2)} for the graph mean field and {number(ode, digits=2)} for (3.7), both "
              f"hold the simulation's noise (its standard error {number(se, digits=2)}); the difference of squared "
              "errors does not. The error table below gives every size and type.")
    return Finding(f"{ITEM}-result", ITEM, title, text, "beyond the papers")


def _mean_over_types(summary, n, key):
    vals = [r.get(key) for r in error_rows(summary) if r["N"] == n]
    return float(np.mean(vals)) if vals and all(v is not None for v in vals) else None


def _sizes(ns) -> str:
    return listing([f"$N = {n}$" for n in ns], conjunction="and")


def usage_text(summary: list[dict], seconds: dict) -> str:
    """Where each approximation is worth using, from the errors (mean over types and graphs), the
    simulation's standard errors and the computing times (wall seconds of the fixed point):
    Markdown bullets. An error counts as resolved above :data:`RESOLVED_SE` standard errors."""
    ns = sorted({r["N"] for r in error_rows(summary)})
    ode = {n: _mean_over_types(summary, n, "ode_abs_error") for n in ns}
    gmf = {n: _mean_over_types(summary, n, "gmf_abs_error") for n in ns}
    grmf = {n: _mean_over_types(summary, n, "grmf_abs_error") for n in ns}
    se = {n: _mean_over_types(summary, n, "sim_se_of_mean") for n in ns}
    ode_resolved = [n for n in ns if ode[n] > RESOLVED_SE * se[n]]
    gmf_resolved = [n for n in ns if gmf[n] > RESOLVED_SE * se[n]]
    gmf_better = [n for n in ns if gmf[n] < ode[n]]
    refined_ns = [n for n in ns if grmf[n] is not None]
    corr = {r["N"]: r for r in summary if r["server_type"] == "all"}
    lines = [
        "- **ODE (3.7)**: one fixed point for every graph and every $N$, and one value per server type. Its "
        "error (mean over types and graphs) is "
        + listing([f"{number(ode[n], digits=2)} at $N = {n}$" for n in ns], conjunction="and") + ". "
        + (f"The simulation resolves it (above {number(RESOLVED_SE)} SE) at {_sizes(ode_resolved)}"
           + (f" and not at {_sizes([n for n in ns if n not in ode_resolved])}: there (3.7) is enough for "
              "type means" if len(ode_resolved) < len(ns) else "")
           if ode_resolved else "The simulation resolves it at none of the sizes: (3.7) is enough for type means")
        + ".",
        "- **Graph mean field**: the given graph's own fixed point, in "
        + listing([f"{number(seconds[n], digits=2)} s at $N = {n}$" for n in ns if n in seconds], conjunction="and")
        + " (wall time). Its error is "
        + listing([f"{number(gmf[n], digits=2)} at $N = {n}$" for n in ns], conjunction="and")
        + (", below (3.7)'s at every size" if len(gmf_better) == len(ns)
           else f", below (3.7)'s at {_sizes(gmf_better)}" if gmf_better else ", nowhere below (3.7)'s")
        + ". Unlike (3.7) it predicts each server's mean"
        + (f" (correlation with the simulated means at least "
           f"{listing([number(corr[n]['correlation_min'], digits=3) for n in sorted(corr)], conjunction='and')} "
           f"over the graphs at {_sizes(sorted(corr))})" if corr else "")
        + ": it is worth using wherever (3.7)'s error is resolved, and whenever the servers of a type differ.",
    ]
    if refined_ns:
        lines.append(
            "- **Refined graph mean field** (local JSQ(2); a dense Lyapunov equation in $N L$ unknowns): error "
            + listing([f"{number(grmf[n], digits=2)} at $N = {n}$" for n in refined_ns], conjunction="and")
            + ", against the simulation's standard error of the mean "
            + listing([number(se[n], digits=1) for n in refined_ns], conjunction="and") + ". The graph mean "
            + (f"field's own error is resolved at {_sizes(gmf_resolved)}: the refinement is worth its cost there"
               if gmf_resolved else "field's own error is resolved at no size: the refinement adds little here")
            + ".")
    return "\n".join(lines)


def miss_text(summary: list[dict], n_max: int = 200) -> str:
    """Where the graph mean field misses its target (error at most :data:`TARGET_RATIO` of
    (3.7)'s, resolved points with N <= `n_max`), and what the refinement says about why: if the
    refinement, where computed, removes all but :data:`TARGET_RATIO` of the graph mean field's
    error at every missed point, the error left is the 1/N error of the servers' independence
    (which (3.7) also carries), not the graph. Markdown; empty when nothing is missed."""
    missed = [p for p in ratio_points(summary, "gmf", "ode", n_max) if p["resolved"] and p["ratio"] > TARGET_RATIO]
    if not missed:
        return ""
    rows = {(r["N"], r["server_type"]): r for r in error_rows(summary)}
    refined = [rows[(p["N"], p["server_type"])].get("grmf_abs_error") for p in missed]
    where = listing([f"$N = {p['N']}$, type {p['server_type']} (graph mean field {number(p['better'], digits=2)}, "
                     f"(3.7) {number(p['worse'], digits=2)}"
                     + (f", refined {number(g, digits=2)}" if g is not None else "") + ")"
                     for p, g in zip(missed, refined)], conjunction="and")
    text = (f"The graph mean field misses its target (at most {number(TARGET_RATIO)} of (3.7)'s error) at {where}. ")
    if all(g is not None and g <= TARGET_RATIO * p["better"] for p, g in zip(missed, refined)):
        text += ("There its refinement removes most of the error: what is left is the 1/N error of treating the "
                 "servers as independent, which (3.7) carries too and which at this size is as large as the "
                 "difference the graph itself makes.")
    else:
        text += "The refinement was not computed there or does not remove most of it, so the cause is not shown here."
    return text


def shortest_events(n: int) -> int:
    """Events per run whose averaging window at N = `n` covers
    :data:`~qtheory.validation.RELAXATIONS` relaxation times of (3.7) on the Sec. 6 system (the
    slowest decay of the linearised ODE at its fixed point, 2.1 time units; a run of E events spans
    E / (2 lambda zeta N) time units)."""
    system = paper_system("design")
    tau = refined_stationary(system).relaxation_time
    return int(np.ceil(RELAXATIONS * tau * 2.0 * float(system.arrival_rate) * float(system.zeta) * n))


def compute(*, seed: int, n_list, n_graphs: int, events_per_run: int, warmup: float, refine_up_to: int,
            per_server_up_to: int, scatter_n: int, transient_n_list, transient_runs: int, horizon: float,
            n_times: int) -> ItemResult:
    """L-R-graph at the notebook's parameters (see the notebook for their meaning).

    Rows: one per (N, graph, server type): ``sim``, ``sim_se`` (batch means of one run on that
    graph), ``ode``, ``gmf``, ``grmf`` (N <= `refine_up_to`) and their errors (approximation minus
    simulation), ``gmf_seconds``. Tables: ``servers`` (per server, N <= `per_server_up_to`),
    ``summary`` (:func:`~qtheory.locality.experiments.graph_meanfield_summary`), ``transient``
    (:func:`~qtheory.locality.experiments.graph_meanfield_transient_rows`) and ``batches`` (the
    :data:`N_BATCHES` batch means of each run, per type, behind ``sim_se`` and the headline's test).
    """
    n_list = sorted(int(n) for n in n_list)
    if not n_list or len(set(n_list)) != len(n_list):
        raise ParameterError(f"`n_list` must hold distinct sizes, at least one (got {n_list!r})")
    if scatter_n not in n_list or scatter_n > per_server_up_to:
        raise ParameterError(f"`scatter_n` = {scatter_n} must be in `n_list` and at most `per_server_up_to` = "
                             f"{per_server_up_to}")
    check_positive("warmup", warmup)
    for k, n in enumerate(transient_n_list):
        check_integer(f"transient_n_list[{k}]", n, low=2)
    check_runs(transient_runs=transient_runs)
    check_times(horizon=horizon)
    check_integer("n_times", n_times, low=2)
    # the per-server check compares time averages: each run must average over many relaxations
    shortest = shortest_events(max(n_list))
    if check_integer("events_per_run", events_per_run, low=1) < shortest:
        raise ParameterError(f"`events_per_run` must be at least {shortest:,} at N = {max(n_list)} (the largest of "
                             f"`n_list`): a run averages over events_per_run / (2 lambda zeta N) time units, which "
                             f"must cover {RELAXATIONS} relaxation times of (3.7) at its fixed point "
                             f"(got {events_per_run:,})")
    params = dict(seed=seed, n_list=n_list, n_graphs=n_graphs, events_per_run=events_per_run, warmup=warmup,
                  refine_up_to=refine_up_to, per_server_up_to=per_server_up_to, scatter_n=scatter_n,
                  transient_n_list=list(transient_n_list), transient_runs=transient_runs, horizon=horizon,
                  n_times=n_times)
    # compile (or load) the graph mean field's kernel here, so that no timed fixed point includes it
    system = paper_system("design")
    graph_fixed_point(system, irg(system, 20, child_seed(seed, "warm-up")))
    tables = graph_meanfield_rows(seed, n_list, n_graphs, warmup=warmup, events_per_run=events_per_run,
                                  refine_up_to=refine_up_to, per_server_up_to=per_server_up_to,
                                  n_samples=N_SAMPLES, n_batches=N_BATCHES)
    summary = graph_meanfield_summary(tables)
    transient = graph_meanfield_transient_rows(seed, list(transient_n_list), transient_runs, horizon=horizon,
                                               n_times=n_times)
    seconds = {n: float(np.mean([r["gmf_seconds"] for r in tables.types if r["N"] == n])) for n in n_list}
    refined_seconds = {n: float(np.mean([r["grmf_seconds"] for r in tables.types if r["N"] == n]))
                       for n in n_list if n <= refine_up_to}
    n_refined = max([n for n in n_list if n <= refine_up_to], default=None)
    # the accuracy targets (ratio_claim) are goals for approximations, shown as the error table's numbers,
    # not judged: an internal check is a statement that must hold if the code is right
    closer, tests = closer_records(tables.types, tables.batches, n_graphs)
    claims = [*closer, correlation_claim(summary, scatter_n)]
    n_big = max(n_list)
    big = [r for r in error_rows(summary) if r["N"] == n_big]
    record = {"N": n_big, "graph_meanfield_seconds": seconds[n_big],
              "per_type": {r["server_type"]: {"gmf_abs_error": r["gmf_abs_error"], "ode_abs_error": r["ode_abs_error"],
                                              "sim_se_of_mean": r["sim_se_of_mean"]} for r in big}}
    table = Table(tuple(error_rows(summary)), {
        "$N$": lambda r: str(r["N"]),
        "type": lambda r: r["server_type"],
        "|error| (3.7)": lambda r: number(r["ode_abs_error"], digits=2),
        "|error| graph MF": lambda r: number(r["gmf_abs_error"], digits=2),
        "|error| refined": lambda r: number(r.get("grmf_abs_error"), digits=2),
        "SE of the simulated mean": lambda r: number(r["sim_se_of_mean"], digits=2),
    }, caption=f"Mean absolute error of the stationary mean queue length per server type, over {n_graphs} "
               f"irg($p^1$) graphs per $N$ (approximation minus the simulation on the same graph)")
    transient_max = []
    for n in transient_n_list:
        for m in sorted({r["server_type"] for r in transient}):
            sel = [r for r in transient if r["N"] == n and r["server_type"] == m]
            transient_max.append(dict(N=n, server_type=m,
                                      gmf=float(max(abs(r["gmf_error"]) for r in sel)),
                                      ode=float(max(abs(r["ode_error"]) for r in sel)),
                                      se=float(max(r["sim_se"] for r in sel))))
    transient_table = Table(tuple(transient_max), {
        "$N$": lambda r: str(r["N"]), "type": lambda r: str(r["server_type"]),
        "max |error| (3.7)": lambda r: number(r["ode"], digits=2),
        "max |error| graph MF": lambda r: number(r["gmf"], digits=2),
        "largest SE": lambda r: number(r["se"], digits=2)},
        caption="L-F1's S2 setting: largest error over time of the mean queue length per type (one graph per $N$)")
    se1 = interval_words("se1")
    n_small = min(transient_n_list)
    labels = [*METHODS.values(), SE_LABEL]
    points = [dict(server_type=r["server_type"], method=label, N=r["N"], error=r[key])
              for r in error_rows(summary)
              for label, key in zip(labels, [f"{k}_abs_error" for k in METHODS] + ["sim_se_of_mean"])
              if r.get(key) is not None]
    figure = {
        "types": sorted({r["server_type"] for r in points}), "n_list": n_list,
        "error_styles": dict(zip(labels, [("o-", 0), ("s-", 1), ("^-", 2), (":", 7)])),
        "error_points": points, "scatter_n": scatter_n, "transient_n": n_small,
        "error_caption": (f"mean absolute error of the stationary mean queue length of each server type against "
                          f"$N$ (log-log; mean over {n_graphs} irg($p^1$) graphs of the Sec. 6 system, local JSQ(2), "
                          f"$\\lambda = 3$) for (3.7), the graph mean field and, for $N \\le {refine_up_to}$, its "
                          "refinement; the dotted line is the standard error of the simulated mean, below which an "
                          "error is not resolved"),
        "scatter_caption": (f"stationary mean queue length of each server at $N = {scatter_n}$ ({n_graphs} graphs): "
                            "graph mean field (dots) and (3.7) (a dashed line at its one value per type, across the "
                            f"type's servers) against the simulation on the same graph ({se1} of the simulated mean); "
                            "the solid line is equality"),
        "transient_caption": (f"L-F1's S2 setting on one irg($p^1$) graph with $N = {n_small}$: mean queue length per "
                              f"server type over time, {transient_runs} simulations ({se1} band), the graph mean field "
                              "and the ODE (3.7), from i.i.d. initial lengths with the tails of the initial matrix Q"),
    }
    text = usage_text(summary, seconds)
    missed = miss_text(summary)
    if missed:
        text += "\n\n" + missed
    if refined_seconds:
        text += ("\n- Computing times of the refinement: "
                 + listing([f"{number(s, digits=2)} s at $N = {n}$" for n, s in refined_seconds.items()],
                           conjunction="and") + ".")
    return ItemResult(ITEM, params, seed, tables.types, claims=tuple(claims),
                      findings=(page_finding(summary, tests, n_graphs),),
                      tables={"servers": tables.servers, "summary": summary, "transient": transient,
                              "batches": tables.batches},
                      summary={"largest_N": record, "graph_meanfield_seconds": {str(n): s for n, s in seconds.items()},
                               "refined_seconds": {str(n): s for n, s in refined_seconds.items()}},
                      figure=figure, displays=(table, transient_table), text=text)
