"""L-R-memory: JSQ(d) with memory on paper L's graphs (beyond the paper).

:class:`~qtheory.locality.policies.JSQdMemory` (Mitzenmacher, Prabhakar and Shah 2002, read per
dispatcher: each dispatcher remembers one compatible server, the least loaded of its last
arrival's candidates after that arrival was placed) is compared with local JSQ(2) (Sec. 2.2).

:func:`compute` does two things:

* **The exact chain.** On a tiny graph (:data:`TINY_ADJACENCY`: 3 dispatchers, 4 servers of 2
  types) the chain over (queue lengths, remembered servers) is enumerated from the policy's
  own plain-Python reading (:meth:`JSQdMemory.exact_rule`, :func:`qtheory.locality.exact.policy_stationary`)
  and the simulator is checked against it: the stationary mean queue length of each server
  type, simulated over ``exact_runs`` independent runs, is an internal check that carries its
  run means, judged by the book's :math:`t` test where they allow it (:mod:`qtheory.verdicts`:
  at least 30 near-normal run means). The same chain for local JSQ(2) gives the exact gain of
  the memory on that graph.
* **The Sec. 6 system.** Stationary mean queue length per server against the load on an
  irg(:math:`p^1`) graph of ``n_servers`` servers, for both policies. Local JSQ(2) is checked
  for stability first (Lemma 10); no condition is known for the policy with memory, so its rows
  carry the drift check of :func:`qtheory.locality.items.l_r_jiq.drift_check`. At each load where
  both have a mean, the difference (memory minus JSQ(2)) is judged by Welch's :math:`t` on the
  run means of the two policies where they allow it (at least 30 a side, no evidence of skew;
  :func:`difference_test`), the loads one family under Holm's procedure at the book's familywise
  level (:mod:`qtheory.verdicts`).
"""

from __future__ import annotations

import math

import numpy as np

from ...claims import Claim, Finding
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import cached_values, child_seed, spawn
from ... import verdicts
from ...stats import mean_ci
from ...validation import check_integer, check_positive, check_runs
from ..exact import policy_stationary
from ..graphs import from_adjacency
from ..model import LocalitySystem
from ..policies import JSQdMemory, LocalJSQ
from ..simulation import simulate
from .l_r_jiq import cell_text, checked_loads_and_window, policy_row, policy_rows, reported

__all__ = ["ITEM", "TINY_ADJACENCY", "compared_policies", "exact_check", "compute", "difference_test", "comparison_rows", "comparison_summary",
           "draw"]

ITEM = "L-R-memory"
MEMORY = "JSQ(2) with memory"
JSQ2 = "local JSQ(2)"
#: the tiny graph of the exact chain: dispatcher rows, server columns (servers 0, 1 of type 1,
#: 2, 3 of type 2; dispatchers 0, 1 of cluster 1, dispatcher 2 of cluster 2)
TINY_ADJACENCY = ((1, 1, 1, 0), (0, 1, 1, 1), (1, 0, 0, 1))
TINY_TYPES = (0, 0, 1, 1)
TINY_CLUSTERS = (0, 0, 1)
#: its system: arrival rate 0.6 per dispatcher, rates u = (1, 1.5); d = 2
TINY_SYSTEM = LocalitySystem(0.6, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((0.3, 1.0), (1.0, 0.5)), 2)
#: queues truncated at 8 tasks: 260,416 states (queues x remembered servers); the truncated mass is reported
TINY_BUFFER = 8
#: start of the time averages of the tiny graph's runs (from empty queues)
TINY_WARMUP = 100.0


def compared_policies() -> dict:
    """The compared policies by label, in the table's column order."""
    return {JSQ2: LocalJSQ(d=2), MEMORY: JSQdMemory(d=2)}


def _type_means(states, pi, types) -> np.ndarray:
    types = np.asarray(types)
    return np.array([(pi[:, None] * states[:, types == m]).sum() / (types == m).sum() for m in range(types.max() + 1)])


