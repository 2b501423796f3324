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
from ...stats import mean_ci
from ..suboptimal import (SIM_WARMUP, conservative_mean_utility, conservative_rule, critical_eps, jlmu_mean_utility, jlmu_rule,
                          simulated_run_utilities, stationary_mean_utility)

__all__ = ["ITEM", "compute", "advantage_rows", "simulated_points", "check_rows", "ctmc_error", "simulation_check",
           "reading_claim", "suboptimality_claim"]

ITEM = "U-V-sub"
SOURCE = "Sec. 8.3"
#: largest |truncated chain - closed form| for which the closed forms count as confirmed (the chain
#: is truncated far in the Poisson tail: its error is at rounding level)
CTMC_TOLERANCE = 1e-9


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


#: the two policies simulated at each check point
_POLICIES = ("jlmu", "conservative")


def simulated_points(check_points, a: float, *, sim_horizon: float, sim_runs: int, seed: int) -> dict:
    """The run means of the simulations of both policies at each ``(eps, rho)`` of `check_points`:
    ``{(eps, rho, policy): array of sim_runs time-averaged aggregate utilities}``, the runs of point
    ``k`` and a policy from ``child_seed(seed, "sec83", k, policy)``."""
    return {(eps, rho, policy): simulated_run_utilities(eps, rho, policy, horizon=sim_horizon, n_runs=sim_runs,
                                                        seed=child_seed(seed, "sec83", k, policy), a=a)
            for k, (eps, rho) in enumerate(check_points) for policy in _POLICIES}


def check_rows(check_points, a: float, *, sim_horizon: float, sim_runs: int, seed: int, runs: dict | None = None
               ) -> list[dict]:
    """Both policies at each ``(eps, rho)`` of `check_points` by three routes: the closed form,
    the truncated chain and `sim_runs` simulations (``t_vs_closed_form``: the simulation's
    :math:`t` statistic against the closed form; NaN for the exact routes). The simulations are
    `runs` (:func:`simulated_points`) when given, else run here."""
    if runs is None:
        runs = simulated_points(check_points, a, sim_horizon=sim_horizon, sim_runs=sim_runs, seed=seed)
    rows = []
    for eps, rho in check_points:
        for policy, closed, rule in (("jlmu", jlmu_mean_utility(eps, rho, a), jlmu_rule),
                                     ("conservative", conservative_mean_utility(eps, rho, a), conservative_rule)):
            ctmc = stationary_mean_utility(eps, rho, rule, a)
            sim = mean_ci(runs[(eps, rho, policy)])
            for method, val, lo, hi in (("closed form", closed, closed, closed), ("truncated CTMC", ctmc, ctmc, ctmc),
                                        ("simulation", float(sim.mean), float(sim.ci_low), float(sim.ci_high))):
                rows.append({"eps": eps, "rho": rho, "policy": policy, "method": method, "mean_utility": val,
                             "ci_low": lo, "ci_high": hi, "se": float(sim.se) if method == "simulation" else 0.0,
                             "runs": sim.n if method == "simulation" else 0,
                             "t_vs_closed_form": float((val - closed) / sim.se)
                             if method == "simulation" else float("nan")})
    return rows


def ctmc_error(checks: list[dict]) -> float:
    """Largest :math:`|`truncated chain :math:`-` closed form:math:`|` over the check points and policies."""
    closed = {(c["eps"], c["rho"], c["policy"]): c["mean_utility"] for c in checks if c["method"] == "closed form"}
    return max(abs(c["mean_utility"] - closed[(c["eps"], c["rho"], c["policy"])])
               for c in checks if c["method"] == "truncated CTMC")


def simulation_check(checks: list[dict], runs: dict) -> Claim:
    """The simulations agree with the closed forms at the check points: one joint test of the
    independent simulated points (:func:`qtheory.verdicts.independent_test`; every point and
    policy has its own seed), Student t with ``runs - 1`` degrees of freedom, margin 5% of
    the closed form. The test checks the run means of each point (`runs`, as
    :func:`simulated_points` returns them; the rows' means and standard errors must be theirs):
    too few of them, or skewed ones, and the record is not resolved. The record's p-value joins
    the page's Holm family."""
    from ...verdicts import independent_test

    closed = {(c["eps"], c["rho"], c["policy"]): c["mean_utility"] for c in checks if c["method"] == "closed form"}
    sims = [c for c in checks if c["method"] == "simulation"]
    if not sims:
        raise ParameterError("`checks` must hold simulated points")
    values = []
    for c in sims:
        key = (c["eps"], c["rho"], c["policy"])
        if key not in runs:
            raise ParameterError(f"`runs` holds no run means for eps = {c['eps']:g}, rho = {c['rho']:g}, {c['policy']}")
        x = np.asarray(runs[key], dtype=float)
        est = mean_ci(x)
        if x.size != c["runs"] or not np.isclose(est.mean, c["mean_utility"], rtol=1e-12, atol=0.0) \
                or not np.isclose(est.se, c["se"], rtol=1e-9, atol=0.0):
            raise ParameterError(f"`runs` at eps = {c['eps']:g}, rho = {c['rho']:g}, {c['policy']} are not the run means "
                                 f"of the simulated row (their {x.size} runs give mean {float(est.mean)!r}, se "
                                 f"{float(est.se)!r}; the row: {c['runs']} runs, {c['mean_utility']!r}, {c['se']!r})")
        values.append(x)
    exact = [closed[(c["eps"], c["rho"], c["policy"])] for c in sims]
    test = independent_test([c["mean_utility"] - e for c, e in zip(sims, exact)], [c["se"] for c in sims],
                            [c["runs"] - 1 for c in sims], exact=exact, runs=values)
    points = sorted({(c["eps"], c["rho"]) for c in sims})
    return test.record(item=ITEM, category="check",
                       text="simulated mean utilities of JLMU and of sending every task to pool 2 against their closed "
                            "forms",
                       evidence=f"{len(points)} point{'s' if len(points) != 1 else ''} "
                                + ", ".join(f"($\\varepsilon$ = {e:g}, $\\rho$ = {r:g})" for e, r in points)
                                + f", {sims[0]['runs']} runs each.")


