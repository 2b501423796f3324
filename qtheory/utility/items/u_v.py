"""U-V: numerical verification of the theorems of paper U, one result per manifest item.

:func:`compute` returns :class:`VerificationResults`, one :class:`~qtheory.results.ItemResult` per
item, all on the Table 1 system (:func:`~qtheory.utility.examples.table1_system`) unless stated:

- **U-V-thm1** (Theorem 1) and **U-P-base**: every policy's time-averaged utility against the bound
  :math:`u(q_n^*)`, the exact chains of a 4-pool system (:func:`theorem1_claim`) and random
  assignment against its closed form (:func:`random_assignment_utility`, :func:`random_check_claim`);
- **U-V-prop1** (Proposition 1): the greedy :math:`q^*` against a linear program on Table 1, Fig. 3
  and random concave systems (:func:`lp_cases`);
- **U-V-thm3** / **U-V-thm4** (Theorems 3, 4): the fluid model from three starts (:func:`fluid_starts`),
  the exact solver against the splitting scheme (observed order by :func:`~qtheory.stats.loglog_slope`)
  and the distance to :math:`q_*`;
- **U-V-thm5** (Theorem 5): JLMU against the fluid trajectory as :math:`n` grows;
- **U-V-thm6** (Theorem 6): SLTA learning :math:`r_*`;
- **U-X-poisson**: :math:`n s_n` against Poisson(:math:`n\\rho`) for every policy (:func:`poisson_claims`).
"""

from __future__ import annotations

import dataclasses

from typing import NamedTuple

import numpy as np
from scipy import stats

from ...claims import Claim
from ...display import Table, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed, generator
from ...stats import familywise_t_bound, loglog_slope
from ...validation import check_integer, check_positive, check_runs, check_times, check_window
from ..examples import figure3_left_system, figure3_right_system, table1_system
from ..exact import exact_stationary
from ..experiments import (POISSON_BIN_MARGIN, fluid_convergence_rows, fluid_limit_rows, lp_rows, poisson_rows,
                           poisson_samples, poisson_test, policy_runs,
                           slta_learning_rows, solver_agreement_rows)
from ..model import LogUtility, PiecewiseLinearUtility, PoolSystem, tabulate
from ..optimal import optimal_assignment, upper_bound
from ..policies import title
from ..simulation import POLICIES

__all__ = ["compute", "VerificationResults", "fluid_starts", "lp_cases", "random_assignment_utility",
           "random_check_claim", "theorem1_claim", "all_below_bound", "above_bound", "observed_orders",
           "poisson_claims", "draw_theorem1", "draw_baselines", "draw_fluid_convergence", "draw_fluid_limit",
           "draw_learning", "draw_poisson"]

#: the baseline policies of U-P-base (the others of POLICIES are the paper's and ours)
BASELINES = ("random", "jsq", "conservative")
#: the coordinates (class index from 0, level) whose paths U-V-thm5 draws
TRACK = ((0, 8), (1, 12), (0, 15), (1, 3))
#: the small system of the exact check of Theorem 1: 4 pools, arrivals blocked at 22 tasks
SMALL_N, SMALL_MAX_TASKS = 4, 22


class VerificationResults(NamedTuple):
    """The eight results of the U-V notebook, one per manifest ID."""

    thm1: ItemResult        # U-V-thm1
    base: ItemResult        # U-P-base
    prop1: ItemResult       # U-V-prop1
    thm3: ItemResult        # U-V-thm3
    thm4: ItemResult        # U-V-thm4
    thm5: ItemResult        # U-V-thm5
    thm6: ItemResult        # U-V-thm6
    poisson: ItemResult     # U-X-poisson


def small_system() -> PoolSystem:
    """The 4-pool system of the exact check: :math:`x\\log(r_i/x)`, :math:`r = (3, 5)`, :math:`\\rho = 1.5`."""
    return PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)


def fluid_starts() -> dict[str, np.ndarray]:
    """Three initial occupancies of the Table 1 system (two classes of half the pools): empty, every
    pool with 20 tasks, and class-1 pools with 15 tasks, class-2 pools with 2."""
    def full(level):
        q = np.zeros((2, level + 2))
        q[:, : level + 1] = 0.5
        return q

    empty = np.zeros((2, 3))
    empty[:, 0] = 0.5
    mixed = full(30)
    mixed[0, 16:] = 0.0
    mixed[1, 3:] = 0.0
    return {"empty": empty, "all pools with 20 tasks": full(20), "class 1: 15 tasks, class 2: 2 tasks": mixed}


#: the smallest class fraction of a random case of Proposition 1's check: the linear program's depth
#: floor(rho / alpha_min) + 2 stays at most 122 (loads up to 6), whatever the seed
LP_MIN_FRACTION = 0.05


