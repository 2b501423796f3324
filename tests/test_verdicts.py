"""The one statistical procedure of the book (:mod:`qtheory.verdicts`).

Every expected number is derived in the test: closed forms (Welch–Satterthwaite, Holm by
closed testing), scipy quantiles (Student t, noncentral t, normal, chi-square) or binomial
bounds. The simulations draw whole families with numpy under fixed seeds and judge each
family with :func:`qtheory.verdicts.judge`; a simulated rate is compared with its bound
plus 4 binomial standard errors of the rate (a false alarm of such a check has a
probability of about 3e-5 per assertion).
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from qtheory import verdicts
from qtheory.claims import Claim
from qtheory.errors import ParameterError

LEVEL = verdicts.FAMILY_LEVEL
#: the paper's value of every synthetic record, and the sd of one simulated run
PAPER, SIGMA = 10.0, 1.0
#: binomial standard errors allowed between a simulated rate and its bound
K_SE = 4.0


def _claim(ours, *, paper=PAPER, **fields):
    return Claim("U-X-poisson", "a synthetic record", paper=paper, ours=ours, category="claim",
                 source="Sec. 2.1", **fields)


def _check(ours, reference, **fields):
    return Claim("R-T1", "a synthetic check", ours=ours, reference=reference, category="check", **fields)


def _upper(rate, trials):
    """``rate`` plus K_SE binomial standard errors of a proportion estimated from `trials`."""
    return rate + K_SE * math.sqrt(rate * (1.0 - rate) / trials)


def _lower(rate, trials):
    return rate - K_SE * math.sqrt(rate * (1.0 - rate) / trials)


def _labels(judgement):
    return [v.label for v in judgement.verdicts]


def _two_sided_power(noncentrality, df, alpha):
    """P(|T'| > t_{1-alpha/2, df}) for T' noncentral t. The lower tail is taken as the upper
    tail of -T' (scipy's ``nct.cdf`` returns nan far in the lower tail for large noncentrality)."""
    cut = stats.t.isf(alpha / 2, df)
    return float(stats.nct.sf(cut, df, noncentrality) + stats.nct.sf(cut, df, -noncentrality))


def test_the_procedures_constants_are_the_documented_ones():
    # the tests below derive their bounds from these constants, so they are pinned here: a page's
    # familywise level 0.01, a 95 % interval, and a default margin of 5 % of the target
    assert (verdicts.FAMILY_LEVEL, verdicts.INTERVAL_LEVEL, verdicts.RELATIVE_MARGIN) == (0.01, 0.95, 0.05)
    assert verdicts.CLAIM_LABELS == ("agrees", "differs", "not resolved")
    assert verdicts.CHECK_LABELS == ("holds", "fails", "not resolved")
    summary = verdicts.judge([_claim(PAPER, ours_se=0.01, ours_df=9)]).summary()
    assert "tested at level 0.01" in summary and "family" not in summary
    summary = verdicts.judge([_claim(PAPER, ours_se=0.01, ours_df=9)] * 2).summary()
    assert "its 2 statistical hypotheses" in summary and "at least 30 runs" in summary
    assert "familywise level 0.01" in summary and "95% interval" in summary and "5% of the value" in summary


# --------------------------------------------------------------------------------------------
# 1. Welch–Satterthwaite
# --------------------------------------------------------------------------------------------


def test_welch_standard_error_and_degrees_of_freedom_match_a_hand_computation():
    se, df = verdicts.welch(0.3, 4, 0.4, 9)
    # exact rational arithmetic: s^2 = 0.09 + 0.16, nu = s^4 / (0.3^4 / 4 + 0.4^4 / 9)
    s2 = Fraction("0.3") ** 2 + Fraction("0.4") ** 2
    nu = s2 ** 2 / (Fraction("0.3") ** 4 / 4 + Fraction("0.4") ** 4 / 9)
    assert se == pytest.approx(0.5, rel=1e-15)
    assert df == pytest.approx(float(nu), rel=1e-12)
    # the formula is symmetric in the two sides
    assert verdicts.welch(0.4, 9, 0.3, 4) == pytest.approx((se, df), rel=1e-15)


def test_welch_degrees_of_freedom_lie_between_the_smaller_side_and_the_sum():
    rng = np.random.default_rng(20240101)
    for se_a, se_b, df_a, df_b in zip(rng.uniform(0.01, 3, 200), rng.uniform(0.01, 3, 200),
                                      rng.integers(1, 200, 200), rng.integers(1, 200, 200)):
        se, df = verdicts.welch(float(se_a), int(df_a), float(se_b), int(df_b))
        assert se == pytest.approx(math.hypot(se_a, se_b), rel=1e-14)
        assert min(df_a, df_b) * (1 - 1e-12) <= df <= (df_a + df_b) * (1 + 1e-12)
    # equal standard errors and equal degrees of freedom: nu = 2 (n - 1)
    assert verdicts.welch(0.1, 9, 0.1, 9)[1] == pytest.approx(18.0, rel=1e-14)


def test_welch_with_one_exact_side_keeps_the_other_sides_degrees_of_freedom():
    assert verdicts.welch(0.2, 7, None, None) == pytest.approx((0.2, 7.0), rel=1e-15)
    assert verdicts.welch(None, None, 0.2, 7) == pytest.approx((0.2, 7.0), rel=1e-15)
    # a standard error of 0 is exact and needs no degrees of freedom
    assert verdicts.welch(0.2, 7, 0.0, None) == pytest.approx((0.2, 7.0), rel=1e-15)
    assert verdicts.welch(None, None, None, None) == (0.0, math.inf)
    assert verdicts.welch(0.0, None, 0.0, None) == (0.0, math.inf)


@pytest.mark.parametrize("df", [None, 0.5, 0.0, float("nan")])
def test_a_standard_error_without_valid_degrees_of_freedom_raises(df):
    with pytest.raises(ParameterError, match="degrees of freedom"):
        verdicts.welch(0.2, df, None, None)
    with pytest.raises(ParameterError, match="degrees of freedom"):
        verdicts.welch(0.2, 5, 0.3, df)


def test_a_two_sided_comparison_equals_welchs_two_sample_t_test():
    # two estimated sides from raw samples: the record's t, df, p and 95% interval are those of
    # scipy's Welch test (unequal variances) of the two samples
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.normal(10.0, rng.uniform(0.5, 2.0), size=int(rng.integers(3, 12)))
        b = rng.normal(10.3, rng.uniform(0.5, 2.0), size=int(rng.integers(3, 12)))
        record = _claim(float(a.mean()), paper=float(b.mean()),
                        ours_se=float(a.std(ddof=1) / math.sqrt(a.size)), ours_df=a.size - 1,
                        paper_se=float(b.std(ddof=1) / math.sqrt(b.size)), paper_df=b.size - 1,
                        tolerance=1.0)
        c = verdicts.compare(record)
        ref = stats.ttest_ind(a, b, equal_var=False)
        ci = ref.confidence_interval(verdicts.INTERVAL_LEVEL)
        assert c.t == pytest.approx(ref.statistic, rel=1e-10)
        assert c.df == pytest.approx(ref.df, rel=1e-10)
        assert c.p == pytest.approx(ref.pvalue, rel=1e-8)
        assert (c.low, c.high) == pytest.approx((ci.low, ci.high), rel=1e-10)
        assert c.difference == pytest.approx(a.mean() - b.mean(), rel=1e-12)


def test_a_check_is_compared_with_its_reference_and_its_reference_standard_error():
    c = verdicts.compare(_check(5.2, 5.0, ours_se=0.1, ours_df=9, reference_se=0.05, reference_df=19))
    se, df = verdicts.welch(0.1, 9, 0.05, 19)
    assert (c.se, c.df) == pytest.approx((se, df), rel=1e-15)
    assert c.t == pytest.approx(0.2 / se, rel=1e-12)
    assert c.p == pytest.approx(2 * stats.t.sf(0.2 / se, df), rel=1e-10)


def test_only_statistical_claims_and_checks_have_a_comparison():
    assert verdicts.compare(_claim(1.0, paper=1.0, tolerance=0.1)) is None
    assert verdicts.compare(Claim("R-T1", "x", holds=True, source="Sec. 2.1")) is None
    assert verdicts.compare(Claim("R-T1", "x", category="reconstruction", verdict="confirmed",
                                  source="Sec. 2.1", ours=1.0, ours_se=0.1, ours_df=4)) is None
    # standard errors recorded as 0 on both sides are exact: a deterministic comparison
    assert verdicts.compare(_claim(1.0, paper=1.0, ours_se=0.0, paper_se=0.0, tolerance=0.1)) is None


# --------------------------------------------------------------------------------------------
# 2. Holm's step-down procedure
# --------------------------------------------------------------------------------------------


def _holm_by_closed_testing(p, level):
    """Holm's procedure by its definition: the closed testing procedure of Bonferroni tests.
    H_i is rejected iff every intersection hypothesis H_S with i in S is rejected by the
    Bonferroni test min_{j in S} p_j <= level / |S|."""
    m = len(p)
    local = {}
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(m), size):
            local[subset] = min(p[j] for j in subset) <= level / size
    return [all(ok for subset, ok in local.items() if i in subset) for i in range(m)]


def _random_pvalue_vectors(seed, count):
    """p-value vectors of 1-7 entries: uniform, tiny, exactly at Holm thresholds, and tied."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m = int(rng.integers(1, 8))
        level = float(rng.choice([LEVEL, 0.05, 0.2]))
        kind = rng.integers(4)
        if kind == 0:
            p = rng.uniform(0, 1, m)
        elif kind == 1:  # log-uniform over [1e-6, 1]: many near the thresholds
            p = 10.0 ** rng.uniform(-6, 0, m)
        elif kind == 2:  # exactly on thresholds level / k (the boundary p == threshold rejects)
            p = level / rng.integers(1, m + 1, m)
        else:  # ties
            p = np.repeat(rng.uniform(0, 3 * level / m), m)
        yield [float(x) for x in p], level


