"""U-R-jlmud: JLMU among :math:`d` sampled pools, a policy beyond the paper.

:func:`compute` estimates the stationary mean utility per pool :math:`E[u(q_n)]` of JLMU
(Sec. 3.1) and of JLMU(:math:`d`) (:class:`~qtheory.utility.policies.JLMUd`) on the Table 1
system for each :math:`n`, beside the bound :math:`u(q_n^*)` of Theorem 1. Its three internal
checks are judged from the rows: every estimate below the bound (:func:`bound_claim`), no loss
from sampling more pools (:func:`monotone_claim`) and JLMU's gap falling in :math:`n`
(:func:`falls_claim`, Theorem 2).
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim, Finding
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed
from ...stats import loglog_slope, se_from_interval
from ...validation import check_integer, check_positive, check_runs, check_window
from ..examples import table1_system
from ..experiments import policy_runs
from ..optimal import upper_bound
from ..policies import JLMU, JLMUd
from ..simulation import simulate

__all__ = ["ITEM", "compute", "row_of", "bound_claim", "monotone_claim", "gap_se", "gap_slopes", "gap_slope_errors",
           "falls_claim"]

ITEM = "U-R-jlmud"
#: gaps at or below this are drawn and fitted at this value (log scales)
GAP_FLOOR = 1e-12


def row_of(rows: list[dict], n: int, policy: str) -> dict:
    """The row of policy label `policy` (``"JLMU"``, ``"JLMU(2)"``) at `n` pools."""
    found = [r for r in rows if r["n"] == n and r["policy"] == policy]
    if len(found) != 1:
        raise ParameterError(f"{len(found)} rows for n = {n}, policy {policy!r} (need exactly one)")
    return found[0]


def bound_claim(rows: list[dict]) -> Claim:
    """Theorem 1 holds for any policy: every interval's lower end is at most :math:`u(q_n^*)`."""
    return Claim(item=ITEM, category="check", holds=all(r["ci_low"] <= r["bound"] for r in rows),
                 text="every estimate of $E[u(q_n)]$ is below $u(q_n^*)$ up to its 95% CI (Theorem 1 holds for any "
                      "policy)",
                 evidence=f"{len(rows)} (n, policy) pairs")


def monotone_claim(rows: list[dict], n_values, d_values) -> Claim:
    """JLMU(:math:`d`) does not lose by sampling more pools: for consecutive :math:`d < d'` at every
    :math:`n`, the lower end of :math:`d`'s interval is at most the upper end of :math:`d'`'s."""
    holds = all(row_of(rows, n, f"JLMU({a})")["ci_low"] <= row_of(rows, n, f"JLMU({b})")["ci_high"]
                for n in n_values for a, b in zip(d_values[:-1], d_values[1:]))
    return Claim(item=ITEM, category="check", holds=holds,
                 text="the mean utility of JLMU($d$) does not decrease in $d$ (up to the 95% CIs)",
                 evidence=f"$d$ = {listing(d_values, conjunction='and')}; $n$ = {listing(n_values, conjunction='and')}")


def gap_slopes(rows: list[dict], labels) -> dict[str, float]:
    """Least-squares slope of log gap against log :math:`n` per policy label (gaps floored at
    :data:`GAP_FLOOR`)."""
    return {lab: loglog_slope([r["n"] for r in rows if r["policy"] == lab],
                              [max(r["gap"], GAP_FLOOR) for r in rows if r["policy"] == lab]) for lab in labels}


def gap_se(row: dict) -> float:
    """The standard error of a row's gap: its 95% t-interval (``runs`` - 1 degrees of freedom) over the
    t quantile (the bound :math:`u(q_n^*)` is exact, so the gap's error is the estimate's)."""
    return se_from_interval(row["gap_ci_low"], row["gap_ci_high"], df=row["runs"] - 1)


