"""Tests of many quantities at once (:func:`qtheory.verdicts.sign_flip_test`,
:func:`qtheory.verdicts.independent_test`) and the records they judge.

The quantities of one simulated run are correlated (the ``P(Q = q)`` of a run move together).
The synthetic runs below give every quantity a common normal part (correlation ``rho``) and an
own one; a rate over many synthetic families is compared with its level plus 4 binomial
standard errors (about 3e-5 chance of a false alarm per assertion). Expected powers come from
the noncentral t distribution.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qtheory import verdicts
from qtheory.claims import Claim
from qtheory.errors import ParameterError

ALPHA = 0.05
K_SE = 4.0


def _runs(rng, n, k, rho, shift=0.0):
    """`n` runs of `k` quantities with sd 1, pairwise correlation `rho`, mean `shift`."""
    return math.sqrt(rho) * rng.normal(size=(n, 1)) + math.sqrt(1 - rho) * rng.normal(size=(n, k)) + shift


def _upper(rate, trials):
    return rate + K_SE * math.sqrt(rate * (1 - rate) / trials)


def _rate(pvalues, level=ALPHA):
    return float(np.mean(np.asarray(pvalues) <= level))


def test_sign_flip_holds_its_level_under_strong_correlation():
    """61 quantities with correlation 0.9 from 10 runs (every sign pattern enumerated): the
    false-rejection rate at 5% stays within 4 SE of 5%."""
    rng = np.random.default_rng(20261206)
    trials = 400
    ps = [verdicts.sign_flip_test([_runs(rng, 10, 61, 0.9)], [np.zeros(61)], seed=i, margins=[np.ones(61)]).p
          for i in range(trials)]
    assert _rate(ps) <= _upper(ALPHA, trials)


def test_sign_flip_holds_its_level_over_independent_groups():
    """Three groups of 10 runs (random sign patterns, p = (1 + count) / (1 + patterns))."""
    rng = np.random.default_rng(11)
    trials = 300
    ps = [verdicts.sign_flip_test([_runs(rng, 10, 20, 0.8) for _ in range(3)], [np.zeros(20)] * 3, seed=i,
                                  margins=[np.ones(20)] * 3, patterns=199).p for i in range(trials)]
    assert _rate(ps) <= _upper(ALPHA, trials)


def test_combining_correlated_t_as_independent_would_not_hold_the_level():
    """Why the sign flip: the chi-square of the same 61 correlated t statistics, taken as
    independent, rejects far more often than 5% (the premise of :func:`sign_flip_test`)."""
    rng = np.random.default_rng(3)
    trials = 300
    ps = []
    for _ in range(trials):
        x = _runs(rng, 10, 61, 0.9)
        ps.append(verdicts.independent_test(x.mean(0), x.std(0, ddof=1) / math.sqrt(10), np.full(61, 9),
                                            margins=np.ones(61)).p)
    assert _rate(ps) > 2 * _upper(ALPHA, trials)


def test_sign_flip_power_is_that_of_the_t_test_for_one_quantity():
    """One quantity shifted by 0.8 sd, 10 runs: the studentised sign-flip test is asymptotically as
    powerful as Student's t test; at 10 runs its power lies within a tenth of the t test's
    (noncentral t) and not above it beyond the sampling error."""
    rng = np.random.default_rng(5)
    trials = 400
    delta = 0.8 * math.sqrt(10)
    cut = stats.t.isf(ALPHA / 2, 9)
    power = float(stats.nct.sf(cut, 9, delta) + stats.nct.sf(cut, 9, -delta))
    ps = [verdicts.sign_flip_test([_runs(rng, 10, 1, 0.0, 0.8)], [np.zeros(1)], seed=i, margins=[np.ones(1)]).p
          for i in range(trials)]
    se = math.sqrt(power * (1 - power) / trials)
    assert 0.9 * power - K_SE * se <= _rate(ps) <= power + K_SE * se


def test_sign_flip_detects_one_shifted_quantity_among_many():
    """A single quantity of 61 shifted by 3 sd of a run: rejected (every pattern enumerated, so the
    outcome is that of the data, not of the patterns drawn)."""
    rng = np.random.default_rng(8)
    x = _runs(rng, 10, 61, 0.5)
    x[:, 17] += 3.0
    assert verdicts.sign_flip_test([x], [np.zeros(61)], seed=1, margins=[np.ones(61)]).p <= 0.01


def test_sign_flip_is_reproducible_and_depends_on_the_seed_only_through_the_patterns():
    rng = np.random.default_rng(9)
    groups = [_runs(rng, 10, 5, 0.3) for _ in range(2)]
    a = verdicts.sign_flip_test(groups, [np.zeros(5)] * 2, seed=4, patterns=999)
    b = verdicts.sign_flip_test(groups, [np.zeros(5)] * 2, seed=4, patterns=999)
    c = verdicts.sign_flip_test(groups, [np.zeros(5)] * 2, seed=5, patterns=999)
    assert a == b and a.statistic == c.statistic and a.patterns == 999
    # every pattern enumerated: no randomness at all
    one = [groups[0]]
    assert verdicts.sign_flip_test(one, [np.zeros(5)], seed=1).p == verdicts.sign_flip_test(one, [np.zeros(5)], seed=2).p


def test_sign_flip_statistics_and_min_p_by_brute_force():
    """The sum of squared t and the largest |t| are scipy's one-sample t statistics; the p-value
    is the min-p over the 2^8 sign patterns, counted here pattern by pattern."""
    rng = np.random.default_rng(10)
    x = _runs(rng, 8, 4, 0.2) + np.array([0.3, 0.0, 0.0, 0.9])
    t = stats.ttest_1samp(x, 0.0).statistic
    res = verdicts.sign_flip_test([x], [np.zeros(4)], seed=1)
    assert res.statistic == pytest.approx(float(np.sum(t ** 2)), rel=1e-12)
    assert res.largest == pytest.approx(float(np.max(np.abs(t))), rel=1e-12)
    signs = np.array([[1 - 2 * ((c >> j) & 1) for j in range(8)] for c in range(256)], dtype=float)
    ts = [stats.ttest_1samp(s[:, None] * x, 0.0).statistic for s in signs]
    total = [float(np.sum(v ** 2)) for v in ts]
    top = [float(np.max(np.abs(v))) for v in ts]

    def share(values, v):
        return sum(w >= v * (1 - 1e-9) for w in values) / len(values)

    smaller = [min(share(total, a), share(top, b)) for a, b in zip(total, top)]
    expected = sum(m <= smaller[0] * (1 + 1e-9) for m in smaller) / len(smaller)
    assert res.p == pytest.approx(expected, abs=1e-12)


def test_resolution_needs_every_interval_within_its_margin():
    rng = np.random.default_rng(12)
    x = _runs(rng, 10, 3, 0.0) * 0.01 + np.array([1.0, 2.0, 4.0])
    tight = verdicts.sign_flip_test([x], [np.array([1.0, 2.0, 4.0])], seed=1)
    assert tight.resolved and tight.widest <= 1.0
    # a margin of zero for one quantity (its value 0, no margin stated) is never resolved
    zero = verdicts.sign_flip_test([x - np.array([1.0, 0.0, 0.0])], [np.array([0.0, 2.0, 4.0])], seed=1)
    assert not zero.resolved and zero.widest == math.inf
    wide = verdicts.sign_flip_test([x], [np.array([1.0, 2.0, 4.0])], seed=1, margins=[np.full(3, 1e-4)])
    assert not wide.resolved and wide.widest > 1.0


def test_independent_test_is_the_chi_square_of_normal_scores():
    """The same statistic as the page's joint test of a family (a second route: records with a
    shared family judged by :func:`qtheory.verdicts.joint_tests`)."""
    d, se, df = [0.3, -0.1, 0.25], [0.1, 0.12, 0.2], [4, 9, 6]
    res = verdicts.independent_test(d, se, df, exact=[10.0, 10.0, 10.0])
    records = [Claim("U-X-poisson", f"row {i}", paper=10.0, ours=10.0 + d[i], ours_se=se[i], ours_df=df[i],
                     source="Sec. 2.1", family="f") for i in range(3)]
    chi = [j for j in verdicts.joint_tests(records) if j.kind == "chi-square"][0]
    assert res.statistic == pytest.approx(chi.statistic, rel=1e-12) and res.p == pytest.approx(chi.p, rel=1e-12)


def test_independent_test_holds_its_level():
    rng = np.random.default_rng(13)
    trials = 1000
    df = np.array([4, 4, 9, 9, 9])
    ps = [verdicts.independent_test(rng.standard_t(df), np.ones(5), df, margins=np.ones(5)).p
          for _ in range(trials)]
    assert _rate(ps) <= _upper(ALPHA, trials)


def _tested(p, resolved=True, category="claim"):
    return Claim("U-X-poisson", "a statement about many quantities", p_value=p, resolved=resolved,
                 category=category, source="Sec. 2.1" if category == "claim" else "",
                 evidence="A synthetic test.")


def test_a_tested_record_joins_the_page_family():
    """p = 0.004 alone is rejected at 0.01; beside two records with p near 1 it meets Holm's
    threshold 0.01/3 and is not; labels follow each branch."""
    assert verdicts.judge([_tested(0.004)]).verdicts[0].label == "differs"
    calm = [Claim("U-X-poisson", f"row {i}", paper=10.0, ours=10.0, ours_se=0.1, ours_df=9, source="Sec. 2.1")
            for i in range(2)]
    j = verdicts.judge([_tested(0.004), *calm])
    assert j.size == 3 and j.verdicts[0].threshold == pytest.approx(0.01 / 3)
    assert j.verdicts[0].label == "agrees"
    assert verdicts.judge([_tested(0.5, resolved=False), *calm]).verdicts[0].label == "not resolved"
    assert verdicts.judge([_tested(0.5, category="check")]).verdicts[0].label == "holds"
    assert verdicts.judge([_tested(1e-5, category="check")]).verdicts[0].label == "fails"


def test_the_record_of_a_test_carries_its_p_value_and_resolution():
    res = verdicts.MultipleTest("sign-flip", 70.2, 0.2, 61, True, 0.4, 0, 9.0)
    c = res.record(item="R-V-pf", text="a statement", source="Sec. 2.3", evidence="Three systems.")
    assert c.p_value == 0.2 and c.resolved and c.evidence.startswith("Sign-flip test") and "Three systems." in c.evidence
    assert c.passes is True


@pytest.mark.parametrize("fields, words", [
    (dict(p_value=1.5, resolved=True), "`p_value` must be a number in [0, 1]"),
    (dict(p_value=0.5), "needs `resolved`"),
    (dict(p_value=0.5, resolved=True, ours=1.0), "no `holds`, target or `ours`"),
    (dict(p_value=0.5, resolved=True, category="reconstruction"), "only a claim or a check"),
    (dict(p_value=0.5, resolved=True, evidence=""), "must name its test"),
])
def test_a_tested_record_is_refused_by_name(fields, words):
    base = dict(item="R-V-pf", text="t", source="Sec. 2.3", evidence="A test.")
    with pytest.raises(ParameterError, match=words.replace("[", r"\[").replace("]", r"\]").replace("`", "`")):
        Claim(**{**base, **fields})


@pytest.mark.parametrize("groups, exact, words", [
    ([np.zeros((1, 3))], [np.zeros(3)], r"runs \(>= 2\)"),
    ([np.zeros((4, 3))], [np.zeros(2)], "runs"),
    ([np.zeros((4, 3))], [], "equal length"),
    ([np.full((4, 1), np.nan)], [np.zeros(1)], "finite"),
])
def test_sign_flip_refuses_bad_input_by_name(groups, exact, words):
    with pytest.raises(ParameterError, match=words):
        verdicts.sign_flip_test(groups, exact, seed=1)


def test_a_tested_record_renders_its_p_value_on_the_box_and_the_claims_page():
    """The box line and the claims row show the joint test's p-value and resolution, the folded
    statistics its Holm threshold; a rejected one is labelled as differing in both."""
    from qtheory import claimpages as P

    calm = verdicts.MultipleTest("sign-flip", 70.2, 0.21, 61, True, 0.4, 9999, 9.0, 2.7).record(
        item="R-V-pf", text="simulation against the product forms (4) (c.o.c.) and (6) (c.o.s.), 61 stationary "
                            "quantities at once", source="Sec. 2.3, eqs. (4) and (6)")
    box = P.verdict_box([{"id": "R-V-pf", "claims": [calm.to_json()]}])
    assert "One joint test, p = 0.21; every 95% interval within its margin" in box
    assert "against the level 0.01 (the page's only hypothesis)" in box      # not "the Holm threshold of one"
    assert "qtheory-label-agrees" in box
    page = P.render_claims([calm])
    assert "one joint test, p = 0.21" in page and "| agrees<br>" in page
    off = verdicts.MultipleTest("sign-flip", 170.0, 1e-4, 61, True, 0.4, 9999, 9.0, 6.0).record(
        item="R-V-pf", text="the same", source="Sec. 2.3")
    assert "qtheory-label-differs" in P.verdict_box([{"id": "R-V-pf", "claims": [off.to_json()]}])
    assert "**differs**" in P.render_claims([off])
    # a p-value below what a double resolves is a bound, never digits (p = 1.1 × 10⁻¹⁶⁸ was printed)
    far = verdicts.MultipleTest("sign-flip", 900.0, 1.1e-168, 61, True, 0.4, 9999, 9.0, 30.0).record(
        item="R-V-pf", text="the same", source="Sec. 2.3")
    assert "p < 10⁻¹⁵" in P.render_claims([far]) and "10⁻¹⁶⁸" not in P.render_claims([far])


def test_the_claims_page_and_the_box_word_a_vanishing_gap_alike():
    from qtheory import claimpages as P

    gap = Claim("R-V-stab", "largest gap of the two searches", ours=2e-15, reference=0.0, tolerance=1e-12,
                category="check", evidence="Exact.")
    assert "largest gap" in P._record_values(gap) and "largest gap" in P.render_claims([gap])
