"""L-V-stability's item functions at a tiny scale, and each verdict on rows that must agree and must differ."""

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.experiments import t_statistic
from qtheory.locality.items import l_v_stability as st


# -- the shared statistics -----------------------------------------------------------------------------------

def test_t_statistic_of_a_zero_spread():
    assert t_statistic(1.5, 1.0, 0.25) == 2.0
    assert t_statistic(0.5, 1.0, 0.25) == 2.0
    assert t_statistic(1.0, 1.0, 0.0) == 0.0
    assert t_statistic(1.0, 1.1, 0.0) == math.inf


# -- L-V-lemma1 ----------------------------------------------------------------------------------------------

def _symmetric_runs(mean, se, n=30):
    """`n` run values with mean `mean`, standard error `se` and sample skewness exactly 0 (pairs
    mirrored about the mean): Hall's correction is then the identity and the t test is Student's."""
    half = np.linspace(0.2, 2.0, n // 2)
    x = np.concatenate([half, -half])
    return tuple(mean + x * se * math.sqrt(n) / x.std(ddof=1))


def _lemma1_rows(offsets, se=0.01, runs=30):
    """Rows at rho^N = 0.5, 1, 1.5, 2 (the growth rate predicted plus `offsets`) and their symmetric
    run growth rates."""
    rows = [dict(arrival_rate=lam, rho_N=lam / 2, closed_form_rho_N=lam / 2, growth_sim=max(lam / 2 - 1, 0) + d,
                 se=se, growth_predicted=max(lam / 2 - 1, 0), growth_predicted_with_replacement=lam, runs=runs)
            for lam, d in zip((1.0, 2.0, 3.0, 4.0), offsets)]
    return rows, [_symmetric_runs(r["growth_sim"], se, runs) for r in rows]


def _chi2_p(ts, df):
    """The joint test's p-value computed here: normal scores of t (scipy), chi-square."""
    from scipy import stats

    z = [stats.norm.isf(stats.t.sf(abs(t), df)) for t in ts]
    return float(stats.chi2.sf(sum(x * x for x in z), len(z)))


def test_lemma1_reading_is_consistent_when_growth_matches_the_prediction():
    """The rate at rho^N = 1 (offset 0.01) is left out: its queue is null recurrent."""
    claim, numbers = st.lemma1_reading_claim(*_lemma1_rows([0.0, 0.01, -0.02, 0.025]), 30, 600.0)
    assert claim.category == "reconstruction" and claim.verdict.startswith("consistent")
    assert numbers["max_t_growth"] == pytest.approx(2.5)
    assert numbers["reading_p"] == pytest.approx(_chi2_p([0.0, -2.0, 2.5], 29), rel=1e-9)
    assert numbers["reading_p_with_replacement"] < 1e-12 and numbers["max_t_growth_with_replacement"] > 100
    assert "the 3 rates with" in claim.verdict and "null recurrent" in claim.evidence


def test_lemma1_reading_leaves_out_the_null_recurrent_rate():
    """At rho^N = 1 the queue grows like the square root of time: its positive growth rate over a
    finite window is no evidence against the reading."""
    claim, numbers = st.lemma1_reading_claim(*_lemma1_rows([0.0, 0.2, 0.0, 0.0]), 30, 600.0)
    assert claim.verdict.startswith("consistent") and numbers["max_t_growth"] == pytest.approx(0.0)


def test_lemma1_reading_is_not_supported_when_one_rate_is_far_off():
    from qtheory.verdicts import FAMILY_LEVEL

    claim, numbers = st.lemma1_reading_claim(*_lemma1_rows([0.0, 0.0, 0.2, 0.0]), 30, 600.0)
    assert numbers["reading_p"] <= FAMILY_LEVEL and claim.verdict.startswith("not supported")


def test_lemma1_reading_is_not_judged_on_fewer_than_30_runs():
    claim, numbers = st.lemma1_reading_claim(*_lemma1_rows([0.0, 0.0, 0.2, 0.0], runs=10), 10, 600.0)
    assert claim.verdict.startswith("not judged: ") and "10 run means" in claim.verdict
    assert numbers["reading_p"] < 0.01


def test_lemma1_bounded_below_one_and_growing_above_it():
    from qtheory.verdicts import judge_one

    rows, runs = _lemma1_rows([0.0, 0.01, 0.0, 0.0])          # rho^N = 0.5, 1, 1.5, 2
    claim = st.lemma1_claim(rows, runs)
    assert claim.tested and claim.assumption_failure == "" and judge_one(claim).label == "agrees"
    # the rate below 1 grows by 9 SE: not bounded
    assert judge_one(st.lemma1_claim(*_lemma1_rows([0.09, 0.0, 0.0, 0.0]))).label == "differs"
    # a rate above 1 that is not significantly positive: growth not shown
    flat = _lemma1_rows([0.0, 0.0, -0.5 + 0.02, 0.0])
    assert judge_one(st.lemma1_claim(*flat)).label == "not resolved"


def test_lemma1_is_not_resolved_on_few_run_growth_rates_and_judges_skewed_ones_by_cantelli():
    from qtheory.verdicts import judge_one

    rows, runs = _lemma1_rows([0.09, 0.0, 0.0, 0.0])
    runs[0] = _symmetric_runs(rows[0]["growth_sim"], 0.01, 10)       # few runs below 1, 30 above
    few = st.lemma1_claim(rows, runs)
    assert judge_one(few).label == "not resolved"
    assert few.assumption_failure.startswith("10 run growth rates at $\\rho^N = 0.50$: a t test needs at least 30")
    rows, runs = _lemma1_rows([0.0, 0.0, 0.0, 0.0])
    runs[3] = tuple(1.0 + np.random.default_rng(1).exponential(0.05, 30))      # skewed growth rates above 1
    skewed = st.lemma1_claim(rows, runs)
    # growth of about 1 per unit time at SE 0.009: plain by Cantelli's bound too (t about 110)
    assert judge_one(skewed).label == "agrees" and skewed.assumption_failure == ""
    assert "Cantelli's one-sided bound" in skewed.evidence and "$\\rho^N = 2.00$" in skewed.evidence.split("Cantelli")[1]


def test_lemma1_checks_its_run_growth_rates_at_the_skew_level_over_their_number():
    """Bonferroni over the record's samples: the 3 judged rates (rho^N = 0.5, 1.5, 2; the null-recurrent
    rate is left out), each checked at 0.05 / 3. Run growth rates whose skewness test gives a p-value
    between 0.05 / 3 and 0.05 pass (the t test judges them); between 0.05 / 4 and 0.05 / 3 they do
    not (Cantelli's bound judges them): a growth of 5 standard errors is shown by the t test
    (p about 1e-6) but not by the bound (1/26 > 0.01)."""
    from qtheory.verdicts import check_runs, judge_one

    rows, runs = _lemma1_rows([0.0, 0.0, 0.0, 0.0])
    rng = np.random.default_rng(0)
    mild = strong = None
    while mild is None or strong is None:
        x = rng.exponential(1.0, 30) ** 0.35                      # a mildly skewed law
        p = check_runs(x).skew_p
        if 0.05 / 3 < p < 0.05 and mild is None:
            mild = x
        if 0.05 / 4 < p < 0.05 / 3 and strong is None:
            strong = x
    for x, label in ((mild, "agrees"), (strong, "not resolved")):
        runs[2] = tuple(0.05 + 0.01 * (x - x.mean()) / x.std(ddof=1) * np.sqrt(30))    # rho^N = 1.5, SE 0.01
        assert judge_one(st.lemma1_claim(rows, runs)).label == label


def test_lemma1_at_a_tiny_scale():
    res = st.lemma1(seed=5, lambdas=[1.0, 4.0], n_runs=2, horizon=20.0, parameters={"seed": 5})
    assert [r["arrival_rate"] for r in res.rows] == [1.0, 4.0]
    assert res.rows[1]["rho_N"] > 1 > res.rows[0]["rho_N"]
    assert [c.category for c in res.claims] == ["claim", "reconstruction", "check"]
    assert res.claims[0].source == "Lemma 1 (Sec. 3.1)"
    assert res.claims[2].judge() == "holds" and res.summary["enumeration_vs_closed_form"] < 1e-12
    assert "$\\lambda = 1, 4$" in res.figure["caption"]


def test_lemma1_on_30_runs_is_judged_and_agrees():
    """30 short runs per rate (the fewest a t test judges): Lemma 1 is a tested record of the page's
    family, its reading is judged consistent, at a fixed seed."""
    from qtheory.verdicts import judge

    res = st.lemma1(seed=5, lambdas=[1.0, 3.0, 4.0], n_runs=30, horizon=200.0, parameters={"seed": 5})
    lemma, reading, _ = res.claims
    assert lemma.tested and lemma.assumption_failure == "" and reading.verdict.startswith("consistent")
    verdict = judge(res.claims).verdicts[0]
    assert verdict.label == "agrees" and verdict.threshold is not None


def test_lemma1_names_a_wrong_run_count():
    with pytest.raises(ParameterError, match="n_runs"):
        st.lemma1(seed=5, lambdas=[1.0], n_runs=1, horizon=20.0, parameters={})


# -- L-V-lemma2 ----------------------------------------------------------------------------------------------

def _lemma2_rows(p1_loads, busy=None, se=0.002):
    rows = [dict(matrix="p0 (complete)", server_type=m + 1, load_31=x) for m, x in enumerate((3.0, 0.6, 0.3))]
    for m, x in enumerate(p1_loads):
        row = dict(matrix=st.P1, server_type=m + 1, load_31=x)
        if busy is not None:
            row.update(busy_sim=busy[m], se=se, ci_low=busy[m] - 2 * se, ci_high=busy[m] + 2 * se)
        rows.append(row)
    return rows


def test_p1_satisfies_31_when_every_type_load_is_below_one():
    claim = st.criterion_31_claim(_lemma2_rows([0.6, 0.91, 0.67]))
    assert claim.holds is True and claim.judge() == "agrees" and "0.910" in claim.evidence


@pytest.mark.parametrize("loads", [[0.6, 1.0, 0.67], [1.2, 0.5, 0.5]])
def test_p1_violates_31_when_a_type_load_reaches_one(loads):
    assert st.criterion_31_claim(_lemma2_rows(loads)).judge() == "differs"


def test_busy_fractions_are_t_tests_on_their_run_means():
    from scipy import stats

    from qtheory.verdicts import FAMILY_LEVEL

    cut = stats.t.isf(FAMILY_LEVEL / 2, 29) * 0.002     # 30 runs, SE 0.002
    busy = [0.6 + 0.9 * cut, 0.9 - 0.002, 0.7 + 1.1 * cut]
    rows = _lemma2_rows([0.6, 0.9, 0.7], busy=busy)
    sim = [r for r in rows if "busy_sim" in r]
    records = st.busy_fraction_claims(sim, [_symmetric_runs(b, 0.002) for b in busy], 300, 200.0)
    assert [c.judge() for c in records] == ["holds", "holds", "fails"] and records[0].ours_df == 29
    assert [len(c.ours_runs) for c in records] == [30, 30, 30] and records[0].ours == pytest.approx(busy[0])
    assert len({c.family for c in records}) == 1


def test_busy_fractions_on_fewer_than_30_runs_are_not_resolved():
    busy = [0.65, 0.9, 0.7]
    sim = [r for r in _lemma2_rows([0.6, 0.9, 0.7], busy=busy) if "busy_sim" in r]
    records = st.busy_fraction_claims(sim, [_symmetric_runs(b, 0.002, n=10) for b in busy], 300, 200.0)
    assert [c.judge() for c in records] == ["not resolved"] * 3
    with pytest.raises(ParameterError, match="`runs`"):
        st.busy_fraction_claims(sim, [_symmetric_runs(0.6, 0.002)], 300, 200.0)


def test_lemma2_at_a_tiny_scale():
    res = st.lemma2(seed=5, n_servers=60, n_runs=2, horizon=10.0, parameters={})
    assert len(res.rows) == 9 and sum("busy_sim" in r for r in res.rows) == 3
    assert res.claims[0].text.startswith("Lemma 2") and res.claims[1].judge() == "agrees" and len(res.claims) == 5
    assert set(res.summary["loads"]) == set(res.figure["matrices"]) and res.summary["max_t_busy_vs_load"] >= 0
    assert len(res.displays) == 2


# -- L-V-prop1 -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("summary, labels", [
    (dict(n_below_capacity=10, design_stable=10, n_above_capacity=4, random_p_violating=4), ("agrees", "holds")),
    (dict(n_below_capacity=10, design_stable=9, n_above_capacity=4, random_p_violating=3), ("differs", "fails")),
    (dict(n_below_capacity=0, design_stable=0, n_above_capacity=0, random_p_violating=0), ("differs", "fails")),
])
def test_proposition1_needs_every_system_and_at_least_one(summary, labels):
    claims = st.proposition1_claims(summary)
    assert tuple(c.judge() for c in claims) == labels