def gap_slope_errors(rows: list[dict], labels) -> dict[str, float]:
    """Standard error of each :func:`gap_slopes` slope from the run-to-run noise of the gaps.

    The slope is a weighted sum :math:`\\sum_i w_i \\log g_i` of independent estimates (one set of runs
    per :math:`n`), :math:`w_i = (x_i - \\bar x) / \\sum_j (x_j - \\bar x)^2` with :math:`x = \\log n`,
    so to first order (delta method, :math:`\\mathrm{SE}(\\log g) \\approx \\mathrm{SE}(g) / g`) its
    standard error is :math:`\\sqrt{\\sum_i w_i^2 \\mathrm{SE}(g_i)^2 / g_i^2}`. NaN for a label with a gap
    at or below :data:`GAP_FLOOR` (its logarithm has no error to speak of)."""
    out = {}
    for lab in labels:
        sel = [r for r in rows if r["policy"] == lab]
        x = np.log([r["n"] for r in sel])
        w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
        gaps = np.array([r["gap"] for r in sel])
        if np.any(gaps <= GAP_FLOOR):
            out[lab] = float("nan")
            continue
        out[lab] = float(np.sqrt(np.sum(w ** 2 * (np.array([gap_se(r) for r in sel]) / gaps) ** 2)))
    return out


def falls_claim(rows: list[dict], n_values) -> Claim:
    """Theorem 2 (JLMU is asymptotically optimal), as a check: JLMU's gap to the bound falls
    strictly at every step of :math:`n`, each interval entirely above the next one."""
    jlmu = [row_of(rows, n, "JLMU") for n in n_values]
    falls = all(a["gap_ci_low"] > b["gap_ci_high"] for a, b in zip(jlmu[:-1], jlmu[1:]))
    slope, se = gap_slopes(rows, ["JLMU"])["JLMU"], gap_slope_errors(rows, ["JLMU"])["JLMU"]
    return Claim(item=ITEM, category="check", holds=falls,
                 text="JLMU's gap to $u(q_n^*)$ decreases strictly in $n$ (Theorem 2: JLMU is asymptotically optimal)",
                 evidence=f"log-log slope {number(slope, se)} (± SE) over $n$ = {listing(n_values, conjunction='and')}")


def _cell(r: dict) -> str:
    return f"{r['mean_utility']:.4f} ± {(r['ci_high'] - r['ci_low']) / 2:.4f}"