def exact_check(seed: int, exact_runs: int, exact_horizon: float) -> tuple[list[dict], tuple[Claim, ...], float]:
    """The tiny graph's exact chain for both policies and the simulation of the policy with
    memory against it: ``(rows, claims, truncated mass)``, a row per server type with the
    exact mean queue length of each policy and the simulated one of the policy with memory
    (mean, 95% interval, standard error over ``exact_runs`` runs)."""
    graph = from_adjacency(np.array(TINY_ADJACENCY), list(TINY_TYPES), list(TINY_CLUSTERS))

    def chains() -> dict:
        out = {}
        for k, pol in enumerate(compared_policies().values()):
            states, pi = policy_stationary(TINY_SYSTEM, graph, pol, TINY_BUFFER)
            out[f"means_{k}"] = _type_means(states, pi, TINY_TYPES)
            out[f"truncated_{k}"] = float(pi[states.max(axis=1) == TINY_BUFFER].sum())
        return out
    # the chains depend on no seed: computed once per version of this code (260,416 states, about 20 s)
    values = cached_values("locality-memory-tiny-chains", dict(buffer=TINY_BUFFER), chains)
    labels = list(compared_policies())
    exact = {label: np.asarray(values[f"means_{k}"]) for k, label in enumerate(labels)}
    truncated = max(float(values[f"truncated_{k}"]) for k in range(len(labels)))
    grid = np.linspace(0.0, exact_horizon, int(exact_horizon) + 1)
    keep = grid >= TINY_WARMUP
    runs = np.array([simulate(TINY_SYSTEM, graph, JSQdMemory(d=2), initial_state=np.zeros(len(TINY_TYPES), np.int64), t_grid=grid, seed=ss)
                     .mean_queue_length[keep].mean(axis=0) for ss in spawn(child_seed(seed, "tiny"), exact_runs)])
    est = mean_ci(runs)
    rows, claims = [], []
    for m in range(len(exact[MEMORY])):
        rows.append(dict(server_type=m + 1, exact_jsq2=float(exact[JSQ2][m]), exact_memory=float(exact[MEMORY][m]),
                         simulated=float(est.mean[m]), ci_low=float(est.ci_low[m]), ci_high=float(est.ci_high[m]),
                         se=float(est.se[m])))
        # no `family`: both types are averaged over the same runs (their run means correlate, about 0.6),
        # and the joint tests of a family add t statistics as if independent
        claims.append(Claim(item=ITEM, category="check", ours_runs=tuple(float(x) for x in runs[:, m]),
                            reference=float(exact[MEMORY][m]),
                            text=f"tiny graph, JSQ(2) with memory: mean queue length of type {m + 1}, simulated "
                                 "against the exact chain of the policy's own reading",
                            evidence=f"{exact_runs} independent runs of length {exact_horizon:g} from empty queues, "
                                     f"time averages from {TINY_WARMUP:g}; exact chain over (queues, remembered "
                                     f"servers) truncated at {TINY_BUFFER} tasks per queue (mass at the truncation "
                                     f"{number(truncated, digits=2)})"))
    return rows, tuple(claims), truncated


def difference_test(memory_runs, jsq2_runs) -> verdicts.Comparison | None:
    """The comparison of the mean queue lengths at one load, memory minus local JSQ(2), from the run
    means of each policy (independent runs): Welch's :math:`t` with Hall's correction for their
    skewness, and the checks that a t test may judge them (at least
    :data:`~qtheory.verdicts.MIN_RUNS` runs a side, no evidence of skew), exactly as the book judges
    a record (:func:`qtheory.verdicts.compare`). None when every run mean is the same on both sides
    (no spread to test with)."""
    probe = Claim(item=ITEM, category="check", text="memory minus local JSQ(2)", ours_runs=tuple(memory_runs),
                  reference_runs=tuple(jsq2_runs), tolerance=0.0)
    return verdicts.compare(probe)


def comparison_rows(rows, loads, runs: dict, level: float = verdicts.FAMILY_LEVEL) -> list[dict]:
    """At each load: the difference of the mean queue lengths (memory minus local JSQ(2)), its
    statistic, degrees of freedom and two-sided p-value (:func:`difference_test` on the run means
    ``runs[load, policy]`` of :func:`~qtheory.locality.items.l_r_jiq.policy_rows`), the Holm
    threshold it is compared with (the loads whose run means pass their checks are one family at
    familywise `level`, the book's procedure: :func:`qtheory.verdicts.holm_thresholds`), and the
    verdict "lower" or "higher" (rejected, by the sign of the difference) or "not resolved" (not
    rejected, or run means the test cannot judge: ``why`` says which); a load where either policy
    has no mean is "not compared"."""
    both = [load for load in loads if reported(policy_row(rows, load, MEMORY)) and reported(policy_row(rows, load, JSQ2))]
    for load in both:
        if (load, MEMORY) not in runs or (load, JSQ2) not in runs:
            raise ParameterError(f"`runs` has no run means of both policies at load {load:g}")
    tests = {load: difference_test(runs[load, MEMORY], runs[load, JSQ2]) for load in both}
    judged = [load for load in both if tests[load] is not None and tests[load].testable]
    pvalues = [tests[load].p for load in judged]
    thresholds = dict(zip(judged, verdicts.holm_thresholds(pvalues, level))) if judged else {}
    rejected = dict(zip(judged, verdicts.holm(pvalues, level))) if judged else {}
    out = []
    nan = float("nan")
    for load in loads:
        if load not in both:
            out.append(dict(load=load, difference=nan, t=nan, df=nan, p=nan, threshold=nan, verdict="not compared",
                            why="one of the policies has no stationary mean"))
            continue
        c = tests[load]
        if c is None:
            diff = float(np.mean(runs[load, MEMORY]) - np.mean(runs[load, JSQ2]))
            out.append(dict(load=load, difference=diff, t=nan, df=nan, p=nan, threshold=nan, verdict="not resolved",
                            why="every run mean is the same on both sides, so there is no spread to test with"))
            continue
        if load not in judged:
            # the same checks as the test's (each side at half the level, Bonferroni over the two
            # samples), named by policy for the page
            why = "; ".join(check.why for check in (verdicts.check_runs(runs[load, lab], what=f"run means of {lab}",
                                                                        level=verdicts.SKEW_LEVEL / 2)
                                                    for lab in (MEMORY, JSQ2)) if check.too_few)
            out.append(dict(load=load, difference=c.difference, t=c.t, df=c.df, p=c.p, threshold=nan,
                            verdict="not resolved", why=why))
            continue
        verdict = ("lower" if c.difference < 0 else "higher") if rejected[load] else "not resolved"
        out.append(dict(load=load, difference=c.difference, t=c.t, df=c.df, p=c.p, threshold=thresholds[load],
                        verdict=verdict, why="" if rejected[load] else "not rejected by Holm's procedure"))
    return out


