"""U-V's item function (eight results) at a tiny scale, and its records and statistics on inputs
that must agree and must differ."""

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.utility import LinearUtility, PoolSystem, StepUtility, table1_system, total_tasks
from qtheory.utility.items import u_v


def test_random_assignment_utility_is_the_poisson_mean_of_each_class_utility():
    linear = PoolSystem((LinearUtility(2.0), LinearUtility(0.5)), (0.25, 0.75), 3.0)
    # E[c X] = c rho for X ~ Poisson(rho): (0.25 * 2 + 0.75 * 0.5) * 3
    assert u_v.random_assignment_utility(linear, 3.0) == pytest.approx((0.5 + 0.375) * 3.0, rel=1e-12)
    step = PoolSystem((StepUtility(1.0),), (1.0,), 2.0)
    assert u_v.random_assignment_utility(step, 2.0) == pytest.approx(1 - math.exp(-2.0), rel=1e-12)


def _symmetric_runs(mean, se, n):
    """`n` run means with the given mean and standard error of their mean and sample skewness 0
    (normal quantiles, symmetric about the mean)."""
    z = stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    return tuple(mean + z * (se * math.sqrt(n) / z.std(ddof=1)))


def _random_run(mean, se, n):
    runs = _symmetric_runs(mean, se, n)
    return {"mean_utility": float(np.mean(runs)), "utility_se": float(np.std(runs, ddof=1) / math.sqrt(n)), "runs": n,
            "utility_runs": runs}


def test_the_random_assignment_check_is_a_t_test_on_its_run_means_with_runs_minus_one_degrees_of_freedom():
    from qtheory.verdicts import FAMILY_LEVEL

    run = _random_run(8.47, 0.01, 30)
    cut = stats.t.isf(FAMILY_LEVEL / 2, 29) * 0.01
    assert u_v.random_check_claim(run, 8.47 + 0.99 * cut).judge() == "holds"
    assert u_v.random_check_claim(run, 8.47 - 1.01 * cut).judge() == "fails"
    claim = u_v.random_check_claim(run, 8.47)
    assert claim.ours_df == 29 and claim.ours_runs == run["utility_runs"]


def test_the_random_assignment_check_with_fewer_than_30_runs_is_not_resolved():
    """29 run means cannot show whether their law is skewed: not resolved, also 12 standard errors off."""
    run = _random_run(8.47, 0.01, 29)
    assert u_v.random_check_claim(run, 8.47).judge() == "not resolved"
    assert u_v.random_check_claim(run, 8.47 + 0.12).judge() == "not resolved"
    with pytest.raises(ParameterError, match="does not match its run means"):
        u_v.random_check_claim({**run, "mean_utility": 8.48}, 8.47)


def _exact(values, bound=1.0):
    return [{"policy": f"p{k}", "exact_mean_utility": v, "upper_bound": bound} for k, v in enumerate(values)]


def test_theorem_1_holds_on_the_exact_chains_only_if_every_policy_is_strictly_below():
    assert u_v.theorem1_claim(_exact([0.5, 0.99])).judge() == "agrees"
    assert u_v.theorem1_claim(_exact([0.5, 1.0])).judge() == "differs"
    assert u_v.theorem1_claim(_exact([1.2, 0.5])).judge() == "differs"


def test_a_policy_is_above_the_bound_only_if_its_whole_interval_is():
    rows = [{"policy": "a", "utility_ci_low": 0.9}, {"policy": "b", "utility_ci_low": 1.0}, {"policy": "c", "utility_ci_low": 1.1}]
    assert u_v.above_bound(rows, 1.0) == ["c"]
    assert u_v.all_below_bound(rows[:2], 1.0, _exact([0.5])) is True
    assert u_v.all_below_bound(rows, 1.0, _exact([0.5])) is False
    assert u_v.all_below_bound(rows[:2], 1.0, _exact([1.0])) is False


def test_observed_orders_are_log_log_slopes_per_start():
    rows = [{"start": s, "dt": dt, "sup_l1_difference": c * dt ** k}
            for s, c, k in (("first", 3.0, 1.0), ("second", 0.5, 2.0)) for dt in (0.004, 0.002, 0.001)]
    orders = u_v.observed_orders(rows)
    assert list(orders) == ["first", "second"]
    assert orders["first"] == pytest.approx(1.0) and orders["second"] == pytest.approx(2.0)


