"""U-V-sub: JLMU is strictly suboptimal in the prelimit (Sec. 8.3).

Two pools with :math:`u_1(x) = \\varepsilon x` and :math:`u_2(x) = a\\,1\\{x \\ge 1\\}` (our reading of
Sec. 8.3). :func:`compute` tabulates the closed forms of :math:`E[U]` (JLMU) and :math:`E[V]` (every
task to pool 2) on a grid of :math:`(\\varepsilon, \\rho)` (:func:`advantage_rows`) and checks both
closed forms at a few points against the truncated Markov chain and against simulation
(:func:`check_rows`). The reading is judged by :func:`reading_claim` (the three routes agree:
:func:`ctmc_error`, :func:`simulation_agreement`), the suboptimality by :func:`suboptimality_claim`.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ...claims import Claim
from ...display import Table, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed
from ...validation import check_integer, check_positive
from ..suboptimal import (conservative_mean_utility, conservative_rule, critical_eps, jlmu_mean_utility, jlmu_rule,
                          simulated_mean_utility, stationary_mean_utility)

__all__ = ["ITEM", "compute", "advantage_rows", "check_rows", "ctmc_error", "simulation_agreement", "reading_claim",
           "suboptimality_claim"]

ITEM = "U-V-sub"
SOURCE = "Sec. 8.3"
#: largest |truncated chain - closed form| for which the closed forms count as confirmed (the chain
#: is truncated far in the Poisson tail: its error is at rounding level)
CTMC_TOLERANCE = 1e-9
#: two-sided level of the Bonferroni limit on the simulations' t statistics
SIM_LEVEL = 1e-3


def advantage_rows(eps_grid, rhos, a: float) -> list[dict]:
    """One row per :math:`(\\varepsilon, \\rho)`: the closed forms :math:`E[U]` (``jlmu``) and
    :math:`E[V]` (``conservative``), the advantage :math:`E[V] - E[U]`, whether JLMU loses
    (``jlmu_loses``: :math:`E[V] > E[U]`) and :math:`\\varepsilon_c(\\rho)`."""
    rows = []
    for eps in eps_grid:
        for rho in rhos:
            u, v = jlmu_mean_utility(eps, rho, a), conservative_mean_utility(eps, rho, a)
            rows.append({"eps": eps, "rho": float(rho), "jlmu": u, "conservative": v, "advantage_conservative": v - u,
                         "jlmu_loses": bool(v > u), "critical_eps": critical_eps(rho, a)})
    return rows


def check_rows(check_points, a: float, *, sim_horizon: float, sim_runs: int, seed: int) -> list[dict]:
    """Both policies at each ``(eps, rho)`` of `check_points` by three routes: the closed form,
    the truncated chain and `sim_runs` simulations (``t_vs_closed_form``: the simulation's
    :math:`t` statistic against the closed form; NaN for the exact routes)."""
    rows = []
    for k, (eps, rho) in enumerate(check_points):
        for policy, closed, rule in (("jlmu", jlmu_mean_utility(eps, rho, a), jlmu_rule),
                                     ("conservative", conservative_mean_utility(eps, rho, a), conservative_rule)):
            ctmc = stationary_mean_utility(eps, rho, rule, a)
            sim = simulated_mean_utility(eps, rho, policy, horizon=sim_horizon, n_runs=sim_runs,
                                         seed=child_seed(seed, "sec83", k, policy), a=a)
            for method, val, lo, hi in (("closed form", closed, closed, closed), ("truncated CTMC", ctmc, ctmc, ctmc),
                                        ("simulation", float(sim.mean), float(sim.ci_low), float(sim.ci_high))):
                rows.append({"eps": eps, "rho": rho, "policy": policy, "method": method, "mean_utility": val,
                             "low": lo, "high": hi, "t_vs_closed_form": float((val - closed) / sim.se)
                             if method == "simulation" else float("nan")})
    return rows


def ctmc_error(checks: list[dict]) -> float:
    """Largest :math:`|`truncated chain :math:`-` closed form:math:`|` over the check points and policies."""
    closed = {(c["eps"], c["rho"], c["policy"]): c["mean_utility"] for c in checks if c["method"] == "closed form"}
    return max(abs(c["mean_utility"] - closed[(c["eps"], c["rho"], c["policy"])])
               for c in checks if c["method"] == "truncated CTMC")


def simulation_agreement(checks: list[dict], sim_runs: int) -> tuple[float, float, bool]:
    """``(max_t, limit, inside)``: the largest :math:`|t|` of the simulations against the closed
    forms, its two-sided Bonferroni limit at level :data:`SIM_LEVEL` over all simulated points
    (:math:`t` with ``sim_runs - 1`` degrees of freedom), and whether it stays below."""
    sims = [abs(c["t_vs_closed_form"]) for c in checks if c["method"] == "simulation"]
    limit = float(stats.t.ppf(1 - SIM_LEVEL / (2 * len(sims)), sim_runs - 1))
    max_t = max(sims)
    return max_t, limit, bool(max_t < limit)


def reading_claim(worst: float, sim_t: float, t_limit: float) -> Claim:
    """Our reading of Sec. 8.3's utilities: consistent with the text when the closed forms that
    follow from it (JLMU keeps pool 2 at 0 or 1 task) equal the chain within
    :data:`CTMC_TOLERANCE` and the simulations stay within the Bonferroni limit."""
    agree = worst <= CTMC_TOLERANCE and sim_t < t_limit
    return Claim(
        item=ITEM, category="reconstruction", source=SOURCE, ours=worst,
        text=r"Sec. 8.3 utilities, our reading: $u_1(x) = \varepsilon x$, $u_2(x) = a\,1\{x \ge 1\}$; JLMU then keeps "
             "pool 2 at 0 or 1 task",
        verdict="consistent with the text" if agree else "not confirmed: the closed forms differ from the chain or the "
                                                          "simulations",
        alternatives=r"$u_2(x) = a \min(x, 1)$ (the same on the integers); $u_1$ any increasing concave function with "
                     r"increments $u_1(x+1) - u_1(x)$ below $a$, for which the closed form of $E[U]$ changes but JLMU's "
                     "rule does not",
        evidence=f"closed forms of E[U] (JLMU) and E[V] (all to pool 2) equal the truncated-CTMC values "
                 f"(largest difference given); simulations within {sim_t:.2f} SE of them (limit {t_limit:.2f})")


def suboptimality_claim(grid: list[dict]) -> Claim:
    """Sec. 8.3's statement: JLMU loses to sending every task to pool 2 somewhere on the grid."""
    share = float(np.mean([r["jlmu_loses"] for r in grid]))
    return Claim(
        item=ITEM, source=SOURCE, holds=bool(any(r["jlmu_loses"] for r in grid)), ours=share,
        text=r"Sec. 8.3: JLMU is strictly suboptimal for some $(\varepsilon, \rho)$ (exact, our reading of the utilities)",
        evidence=f"JLMU loses to sending every task to pool 2 on {share:.0%} of the grid. "
                 r"$E[V] - E[U] > 0$ exactly when $\varepsilon < \varepsilon_c(\rho)$, where $\varepsilon_c(\rho) = "
                 r"a\,g(\rho)/\rho^2$ and $g(\rho) = h(\rho) - \rho$ with $h(\rho) = (1+\rho)(1-e^{-\rho})$.")