def lp_cases(seed: int, n_random_lp: int) -> dict[str, tuple[PoolSystem, float]]:
    """The systems of Proposition 1's check: Table 1 at both loads, the two Fig. 3 systems and
    `n_random_lp` random concave piecewise-linear systems (drawn from ``child_seed(seed, "prop1")``).

    The random family is bounded: 1-3 classes; per class 1-3 pieces with slopes sorted from
    standard normal draws and breakpoints at cumulative sums of integers 1-3; class fractions
    :data:`LP_MIN_FRACTION` + (1 - m :data:`LP_MIN_FRACTION`) x Dirichlet(1, ..., 1), so none is
    below :data:`LP_MIN_FRACTION`; load uniform on [0.2, 6].
    """
    rng = generator(child_seed(seed, "prop1"))
    cases = {"Table 1, rho = 9.75": (table1_system(9.75), 9.75), "Table 1, rho = 10": (table1_system(10.0), 10.0),
             "Fig. 3 left, rho = 5": (figure3_left_system(), 5.0), "Fig. 3 right, rho = 7": (figure3_right_system(), 7.0)}
    for k in range(n_random_lp):
        m = int(rng.integers(1, 4))
        utils = []
        for _ in range(m):
            nb = int(rng.integers(1, 4))
            utils.append(PiecewiseLinearUtility(tuple(np.sort(rng.normal(size=nb + 1))[::-1]),
                                                tuple(np.cumsum(rng.integers(1, 4, size=nb)).astype(float))))
        alpha = LP_MIN_FRACTION + (1.0 - m * LP_MIN_FRACTION) * rng.dirichlet(np.ones(m))
        cases[f"random concave #{k}"] = (PoolSystem(tuple(utils), tuple(alpha / alpha.sum()), 1.0),
                                         float(rng.uniform(0.2, 6)))
    return cases


def random_assignment_utility(system: PoolSystem, rho: float) -> float:
    """:math:`E[u(q_n)]` under random assignment: every pool is an M/M/:math:`\\infty` queue with load
    :math:`\\rho`, so it is :math:`\\sum_i \\alpha(i) E[u_i(\\mathrm{Poisson}(\\rho))]` (the Poisson tail
    beyond :math:`\\rho + 12\\sqrt\\rho + 20` is left out)."""
    kk = np.arange(int(rho + 12 * np.sqrt(rho) + 20))
    return float(np.dot(system.alpha, tabulate(system.utilities, kk[-1]) @ stats.poisson.pmf(kk, rho)))


def random_check_claim(random_run: dict, closed_form: float) -> Claim:
    """Random assignment's simulated utility against its closed form, judged on its run means
    (``utility_runs`` of :func:`~qtheory.utility.experiments.policy_runs` with ``keep_runs``; the
    mean, standard error and runs beside them must match)."""
    return Claim(item="U-V-thm1", category="check",
                 text=r"random assignment: $E[u(q_n)] = \sum_i \alpha(i) E[u_i(\mathrm{Poisson}(\rho))]$",
                 ours=random_run["mean_utility"], ours_se=random_run["utility_se"], ours_df=random_run["runs"] - 1,
                 ours_runs=random_run["utility_runs"], reference=closed_form,
                 evidence=r"every pool is an M/M/$\infty$ queue with load $\rho$ under random assignment")


def theorem1_claim(exact_rows: list[dict]) -> Claim:
    """Theorem 1 on the exact stationary laws of a small system: every policy strictly below :math:`u(q_n^*)`."""
    return Claim(item="U-V-thm1", category="claim", source="Sec. 3.4, Theorem 1",
                 text=r"Theorem 1: $E[u(q_n)] \le u(q_n^*)$ for every policy (exact chains of a 4-pool system)",
                 holds=all(r["exact_mean_utility"] < r["upper_bound"] for r in exact_rows),
                 evidence="Exact stationary $E[u(q_n)]$ against $u(q_n^*)$: " + "; ".join(
                     f"{title(r['policy'])} {r['exact_mean_utility']:.4f} against {r['upper_bound']:.4f}" for r in exact_rows)
                 + ".")


def above_bound(rows: list[dict], bound: float) -> list[str]:
    """The policies whose whole 95% interval lies above the bound :math:`u(q_n^*)`."""
    return [r["policy"] for r in rows if r["utility_ci_low"] > bound]


def all_below_bound(rows: list[dict], bound: float, exact_rows: list[dict]) -> bool:
    """Every simulated interval reaches down to the bound, and every exact value is below its bound."""
    return not above_bound(rows, bound) and all(r["exact_mean_utility"] < r["upper_bound"] for r in exact_rows)


def observed_orders(rows: list[dict]) -> dict[str, float]:
    """The observed order in ``dt`` of the splitting scheme's error, per start: the slope of
    log(sup-l1 difference) against log dt (:func:`~qtheory.stats.loglog_slope`)."""
    starts = list(dict.fromkeys(r["start"] for r in rows))
    return {s: loglog_slope([r["dt"] for r in rows if r["start"] == s],
                            [r["sup_l1_difference"] for r in rows if r["start"] == s]) for s in starts}


def poisson_law_claim(test, n_policies: int) -> Claim:
    """Sec. 2.1: the number of tasks :math:`n s_n` is Poisson(:math:`n\\rho`) whatever the policy (an
    M/M/infinity count), judged by one sign-flip test of each policy's shares of time in the fifths
    of the Poisson law (:func:`~qtheory.utility.experiments.poisson_test`)."""
    return test.record(item="U-X-poisson", source="Sec. 2.1", key="U-X-poisson",
                       text=f"the law of $n s_n$ is Poisson($n\\rho$) under each of the {n_policies} policies "
                            "(share of time in each fifth of the Poisson law)",
                       evidence="The fifths are the counts between the quintiles of Poisson($n\\rho$) (the share of "
                                "time at a single count in the tail is too skewed over runs for the test); the "
                                f"margin of each is {POISSON_BIN_MARGIN:.0%} of its Poisson probability.")


