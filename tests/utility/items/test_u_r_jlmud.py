"""U-R-jlmud's item function at a tiny scale, and its checks on rows that must hold and must fail."""

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.utility.items import u_r_jlmud


def _row(n, policy, mean, half=0.125, bound=10.0, runs=6):
    # eighths: exact in binary, so that touching intervals touch exactly
    return dict(n=n, policy=policy, bound=bound, mean_utility=mean, ci_low=mean - half, ci_high=mean + half,
                gap=bound - mean, gap_ci_low=bound - mean - half, gap_ci_high=bound - mean + half, runs=runs)


def _rows(jlmu_means=(9.0, 9.5, 9.875), d_means=((8.0, 8.5, 8.625), (8.75, 9.25, 9.375))):
    rows = []
    for k, n in enumerate((10, 20, 40)):
        rows.append(_row(n, "JLMU", jlmu_means[k]))
        rows += [_row(n, f"JLMU({d})", means[k]) for d, means in zip((1, 2), d_means)]
    return rows


def test_row_of_finds_one_row_and_names_a_missing_one():
    assert u_r_jlmud.row_of(_rows(), 20, "JLMU(2)")["mean_utility"] == 9.25
    with pytest.raises(ParameterError, match="0 rows for n = 30"):
        u_r_jlmud.row_of(_rows(), 30, "JLMU")
    with pytest.raises(ParameterError, match="2 rows for n = 10"):
        u_r_jlmud.row_of(_rows() + [_row(10, "JLMU", 9.0)], 10, "JLMU")


def test_the_bound_check_fails_when_one_interval_lies_above_the_bound():
    assert u_r_jlmud.bound_claim(_rows()).judge() == "holds"
    rows = _rows() + [_row(10, "JLMU(3)", 10.25)]
    assert u_r_jlmud.bound_claim(rows).judge() == "fails"
    # an interval that just reaches the bound is below it up to its CI
    assert u_r_jlmud.bound_claim([_row(10, "JLMU", 10.125)]).judge() == "holds"


def test_the_monotone_check_fails_when_a_larger_d_does_clearly_worse():
    assert u_r_jlmud.monotone_claim(_rows(), (10, 20, 40), (1, 2)).judge() == "holds"
    worse = _rows(d_means=((8.0, 9.75, 8.625), (8.75, 9.25, 9.375)))
    assert u_r_jlmud.monotone_claim(worse, (10, 20, 40), (1, 2)).judge() == "fails"
    # touching intervals (9.5 - 0.125 = 9.25 + 0.125) are not a loss
    touching = _rows(d_means=((8.0, 9.5, 8.625), (8.75, 9.25, 9.375)))
    assert u_r_jlmud.monotone_claim(touching, (10, 20, 40), (1, 2)).judge() == "holds"
    assert u_r_jlmud.monotone_claim(_rows(), (10, 20, 40), (1, 2)).evidence == "$d$ = 1 and 2; $n$ = 10, 20 and 40"


def test_the_falling_gap_check_needs_each_interval_entirely_above_the_next():
    claim = u_r_jlmud.falls_claim(_rows(), (10, 20, 40))
    assert claim.judge() == "holds" and claim.evidence.startswith("log-log slope \u2212")
    assert claim.evidence.endswith("(± SE) over $n$ = 10, 20 and 40") and "[" not in claim.evidence
    assert u_r_jlmud.falls_claim(_rows(jlmu_means=(9.0, 9.5, 9.4)), (10, 20, 40)).judge() == "fails"
    assert u_r_jlmud.falls_claim(_rows(jlmu_means=(9.0, 9.5, 9.75)), (10, 20, 40)).judge() == "fails"
    assert u_r_jlmud.falls_claim(_rows(jlmu_means=(9.0, 9.5, 9.8)), (10, 20, 40)).judge() == "holds"


def test_gap_slopes_fit_log_gap_against_log_n_with_a_floor():
    rows = [dict(n=n, policy="JLMU", gap=1.0 / n) for n in (10, 100, 1000)]
    rows += [dict(n=n, policy="JLMU(1)", gap=g) for n, g in ((10, 1e-12), (100, 0.0), (1000, -1.0))]
    slopes = u_r_jlmud.gap_slopes(rows, ["JLMU", "JLMU(1)"])
    assert slopes["JLMU"] == pytest.approx(-1.0) and slopes["JLMU(1)"] == pytest.approx(0.0)