def test_holm_rejects_exactly_what_closed_testing_of_bonferroni_tests_rejects():
    for p, level in _random_pvalue_vectors(11, 600):
        assert verdicts.holm(p, level) == _holm_by_closed_testing(p, level), (p, level)


def test_holm_rejects_at_least_what_bonferroni_rejects_and_at_most_what_unadjusted_tests_reject():
    strictly_between = 0
    for p, level in _random_pvalue_vectors(12, 2000):
        m = len(p)
        rejected = verdicts.holm(p, level)
        bonferroni = [x <= level / m for x in p]
        unadjusted = [x <= level for x in p]
        assert all(r or not b for r, b in zip(rejected, bonferroni))
        assert all(u or not r for r, u in zip(rejected, unadjusted))
        strictly_between += rejected != bonferroni
    assert strictly_between > 0  # the vectors exercise the step-down beyond the first step


def test_holm_of_no_hypotheses_rejects_nothing_and_of_one_is_the_level_test():
    assert verdicts.holm([]) == []
    assert verdicts.holm([LEVEL]) == [True]
    assert verdicts.holm([math.nextafter(LEVEL, 1.0)]) == [False]


def test_a_page_is_judged_by_holm_over_its_statistical_records():
    # records with chosen p-values: the differing ones are the ones Holm rejects, the
    # thresholds are level / (m - rank), and deterministic records stay out of the family
    rng = np.random.default_rng(13)
    for p, _ in _random_pvalue_vectors(14, 200):
        df = int(rng.integers(2, 30))
        se = 0.01
        records = [_claim(PAPER + float(stats.t.isf(x / 2, df)) * se * float(rng.choice([-1, 1])),
                          ours_se=se, ours_df=df) for x in p]
        records.insert(0, _claim(3.0, paper=4.0, tolerance=0.5))  # deterministic, differs
        judgement = verdicts.judge(records)
        statistical = judgement.verdicts[1:]
        actual_p = [v.comparison.p for v in statistical]
        expected = _holm_by_closed_testing(actual_p, LEVEL)
        assert [v.label == "differs" for v in statistical] == expected
        assert [v.rejected for v in statistical] == expected
        assert judgement.size == len(p) and all(v.family_size == len(p) for v in statistical)
        ranks = np.argsort(actual_p, kind="stable")
        for rank, i in enumerate(ranks):
            assert statistical[i].threshold == pytest.approx(LEVEL / (len(p) - rank), rel=1e-15)
        assert judgement.verdicts[0].label == "differs" and judgement.verdicts[0].threshold is None