def poisson_claims(summary: list[dict], counts: dict) -> tuple[Claim, ...]:
    """Sec. 2.1: :math:`E[n s_n] = n\\rho` whatever the policy, judged per policy on its run means
    (`counts`: policy -> each run's time-averaged :math:`n s_n`, the ``counts`` of
    :func:`~qtheory.utility.experiments.poisson_samples`; the mean, standard error and runs of the
    `summary` row beside them must match)."""
    return tuple(Claim(item="U-X-poisson", text=f"$E[n s_n] = n\\rho$ under {title(r['policy'])}", paper=r["poisson_mean"],
                       ours=r["mean_tasks"], ours_se=r["se"], ours_df=r["runs"] - 1, ours_runs=counts[r["policy"]],
                       source="Sec. 2.1", family="U-X-poisson: the mean under every policy", key="U-X-poisson")
                 for r in summary)


#: agreement of two exact optimisations (greedy and HiGHS): a few units of the double precision of
#: utilities of size about 10 summed over the pools
LP_TOLERANCE = 1e-9
#: the fluid trajectory "reaches" q_* when its l1 distance is below this at the horizon
REACHED = 1e-4


def theorem_claims(*, lp_gap: float, n_cases: int, orders: dict, final: dict, fluid_horizon: float,
                   errors: list[dict], slope: float, slta: list[dict]) -> dict[str, Claim]:
    """The main statements of U-V-prop1 and Theorems 3-6, each judged on the page's data.

    - Proposition 1: the greedy assignment's utility equals the linear program's optimum (within
      :data:`LP_TOLERANCE`) in every case.
    - Theorem 3 (unique solutions): two independent solvers of (12) (event-driven and splitting)
      converge to one trajectory, the splitting error falling at order 1 in dt (read as: every
      observed order at least 0.8).
    - Theorem 4 (global attraction): every start is within :data:`REACHED` of :math:`q_*` at the horizon.
    - Theorem 5 (JLMU's fluid limit): the sup-error falls as n grows (negative fitted slope in log n,
      and the error at the largest n below the smallest n's).
    - Theorem 6 (SLTA learns): the share of late samples with :math:`r_n = r_*` grows with n and is
      at least 0.9 at the largest n.
    """
    errs = sorted(errors, key=lambda r: r["n"])
    late = sorted(slta, key=lambda r: r["n"])
    fractions = [r["fraction_at_r_star_late"] for r in late]
    return {
        "U-V-prop1": Claim(item="U-V-prop1", source="Proposition 1", holds=bool(lp_gap <= LP_TOLERANCE),
                           text="Proposition 1: the greedy assignment (4)-(5) attains the optimum of (2)",
                           evidence=f"Largest gap between its utility and the linear program's optimum over {n_cases} "
                                    f"cases: {number(lp_gap, digits=2)} (within {number(LP_TOLERANCE)})."),
        "U-V-thm3": Claim(item="U-V-thm3", source="Theorem 3", holds=bool(min(orders.values()) >= 0.8),
                          text="Theorem 3: two solvers of the fluid model (12) converge to one trajectory",
                          evidence="Observed order in $dt$ of the splitting scheme's distance to the event-driven "
                                   "solution: " + ", ".join(f"{v:.2f}" for v in orders.values())
                                   + " (read as: at least 0.8 from every start)."),
        "U-V-thm4": Claim(item="U-V-thm4", source="Theorem 4", holds=bool(max(final.values()) <= REACHED),
                          text="Theorem 4: the fluid model (12) reaches $q_*$ from every start",
                          evidence=f"Largest $\\ell_1$ distance to $q_*$ at $t = {fluid_horizon:g}$ over {len(final)} "
                                   f"starts: {number(max(final.values()), digits=2)} (read as: below {number(REACHED)})."),
        "U-V-thm5": Claim(item="U-V-thm5", source="Theorem 5",
                          holds=bool(slope < 0 and errs[-1]["sup_l1_error"] < errs[0]["sup_l1_error"]),
                          text="Theorem 5: JLMU's occupancy approaches the fluid trajectory as $n$ grows",
                          evidence="Sup-norm error " + ", ".join(f"{r['sup_l1_error']:.3f} at $n = {r['n']}$" for r in errs)
                                   + f"; fitted slope in $\\log n$ {slope:.2f}."),
        "U-V-thm6": Claim(item="U-V-thm6", source="Theorem 6",
                          holds=bool(all(b >= a for a, b in zip(fractions, fractions[1:])) and fractions[-1] >= 0.9),
                          text="Theorem 6: SLTA learns $r_*$ as $n$ grows",
                          evidence="Share of late samples with $r_n = r_*$: " + ", ".join(
                              f"{r['fraction_at_r_star_late']:.3f} at $n = {r['n']}$" for r in late)
                              + " (read as: growing with $n$, at least 0.9 at the largest)."),
    }


def _check_parameters(p: dict) -> None:
    """The checks :func:`compute` does not make first (its runs, horizons, windows, load and sizes)."""
    check_integer("n_random_lp", p["n_random_lp"], low=0)
    for name in ("fluid_dts", "limit_n"):
        if len(p[name]) < 2:
            raise ParameterError(f"`{name}` must hold at least two values for a slope (got {p[name]!r})")
    if not p["slta_n"]:
        raise ParameterError("`slta_n` must hold at least one system size")


