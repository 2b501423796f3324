"""R-X-eps: a little redundancy pools all servers (the :math:`\\epsilon` example of Sec. 3.3).

Single-server types plus one fully replicated type of probability :math:`\\epsilon/(N-1)`
(:func:`~qtheory.redundancy.model.single_plus_full`). For every :math:`\\epsilon > 0` the local
stability conditions (8) hold and Theorem 3.1 gives :math:`(1-\\lambda/\\mu) Q \\to \\mathrm{Exp}(1)`;
for :math:`\\epsilon = 0` the system is :math:`N` independent M/M/1 queues and the scaled total
tends to a sum of :math:`N` unit exponentials (:func:`limit_scaled_mean`, :func:`limit_cdf`).
:func:`compute` computes the exact scaled mean of the total (c.o.c. and c.o.s.) as
:math:`\\lambda \\uparrow \\mu` and its exact CDF at one load; :func:`scaled_mean_claim` judges the
paper's limit at the heaviest load.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ...claims import Claim
from ...display import Table
from ...errors import ParameterError
from ...results import ItemResult, select
from ...validation import check_integer, check_load, check_positive, check_real
from ..model import single_plus_full
from ..productform import total_jobs_moments, total_jobs_pmf
from ..stability import is_locally_stable

__all__ = ["ITEM", "RELATIVE_TOLERANCE", "compute", "limit_scaled_mean", "limit_cdf", "scaled_mean_claim"]

ITEM = "R-X-eps"
SOURCE = "Sec. 3.3 (single servers plus one fully replicated type)"
#: the exact scaled mean at the heaviest load must be within this fraction of its limit
RELATIVE_TOLERANCE = 0.05
#: the CDF table runs over scaled totals (1 - load) q up to this value, every second q
CDF_RANGE = 6
MECHANISMS = ("coc", "cos")


def limit_scaled_mean(eps: float, n_servers: int) -> float:
    """The limit of :math:`(1-\\lambda/\\mu) E[Q]`: 1 (one unit exponential) for :math:`\\epsilon > 0`,
    :math:`N` (a sum of :math:`N` of them) for :math:`\\epsilon = 0`."""
    return 1.0 if eps > 0 else float(n_servers)


def limit_cdf(x, eps: float, n_servers: int):
    """The limit CDF of :math:`(1-\\lambda/\\mu) Q` at `x`: Exp(1) for :math:`\\epsilon > 0`,
    Gamma(:math:`N`, 1) for :math:`\\epsilon = 0`."""
    return stats.expon.cdf(x) if eps > 0 else stats.gamma.cdf(x, n_servers)


def scaled_mean_claim(eps: float, n_servers: int, value: float, load: float) -> Claim:
    """Sec. 3.3: the scaled mean total tends to :func:`limit_scaled_mean`; `value` is its exact value
    at `load` (c.o.c.), compared within :data:`RELATIVE_TOLERANCE` of the limit."""
    limit = limit_scaled_mean(eps, n_servers)
    what = "1 (one Exp(1))" if eps > 0 else f"{n_servers} (sum of $N$ Exp(1))"
    return Claim(item=ITEM, text=f"$\\varepsilon = {eps}$: scaled mean total $\\to$ {what}, exact at load {load}",
                 paper=limit, ours=float(value), tolerance=RELATIVE_TOLERANCE * limit, source=SOURCE)


def compute(*, seed: int, n_servers: int, speeds, eps_values, loads, cdf_load: float, cdf_max_jobs: int) -> ItemResult:
    """R-X-eps at the notebook's parameters.

    Rows: ``kind, eps, load, mechanism, q, value, limit, locally_stable``; ``kind = "scaled mean"``
    (``value`` = :math:`(1-\\lambda/\\mu)E[Q]`, ``q`` NaN) for each :math:`\\epsilon`, load and mechanism,
    then ``kind = "cdf"`` (``value`` = :math:`P(Q \\le q)` at `cdf_load`) for each :math:`\\epsilon`.


    Parameters
    ----------
    seed : int
        Recorded only (nothing here is random).
    n_servers : int
        :math:`N`.
    speeds : sequence of `n_servers` floats
        Server speeds (the paper gives none; only their mean matters in the limit).
    eps_values : sequence of floats
        :math:`\\epsilon` in :math:`[0, N - 1)`.
    loads : sequence of floats
        :math:`\\lambda/\\mu` in (0, 1) for the scaled means.
    cdf_load : float
        :math:`\\lambda/\\mu` of the exact CDF (c.o.c.).
    cdf_max_jobs : int
        Jobs up to which that CDF is computed: at least :math:`6/(1 - \\lambda/\\mu)`, the figure's range.

    """
    check_integer("n_servers", n_servers, low=2)
    if len(speeds) != n_servers:
        raise ParameterError(f"`speeds` must hold one speed per server, `n_servers` = {n_servers} of them (got "
                             f"{len(speeds)}); set both to change the number of servers")
    for k, speed in enumerate(speeds):
        check_positive(f"speeds[{k}]", speed)
    for k, eps in enumerate(eps_values):
        if not 0.0 <= check_real(f"eps_values[{k}]", eps) < n_servers - 1:
            raise ParameterError(f"`eps_values[{k}]` must lie in [0, n_servers - 1) = [0, {n_servers - 1}): the mean "
                                 f"replication degree 1 + eps is at most the number of servers (got {eps!r})")
    for k, load in enumerate(loads):
        check_load(f"loads[{k}]", load)
    check_load("cdf_load", cdf_load)
    cdf_top = int(CDF_RANGE / (1 - cdf_load))
    check_integer("cdf_max_jobs", cdf_max_jobs, low=1)
    if cdf_max_jobs < cdf_top:
        raise ParameterError(f"`cdf_max_jobs` must be at least {CDF_RANGE}/(1 - cdf_load) = {cdf_top}, the "
                             f"figure's range (got {cdf_max_jobs})")
    params = dict(seed=seed, n_servers=n_servers, speeds=speeds, eps_values=eps_values, loads=loads,
                  cdf_load=cdf_load, cdf_max_jobs=cdf_max_jobs)
    rows = []
    for eps in eps_values:
        system = single_plus_full(n_servers, eps, speeds)
        local = int(is_locally_stable(system))
        for f in loads:
            for mech in MECHANISMS:
                moments = total_jobs_moments(system, f * system.mean_speed, mech)
                rows.append(dict(kind="scaled mean", eps=eps, load=f, mechanism=mech, q=np.nan,
                                 value=(1 - f) * moments.mean, limit=limit_scaled_mean(eps, n_servers),
                                 locally_stable=local))
        cdf = np.cumsum(total_jobs_pmf(system, cdf_load * system.mean_speed, cdf_max_jobs, "coc"))
        for q in range(0, cdf_top + 1, 2):
            rows.append(dict(kind="cdf", eps=eps, load=cdf_load, mechanism="coc", q=q, value=float(cdf[q]),
                             limit=float(limit_cdf((1 - cdf_load) * q, eps, n_servers)), locally_stable=local))
    last = max(loads)
    claims = tuple(scaled_mean_claim(eps, n_servers, select(rows, kind="scaled mean", eps=eps, load=last,
                                                           mechanism="coc")[0]["value"], last)
                   for eps in eps_values)
    means = {(r["eps"], r["load"], r["mechanism"]): r for r in select(rows, kind="scaled mean")}
    table = Table(tuple((eps, f) for eps in eps_values for f in loads), {
        r"$\varepsilon$": lambda k: f"{k[0]:g}", r"load $\lambda/\mu$": lambda k: f"{k[1]:g}",
        r"$(1-\lambda/\mu)\,E[Q]$, c.o.c.": lambda k: f"{means[(*k, 'coc')]['value']:.4f}",
        "c.o.s.": lambda k: f"{means[(*k, 'cos')]['value']:.4f}", "limit": lambda k: f"{means[(*k, 'coc')]['limit']:g}"},
        caption=f"Scaled mean number of jobs, single servers plus one fully replicated type, $N = {n_servers}$")
    # at eps = 0 no job is replicated, so the two mechanisms are one system and their curves coincide
    same = ("; at $\\varepsilon = 0$ every job has one replica, so the two coincide and each circle sits inside "
            "its square") if 0 in eps_values else ""
    caption = (
        rf"single servers plus one fully replicated type ($N = {n_servers}$, speeds ${', '.join(f'{x:g}' for x in speeds)}$) "
        rf"for $\varepsilon = {', '.join(f'{x:g}' for x in eps_values)}$. Left: scaled mean number of jobs against "
        rf"$1-\lambda/\mu$ at loads {', '.join(f'{x:g}' for x in loads)} (c.o.c.: filled circles, c.o.s.: open "
        rf"squares{same}). Right: exact CDF of the "
        rf"scaled number of jobs at $\lambda = {cdf_load:g}\mu$ (c.o.c.) against the Exp(1) and Gamma({n_servers}, 1) limits")
    x = np.linspace(0, CDF_RANGE, 200)
    figure = dict(caption=caption, limit_x=x, limit_exp=limit_cdf(x, 1.0, n_servers),
                  limit_gamma=limit_cdf(x, 0.0, n_servers))
    return ItemResult(ITEM, params, seed, rows, claims=claims, displays=(table,), figure=figure)