def test_a_family_level_outside_zero_and_one_raises():
    for level in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ParameterError, match="level"):
            verdicts.judge([_claim(1.0, paper=1.0, tolerance=0.1)], level)


# --------------------------------------------------------------------------------------------
# 3. Calibration of null families
# --------------------------------------------------------------------------------------------

#: (records per family m, runs per record n, families simulated)
NULL_DESIGNS = [(1, 5, 2000), (1, 10, 2000), (8, 5, 1000), (8, 10, 1000), (48, 5, 400), (48, 10, 400)]


def _simulate(seed, families, m, n, shift=None, family=""):
    """Judge `families` synthetic pages of m records; record j's "ours" is the mean of n normal
    runs with mean PAPER + shift[j] (shift None: all null), its standard error s / sqrt(n)
    with n - 1 degrees of freedom; the paper's value is exact. Returns the judgements."""
    rng = np.random.default_rng(seed)
    draws = rng.normal(PAPER, SIGMA, size=(families, m, n))
    if shift is not None:
        draws += np.asarray(shift, dtype=float)[None, :, None]
    means = draws.mean(axis=2).tolist()
    ses = (draws.std(axis=2, ddof=1) / math.sqrt(n)).tolist()
    return [verdicts.judge([_claim(x, ours_se=s, ours_df=n - 1, family=family) for x, s in zip(row_x, row_s)])
            for row_x, row_s in zip(means, ses)]


@functools.lru_cache(maxsize=None)
def _null_pages(m, n, families):
    """Summaries of simulated null pages (cached: the calibration and the old-rule tests share them)."""
    judgements = _simulate(1000 * m + n, families, m, n)
    labels = np.array([_labels(j) for j in judgements])
    comparisons = [[v.comparison for v in j.verdicts] for j in judgements]
    return {"labels": labels,
            "t": np.array([[c.t for c in row] for row in comparisons]),
            "p": np.array([[c.p for c in row] for row in comparisons]),
            "covers": np.array([[c.low <= 0.0 <= c.high for c in row] for row in comparisons])}


