"""R-T1, R-F4, R-P-coc, R-P-cos: Table 1 and Figure 4 of Appendix E, and the simulators checked.

:func:`compute` repeats the c.o.s.-ALIS simulations of Appendix E.1 (twelve settings at
:math:`\\lambda = 0.9`, runs started with :math:`\\lfloor 10\\,\\mathrm{Exp}(1)\\rfloor` jobs and no warm-up) and
returns one :class:`~qtheory.results.ItemResult` per manifest item:

- **R-T1**: Table 1 (mean and sd over runs of :math:`E[Q]`, :math:`\\mathrm{Var}(Q)` and the two type
  shares, averaged over time, over events and just after arrivals) beside the exact stationary
  values of the product form (6); the paper's values as claims; the comparison of every candidate
  reading of the paper's :math:`E[Q]` and :math:`\\mathrm{Var}(Q)`
  (:func:`~qtheory.redundancy.experiments.table1_comparison`) and the one finding it supports,
  judged by :func:`mean_offset_finding`.
- **R-F4**: the empirical CDF of :math:`Q` of every run against the heavy-traffic approximation
  :math:`10\\,\\mathrm{Exp}(1)` and the exact CDF where its table fits in memory; App. E.2's statements
  about Figure 4 and the tails (denser graphs closer, power-of-:math:`d` closer than circular-:math:`d`,
  setting 4 farther than settings 1 to 3, the U-shape in settings 5 and 9), each judged on the exact
  law where it is known and else on the runs with their noise (:mod:`qtheory.direction`).
- **R-P-coc**, **R-P-cos**: each simulator against the exact product form on two small systems.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as st

from ...claims import Claim, Finding
from ...direction import Difference, difference, direction_test, exact_difference
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed
from ...validation import RELAXATIONS, check_integer, check_load
from ...verdicts import compare, p_equation
from .. import model as M
from .. import productform as PF
from ..experiments import (TABLE1_PAPER, exact_setting, exact_tail, shortest_run, simulate_setting,
                           summarise_runs, table1_comparison, table1_settings, table1_verdicts)

__all__ = ["ITEMS", "SOURCE", "MEAN_OFFSET", "ALPHA", "compute", "table1_rows", "share_runs", "table1_claims",
           "arrival_cause", "arrival_readings_fit", "mean_offset_finding", "mean_offset_erratum", "table1_remarks",
           "cdf_rows", "CdfDistance", "figure4_distances", "figure4_claims", "ushape_claim", "tail50_claim",
           "simulator_check_rows", "draw_cdfs", "draw_tails", "panel_title"]

#: the manifest items :func:`compute` returns, in the order the notebook publishes them
ITEMS = ("R-T1", "R-F4", "R-P-coc", "R-P-cos")
SOURCE = "App. E.2, Table 1"
#: ID of the finding on Table 1's E[Q] (quoted on the R overview with ```{finding} R-T1-mean-offset```)
MEAN_OFFSET = "R-T1-mean-offset"
#: level of the sign test and of the joint chi-square test of a candidate reading
ALPHA = 0.05
#: the paper's number of runs per setting (its sd is over these) and their length in events (App. E.1)
PAPER_RUNS = 10
PAPER_EVENTS = 500_000
#: CDF points of R-F4: q = 0..CDF_POINTS - 1
CDF_POINTS = 200
AVERAGES = ("time", "event", "arrival")
QUANTITIES = ("mean", "var", "share_first", "share_last")


def table1_rows(settings, runs: dict, exact: dict) -> list[dict]:
    """R-T1's table: one row per (setting, quantity) with the paper's mean and sd, the exact value
    and ours (mean and sd over runs) for the three averaging conventions; the Var(Q) rows also hold
    ``pooled_mean``, the variance of Q pooled over all runs (equal weights)."""
    rows = []
    for s in settings:
        summ = {a: summarise_runs(runs[s.number], a) for a in AVERAGES}
        for q in QUANTITIES:
            paper_mean, paper_sd = TABLE1_PAPER[s.number][q]
            row = dict(setting=s.number, name=s.name, quantity=q, paper_mean=paper_mean, paper_sd=paper_sd,
                       exact=exact[s.number][q])
            for a in AVERAGES:
                m, sd = summ[a].get(q, (float("nan"), float("nan")))
                row[f"{a}_mean"], row[f"{a}_sd"] = m, sd
            if q == "var":
                mq = np.array([r.mean_jobs for r in runs[s.number]])
                row["pooled_mean"] = float(np.mean([r.var_jobs for r in runs[s.number]] + mq ** 2) - mq.mean() ** 2)
            rows.append(row)
    return rows


#: "agreement ... with the exception of setting 4" (App. E.2), read as: setting 4's relative gap of a
#: type share to its arrival probability exceeds every other setting's by at least this factor
SHARE_EXCEPTION = 2.0


def share_collapse_claim(rows: list[dict], settings) -> Claim:
    """App. E.2: the type shares :math:`E[Q_S/Q\\,1\\{Q>0\\}]` of Table 1 agree with the arrival
    probabilities :math:`p_S` (the state space collapse at high load), except in setting 4.

    Read as: the largest relative gap of the first or last type's share to :math:`p_S` is
    :data:`SHARE_EXCEPTION` times larger in setting 4 than in any other setting (a threshold on
    "some agreement" would be a number the text does not give). Judged on our simulated shares
    (time averages); the paper's printed shares are given beside them."""
    probs = {st.number: (float(st.system.probabilities[0]), float(st.system.probabilities[-1])) for st in settings}

    def gaps(column):
        out = {}
        for k, (p1, pm) in probs.items():
            first = next(r[column] for r in rows if r["setting"] == k and r["quantity"] == "share_first")
            last = next(r[column] for r in rows if r["setting"] == k and r["quantity"] == "share_last")
            out[k] = max(abs(first - p1) / p1, abs(last - pm) / pm)
        return out

    ours, paper = gaps("time_mean"), gaps("paper_mean")

    def runner_up(g):
        return max(((v, k) for k, v in g.items() if k != 4))

    def holds(g):
        return g[4] >= SHARE_EXCEPTION * runner_up(g)[0]

    others, second = runner_up(ours)
    return Claim(item="R-T1", source="App. E.2, Table 1", holds=bool(holds(ours)), key="R-T1:shares",
                 text="App. E.2: the type shares agree with the arrival probabilities $p_S$ (state space collapse), "
                      "except in setting 4",
                 evidence=f"Largest relative gap of the first or last type's share to $p_S$: setting 4 "
                          f"{ours[4]:.0%} (the paper's numbers {paper[4]:.0%}); the next largest {others:.0%} in setting "
                          f"{second} (the paper's {runner_up(paper)[0]:.0%} in setting {runner_up(paper)[1]}); "
                          f"'the exception of setting 4' read as a gap at least {SHARE_EXCEPTION:g} times any other "
                          f"setting's. The paper's own numbers {'bear' if holds(paper) else 'do not bear'} out the "
                          "same reading.")


def share_runs(settings, runs: dict) -> dict:
    """The per-run time-averaged type shares of every setting: ``{(setting, quantity): run means}``
    (``quantity`` ``share_first`` or ``share_last``), the runs the share claims carry."""
    return {(s.number, q): tuple(float(getattr(r, "ratio_" + q.split("_")[1])) for r in runs[s.number])
            for s in settings for q in ("share_first", "share_last")}