def comparison_summary(comparisons) -> str:
    """The page's finding on the Sec. 6 comparisons in one clause: the loads where memory is
    significantly lower, and those not judged because their run means fail the book's checks."""
    n_judged = sum(math.isfinite(c["threshold"]) for c in comparisons)
    lower = [c["load"] for c in comparisons if c["verdict"] == "lower"]
    unjudged = [c["load"] for c in comparisons if c["verdict"] == "not resolved" and not math.isfinite(c["threshold"])]
    text = (f"Significantly lower (Welch's $t$ on the run means, Holm's procedure over {n_judged} "
            f"load{'s' if n_judged != 1 else ''} at familywise {verdicts.FAMILY_LEVEL:g}) at "
            f"{('load' + ('s ' if len(lower) > 1 else ' ') + listing(lower, conjunction='and')) if lower else 'no load'}")
    if unjudged:
        text += (f"; not judged at load{'s' if len(unjudged) > 1 else ''} {listing(unjudged, conjunction='and')}, "
                 "whose run means fail the book's checks (the lines under the table say which)")
    return text


def _comparison_text(comparisons) -> str:
    n_judged = sum(math.isfinite(c["threshold"]) for c in comparisons)
    lines = []
    for c in comparisons:
        if c["verdict"] == "not compared":
            lines.append(f"- Load {c['load']:g}: not compared (one of the policies has no stationary mean).")
        elif not math.isfinite(c["threshold"]):
            lines.append(f"- Load {c['load']:g}: difference {c['difference']:+.4f}, **not resolved**: {c['why']}.")
        else:
            lines.append(f"- Load {c['load']:g}: difference {c['difference']:+.4f}, Welch $t = {c['t']:.2f}$ with "
                         f"{c['df']:.1f} degrees of freedom, ${verdicts.p_equation(c['p'])}$, against the Holm "
                         f"threshold {c['threshold']:.3g} of the {n_judged} loads compared (familywise "
                         f"{verdicts.FAMILY_LEVEL:g}): **{c['verdict']}**.")
    return "\n".join(lines)


