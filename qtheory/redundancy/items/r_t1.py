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
  :math:`10\\,\\mathrm{Exp}(1)` and the exact CDF where its table fits in memory.
- **R-P-coc**, **R-P-cos**: each simulator against the exact product form on two small systems.
"""

from __future__ import annotations

import math
import re

import numpy as np
from scipy import stats as st

from ...claims import Claim, Finding
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed
from ...validation import RELAXATIONS, check_integer, check_load
from ...verdicts import p_text
from .. import model as M
from .. import productform as PF
from ..experiments import (TABLE1_PAPER, exact_cdf, exact_setting, shortest_run, simulate_setting,
                           summarise_runs, table1_comparison, table1_settings, table1_verdicts)

__all__ = ["ITEMS", "SOURCE", "MEAN_OFFSET", "ALPHA", "compute", "table1_rows", "share_runs", "table1_claims", "mean_offset_finding",
           "mean_offset_erratum", "table1_remarks", "cdf_rows", "simulator_check_rows", "draw_cdfs", "draw_tails", "panel_title"]

#: the manifest items :func:`compute` returns, in the order the notebook publishes them
ITEMS = ("R-T1", "R-F4", "R-P-coc", "R-P-cos")
SOURCE = "App. E.2, Table 1"
#: ID of the finding on Table 1's E[Q] (quoted on the R overview with ```{finding} R-T1-mean-offset```)
MEAN_OFFSET = "R-T1-mean-offset"
#: level of the sign test and of the joint chi-square test of a candidate reading
ALPHA = 0.05
#: the paper's number of runs per setting (its sd is over these)
PAPER_RUNS = 10
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


def table1_claims(rows: list[dict], shares: dict, finding: str = MEAN_OFFSET) -> list[Claim]:
    """The paper's Table 1 values as claims: E[Q] and Var(Q) against the exact product form (6);
    the type shares against the exact share :math:`P(Q > 0)/K` where the setting is symmetric,
    else against our time-averaged simulation, carrying its run means (`shares`, from
    :func:`share_runs`: the book's checks of the t test run on them). The E[Q] claims carry
    `finding` (one cause explains them)."""
    out = []
    for r in rows:
        paper_se = r["paper_sd"] / np.sqrt(PAPER_RUNS)
        if r["quantity"] in ("mean", "var") and not math.isnan(r["exact"]):
            name = "E[Q]" if r["quantity"] == "mean" else "Var(Q)"
            out.append(Claim(item="R-T1", text=f"Table 1, setting {r['setting']}: {name} (paper: simulated; ours: exact)",
                             paper=float(r["paper_mean"]), paper_se=float(paper_se), paper_df=PAPER_RUNS - 1,
                             ours=float(r["exact"]), source=SOURCE, finding=finding if r["quantity"] == "mean" else "",
                             family=f"Table 1, {name} over the settings"))
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
            f"{v['max_difference']:+.2f}; sign test $p = {p_text(v['sign_test_p'])}$, joint $\\chi^2$ "
            f"$p = {p_text(v['chi2_p'])}$)")


#: readings of Table 1's E[Q] that count the jobs just after an arrival (the arriving one included)
ARRIVAL_READINGS = {"after arrivals": "our simulated after-arrival averages (runs started as in App. E.1)",
                    "exact + 1": "the exact stationary mean + 1 (the mean count just after an arrival, by PASTA)"}


def mean_offset_finding(comparison: list[dict], *, alpha: float = ALPHA) -> Finding:
    """Which averaging convention Table 1's :math:`E[Q]` fit (App. E.2), from
    :func:`~qtheory.redundancy.experiments.table1_comparison` rows.

    A reading *fits* when the two-sided sign test of "paper above the reading" and the joint
    chi-square test of the z-scores (:func:`~qtheory.redundancy.experiments.table1_verdicts`) both
    keep it at level `alpha`. The label is ``agrees`` when the exact time-stationary mean of the
    product form (6) fits. Otherwise it is ``differs``, titled by the reading that fits: the count
    just after an arrival, the arriving job included (our simulated after-arrival averages, or the
    exact mean + 1 that PASTA gives), else no reading tried.
    """
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"`alpha` must be in (0, 1) (got {alpha!r})")
    verdicts = {v["estimator"]: v for v in table1_verdicts(comparison) if v["quantity"] == "mean"}
    if "exact" not in verdicts:
        raise ParameterError("`comparison` holds no E[Q] row against the exact value (quantity 'mean', "
                             "estimator 'exact')")
    exact = verdicts["exact"]
    text = (f"The paper's $E[Q]$ is {_against(exact, 'the exact stationary mean of the product form (6)')}; "
            f"the differences are {exact['min_z']:+.1f} to {exact['max_z']:+.1f} standard errors of its "
            f"{PAPER_RUNS}-run mean.")
    if _fits(exact, alpha):
        return Finding(MEAN_OFFSET, "R-T1", "Table 1's $E[Q]$ are time-stationary means",
                       text + f" Neither test rejects the stationary mean at level {alpha:g}.", "agrees", SOURCE)
    readings = {name: verdicts[name] for name in ARRIVAL_READINGS if name in verdicts}
    fitting = [name for name, v in readings.items() if _fits(v, alpha)]
    if fitting:
        rest = [name for name in readings if name not in fitting]
        # a hypothesis, not a settled fact: it is titled as settled only when every arrival reading fits
        title = ("Table 1's $E[Q]$ are not time-stationary means; best explained as averages over arrival epochs"
                 if not rest else
                 "Table 1's $E[Q]$ are not time-stationary means; the best-supported explanation, averages over "
                 f"arrival epochs, fits {len(fitting)} of its {len(readings)} readings")
        text += (" It fits the count just after each arrival, the arriving job included: the paper is "
                 + "; ".join(_against(readings[name], ARRIVAL_READINGS[name]) for name in fitting) + ".")
        if rest:
            text += (f" Not kept at level {alpha:g}: the paper is "
                     + "; ".join(_against(readings[name], ARRIVAL_READINGS[name]) for name in rest) + ".")
        if "time average" in verdicts:
            # our runs start as the paper's (no warm-up): how far their time averages fall below the exact mean
            gap = np.mean([c["difference"] for c in comparison if c["quantity"] == "mean" and c["estimator"] == "exact"]) \
                - np.mean([c["difference"] for c in comparison
                           if c["quantity"] == "mean" and c["estimator"] == "time average"])
            text += (f" In our runs, started the same way without warm-up, the time averages are {gap:+.2f} from "
                     "the exact mean on average.")
    else:
        title = "Table 1's $E[Q]$ are not time-stationary means; no averaging convention tried fits"
        text += (f" No reading tried is kept by both tests at level {alpha:g}: the paper is "
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


def cdf_rows(settings, runs: dict, lam: float) -> list[dict]:
    """R-F4's rows: the CDF of Q at q = 0..199 of every run, the exact CDF (where its table fits)
    and the heavy-traffic approximation :math:`P(Q \\le q) = 1 - e^{-(1-\\lambda)(q+1)}`."""
    qs = np.arange(CDF_POINTS)
    rows = []
    for s in settings:
        for k, r in enumerate(runs[s.number]):
            cdf = np.cumsum(r.count_distribution)
            for q in qs:
                rows.append(dict(setting=s.number, method="simulation", run=k, q=int(q), cdf=float(cdf[q])))
        ex = exact_cdf(s.system, lam, CDF_POINTS - 1)
        if ex is not None:
            for q in qs:
                rows.append(dict(setting=s.number, method="exact", run=-1, q=int(q), cdf=float(ex[q])))
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
    sd_small = [r["time_sd"] for r in mean_rows if r["setting"] <= 8]
    sd_paper_small = [r["paper_sd"] for r in mean_rows if r["setting"] <= 8]
    share_off = [(r["setting"], r["quantity"], r["paper_mean"], r["exact"]) for r in rows
                 if r["quantity"].startswith("share") and not np.isnan(r["exact"])
                 and abs(r["paper_mean"] - r["exact"]) > 3 * r["paper_sd"]]
    s4 = next(r for r in rows if r["setting"] == 4 and r["quantity"] == "share_last")
    return "".join([
        f"**Beyond the verdict above** ({n_runs} runs of {n_events:,} events per setting; every number is computed "
        "from the data).\n\n",
        f"- *Run-to-run sd* of $E[Q]$ in settings 1-8: ours {min(sd_small):.2f}-{max(sd_small):.2f}, "
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
    claims = [*table1_claims(rows, share_runs(settings, runs), finding.id), mean_offset_erratum(rows, finding),
              share_collapse_claim(rows, settings)]
    diff = {a: float(np.mean([r["paper_mean"] - r[f"{a}_mean"] for r in rows if r["quantity"] == "mean"]))
            for a in AVERAGES}
    diff["exact"] = float(np.mean([r["paper_mean"] - r["exact"] for r in rows if r["quantity"] == "mean"]))
    caption = (rf"mean and variance of the total number of jobs $Q$ in the twelve settings of Table 1 at $\lambda = {lam:g}$: "
               rf"the paper's values (95% CI of its mean over 10 runs), ours from {n_runs} simulation runs of {n_events:,} "
               "events each with three averaging conventions (time, event, arrival epochs; 95% CI), and the exact value "
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


def figure4_claims(gaps: dict) -> tuple[Claim, ...]:
    r"""App. E.2's three statements about Figure 4, on the largest gap between each setting's mean
    empirical CDF and :math:`10\,\mathrm{Exp}(1)` (`gaps`, by setting number): the approximation fits
    better on denser graphs (each pair of :data:`DENSER_PAIRS`), power-of-:math:`d` slightly better
    than circular-:math:`d` (settings 5 and 6), setting 4 worse than settings 1 to 3."""
    def listed(keys):
        return ", ".join(f"{gaps[k]:.3f} (setting {k})" for k in keys)
    denser = all(gaps[b] < gaps[a] for a, b in DENSER_PAIRS)
    return (
        Claim(item="R-F4", source="App. E.2, Fig. 4", holds=bool(denser),
              text="Fig. 4: the heavy-traffic approximation fits better on denser graphs (larger $d$)",
              evidence="Largest CDF gap to $10\\,\\mathrm{Exp}(1)$: " + "; ".join(
                  f"{gaps[a]:.3f} in setting {a} against {gaps[b]:.3f} in setting {b}" for a, b in DENSER_PAIRS) + "."),
        Claim(item="R-F4", source="App. E.2, Fig. 4", holds=bool(gaps[5] < gaps[6]),
              text="Fig. 4: power-of-$d$ closer to the approximation than circular-$d$ (settings 5 and 6)",
              evidence=f"Largest CDF gap {listed((5, 6))}."),
        Claim(item="R-F4", source="App. E.2, Fig. 4", holds=bool(gaps[4] > max(gaps[1], gaps[2], gaps[3])),
              text="Fig. 4: setting 4 deviates from the approximation more than settings 1 to 3",
              evidence=f"Largest CDF gap {listed((1, 2, 3, 4))}."))


def tail50_claim(lam: float) -> Claim:
    r"""App. E.2: :math:`P(Q' > 50) < 0.007` for the approximation :math:`Q' = (1-\lambda)^{-1}\mathrm{Exp}(1)`
    (exactly :math:`e^{-50(1-\lambda)}`)."""
    value = float(np.exp(-50.0 * (1.0 - lam)))
    return Claim(item="R-F4", source="App. E.2", holds=bool(value < 0.007), ours=value, key="R-F4:tail50",
                 text=r"App. E.2: $P(Q' > 50) < 0.007$ for $Q' = (1-\lambda)^{-1}\,\mathrm{Exp}(1)$",
                 evidence=f"$P(Q' > 50) = e^{{-50(1-\\lambda)}}$ = {value:.5f} at $\\lambda = {lam:g}$ (exact).")


def _cdf_item(settings, runs, params, seed, lam, n_runs, n_events) -> ItemResult:
    rows = cdf_rows(settings, runs, lam)
    qs = np.arange(CDF_POINTS)
    ks = {s.number: float(np.max(np.abs(np.mean([np.cumsum(r.count_distribution) for r in runs[s.number]], axis=0)[:CDF_POINTS]
                                        - (1 - np.exp(-(1 - lam) * (qs + 1)))))) for s in settings}
    gap_order = sorted(ks, key=ks.get, reverse=True)
    n_exact = sum(exact_cdf(s.system, lam, CDF_POINTS - 1) is not None for s in settings)
    text = (f"The largest distance between the mean empirical CDF and $10\\,\\mathrm{{Exp}}(1)$ is in "
            f"{_settings(gap_order[:4])} ({', '.join(f'{ks[k]:.2f}' for k in gap_order[:4])}), the smallest in "
            f"{_settings(gap_order[-3:])} ({', '.join(f'{ks[k]:.2f}' for k in gap_order[-3:])}). The second figure shows the "
            f"tails the paper discusses, $-\\log P(Q>q)$, with the exact curve for the {n_exact} settings where the "
            f"product form's table fits and the line $(1-\\lambda)(q+1)$ of $10\\,\\mathrm{{Exp}}(1)$.")
    table = Table(tuple(dict(setting=s.number, name=s.name, gap=ks[s.number]) for s in settings),
                  {"setting": lambda r: f"{r['setting']}: {r['name']}",
                   "largest gap between the mean empirical CDF and 10 Exp(1)": lambda r: f"{r['gap']:.3f}"},
                  caption="Distance of each setting's simulated law of Q from the heavy-traffic approximation")
    return ItemResult("R-F4", params, seed, rows, claims=(*figure4_claims(ks), tail50_claim(lam)),
                      summary=dict(max_cdf_gap_to_heavy_traffic=ks), displays=(table,),
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


def draw_cdfs(result: ItemResult):
    """R-F4's figure: the CDF of Q of every run per setting (thin lines), drawn over the exact CDF
    (a wide grey line), and :math:`10\\,\\mathrm{Exp}(1)`."""
    from ...plotting import PALETTE

    def panel(ax, mine):
        for k in range(result.figure["n_runs"]):
            pts = [r for r in mine if r["method"] == "simulation" and r["run"] == k]
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
        sim = np.mean([[r["cdf"] for r in mine if r["method"] == "simulation" and r["run"] == k]
                       for k in range(n_runs)], axis=0)
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