def arrival_cause(row: dict) -> str:
    """The cause of one setting's E[Q] difference in plain words, with its number: the paper counts
    the jobs just after an arrival (the arriving job included), whose stationary mean is the exact
    mean + 1 by PASTA."""
    after = row["exact"] + 1.0
    gap = after - row["paper_mean"]
    return ("the paper's $E[Q]$ counts the jobs just after an arrival, the arriving job included, where ours is "
            f"time-stationary: the exact mean + 1, {after:.3f}, is {abs(gap):.3f} {'above' if gap >= 0 else 'below'} "
            "the paper's value")


def _offset_evidence(claim: Claim) -> str:
    """An E[Q] claim's evidence: the paper's offset with its standard error and its cause; where the
    95% interval excludes 0 inside the margin, named as a significant difference inside the margin."""
    comp = compare(claim)
    d = -comp.difference                                   # the paper minus the exact mean
    text = (f"The paper is {number(abs(d), comp.se)} {'above' if d > 0 else 'below'} the exact stationary mean. "
            f"Cause: {claim.cause}.")
    if comp.within_margin and (comp.low > 0 or comp.high < 0):
        text += (f" Its 95% interval ({number(comp.low)} to {number(comp.high)}, ours minus the paper) excludes 0 but "
                 f"lies inside the margin ± {number(comp.margin)}: a significant difference inside the margin, the "
                 "same after-arrival offset as in the other settings, on a larger mean.")
    return text


def table1_claims(rows: list[dict], shares: dict, finding: str = MEAN_OFFSET, after_arrival: bool = False) -> list[Claim]:
    """The paper's Table 1 values as claims: E[Q] and Var(Q) against the exact product form (6);
    the type shares against the exact share :math:`P(Q > 0)/K` where the setting is symmetric,
    else against our time-averaged simulation, carrying its run means (`shares`, from
    :func:`share_runs`: the book's checks of the t test run on them). The E[Q] claims carry
    `finding` (one cause explains them); with `after_arrival` (the finding's arrival readings fit)
    each also names that cause with its own number (:func:`arrival_cause`), which the verdict box
    shows right after the difference."""
    out = []
    for r in rows:
        paper_se = r["paper_sd"] / np.sqrt(PAPER_RUNS)
        if r["quantity"] in ("mean", "var") and not math.isnan(r["exact"]):
            name = "E[Q]" if r["quantity"] == "mean" else "Var(Q)"
            mean = r["quantity"] == "mean"
            claim = Claim(item="R-T1", text=f"Table 1, setting {r['setting']}: {name} (paper: simulated; ours: exact)",
                          paper=float(r["paper_mean"]), paper_se=float(paper_se), paper_df=PAPER_RUNS - 1,
                          ours=float(r["exact"]), source=SOURCE, finding=finding if mean else "",
                          cause=arrival_cause(r) if mean and after_arrival else "",
                          family=f"Table 1, {name} over the settings")
            if claim.cause:
                claim = replace(claim, evidence=_offset_evidence(claim))
            out.append(claim)
        if r["quantity"].startswith("share"):
            which = r["quantity"].split("_")[1]
            if math.isnan(r["exact"]):
                ours, how = dict(ours_runs=shares[(r["setting"], r["quantity"])]), "ours: time-averaged simulation"
            else:
                ours, how = dict(ours=float(r["exact"])), "ours: exact, $P(Q > 0)/K$ of the product form (6)"
            out.append(Claim(item="R-T1", text=f"Table 1, setting {r['setting']}: share of the {which} type ({how})",
                             paper=float(r["paper_mean"]), paper_se=float(paper_se), paper_df=PAPER_RUNS - 1,
                             source=SOURCE, family="Table 1, type shares over the settings", **ours))
    return out


def _fits(v: dict, alpha: float) -> bool:
    """A candidate reading fits the paper's column when neither the sign test nor the joint
    chi-square test rejects it at level `alpha`."""
    return v["sign_test_p"] >= alpha and v["chi2_p"] >= alpha


def _against(v: dict, words: str) -> str:
    """'above <words> in k of n settings (by a to b; sign test p = .., joint chi-square p = ..)'."""
    return (f"above {words} in {v['n_above']} of {v['n_settings']} settings (differences {v['min_difference']:+.2f} to "
            f"{v['max_difference']:+.2f}; sign test ${p_equation(v['sign_test_p'])}$, joint $\\chi^2$ "
            f"${p_equation(v['chi2_p'])}$)")


#: readings of Table 1's E[Q] that count the jobs just after an arrival (the arriving job included)
ARRIVAL_READINGS = {"after arrivals": "our simulated after-arrival averages (runs started as in App. E.1, without "
                                      "warm-up)",
                    "exact + 1": "the exact stationary mean + 1 (the mean count just after an arrival, by PASTA)"}
#: the finding's title when the paper's E[Q] fit averages just after arrivals (prefixed by "best explained
#: as" when not every arrival reading fits)
AFTER_ARRIVALS = ("averages just after arrivals (the arriving job included); ours are time-stationary means")


def arrival_readings_fit(comparison: list[dict], *, alpha: float = ALPHA) -> tuple[bool, list[str], list[str]]:
    """Which readings of Table 1's E[Q] fit (:func:`mean_offset_finding`): ``(exact fits, arrival
    readings that fit, arrival readings that do not)``."""
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"`alpha` must be in (0, 1) (got {alpha!r})")
    verdicts = {v["estimator"]: v for v in table1_verdicts(comparison) if v["quantity"] == "mean"}
    if "exact" not in verdicts:
        raise ParameterError("`comparison` holds no E[Q] row against the exact value (quantity 'mean', "
                             "estimator 'exact')")
    readings = [name for name in ARRIVAL_READINGS if name in verdicts]
    fitting = [name for name in readings if _fits(verdicts[name], alpha)]
    return _fits(verdicts["exact"], alpha), fitting, [name for name in readings if name not in fitting]