def compute(*, seed: int, rho: float, n_values, d_values, horizon: float, warmup: float, n_runs: int) -> ItemResult:
    """U-R-jlmud at the notebook's parameters (see the notebook for their meaning).

    Rows: ``n, policy, d, bound, mean_utility, ci_low, ci_high, gap, gap_ci_low, gap_ci_high, runs, events``
    per `n` and policy (``JLMU``, then ``JLMU(d)`` for each of `d_values`; ``d`` empty for JLMU),
    from `n_runs` stationary runs with the control variate of
    :func:`~qtheory.utility.experiments.policy_runs`.
    """
    # the reader's parameters first, in the reader's words
    check_runs(n_runs=n_runs)
    check_window("warmup", warmup, "horizon", horizon)
    params = dict(seed=seed, rho=rho, n_values=n_values, d_values=d_values, horizon=horizon, warmup=warmup, n_runs=n_runs)
    check_positive("rho", rho)
    system = table1_system(rho)
    for k, n in enumerate(n_values):
        system.pool_counts(n, name=f"n_values[{k}]")
    for k, d in enumerate(d_values):
        check_integer(f"d_values[{k}]", d, low=1)
    if len(list(n_values)) < 2:
        raise ParameterError(f"`n_values` must hold at least two system sizes (got {n_values!r})")
    if not list(d_values):
        raise ParameterError("`d_values` must hold at least one number of sampled pools")
    policies = {"JLMU": JLMU(), **{f"JLMU({d})": JLMUd(d=d) for d in d_values}}
    for pol in policies.values():  # compile or load each kernel once: the forked workers inherit it
        simulate(system, 10, pol, horizon=1.0, seed=0)
    rows = []
    for n in n_values:
        bound = upper_bound(system, n)
        for label, pol in policies.items():
            est = policy_runs(system, n, pol, horizon=horizon, warmup=warmup, n_runs=n_runs,
                              seed=child_seed(seed, label, n), desc=f"{label} n={n}")
            rows.append(dict(n=n, policy=label, d=getattr(pol, "d", None), bound=bound,
                             mean_utility=est["mean_utility_cv"], ci_low=est["utility_cv_ci_low"], ci_high=est["utility_cv_ci_high"],
                             gap=bound - est["mean_utility_cv"], gap_ci_low=bound - est["utility_cv_ci_high"],
                             gap_ci_high=bound - est["utility_cv_ci_low"], runs=est["runs"], events=est["events"]))
    labels = list(policies)
    claims = (bound_claim(rows), monotone_claim(rows, n_values, d_values), falls_claim(rows, n_values))
    table = Table(tuple(n_values), {"$n$": lambda n: n, "$u(q_n^*)$": lambda n: f"{row_of(rows, n, 'JLMU')['bound']:.4f}",
                                    **{lab: (lambda n, lab=lab: _cell(row_of(rows, n, lab))) for lab in labels}},
                  caption=f"Mean utility per pool $E[u(q_n)]$ ± 95% CI half-width, Table 1 system at $\\rho$ = {rho:g}")
    last, best_d = n_values[-1], d_values[-1]
    gaps = {lab: row_of(rows, last, lab)["gap"] for lab in labels}
    ratio = gaps[f"JLMU({best_d})"] / gaps["JLMU"] if gaps["JLMU"] > 0 else float("nan")
    gap_ses = {lab: gap_se(row_of(rows, last, lab)) for lab in labels}
    slopes, slope_ses = gap_slopes(rows, labels), gap_slope_errors(rows, labels)
    below, mono, falls = (c.holds for c in claims)
    lines = [
        f"- Every estimate lies below the bound $u(q_n^*)$ within its interval: **{'yes' if below else 'no'}**.",
        f"- Larger $d$ never does worse (within the intervals): **{'yes' if mono else 'no'}**.",
        f"- At $n = {last}$ the gap to the bound (± SE) is "
        + listing([f"{number(gaps[lab], gap_ses[lab])} for {lab}" for lab in labels], conjunction="and")
        + f"; JLMU({best_d})'s gap is {number(ratio, digits=2)} times JLMU's.",
        "- Log-log slopes of the gap against $n$ (± SE): "
        + listing([f"{lab} {number(slopes[lab], slope_ses[lab])}" for lab in labels], conjunction="and")
        + ". JLMU's gap falls strictly at every step of $n$: **" + ("yes" if falls else "no") + "** "
        "(Theorem 2: JLMU is asymptotically optimal); a slope near 0 means the gap levels off, as it "
        "must for a fixed $d$: a sampled pool is the best one only with a probability that does not grow with $n$.",
    ]
    n_mid = n_values[len(n_values) // 2]
    caption = (f"Left: gap between the bound $u(q_n^*)$ of Theorem 1 and the mean utility per pool of JLMU and "
               f"JLMU($d$), $d$ = {listing(d_values, conjunction='and')}, against $n$ (log-log; 95% CIs over {n_runs} runs of length {horizon:g}). "
               f"Right: the mean utility against $d$ at $n$ = {n_mid}, with JLMU's 95% CI and the bound. Table 1 system, "
               f"$\\rho$ = {rho:g}.")
    finding = Finding(f"{ITEM}-result", ITEM,
                      f"At $n = {last}$ JLMU({best_d})'s gap to $u(q_n^*)$ is {number(ratio, digits=2)} times JLMU's "
                      f"({number(gaps[f'JLMU({best_d})'], gap_ses[f'JLMU({best_d})'])} against "
                      f"{number(gaps['JLMU'], gap_ses['JLMU'])})",
                      "Sampling a few pools levels the gap off instead of letting it vanish: its log-log slope "
                      f"against $n$ is {number(slopes[f'JLMU({best_d})'], slope_ses[f'JLMU({best_d})'])} for "
                      f"JLMU({best_d}) and {number(slopes['JLMU'], slope_ses['JLMU'])} for JLMU.", "beyond the papers")
    return ItemResult(ITEM, params, seed, rows, claims=claims, findings=(finding,), displays=(table,),
                      text="\n".join(lines),
                      figure={"caption": caption, "labels": labels, "n_mid": n_mid, "gap_floor": 1e-4,
                              "sampled": [f"JLMU({d})" for d in d_values]})
