"""R-F3ab: the joint pmf of :math:`(Q_{\\{1,2\\}}, Q_{\\{2,3\\}})` in the M-model (Fig. 3(a), 3(b), Sec. 3.3).

:func:`compute` computes the exact joint distribution of the numbers of jobs of the two types of
the M-model (c.o.c., identical servers) twice, by the dynamic programme over prefix sets
(:func:`~qtheory.redundancy.productform.joint_type_pmf`, the product form (4)) and by the closed
form (13) with its constant :math:`C` (:func:`~qtheory.redundancy.productform.m_model_joint_pmf`);
:func:`closed_form_check` judges their agreement. Theorem 3.1 puts the mass on the line
:math:`q' = (p_{\\{2,3\\}}/p_{\\{1,2\\}})\\, q`, of slope 5/7 at the paper's :math:`p_{\\{1,2\\}} = 7/12`, as
:math:`\\lambda \\uparrow \\mu`; :func:`slope_claim` judges the exact ratio of the means closer to
the limit.
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim
from ...display import Table, number, parameter_number
from ...errors import ParameterError
from ...results import ItemResult, select
from ...validation import check_integer, check_load
from ..model import RedundancySystem, m_model
from ..productform import JOINT_TABLE_LIMIT, joint_type_pmf, m_model_joint_pmf, type_moments
from ..stability import require_loads_below

__all__ = ["ITEM", "LIMIT_SLOPE", "CLOSER_LOADS", "compute", "m_model_at", "load_rows", "type_ratio",
           "closed_form_check", "slope_claim", "pmf_grid"]

ITEM = "R-F3ab"
#: the slope of Fig. 3(a), 3(b)'s dashed line: :math:`p_{\{2,3\}}/p_{\{1,2\}}` at the paper's :math:`p_{\{1,2\}} = 7/12`
LIMIT_SLOPE = 5 / 7
#: loads closer to the heavy-traffic limit at which the exact ratio of the means is shown
CLOSER_LOADS = (0.999, 0.9999)
#: how close the exact ratio at the last of CLOSER_LOADS must come to 5/7
SLOPE_TOLERANCE = 0.01
#: (13) and the dynamic programme are both exact: they may differ by rounding only
ROUNDING = 1e-12
#: pmf values below this are left out of the table (they would not show in the figure)
PMF_FLOOR = 1e-14


def m_model_at(p12: float, loads) -> RedundancySystem:
    """The M-model of `p12` (R-F3ab's and R-F3cd's system), once every load of `loads` is below its
    critical load; a load past it is refused naming the `p12` that set it."""
    system = m_model(p12)
    require_loads_below(system, loads, because=f"`p12` = {p12:g} sets it: lambda* = min(1, 2 / (3 max(p12, 1 - p12)))")
    return system


def type_ratio(system: RedundancySystem, load: float) -> float:
    """The exact :math:`E[Q_{\\{2,3\\}}]/E[Q_{\\{1,2\\}}]` of the M-model at arrival rate `load` (c.o.c.)."""
    m12, m23 = type_moments(system, load)
    return m23.mean / m12.mean


def load_rows(system: RedundancySystem, p12: float, load: float, max_jobs: int, closed_form_max: int
              ) -> tuple[list[dict], dict]:
    """The joint pmf at one load, by the dynamic programme (up to `max_jobs` jobs per type) and by
    (13) (up to ``min(max_jobs, closed_form_max)``), and its summary.

    Rows ``load, q12, q23, pmf_dp, pmf_13`` for the cells with probability above
    :data:`PMF_FLOOR` (``pmf_13`` is NaN beyond the closed form's range); the summary holds the
    largest gap between the two, the mass in the table, the exact means and their ratio.
    """
    dp = joint_type_pmf(system, load, max_jobs)
    cf_max = min(max_jobs, closed_form_max)
    cf = m_model_joint_pmf(load, p12, cf_max)
    gap = float(np.abs(dp[: cf_max + 1, : cf_max + 1] - cf).max())
    m12, m23 = (m.mean for m in type_moments(system, load))  # exact, not truncated
    summary = dict(max_abs_gap_dp_vs_13=gap, mass_in_table=float(dp.sum()), mean_q12=m12, mean_q23=m23,
                   slope=m23 / m12)
    rows = []
    for i in range(max_jobs + 1):
        for j in range(max_jobs + 1):
            if dp[i, j] > PMF_FLOOR:
                rows.append(dict(load=load, q12=i, q23=j, pmf_dp=float(dp[i, j]),
                                 pmf_13=float(cf[i, j]) if i <= cf_max and j <= cf_max else float("nan")))
    return rows, summary


def closed_form_check(load: float, gap: float) -> Claim:
    """Internal check: the closed form (13) with its constant :math:`C` equals the product form (4)
    (the dynamic programme) up to rounding; `gap` is their largest absolute difference."""
    return Claim(item=ITEM, text=f"(13) with its constant C equals the product form (4) (max abs gap, load {load})",
                 category="check", reference=0.0, ours=float(gap), tolerance=ROUNDING)


def slope_claim(ratio: float, load: float = CLOSER_LOADS[-1]) -> Claim:
    """Theorem 3.1 / Fig. 3(b): :math:`E[Q_{\\{2,3\\}}]/E[Q_{\\{1,2\\}}] \\to 5/7`; `ratio` is its exact value
    at `load`, compared with 5/7 within :data:`SLOPE_TOLERANCE`."""
    return Claim(item=ITEM, text=rf"Theorem 3.1 / Fig. 3(b): $E[Q_{{\{{2,3\}}}}]/E[Q_{{\{{1,2\}}}}]$ tends to 5/7 "
                                 f"(exact value at load {load})",
                 paper=LIMIT_SLOPE, ours=float(ratio), tolerance=SLOPE_TOLERANCE,
                 source="Sec. 3.3; Fig. 3(a), 3(b) (dashed line of slope 5/7)")


def pmf_grid(rows, load: float, max_jobs: int) -> np.ndarray:
    """The dynamic programme's pmf at `load` as a ``(max_jobs + 1, max_jobs + 1)`` matrix indexed by
    ``[q12, q23]`` (zero where the table leaves a cell out), for the figure."""
    grid = np.zeros((max_jobs + 1, max_jobs + 1))
    for r in select(rows, load=load):
        grid[r["q12"], r["q23"]] = r["pmf_dp"]
    return grid


def compute(*, seed: int, p12: float, loads, max_jobs, closed_form_max: int) -> ItemResult:
    """R-F3ab at the notebook's parameters.

    Parameters
    ----------
    seed : int
        Recorded only (nothing here is random).
    p12 : float
        :math:`p_{\\{1,2\\}}` (the paper's 7/12).
    loads : sequence of floats
        Arrival rates :math:`\\lambda/\\mu` in (0, 1).
    max_jobs : sequence of ints
        Jobs per type up to which the dynamic programme runs, one per load.
    closed_form_max : int
        Jobs per type up to which (13) is evaluated.
    """
    if len(max_jobs) != len(loads):
        raise ParameterError(f"`max_jobs` must hold one entry per load of `loads` ({len(loads)} loads; got "
                             f"{list(max_jobs)!r}); set both to change the loads")
    for k, (load, qmax) in enumerate(zip(loads, max_jobs)):
        check_load(f"loads[{k}]", load, meaning="the arrival rate with identical servers of rate 1 (lambda* = 1)")
        check_integer(f"max_jobs[{k}]", qmax, low=1)
        # the M-model's joint table: (max_jobs + 1)^2 x 2^3 entries
        if (qmax + 1) ** 2 * 8 > JOINT_TABLE_LIMIT:
            raise ParameterError(f"`max_jobs[{k}]` must be at most {int((JOINT_TABLE_LIMIT / 8) ** 0.5) - 1}: the joint pmf "
                                 f"table of the M-model has (max_jobs + 1)^2 x 8 entries, limit {JOINT_TABLE_LIMIT:,} "
                                 f"(got {qmax})")
    check_integer("closed_form_max", closed_form_max, low=0)
    params = dict(seed=seed, p12=p12, loads=loads, max_jobs=max_jobs, closed_form_max=closed_form_max)
    system = m_model_at(p12, loads)
    rows, summary = [], {}
    for load, qmax in zip(loads, max_jobs):
        more, summary[load] = load_rows(system, p12, load, qmax, closed_form_max)
        rows += more
    closer = {load: type_ratio(system, load) for load in CLOSER_LOADS}
    claims = tuple(closed_form_check(load, summary[load]["max_abs_gap_dp_vs_13"]) for load in loads) \
        + (slope_claim(closer[CLOSER_LOADS[-1]]),)
    tables = (
        Table(tuple(loads), {r"load $\lambda/\mu$": lambda lam: f"{lam:g}",
                             r"largest $|\mathrm{DP} - (13)|$": lambda lam: f"{number(summary[lam]['max_abs_gap_dp_vs_13'], digits=3)}",
                             "mass shown": lambda lam: f"{summary[lam]['mass_in_table']:.6f}",
                             r"$E[Q_{\{2,3\}}]/E[Q_{\{1,2\}}]$": lambda lam: f"{summary[lam]['slope']:.4f}"},
              caption="Exact joint distribution: dynamic programme against the closed form (13); the limit slope "
                      f"is $5/7 = {LIMIT_SLOPE:.4f}$"),
        Table(tuple(closer.items()), {r"load $\lambda/\mu$": lambda kv: f"{kv[0]:g}",
                                      r"$E[Q_{\{2,3\}}]/E[Q_{\{1,2\}}]$ (exact)": lambda kv: f"{kv[1]:.4f}"},
              caption="Closer to the heavy-traffic limit 5/7"))
    caption = (
        rf"exact joint distribution of the numbers of jobs of the two types, M-model with $p_{{\{{1,2\}}}} = {parameter_number(p12)}$, c.o.c., at "
        rf"loads $\lambda/\mu = {', '.join(f'{x:g}' for x in loads)}$ (dynamic programme up to "
        f"{', '.join(str(m) for m in max_jobs)} jobs per type), with the line of slope 5/7 of Theorem 3.1; colour: "
        "the probability of each cell on a log scale spanning four decades below the most likely cell "
        "(cells below it, and those of probability 0, in the lowest colour)")
    return ItemResult(ITEM, params, seed, rows, claims=claims, displays=tables,
                      summary=dict(summary=summary, ratio_closer_to_limit=closer),
                      figure={"caption": caption, "slope": LIMIT_SLOPE})