def mean_offset_finding(comparison: list[dict], *, alpha: float = ALPHA) -> Finding:
    """Which averaging convention Table 1's :math:`E[Q]` fit (App. E.2), from
    :func:`~qtheory.redundancy.experiments.table1_comparison` rows.

    A reading *fits* when the two-sided sign test of "paper above the reading" and the joint
    chi-square test of the z-scores (:func:`~qtheory.redundancy.experiments.table1_verdicts`) both
    keep it at level `alpha`. The label is ``agrees`` when the exact time-stationary mean of the
    product form (6) fits. Otherwise it is ``differs``, titled by the reading that fits: the count
    just after an arrival, the arriving job included (our simulated after-arrival averages, or the
    exact mean + 1 that PASTA gives; "best explained as" when only one of them fits), else no
    reading tried. The text opens with the mean difference from the exact mean, its standard
    error (the paper's, over its runs; the exact side has none) and the cause.
    """
    exact_fits, fitting, rest = arrival_readings_fit(comparison, alpha=alpha)
    verdicts = {v["estimator"]: v for v in table1_verdicts(comparison) if v["quantity"] == "mean"}
    exact = verdicts["exact"]
    rows = [c for c in comparison if c["quantity"] == "mean" and c["estimator"] == "exact"]
    mean_gap = float(np.mean([c["difference"] for c in rows]))
    # the exact side has no error: each row's standard error is the paper's, |difference / z|
    se = float(np.sqrt(sum((c["difference"] / c["z"]) ** 2 for c in rows if c["z"])) / len(rows))
    tests = (f"{_against(exact, 'the exact stationary mean of the product form (6)')}; the differences are "
             f"{exact['min_z']:+.1f} to {exact['max_z']:+.1f} standard errors of its {PAPER_RUNS}-run mean")
    if exact_fits:
        return Finding(MEAN_OFFSET, "R-T1", "Table 1's $E[Q]$ are time-stationary means",
                       f"The paper's $E[Q]$ is {tests}. Neither test rejects the stationary mean at level {alpha:g}.",
                       "agrees", SOURCE)
    size = (f"The paper's $E[Q]$ is {'above' if mean_gap > 0 else 'below'} the exact stationary mean of the product "
            f"form (6) by {number(abs(mean_gap), se)} on average over the {len(rows)} settings")
    if fitting:
        title = f"Table 1's $E[Q]$ are {'' if not rest else 'best explained as '}{AFTER_ARRIVALS}"
        plus_one = [c for c in comparison if c["quantity"] == "mean" and c["estimator"] == "exact + 1"]
        text = size + (": it counts the jobs just after an arrival, the arriving job included, where the exact mean is "
                       "time-stationary")
        if plus_one:
            d = sorted(-c["difference"] for c in plus_one)       # exact + 1 minus the paper
            where = "above" if d[0] >= 0 else ("below" if d[-1] <= 0 else "from")
            text += (f" (the exact mean + 1, the mean count just after an arrival by PASTA, lies {abs(d[0]):.2f} to "
                     f"{abs(d[-1]):.2f} {where} the paper's value in every setting)" if where != "from" else
                     f" (the exact mean + 1, the mean count just after an arrival by PASTA, lies {d[0]:+.2f} to "
                     f"{d[-1]:+.2f} from the paper's value)")
        text += (f". In detail, the paper is {tests}. It fits the count just after each arrival: the paper is "
                 + "; ".join(_against(verdicts[name], ARRIVAL_READINGS[name]) for name in fitting) + ".")
        if rest:
            text += (f" Not kept at level {alpha:g}: the paper is "
                     + "; ".join(_against(verdicts[name], ARRIVAL_READINGS[name]) for name in rest) + ".")
        if "time average" in verdicts:
            # our runs start as the paper's (no warm-up): how far their time averages fall below the exact mean
            gap = np.mean([c["difference"] for c in comparison if c["quantity"] == "mean" and c["estimator"] == "exact"]) \
                - np.mean([c["difference"] for c in comparison
                           if c["quantity"] == "mean" and c["estimator"] == "time average"])
            text += (f" In our runs, started the same way without warm-up, the time averages are {gap:+.2f} from "
                     "the exact mean on average: a start below the stationary mean lowers a run's average, which can "
                     "explain why the paper lies a little below the exact mean + 1.")
    else:
        title = "Table 1's $E[Q]$ are not time-stationary means; no averaging convention tried fits"
        text = (size + f"; no averaging convention tried explains it. In detail, the paper is {tests}. No reading "
                f"tried is kept by both tests at level {alpha:g}: the paper is "
                + "; ".join(_against(v, ARRIVAL_READINGS.get(name, f"our simulated {name}s"))
                            for name, v in verdicts.items() if name != "exact") + ".")
    return Finding(MEAN_OFFSET, "R-T1", title, text, "differs", SOURCE)


def mean_offset_erratum(rows: list[dict], finding: Finding) -> Claim:
    """The erratum "Table 1's E[Q] are time-stationary means", worded by `finding`: its title is the
    verdict, its text (the sign tests) is not repeated."""
    mean_rows = [r for r in rows if r["quantity"] == "mean" and not math.isnan(r["exact"])]
    paper = float(np.mean([r["paper_mean"] for r in mean_rows]))
    exact = float(np.mean([r["exact"] for r in mean_rows]))
    return Claim(item="R-T1", text="Table 1's E[Q] are time-stationary means (paper vs exact product form (6), "
                                   f"all {len(mean_rows)} settings)",
                 category="erratum", source=SOURCE, paper=paper, ours=exact, verdict=finding.title,
                 evidence=f"mean over the {len(mean_rows)} settings: paper {paper:.3f}, exact {exact:.3f}; the sign tests "
                          "of every reading tried are in the finding's text",
                 finding=finding.id)


def cdf_rows(settings, runs: dict, lam: float, tails: dict | None = None) -> list[dict]:
    """R-F4's rows: the CDF of Q at q = 0..199 of every run, the exact CDF (where its table fits;
    one minus the exact tails `tails` by setting number, computed when not given) and the
    heavy-traffic approximation :math:`P(Q \\le q) = 1 - e^{-(1-\\lambda)(q+1)}`."""
    qs = np.arange(CDF_POINTS)
    rows = []
    for s in settings:
        for k, r in enumerate(runs[s.number]):
            cdf = np.cumsum(r.count_distribution)
            for q in qs:
                rows.append(dict(setting=s.number, method="simulation", run=k, q=int(q), cdf=float(cdf[q])))
        tail = tails.get(s.number) if tails is not None else exact_tail(s.system, lam, CDF_POINTS - 1)
        if tail is not None:
            for q in qs:
                rows.append(dict(setting=s.number, method="exact", run=-1, q=int(q), cdf=float(1.0 - tail[q])))
        for q in qs:
            rows.append(dict(setting=s.number, method="heavy traffic", run=-1, q=int(q),
                             cdf=float(1 - np.exp(-(1 - lam) * (q + 1)))))
    return rows


def _check_systems(settings):
    return [("M-model, p12 = 7/12, lam = 0.6", M.m_model(7 / 12), 0.6),
            ("setting 3 (N = 4 circular, p = .4/.1), lam = 0.9", settings[2].system, 0.9)]


def simulator_check_rows(mechanism: str, systems, check_runs: int, check_events: int, seed: int) -> list[dict]:
    """R-P-coc / R-P-cos: simulated E[Q], Var(Q), P(Q = 0..8) (and E[Q_S] for c.o.c.) of each
    small system against the product form (4) (c.o.c.) or (6) (c.o.s.), with 95% t intervals and z."""
    rows = []
    for si, (name, sy, lm) in enumerate(systems):
        rr = simulate_setting(sy, lm, check_runs, check_events, child_seed(seed, "check", mechanism, si),
                              mechanism=mechanism, initial_scale=0.0, warmup_events=10000, hist_max=60,
                              desc=f"{mechanism} check")
        tq = st.t.ppf(0.975, check_runs - 1)

        def add(q, samples, ex):
            x = np.asarray(samples)
            m, se = x.mean(), x.std(ddof=1) / np.sqrt(x.size)
            rows.append(dict(system=name, mechanism=mechanism, quantity=q, simulation=m, ci_low=m - tq * se,
                             ci_high=m + tq * se, exact=ex, z=(m - ex) / se))
        add("E[Q]", [r.mean_jobs for r in rr], PF.total_jobs_moments(sy, lm, mechanism).mean)
        add("Var(Q)", [r.var_jobs for r in rr], PF.total_jobs_moments(sy, lm, mechanism).variance)
        pmf = PF.total_jobs_pmf(sy, lm, 8, mechanism)
        for q in range(9):
            add(f"P(Q={q})", [r.count_distribution[q] for r in rr], pmf[q])
        if mechanism == "coc":
            for k, m in enumerate(PF.type_moments(sy, lm)):
                add(f"E[Q_{sy.labels[k]}]", [r.type_means[k] for r in rr], m.mean)
    return rows