def _poisson_summary(means, se=0.3, n=30):
    counts = {policy: _symmetric_runs(mean, se, n) for policy, mean in means.items()}
    summary = [{"policy": policy, "poisson_mean": 195.0, "mean_tasks": float(np.mean(x)),
                "se": float(np.std(x, ddof=1) / math.sqrt(n)), "runs": n} for policy, x in counts.items()]
    return summary, counts


def test_the_poisson_mean_is_judged_per_policy_on_its_run_means_and_as_one_family():
    summary, counts = _poisson_summary({"jlmu": 194.2, "random": 196.3})
    claims = u_v.poisson_claims(summary, counts)
    # |t| = 2.7 with 29 degrees of freedom (p = 0.012) agrees, |t| = 4.3 (p = 1.7e-4) differs, alone and
    # in the family of the two records and their two joint tests (the chi-square one rejected first,
    # then 4.3 against 0.01/3, then 2.7 against 0.01/2)
    assert [c.judge() for c in claims] == ["agrees", "differs"]
    from qtheory.verdicts import judge

    assert [v.label for v in judge(claims).verdicts] == ["agrees", "differs"]
    assert {c.family for c in claims} == {"U-X-poisson: the mean under every policy"} and claims[0].ours_df == 29
    assert claims[0].ours_runs == counts["jlmu"] and claims[1].ours_runs == counts["random"]
    assert claims[1].text == "$E[n s_n] = n\\rho$ under random" and claims[1].source == "Sec. 2.1"


def test_the_poisson_mean_with_fewer_than_30_runs_is_not_resolved_and_leaves_the_family():
    from qtheory.verdicts import judge

    summary, counts = _poisson_summary({"jlmu": 194.2, "random": 196.3}, n=29)
    claims = u_v.poisson_claims(summary, counts)
    judgement = judge(claims)
    assert [v.label for v in judgement.verdicts] == ["not resolved", "not resolved"] and not judgement.joint
    with pytest.raises(ParameterError, match="does not match its run means"):
        u_v.poisson_claims(summary, {"jlmu": counts["random"], "random": counts["jlmu"]})


def test_the_fluid_starts_are_occupancies_of_two_half_classes():
    starts = u_v.fluid_starts()
    assert list(starts) == ["empty", "all pools with 20 tasks", "class 1: 15 tasks, class 2: 2 tasks"]
    for q in starts.values():
        assert np.allclose(q[:, 0], 0.5) and np.all(np.diff(q, axis=1) <= 0)
    assert [total_tasks(q) for q in starts.values()] == pytest.approx([0.0, 20.0, (15 + 2) / 2])


def test_lp_cases_add_reproducible_random_systems_to_the_fixed_four():
    cases = u_v.lp_cases(5150, 3)
    assert list(cases)[:4] == ["Table 1, rho = 9.75", "Table 1, rho = 10", "Fig. 3 left, rho = 5", "Fig. 3 right, rho = 7"]
    assert len(cases) == 7 and list(u_v.lp_cases(5150, 0)) == list(cases)[:4]
    again = u_v.lp_cases(5150, 3)
    assert [rho for _, rho in cases.values()] == [rho for _, rho in again.values()]
    assert [rho for _, rho in u_v.lp_cases(1, 3).values()][4:] != [rho for _, rho in cases.values()][4:]
    # the random systems have one to three classes, of two to four linear pieces each
    random = [system for name, (system, _) in u_v.lp_cases(5150, 12).items() if name.startswith("random")]
    assert {system.m for system in random} == {1, 2, 3}
    assert {len(u.slopes) for system in random for u in system.utilities} == {2, 3, 4}


