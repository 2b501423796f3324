"""U-V-sub's item function at a tiny scale, and its records on inputs that must agree and must differ."""

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.utility import critical_eps
from qtheory.utility.items import u_v_sub


def test_advantage_rows_say_jlmu_loses_exactly_below_the_critical_eps():
    rows = u_v_sub.advantage_rows([0.05, 0.2, 0.45], [0.5, 2.0, 8.0], 1.0)
    assert len(rows) == 9
    for r in rows:
        assert r["jlmu_loses"] == (r["eps"] < critical_eps(r["rho"], 1.0))
        assert r["advantage_conservative"] == pytest.approx(r["conservative"] - r["jlmu"])
    assert any(r["jlmu_loses"] for r in rows) and not all(r["jlmu_loses"] for r in rows)


def test_a_tie_is_not_a_loss(monkeypatch):
    monkeypatch.setattr(u_v_sub, "jlmu_mean_utility", lambda eps, rho, a: 0.25)
    monkeypatch.setattr(u_v_sub, "conservative_mean_utility", lambda eps, rho, a: 0.25)
    assert u_v_sub.advantage_rows([0.1], [1.0], 1.0)[0]["jlmu_loses"] is False


def _symmetric_runs(mean, se, n):
    """`n` run means with the given mean and standard error of their mean and sample skewness 0
    (normal quantiles, symmetric about the mean)."""
    z = stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    return mean + z * (se * math.sqrt(n) / z.std(ddof=1))


def _checks(ctmc_offset=0.0, sim_t=(1.0, -2.0), se=0.001, runs=30):
    """The rows of one check point and the run means of its two simulations (`runs` each, with
    t statistics `sim_t` against the closed form 0.5 and standard error `se`)."""
    rows, values = [], {}
    for policy, t in zip(("jlmu", "conservative"), sim_t):
        values[(0.1, 1.0, policy)] = _symmetric_runs(0.5 + t * se, se, runs)
        rows += [{"eps": 0.1, "rho": 1.0, "policy": policy, "method": "closed form", "mean_utility": 0.5,
                  "se": 0.0, "runs": 0, "t_vs_closed_form": math.nan},
                 {"eps": 0.1, "rho": 1.0, "policy": policy, "method": "truncated CTMC", "mean_utility": 0.5 + ctmc_offset,
                  "se": 0.0, "runs": 0, "t_vs_closed_form": math.nan},
                 {"eps": 0.1, "rho": 1.0, "policy": policy, "method": "simulation",
                  "mean_utility": float(np.mean(values[(0.1, 1.0, policy)])), "se": se, "runs": runs,
                  "t_vs_closed_form": t}]
    return rows, values


def test_ctmc_error_is_the_largest_distance_to_the_closed_form_of_the_same_point_and_policy():
    assert u_v_sub.ctmc_error(_checks()[0]) == 0.0
    assert u_v_sub.ctmc_error(_checks(ctmc_offset=-1e-3)[0]) == pytest.approx(1e-3)


def test_the_simulation_check_is_one_joint_test_of_the_independent_points():
    """Two points with t = 1 and -2 on 30 symmetric run means (29 degrees of freedom, no skewness to
    correct): the chi-square of their normal scores (computed here from scipy's t and normal
    quantiles) gives the record's p-value."""
    from qtheory.verdicts import judge_one

    c = u_v_sub.simulation_check(*_checks(sim_t=(1.0, -2.0)))
    z = [stats.norm.isf(stats.t.sf(abs(t), 29)) for t in (1.0, -2.0)]
    assert c.p_value == pytest.approx(stats.chi2.sf(sum(x * x for x in z), 2), rel=1e-9)
    assert c.category == "check" and c.resolved and not c.assumption_failure and judge_one(c).label == "holds"
    assert judge_one(u_v_sub.simulation_check(*_checks(sim_t=(1.0, -12.0)))).label == "fails"
    # a standard error of 0.02: the 95% interval (about +-0.04) reaches beyond 5% of 0.5
    assert judge_one(u_v_sub.simulation_check(*_checks(se=0.02))).label == "not resolved"


def test_the_simulation_check_with_fewer_than_30_runs_is_not_resolved_and_skewed_runs_fall_back_on_cantelli():
    """The joint test checks the run means of every point: 29 of them cannot show their law's skew,
    so the record is not resolved, even where the simulation is far from the closed form (t = -12).
    Skewed ones break the t test's level: the points are judged by Cantelli's bound, Bonferroni
    over the two (p = 2 x 2/(1 + t^2)), which does not reject t = -12 (0.028 > 0.01; its interval of
    ± 6.24 standard errors, 0.006 wide, lies within the margin 0.025: it holds) and rejects t = -40
    (0.0025)."""
    from qtheory.verdicts import judge_one

    for sim_t in ((1.0, -2.0), (1.0, -12.0)):
        few = u_v_sub.simulation_check(*_checks(sim_t=sim_t, runs=29))
        assert "29 run means of estimate 1" in few.assumption_failure and judge_one(few).label == "not resolved"
    for t, label in ((-12.0, "holds"), (-40.0, "fails")):
        rows, values = _checks(sim_t=(1.0, t))
        key = (0.1, 1.0, "conservative")
        se = rows[-1]["se"]
        skewed = values[key].mean() + se * math.sqrt(30) * (stats.expon.ppf((np.arange(1, 31) - 0.5) / 30) - 1.0)
        values[key] = skewed
        rows[-1] = {**rows[-1], "mean_utility": float(skewed.mean()), "se": float(skewed.std(ddof=1) / math.sqrt(30))}
        c = u_v_sub.simulation_check(rows, values)
        t_skewed = (skewed.mean() - 0.5) / rows[-1]["se"]
        assert c.assumption_failure == "" and "Cantelli" in c.evidence and "estimate 2 are skewed" in c.evidence
        assert c.p_value == pytest.approx(min(1.0, 2 * 2 / (1 + t_skewed ** 2)), rel=1e-9)
        assert judge_one(c).label == label, (t, c.p_value)