def compute(*, seed: int, n_servers: int, loads, n_runs: int, warmup: float, horizon: float, exact_runs: int,
            exact_horizon: float) -> ItemResult:
    """L-R-memory at the notebook's parameters (see the notebook for their meaning).

    Rows: ``load, policy, stable, rho, critical_types, reason, mean_queue_length, ci_low, ci_high, se,
    type_1, type_2, type_3, drift, drift_ci_low, drift_ci_high, drifting, stationarity, runs, events``
    (as :func:`qtheory.locality.items.l_r_jiq.compute`); tables ``tiny`` (:func:`exact_check`)
    and ``comparison`` (:func:`comparison_rows`)."""
    loads = checked_loads_and_window(loads, warmup, horizon)
    check_runs(n_runs=n_runs, exact_runs=exact_runs)
    check_integer("n_servers", n_servers, low=10)
    exact_horizon = check_positive("exact_horizon", exact_horizon)
    if exact_horizon <= 2 * TINY_WARMUP:
        raise ParameterError(f"`exact_horizon` must exceed {2 * TINY_WARMUP:g}, twice the tiny graph's warm-up "
                             f"(got {exact_horizon!r})")
    params = dict(seed=seed, n_servers=n_servers, loads=loads, n_runs=n_runs, warmup=warmup, horizon=horizon,
                  exact_runs=exact_runs, exact_horizon=exact_horizon)
    tiny, claims, truncated = exact_check(seed, exact_runs, exact_horizon)
    policies = compared_policies()
    rows, runs = policy_rows(policies, loads, seed=seed, n_servers=n_servers, n_runs=n_runs, warmup=warmup,
                             horizon=horizon, return_runs=True)
    comparisons = comparison_rows(rows, loads, runs)
    labels = list(policies)
    table = Table(tuple({"load": load, **{lab: policy_row(rows, load, lab) for lab in labels},
                         "test": next(c for c in comparisons if c["load"] == load)} for load in loads),
                  {"load": lambda x: f"{x['load']:g}",
                   **{lab: (lambda x, lab=lab: cell_text(x[lab])) for lab in labels},
                   "memory − JSQ(2), Welch t": lambda x: ("—" if x["test"]["verdict"] == "not compared" else
                                                          f"{x['test']['difference']:+.4f}, t = {x['test']['t']:.2f} "
                                                          f"({x['test']['verdict']})")},
                  caption=f"Mean queue length per server ± 95% CI half-width, Sec. 6 system, irg($p^1$), "
                          f"$N$ = {n_servers}, {n_runs} runs per point; the last column: the difference of the means, "
                          f"Welch's $t$ and its verdict (Holm's procedure over the loads, familywise "
                          f"{verdicts.FAMILY_LEVEL:g})")
    tiny_table = Table(tuple(tiny),
                       {"server type": lambda x: str(x["server_type"]),
                        "exact, local JSQ(2)": lambda x: f"{x['exact_jsq2']:.5f}",
                        "exact, with memory": lambda x: f"{x['exact_memory']:.5f}",
                        "simulated, with memory": lambda x: f"{x['simulated']:.5f} [{x['ci_low']:.5f}, {x['ci_high']:.5f}]"},
                       caption=f"Tiny graph (3 dispatchers, 4 servers of 2 types): stationary mean queue length per "
                               f"server type from the exact chains (queues truncated at {TINY_BUFFER}, mass at the "
                               f"truncation {number(truncated, digits=2)}) and from {exact_runs} simulated runs (95% CIs)")
    both = [c["load"] for c in comparisons if c["verdict"] != "not compared"]
    ratios = {load: policy_row(rows, load, MEMORY)["mean_queue_length"] / policy_row(rows, load, JSQ2)["mean_queue_length"]
              for load in both}
    title = ("JSQ(2) with memory has " + " and ".join(
                f"{ratios[load]:.2f} times local JSQ(2)'s mean queue length at load {load:g}"
                for load in ([both[0], both[-1]] if len(both) > 1 else both))
             if both else "no load at which both policies have a stationary mean")
    finding = Finding(f"{ITEM}-result", ITEM, title,
                      f"{comparison_summary(comparisons)}; on the tiny graph the exact chains give "
                      f"{tiny[0]['exact_memory'] / tiny[0]['exact_jsq2']:.3f} and "
                      f"{tiny[1]['exact_memory'] / tiny[1]['exact_jsq2']:.3f} times local JSQ(2)'s mean queue length "
                      "for the two server types.", "beyond the papers")
    caption = (f"Mean queue length per server against the load for local JSQ(2) and JSQ(2) with memory on the Sec. 6 "
               f"system with an irg($p^1$) graph of $N$ = {n_servers} servers (95% CIs over {n_runs} runs, time "
               f"averages over [{warmup:g}, {horizon:g}], seed {seed}).")
    return ItemResult(ITEM, params, seed, rows, claims=claims, findings=(finding,),
                      tables={"tiny": tuple(tiny), "comparison": tuple(comparisons)},
                      displays=(tiny_table, table), text=_comparison_text(comparisons),
                      figure={"caption": caption, "policies": labels})


def draw(res: ItemResult):
    """The page's figure from ``res``: mean queue length per server against the load, one line
    per policy with 95% CI bars (a point without a stationary mean is not drawn)."""
    from ...plotting import PALETTE, new_figure
    from ...results import column, select

    fig, axes = new_figure(1, height=3.4)
    ax = axes[0][0]
    for k, lab in enumerate(res.figure["policies"]):
        sel = select(res.rows, policy=lab)
        mean, low, high = (np.array(column(sel, c), dtype=float) for c in ("mean_queue_length", "ci_low", "ci_high"))
        ax.errorbar(column(sel, "load"), mean, yerr=[mean - low, high - mean], fmt="os"[k], ls=["-", "--"][k],
                    ms=4, capsize=2, color=PALETTE[k], label=lab)
    ax.set_yscale("log")
    ax.set_xlabel(r"load $\lambda\zeta / \sum_m v_m u_m$")
    ax.set_ylabel("mean queue length per server")
    ax.legend()
    return fig
