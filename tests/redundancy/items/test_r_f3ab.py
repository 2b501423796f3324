"""R-F3ab's item function at a tiny scale, and its verdicts on values that must agree and must differ."""

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy import m_model
from qtheory.redundancy.items import r_f3ab
from qtheory.results import select

P12 = 7 / 12


def test_compute_at_a_tiny_scale_agrees_with_the_closed_form_and_keeps_only_visible_cells():
    res = r_f3ab.compute(seed=0, p12=P12, loads=[0.3, 0.6], max_jobs=[40, 12], closed_form_max=10)
    light, heavy = (select(res.rows, load=lam) for lam in (0.3, 0.6))
    # at load 0.3 the far cells are below the floor and left out; at 0.6 every cell up to 12 is kept
    assert 0 < len(light) < 41 * 41 and len(heavy) == 13 * 13
    assert all(r["pmf_dp"] > r_f3ab.PMF_FLOOR for r in res.rows)
    assert min(r["pmf_dp"] for r in light) < 1e-10
    for r in res.rows:
        if r["q12"] <= 10 and r["q23"] <= 10:
            assert r["pmf_13"] == pytest.approx(r["pmf_dp"], abs=1e-15)
        else:
            assert math.isnan(r["pmf_13"])
    summary = res.summary["summary"]
    assert set(summary) == {0.3, 0.6} and summary[0.6]["mass_in_table"] < summary[0.3]["mass_in_table"] <= 1.0 + 1e-12
    # type {1,2} is the more likely: fewer jobs of type {2,3}
    assert 0.0 < summary[0.6]["slope"] < 1.0
    assert summary[0.6]["slope"] == pytest.approx(summary[0.6]["mean_q23"] / summary[0.6]["mean_q12"])
    assert set(res.summary["ratio_closer_to_limit"]) == set(r_f3ab.CLOSER_LOADS)
    assert [c.judge() for c in res.claims] == ["holds", "holds", "agrees"]
    assert res.figure["slope"] == pytest.approx(5 / 7) and "40, 12 jobs per type" in res.figure["caption"]


def test_the_ratio_of_the_means_is_one_in_the_symmetric_m_model_and_nears_5_7_at_7_12():
    assert r_f3ab.type_ratio(m_model(0.5), 0.9) == pytest.approx(1.0)
    assert r_f3ab.type_ratio(m_model(P12), 0.6) < r_f3ab.type_ratio(m_model(P12), 0.99) < 5 / 7
    assert r_f3ab.type_ratio(m_model(P12), 0.9999) == pytest.approx(5 / 7, abs=1e-3)


def test_the_closed_form_check_holds_at_rounding_and_fails_beyond():
    assert r_f3ab.closed_form_check(0.6, 5.6e-17).judge() == "holds"
    assert r_f3ab.closed_form_check(0.6, 0.0).judge() == "holds"
    failed = r_f3ab.closed_form_check(0.99, 1e-6)
    assert failed.judge() == "fails" and failed.label == "internal check fails" and "load 0.99" in failed.text


@pytest.mark.parametrize("ratio, verdict", [(0.7138, "agrees"), (0.7092, "agrees"), (0.7200, "agrees"),
                                            (0.7000, "differs"), (0.7300, "differs"), (1.4, "differs")])
def test_the_slope_claim_agrees_within_0_01_of_5_7(ratio, verdict):
    claim = r_f3ab.slope_claim(ratio)
    assert claim.judge() == verdict and claim.paper == pytest.approx(5 / 7) and "load 0.9999" in claim.text


def test_pmf_grid_places_the_rows_of_one_load():
    rows = [dict(load=0.6, q12=0, q23=1, pmf_dp=0.25), dict(load=0.6, q12=2, q23=0, pmf_dp=0.5),
            dict(load=0.9, q12=1, q23=1, pmf_dp=0.75)]
    grid = r_f3ab.pmf_grid(rows, 0.6, 2)
    assert grid.shape == (3, 3) and grid[0, 1] == 0.25 and grid[2, 0] == 0.5 and grid.sum() == 0.75
    assert np.count_nonzero(r_f3ab.pmf_grid(rows, 0.9, 2)) == 1


@pytest.mark.parametrize("kwargs, name", [(dict(max_jobs=[10]), "one entry per load of `loads`"), (dict(loads=[0.3, 1.0]), r"loads\[1\]"),
                                          (dict(max_jobs=[0, 5]), r"max_jobs\[0\]"),
                                          (dict(closed_form_max=-1), "closed_form_max"),
                                          # lambda* = 2 / (3 (1 - p12)) = 0.74 < 0.9 at p12 = 0.1: named with p12
                                          (dict(p12=0.1, loads=[0.3, 0.9]), r"`loads\[1\]` = 0.9 is at or past .*`p12` = 0.1")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=0, p12=P12, loads=[0.3, 0.6], max_jobs=[5, 5], closed_form_max=5) | kwargs
    with pytest.raises(ParameterError, match=name):
        r_f3ab.compute(**args)


def test_a_joint_table_beyond_its_limit_is_refused_in_the_readers_words():
    """(max_jobs + 1)^2 x 8 entries of at most 2 x 10^6: max_jobs 499 is the largest, 500 is refused
    naming max_jobs[1] (the reader's list entry), before any table is allocated."""
    from qtheory.errors import ParameterError

    with pytest.raises(ParameterError, match=r"`max_jobs\[1\]` must be at most 499: .*\(got 500\)"):
        r_f3ab.compute(seed=1, p12=7 / 12, loads=[0.6, 0.99], max_jobs=[25, 500], closed_form_max=30)