def panel_title(number: int, name: str) -> str:
    """'3: $N=4$, circular $d=2$' (long names on two lines) for the 3 x 4 grids of R-F4."""
    name = re.sub(r"\b([Ndp])=(\([^)]*\)|[^,]+)", r"$\1=\2$", name)
    return f"{number}: " + name.replace(", $p=", ",\n$p=")


def _fmt(m, sd, scale=1.0):
    return "-" if np.isnan(m) else f"{m * scale:.3f} ({sd * scale:.3f})"


def _z_paper(r):
    """(paper - exact) in standard errors of the paper's mean over its 10 runs."""
    if np.isnan(r["exact"]) or np.isnan(r["paper_sd"]) or r["paper_sd"] == 0:
        return "-"
    return f"{(r['paper_mean'] - r['exact']) / (r['paper_sd'] / np.sqrt(PAPER_RUNS)):+.1f}"


def _g(x):
    """A statistic of the verdict table: three significant digits, powers of ten as the book writes them."""
    return number(x) if isinstance(x, float) else str(x)


def _table1_displays(rows, diff, verdicts, n_runs) -> list[Table]:
    labels = {"mean": "$E[Q]$", "var": r"$\mathrm{Var}(Q)$", "share_first": "share of the first type (× 10⁻²)",
              "share_last": "share of the last type (× 10⁻²)"}
    out = []
    for q, scale in (("mean", 1), ("var", 1), ("share_first", 100), ("share_last", 100)):
        out.append(Table(tuple(r for r in rows if r["quantity"] == q), {
            "setting": lambda r: f"{r['setting']}: {r['name']}",
            "paper, mean (sd)": lambda r, s=scale: _fmt(r["paper_mean"], r["paper_sd"], s),
            "ours, time avg": lambda r, s=scale: _fmt(r["time_mean"], r["time_sd"], s),
            "ours, event avg": lambda r, s=scale: _fmt(r["event_mean"], r["event_sd"], s),
            "ours, after arrivals": lambda r, s=scale: _fmt(r["arrival_mean"], r["arrival_sd"], s),
            "exact (6)": lambda r, s=scale: "-" if np.isnan(r["exact"]) else f"{r['exact'] * s:.3f}",
            "paper - exact (SE)": _z_paper,
        }, caption=f"Table 1, {labels[q]}: the paper's value beside ours (mean and sd over {n_runs} runs; "
                   f"the paper's sd is over its 10 runs)"))
    out.append(Table.from_values({f"ours: {k}" + (" (product form (6))" if k == "exact" else " average"): f"{v:+.3f}"
                        for k, v in diff.items()},
                       "Mean over the 12 settings of the paper's $E[Q]$ minus ours", ("ours", "paper minus ours")))
    out.append(Table(tuple(verdicts), {
        "quantity": lambda v: {"mean": "$E[Q]$", "var": r"$\mathrm{Var}(Q)$"}.get(v["quantity"], v["quantity"]),
        "candidate": lambda v: v["estimator"],
        "paper above": lambda v: f"{v['n_above']} of {v['n_settings']}",
        "sign test p": lambda v: _g(v["sign_test_p"]),
        "paper - candidate": lambda v: f"{_g(v['min_difference'])} to {_g(v['max_difference'])}",
        "z": lambda v: f"{_g(v['min_z'])} to {_g(v['max_z'])}",
        r"joint $\chi^2$ p": lambda v: _g(v["chi2_p"]),
    }, caption=r"Candidate readings of Table 1's $E[Q]$ and $\mathrm{Var}(Q)$: settings where the paper is above the "
               "candidate, two-sided sign test, range of paper $-$ candidate and of $z$ (over the combined standard "
               r"error of the two means), joint $\chi^2$ $p$-value of the $z$."))
    return out


#: the share quantities of Table 1 in words
SHARE_WORDS = {"share_first": "share of the first type", "share_last": "share of the last type"}


def _settings(numbers) -> str:
    """'setting 4', 'settings 1, 2 and 3', 'no setting' (prose, not a Python list)."""
    numbers = list(numbers)
    if not numbers:
        return "no setting"
    return f"setting{'s' if len(numbers) > 1 else ''} {listing(numbers, conjunction='and')}"


def table1_remarks(rows, comparison, verdicts, n_runs, n_events) -> str:
    """The page's remarks beyond the finding (computed from the data): run-to-run sd, Var(Q), shares."""
    mean_rows = [r for r in rows if r["quantity"] == "mean"]
    var_comp = [c for c in comparison if c["quantity"] == "var" and c["estimator"] == "exact"]
    var_above = [c["setting"] for c in var_comp if c["difference"] > 0]
    z8 = np.array([c["z"] for c in var_comp if c["setting"] <= 8])
    zmax = max(abs(c["z"]) for c in var_comp)
    best_var = max((v for v in verdicts if v["quantity"] == "var"), key=lambda v: v["chi2_p"])
    # the sd over runs of a long run's mean falls as one over the root of its length: ours scaled to the paper's runs
    scale = math.sqrt(n_events / PAPER_EVENTS)
    sd_small = [r["time_sd"] * scale for r in mean_rows if r["setting"] <= 8]
    sd_paper_small = [r["paper_sd"] for r in mean_rows if r["setting"] <= 8]
    share_off = [(r["setting"], r["quantity"], r["paper_mean"], r["exact"]) for r in rows
                 if r["quantity"].startswith("share") and not np.isnan(r["exact"])
                 and abs(r["paper_mean"] - r["exact"]) > 3 * r["paper_sd"]]
    s4 = next(r for r in rows if r["setting"] == 4 and r["quantity"] == "share_last")
    return "".join([
        f"**Beyond the verdict above** ({n_runs} runs of {n_events:,} events per setting; every number is computed "
        "from the data).\n\n",
        f"- *Run-to-run sd* of $E[Q]$ in settings 1-8, for runs of the paper's length ({PAPER_EVENTS:,} events; ours "
        f"scaled by the square root of {n_events:,} / {PAPER_EVENTS:,}): ours {min(sd_small):.2f}-{max(sd_small):.2f}, "
        f"the paper's {min(sd_paper_small):.2f}-{max(sd_paper_small):.2f}.\n",
        f"- *$\\mathrm{{Var}}(Q)$*: the largest difference of a single setting from the exact variance is "
        f"{zmax:.1f} standard errors, but the paper is above it in {_settings(var_above)}"
        + (f"; in settings 1-8 by {z8.min():.1f}-{z8.max():.1f} of its standard errors each (the joint tests of the "
           "settings are in the verdict box)" if z8.size else "")
        + ". A shift of the averaging epoch does not change a variance; of the candidates in the table the best joint "
        f"fit is '{best_var['estimator']}' ($\\chi^2$ $p$ = {number(best_var['chi2_p'], digits=2)}). This pattern is not explained "
        "by the finding on $E[Q]$.\n",
        "- *Shares* $E[Q_S/Q\\,1\\{Q>0\\}]$ (symmetric settings, exact value $P(Q>0)/K$): "
        + ("; ".join(f"setting {s}, {SHARE_WORDS[q]}: paper {p_:.5f} vs exact {e:.5f}" for s, q, p_, e in share_off)
           + " lie more than three per-run sds away; the others agree" if share_off else
           "all within three per-run sds of the exact value")
        + f". Setting 4, type 'full' (not symmetric): time {s4['time_mean']:.3f}, events {s4['event_mean']:.3f}, "
        f"after arrivals {s4['arrival_mean']:.3f}, paper {s4['paper_mean']:.3f}.\n"])