def test_compute_at_a_tiny_scale_returns_rows_records_and_figure():
    res = u_r_jlmud.compute(seed=2, rho=10.0, n_values=[4, 10], d_values=[1, 2], horizon=30.0, warmup=5.0, n_runs=2)
    assert [r["policy"] for r in res.rows] == ["JLMU", "JLMU(1)", "JLMU(2)"] * 2
    assert [r["d"] for r in res.rows[:3]] == [None, 1, 2]
    for r in res.rows:
        assert r["ci_low"] <= r["mean_utility"] <= r["ci_high"] and r["gap_ci_low"] <= r["gap"] <= r["gap_ci_high"]
        assert r["gap"] == pytest.approx(r["bound"] - r["mean_utility"])
        assert r["runs"] == 2 and r["events"] > 0
    assert len(res.claims) == 3 and all(c.category == "check" for c in res.claims)
    assert res.figure["n_mid"] == 10 and res.figure["sampled"] == ["JLMU(1)", "JLMU(2)"]
    # prose: every slope and gap with its SE, lists in words, never a Python list or a negative zero
    assert "Log-log slopes of the gap against $n$ (± SE): JLMU " in res.text and " and JLMU(2) " in res.text
    assert "[" not in res.text and "-0.0" not in res.text and "\u22120.0 " not in res.text
    assert "[" not in res.figure["caption"]


@pytest.mark.parametrize("kwargs, name", [(dict(rho=0.0), "rho"), (dict(n_runs=1), "n_runs"),
                                          (dict(n_values=[5]), "n_values"), (dict(d_values=[]), "d_values"),
                                          (dict(n_values=[4, 5]), r"`n_values\[1\]` = 5 does not split"),
                                          (dict(d_values=[1, 0]), r"`d_values\[1\]` must be >= 1"),
                                          (dict(horizon=4.0), "`warmup` must be shorter than `horizon`")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=2, rho=10.0, n_values=[4, 10], d_values=[1, 2], horizon=30.0, warmup=5.0, n_runs=2) | kwargs
    with pytest.raises(ParameterError, match=name):
        u_r_jlmud.compute(**args)


def test_gap_se_undoes_the_t_quantile_of_the_interval():
    # half-width 0.125 over 6 runs: SE = 0.125 / t(0.975, 5)
    assert u_r_jlmud.gap_se(_row(10, "JLMU", 9.0)) == pytest.approx(0.125 / 2.570581835636314)


def test_gap_slope_errors_match_the_spread_of_slopes_over_noisy_gaps():
    # independent route: redraw each gap from a normal with its SE and fit the slope each time;
    # the delta-method SE must match the spread of the fitted slopes. Gaps 1/n and relative SEs
    # of 1-4% keep log g close to linear in g; 20000 draws give the spread to about 0.5%
    # (relative SE of a sample sd: 1/sqrt(2 * 20000)), so 5% is ten times that, and a dropped
    # weight or a missing 1/g moves the SE by far more.
    n_values = np.array([10, 20, 50, 100, 200])
    ses = np.array([0.004, 0.001, 0.0005, 0.0002, 0.0001])
    t = stats.t.ppf(0.975, df=5)
    rows = [dict(n=int(n), policy="A", gap=1 / n, gap_ci_low=1 / n - t * se, gap_ci_high=1 / n + t * se, runs=6)
            for n, se in zip(n_values, ses)]
    rng = np.random.default_rng(20261205)
    gaps = 1 / n_values + rng.standard_normal((20000, n_values.size)) * ses
    slopes = np.polyfit(np.log(n_values), np.log(gaps).T, 1)[0]
    assert u_r_jlmud.gap_slope_errors(rows, ["A"])["A"] == pytest.approx(slopes.std(ddof=1), rel=0.05)
    # a gap at the floor has no error to speak of
    rows[2] = dict(rows[2], gap=0.0)
    assert np.isnan(u_r_jlmud.gap_slope_errors(rows, ["A"])["A"])