def test_proposition1_at_a_tiny_scale():
    res = st.proposition1(seed=5, n_designs=30, parameters={})
    assert len(res.rows) == 30
    assert res.summary["n_below_capacity"] + res.summary["n_above_capacity"] == 30
    assert [c.judge() for c in res.claims] == ["agrees", "holds"]


# -- L-V-lemma10 ---------------------------------------------------------------------------------------------

def _lemma10_rows(rho_n_last, growth, ci_low, ode=0.6, se=0.005):
    rows = [dict(part="rho by set of types", matrix="p0 (complete)", types="[1]", value=1.5, critical=True),
            dict(part="rho by set of types", matrix="p0 (complete)", types="[1, 2, 3]", value=0.75, critical=False),
            dict(part="rho by set of types", matrix="p1 (Sec. 6.1)", types="[1, 2, 3]", value=0.75, critical=True),
            dict(part="rho^N complete graph", matrix="p0 (complete)", N=10, value=1.5 + 1.5 / 9),
            dict(part="rho^N complete graph", matrix="p0 (complete)", N=1000, value=rho_n_last)]
    rows.append(dict(part="type-1 growth rate", matrix="p0 (complete)", N=300, value=growth, ci_low=ci_low,
                     ci_high=growth + 0.1, se=se, ode=ode, long_run=0.25, t_from=10.0, t_to=20.0))
    return rows