def test_lp_cases_are_a_bounded_family_whatever_the_seed():
    """Over 200 seeds no class fraction falls below LP_MIN_FRACTION and the loads stay in [0.2, 6], so
    the linear program's depth floor(rho / alpha_min) + 2 stays at most 122 (seed 33 drew a
    fraction of 0.0003 and a depth of 14 826 from the unbounded Dirichlet)."""
    import math

    worst = 0
    for seed in range(1, 201):
        for name, (system, rho) in u_v.lp_cases(seed, 5).items():
            if not name.startswith("random"):
                continue
            alpha = np.asarray(system.alpha, dtype=float)
            assert alpha.min() >= u_v.LP_MIN_FRACTION - 1e-12 and abs(alpha.sum() - 1) < 1e-12 and 0.2 <= rho <= 6
            worst = max(worst, math.floor(rho / alpha.min()) + 2)
    assert worst <= 6 / u_v.LP_MIN_FRACTION + 2


def test_the_linear_program_is_sparse_and_refuses_what_memory_cannot_hold(monkeypatch):
    """A class fraction of 0.0003 (depth 14 669, 44 000 variables) is solved with sparse constraints
    (a dense matrix would need 16 GB) and agrees with the greedy assignment; under a memory limit
    the same request is refused by its estimate, naming rho."""
    from qtheory.errors import MemoryBudgetError
    from qtheory.utility.model import PiecewiseLinearUtility, PoolSystem
    from qtheory.utility.optimal import optimal_assignment, optimal_assignment_lp

    u = PiecewiseLinearUtility((1.0, 0.5, -0.2), (1.0, 3.0))
    small = PoolSystem((u, u, u), (0.4997, 0.5, 0.0003), 1.0)
    q, value = optimal_assignment_lp(small, 1.2)
    assert value == pytest.approx(optimal_assignment(small, 1.2).utility, abs=1e-9)
    monkeypatch.setenv("QTHEORY_MEMORY_LIMIT", "1e8")
    with pytest.raises(MemoryBudgetError, match=r"44,004 variables .* needs about 180 MB; this machine has 100 MB available.*`rho`"):
        optimal_assignment_lp(small, 4.4)


TINY = dict(seed=7, rho=9.75, base_n=4, base_horizon=15.0, base_warmup=5.0, base_runs=2, n_random_lp=1, fluid_horizon=2.0,
            fluid_dts=[0.01, 0.005], limit_n=[10, 20], limit_horizon=0.5, limit_runs=2, slta_n=[10], slta_horizon=2.0,
            slta_t_late=1.0, slta_runs=2, poisson_n=4, poisson_horizon=15.0, poisson_runs=2)


@pytest.fixture(scope="module")
def tiny():
    return u_v.compute(**TINY)


def test_compute_at_a_tiny_scale_returns_the_eight_results(tiny):
    assert [r.item for r in tiny] == ["U-V-thm1", "U-P-base", "U-V-prop1", "U-V-thm3", "U-V-thm4", "U-V-thm5",
                                      "U-V-thm6", "U-X-poisson"]
    assert [r.seed for r in tiny] == [7, 7, 7, None, None, 7, 7, 7]
    assert all(r.parameters == TINY for r in tiny)
    assert [r["policy"] for r in tiny.base.rows] == list(u_v.BASELINES)
    assert {r["policy"] for r in tiny.thm1.rows} == {r["policy"] for r in tiny.thm1.tables["exact"]}


def test_compute_at_a_tiny_scale_records_the_checks(tiny):
    thm1 = tiny.thm1
    assert thm1.claim("Theorem 1").judge() == "agrees"
    assert thm1.summary["random_closed_form"] == pytest.approx(u_v.random_assignment_utility(table1_system(9.75), 9.75))
    rnd = [r for r in thm1.rows if r["policy"] == "random"][0]
    assert thm1.summary["random_t"] == pytest.approx((rnd["mean_utility"] - thm1.summary["random_closed_form"])
                                                     / rnd["utility_se"])
    assert tiny.prop1.summary["cases"] == 5 and tiny.prop1.summary["max_abs_difference"] < 1e-8
    orders = tiny.thm3.summary["observed_order"]
    assert set(orders) == set(u_v.fluid_starts()) and all(0.5 < v < 1.5 for v in orders.values())
    assert tiny.thm4.summary["max_mass_error"] < 1e-6
    assert tiny.thm5.summary["error_slope_in_log_n"] == pytest.approx(
        np.polyfit(np.log([10, 20]), np.log([r["sup_l1_error"] for r in tiny.thm5.rows]), 1)[0])
    assert tiny.thm6.summary["beta"] == "n^(-1/3)"
    # one mean record per policy, then the law of the count judged by one sign-flip test
    means, law = tiny.poisson.claims[:-1], tiny.poisson.claims[-1]
    assert len(means) == len(tiny.poisson.rows) and means[0].paper == 4 * 9.75
    # each record carries its policy's run means: two here, too few for the t test
    assert all(len(m.ours_runs) == 2 and m.judge() == "not resolved" for m in means)
    random_check = thm1.claim("random assignment")
    assert len(random_check.ours_runs) == 2 and random_check.judge() == "not resolved"
    assert not any("utility_runs" in r for r in thm1.rows)      # the tables keep their columns
    assert law.tested and law.key == "U-X-poisson" and law.p_value == tiny.poisson.summary["law_test_p"]


