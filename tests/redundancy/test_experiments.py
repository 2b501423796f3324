"""R-T1, R-F4, R-F3cd, R-X-tail: the experiment set-ups and the numbers the notebooks compare."""

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.redundancy import experiments as E
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF


def test_table1_settings_are_those_of_appendix_e1():
    settings = E.table1_settings()
    assert [s.number for s in settings] == list(range(1, 13))
    expected_types = [6, 4, 4, 5, 45, 10, 45, 10, 190, 20, 190, 20]
    assert [s.system.n_types for s in settings] == expected_types
    assert [s.system.n_servers for s in settings] == [4] * 4 + [10] * 4 + [20] * 4
    np.testing.assert_allclose(settings[2].system.probabilities, [0.4, 0.1, 0.4, 0.1])
    np.testing.assert_allclose(settings[3].system.probabilities, [0.175] * 4 + [0.3])
    assert set(E.TABLE1_PAPER) == set(range(1, 13))


def test_exact_share_of_symmetric_settings_is_busy_probability_over_k():
    # for an exchangeable system the shares of all types sum to P(Q > 0)
    s = E.table1_settings()[1]
    ex = E.exact_setting(s, 0.9)
    p_empty = PF.total_jobs_pmf(s.system, 0.9, 0, "cos")[0]
    assert ex["share_first"] * s.system.n_types == pytest.approx(1 - p_empty)
    assert math.isnan(E.exact_setting(E.table1_settings()[2], 0.9)["share_first"])


def test_exact_cdf_is_the_cumulated_pmf_and_none_when_too_large():
    sy = M.power_of_d(4, 2)
    cdf = E.exact_cdf(sy, 0.9, 300)
    assert cdf[-1] == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(cdf) >= 0)
    assert E.exact_cdf(M.circular_d(20, 2), 0.9, 400) is None


def test_exact_tail_keeps_its_relative_accuracy_far_out():
    """One server, one type: an M/M/1 queue, P(Q > q) = lam^(q + 1). At q = 199 and load 0.9 that is
    7e-10: summed from the top the tail keeps 1e-9 of it, where 1 - P(Q <= q) keeps only 1e-7."""
    mm1 = M.RedundancySystem(np.ones(1), [(0,)], [1.0])
    tail = E.exact_tail(mm1, 0.9, 199)
    q = np.arange(200)
    np.testing.assert_allclose(tail, 0.9 ** (q + 1), rtol=1e-9)
    assert tail.shape == (200,) and E.exact_tail(M.circular_d(20, 2), 0.9, 199) is None


def test_m_model_tail_at_load_06_by_the_closed_form_13():
    # an independent route to R-X-tail: sum the closed form (13) over q + q' <= 15
    joint = PF.m_model_joint_pmf(0.6, 7 / 12, 15)
    q = np.add.outer(np.arange(16), np.arange(16))
    tail = 1 - joint[q <= 15].sum()
    pmf = PF.total_jobs_pmf(M.m_model(7 / 12), 0.6, 15)
    assert tail == pytest.approx(1 - pmf.sum(), rel=1e-9)
    assert tail == pytest.approx(6.577e-4, rel=1e-3)
    assert abs(tail - 4.7e-4) > 1e-4          # the printed value is not the M-model's tail


def test_cdf_of_the_total_approaches_the_exponential_approximation_14():
    sy = M.m_model(7 / 12)
    gaps = []
    for lam in (0.99, 0.999):
        pmf = PF.total_jobs_pmf(sy, lam, int(40 / (1 - lam)))
        q = np.arange(pmf.size)
        gaps.append(np.abs(np.cumsum(pmf) - (1 - np.exp(-(1 - lam) * (q + 1)))).max())
    assert gaps[1] < gaps[0] < 0.05


def test_appendix_e1_runs_start_from_floor_of_10_exp1_jobs_at_load_09():
    # with one recorded event and no warm-up, a run's time average is its initial count
    # floor(10 X), X ~ Exp(1): mean sum_k exp(-k/10) = 1/(e^0.1 - 1), sd about 10
    runs = E.simulate_setting(M.power_of_d(4, 2), 0.9, 400, 1, 7, mechanism="cos")
    x = np.array([r.mean_jobs for r in runs])
    assert np.all(x == np.floor(x))
    expected = 1 / math.expm1(0.1)
    assert abs(x.mean() - expected) < 5 * x.std(ddof=1) / math.sqrt(x.size)