def compute(*, seed: int, a: float, n_eps: int, rho_max: float, n_rho: int, check_points, sim_horizon: float,
            sim_runs: int) -> ItemResult:
    """U-V-sub at the notebook's parameters (see the notebook for their meaning).

    Rows: :func:`advantage_rows` on ``eps = a k / (n_eps + 1)``, ``k = 1..n_eps``, and `n_rho`
    loads up to `rho_max`; table ``checks``: :func:`check_rows` at `check_points`.
    """
    params = dict(seed=seed, a=a, n_eps=n_eps, rho_max=rho_max, n_rho=n_rho, check_points=check_points,
                  sim_horizon=sim_horizon, sim_runs=sim_runs)
    check_positive("a", a)
    check_integer("n_eps", n_eps, low=1)
    check_positive("rho_max", rho_max)
    check_integer("n_rho", n_rho, low=1)
    check_integer("sim_runs", sim_runs, low=2)
    if not list(check_points):
        raise ParameterError("`check_points` must hold at least one [eps, rho] pair")
    rhos = np.linspace(rho_max / n_rho, rho_max, n_rho)
    eps_grid = [a * k / (n_eps + 1) for k in range(1, n_eps + 1)]
    grid = advantage_rows(eps_grid, rhos, a)
    checks = check_rows(check_points, a, sim_horizon=sim_horizon, sim_runs=sim_runs, seed=seed)
    worst = ctmc_error(checks)
    sim_t, t_limit, inside = simulation_agreement(checks, sim_runs)
    share = float(np.mean([r["jlmu_loses"] for r in grid]))
    shown = Table((("largest $|$truncated CTMC $-$ closed form$|$", f"{number(worst, digits=2)}"),
                   ("largest $|t|$ of simulation against closed form (limit)", f"{sim_t:.2f} ({t_limit:.2f})"),
                   (r"share of the $(\varepsilon, \rho)$ grid where JLMU loses", f"{share:.3f}")),
                  {"quantity": lambda kv: kv[0], "value": lambda kv: kv[1]})
    lines = [f"- fraction of the $(\\varepsilon, \\rho)$ grid where JLMU loses: {share:.3f};",
             f"- $\\varepsilon_c(\\rho)$ at $\\rho = 10^{{-4}}$: {critical_eps(1e-4, a):.4f} ($a/2$ = {a / 2:g}); "
             f"$\\rho^2 \\varepsilon_c(\\rho)$ at $\\rho = {rho_max:g}$: {rho_max ** 2 * critical_eps(rho_max, a):.3f} "
             f"(tends to $a$ = {a:g});",
             f"- largest |truncated CTMC - closed form|: {number(worst, digits=2)}; largest |t| of the simulations against the closed "
             f"forms: {sim_t:.2f}, {'below' if inside else 'above'} the Bonferroni limit {t_limit:.2f}."]
    eps0 = check_points[0][0]
    caption = (rf"Sec. 8.3 example with $a = {a:g}$. Left: advantage $E[V] - E[U]$ of sending every task to pool 2 over "
               rf"JLMU on a grid of {n_eps} values of $\varepsilon$ and {n_rho} loads up to {rho_max:g} (black line: zero; "
               rf"dashed: $\varepsilon_c(\rho)$). Right: both policies' closed forms at $\varepsilon = {eps0:g}$ and "
               f"simulations ({sim_runs} runs to $t = {sim_horizon:g}$, 95% CI)")
    advantage = np.array([r["advantage_conservative"] for r in grid]).reshape(len(eps_grid), rhos.size)
    figure = {"caption": caption, "rhos": rhos, "eps": np.array(sorted({r["eps"] for r in grid})),
              "advantage": advantage, "colour_range": (float(advantage.min()), max(float(advantage.max()), 1e-9)),
              "critical_eps": critical_eps(rhos, a), "eps0": eps0,
              "jlmu_at_eps0": [jlmu_mean_utility(eps0, r, a) for r in rhos],
              "conservative_at_eps0": [conservative_mean_utility(eps0, r, a) for r in rhos]}
    return ItemResult(ITEM, params, seed, grid, claims=(reading_claim(worst, sim_t, t_limit), suboptimality_claim(grid)),
                      tables={"checks": checks}, displays=(shown,), text="\n".join(lines), figure=figure,
                      summary=dict(max_ctmc_error=worst, max_sim_t=sim_t, sim_t_limit=t_limit, sim_agrees=inside,
                                   eps_c_limit_rho_to_0=critical_eps(1e-4, a)))