@pytest.mark.parametrize("m, n, families", NULL_DESIGNS)
def test_a_null_page_has_a_false_difference_at_most_at_the_family_level(m, n, families):
    pages = _null_pages(m, n, families)
    any_differs = (pages["labels"] == "differs").any(axis=1).mean()
    assert any_differs <= _upper(LEVEL, families)
    # Holm over independent exact p-values has familywise error 1 - (1 - level/m)^m: the
    # simulation agrees with it from below too (a procedure that never rejects would not)
    exact = -math.expm1(m * math.log1p(-LEVEL / m))
    assert exact <= LEVEL * (1 + 1e-12)
    assert any_differs >= _lower(exact, families)


@pytest.mark.parametrize("m, n, families", NULL_DESIGNS)
def test_a_null_records_p_value_and_interval_are_exact_for_student_t(m, n, families):
    # the records are independent, so m * families trials: a normal (instead of Student t)
    # reference would give P(|T| > 1.96) = 0.12 (df 4) or 0.08 (df 9), not 0.05
    pages = _null_pages(m, n, families)
    trials = m * families
    for alpha in (0.05, 0.2):
        rate = (pages["p"] <= alpha).mean()
        assert _lower(alpha, trials) <= rate <= _upper(alpha, trials), alpha
    coverage = pages["covers"].mean()
    level = verdicts.INTERVAL_LEVEL
    assert _lower(level, trials) <= coverage <= _upper(level, trials)
    assert np.allclose(np.abs(pages["t"]), stats.t.isf(pages["p"] / 2, n - 1), rtol=1e-6)


def test_the_old_rule_of_four_normal_standard_errors_exceeds_the_family_level_on_a_page_of_48():
    # the former rule called a record different when |t| > 4, read as a normal deviate, one
    # record at a time; with 5 runs (df 4) its chance of a false difference on a page of 48 is
    old = 1.0 - (1.0 - 2.0 * stats.t.sf(4.0, 4)) ** 48
    assert old > LEVEL
    assert 2.0 * stats.norm.sf(4.0) * 48 < LEVEL  # what the normal reading promised
    # and the simulated null pages of 48 records show it
    m, n, families = 48, 5, 400
    pages = _null_pages(m, n, families)
    old_rate = (np.abs(pages["t"]) > 4.0).any(axis=1).mean()
    assert _lower(old, families) <= old_rate <= _upper(old, families)
    assert old_rate > _upper(LEVEL, families)
    assert (pages["labels"] == "differs").any(axis=1).mean() < old_rate


# --------------------------------------------------------------------------------------------
# 4. Power
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("m, n, k, families", [(1, 10, 3.0, 2000), (8, 10, 4.0, 1500), (8, 5, 6.0, 1000)])
def test_a_shifted_record_is_detected_between_bonferronis_power_and_the_unadjusted_power(m, n, k, families):
    df = n - 1
    shift = np.zeros(m)
    shift[0] = k * SIGMA / math.sqrt(n)  # the noncentrality of its t statistic is k
    judgements = _simulate(77 + 100 * m + n, families, m, n, shift=shift)
    labels = np.array([_labels(j) for j in judgements])
    detected = (labels[:, 0] == "differs").mean()
    bonferroni = _two_sided_power(k, df, LEVEL / m)
    unadjusted = _two_sided_power(k, df, LEVEL)
    assert bonferroni < unadjusted or m == 1
    assert _lower(bonferroni, families) <= detected <= _upper(unadjusted, families)
    if m == 1:  # a family of one is the level test itself: its power exactly
        assert detected >= _lower(unadjusted, families)
    if m > 1:  # the other records are null: a false difference among them stays within the level
        false = (labels[:, 1:] == "differs").any(axis=1).mean()
        assert false <= _upper(LEVEL, families)


# --------------------------------------------------------------------------------------------
# 5. "not resolved"
# --------------------------------------------------------------------------------------------


def _half_width(se, df):
    return float(stats.t.ppf(0.5 + verdicts.INTERVAL_LEVEL / 2, df)) * se


def test_a_record_whose_interval_is_wider_than_its_margin_is_never_agrees():
    # paper 10, no tolerance: margin 0.5 (RELATIVE_MARGIN of 10); se 1 with 9 df: half-width 2.26
    assert verdicts.RELATIVE_MARGIN * PAPER < _half_width(1.0, 9)
    assert verdicts.judge_one(_claim(PAPER, ours_se=1.0, ours_df=9)).label == "not resolved"
    rng = np.random.default_rng(5)
    labels = {verdicts.judge_one(_claim(PAPER + float(d), ours_se=1.0, ours_df=9)).label
              for d in rng.normal(0.0, 3.0, 300)}
    assert "agrees" not in labels and labels <= {"not resolved", "differs"}


