"""U-R-jlmud's item function at a tiny scale, and its checks on rows that must hold and must fail."""

import pytest

from qtheory.errors import ParameterError
from qtheory.utility.items import u_r_jlmud


def _row(n, policy, mean, half=0.125, bound=10.0):
    # eighths: exact in binary, so that touching intervals touch exactly
    return dict(n=n, policy=policy, bound=bound, mean_utility=mean, low=mean - half, high=mean + half,
                gap=bound - mean, gap_low=bound - mean - half, gap_high=bound - mean + half)


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
    assert "d = [1, 2], n = [10, 20, 40]" in u_r_jlmud.monotone_claim(_rows(), (10, 20, 40), (1, 2)).evidence


def test_the_falling_gap_check_needs_each_interval_entirely_above_the_next():
    claim = u_r_jlmud.falls_claim(_rows(), (10, 20, 40))
    assert claim.judge() == "holds" and claim.evidence.startswith("log-log slope -")
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
        assert r["low"] <= r["mean_utility"] <= r["high"] and r["gap_low"] <= r["gap"] <= r["gap_high"]
        assert r["gap"] == pytest.approx(r["bound"] - r["mean_utility"])
        assert r["runs"] == 2 and r["events"] > 0
    assert len(res.claims) == 3 and all(c.category == "check" for c in res.claims)
    assert res.figure["n_mid"] == 10 and res.figure["sampled"] == ["JLMU(1)", "JLMU(2)"]


@pytest.mark.parametrize("kwargs, name", [(dict(rho=0.0), "rho"), (dict(n_runs=1), "n_runs"),
                                          (dict(n_values=[5]), "n_values"), (dict(d_values=[]), "d_values")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=2, rho=10.0, n_values=[4, 10], d_values=[1, 2], horizon=30.0, warmup=5.0, n_runs=2) | kwargs
    with pytest.raises(ParameterError, match=name):
        u_r_jlmud.compute(**args)