def test_table1_share_statistic_is_time_weighted():
    # a symmetric system: the time-average share of one type is P(Q > 0) / K exactly; the
    # unweighted (event) average over-samples busy states and is larger
    s = E.table1_settings()[1]
    lam = 0.4
    runs = E.simulate_setting(s.system, lam, 16, 200_000, 11, mechanism="cos", warmup_events=2_000)
    exact = E.exact_setting(s, lam)["share_first"]
    x = np.array([r.ratio_first for r in runs])
    tol = stats.t.ppf(1 - 1e-3 / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    assert abs(x.mean() - exact) < tol
    ev = np.array([r.event_ratio_first for r in runs])
    assert ev.mean() - exact > 5 * tol


def test_convergence_order_is_one_for_linear_gaps_and_zero_for_a_wrong_limit():
    from qtheory.errors import ParameterError
    rows = [dict(load_fraction=1 - e, distance=3 * e + e * e) for e in (1e-2, 1e-3, 1e-4)]
    assert E.convergence_order(rows) == pytest.approx(1.0, abs=1e-3)
    wrong = [dict(load_fraction=1 - e, distance=0.05 + e) for e in (1e-2, 1e-3, 1e-4)]
    assert E.convergence_order(wrong) < 0.05
    with pytest.raises(ParameterError):
        E.convergence_order(rows[:1])


def _t1_rows(shift, n=12):
    rows = []
    for s in range(1, n + 1):
        exact = 10.0 + s
        rows.append(dict(setting=s, quantity="mean", paper_mean=exact + shift, paper_sd=math.sqrt(10) * 0.1,
                         exact=exact, time_mean=exact, time_sd=0.0, event_mean=exact + 0.5, event_sd=0.0,
                         arrival_mean=exact + 1, arrival_sd=0.0))
    return rows


def test_table1_comparison_scores_each_candidate_by_the_papers_standard_error():
    comp = E.table1_comparison(_t1_rows(0.9), n_runs=10)
    exact = [c for c in comp if c["estimator"] == "exact"]
    assert len(exact) == 12 and all(c["z"] == pytest.approx(9.0) for c in exact)
    plus1 = [c for c in comp if c["estimator"] == "exact + 1"]
    assert all(c["difference"] == pytest.approx(-0.1) for c in plus1)
    verdicts = {v["estimator"]: v for v in E.table1_verdicts(comp)}
    # all 12 below exact + 1: two-sided sign test 2 / 2^12
    assert verdicts["exact + 1"]["n_above"] == 0
    assert verdicts["exact + 1"]["sign_test_p"] == pytest.approx(2 / 2 ** 12)
    # each z = 9 is a t statistic with 9 degrees of freedom: its normal score is that of the same tail
    score = stats.norm.isf(stats.t.sf(9.0, 9))
    assert verdicts["exact"]["n_above"] == 12
    assert verdicts["exact"]["chi2_p"] == pytest.approx(stats.chi2.sf(12 * score ** 2, 12), rel=1e-9)
    # a column that is the exact value: no difference, chi2 p = 1
    ok = {v["estimator"]: v for v in E.table1_verdicts(E.table1_comparison(_t1_rows(0.0), 10))}
    assert ok["exact"]["max_difference"] == 0.0 and ok["exact"]["chi2_p"] == pytest.approx(1.0)


def test_the_joint_chi_square_of_table1_holds_its_level_for_a_true_reading():
    """The paper's means over 10 normal runs against the true value in 12 settings: the joint
    chi-square rejects a true reading at 5% about 5% of the time (its z are t statistics with 9
    degrees of freedom, mapped to normal scores; summed as squares they would reject about 19%)."""
    rng = np.random.default_rng(50)
    families, rejected = 1000, 0
    for _ in range(families):
        draws = rng.normal(0.0, 1.0, (12, 10))
        rows = [dict(setting=s + 1, quantity="mean", paper_mean=10.0 + s + draws[s].mean(), paper_sd=draws[s].std(ddof=1),
                     exact=10.0 + s, time_mean=math.nan, time_sd=math.nan, event_mean=math.nan, event_sd=math.nan,
                     arrival_mean=math.nan, arrival_sd=math.nan) for s in range(12)]
        v = next(v for v in E.table1_verdicts(E.table1_comparison(rows, n_runs=10)) if v["estimator"] == "exact")
        rejected += v["chi2_p"] <= 0.05
    rate = rejected / families
    bound = 4 * math.sqrt(0.05 * 0.95 / families)
    assert abs(rate - 0.05) <= bound, rate


# -- R-V builders -----------------------------------------------------------------------

def test_random_systems_are_keyed_by_index_and_reproducible():
    a, b = E.random_systems(5, 6), E.random_systems(5, 3)
    assert [s.types for s in a[:3]] == [s.types for s in b]          # a longer list keeps the prefix
    assert all(np.all(s.speeds == 1.0) for s in a[0::2])
    assert len({s.types + tuple(s.probabilities) for s in a}) == 6


def test_stability_rows_agree_and_a_broken_search_is_detected():
    systems = E.random_systems(1, 12)
    rows = E.stability_rows(systems, 1, pod_cases=((6, 2),))
    agree, gap = E.stability_agreement(rows)
    assert agree and gap < 1e-12
    bad = [dict(r, ratio_flow=r["ratio_flow"] * (1 + 1e-6)) if r["system"] == 3 else r for r in rows]
    assert not E.stability_agreement(bad)[0]
    wrong_cond = [dict(r, cond2_above=1) if r["system"] == 0 else r for r in rows]
    assert not E.stability_agreement(wrong_cond)[0]


def test_local_stability_rows_agree_and_count():
    rows = E.local_stability_rows(E.random_systems(2, 20))
    same, n_loc, necessary = E.local_stability_agreement(rows)
    assert same and necessary and 0 < n_loc < 20
    flipped = [dict(r, cond_9=1 - r["cond_9"]) if r["system"] == 0 else r for r in rows]
    assert not E.local_stability_agreement(flipped)[0]


def test_product_form_rows_z_scores_are_consistent_with_the_exact_values():
    rows = E.product_form_rows([("M-model", M.m_model(7 / 12), 0.6)], 6, 100_000, 3, max_q=2)
    assert {r["mechanism"] for r in rows} == {"coc", "cos"}
    assert len(rows) == 2 * 5 + 2   # E[Q], Var(Q), P(Q=0..2) per mechanism, and two E[Q_S] for c.o.c.
    for r in rows:
        assert r["z"] == pytest.approx((r["simulation"] - r["exact"]) / r["se"])
    # 12 comparisons with 6 runs: Bonferroni t(5) quantile, family-wise 1e-3
    assert max(abs(r["z"]) for r in rows) < stats.t.ppf(1 - 1e-3 / (2 * len(rows)), 5)


def test_pgf_rows_compare_proposition_31_with_the_dp():
    rows = E.pgf_rows(E.random_systems(4, 10), 4, n_systems=4)
    assert len(rows) == 4 and max(r["abs_diff"] for r in rows) < 1e-10
    assert all(0 < r["pgf_dp"] < 1 for r in rows)


def test_limit_rows_converge_linearly_and_a_wrong_limit_does_not():
    from qtheory.redundancy import model as M
    from qtheory.redundancy.experiments import convergence_order, limit_rows

    sy = M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1])
    rows = limit_rows(sy, [0.99, 0.999, 0.9999], [np.array([1.0, 0.0, 0.5, 2.0])])
    assert {r["mechanism"] for r in rows} == {"coc", "cos"}
    assert abs(convergence_order(rows) - 1.0) < 0.1
    # Laplace transforms at t = 0 are 1 for prelimit and limit alike
    zero = limit_rows(sy, [0.99, 0.999], [np.zeros(4)])
    assert all(r["value"] == pytest.approx(1.0) and r["limit"] == pytest.approx(1.0)
               for r in zero if r["quantity"] == "Laplace t0")
    # a limit off by 1%: the gap stops shrinking (order near 0)
    for r in rows:
        r["distance"] = abs(r["value"] - 1.01 * r["limit"])
    assert convergence_order(rows) < 0.2


