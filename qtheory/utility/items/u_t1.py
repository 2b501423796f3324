"""U-T1 and the items computed from the same runs: U-P-jlmu, U-P-slta and U-V-thm2 (Sec. 3.4.1, Table 1).

:func:`compute` runs JLMU and SLTA on the Table 1 system (:func:`~qtheory.utility.examples.table1_system`)
for each load and number of pools (:func:`~qtheory.utility.experiments.table1_rows`) and returns one
:class:`~qtheory.results.ItemResult` per manifest ID (:class:`Table1Results`):

- **U-T1**: the table in the paper's layout (:func:`wide_rows`), the optimal assignments stated in
  Sec. 3.4.1 (:func:`assignment_claims`), its two statements about the table
  (:func:`shrinks_claim`, :func:`closer_claim`: the text we work from prints none of the table's
  numbers, so each is a qualitative statement judged with the noise of the runs by
  :func:`qtheory.direction.direction_test`) and our reading of Sec. 2 (:func:`reading_claim`);
- **U-P-jlmu**, **U-P-slta**: each policy's estimates and diagnostics, with our reading of SLTA's
  thresholds judged by :func:`slta_reading_claim`;
- **U-V-thm2**: the gap to the limit :math:`u(q_*)` of Theorem 2 (:func:`limit_rows`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...claims import Claim
from ...direction import DirectionTest, difference, direction_test
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...stats import se_from_interval
from ...validation import check_positive, check_runs, check_window
from ..examples import table1_system
from ..experiments import table1_rows
from ..optimal import OptimalAssignment, optimal_assignment
from ..policies import title
from ..simulation import default_beta, simulate

__all__ = ["compute", "Table1Results", "wide_rows", "limit_rows", "gaps", "gap_runs", "assignment_claims",
           "shrinks_test", "shrinks_claim", "closer_test", "closer_claim", "reading_claim", "limit_text",
           "slta_reading_claim", "is_fractional_integral_pair", "draw_policy"]

SOURCE = "Sec. 3.4.1"
#: the assignments Sec. 3.4.1 states for Table 1's system: rho -> (class-1 level, class-2 level)
STATED_LEVELS = {9.75: (8, 12), 10.0: (8, 12)}
#: SLTA has learned r_* when it holds r_n = r_* at least this fraction of the time
LEARNED_FRACTION = 0.9
#: SLTA matches JLMU when their control-variate estimates differ by at most this many standard errors
MATCH_Z = 4.0
#: columns of each policy in the wide table of U-T1
WIDE_COLUMNS = ("mean_utility", "utility_ci_low", "utility_ci_high", "mean_utility_cv", "utility_cv_ci_low", "utility_cv_ci_high",
                "empirical_bound", "mean_tasks")


class Table1Results(NamedTuple):
    """The four results of the Table 1 runs, one per manifest ID."""

    table: ItemResult       # U-T1
    jlmu: ItemResult        # U-P-jlmu
    slta: ItemResult        # U-P-slta
    thm2: ItemResult        # U-V-thm2


def _row(rows: list[dict], rho: float, n: int, policy: str) -> dict:
    found = [r for r in rows if r["rho"] == rho and r["n"] == n and r["policy"] == policy]
    if len(found) != 1:
        raise ParameterError(f"{len(found)} rows for rho = {rho}, n = {n}, policy {policy!r} (need exactly one)")
    return found[0]


def wide_rows(rows: list[dict], rhos, n_values) -> list[dict]:
    """Table 1 in the paper's layout: one row per ``(rho, n)`` with ``upper_bound`` and, per policy,
    the columns :data:`WIDE_COLUMNS` prefixed ``jlmu_`` / ``slta_``."""
    out = []
    for rho in rhos:
        for n in n_values:
            j, s = _row(rows, rho, n, "jlmu"), _row(rows, rho, n, "slta")
            out.append({"rho": rho, "n": n, "upper_bound": j["upper_bound"],
                        **{f"{p}_{k}": r[k] for p, r in (("jlmu", j), ("slta", s)) for k in WIDE_COLUMNS}})
    return out


def limit_rows(rows: list[dict]) -> list[dict]:
    """Theorem 2: the gap :math:`u(q_*) - E[u(q_n)]` of each control-variate estimate, with its interval."""
    return [{"rho": r["rho"], "n": r["n"], "policy": r["policy"], "limit_utility": r["limit_utility"],
             "upper_bound": r["upper_bound"], "mean_utility_cv": r["mean_utility_cv"],
             "gap_to_limit": r["limit_utility"] - r["mean_utility_cv"],
             "gap_ci_low": r["limit_utility"] - r["utility_cv_ci_high"], "gap_ci_high": r["limit_utility"] - r["utility_cv_ci_low"]}
            for r in rows]


def limit_text(limit: list[dict]) -> str:
    """What U-V-thm2 adds to the figure of U-T1, from the rows of :func:`limit_rows`: the gap to the
    limit :math:`u(q_*)` is the gap to the bound :math:`u(q_n^*)` drawn there plus
    :math:`u(q_*) - u(q_n^*)`, which is zero at every :math:`n` where the bound equals the limit
    (a figure of the gap to the limit would then repeat that figure)."""
    apart = [r for r in limit if r["limit_utility"] != r["upper_bound"]]
    if not apart:
        return ("At every $n$ of these runs the bound $u(q_n^*)$ of Theorem 1 equals the limit $u(q_*)$ of Theorem 2, "
                "so the gap to the limit is the gap to the bound drawn in the first figure of this page; the table "
                "above gives it at the smallest and largest $n$.")
    largest = max(abs(r["limit_utility"] - r["upper_bound"]) for r in apart)
    sizes = sorted({r["n"] for r in apart})
    return (f"The bound $u(q_n^*)$ of Theorem 1 differs from the limit $u(q_*)$ of Theorem 2 at $n$ = "
            f"{listing(sizes, conjunction='and')} (by at most {number(largest)}); there the gap to the limit is the gap "
            "to the bound drawn in the first figure of this page plus $u(q_*) - u(q_n^*)$. The table above gives it at "
            "the smallest and largest $n$.")


def gaps(rows: list[dict]) -> dict[tuple, float]:
    """``(rho, policy, n) -> u(q_n^*) - E[u(q_n)]`` of the control-variate estimates."""
    return {(r["rho"], r["policy"], r["n"]): r["upper_bound"] - r["mean_utility_cv"] for r in rows}


def assignment_claims(at_975: OptimalAssignment, at_10: OptimalAssignment) -> tuple[Claim, ...]:
    """The optimal assignments Sec. 3.4.1 states for Table 1's system at :math:`\\rho = 9.75`
    (fractional: class 1 at 8 tasks, class 2 half at 11 and half at 12) and 10 (8 and 12)."""
    return (
        Claim(item="U-T1", text=r"$\rho = 9.75$: class-1 pools hold 8 tasks under $q^*$", paper=8,
              ours=float(at_975.levels()[0]), tolerance=0, source=SOURCE),
        Claim(item="U-T1", text=r"$\rho = 9.75$: fraction of class-2 pools with 12 tasks (the others hold 11)",
              paper=0.5, ours=float(at_975.q[1, 12] / 0.5), tolerance=1e-12, source=SOURCE),
        Claim(item="U-T1", text=r"$\rho = 10$: class-2 pools hold 12 tasks", paper=12, ours=float(at_10.levels()[1]),
              tolerance=0, source=SOURCE),
        Claim(item="U-T1", text=r"$\rho = 10$: class-1 pools hold 8 tasks", paper=8, ours=float(at_10.levels()[0]),
              tolerance=0, source=SOURCE),
    )


def gap_runs(runs: list[dict], rho: float, policy: str, n: int) -> np.ndarray:
    """Each run's gap :math:`u(q_n^*) - u_\\text{cv}` (its control-variate estimate of
    :math:`E[u(q_n)]`) at ``(rho, policy, n)``, in run order, from the ``runs`` table of
    :func:`~qtheory.utility.experiments.table1_rows`."""
    mine = sorted((r for r in runs if r["rho"] == rho and r["policy"] == policy and r["n"] == n),
                  key=lambda r: r["run"])
    if not mine:
        raise ParameterError(f"no runs for rho = {rho}, policy {policy!r}, n = {n}")
    return np.array([r["upper_bound"] - r["mean_utility_cv"] for r in mine])


def _falls(pairs: list[tuple[np.ndarray, np.ndarray, str]]) -> DirectionTest:
    """The statement "each first sample's gap exceeds the second's" (runs paired by index: the
    samples are independent, with seeds of their own). On a log scale when every gap is positive
    (a run's gap is right-skewed, its logarithm much less: a ratio of geometric means, above 1),
    else on the gaps themselves (a difference, above 0)."""
    log = all(np.all(a > 0) and np.all(b > 0) for a, b, _ in pairs)
    word = "over" if log else "minus"
    return direction_test([difference(a, b, log=log, by_index=True, name=name.format(word)) for a, b, name in pairs])


_HOW = ("Each run's gap is $u(q_n^*)$ minus its time-averaged utility with the control variate $s_n$; runs of "
        "different loads and sizes have seeds of their own, and are paired by index.")


def shrinks_test(runs: list[dict], rhos, policies, n_values) -> DirectionTest:
    """Sec. 3.4.1: the deviation from :math:`u(q_n^*)` shrinks as :math:`n` grows: for every load and
    policy, the runs' gap at the smallest :math:`n` exceeds the gap at the largest (:func:`_falls`)."""
    nmin, nmax = min(n_values), max(n_values)
    return _falls([(gap_runs(runs, rho, p, nmin), gap_runs(runs, rho, p, nmax),
                    f"{title(p)} at $\\rho = {rho:g}$: the gap at $n = {nmin}$ {{}} the gap at $n = {nmax}$")
                   for rho in rhos for p in policies])


def shrinks_claim(runs: list[dict], rhos, policies, n_values) -> Claim:
    """Sec. 3.4.1: the deviation from :math:`u(q_n^*)` shrinks as :math:`n` grows; judged with the
    noise of the runs at the smallest and the largest :math:`n`, for every load and policy
    (:func:`shrinks_test`)."""
    # Theorem 2 (asymptotic optimality) is what this statement of Sec. 3.4.1 illustrates: the record
    # judges the claim map's U-V-thm2 statement
    return shrinks_test(runs, rhos, policies, n_values).record(
        item="U-T1", text="the deviation from $u(q_n^*)$ shrinks as n grows (JLMU and SLTA, both loads)",
        source="Sec. 3.4.1, Table 1", key="U-V-thm2", evidence=_HOW)


def is_fractional_integral_pair(rhos) -> bool:
    """Whether `rhos` is Table 1's pair: a fractional load, then an integral one."""
    return len(rhos) == 2 and bool(rhos[0] % 1) and not rhos[1] % 1


def closer_test(runs: list[dict], rhos, policies, n_values) -> DirectionTest | None:
    """Sec. 3.4.1: both policies come closer to :math:`u(q_n^*)` in the fractional case than in the
    integral one, at the largest :math:`n`: the runs' gap in the integral case exceeds the gap in the
    fractional one, for each policy (:func:`_falls`; None unless `rhos` is such a pair)."""
    if not is_fractional_integral_pair(rhos):
        return None
    nmax = max(n_values)
    return _falls([(gap_runs(runs, rhos[1], p, nmax), gap_runs(runs, rhos[0], p, nmax),
                    f"{title(p)} at $n = {nmax}$: the gap at $\\rho = {rhos[1]:g}$ {{}} the gap at "
                    f"$\\rho = {rhos[0]:g}$") for p in policies])


def closer_claim(runs: list[dict], rhos, policies, n_values) -> Claim | None:
    """Sec. 3.4.1: closer to :math:`u(q_n^*)` in the fractional case than in the integral one, at the
    largest :math:`n`, judged with the noise of the runs (:func:`closer_test`; None unless `rhos` is
    a fractional then an integral load)."""
    test = closer_test(runs, rhos, policies, n_values)
    if test is None:
        return None
    return test.record(item="U-T1", text=f"closer to $u(q_n^*)$ in the fractional case ($\\rho = {rhos[0]}$) than in "
                                         f"the integral one ($\\rho = {rhos[1]}$), at $n = {max(n_values)}$",
                       source="Sec. 3.4.1, Table 1", evidence=_HOW)


def reading_claim(assignments: tuple[Claim, ...]) -> Claim:
    """Our reading of Sec. 2's definitions: it reproduces Sec. 3.4.1 when every stated assignment agrees."""
    ok = all(c.passes for c in assignments)
    return Claim(item="U-T1", category="reconstruction", source="Sec. 2.1-2.3, eqs. (2)-(5)",
                 text=r"definitions of $q_n$, $u(q)$, problem (2), the total order and $\sigma_n^*$: our reading of Sec. 2 "
                      "(as in the reading notes)",
                 verdict="reproduces the assignments stated in Sec. 3.4.1" if ok
                 else "does not reproduce the assignments stated in Sec. 3.4.1",
                 alternatives="ties of the total order broken towards the larger class, or by level first; "
                              "neither changes $q_n^*$ for Table 1's utilities, which have no ties",
                 evidence="greedy $q^*$ = LP optimum (U-V-prop1); levels 8 / 11-12 and 8 / 12 as the text states")


def _se(row: dict, runs: int) -> float:
    """Standard error of a control-variate estimate from its 95% t interval over `runs` runs."""
    return se_from_interval(row["utility_cv_ci_low"], row["utility_cv_ci_high"], df=runs - 1)


def slta_reading_claim(slta: dict, jlmu: dict) -> Claim:
    """Our reading of SLTA's thresholds (Sec. 3.2) and choice of :math:`\\beta_n`, judged on the rows of
    both policies at the largest :math:`n` and first load: SLTA learns :math:`r_*` (holds
    :math:`r_n = r_*` at least :data:`LEARNED_FRACTION` of the time) and matches JLMU (estimates
    within :data:`MATCH_Z` standard errors)."""
    learned = slta["time_at_r_star"] >= LEARNED_FRACTION
    se = math.hypot(_se(slta, slta["runs"]), _se(jlmu, jlmu["runs"]))
    diff = abs(slta["mean_utility_cv"] - jlmu["mean_utility_cv"])
    matches = diff <= MATCH_Z * se
    verdict = ("SLTA learns $r_*$ and matches JLMU" if learned and matches else
               ("SLTA learns $r_*$" if learned else "SLTA does not learn $r_*$")
               + (" but differs from JLMU" if not matches else " yet matches JLMU"))
    return Claim(item="U-P-slta", category="reconstruction", source="Sec. 3.2", verdict=verdict,
                 text=r"SLTA thresholds: $l_i(r)$ = the number of $k < r$ with $i_k = i$ (our reading of Sec. 3.2's "
                      r"display) and $\beta_n = n^{-1/3}$ (our choice; the paper requires only the conditions of "
                      "Theorem 2)",
                 alternatives=r"$l_i(r)$ = the number of $k \le r$ with $i_k = i$ (counts the estimate itself; it "
                              r"contradicts the token count $n(\alpha(i_r) - q(i_r, j_r))$ for yellow tokens that Sec. 3.2 "
                              "gives)",
                 ours=float(slta["time_at_r_star"]),
                 evidence=r"fraction of time with $r_n = r_*$ at the largest $n$ and first $\rho$ (given); see also U-V-thm6")


def _outcome(test: DirectionTest) -> str:
    """What a statement's test shows, in words (:attr:`qtheory.direction.DirectionTest.outcome`;
    the page's family gives the label)."""
    return {"shown": "shown with the noise of the runs (every 95% interval on the stated side)",
            "not shown": "not shown by the runs", "contradicted": "contradicted by the runs",
            "not judged": "not judged, the runs fail their checks"}[test.outcome]


def _table_text(rows, rhos, policies, n_values, at_975, at_10, shrinks: DirectionTest,
                closer: DirectionTest | None) -> str:
    gap = gaps(rows)
    nmin, nmax = min(n_values), max(n_values)

    def gap_text(rho, p, n):  # u(q_n*) is exact: the gap has the estimate's standard error
        return number(gap[(rho, p, n)], _se(_row(rows, rho, n, p), _row(rows, rho, n, p)["runs"]))

    def difference_text(rho):  # the policies' runs have seeds of their own: independent, errors add in squares
        j, s = _row(rows, rho, nmax, "jlmu"), _row(rows, rho, nmax, "slta")
        return number(j["mean_utility_cv"] - s["mean_utility_cv"], math.hypot(_se(j, j["runs"]), _se(s, s["runs"])))
    levels = at_975.levels()
    lines = [f"- optimal assignment: class 1 holds {levels[0]} tasks and class 2 {levels[1] - 1} or {levels[1]} "
             f"(half and half: {at_975.q[1, 12] / 0.5:.2f}) at $\\rho = 9.75$; {at_10.levels()[0]} and "
             f"{at_10.levels()[1]} at $\\rho = 10$ (paper: 8 / 11-12, 8 / 12)."]
    for rho in rhos:
        for p in policies:
            lines.append(f"- {p.upper()}, $\\rho = {rho}$: gap $u(q_n^*) - E[u(q_n)]$ (control variate) "
                         f"{gap_text(rho, p, nmin)} at $n = {nmin}$, {gap_text(rho, p, nmax)} at $n = {nmax}$ "
                         "(± one standard error).")
    lines.append(f"- the deviation shrinks from $n = {nmin}$ to $n = {nmax}$ for both policies and loads: "
                 f"{_outcome(shrinks)}.")
    if closer is not None:
        ratio = min(gap[(rhos[1], p, nmax)] / gap[(rhos[0], p, nmax)] if gap[(rhos[0], p, nmax)] > 0 else np.inf
                    for p in policies)
        lines.append(f"- closer in the fractional case at $n = {nmax}$: {_outcome(closer)} "
                     f"(the integral-case gap is at least {number(ratio)} times the fractional one).")
    if set(policies) >= {"jlmu", "slta"}:
        lines.append(f"- JLMU minus SLTA at $n = {nmax}$ (± one standard error): " + ", ".join(
            f"{difference_text(rho)} ($\\rho = {rho}$)" for rho in rhos) + ".")
    over = [(r["rho"], r["n"], r["policy"]) for r in rows if r["utility_ci_high"] > r["upper_bound"]]
    lines.append("- estimates whose 95% CI reaches above $u(q_n^*)$ (the paper reports estimates slightly above it at "
                 f"$\\rho = 9.75$, $n = 350$ and 450): {len(over)} of {len(rows)}"
                 + (": " + ", ".join(f"$\\rho = {a}$, $n = {b}$ ({c})" for a, b, c in over) if over else "") + ".")
    return "\n".join(lines)


def compute(*, seed: int, rhos, n_values, policies, horizon: float, warmup: float, n_runs: int) -> Table1Results:
    """U-T1, U-P-jlmu, U-P-slta and U-V-thm2 at the notebook's parameters (see the notebook).

    U-T1's rows are :func:`wide_rows`, its table ``long`` the rows of
    :func:`~qtheory.utility.experiments.table1_rows` with ``beta_n`` (NaN for JLMU) and its table
    ``runs`` each run's estimates (the run means of the two statements' tests); U-P-jlmu and
    U-P-slta hold each policy's long rows; U-V-thm2 the rows of :func:`limit_rows`.
    """
    # the reader's parameters first, in the reader's words
    check_runs(n_runs=n_runs)
    check_window("warmup", warmup, "horizon", horizon)
    for k, rho in enumerate(rhos):
        check_positive(f"rhos[{k}]", rho)
    sizes = table1_system(1.0)  # the pool classes (the load does not enter)
    for k, n in enumerate(n_values):
        sizes.pool_counts(n, name=f"n_values[{k}]")
    params = dict(seed=seed, rhos=rhos, n_values=n_values, policies=policies, horizon=horizon, warmup=warmup,
                  n_runs=n_runs)
    if sorted(policies) != ["jlmu", "slta"]:
        raise ParameterError(f"`policies` must be ['jlmu', 'slta'], the two policies of Table 1 (got {policies!r})")
    if not list(rhos) or not list(n_values):
        raise ParameterError("`rhos` and `n_values` must each hold at least one value")
    # load (or compile) each policy's kernel here, before the replication workers fork: they inherit
    # it instead of each loading it again (or, on a fresh cache, each compiling it, 3-5 s apiece)
    for policy in policies:
        simulate(table1_system(rhos[0]), 2, policy, horizon=1.0, seed=0)
    rows, runs = table1_rows(rhos, n_values, policies, horizon=horizon, warmup=warmup, n_runs=n_runs, seed=seed,
                             system_factory=table1_system)
    for r in rows:
        r["beta_n"] = default_beta(r["n"]) if r["policy"] == "slta" else float("nan")
    at_975, at_10 = optimal_assignment(table1_system(9.75)), optimal_assignment(table1_system(10.0))
    assignments = assignment_claims(at_975, at_10)
    shrinks, closer = shrinks_test(runs, rhos, policies, n_values), closer_test(runs, rhos, policies, n_values)
    judged = (shrinks_claim(runs, rhos, policies, n_values), closer_claim(runs, rhos, policies, n_values))
    claims = (*assignments, *(c for c in judged if c is not None), reading_claim(assignments))
    wide = wide_rows(rows, rhos, n_values)
    sizes, loads = ", ".join(str(n) for n in n_values), ", ".join(f"{x:g}" for x in rhos)
    setting = f"{n_runs} runs to $t = {horizon:g}$, warm-up {warmup:g}"
    columns = {r"$\rho$": lambda r: f"{r['rho']:g}", "$n$": lambda r: r["n"],
               "$u(q_n^*)$": lambda r: f"{r['upper_bound']:.5f}",
               **{f"{p.upper()} $E[u(q_n)]$ [95% CI]": (lambda r, p=p: f"{r[p + '_mean_utility']:.5f} "
                                                               f"[{r[p + '_utility_ci_low']:.5f}, {r[p + '_utility_ci_high']:.5f}]")
                  for p in ("jlmu", "slta")},
               **{f"{p.upper()} empirical bound": (lambda r, p=p: f"{r[p + '_empirical_bound']:.5f}")
                  for p in ("jlmu", "slta")}}
    shown = Table(tuple(wide), columns,
                  caption=f"Table 1 of paper U: time-averaged utility over {n_runs} runs to $t = {horizon:g}$ (warm-up "
                          f"{warmup:g}), against the upper bound $u(q_n^*)$ of Theorem 1 and the empirical bound of "
                          "Sec. 3.4.1")
    gap_rows = [{"rho": r["rho"], "policy": r["policy"], "n": r["n"], "gap": r["upper_bound"] - r["mean_utility_cv"],
                 "gap_ci_low": r["upper_bound"] - r["utility_cv_ci_high"], "gap_ci_high": r["upper_bound"] - r["utility_cv_ci_low"]}
                for r in rows]
    table = ItemResult(
        "U-T1", params, seed, wide, claims=claims, tables={"long": rows, "runs": runs},
        summary=dict(deviation_shrinks=shrinks.resolved),
        displays=(shown,), text=_table_text(rows, rhos, policies, n_values, at_975, at_10, shrinks, closer),
        figure={"gap_rows": gap_rows,
                "titles": {rho: rf"$\rho = {rho}$" + (" (fractional)" if rho % 1 else " (integral)") for rho in rhos},
                "caption": rf"gap $u(q_n^*) - E[u(q_n)]$ of JLMU and SLTA (control-variate estimates, 95% CI) against the "
                           rf"number of pools $n = {sizes}$, at $\rho = {loads}$; {n_runs} runs per point from an empty "
                           f"system to $t = {horizon:g}$, warm-up {warmup:g}"})
    per_policy = {}
    for pol, item in (("jlmu", "U-P-jlmu"), ("slta", "U-P-slta")):
        mine = [r for r in rows if r["policy"] == pol]
        records = ()
        if pol == "slta":
            records = (slta_reading_claim(_row(rows, rhos[0], n_values[-1], "slta"),
                                          _row(rows, rhos[0], n_values[-1], "jlmu")),)
        per_policy[pol] = ItemResult(
            item, params, seed, mine, claims=records, summary=dict(beta="n^(-1/3)" if pol == "slta" else None),
            figure={"policy": pol, "rhos": list(rhos),
                    "caption": f"{pol.upper()} on the Table 1 system at $\\rho = {loads}$ against the number of pools "
                               f"$n = {sizes}$ ({setting}). Left: time-averaged utility (95% CI) and the bound $u(q_n^*)$ "
                               "(dashed). Right: "
                               + (r"fraction of time with $r_n = r_*$, $\beta_n = n^{-1/3}$" if pol == "slta"
                                  else "empirical bound minus the estimate")})
    thm2_rows = limit_rows(rows)
    nmin, nmax = min(n_values), max(n_values)
    first = {(r["rho"], r["policy"]): r["gap_to_limit"] for r in thm2_rows if r["n"] == nmin}
    last = {(r["rho"], r["policy"]): r["gap_to_limit"] for r in thm2_rows if r["n"] == nmax}
    thm2_table = Table(tuple(last), {r"$\rho$": lambda k: f"{k[0]:g}", "policy": lambda k: title(k[1]),
                                     f"$u(q_*) - E[u(q_n)]$ at $n = {nmin}$": lambda k: f"{first[k]:.5f}",
                                     f"at $n = {nmax}$": lambda k: f"{last[k]:.5f}"},
                       caption="Gap to the limit $u(q_*)$ at the smallest and largest $n$")
    thm2 = ItemResult(
        "U-V-thm2", params, seed, thm2_rows, displays=(thm2_table,), text=limit_text(thm2_rows),
        summary=dict(gap_smallest_n={str(k): v for k, v in first.items()}, gap_largest_n={str(k): v for k, v in last.items()}))
    return Table1Results(table, per_policy["jlmu"], per_policy["slta"], thm2)


def draw_policy(result: ItemResult):
    """The figure of U-P-jlmu or U-P-slta from its rows: the time-averaged utility against
    :math:`n` with the bound (left), and SLTA's fraction of time at :math:`r_*` or JLMU's distance
    to the empirical bound (right), in the left's colour for each load."""
    from ...plotting import PALETTE, ci_band, figure_legend, new_figure
    from ...results import column, select

    pol = result.figure["policy"]
    fig, axes = new_figure(2)
    for c, rho in enumerate(result.figure["rhos"]):
        pts = select(result.rows, rho=rho)
        x = np.array(column(pts, "n"))
        ci_band(axes[0][0], x, column(pts, "mean_utility"), column(pts, "utility_ci_low"), column(pts, "utility_ci_high"),
                label=rf"$\rho={rho}$ estimate", color=PALETTE[c], marker="o")
        axes[0][0].plot(x, column(pts, "upper_bound"), ls="--", color=PALETTE[c], label=rf"$\rho={rho}$: $u(q_n^*)$")
        right = (column(pts, "time_at_r_star") if pol == "slta"
                 else np.array(column(pts, "empirical_bound")) - np.array(column(pts, "mean_utility")))
        axes[0][1].plot(x, right, marker="o", color=PALETTE[c])
    axes[0][0].set_xscale("log"); axes[0][0].set_xlabel("number of pools $n$")
    axes[0][0].set_ylabel(r"time-averaged $u(q_n)$")
    axes[0][0].set_title(pol.upper())
    axes[0][1].set_xscale("log"); axes[0][1].set_xlabel("number of pools $n$")
    axes[0][1].set_ylabel("fraction of time with $r_n = r_*$" if pol == "slta" else "empirical bound minus estimate")
    # one legend below the panels (inside, it covered the curves); the right panel's lines take
    # the left's colours, one per load
    figure_legend(fig, [axes[0][0]], ncol=len(result.figure["rhos"]))
    return fig