def _check(seed, lam, n_runs, n_events, hist_max, check_runs, check_events):
    check_integer("seed", seed, low=0)
    # below 1, the critical load of the twelve settings (identical servers of speed 1, all locally stable)
    check_load("lam", lam, meaning="the arrival rate per server of rate 1 (every setting's critical load is 1)")
    check_integer("n_runs", n_runs, low=2)
    # a run shorter than a hundred relaxation times of Q (about (1 - lam)^-2 events in heavy
    # traffic) starts empty and ends before it forgets it: its averages would judge nothing
    shortest = shortest_run(lam)
    for name, value in (("n_events", n_events), ("check_events", check_events)):
        if check_integer(name, value, low=1) < shortest:
            raise ParameterError(f"`{name}` must be at least {shortest:,} at `lam` = {lam:g}: {RELAXATIONS} relaxation "
                                 f"times (1 - lam)^-2 of the queue, which starts empty (got {value:,})")
    check_integer("hist_max", hist_max, low=CDF_POINTS - 1)
    check_integer("check_runs", check_runs, low=2)


def compute(*, seed: int, lam: float, n_runs: int, n_events: int, hist_max: int, check_runs: int,
            check_events: int) -> dict[str, ItemResult]:
    """R-T1, R-F4, R-P-coc and R-P-cos at the notebook's parameters, keyed by manifest ID.

    Parameters
    ----------
    seed : int
        Root seed: setting k's runs use ``child_seed(seed, "setting", k)``, the simulator checks
        ``child_seed(seed, "check", mechanism, i)``.
    lam : float
        Per-server arrival rate (App. E.1: 0.9).
    n_runs, n_events : int
        Runs per setting (>= 2: the table reports the sd over runs) and events per run.
    hist_max : int
        Largest count of the recorded distribution of Q (>= 199: R-F4 draws q = 0..199).
    check_runs, check_events : int
        Runs (>= 2) and events per run of the simulator checks.
    """
    _check(seed, lam, n_runs, n_events, hist_max, check_runs, check_events)
    params = dict(seed=seed, lam=lam, n_runs=n_runs, n_events=n_events, hist_max=hist_max,
                  check_runs=check_runs, check_events=check_events)
    settings = table1_settings()
    runs, exact = {}, {}
    for s in settings:
        runs[s.number] = simulate_setting(s.system, lam, n_runs, n_events, child_seed(seed, "setting", s.number),
                                          hist_max=hist_max, desc=f"setting {s.number}")
        exact[s.number] = exact_setting(s, lam)
    rows = table1_rows(settings, runs, exact)
    comparison = table1_comparison(rows, n_runs)
    verdicts = table1_verdicts(comparison)
    finding = mean_offset_finding(comparison)
    exact_fits, fitting, _ = arrival_readings_fit(comparison)
    claims = [*table1_claims(rows, share_runs(settings, runs), finding.id, after_arrival=bool(fitting) and not exact_fits),
              mean_offset_erratum(rows, finding), share_collapse_claim(rows, settings)]
    diff = {a: float(np.mean([r["paper_mean"] - r[f"{a}_mean"] for r in rows if r["quantity"] == "mean"]))
            for a in AVERAGES}
    diff["exact"] = float(np.mean([r["paper_mean"] - r["exact"] for r in rows if r["quantity"] == "mean"]))
    caption = (rf"mean and variance of the total number of jobs $Q$ in the twelve settings of Table 1 at $\lambda = {lam:g}$: "
               rf"the paper's values (95% CI of its mean over 10 runs of 500,000 events), ours from {n_runs} simulation "
               rf"runs of {n_events:,} events each with three averaging conventions (time, event, arrival epochs; 95% CI), and the exact value "
               "of the product form (6) where it can be computed")
    table = ItemResult("R-T1", params, seed, rows, claims=claims, findings=(finding,),
                       tables={"estimators": comparison}, summary=dict(paper_minus_ours_mean_jobs=diff),
                       displays=_table1_displays(rows, diff, verdicts, n_runs),
                       text=table1_remarks(rows, comparison, verdicts, n_runs, n_events),
                       figure=dict(caption=caption, t_quantile=float(st.t.ppf(0.975, n_runs - 1)),
                                   paper_t_quantile=float(st.t.ppf(0.975, PAPER_RUNS - 1)), paper_runs=PAPER_RUNS))
    out = {"R-T1": table, "R-F4": _cdf_item(settings, runs, params, seed, lam, n_runs, n_events)}
    systems = _check_systems(settings)
    for mech in ("coc", "cos"):
        chk = simulator_check_rows(mech, systems, check_runs, check_events, seed)
        worst = max(abs(r["z"]) for r in chk)
        mech_name = "cancel-on-completion" if mech == "coc" else "cancel-on-start"
        out[f"R-P-{mech}"] = ItemResult(
            f"R-P-{mech}", params, seed, chk, summary=dict(max_abs_z=worst, n_quantities=len(chk)),
            displays=(Table.from_values({"quantities compared": f"{len(chk)}",
                               "largest $|z|$ between simulation and exact": f"{worst:.2f}"}, f"{mech_name} simulation"),),
            figure=dict(systems=[name for name, _, _ in systems], titles=[
                "M-model,\n" + r"$p_{\{1,2\}} = 7/12$, $\lambda = 0.6$",
                "setting 3,\n" + r"$N = 4$ circular, $p = .4/.1$, $\lambda = 0.9$"],
                mechanism="c.o.c." if mech == "coc" else "c.o.s.", caption=(
                f"{mech_name} simulation against the exact product form: distribution of the total number of jobs in "
                f"the M-model ($p_{{\\{{1,2\\}}}} = 7/12$, $\\lambda = 0.6$) and setting 3 ($\\lambda = 0.9$), {check_runs} runs "
                f"of {check_events:,} events each (95% CI)")))
    return out


#: App. E.2's pairs (sparser, denser) of Figure 4: larger d, same N and family
DENSER_PAIRS = ((5, 7), (6, 8), (9, 11), (10, 12))
#: the settings whose tails App. E.2 says have a U-shape
USHAPE_SETTINGS = (5, 9)
#: knots of the windows on which a simulated U-shape is read: App. E.2 trusts the simulated tails up to
#: about 50 jobs ("only around 50 jobs ... the tail probabilities will become less accurate"), so three
#: windows of 16 jobs below 50
USHAPE_KNOTS = (0, 16, 32, 48)
#: the exact second differences of -log P(Q > q) (tails summed from the top of the product form's pmf, relative
#: accuracy about 1e-13) count as convex down to minus this
CONVEXITY_TOLERANCE = 1e-9
F4_SOURCE = "App. E.2, Fig. 4"