def test_replica_rows_sum_of_limits_and_convergence():
    from qtheory.redundancy import model as M
    from qtheory.redundancy.experiments import convergence_order, replica_rows

    sy = M.RedundancySystem([1, 2, 1], [(0, 1), (1, 2), (0,)], [0.5, 0.3, 0.2])
    rows = replica_rows(sy, [0.99, 0.999, 0.9999])
    assert len(rows) == 3 * 2 * 3 and all(r["q_n"] >= 0 for r in rows)
    assert abs(convergence_order(rows) - 1.0) < 0.1
    assert max(r["distance"] for r in rows if r["load_fraction"] == 0.9999) < 1e-2


def test_sojourn_rows_approach_the_corrected_limit_not_the_printed_one():
    from qtheory.redundancy import model as M
    from qtheory.redundancy.experiments import sojourn_rows

    sy = M.m_model(0.25)                     # T* = {2,3}: p_T* = 3/4, mu_T* = 2
    rows = sojourn_rows(sy, [0.999, 0.9999], (1.0,))
    top = [r for r in rows if r["load_fraction"] == 0.9999 and r["type"] == "{2,3}"]
    assert len(top) == 2
    for r in top:
        assert r["limit_corrected"] == pytest.approx(1 / (1 + 1.0 / 2.0))
        assert abs(r["laplace"] - r["limit_corrected"]) < 1e-3 < abs(r["laplace"] - r["limit_as_printed"])


def test_truncated_pgf_rows_converge():
    from qtheory.redundancy import model as M
    from qtheory.errors import ParameterError
    from qtheory.redundancy.experiments import convergence_order, truncated_pgf_rows

    sy = M.RedundancySystem([1, 1, 1, 1], [(0, 1), (1, 2), (2, 3), (3,)], [0.15, 0.4, 0.3, 0.15])
    rows = truncated_pgf_rows(sy, [0.99, 0.999, 0.9999], (0.5,))
    assert all(0 < r["pgf_truncated"] <= 1 for r in rows)
    assert abs(convergence_order(rows) - 1.0) < 0.1
    with pytest.raises(ParameterError, match="load_fractions"):
        truncated_pgf_rows(sy, [1.0])
