"""R-F3cd's item function at a tiny scale, and its verdict on gaps that must agree and must differ."""

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy.items import r_f3cd
from qtheory.results import select

P12 = 7 / 12


def test_the_approximation_as_written_is_shifted_by_one_job():
    assert r_f3cd.heavy_traffic_cdf(0.9, 0) == pytest.approx(1 - math.exp(-0.1))
    assert r_f3cd.heavy_traffic_cdf(0.9, 0, shift=0) == 0.0
    assert r_f3cd.heavy_traffic_cdf(0.9, [0, 9]) == pytest.approx([1 - math.exp(-0.1), 1 - math.exp(-1.0)])


def test_cdf_gaps_are_zero_on_the_approximation_itself_and_find_where_the_gap_is_largest():
    q = np.arange(50)
    exact = r_f3cd.heavy_traffic_cdf(0.9, q)
    gaps = r_f3cd.cdf_gaps(exact, 0.9)
    assert gaps["gap"] == 0.0 and gaps["gap_other"] == pytest.approx(np.max(np.exp(-0.1 * q) * (1 - math.exp(-0.1))))
    bumped = exact.copy()
    bumped[7] += 0.02
    bumped[30] -= 0.01
    assert r_f3cd.cdf_gaps(bumped, 0.9)["gap"] == pytest.approx(0.02) and r_f3cd.cdf_gaps(bumped, 0.9)["where"] == 7


def test_load_rows_stop_at_eight_means_or_at_the_end_of_the_cdf():
    cdf = np.linspace(0.1, 1.0, 40)
    rows = r_f3cd.load_rows(cdf, 0.5)
    assert [r["q"] for r in rows] == list(range(17))
    assert rows[3]["scaled_q"] == pytest.approx(1.5) and rows[3]["cdf_exact"] == cdf[3]
    assert rows[3]["cdf_heavy_traffic"] == pytest.approx(1 - math.exp(-2.0))
    assert len(r_f3cd.load_rows(cdf, 0.9)) == 40


@pytest.mark.parametrize("gap, verdict", [(0.038, "agrees"), (0.049, "agrees"), (0.0, "agrees"),
                                          (0.05, "differs"), (0.051, "differs"), (0.104, "differs")])
def test_nearly_exact_means_a_largest_gap_below_0_05(gap, verdict):
    claim = r_f3cd.nearly_exact_claim(0.95, gap, 0.5)
    assert claim.judge() == verdict and claim.ours == gap and "load 0.95" in claim.text
    assert f"largest gap {gap:.3f}" in claim.evidence and "0.500 comparing" in claim.evidence


def test_the_gap_trend_is_read_in_the_order_of_the_loads():
    assert r_f3cd.decreases_with_load({0.6: 0.3, 0.8: 0.2, 0.99: 0.2})
    assert r_f3cd.decreases_with_load({0.99: 0.1, 0.6: 0.3})
    assert not r_f3cd.decreases_with_load({0.6: 0.075, 0.8: 0.128, 0.95: 0.104})
    assert not r_f3cd.decreases_with_load({0.99: 0.3, 0.6: 0.1})
    gaps = {0.6: dict(gap=0.075, gap_other=0.2), 0.8: dict(gap=0.128, gap_other=0.1)}
    assert "not monotone" in r_f3cd.paper_vs_here([0.6, 0.8], gaps, {0.6: 0, 0.8: 2})
    gaps[0.8]["gap"] = 0.05
    text = r_f3cd.paper_vs_here([0.6, 0.8], gaps, {0.6: 0, 0.8: 2})
    assert "It decreases with the load" in text and "0.050 at load 0.8 (reached at $q = 2$)" in text


def test_compute_at_a_tiny_scale_judges_the_two_high_loads():
    res = r_f3cd.compute(seed=0, p12=P12, loads=[0.5, 0.95, 0.99], max_jobs=300)
    assert [len(select(res.rows, load=lam)) for lam in (0.5, 0.95, 0.99)] == [17, 161, 301]
    for lam in (0.5, 0.95, 0.99):
        cdf = [r["cdf_exact"] for r in select(res.rows, load=lam)]
        assert np.all(np.diff(cdf) >= 0) and 0 < cdf[0] and cdf[-1] <= 1
    assert set(res.summary) == {"sup_cdf_gap", "sup_cdf_gap_other_convention"}
    gaps = res.summary["sup_cdf_gap"]
    assert gaps[0.99] == pytest.approx(0.0383, abs=5e-4) and gaps[0.95] == pytest.approx(0.1036, abs=5e-4)
    assert [c.judge() for c in res.claims] == ["differs", "agrees"]
    assert "It is not monotone" in res.text and "300 jobs" in res.figure["caption"]


def test_compute_makes_no_claim_without_the_high_loads():
    assert r_f3cd.compute(seed=0, p12=P12, loads=[0.5, 0.8], max_jobs=50).claims == ()


@pytest.mark.parametrize("kwargs, name", [(dict(max_jobs=0), "max_jobs"), (dict(loads=[0.5, 1.0]), r"loads\[1\]"),
                                          (dict(p12=0.9, loads=[0.5, 0.8]), r"`loads\[1\]` = 0.8 is at or past .*`p12` = 0.9")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        r_f3cd.compute(**(dict(seed=0, p12=P12, loads=[0.5], max_jobs=20) | kwargs))