def _lemma10(rho_n_last, growth, ci_low, ode=0.6, se=0.005, runs=30, rho=1.5):
    """The four records of L-V-lemma10 on the rows above, with symmetric run growth rates at N = 300."""
    return st.lemma10_claims(_lemma10_rows(rho_n_last, growth, ci_low, ode, se), {300: _symmetric_runs(growth, se, runs)},
                             rho, 0.5)


def test_lemma10_records_agree_for_the_unstable_complete_graph():
    recon, limit, unstable, rate = _lemma10(1.5 + 1.5 / 999, 0.61, 0.5)
    assert recon.category == "reconstruction" and recon.verdict.startswith("1.5 at the set {type 1}")
    assert "0.75" in recon.alternatives
    assert limit.judge() == "holds" and unstable.judge() == "agrees" and rate.judge() == "holds"
    assert len(rate.ours_runs) == 30 and rate.ours == pytest.approx(0.61) and rate.ours_df == 29


def test_lemma10_records_differ_when_the_numbers_say_otherwise():
    _, limit, unstable, rate = _lemma10(1.5 + 2.5 / 1000, 0.62, 0.0)
    assert limit.judge() == "fails"            # beyond the 2 / N tolerance
    assert unstable.judge() == "differs"       # the growth rate's interval touches 0
    assert _lemma10(1.0, 0.62, 0.5, rho=1.0)[2].judge() == "differs"  # rho = 1
    assert _lemma10(1.5, 0.62 + 0.25, 0.5)[3].judge() == "fails"
    # the same distance on 10 run means: not resolved
    assert _lemma10(1.5, 0.62 + 0.25, 0.5, runs=10)[3].judge() == "not resolved"