def test_the_figures_are_drawn_from_the_results(tiny):
    for draw, result, n_axes in ((u_v.draw_theorem1, tiny.thm1, 1), (u_v.draw_baselines, tiny.base, 1),
                                 (u_v.draw_fluid_convergence, tiny.thm4, 2), (u_v.draw_fluid_limit, tiny.thm5, 2),
                                 (u_v.draw_learning, tiny.thm6, 2)):
        assert len(draw(result).axes) == n_axes
    # U-X-poisson: one panel per policy (the laws coincide: one panel for all would show one curve)
    fig = u_v.draw_poisson(tiny.poisson)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    from qtheory.utility.policies import title

    assert [ax.get_title() for ax in shown] == [title(p) for p in tiny.poisson.figure["policies"]]


@pytest.mark.parametrize("kwargs, name", [(dict(rho=0.0), "rho"), (dict(base_runs=1), "base_runs"),
                                          (dict(fluid_dts=[0.01]), "fluid_dts"), (dict(limit_n=[10]), "limit_n"),
                                          (dict(slta_n=[]), "slta_n"), (dict(n_random_lp=-1), "n_random_lp"),
                                          (dict(poisson_horizon=-1.0), "poisson_horizon"),
                                          # sizes and windows in the reader's words (the simulator says `n`, `warmup`)
                                          (dict(base_n=1), "`base_n` = 1 does not split"),
                                          (dict(poisson_n=0), "`poisson_n` must be >= 1"),
                                          (dict(limit_n=[10, 11]), r"`limit_n\[1\]` = 11"),
                                          (dict(slta_n=[0]), r"`slta_n\[0\]`"),
                                          (dict(poisson_horizon=1.0), "`base_warmup` must be shorter than `poisson_horizon`"),
                                          (dict(slta_t_late=1e6), "`slta_t_late` must be shorter than `slta_horizon`")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        u_v.compute(**(TINY | kwargs))


def _theorem_inputs(**change):
    base = dict(lp_gap=1e-14, n_cases=4, orders={"a": 1.0, "b": 0.99}, final={"a": 1e-6, "b": 2e-6}, fluid_horizon=30.0,
                errors=[{"n": 100, "sup_l1_error": 0.5}, {"n": 400, "sup_l1_error": 0.3}], slope=-0.4,
                slta=[{"n": 100, "fraction_at_r_star_late": 0.5}, {"n": 1000, "fraction_at_r_star_late": 0.95}])
    return {**base, **change}


def test_the_main_statements_of_proposition_1_and_theorems_3_to_6_are_judged_on_the_page_data():
    mains = u_v.theorem_claims(**_theorem_inputs())
    assert list(mains) == ["U-V-prop1", "U-V-thm3", "U-V-thm4", "U-V-thm5", "U-V-thm6"]
    assert all(c.judge() == "agrees" and c.category == "claim" and c.item == k for k, c in mains.items())
    broken = {"U-V-prop1": dict(lp_gap=1e-6), "U-V-thm3": dict(orders={"a": 1.0, "b": 0.5}),
              "U-V-thm4": dict(final={"a": 1e-6, "b": 1e-3}), "U-V-thm5": dict(slope=0.1),
              "U-V-thm6": dict(slta=[{"n": 100, "fraction_at_r_star_late": 0.95},
                                     {"n": 1000, "fraction_at_r_star_late": 0.9}])}
    for item, change in broken.items():
        assert u_v.theorem_claims(**_theorem_inputs(**change))[item].judge() == "differs", item