def _policy_section(p, system, opt) -> tuple[ItemResult, ItemResult]:
    rho, base_n, seed = p["rho"], p["base_n"], p["seed"]
    runs = {pol: policy_runs(system, base_n, pol, horizon=p["base_horizon"], warmup=p["base_warmup"],
                             n_runs=p["base_runs"], seed=child_seed(seed, "base", pol), keep_runs=True) for pol in POLICIES}
    # the run means are for the records, not the tables (a tidy row holds one number per cell)
    run_means = {pol: {k: r.pop(k) for k in [k for k, v in r.items() if isinstance(v, tuple)]} for pol, r in runs.items()}
    bound = optimal_assignment(system, alpha=system.pool_counts(base_n) / base_n).utility
    thm1 = [{"policy": pol, "n": base_n, "rho": rho, "upper_bound": bound, **r,
             "bound_minus_upper_ci": bound - r["utility_ci_high"]} for pol, r in runs.items()]
    small = small_system()
    exact_rows = [{"policy": pol, "n": SMALL_N, "rho": small.rho,
                   "exact_mean_utility": exact_stationary(small, SMALL_N, pol, max_tasks=SMALL_MAX_TASKS).mean_utility,
                   "upper_bound": upper_bound(small, SMALL_N)} for pol in POLICIES]
    random_exact = random_assignment_utility(system, rho)
    rnd = {**runs["random"], **run_means["random"]}
    random_t = (rnd["mean_utility"] - random_exact) / rnd["utility_se"]
    random_t_limit = familywise_t_bound(p["base_runs"] - 1, alpha=1e-3)
    above = above_bound(thm1, bound)
    exact_claim = theorem1_claim(exact_rows)
    displays = (
        Table(((r"$\sigma_*$", f"({opt.sigma[0] + 1}, {opt.sigma[1]})"), ("$r_*$", f"{opt.rank}"),
               ("$u(q_*)$", f"{opt.utility:.6f}")), _QUANTITY,
              caption=rf"Optimal assignment of the Table 1 system at $\rho = {rho:g}$"),
        Table(tuple(thm1), {"policy": lambda r: title(r["policy"]),
                            "$E[u(q_n)]$ (95% CI)": lambda r: f"{r['mean_utility']:.5f} [{r['utility_ci_low']:.5f}, "
                                                              f"{r['utility_ci_high']:.5f}]",
                            "$u(q_n^*)$": lambda r: f"{bound:.5f}"},
              caption=rf"Time-averaged utility, $n = {base_n}$, $\rho = {rho:g}$, {p['base_runs']} runs"),
        Table(tuple(exact_rows), {"policy": lambda r: title(r["policy"]),
                                  "exact $E[u(q_n)]$": lambda r: f"{r['exact_mean_utility']:.6f}",
                                  "$u(q_n^*)$": lambda r: f"{r['upper_bound']:.6f}"},
              caption=r"Small system ($n = 4$ pools, $\rho = 1.5$): the exact stationary law of the Markov chain"),
        Table((("simulated (SE)", f"{rnd['mean_utility']:.5f} ({rnd['utility_se']:.5f})"),
               ("closed form", f"{random_exact:.5f}"), ("$t$ (limit)", f"{random_t:+.2f} ({random_t_limit:.2f})"),
               ("$u(q_n^*)$ minus the closed form", f"{bound - random_exact:.4f}")), _QUANTITY,
              caption="Random assignment"))
    below_exact = sum(r["exact_mean_utility"] < r["upper_bound"] for r in exact_rows)
    text = (f"- **U-V-thm1** (Theorem 1, $E[u(q_n)] \\le u(q_n^*)$): the 95% CI of "
            f"{'no policy' if not above else ', '.join(above)} lies entirely above $u(q_n^*)$; in the 4-pool system the "
            f"exact stationary utility of {below_exact} of {len(exact_rows)} policies is below the bound; random "
            f"assignment's simulated utility is {abs(random_t):.1f} SE from its closed form, which lies "
            f"{bound - random_exact:.4f} below the bound.")
    setting = rf"$n = {base_n}$, $\rho = {rho:g}$, {p['base_runs']} runs"
    thm1_result = ItemResult(
        "U-V-thm1", p, p["seed"], thm1, claims=(random_check_claim(rnd, random_exact), exact_claim),
        tables={"exact": exact_rows}, displays=displays, text=text,
        summary=dict(all_policies_below_bound=all_below_bound(thm1, bound, exact_rows), random_closed_form=random_exact,
                     random_t=random_t),
        figure={"bound": bound, "caption": (
            rf"time-averaged overall utility $u(q_n)$ of each policy (95% CI) against the bound $u(q_n^*)$ of Theorem 1: "
            rf"Table 1 system, $n = {base_n}$ pools, $\rho = {rho:g}$, {p['base_runs']} runs of length "
            f"{p['base_horizon']:g} after a warm-up of {p['base_warmup']:g}")})
    loss = {pol: bound - runs[pol]["mean_utility"] for pol in POLICIES}
    base_rows = [r for pol in BASELINES for r in thm1 if r["policy"] == pol]  # in the order of BASELINES
    base_result = ItemResult(
        "U-P-base", p, p["seed"], base_rows,
        text=f"- **U-P-base** (baselines are ours): loss $u(q_n^*) - E[u(q_n)]$ of JLMU {loss['jlmu']:.2g}, random "
             f"{loss['random']:.2g}, class-blind JSQ {loss['jsq']:.2g}, all tasks to class 2 {loss['conservative']:.2g}.",
        figure={"bound": bound, "jlmu_loss": loss["jlmu"], "base_n": base_n, "caption": (
            rf"loss $u(q_n^*) - E[u(q_n)]$ of the three baseline policies (random assignment, class-blind JSQ, all "
            rf"tasks to class 2), same runs as the figure above ({setting}, 95% CI)")})
    return thm1_result, base_result