def test_a_null_record_with_a_tight_interval_agrees():
    v = verdicts.judge_one(_claim(PAPER, ours_se=0.01, ours_df=9))
    assert v.label == "agrees" and v.passes is True and not v.rejected


@pytest.mark.parametrize("d_in_se", [0.0, 0.5, -1.5])
def test_agreement_needs_the_95_percent_interval_within_the_tolerance(d_in_se):
    se, df = 0.1, 6
    reach = abs(d_in_se) * se + _half_width(se, df)  # the interval's farthest end from 0
    ours = PAPER + d_in_se * se
    inside = verdicts.judge_one(_claim(ours, ours_se=se, ours_df=df, tolerance=reach * (1 + 1e-6)))
    outside = verdicts.judge_one(_claim(ours, ours_se=se, ours_df=df, tolerance=reach * (1 - 1e-6)))
    assert inside.label == "agrees"
    assert outside.label == "not resolved" and outside.passes is None
    # a tolerance below the half-width alone can never be met
    assert verdicts.judge_one(_claim(PAPER, ours_se=se, ours_df=df,
                                     tolerance=_half_width(se, df) * 0.999)).label == "not resolved"


def test_without_a_tolerance_the_margin_is_the_relative_margin_of_the_target():
    df = 9
    margin = verdicts.RELATIVE_MARGIN * abs(-PAPER)
    se_at_margin = margin / _half_width(1.0, df)
    for paper in (PAPER, -PAPER):  # the size of the target, whatever its sign
        assert verdicts.judge_one(_claim(paper, paper=paper, ours_se=se_at_margin * (1 - 1e-6),
                                         ours_df=df)).label == "agrees"
        assert verdicts.judge_one(_claim(paper, paper=paper, ours_se=se_at_margin * (1 + 1e-6),
                                         ours_df=df)).label == "not resolved"


def test_a_statistical_check_holds_fails_or_is_not_resolved():
    assert verdicts.judge_one(_check(5.0, 5.0, ours_se=0.001, ours_df=9, reference_se=0.001,
                                     reference_df=9)).label == "holds"
    assert verdicts.judge_one(_check(5.0, 5.0, ours_se=1.0, ours_df=9)).label == "not resolved"
    fails = verdicts.judge_one(_check(5.5, 5.0, ours_se=0.01, ours_df=9))
    assert fails.label == "fails" and fails.passes is False and fails.rejected


# --------------------------------------------------------------------------------------------
# 6. Joint tests of a family of rows
# --------------------------------------------------------------------------------------------


def test_twelve_rows_each_one_standard_error_high_are_caught_by_stouffers_test_alone():
    k = 12
    ses = [0.01 * (1 + i / 4) for i in range(k)]
    dfs = [80 + 20 * i for i in range(k)]
    records = [_claim(PAPER + s, ours_se=s, ours_df=nu, family="policies") for s, nu in zip(ses, dfs)]
    judgement = verdicts.judge(records)
    t = [(r.ours - r.paper) / s for r, s in zip(records, ses)]
    assert t == pytest.approx([1.0] * k, rel=1e-9)
    # the normal scores, by the cdf (the module uses the survival function)
    z = [float(stats.norm.ppf(stats.t.cdf(ti, nu))) for ti, nu in zip(t, dfs)]
    stouffer_z = sum(z) / math.sqrt(k)
    stouffer_p = 2.0 * stats.norm.sf(stouffer_z)
    family_size = k + 2  # twelve records and the two joint tests
    assert judgement.size == family_size
    assert stouffer_p <= LEVEL / family_size  # the smallest p of the page passes Holm's first step
    joint = {j.kind: j for j in judgement.joint}
    assert set(joint) == {"Stouffer", "chi-square"}
    assert joint["Stouffer"].statistic == pytest.approx(stouffer_z, rel=1e-9)
    assert joint["Stouffer"].p == pytest.approx(stouffer_p, rel=1e-7)
    assert joint["Stouffer"].rejected and joint["Stouffer"].size == k and joint["Stouffer"].family == "policies"
    chi2 = sum(x * x for x in z)
    assert joint["chi-square"].statistic == pytest.approx(chi2, rel=1e-9)
    assert joint["chi-square"].p == pytest.approx(stats.chi2.sf(chi2, k), rel=1e-7)
    assert not joint["chi-square"].rejected  # twelve deviations of 1 are what chance gives
    # each row alone is not rejected (p = 0.32): none differs
    assert all(v.comparison.p > LEVEL and not v.rejected for v in judgement.verdicts)
    assert "differs" not in _labels(judgement)
    # without the shared family name there is no joint test and nothing is caught
    alone = verdicts.judge([_claim(r.ours, ours_se=r.ours_se, ours_df=r.ours_df) for r in records])
    assert alone.joint == () and alone.size == k