def test_lemma10_at_a_tiny_scale():
    res = st.lemma10(seed=5, n_list=[30], n_runs=2, horizon=4.0, parameters={})
    assert res.summary["rho_complete"] == pytest.approx(1.5) and res.summary["rho_design"] < 1
    assert set(res.summary["type1_growth"]) == {"30"}
    assert [c.category for c in res.claims] == ["reconstruction", "check", "claim", "check"]
    assert res.claims[1].judge() == "holds"


def test_lemma2_and_lemma10_on_30_runs_are_judged_by_the_t_test():
    """30 short runs (the fewest a t test judges) at a fixed seed: the busy fractions and the Lemma 10
    growth rate carry their run means, pass their checks and hold in the page's family."""
    from qtheory.verdicts import judge

    lemma2 = st.lemma2(seed=5, n_servers=300, n_runs=30, horizon=60.0, parameters={})
    busy = [c for c in lemma2.claims if c.ours_runs is not None]
    assert len(busy) == 3 and all(len(c.ours_runs) == 30 for c in busy)
    verdicts = judge(lemma2.claims).verdicts[-3:]
    assert [v.label for v in verdicts] == ["holds"] * 3 and all(v.comparison.testable for v in verdicts)
    lemma10 = st.lemma10(seed=5, n_list=[300], n_runs=30, horizon=20.0, parameters={})
    rate = lemma10.claims[3]
    verdict = judge(lemma10.claims).verdicts[3]
    assert len(rate.ours_runs) == 30 and verdict.label == "holds" and verdict.comparison.testable