_QUANTITY = {"quantity": lambda kv: kv[0], "value": lambda kv: kv[1]}


def compute(*, seed: int, rho: float, base_n: int, base_horizon: float, base_warmup: float, base_runs: int,
            n_random_lp: int, fluid_horizon: float, fluid_dts, limit_n, limit_horizon: float, limit_runs: int, slta_n,
            slta_horizon: float, slta_t_late: float, slta_runs: int, poisson_n: int, poisson_horizon: float,
            poisson_runs: int) -> VerificationResults:
    """The eight U-V results at the notebook's parameters (see the notebook for their meaning)."""
    # the reader's parameters first, in the reader's words
    check_runs(base_runs=base_runs, limit_runs=limit_runs, slta_runs=slta_runs, poisson_runs=poisson_runs)
    check_times(base_horizon=base_horizon, fluid_horizon=fluid_horizon, limit_horizon=limit_horizon,
                slta_horizon=slta_horizon, poisson_horizon=poisson_horizon)
    check_window("base_warmup", base_warmup, "base_horizon", base_horizon)
    check_window("base_warmup", base_warmup, "poisson_horizon", poisson_horizon,
                 why="the Poisson check discards the same warm-up from each of its runs")
    check_window("slta_t_late", slta_t_late, "slta_horizon", slta_horizon,
                 why="the share of late samples at r_* is read after it")
    check_positive("rho", rho)
    sizes = table1_system(rho)
    sizes.pool_counts(base_n, name="base_n")
    sizes.pool_counts(poisson_n, name="poisson_n")
    for name, values in (("limit_n", limit_n), ("slta_n", slta_n)):
        for k, n in enumerate(values):
            sizes.pool_counts(n, name=f"{name}[{k}]")
    p = dict(seed=seed, rho=rho, base_n=base_n, base_horizon=base_horizon, base_warmup=base_warmup, base_runs=base_runs,
             n_random_lp=n_random_lp, fluid_horizon=fluid_horizon, fluid_dts=fluid_dts, limit_n=limit_n,
             limit_horizon=limit_horizon, limit_runs=limit_runs, slta_n=slta_n, slta_horizon=slta_horizon,
             slta_t_late=slta_t_late, slta_runs=slta_runs, poisson_n=poisson_n, poisson_horizon=poisson_horizon,
             poisson_runs=poisson_runs)
    _check_parameters(p)
    system = table1_system(rho)
    opt = optimal_assignment(system)
    thm1, base = _policy_section(p, system, opt)

    # U-V-prop1: the greedy assignment solves the linear program (2)
    lp = lp_rows(lp_cases(seed, n_random_lp))
    worst = max(abs(r["difference"]) for r in lp)
    prop1 = ItemResult(
        "U-V-prop1", p, seed, lp, summary=dict(max_abs_difference=worst, cases=len(lp)),
        displays=(Table((("cases", f"{len(lp)}"), ("largest $|u(q^*) - \\mathrm{LP}|$", f"{number(worst, digits=3)}")), _QUANTITY),),
        text=f"- **U-V-prop1** ($q_n^*$ optimal for (2)): largest $|$greedy $-$ LP$|$ over {len(lp)} cases: {number(worst, digits=2)}.",
        figure={"caption": f"utility of the greedy assignment (4)-(5) against the optimum of the linear program (2) for "
                           f"the Table 1 systems ($\\rho = 9.75$ and $10$), the two systems of Fig. 3 and {n_random_lp} "
                           f"random concave piecewise-linear systems (seed {seed})",
                "limits": [min(r["lp_value"] for r in lp), max(r["lp_value"] for r in lp)]})

    # U-V-thm3 and U-V-thm4: the fluid model
    starts = fluid_starts()
    agree = solver_agreement_rows(system, starts, np.linspace(0, 5, 51), fluid_dts)
    orders = observed_orders(agree)
    thm3 = ItemResult(
        "U-V-thm3", p, None, agree, summary=dict(observed_order=orders),
        displays=(Table(tuple(orders.items()), {"start": lambda kv: kv[0],
                                                "observed order in $dt$": lambda kv: f"{kv[1]:.2f}"}),),
        text="- **U-V-thm3** (unique fluid trajectories): observed orders of the splitting scheme's error in dt: "
             + ", ".join(f"{v:.2f}" for v in orders.values()) + ".",
        figure={"starts": list(starts), "slope_one": [5 * dt for dt in fluid_dts], "caption": (
            rf"largest $\ell_1$ distance on $[0, 5]$ between the fluid trajectory of the exact event-driven solver and "
            rf"the splitting scheme with step $dt = {', '.join(f'{x:g}' for x in fluid_dts)}$, from three starts; "
            rf"Table 1 system, $\rho = {rho:g}$")})
    conv = fluid_convergence_rows(system, starts, np.linspace(0, fluid_horizon, 151))
    final = {name: [r["l1_to_q_star"] for r in conv if r["start"] == name][-1] for name in starts}
    mass_err = max(abs(r["total"] - r["total_closed_form"]) for r in conv)
    thm4 = ItemResult(
        "U-V-thm4", p, None, conv, summary=dict(final_l1=final, max_mass_error=mass_err),
        displays=(Table(tuple(final.items()), {"start": lambda kv: kv[0],
                                               rf"$\|q(T) - q_*\|_1$ at $T = {fluid_horizon:g}$": lambda kv: f"{number(kv[1], digits=3)}"},
                        caption=f"Largest $|s(t) - \\rho - (s_0 - \\rho)e^{{-t}}|$: {number(mass_err, digits=2)}"),),
        text=f"- **U-V-thm4** ($q(t) \\to q_*$): $\\|q(T) - q_*\\|_1$ at T = {fluid_horizon:g}: largest "
             f"{number(max(final.values()), digits=2)} over the {len(final)} starts; largest $|s(t) -$ closed form$|$ {number(mass_err, digits=2)}.",
        figure={"starts": list(starts), "floor": 1e-16, "caption": (
            rf"fluid trajectories of the Table 1 system ($\rho = {rho:g}$) from three starts up to $t = {fluid_horizon:g}$. "
            r"Left: $\ell_1$ distance to $q_*$. Right: total mass $s(t)$ and its closed form")})

    # U-V-thm5: JLMU approaches the fluid trajectory
    err, paths = fluid_limit_rows(system, starts["class 1: 15 tasks, class 2: 2 tasks"], limit_n,
                                  np.linspace(0, limit_horizon, 41), n_runs=limit_runs, seed=child_seed(seed, "thm5"),
                                  track=TRACK)
    slope = loglog_slope([r["n"] for r in err], [r["sup_l1_error"] for r in err])
    thm5 = ItemResult(
        "U-V-thm5", p, seed, err, tables={"paths": paths}, summary=dict(error_slope_in_log_n=slope),
        displays=(Table(tuple(err), {"$n$": lambda r: r["n"],
                                     r"$\sup_t \|q_n - q\|_1$ (95% CI)": lambda r: f"{r['sup_l1_error']:.4f} "
                                                                                  f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
                                     r"$\sqrt{n}\,\times$ error": lambda r: f"{r['sqrt_n_times_error']:.2f}"}),),
        text=f"- **U-V-thm5** ($q_n \\to q$): fitted slope of the sup-norm error against $\\log n$: {slope:.2f} "
             "($-1/2$ expected).",
        figure={"track": TRACK, "big": max(limit_n), "caption": (
            rf"JLMU against the fluid model (Table 1 system, $\rho = {rho:g}$, start: class 1 pools with 15 tasks, class 2 "
            rf"with 2). Left: largest $\ell_1$ distance on $[0, {limit_horizon:g}]$ for "
            rf"$n = {', '.join(str(n) for n in limit_n)}$ pools, {limit_runs} runs each (95% CI). Right: four occupancy "
            rf"fractions $q(i, j)$ at $n = {max(limit_n)}$ (dots) and in the fluid model (lines)")})

    # U-V-thm6: SLTA learns r_*
    spaths, ssum = slta_learning_rows(system, slta_n, np.linspace(0, slta_horizon, 161), n_runs=slta_runs,
                                      seed=child_seed(seed, "thm6"), t_late=slta_t_late)
    thm6 = ItemResult(
        "U-V-thm6", p, seed, ssum, tables={"paths": spaths}, summary=dict(beta="n^(-1/3)", tau_fluid=ssum[0]["tau_fluid"]),
        displays=(Table(tuple(ssum), {"$n$": lambda r: r["n"],
                                      rf"share of samples $t \ge {slta_t_late:g}$ with $r_n = r_*$":
                                          lambda r: f"{r['fraction_at_r_star_late']:.3f}",
                                      r"mean $\|q_n - q_n^*\|_1$ there": lambda r: f"{r['mean_l1_late']:.4f}"},
                        caption=f"SLTA, $r_* = {ssum[0]['r_star']}$"),),
        text="- **U-V-thm6** ($r_n \\to r_*$): fraction of late samples with $r_n = r_*$: "
             + ", ".join(f"{r['fraction_at_r_star_late']:.3f} ($n = {r['n']}$)" for r in ssum)
             + "; mean $\\|q_n - q_n^*\\|_1$ there: " + ", ".join(f"{r['mean_l1_late']:.4f}" for r in ssum) + ".",
        figure={"slta_n": list(slta_n), "r_star": ssum[0]["r_star"], "tau_fluid": ssum[0]["tau_fluid"], "caption": (
            rf"SLTA with $\beta_n = n^{{-1/3}}$ on the Table 1 system ($\rho = {rho:g}$), "
            rf"$n = {', '.join(str(n) for n in slta_n)}$ pools, {slta_runs} runs each up to $t = {slta_horizon:g}$ (95% CI). "
            r"Left: the learned rank $r_n(t)$ (dotted: $r_*$; dashed: the fluid model's time to reach it). Right: "
            r"$\ell_1$ distance to $q_n^*$")})

    # U-X-poisson: the number of tasks is Poisson(n rho) for every policy
    psamples = poisson_samples(system, poisson_n, list(POLICIES), horizon=poisson_horizon, warmup=base_warmup,
                               n_runs=poisson_runs, seed=child_seed(seed, "poisson"))
    pmf, psum = poisson_rows(system, poisson_n, list(POLICIES), horizon=poisson_horizon, warmup=base_warmup,
                             n_runs=poisson_runs, seed=child_seed(seed, "poisson"), samples=psamples)
    ptest = poisson_test(system, poisson_n, psamples, child_seed(seed, "poisson"))
    max_z = max(abs(r["z_score"]) for r in psum)
    max_count_t = max(r["max_count_t"] for r in psum)
    counts = {g["policy"]: g["counts"] for g in psamples}
    poisson = ItemResult(
        "U-X-poisson", p, seed, psum, claims=(*poisson_claims(psum, counts), poisson_law_claim(ptest, len(psum))),
        tables={"pmf": pmf},
        summary=dict(max_count_t=max_count_t, law_test_p=ptest.p, max_abs_z=max_z,
                     max_total_variation=max(r["total_variation"] for r in psum)),
        displays=(Table(tuple(psum), {"policy": lambda r: title(r["policy"]),
                                      "mean $n s_n$ (95% CI)": lambda r: f"{r['mean_tasks']:.2f} [{r['ci_low']:.2f}, "
                                                                         f"{r['ci_high']:.2f}]",
                                      "$z$": lambda r: f"{r['z_score']:+.2f}",
                                      "TV distance to Poisson": lambda r: f"{r['total_variation']:.4f}",
                                      "largest per-count $|t|$": lambda r: f"{r['max_count_t']:.2f}"},
                        caption=(rf"Number of tasks against Poisson($n\rho$) = Poisson({poisson_n * rho:g}); the "
                                 f"shares of time in the fifths of the Poisson law, all policies at once, judged by "
                                 f"a sign-flip test, $p = {number(ptest.p, digits=2)}$")),),
        text=f"- **U-X-poisson** ($n s_n \\sim$ Poisson($n\\rho$), Sec. 2.1): largest $|z|$ of the mean count "
             f"{max_z:.2f}; largest per-count $|t|$ {max_count_t:.2f}, and one sign-flip test of the "
             f"{ptest.size} shares of time in the fifths of the Poisson law (all policies at once): "
             f"$p = {number(ptest.p, digits=2)}$.",
        figure={"policies": list(POLICIES), "mean": poisson_n * rho, "caption": (
            rf"stationary distribution of the number of tasks $n s_n$ under each policy (fraction of time), "
            rf"$n = {poisson_n}$ pools, $\rho = {rho:g}$, {poisson_runs} runs of length {poisson_horizon:g} (thin line), "
            rf"over the Poisson({poisson_n * rho:g}) probability mass function (wide grey line), one panel per policy")})
    mains = theorem_claims(lp_gap=worst, n_cases=len(lp), orders=orders, final=final, fluid_horizon=fluid_horizon,
                           errors=err, slope=slope, slta=ssum)
    prop1, thm3, thm4, thm5, thm6 = (dataclasses.replace(r, claims=(*r.claims, mains[r.item]))
                                     for r in (prop1, thm3, thm4, thm5, thm6))
    return VerificationResults(thm1, base, prop1, thm3, thm4, thm5, thm6, poisson)