def reading_claim(worst: float) -> Claim:
    """Our reading of Sec. 8.3's utilities: consistent with the text when the closed forms that
    follow from it (JLMU keeps pool 2 at 0 or 1 task) equal the truncated chain within
    :data:`CTMC_TOLERANCE` (the simulations are judged by :func:`simulation_check`)."""
    agree = worst <= CTMC_TOLERANCE
    return Claim(
        item=ITEM, category="reconstruction", source=SOURCE, ours=worst,
        text=r"Sec. 8.3 utilities, our reading: $u_1(x) = \varepsilon x$, $u_2(x) = a\,1\{x \ge 1\}$; JLMU then keeps "
             "pool 2 at 0 or 1 task",
        verdict="consistent with the text" if agree else "not confirmed: the closed forms differ from the chain",
        alternatives=r"$u_2(x) = a \min(x, 1)$ (the same on the integers); $u_1$ any increasing concave function with "
                     r"increments $u_1(x+1) - u_1(x)$ below $a$, for which the closed form of $E[U]$ changes but JLMU's "
                     "rule does not",
        evidence=f"closed forms of E[U] (JLMU) and E[V] (all to pool 2) equal the truncated-CTMC values "
                 f"(largest difference given, tolerance {CTMC_TOLERANCE:g}); the simulations are a check of their own")


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
    # the figure's map of (eps, rho) needs two points along each axis
    check_integer("n_eps", n_eps, low=2)
    check_positive("rho_max", rho_max)
    check_integer("n_rho", n_rho, low=2)
    check_integer("sim_runs", sim_runs, low=2)
    if check_positive("sim_horizon", sim_horizon) <= SIM_WARMUP:
        raise ParameterError(f"`sim_horizon` must be longer than the warm-up of {SIM_WARMUP:g} time units discarded "
                             f"from each simulated run (got {sim_horizon:g})")
    if not list(check_points):
        raise ParameterError("`check_points` must hold at least one [eps, rho] pair")
    for k, point in enumerate(check_points):
        try:
            eps, rho = (float(x) for x in point)
        except (TypeError, ValueError):
            raise ParameterError(f"`check_points[{k}]` must be a pair [eps, rho] of numbers (got {point!r})") from None
        if not (0.0 < eps < a and 0.0 < rho < np.inf):
            raise ParameterError(f"`check_points[{k}]` = [eps, rho] needs 0 < eps < `a` = {a:g} (pool 1's marginal "
                                 f"utility below pool 2's) and a finite rho > 0 (got {list(point)!r})")
        if any(float(e) == eps and float(r) == rho for e, r in check_points[:k]):
            raise ParameterError(f"`check_points[{k}]` = {list(point)!r} repeats an earlier point (the joint test "
                                 "takes each point's simulations as independent estimates of its own)")
    rhos = np.linspace(rho_max / n_rho, rho_max, n_rho)
    eps_grid = [a * k / (n_eps + 1) for k in range(1, n_eps + 1)]
    grid = advantage_rows(eps_grid, rhos, a)
    runs = simulated_points(check_points, a, sim_horizon=sim_horizon, sim_runs=sim_runs, seed=seed)
    checks = check_rows(check_points, a, sim_horizon=sim_horizon, sim_runs=sim_runs, seed=seed, runs=runs)
    worst = ctmc_error(checks)
    sims = simulation_check(checks, runs)
    sim_t = max(abs(c["t_vs_closed_form"]) for c in checks if c["method"] == "simulation")
    share = float(np.mean([r["jlmu_loses"] for r in grid]))
    shown = Table((("largest $|$truncated CTMC $-$ closed form$|$", f"{number(worst, digits=2)}"),
                   ("simulation against closed form: largest $|t|$, joint $p$", f"{sim_t:.2f}, {number(sims.p_value, digits=2)}"),
                   (r"share of the $(\varepsilon, \rho)$ grid where JLMU loses", f"{share:.3f}")),
                  {"quantity": lambda kv: kv[0], "value": lambda kv: kv[1]})
    lines = [f"- fraction of the $(\\varepsilon, \\rho)$ grid where JLMU loses: {share:.3f};",
             f"- $\\varepsilon_c(\\rho)$ at $\\rho = 10^{{-4}}$: {critical_eps(1e-4, a):.4f} ($a/2$ = {a / 2:g}); "
             f"$\\rho^2 \\varepsilon_c(\\rho)$ at $\\rho = {rho_max:g}$: {rho_max ** 2 * critical_eps(rho_max, a):.3f} "
             f"(tends to $a$ = {a:g});",
             f"- largest |truncated CTMC - closed form|: {number(worst, digits=2)}; largest |t| of the simulations against the closed "
             f"forms: {sim_t:.2f}, joint test of the simulated points $p = {number(sims.p_value, digits=2)}$."]
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
    return ItemResult(ITEM, params, seed, grid, claims=(reading_claim(worst), suboptimality_claim(grid), sims),
                      tables={"checks": checks}, displays=(shown,), text="\n".join(lines), figure=figure,
                      summary=dict(max_ctmc_error=worst, max_sim_t=sim_t, sim_p=sims.p_value, sim_resolved=sims.resolved,
                                   eps_c_limit_rho_to_0=critical_eps(1e-4, a)))
