"""U-T1's item function (and U-P-jlmu, U-P-slta, U-V-thm2 from the same runs) at a tiny scale, and
their records on rows that must agree and must differ."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.utility import optimal_assignment, table1_system
from qtheory.utility.items import u_t1


def _runs(gaps_by_key, n_runs=40, spread=0.05):
    """A runs table whose run gaps at each (rho, policy, n) have logarithms symmetric about
    log(gap) (skewness 0). The order of the runs is reversed at rho = 10 or at the smallest n (not
    both), so that every pair of samples a statement compares by index differs run by run by values
    symmetric about their mean, never by a constant."""
    from scipy import stats

    half = stats.norm.ppf((np.arange(1, n_runs // 2 + 1) - 0.5) / n_runs + 0.5)
    pattern = spread * np.concatenate([half, -half])
    nmin = min(n for _, _, n in gaps_by_key)
    out = []
    for (rho, p, n), g in gaps_by_key.items():
        x = g * np.exp(pattern)
        if (rho == 10.0) != (n == nmin):
            x = x[::-1]
        out += [{"rho": rho, "policy": p, "n": n, "run": k, "upper_bound": 9.0, "mean_utility_cv": 9.0 - v}
                for k, v in enumerate(x)]
    return out


def _gaps(fractional_big=(0.001, 0.001), integral_big=(0.004, 0.004), small=0.02):
    out = {}
    for rho, big in ((9.75, fractional_big), (10.0, integral_big)):
        for p, g in zip(("jlmu", "slta"), big):
            out[(rho, p, 50)] = small
            out[(rho, p, 1000)] = g
    return out


ARGS = ([9.75, 10.0], ["jlmu", "slta"], [50, 1000])


def test_the_deviation_shrinks_only_if_it_does_for_every_load_and_policy_beyond_the_noise():
    claim = u_t1.shrinks_claim(_runs(_gaps()), *ARGS)
    assert claim.tested and claim.key == "U-V-thm2" and claim.judge() == "agrees"
    assert "SLTA at $\\rho = 10$: the gap at $n = 50$ over the gap at $n = 1000$: ratio 5 " in claim.evidence
    assert u_t1.shrinks_claim(_runs(_gaps(integral_big=(0.004, 0.03))), *ARGS).judge() == "differs"
    assert u_t1.shrinks_claim(_runs(_gaps(fractional_big=(0.02, 0.001))), *ARGS).judge() == "not resolved"


def test_closer_in_the_fractional_case_only_if_both_policies_are_beyond_the_noise():
    claim = u_t1.closer_claim(_runs(_gaps()), *ARGS)
    assert claim.judge() == "agrees" and "($\\rho = 9.75$)" in claim.text and "$n = 1000$" in claim.text
    assert claim.category == "claim" and claim.tested and claim.paper is None
    assert u_t1.closer_claim(_runs(_gaps(fractional_big=(0.001, 0.005))), *ARGS).judge() == "differs"
    # the integral case 2% farther for SLTA: within the noise of 40 runs (5% each)
    assert u_t1.closer_claim(_runs(_gaps(fractional_big=(0.001, 0.004), integral_big=(0.004, 0.00408))),
                             *ARGS).judge() == "not resolved"


def test_a_gap_at_or_below_zero_is_compared_on_the_gaps_themselves():
    runs = _runs(_gaps())
    runs[0] = {**runs[0], "mean_utility_cv": runs[0]["upper_bound"] + 1e-4}   # an estimate above the bound
    test = u_t1.shrinks_test(runs, *ARGS)
    assert all(not d.log for d in test.parts) and "minus the gap" in test.parts[0].name
    assert all(d.log for d in u_t1.shrinks_test(_runs(_gaps()), *ARGS).parts)


def test_the_runs_gaps_are_read_in_run_order():
    runs = _runs({(9.75, "jlmu", 50): 0.02, (9.75, "jlmu", 1000): 0.001})
    gaps = u_t1.gap_runs(list(reversed(runs)), 9.75, "jlmu", 1000)
    assert gaps == pytest.approx([9.0 - r["mean_utility_cv"] for r in runs if r["n"] == 1000], abs=1e-12)
    with pytest.raises(ParameterError, match="no runs for rho = 10.0"):
        u_t1.gap_runs(runs, 10.0, "jlmu", 1000)


@pytest.mark.parametrize("rhos, pair", [([9.75, 10.0], True), ([10.0, 9.75], False), ([9.75], False),
                                        ([9.5, 9.75], False), ([9.75, 10.0, 11.0], False)])
def test_closer_is_judged_only_for_a_fractional_then_integral_pair(rhos, pair):
    assert u_t1.is_fractional_integral_pair(rhos) is pair
    if not pair:
        assert u_t1.closer_claim([], rhos, ["jlmu"], [50]) is None


def test_the_stated_assignments_agree_at_the_table_1_loads_and_differ_at_others():
    at_975, at_10 = optimal_assignment(table1_system(9.75)), optimal_assignment(table1_system(10.0))
    claims = u_t1.assignment_claims(at_975, at_10)
    assert [c.judge() for c in claims] == ["agrees"] * 4
    assert u_t1.reading_claim(claims).verdict == "reproduces the assignments stated in Sec. 3.4.1"
    # at rho = 9.5 class 2 sits at 11 tasks (not half at 12), at rho = 10.5 above 12
    other = u_t1.assignment_claims(optimal_assignment(table1_system(9.5)), optimal_assignment(table1_system(10.5)))
    assert [c.judge() for c in other][1:3] == ["differs", "differs"]
    assert u_t1.reading_claim(other).verdict.startswith("does not reproduce")


def _policy_row(mean_cv, half, runs=4, at_r=float("nan")):
    return {"mean_utility_cv": mean_cv, "utility_cv_ci_low": mean_cv - half, "utility_cv_ci_high": mean_cv + half,
            "runs": runs, "time_at_r_star": at_r}


def test_slta_reading_holds_when_slta_learns_r_star_and_matches_jlmu():
    t3 = stats.t.ppf(0.975, 3)
    # both standard errors 1e-5: combined sqrt(2) 1e-5, the limit 4 sqrt(2) 1e-5 = 5.66e-5
    jlmu = _policy_row(9.0, 1e-5 * t3)
    ok = u_t1.slta_reading_claim(_policy_row(9.0 + 5.6e-5, 1e-5 * t3, at_r=0.95), jlmu)
    assert ok.verdict == "SLTA learns $r_*$ and matches JLMU" and ok.ours == 0.95 and ok.item == "U-P-slta"
    far = u_t1.slta_reading_claim(_policy_row(9.0 + 5.7e-5, 1e-5 * t3, at_r=0.95), jlmu)
    assert far.verdict == "SLTA learns $r_*$ but differs from JLMU"
    slow = u_t1.slta_reading_claim(_policy_row(9.0, 1e-5 * t3, at_r=0.89), jlmu)
    assert slow.verdict == "SLTA does not learn $r_*$ yet matches JLMU"
    assert u_t1.slta_reading_claim(_policy_row(9.0, 1e-5 * t3, at_r=0.9), jlmu).verdict.endswith("and matches JLMU")


def test_wide_and_limit_rows_keep_the_paper_layout():
    long = []
    for rho in (9.75, 10.0):
        for n in (4, 10):
            for p in ("jlmu", "slta"):
                long.append({"rho": rho, "n": n, "policy": p, "upper_bound": 9.1, "limit_utility": 9.2,
                             **{k: float(len(long)) for k in u_t1.WIDE_COLUMNS}})
    wide = u_t1.wide_rows(long, [9.75, 10.0], [4, 10])
    assert [(r["rho"], r["n"]) for r in wide] == [(9.75, 4), (9.75, 10), (10.0, 4), (10.0, 10)]
    assert wide[1]["jlmu_mean_tasks"] == 2.0 and wide[1]["slta_mean_tasks"] == 3.0
    with pytest.raises(ParameterError, match="0 rows for rho = 9.5"):
        u_t1.wide_rows(long, [9.5], [4])
    lim = u_t1.limit_rows([{**long[0], "mean_utility_cv": 9.0, "utility_cv_ci_low": 8.9, "utility_cv_ci_high": 9.05}])[0]
    assert lim["gap_to_limit"] == pytest.approx(0.2) and lim["gap_ci_low"] == pytest.approx(0.15)
    assert lim["gap_ci_high"] == pytest.approx(0.3)


def test_compute_at_a_tiny_scale_returns_four_results_with_records_and_figures():
    res = u_t1.compute(seed=5, rhos=[9.75, 10.0], n_values=[4, 10], policies=["jlmu", "slta"], horizon=20.0,
                       warmup=5.0, n_runs=2)
    assert [r.item for r in res] == ["U-T1", "U-P-jlmu", "U-P-slta", "U-V-thm2"]
    assert len(res.table.rows) == 4 and len(res.table.tables["long"]) == 8
    assert [c.judge() for c in res.table.claims[:4]] == ["agrees"] * 4 and len(res.table.claims) == 7
    # the statements about the table are judged with the noise of the runs: 2 runs are too few
    assert [c.judge() for c in res.table.claims[4:6]] == ["not resolved"] * 2
    assert res.table.summary["deviation_shrinks"] is res.table.claim("shrinks").resolved is False
    assert len(res.table.tables["runs"]) == 2 * 2 * 2 * 2
    # each row's estimate is the mean of its runs' (the run means its records carry)
    for r in res.table.tables["long"]:
        mine = [x for x in res.table.tables["runs"] if (x["rho"], x["n"], x["policy"]) == (r["rho"], r["n"], r["policy"])]
        assert [x["run"] for x in mine] == [0, 1]
        assert sum(x["mean_utility_cv"] for x in mine) / 2 == pytest.approx(r["mean_utility_cv"], rel=1e-12)
        assert sum(x["mean_utility"] for x in mine) / 2 == pytest.approx(r["mean_utility"], rel=1e-12)
    assert {r["policy"] for r in res.jlmu.rows} == {"jlmu"} and len(res.slta.rows) == 4
    assert all(math.isnan(r["beta_n"]) for r in res.jlmu.rows)
    assert [r["beta_n"] for r in res.slta.rows] == pytest.approx([4 ** (-1 / 3), 10 ** (-1 / 3)] * 2)
    assert res.jlmu.summary == {"beta": None} and res.slta.summary == {"beta": "n^(-1/3)"}
    assert len(res.slta.claims) == 1 and res.slta.claims[0].ours == res.slta.rows[1]["time_at_r_star"]
    assert set(res.thm2.summary["gap_largest_n"]) == {"(9.75, 'jlmu')", "(9.75, 'slta')", "(10.0, 'jlmu')",
                                                      "(10.0, 'slta')"}
    assert res.table.figure["titles"] == {9.75: r"$\rho = 9.75$ (fractional)", 10.0: r"$\rho = 10.0$ (integral)"}
    gap = res.table.figure["gap_rows"][0]
    assert gap["gap_ci_low"] <= gap["gap"] <= gap["gap_ci_high"]
    fig = u_t1.draw_policy(res.slta)
    assert len(fig.axes) == 2
    # the text writes each gap and the JLMU - SLTA difference with its standard error (display.number),
    # recovered from the 95% t interval over the 2 runs (t quantile with one degree of freedom, 12.706)
    from qtheory.display import number

    long = res.table.tables["long"]
    row = next(r for r in long if (r["rho"], r["n"], r["policy"]) == (9.75, 10, "jlmu"))
    se = (row["utility_cv_ci_high"] - row["utility_cv_ci_low"]) / (2 * 12.7062)
    assert f"{number(row['upper_bound'] - row['mean_utility_cv'], se)} at $n = 10$" in res.table.text
    slta = next(r for r in long if (r["rho"], r["n"], r["policy"]) == (10.0, 10, "slta"))
    se_slta = (slta["utility_cv_ci_high"] - slta["utility_cv_ci_low"]) / (2 * 12.7062)
    jlmu = next(r for r in long if (r["rho"], r["n"], r["policy"]) == (10.0, 10, "jlmu"))
    se_jlmu = (jlmu["utility_cv_ci_high"] - jlmu["utility_cv_ci_low"]) / (2 * 12.7062)
    diff = number(jlmu["mean_utility_cv"] - slta["mean_utility_cv"], math.hypot(se_jlmu, se_slta))
    assert f"{diff} ($\\rho = 10.0$)" in res.table.text
    assert not re.search(r"\d\.\d+e[-+]\d\d", res.table.text)


@pytest.mark.parametrize("kwargs, name", [(dict(policies=["jlmu"]), "policies"), (dict(n_runs=1), "n_runs"),
                                          (dict(rhos=[]), "rhos"),
                                          (dict(n_values=[4, 0]), r"`n_values\[1\]` must be >= 1"),
                                          (dict(n_values=[3]), r"`n_values\[0\]` = 3 does not split"),
                                          (dict(rhos=[9.75, -1.0]), r"`rhos\[1\]`"),
                                          (dict(horizon=4.0), "`warmup` must be shorter than `horizon`")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=5, rhos=[9.75, 10.0], n_values=[4, 10], policies=["jlmu", "slta"], horizon=20.0, warmup=5.0,
                n_runs=2) | kwargs
    with pytest.raises(ParameterError, match=name):
        u_t1.compute(**args)


def test_the_limit_text_says_when_the_gap_to_the_limit_is_the_gap_to_the_bound():
    same = [{"n": n, "limit_utility": 9.1, "upper_bound": 9.1} for n in (50, 1000)]
    assert "equals the limit" in u_t1.limit_text(same) and "differs" not in u_t1.limit_text(same)
    apart = [{"n": 50, "limit_utility": 9.1, "upper_bound": 9.1}, {"n": 51, "limit_utility": 9.1, "upper_bound": 9.0975},
             {"n": 53, "limit_utility": 9.1, "upper_bound": 9.099}]
    text = u_t1.limit_text(apart)
    assert "differs from the limit" in text and "at $n$ = 51 and 53" in text and "at most 0.0025" in text
    assert "equals the limit" not in text