def test_joint_tests_need_two_statistical_rows_of_one_family():
    one = [_claim(PAPER + 0.01, ours_se=0.01, ours_df=9, family="a"),
           _claim(PAPER + 0.01, ours_se=0.01, ours_df=9, family="b"),
           _claim(PAPER, paper=PAPER, tolerance=0.1, family="a")]  # deterministic: not a row of it
    assert verdicts.joint_tests(one) == []
    two = one + [_claim(PAPER - 0.01, ours_se=0.01, ours_df=9, family="a")]
    tests = verdicts.joint_tests(two)
    assert [(j.family, j.kind, j.size) for j in tests] == [("a", "Stouffer", 2), ("a", "chi-square", 2)]
    assert tests[0].statistic == pytest.approx(0.0, abs=1e-9)  # +1 and -1 standard error cancel


def test_a_null_familys_joint_tests_reject_at_most_at_the_family_level():
    # 12 rows of 5 runs (df 4): the scores are exactly normal, so each joint p-value is uniform;
    # the rate at 0.05 would be 0.17 for Stouffer if t were used in place of its normal score
    k, n, families = 12, 5, 800
    judgements = _simulate(4242, families, k, n, family="rows")
    joint = [{j.kind: j for j in judgement.joint} for judgement in judgements]
    rejected = np.mean([any(j.rejected for j in tests.values()) for tests in joint])
    assert rejected <= _upper(LEVEL, families)
    for kind in ("Stouffer", "chi-square"):
        p = np.array([tests[kind].p for tests in joint])
        for alpha in (0.05, 0.25):
            rate = (p <= alpha).mean()
            assert _lower(alpha, families) <= rate <= _upper(alpha, families), (kind, alpha)
    any_differs = np.mean([("differs" in _labels(j)) for j in judgements])
    assert any_differs <= _upper(LEVEL, families)


def test_the_normal_score_of_a_t_statistic_is_odd_in_t():
    se, df, t = 0.01, 99, 12.0
    rows = [_claim(PAPER + t * se, ours_se=se, ours_df=df, family="rows"),
            _claim(PAPER - t * se, ours_se=se, ours_df=df, family="rows")]
    stouffer = next(j for j in verdicts.joint_tests(rows) if j.kind == "Stouffer")
    # the two rows deviate equally in opposite directions: Stouffer's Z is 0
    assert math.isfinite(stouffer.statistic) and abs(stouffer.statistic) < 1e-6


def _order_invariant(page, permutation):
    """Whether judging the page in another order gives each record the same verdict and the
    same joint tests."""
    first = verdicts.judge(page)
    second = verdicts.judge([page[i] for i in permutation])
    same_records = all(second.verdicts[k].label == first.verdicts[i].label
                       and second.verdicts[k].rejected == first.verdicts[i].rejected
                       for k, i in enumerate(permutation))
    joint = lambda j: sorted((t.family, t.kind, t.rejected) for t in j.joint)  # noqa: E731
    return same_records and joint(first) == joint(second)


def test_a_page_is_judged_the_same_whatever_the_order_of_its_records():
    rng = np.random.default_rng(99)
    for _ in range(100):
        m = int(rng.integers(2, 9))
        t = rng.standard_t(4, m) * rng.choice([1.0, 3.0])
        names = rng.choice(["a", "b", ""], m)
        page = [_claim(PAPER + float(x) * 0.01, ours_se=0.01, ours_df=4, family=str(f)) for x, f in zip(t, names)]
        assert _order_invariant(page, rng.permutation(m).tolist())


def test_a_page_with_extreme_rows_is_judged_the_same_whatever_the_order_of_its_records():
    se, df = 0.01, 99
    cut = float(stats.t.isf(LEVEL / 20 / 2, df))  # p = LEVEL / 20, below every Holm threshold of 4
    page = [_claim(PAPER + 1e5 * se, ours_se=se, ours_df=df, family="rows"),
            _claim(PAPER - 12 * se, ours_se=se, ours_df=df, family="rows"),
            _claim(PAPER + cut * se, ours_se=se, ours_df=df),
            _claim(PAPER + 0.1 * se, ours_se=se, ours_df=df)]
    assert _order_invariant(page, [2, 3, 0, 1])


# --------------------------------------------------------------------------------------------
# 7. Deterministic and qualitative records
# --------------------------------------------------------------------------------------------