# -- figures drawn from the results' rows (the notebook's budget holds two of the eight) -----------------------------

def _figure(ncols: int):
    from ...plotting import new_figure

    return new_figure(ncols)


def draw_theorem1(result: ItemResult):
    """U-V-thm1: each policy's time-averaged utility (95% CI) against the bound :math:`u(q_n^*)`."""
    from ...plotting import PALETTE

    rows, bound = result.rows, result.figure["bound"]
    fig, axes = _figure(1)
    ax = axes[0][0]
    x = np.arange(len(rows))
    mean = np.array([r["mean_utility"] for r in rows])
    ax.errorbar(x, mean, yerr=[mean - [r["utility_ci_low"] for r in rows], [r["utility_ci_high"] for r in rows] - mean],
                fmt="o", capsize=4, label="time-averaged $u(q_n)$, 95% CI")
    ax.axhline(bound, color=PALETTE[3], ls="--", label=r"$u(q_n^*)$ (Theorem 1)")
    ax.set_xticks(x, [title(r["policy"]) for r in rows]); ax.set_xlabel("policy"); ax.set_ylabel("mean overall utility")
    ax.set_title(rf"$n = {rows[0]['n']}$, $\rho = {rows[0]['rho']}$"); ax.legend()
    return fig


def draw_baselines(result: ItemResult):
    """U-P-base: the loss :math:`u(q_n^*) - E[u(q_n)]` of each baseline (log scale, 95% CI)."""
    from ...plotting import PALETTE

    rows, bound = result.rows, result.figure["bound"]
    fig, axes = _figure(1)
    ax = axes[0][0]
    ax.bar([title(r["policy"]) for r in rows], [bound - r["mean_utility"] for r in rows], color=PALETTE[1],
           yerr=[r["utility_ci_high"] - r["mean_utility"] for r in rows], capsize=4)
    ax.set_yscale("log"); ax.set_xlabel("baseline policy"); ax.set_ylabel(r"$u(q_n^*) - E[u(q_n)]$ (log scale, 95% CI)")
    ax.set_title(f"loss of the baselines, $n = {result.figure['base_n']}$ (JLMU: {result.figure['jlmu_loss']:.4f})")
    return fig