def test_compute_records_every_parameter_in_each_item():
    res = st.compute(seed=5, lambdas=[4.0], lemma1_runs=2, lemma1_horizon=10.0, rr_servers=60, rr_runs=2,
                     rr_horizon=5.0, n_random_designs=5, growth_n_list=[30], growth_runs=2, growth_horizon=2.0)
    assert [r.item for r in res] == ["L-V-lemma1", "L-V-lemma2", "L-V-prop1", "L-V-lemma10"]
    assert all(r.parameters == res.lemma1.parameters for r in res) and len(res.lemma1.parameters) == 11


def _growth_rows(growths, rhos, se=0.01, runs=30):
    rows = [dict(rho_N=r, growth_sim=g, se=se, ci_low=g - 2 * se, ci_high=g + 2 * se, runs=runs)
            for g, r in zip(growths, rhos)]
    return rows, [_symmetric_runs(g, se, runs) for g in growths]


def test_lemma_1_agrees_when_queues_stay_put_below_the_threshold_and_grow_above_it():
    assert st.lemma1_claim(*_growth_rows([0.001, 0.5], [0.6, 1.4])).judge() == "agrees"
    # growth below the threshold differs; none above it is not shown (not resolved); a
    # null-recurrent rate is not judged
    assert st.lemma1_claim(*_growth_rows([0.2, 0.5], [0.6, 1.4])).judge() == "differs"
    assert st.lemma1_claim(*_growth_rows([0.001, 0.005], [0.6, 1.4])).judge() == "not resolved"
    assert st.lemma1_claim(*_growth_rows([0.001, 0.3, 0.5], [0.6, 1.0, 1.4])).judge() == "agrees"
    # "growing" is an intersection-union test: each rate above 1 at the level itself (0.01), alone or
    # beside others. t = 2.6 on 29 degrees of freedom (one-sided p 0.0073) passes beside a second rate;
    # t = 2.3 (p 0.014) fails, alone or not
    assert st.lemma1_claim(*_growth_rows([0.001, 0.026], [0.6, 1.4])).judge() == "agrees"
    assert st.lemma1_claim(*_growth_rows([0.001, 0.026, 0.5], [0.6, 1.4, 1.6])).judge() == "agrees"
    assert st.lemma1_claim(*_growth_rows([0.001, 0.023], [0.6, 1.4])).judge() == "not resolved"
    assert st.lemma1_claim(*_growth_rows([0.001, 0.023, 0.5], [0.6, 1.4, 1.6])).judge() == "not resolved"


def test_lemma_1_without_rates_on_both_sides_of_1_is_not_resolved():
    assert st.lemma1_claim(*_growth_rows([0.5], [1.4])).judge() == "not resolved"
    assert st.lemma1_claim(*_growth_rows([0.001], [0.6])).judge() == "not resolved"


def test_lemma_2_agrees_when_every_busy_fraction_interval_lies_below_one():
    rows = _lemma2_rows([0.6, 0.9, 0.7], busy=[0.6, 0.9, 0.7])
    sim = [r for r in rows if "busy_sim" in r]
    assert st.lemma2_claim(sim, 20).judge() == "agrees"
    sim[1]["ci_high"] = 1.0
    assert st.lemma2_claim(sim, 20).judge() == "differs"
