"""Statements of direction judged with their noise (:mod:`qtheory.direction`).

Expected numbers are derived here: run means built symmetric about their mean (skewness exactly 0,
so Hall's correction is the identity and the statistic is Student's t), whose p-values and
intervals come from scipy's t distribution; simulated rates are compared with their bound plus 4
binomial standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qtheory import direction
from qtheory.errors import ParameterError
from qtheory.verdicts import MIN_RUNS, judge, judge_one

#: binomial standard errors allowed between a simulated rate and its bound
K_SE = 4.0


def _symmetric(mean: float, spread: float, n: int = 40) -> np.ndarray:
    """`n` run means symmetric about `mean` (skewness exactly 0) with sample sd `spread`."""
    half = stats.norm.ppf((np.arange(1, n // 2 + 1) - 0.5) / n + 0.5)
    x = np.concatenate([half, -half])
    return mean + spread * x / x.std(ddof=1)


def _t_p(mean: float, spread: float, n: int) -> float:
    """One-sided p-value of "mean >= 0" for n run means with that mean and sample sd."""
    return float(stats.t.cdf(mean / (spread / math.sqrt(n)), n - 1))


def test_a_difference_of_symmetric_runs_has_students_p_value_and_interval():
    runs = _symmetric(0.3, 1.0)
    d = direction.difference(runs, name="a fall")
    se = 1.0 / math.sqrt(40)
    assert d.comparison.difference == pytest.approx(0.3, abs=1e-12)
    assert d.comparison.se == pytest.approx(se, rel=1e-12) and d.comparison.df == 39
    assert d.p == pytest.approx(_t_p(0.3, 1.0, 40), rel=1e-9)
    q = stats.t.ppf(0.975, 39)
    assert d.comparison.low == pytest.approx(0.3 - q * se, rel=1e-9)
    assert d.runs == (40,) and not d.exact
    # the interval in brackets: "a to b × 10⁻⁴" would read as a tolerance on both ends
    from qtheory.display import number

    assert f"(95% interval [{number(d.comparison.low)}, {number(d.comparison.high)}]; 40 run means)" in d.describe()


def test_the_p_value_is_one_sided_against_the_stated_sign():
    below, above = direction.difference(_symmetric(-0.5, 1.0), name="x"), direction.difference(_symmetric(0.5, 1.0), name="x")
    assert below.p < 0.01 and above.p > 0.99
    assert below.p + above.p == pytest.approx(1.0, abs=1e-12)


def test_bonferroni_counts_the_estimated_parts_only():
    """Two estimated parts and one exact positive part: p = 2 min(p1, p2), not 3 min or min."""
    p1, p2 = _t_p(-0.1, 1.0, 40), _t_p(0.05, 1.0, 40)
    test = direction.direction_test([direction.difference(_symmetric(-0.1, 1.0), name="first"),
                                     direction.difference(_symmetric(0.05, 1.0), name="second"),
                                     direction.exact_difference(0.2, name="an ODE's fall")])
    assert test.p == pytest.approx(2 * min(p1, p2), rel=1e-9)
    assert "Bonferroni over the 2 " in test.describe()


def test_the_statement_is_shown_only_when_every_95_percent_interval_lies_above_zero():
    q = stats.t.ppf(0.975, 39)
    se = 1.0 / math.sqrt(40)
    just_above = direction.difference(_symmetric(q * se * 1.01, 1.0), name="just shown")
    just_below = direction.difference(_symmetric(q * se * 0.99, 1.0), name="just not")
    far = direction.difference(_symmetric(1.0, 1.0), name="far above")
    assert just_above.shown and not just_below.shown
    assert direction.direction_test([far, just_above]).resolved
    assert not direction.direction_test([far, just_below]).resolved
    assert direction.direction_test([far, direction.exact_difference(1e-9, name="tiny")]).resolved


@pytest.mark.parametrize("exact", [-1e-6, 0.0])
def test_an_exact_part_at_or_below_zero_contradicts_the_statement_whatever_the_runs(exact):
    """A stated sign is strict: an exact difference of 0 contradicts it as surely as a negative one."""
    few = direction.difference(_symmetric(1.0, 1.0, n=10), name="too few runs")
    test = direction.direction_test([few, direction.exact_difference(exact, name="the ODE's fall")])
    assert test.p == 0.0 and not test.resolved and test.why_not == ""
    record = test.record(item="L-F2", text="it falls", source="Sec. 6.2")
    assert judge_one(record).label == "differs"
    assert direction.direction_test([direction.exact_difference(1e-12, name="x")]).p == 1.0
    assert direction.exact_difference(exact, name="x").p == 0.0 and not direction.exact_difference(exact, name="x").shown


def test_too_few_runs_leave_the_record_unjudged_however_far_below_zero():
    few = direction.difference(_symmetric(-3.0, 1.0, n=MIN_RUNS - 2), name="clearly below")
    test = direction.direction_test([few])
    # a part its checks refuse rejects nothing (p = 1) and shows nothing
    assert few.p == 1.0 and test.p == 1.0 and f"at least {MIN_RUNS}" in test.why_not and not test.resolved
    v = judge_one(test.record(item="L-F2", text="it falls", source="Sec. 6.2"))
    assert v.label == "not resolved" and not v.rejected
    # with MIN_RUNS of them the same data are judged: the statement differs
    enough = direction.direction_test([direction.difference(_symmetric(-3.0, 1.0, n=MIN_RUNS), name="x")])
    assert enough.why_not == "" and judge_one(enough.record(item="L-F2", text="t", source="s")).label == "differs"


def test_skewed_runs_are_judged_by_cantellis_inequality():
    """Skewed run means are judged by Cantelli's one-sided bound 1/(1 + t^2) and an interval of
    ± sqrt(39) standard errors, not by the t test (whose level fails on them) and not refused."""
    from qtheory.verdicts import CANTELLI_K

    rng = np.random.default_rng(4)
    skewed = rng.exponential(1.0, 200)            # mean about 1.09, t about 14: plain on any law
    test = direction.direction_test([direction.difference(skewed, name="skewed")])
    c = test.parts[0].comparison
    t = skewed.mean() / (skewed.std(ddof=1) / np.sqrt(skewed.size))
    assert "skewed" in test.skewed and test.why_not == "" and c.method == "Cantelli"
    assert c.low == pytest.approx(skewed.mean() - CANTELLI_K * t ** -1 * skewed.mean()) and test.resolved
    assert CANTELLI_K == pytest.approx(39 ** 0.5)
    assert judge_one(test.record(item="L-F2", text="t", source="s")).label == "agrees"
    # the same data shifted to t = -4 against the stated sign: a t test would reject at 1e-4,
    # Cantelli's bound gives 1/17 (not rejected at 1%), and the interval reaches above 0
    shifted = skewed - skewed.mean() - 4 * skewed.std(ddof=1) / np.sqrt(skewed.size)
    against = direction.direction_test([direction.difference(shifted, name="shifted")])
    assert against.p == pytest.approx(1 / 17) and not against.resolved
    assert judge_one(against.record(item="L-F2", text="t", source="s")).label == "not resolved"
    # at t = -12 the bound rejects: 1/(1 + 12^2) < 0.01
    far = skewed - skewed.mean() - 12 * skewed.std(ddof=1) / np.sqrt(skewed.size)
    assert judge_one(direction.direction_test([direction.difference(far, name="far")]).record(
        item="L-F2", text="t", source="s")).label == "differs"


def _mildly_skewed(low=0.025, high=0.05, n=40):
    """Normal run means (seeded) whose D'Agostino p-value lies in [`low`, `high`): refused alone at
    5%, passed at 2.5%."""
    from qtheory.verdicts import skewness_test

    for seed in range(10_000):
        x = np.random.default_rng(seed).normal(1.0, 0.3, n)
        if low <= float(skewness_test(x)) < high:
            return x
    raise AssertionError("no such sample")


def test_the_samples_of_a_statement_are_checked_at_the_skew_level_over_their_number():
    """Bonferroni over the samples, as the verdicts check a record's: a sample with D'Agostino's
    p = 0.03 sends a statement of one part (5%) to Cantelli's inequality but not one of two (2.5%
    each)."""
    x = _mildly_skewed()
    one = direction.direction_test([direction.difference(x, name="alone")])
    assert "skewed" in one.skewed and one.why_not == "" and one.parts[0].comparison.method == "Cantelli"
    two = direction.direction_test([direction.difference(x, name="first"),
                                    direction.difference(_symmetric(1.0, 1.0), name="second")])
    assert two.why_not == two.skewed == "" and two.resolved and two.p == 1.0
    assert all(d.comparison.method == "t" for d in two.parts)
    # two independent samples in one part count as two
    welch = direction.direction_test([direction.difference(x, _symmetric(-1.0, 0.3), name="welch")])
    assert welch.why_not == "" and welch.resolved


def test_two_independent_samples_are_compared_by_welch():
    a, b = _symmetric(1.0, 2.0, n=40), _symmetric(0.4, 1.0, n=30)
    d = direction.difference(a, b, name="a over b")
    se = math.sqrt(4.0 / 40 + 1.0 / 30)
    df = se ** 4 / ((4.0 / 40) ** 2 / 39 + (1.0 / 30) ** 2 / 29)
    assert d.comparison.difference == pytest.approx(0.6, abs=1e-12)
    assert d.comparison.se == pytest.approx(se, rel=1e-12) and d.comparison.df == pytest.approx(df, rel=1e-9)
    assert d.runs == (40, 30)


def test_samples_paired_by_index_are_tested_on_their_differences():
    """The k-th runs form a pair: the one-sample test of a - b. A skewed side whose spread is small
    fails its check on its own (Welch checks each side: Cantelli's bound would judge it) but not
    once paired, where its skew barely reaches the differences."""
    rng = np.random.default_rng(11)
    wide = _symmetric(1.0, 1.0, n=60)
    narrow_skewed = 0.5 + 1e-3 * rng.exponential(1.0, 60)
    welch = direction.difference(wide, narrow_skewed, name="welch")
    paired = direction.difference(wide, narrow_skewed, name="paired", by_index=True)
    assert any(c.skewed for c in welch.comparison.checks)
    assert paired.comparison.why_not == "" and paired.runs == (60,)
    assert not any(c.skewed for c in paired.comparison.checks)
    assert direction.direction_test([welch]).skewed and not direction.direction_test([paired]).skewed
    diff = wide - narrow_skewed
    assert paired.comparison.difference == pytest.approx(diff.mean(), rel=1e-12)
    assert paired.comparison.se == pytest.approx(diff.std(ddof=1) / math.sqrt(60), rel=1e-9)
    with pytest.raises(ParameterError, match="equal size"):
        direction.difference(wide, narrow_skewed[:59], name="x", by_index=True)
    with pytest.raises(ParameterError, match="give `smaller`"):
        direction.difference(wide, name="x", by_index=True)


def test_a_log_scale_compares_geometric_means_as_a_ratio():
    a = np.exp(_symmetric(math.log(2.0), 0.1))
    b = np.exp(_symmetric(math.log(0.5), 0.1))
    d = direction.difference(a, b, name="distance at $N = 100$ over $N = 500$", log=True, by_index=True)
    assert d.comparison.difference == pytest.approx(math.log(4.0), rel=1e-12) and d.log
    assert "ratio 4 " in d.describe() or "ratio 4 (" in d.describe()
    assert "above 1" in direction.direction_test([d]).describe()
    with pytest.raises(ParameterError, match="positive to be compared on a log scale"):
        direction.difference(np.r_[a[:-1], 0.0], b, name="x", log=True)
    with pytest.raises(ParameterError, match="positive and finite"):
        direction.exact_difference(0.0, name="x", log=True)
    assert direction.exact_difference(2.0, name="x", log=True).comparison.difference == pytest.approx(math.log(2.0))


def test_equal_run_means_give_an_exact_difference():
    d = direction.difference([0.2] * 30, [0.1] * 30, name="constant")
    assert d.exact and d.comparison.difference == pytest.approx(0.1) and d.p == 1.0 and d.shown


@pytest.mark.parametrize("call, words", [
    (lambda: direction.direction_test([]), "non-empty sequence of Difference"),
    (lambda: direction.direction_test([0.3]), "non-empty sequence of Difference"),
    (lambda: direction.difference([1.0, 2.0], name=" "), "`name` must say"),
    (lambda: direction.difference([1.0], name="one run"), "at least 2 finite run means"),
    (lambda: direction.difference([1.0, float("nan")], name="nan"), "at least 2 finite run means"),
    (lambda: direction.exact_difference(float("inf"), name="inf"), "must be finite"),
])
def test_bad_input_is_refused_by_name(call, words):
    with pytest.raises(ParameterError, match=words):
        call()


def test_the_record_joins_the_page_family_and_takes_the_three_labels():
    shown = direction.direction_test([direction.difference(_symmetric(1.0, 1.0), name="x")])
    unclear = direction.direction_test([direction.difference(_symmetric(0.05, 1.0), name="x")])
    against = direction.direction_test([direction.difference(_symmetric(-1.0, 1.0), name="x")])
    records = [t.record(item="U-T1", text=f"statement {k}", source="Sec. 3.4.1")
               for k, t in enumerate((shown, unclear, against))]
    j = judge(records)
    assert [v.label for v in j.verdicts] == ["agrees", "not resolved", "differs"] and j.size == 3
    check = shown.record(item="L-R-graph", text="closer", category="check")
    assert judge_one(check).label == "holds"
    assert records[0].evidence.startswith("The statement is shown by the runs: x: 1.00 ± 0.16 (95% interval")


@pytest.mark.parametrize("parts, outcome, words", [
    ((1.0, 1.0), "shown", "is shown by the runs"), ((1.0, 0.05), "not shown", "is not shown by the runs"),
    ((1.0, -1.0), "contradicted", "is contradicted by the runs"),
    ((1.0, "few"), "not judged", "is not judged, its runs fail their checks"),
    ((1.0, "exact zero"), "contradicted", "is contradicted exactly"),
])
def test_the_first_sentence_says_what_the_runs_show_and_by_how_much(parts, outcome, words):
    """The evidence opens with the outcome and every part's value, standard error and interval, in
    one sentence (the verdict box's first sentence), then how the statement is read and tested."""
    from qtheory.claimpages import first_sentence

    made = []
    for k, m in enumerate(parts):
        if m == "few":
            made.append(direction.difference(_symmetric(1.0, 1.0, n=10), name=f"part {k}"))
        elif m == "exact zero":
            made.append(direction.exact_difference(0.0, name=f"part {k}"))
        else:
            made.append(direction.difference(_symmetric(m, 1.0), name=f"part {k}"))
    test = direction.direction_test(made)
    assert test.outcome == outcome
    first = first_sentence(test.describe())
    assert first.startswith(f"The statement {words}: part 0: ") and " and part 1: " in first
    assert made[1].describe() in first


#: the level of the simulated checks below (a rate of 5% is measured more sharply than one of 1%)
ALPHA = 0.05


def _rates(n_parts: int, families: int, seed: int, n: int = MIN_RUNS):
    """Over `families` simulated statements of `n_parts` parts each at D = 0 (normal run means):
    the rate of p-values at most ALPHA among the families the test judges (its run checks pass),
    and the rate of resolved statements (a false "shown") among all."""
    rng = np.random.default_rng(seed)
    judged = rejected = resolved = 0
    for _ in range(families):
        test = direction.direction_test([direction.difference(rng.normal(0.0, 1.0, n), name=f"part {k}")
                                         for k in range(n_parts)])
        judged += not test.why_not
        rejected += test.p <= ALPHA and not test.why_not
        resolved += test.resolved
    return rejected / judged, judged, resolved / families


@pytest.mark.parametrize("n_parts", [1, 2])
def test_the_level_holds_at_the_boundary_of_the_statement(n_parts):
    """At D = 0 the test rejects the statement at most at its level (Bonferroni over the parts:
    without it two parts reject about twice as often, 9.75% for 5%), and shows it at most 2.5% of
    the time with one part, 2.5% squared with two (both must be shown)."""
    families = 4000
    rejected, judged, resolved = _rates(n_parts, families, seed=20 + n_parts)
    assert rejected <= ALPHA + K_SE * math.sqrt(ALPHA * (1 - ALPHA) / judged)
    shown = 0.025 ** n_parts
    assert resolved <= shown + K_SE * math.sqrt(shown * (1 - shown) / families)