def draw_fluid_convergence(result: ItemResult):
    """U-V-thm4: the distance to :math:`q_*` and the total mass along each fluid trajectory."""
    from ...plotting import PALETTE, figure_legend

    fig, axes = _figure(2)
    floor = result.figure["floor"]
    for c, name in enumerate(result.figure["starts"]):
        pts = [r for r in result.rows if r["start"] == name]
        t = [r["t"] for r in pts]
        axes[0][0].semilogy(t, [max(r["l1_to_q_star"], floor) for r in pts], color=PALETTE[c], label=name)
        axes[0][1].plot(t, [r["total"] for r in pts], color=PALETTE[c], label=name)
        axes[0][1].plot(t, [r["total_closed_form"] for r in pts], color="k", ls=":", lw=1)
    axes[0][0].set_xlabel("time $t$"); axes[0][0].set_ylabel(r"$\|q(t) - q_*\|_1$")
    axes[0][1].set_xlabel("time $t$"); axes[0][1].set_ylabel("total mass $s(t)$ (dotted: $\\rho + (s_0-\\rho)e^{-t}$)")
    figure_legend(fig, axes[0][:1], ncol=3)    # the starts, one colour each in both panels
    return fig


def draw_fluid_limit(result: ItemResult):
    """U-V-thm5: the sup-norm error against :math:`n` with an :math:`n^{-1/2}` guide, and four
    occupancy paths of the largest system beside the fluid model."""
    from ...plotting import PALETTE, ci_band, figure_legend

    err, paths = result.rows, result.tables["paths"]
    fig, axes = _figure(2)
    ax = axes[0][0]
    ns = np.array([r["n"] for r in err])
    ci_band(ax, ns, [r["sup_l1_error"] for r in err], [r["ci_low"] for r in err], [r["ci_high"] for r in err], marker="o",
            label="JLMU")
    ax.plot(ns, err[0]["sup_l1_error"] * np.sqrt(ns[0] / ns), color="grey", ls=":", label=r"$\propto n^{-1/2}$")
    ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("number of pools $n$")
    ax.set_ylabel(r"$\sup_t \|q_n(t) - q(t)\|_1$")
    ax = axes[0][1]
    big = result.figure["big"]
    for c, (i, j) in enumerate(result.figure["track"]):
        pts = [r for r in paths if r["n"] == big and r["cls"] == i + 1 and r["j"] == j]
        t = [r["t"] for r in pts]
        ax.plot(t, [r["fluid"] for r in pts], color=PALETTE[c], label=f"$q({i + 1},{j})$ fluid")
        ax.plot(t, [r["sim_mean"] for r in pts], color=PALETTE[c], ls="none", marker=".", label=f"$n = {big}$")
    ax.set_xlabel("time $t$"); ax.set_ylabel("fraction of pools")
    figure_legend(fig, axes, ncol=5)       # below the panels: the paths cross where a legend would sit
    return fig