def test_the_simulation_check_refuses_run_means_that_are_not_the_rows():
    rows, values = _checks()
    key = (0.1, 1.0, "jlmu")
    with pytest.raises(ParameterError, match="are not the run means of the simulated row"):
        u_v_sub.simulation_check(rows, {**values, key: values[key] + 1e-3})
    with pytest.raises(ParameterError, match="are not the run means"):
        u_v_sub.simulation_check(rows, {**values, key: values[key][:-1]})
    with pytest.raises(ParameterError, match="holds no run means for eps = 0.1, rho = 1, jlmu"):
        u_v_sub.simulation_check(rows, {k: v for k, v in values.items() if k != key})


def test_the_reading_is_consistent_only_when_the_chain_equals_the_closed_forms():
    ok = u_v_sub.reading_claim(1e-15)
    assert ok.category == "reconstruction" and ok.verdict == "consistent with the text" and ok.ours == 1e-15
    assert u_v_sub.reading_claim(2e-9).verdict.startswith("not confirmed")
    assert u_v_sub.reading_claim(1e-9).verdict == "consistent with the text"


def test_suboptimality_agrees_when_jlmu_loses_somewhere_and_differs_otherwise():
    some = u_v_sub.suboptimality_claim([{"jlmu_loses": True}, {"jlmu_loses": False}, {"jlmu_loses": False},
                                        {"jlmu_loses": False}])
    assert some.judge() == "agrees" and some.ours == 0.25 and some.category == "claim"
    none = u_v_sub.suboptimality_claim([{"jlmu_loses": False}] * 3)
    assert none.judge() == "differs" and none.ours == 0.0


def test_compute_at_a_tiny_scale_returns_rows_checks_records_and_figure():
    res = u_v_sub.compute(seed=1, a=1.0, n_eps=3, rho_max=4.0, n_rho=5, check_points=[[0.1, 1.0]], sim_horizon=300.0,
                          sim_runs=3)
    assert len(res.rows) == 15 and len(res.tables["checks"]) == 2 * 3
    assert res.summary["max_ctmc_error"] < 1e-9 and res.summary["sim_p"] == res.claims[2].p_value
    # the joint test saw each point's 3 run means: too few for it, the record is not resolved
    assert "3 run means of estimate 1" in res.claims[2].assumption_failure
    assert res.summary["eps_c_limit_rho_to_0"] == pytest.approx(0.5, abs=1e-3)
    assert res.claims[0].verdict == "consistent with the text" and res.claims[1].judge() == "agrees"
    assert res.figure["advantage"].shape == (3, 5) and res.figure["eps0"] == 0.1
    # the simulation's t statistic is its distance to the closed form in standard errors of the mean
    rows = {r["method"]: r for r in res.tables["checks"] if r["policy"] == "jlmu"}
    se = (rows["simulation"]["ci_high"] - rows["simulation"]["ci_low"]) / 2 / stats.t.ppf(0.975, 3 - 1)
    assert rows["simulation"]["t_vs_closed_form"] == pytest.approx(
        (rows["simulation"]["mean_utility"] - rows["closed form"]["mean_utility"]) / se)
    assert math.isnan(rows["truncated CTMC"]["t_vs_closed_form"])


@pytest.mark.parametrize("kwargs, name", [(dict(a=0.0), "`a`"), (dict(n_eps=0), "n_eps"), (dict(rho_max=-1.0), "rho_max"),
                                          (dict(sim_runs=1), "sim_runs"), (dict(check_points=[]), "check_points"),
                                          (dict(sim_horizon=0.0), "`sim_horizon` must be > 0"),
                                          (dict(sim_horizon=10.0), "`sim_horizon` must be longer than the warm-up of 10"),
                                          (dict(n_eps=1), "`n_eps` must be >= 2"), (dict(n_rho=1), "`n_rho` must be >= 2"),
                                          (dict(a=0.05), r"`check_points\[0\]` = \[eps, rho\] needs 0 < eps < `a`"),
                                          (dict(check_points=[[0.1, 1.0], [0.1]]), r"`check_points\[1\]` must be a pair"),
                                          (dict(check_points=[[0.1, 1.0], [0.2, 1.0], [0.1, 1]]),
                                           r"`check_points\[2\]` = \[0.1, 1\] repeats an earlier point")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=1, a=1.0, n_eps=3, rho_max=4.0, n_rho=5, check_points=[[0.1, 1.0]], sim_horizon=300.0,
                sim_runs=3) | kwargs
    with pytest.raises(ParameterError, match=name):
        u_v_sub.compute(**args)