@dataclass(frozen=True)
class CdfDistance:
    r"""The distance of one setting's law of :math:`Q` from :math:`Q' = 10\,\mathrm{Exp}(1)`: the largest
    vertical gap :math:`\sup_x |P(Q \le x) - P(Q' \le x)|` between the two distribution functions,
    as Figure 4 draws them (on :math:`[q, q+1)` the step of :math:`Q`'s is farthest from the rising
    exponential at one end or the other; :math:`q \le 199`).

    Attributes
    ----------
    exact : float or None
        From the exact CDF of the product form (6), where its table fits (:math:`N \le 10`).
    simulated : float
        From the mean of the runs' empirical CDFs.
    runs : tuple of float
        Each run's gap at the point where the mean CDF is farthest from :math:`Q'` (with the sign
        that makes their mean ``simulated``): the run means a comparison judges.
    where : int
        That point :math:`q` (simulated).
    """

    exact: float | None
    simulated: float
    runs: tuple[float, ...]
    where: int

    @property
    def value(self) -> float:
        """The distance a statement is judged on: exact where known, else simulated."""
        return self.simulated if self.exact is None else self.exact

    def describe(self) -> str:
        if self.exact is not None:
            return f"{self.exact:.3f}"
        x = np.asarray(self.runs)
        return number(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)))


def _approximation_cdf(lam: float, x) -> np.ndarray:
    return 1.0 - np.exp(-(1.0 - lam) * np.asarray(x, dtype=float))


def _farthest(cdf: np.ndarray, lam: float) -> tuple[float, int, int, float]:
    """``(distance, q, shift, sign)``: the largest :math:`|P(Q \\le q) - P(Q' \\le q + shift)|` over
    q and shift 0, 1 (the two ends of the step at q), and the sign of that difference."""
    q = np.arange(len(cdf))
    best = (-1.0, 0, 0, 1.0)
    for shift in (0, 1):
        d = cdf - _approximation_cdf(lam, q + shift)
        k = int(np.argmax(np.abs(d)))
        if abs(d[k]) > best[0]:
            best = (float(abs(d[k])), k, shift, 1.0 if d[k] >= 0 else -1.0)
    return best


def figure4_distances(settings, runs: dict, lam: float, tails: dict | None = None) -> dict[int, CdfDistance]:
    """:class:`CdfDistance` of every setting (by number), on :math:`q = 0, \\dots, 199`; `tails` as in
    :func:`ushape_claim` (the exact CDF is one minus the tail)."""
    if tails is None:
        tails = {s.number: exact_tail(s.system, lam, CDF_POINTS - 1) for s in settings}
    out = {}
    for s in settings:
        per_run = np.array([np.cumsum(r.count_distribution)[:CDF_POINTS] for r in runs[s.number]])
        distance, q, shift, sign = _farthest(per_run.mean(axis=0), lam)
        at = float(_approximation_cdf(lam, q + shift))
        ex = tails.get(s.number)
        out[s.number] = CdfDistance(None if ex is None else _farthest(1.0 - ex, lam)[0], distance,
                                    tuple(float(x) for x in sign * (per_run[:, q] - at)), q)
    return out


def _stated(larger: CdfDistance, smaller: CdfDistance, name: str) -> Difference:
    """The stated sign "`larger` is farther from the approximation than `smaller`": exact when both
    are, else from the runs (the exact side, if any, as a constant). Two simulated settings (separate
    seeds, as many runs) are paired by index, so that the skewness checked is the one that reaches
    the statistic, that of the differences (:func:`qtheory.direction.difference`)."""
    if larger.exact is not None and smaller.exact is not None:
        return exact_difference(larger.exact - smaller.exact, name=name)
    if larger.exact is None and smaller.exact is None:
        return difference(larger.runs, smaller.runs, name=name, by_index=len(larger.runs) == len(smaller.runs))
    if larger.exact is None:
        return difference(np.asarray(larger.runs) - smaller.exact, name=name)
    return difference(larger.exact - np.asarray(smaller.runs), name=name)


def _direction_record(parts, lead: str, after: str = "", **fields) -> Claim:
    """A statement of stated signs as a record: exact parts only, a deterministic claim (``holds``
    when every difference is above 0); with a simulated part, a tested record of
    :func:`qtheory.direction.direction_test` (its p-value joins the page's Holm family). The
    evidence opens with `lead` (the sizes the statement is about) and ends with `after`."""
    test = direction_test(parts)
    if all(d.exact for d in parts):
        return Claim(holds=bool(test.resolved), evidence=f"{lead} Exact differences, each stated above 0: "
                     + "; ".join(d.describe() for d in parts) + "." + after, **fields)
    return Claim(p_value=float(test.p), resolved=bool(test.resolved), assumption_failure=test.why_not,
                 evidence=f"{lead} {test.describe()}{after}", **fields)


def _named(distances: dict[int, CdfDistance], keys) -> str:
    return ", ".join(f"{distances[k].describe()} (setting {k}{'' if distances[k].exact is not None else ', simulated'})"
                     for k in keys)


def figure4_claims(distances: dict[int, CdfDistance]) -> tuple[Claim, ...]:
    r"""App. E.2's three statements about Figure 4, on each setting's distance from
    :math:`10\,\mathrm{Exp}(1)` (:class:`CdfDistance`, by setting number; exact where the product form's
    table fits, else the runs with their noise): the approximation fits better on denser graphs (each
    pair of :data:`DENSER_PAIRS`), power-of-:math:`d` slightly better than circular-:math:`d` (settings
    5 and 6), setting 4 worse than settings 1 to 3. Each is a conjunction of stated signs
    (:func:`qtheory.direction.direction_test`)."""
    what = ("Distance of the law of $Q$ from $10\\,\\mathrm{Exp}(1)$ (the largest vertical gap between the two "
            "distribution functions; exact where the product form's table fits, else the mean of the runs' and its "
            "standard error): ")
    fields = dict(item="R-F4", source=F4_SOURCE)
    denser = [_stated(distances[a], distances[b], name=f"setting {a}'s distance minus setting {b}'s")
              for a, b in DENSER_PAIRS]
    pod = [_stated(distances[6], distances[5], name="setting 6's distance minus setting 5's")]
    four = [_stated(distances[4], distances[k], name=f"setting 4's distance minus setting {k}'s") for k in (1, 2, 3)]
    return (
        _direction_record(denser, what + "; ".join(f"{_named(distances, (a, b))}" for a, b in DENSER_PAIRS) + ".",
                          text="Fig. 4: the heavy-traffic approximation fits better on denser graphs (larger $d$: "
                               "settings 7, 8 against 5, 6 and 11, 12 against 9, 10)", **fields),
        _direction_record(pod, what + _named(distances, (5, 6)) + ".",
                          text="Fig. 4: power-of-$d$ closer to the approximation than circular-$d$ (settings 5 and 6)",
                          **fields),
        _direction_record(four, what + _named(distances, (4, 1, 2, 3)) + ".",
                          text="Fig. 4: setting 4 deviates from the approximation more than settings 1 to 3", **fields))