def test_a_deterministic_record_agrees_iff_its_difference_is_within_the_tolerance_boundary_included():
    # 1.25 - 1.0 and 1.0 - 0.75 are exactly 0.25 in binary floating point
    assert verdicts.judge_one(_claim(1.25, paper=1.0, tolerance=0.25)).label == "agrees"
    assert verdicts.judge_one(_claim(0.75, paper=1.0, tolerance=0.25)).label == "agrees"
    assert verdicts.judge_one(_claim(math.nextafter(1.25, 2.0), paper=1.0, tolerance=0.25)).label == "differs"
    assert verdicts.judge_one(_claim(math.nextafter(0.75, 0.0), paper=1.0, tolerance=0.25)).label == "differs"
    # a tolerance of 0 asks for equality
    assert verdicts.judge_one(_claim(1.0, paper=1.0, tolerance=0.0)).label == "agrees"
    assert verdicts.judge_one(_claim(math.nextafter(1.0, 2.0), paper=1.0, tolerance=0.0)).label == "differs"
    # standard errors recorded as 0 make the record deterministic: it is judged by its tolerance
    v = verdicts.judge_one(_claim(1.2, paper=1.0, ours_se=0.0, paper_se=0.0, tolerance=0.25))
    assert v.label == "agrees" and v.comparison is None and v.family_size == 0
    # and checks by the same rule, with their own words
    assert verdicts.judge_one(_check(1.25, 1.0, tolerance=0.25)).label == "holds"
    assert verdicts.judge_one(_check(1.5, 1.0, tolerance=0.25)).label == "fails"


def test_deterministic_records_stay_out_of_the_holm_family():
    stat = _claim(PAPER + 0.02, ours_se=0.01, ours_df=9)  # t = 2, p ~ 0.08: not rejected
    page = [_claim(1.0, paper=1.0, tolerance=0.1) for _ in range(5)] + [stat]
    judgement = verdicts.judge(page)
    assert judgement.size == 1
    assert judgement.verdicts[-1].threshold == pytest.approx(LEVEL, rel=1e-15)


def test_a_qualitative_record_carries_the_outcome_of_its_test():
    def qualitative(holds, category):
        extra = {"source": "Sec. 2.1"} if category == "claim" else {}
        return Claim("R-T1", "the policy ordering", holds=holds, category=category, **extra)

    labels = _labels(verdicts.judge([qualitative(True, "claim"), qualitative(False, "claim"),
                                     qualitative(True, "check"), qualitative(False, "check")]))
    assert labels == ["agrees", "differs", "holds", "fails"]
    assert verdicts.judge([qualitative(False, "claim")]).size == 0  # no hypothesis of the family
    assert set(labels) <= set(verdicts.CLAIM_LABELS) | set(verdicts.CHECK_LABELS)


def test_a_reconstruction_or_erratum_keeps_its_own_verdict():
    recon = Claim("R-T1", "reading of Fig. 3", category="reconstruction", verdict="confirmed", source="Fig. 3")
    erratum = Claim("R-T1", "weights", category="erratum", source="eq. (5.2)")
    verdict_r, verdict_e = verdicts.judge([recon, erratum]).verdicts
    assert (verdict_r.label, verdict_r.passes) == ("confirmed", None)
    assert (verdict_e.label, verdict_e.passes) == ("erratum", None)


# --------------------------------------------------------------------------------------------
# 7. Run means: their checks, Hall's transform, and the edge cases of issue 50
# --------------------------------------------------------------------------------------------

def test_welch_degrees_of_freedom_survive_tiny_and_huge_standard_errors():
    # the same shares at any scale: 1e-82 has a fourth power that underflows to 0
    se_ref, df_ref = verdicts.welch(1.0, 4, 2.0, 9)
    assert df_ref == pytest.approx(25.0 / (1.0 / 4 + 16.0 / 9), rel=1e-15)  # 12.33
    for scale in (1e-82, 1e-160, 1e80, 1e150):
        se, df = verdicts.welch(scale, 4, 2 * scale, 9)
        assert se == pytest.approx(scale * se_ref, rel=1e-14) and df == pytest.approx(df_ref, rel=1e-14)


@pytest.mark.parametrize("fields", [dict(ours_se=0.0, paper_se=0.0), dict(ours_se=0.0), dict()])
def test_a_record_with_no_standard_error_and_no_tolerance_is_refused_by_name(fields):
    with pytest.raises(ParameterError, match="tolerance"):
        _claim(10.5, **fields)


def test_run_means_fix_the_value_its_standard_error_and_degrees_of_freedom():
    runs = [1.0, 2.0, 4.0, 7.0]
    c = _check(None, 3.0, ours_runs=runs)
    # mean 3.5, sample variance ((2.5^2 + 1.5^2 + 0.5^2 + 3.5^2) / 3) = 7, se = sqrt(7 / 4)
    assert c.ours == 3.5 and c.ours_se == pytest.approx(math.sqrt(7 / 4), rel=1e-15) and c.ours_df == 3
    assert c.ours_runs == tuple(runs) and c.to_json()["ours_runs"] == runs
    assert Claim(**c.to_json()) == c
    with pytest.raises(ParameterError, match="`ours_se` = 9.0 does not match its run means"):
        _check(3.5, 3.0, ours_runs=runs, ours_se=9.0, ours_df=3)
    with pytest.raises(ParameterError, match="`ours_runs` must hold at least 2"):
        _check(None, 3.0, ours_runs=[1.0])