def draw_learning(result: ItemResult):
    """U-V-thm6: SLTA's learned rank :math:`r_n(t)` and its distance to :math:`q_n^*` for each :math:`n`."""
    from ...plotting import PALETTE, ci_band

    fig, axes = _figure(2)
    for c, n in enumerate(result.figure["slta_n"]):
        pts = [r for r in result.tables["paths"] if r["n"] == n]
        t = np.array([r["t"] for r in pts])
        ci_band(axes[0][0], t, [r["r_mean"] for r in pts], [r["r_ci_low"] for r in pts], [r["r_ci_high"] for r in pts],
                color=PALETTE[c], label=f"$n = {n}$")
        ci_band(axes[0][1], t, [r["l1_to_q_star"] for r in pts], [r["l1_ci_low"] for r in pts],
                [r["l1_ci_high"] for r in pts], color=PALETTE[c], label=f"$n = {n}$")
    axes[0][0].axhline(result.figure["r_star"], color="k", ls=":", label="$r_*$")
    axes[0][0].axvline(result.figure["tau_fluid"], color="grey", ls="--", lw=1)
    axes[0][0].set_xlabel("time $t$"); axes[0][0].set_ylabel("$r_n(t)$ (mean over runs, 95% CI)"); axes[0][0].legend()
    axes[0][1].set_yscale("log"); axes[0][1].set_xlabel("time $t$"); axes[0][1].set_ylabel(r"$\|q_n(t) - q_n^*\|_1$")
    axes[0][1].legend()
    return fig


def draw_poisson(result: ItemResult):
    """U-X-poisson: one panel per policy, its time fraction of each task count over the Poisson pmf
    (the laws coincide, so one panel for all would show one curve)."""
    from ...plotting import PALETTE, figure_legend, new_figure

    policies = result.figure["policies"]
    ncols = min(4, len(policies))
    nrows = -(-len(policies) // ncols)
    fig, axes = new_figure(ncols, nrows, sharex=True, sharey=True)
    pmf = result.tables["pmf"]
    mean = result.figure["mean"]
    for k, ax in enumerate(np.ravel(axes)):
        if k >= len(policies):
            ax.set_visible(False)
            continue
        pol = policies[k]
        pts = [r for r in pmf if r["policy"] == pol]
        ax.plot([r["tasks"] for r in pts], [r["poisson_pmf"] for r in pts], color="0.6", lw=3.2,
                label=f"Poisson({mean:g})")
        ax.plot([r["tasks"] for r in pts], [r["time_fraction"] for r in pts], color=PALETTE[0], lw=1,
                label="time fraction under the policy")
        ax.set_title(title(pol))
        ax.set_xlim(mean - 4 * np.sqrt(mean), mean + 4 * np.sqrt(mean))
        if k % ncols == 0:
            ax.set_ylabel("fraction of time")
        if k >= len(policies) - ncols:       # no panel below: its own tick labels and axis label
            ax.set_xlabel("tasks $n s_n$")
            ax.tick_params(labelbottom=True)
    figure_legend(fig, axes[0][:1], ncol=2)
    return fig