def _slopes(tail: np.ndarray, knots=USHAPE_KNOTS) -> np.ndarray:
    """Slopes of :math:`-\\log P(Q > q)` over the windows between consecutive `knots`, from the tail
    `tail` (:math:`P(Q > q)`, q = 0, 1, ...; positive at the knots)."""
    k = np.asarray(knots)
    return np.diff(-np.log(tail[k])) / np.diff(k)


def _bends(tail_runs: np.ndarray, knots=USHAPE_KNOTS) -> tuple[np.ndarray, np.ndarray]:
    """The increases of the window slopes of :math:`-\\log \\bar T(q)`, :math:`\\bar T` the mean of the
    runs' tails `tail_runs` (runs x q), and each run's linearised value of them (the delta method: a
    run's tails enter through the derivative at the mean tail, so each value is a mean of that run's
    own time averages, and their mean is the estimate itself). Returns ``(estimates, runs x
    increases)``."""
    k = np.asarray(knots)
    mean_tail = tail_runs[:, k].mean(axis=0)
    width = np.diff(k).astype(float)
    # slope_j = (G_{j+1} - G_j) / w_j with G = -log T; increase_i = slope_{i+1} - slope_i
    slope_coef = np.zeros((len(k) - 1, len(k)))
    for j, w in enumerate(width):
        slope_coef[j, j], slope_coef[j, j + 1] = -1.0 / w, 1.0 / w
    coef = np.diff(slope_coef, axis=0)                     # increases x knots, on G
    estimate = coef @ -np.log(mean_tail)
    # dG/dT = -1/T: a run's deviation of T at the knots moves each increase by coef @ (-(T_i - mean) / mean)
    runs = estimate + (-(tail_runs[:, k] - mean_tail) / mean_tail) @ coef.T
    return estimate, runs


def ushape_claim(settings, runs: dict, lam: float, tails: dict | None = None) -> Claim:
    r"""App. E.2: in settings 5 and 9 (:data:`USHAPE_SETTINGS`), :math:`-\log P(Q > q)` has a "U-shape":
    unlike the straight line :math:`(1-\lambda)(q+1)` of :math:`10\,\mathrm{Exp}(1)`, it bends upward,
    as the many-server tail of JSQ(:math:`d`) does.

    Read as: :math:`-\log P(Q > q)` is convex in :math:`q`. Where the exact tail is known (the product
    form's table fits, :math:`N \le 10`) every second difference on :math:`q = 1, \dots, 198` must be at
    least :math:`-` :data:`CONVEXITY_TOLERANCE` (rounding), and the slopes on the windows between
    :data:`USHAPE_KNOTS` must rise (exact differences). Elsewhere (:math:`N = 20`) the simulated tails
    cannot show a second difference of one job; the rise of the window slopes is judged with its noise
    (each run's linearised value, :func:`_bends`). One tested record
    (:func:`qtheory.direction.direction_test`) joins the page's family when a part is simulated.
    `tails` maps setting numbers to their exact tails on :math:`q = 0, \dots, 199`
    (:func:`~qtheory.redundancy.experiments.exact_tail`, None where unknown; computed when not given).
    """
    k = np.asarray(USHAPE_KNOTS)
    windows = [f"${a} \\le q \\le {b}$" for a, b in zip(k[:-1], k[1:])]
    parts, described, why = [], [], ""
    if tails is None:
        tails = {s.number: exact_tail(s.system, lam, CDF_POINTS - 1) for s in settings}
    exact_convex = {n: float(np.diff(-np.log(t), 2).min()) for n, t in tails.items() if t is not None and np.all(t > 0)}
    first_slope = {}
    for s in settings:
        tail_runs = np.array([1.0 - np.cumsum(r.count_distribution)[:CDF_POINTS] for r in runs[s.number]])
        tail = tails.get(s.number)
        if tail is not None and np.all(tail[k] > 0):
            first_slope[s.number] = float(_slopes(tail)[0])
        elif np.all(tail_runs[:, k].mean(axis=0) > 0):
            first_slope[s.number] = float(_slopes(tail_runs.mean(axis=0))[0])
        if s.number not in USHAPE_SETTINGS:
            continue
        if tail is not None and np.all(tail > 0):
            slopes = _slopes(tail)
            rises = np.diff(slopes)
            for i, rise in enumerate(rises):
                parts.append(exact_difference(rise, name=f"setting {s.number}: slope on {windows[i + 1]} minus on "
                                                          f"{windows[i]}"))
            worst = exact_convex[s.number]
            if worst < -CONVEXITY_TOLERANCE:
                parts.append(exact_difference(worst, name=f"setting {s.number}: smallest second difference on "
                                                          "$1 \\le q \\le 198$"))
            described.append(
                f"Setting {s.number} (exact tail): slopes " + ", ".join(f"{x:.4f}" for x in slopes) + " on "
                + ", ".join(windows) + f"; every second difference on $1 \\le q \\le 198$ is at least {number(worst)} "
                f"({'convex' if worst >= -CONVEXITY_TOLERANCE else 'not convex'} within the rounding tolerance "
                f"{number(CONVEXITY_TOLERANCE)})")
            continue
        if not np.all(tail_runs[:, k].mean(axis=0) > 0):
            why = (f"setting {s.number}: no run exceeds $q = {int(k[-1])}$, so its tail cannot be read on "
                   + ", ".join(windows))
            continue
        estimate, per_run = _bends(tail_runs)
        slopes = _slopes(tail_runs.mean(axis=0))
        for i in range(len(estimate)):
            parts.append(difference(per_run[:, i], name=f"setting {s.number}: slope on {windows[i + 1]} minus on "
                                                        f"{windows[i]}"))
        described.append(f"Setting {s.number} (mean tail of {tail_runs.shape[0]} runs): slopes "
                         + ", ".join(f"{x:.4f}" for x in slopes) + " on " + ", ".join(windows))
    lead = ("Read as: $-\\log P(Q > q)$ is convex in $q$ (it bends upward; the line of $10\\,\\mathrm{Exp}(1)$ has the "
            f"constant slope {1 - lam:g}). " + "; ".join(described) + ".")
    convex = sorted(n for n, v in exact_convex.items() if v >= -CONVEXITY_TOLERANCE)
    remark = ""
    if len(convex) > 1:
        remark += (f" Convexity alone does not single out settings 5 and 9: the exact tails of {_settings(convex)} are "
                   f"convex{'' if len(convex) < len(exact_convex) else ', all that are known'}.")
    if first_slope:
        remark += (" For comparison, the slope on " + windows[0] + " by setting: "
                   + ", ".join(f"{first_slope[n]:.3f} (setting {n})" for n in sorted(first_slope))
                   + f"; the line's is {1 - lam:g}.")
    fields = dict(item="R-F4", source="App. E.2, Fig. 4", key="R-F4:ushape",
                  text="App. E.2: $-\\log P(Q > q)$ has a U-shape (it bends upward, convex in $q$) in settings 5 and 9, "
                       "unlike the straight line of the approximation")
    if why:
        return Claim(p_value=1.0, resolved=False, assumption_failure=why, evidence=lead + remark, **fields)
    return _direction_record(parts, lead, remark, **fields)