def test_halls_transform_is_increasing_inverted_and_the_identity_without_skew():
    ts = np.linspace(-30, 30, 601)
    for kappa in (-0.8, -0.1, 0.0, 0.05, 0.7):
        h = np.array([verdicts.hall(t, kappa) for t in ts])
        assert np.all(np.diff(h) >= 0)
        # inverted (in the transform's own scale: where 1 + kT/3 = 0 its slope vanishes, and T itself
        # is only determined to the cube root of the rounding error there)
        back = [verdicts.hall(verdicts._hall_inverse(x, kappa), kappa) for x in h]
        assert np.allclose(back, h, rtol=1e-9, atol=1e-9)
    assert verdicts.hall(1.7, 0.0) == 1.7
    # the cubic written out: T + k T^2 / 3 + k^2 T^3 / 27 + k / 6
    assert verdicts.hall(2.0, 0.3) == pytest.approx(2.0 + 0.3 * 4 / 3 + 0.09 * 8 / 27 + 0.05, rel=1e-15)


def test_a_record_with_run_means_is_judged_by_halls_statistic_of_its_skewness():
    rng = np.random.default_rng(17)
    runs = rng.gamma(4.0, 1.0, 40)
    c = verdicts.compare(_check(None, 3.7, ours_runs=runs), fallback=False)   # (these runs read as skewed)
    n, mean, sd = runs.size, runs.mean(), runs.std(ddof=1)
    g = np.mean((runs - mean) ** 3) / sd ** 3
    t = (mean - 3.7) / (sd / math.sqrt(n))
    assert c.kappa == pytest.approx(g / math.sqrt(n), rel=1e-12)
    assert c.t == pytest.approx(verdicts.hall(t, g / math.sqrt(n)), rel=1e-12)
    assert c.p == pytest.approx(2 * stats.t.sf(abs(c.t), n - 1), rel=1e-9)
    # the interval is the set of true differences whose transformed statistic lies within the t quantile
    q = stats.t.ppf(0.975, n - 1)
    for end, bound in ((c.low, q), (c.high, -q)):
        assert verdicts.hall((c.difference - end) / c.se, c.kappa) == pytest.approx(bound, rel=1e-9)


def test_the_reference_sides_skewness_enters_with_the_opposite_sign():
    rng = np.random.default_rng(3)
    runs = rng.gamma(2.0, 1.0, 35)
    alone = verdicts.compare(_check(None, 2.0, ours_runs=runs))
    mirrored = verdicts.compare(_check(2.0, None, reference_runs=runs))
    assert mirrored.kappa == pytest.approx(-alone.kappa, rel=1e-12)
    assert mirrored.t == pytest.approx(-alone.t, rel=1e-12)


def test_too_few_run_means_leave_the_family_and_skewed_ones_are_judged_by_cantelli_in_it():
    rng = np.random.default_rng(4)
    few = _check(None, 0.0, ours_runs=rng.normal(3.0, 1.0, 8))          # 3 standard deviations off
    skewed = _check(None, 1.0, ours_runs=np.r_[np.full(29, 0.5), 30.0])   # one far excursion
    fine = _check(None, 0.0, ours_runs=rng.normal(3.0, 1.0, 30))
    judgement = verdicts.judge([few, skewed, fine])
    assert _labels(judgement) == ["not resolved", "not resolved", "fails"]
    # the skewed record is a hypothesis of the family (Cantelli's p = 1 here): Holm over two
    assert judgement.size == 2 and judgement.verdicts[2].threshold == LEVEL / 2
    assert "8 run means of ours: a t test needs at least 30" in judgement.verdicts[0].reason
    c = judgement.verdicts[1].comparison
    assert c.method == "Cantelli" and c.p == 1.0 and "are skewed" in c.why_cantelli and "D'Agostino" in c.why_cantelli
    assert c.high - c.difference == pytest.approx(math.sqrt(39) * c.se, rel=1e-12)


def test_the_skewness_test_is_dagostinos():
    rng = np.random.default_rng(5)
    for n in (8, 9, 30, 400):
        x = rng.gamma(3.0, 1.0, (n, 7))
        assert np.allclose(verdicts.skewness_test(x, axis=0), stats.skewtest(x, axis=0).pvalue, rtol=1e-12, atol=0)
    with pytest.raises(ParameterError, match="at least 8"):
        verdicts.skewness_test(np.ones(7))