def tail50_claim(lam: float) -> Claim:
    r"""App. E.2: :math:`P(Q' > 50) < 0.007` for the approximation :math:`Q' = (1-\lambda)^{-1}\mathrm{Exp}(1)`
    (exactly :math:`e^{-50(1-\lambda)}`)."""
    value = float(np.exp(-50.0 * (1.0 - lam)))
    return Claim(item="R-F4", source="App. E.2", holds=bool(value < 0.007), ours=value, key="R-F4:tail50",
                 text=r"App. E.2: $P(Q' > 50) < 0.007$ for $Q' = (1-\lambda)^{-1}\,\mathrm{Exp}(1)$",
                 evidence=f"$P(Q' > 50) = e^{{-50(1-\\lambda)}}$ = {value:.5f} at $\\lambda = {lam:g}$ (exact).")


def _cdf_item(settings, runs, params, seed, lam, n_runs, n_events) -> ItemResult:
    tails = {s.number: exact_tail(s.system, lam, CDF_POINTS - 1) for s in settings}
    rows = cdf_rows(settings, runs, lam, tails)
    distances = figure4_distances(settings, runs, lam, tails)
    ks = {n: d.value for n, d in distances.items()}
    gap_order = sorted(ks, key=ks.get, reverse=True)
    n_exact = sum(t is not None for t in tails.values())
    text = (f"The law of $Q$ is farthest from $10\\,\\mathrm{{Exp}}(1)$ in "
            f"{_settings(gap_order[:4])} ({', '.join(f'{ks[k]:.2f}' for k in gap_order[:4])}), closest in "
            f"{_settings(gap_order[-3:])} ({', '.join(f'{ks[k]:.2f}' for k in gap_order[-3:])}): the largest vertical gap "
            "between the two distribution functions, exact where the product form's table fits, else from the runs. "
            "The second figure shows the "
            f"tails the paper discusses, $-\\log P(Q>q)$, with the exact curve for the {n_exact} settings where the "
            f"product form's table fits and the line $(1-\\lambda)(q+1)$ of $10\\,\\mathrm{{Exp}}(1)$.")
    table = Table(tuple(dict(setting=s.number, name=s.name, d=distances[s.number]) for s in settings),
                  {"setting": lambda r: f"{r['setting']}: {r['name']}",
                   "exact": lambda r: "-" if r["d"].exact is None else f"{r['d'].exact:.3f}",
                   f"from the {n_runs} runs (mean CDF; ± SE where judged)":
                       lambda r: r["d"].describe() if r["d"].exact is None else f"{r['d'].simulated:.3f}"},
                  caption="Distance of each setting's law of Q from the heavy-traffic approximation 10 Exp(1): the "
                          "largest vertical gap between the two distribution functions")
    claims = (*figure4_claims(distances), tail50_claim(lam), ushape_claim(settings, runs, lam, tails))
    return ItemResult("R-F4", params, seed, rows, claims=claims,
                      summary=dict(max_cdf_gap_to_heavy_traffic=ks,
                                   simulated_cdf_gap_to_heavy_traffic={n: d.simulated for n, d in distances.items()}),
                      displays=(table,),
                      text=text, figure=dict(
                          lam=lam, n_runs=n_runs, panels=[(s.number, panel_title(s.number, s.name)) for s in settings],
                          caption=(rf"distribution function of the total number of jobs $Q$ in each setting of Table 1 at "
                                   rf"$\lambda = {lam:g}$: each of {n_runs} simulation runs ({n_events:,} events; thin blue lines), "
                                   "the exact law where the product form can be computed (the wide grey line beneath "
                                   "them), and the heavy-traffic "
                                   "approximation $10\\,\\mathrm{Exp}(1)$"),
                          tail_caption=(rf"tails $-\log P(Q > q)$ of the same runs (setting by setting, $\lambda = "
                                        rf"{lam:g}$), against the heavy-traffic line $(1-\lambda)(q+1)$ and the exact "
                                        "tail where the product form can be computed")))


def _grid(result: ItemResult, ylabel: str, panel, sharey: bool):
    from ...plotting import figure_legend, new_figure

    fig, axes = new_figure(3, 4, sharex=True, sharey=sharey, height=9)
    for ax, (number, title) in zip(axes.ravel(), result.figure["panels"]):
        panel(ax, [r for r in result.rows if r["setting"] == number])
        ax.set_title(title)
    for ax in axes[-1]:
        ax.set_xlabel("$q$")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    figure_legend(fig, axes[0, 0], ncol=3)
    return fig


def _by_run(rows) -> dict[int, list[dict]]:
    """The simulation rows of one setting grouped by run, in the order of the rows."""
    out: dict[int, list[dict]] = {}
    for r in rows:
        if r["method"] == "simulation":
            out.setdefault(r["run"], []).append(r)
    return out


def draw_cdfs(result: ItemResult):
    """R-F4's figure: the CDF of Q of every run per setting (thin lines), drawn over the exact CDF
    (a wide grey line), and :math:`10\\,\\mathrm{Exp}(1)`."""
    from ...plotting import PALETTE

    def panel(ax, mine):
        for pts in _by_run(mine).values():
            ax.step([r["q"] for r in pts], [r["cdf"] for r in pts], where="post", color=PALETTE[0], lw=0.7,
                    alpha=0.6, label="simulation runs")   # one series: every run (the legend lists it once)
        # the exact CDF wide and grey beneath the runs: where they agree, the runs still show on top of it
        for meth, style in (("exact", dict(color="0.55", lw=3.2, zorder=1)),
                            ("heavy traffic", dict(color=PALETTE[4], ls="--"))):
            pts = [r for r in mine if r["method"] == meth]
            if pts:
                ax.plot([r["q"] for r in pts], [r["cdf"] for r in pts],
                        label=meth if meth == "exact" else r"$10\,\mathrm{Exp}(1)$", **style)
        ax.set_xlim(0, 150)
    return _grid(result, r"$P(Q \leq q)$", panel, sharey=True)


def draw_tails(result: ItemResult):
    """R-F4's second figure: :math:`-\\log P(Q > q)` per setting (mean of the runs), the exact tail
    and the heavy-traffic line :math:`(1-\\lambda)(q+1)`."""
    from ...plotting import PALETTE

    lam, n_runs = result.figure["lam"], result.figure["n_runs"]
    qs = np.arange(CDF_POINTS)

    def panel(ax, mine):
        sim = np.mean([[r["cdf"] for r in pts] for pts in _by_run(mine).values()], axis=0)
        tail = 1 - sim
        ok = tail > 1e-9  # below: beyond the largest simulated count (rounding of 1 - CDF)
        ax.plot(qs[ok], -np.log(tail[ok]), color=PALETTE[0], lw=1.2, label=f"simulation (mean of {n_runs} runs)")
        ex = np.array([r["cdf"] for r in mine if r["method"] == "exact"])
        if ex.size:
            ok = (1 - ex) > 1e-12
            ax.plot(qs[ok], -np.log(1 - ex[ok]), color="k", lw=1.0, ls=":", label="exact")
        ax.plot(qs, (1 - lam) * (qs + 1), "--", color=PALETTE[4], lw=1, label=r"$10\,\mathrm{Exp}(1)$")
        ax.set_xlim(0, CDF_POINTS - 1)
    return _grid(result, r"$-\log P(Q > q)$", panel, sharey=False)
