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


def test_the_distance_between_the_laws_is_the_supremum_over_all_x_of_the_step_against_the_curve():
    """Brute force: the step CDF of Q against the exponential CDF on a fine grid of real x (both
    one-sided limits of each step), and the two discrete readings, one end of each step each."""
    rng = np.random.default_rng(3)
    for load in (0.6, 0.9):
        pmf = rng.dirichlet(np.ones(40))
        cdf = np.cumsum(pmf)
        x = np.arange(0, 41, 1e-3)
        step = np.where(x < 40, cdf[np.minimum(np.floor(x).astype(int), 39)], 1.0)
        brute = np.max(np.abs(step - (1 - np.exp(-(1 - load) * x))))
        left = np.max(np.abs(cdf - (1 - np.exp(-(1 - load) * (np.arange(40) + 1)))))   # just before each step's end
        g = r_f3cd.cdf_gaps(cdf, load)
        assert g["distance"] == pytest.approx(brute, abs=1e-3) and g["distance"] == max(g["gap"], g["gap_other"])
        assert g["gap"] == pytest.approx(left)
        assert g["distance"] > min(g["gap"], g["gap_other"])        # a random law is far from both ends alike


def test_the_distance_is_located_on_the_end_of_the_step_that_reaches_it():
    q = np.arange(60)
    on_written = r_f3cd.heavy_traffic_cdf(0.9, q)
    above = on_written.copy()
    above[10] += 0.02           # (14) as written is off by 0.02 at q = 10; the other end by 0.095 at q = 0
    g = r_f3cd.cdf_gaps(above, 0.9)
    assert (g["where"], g["where_distance"], g["below"]) == (10, 0, False)
    below = on_written.copy()
    below[10] -= 0.2            # now the written end is the farther one, at q = 10, with the exact CDF below
    g = r_f3cd.cdf_gaps(below, 0.9)
    assert (g["where"], g["where_distance"], g["below"]) == (10, 10, True) and g["distance"] == pytest.approx(0.2)


def _gaps(moderate, judged, reading_values=None):
    """cdf_gaps-like entries: loads 0.6, 0.8 at the `moderate` distances, 0.95, 0.99 at `judged`;
    the one-sided readings at `reading_values` (load -> (gap, gap_other)) or the distance itself."""
    out = {}
    for load, d in zip((0.6, 0.8, 0.95, 0.99), (*moderate, *judged)):
        gap, other = (reading_values or {}).get(load, (d, d))
        out[load] = dict(distance=max(d, gap, other), gap=gap, gap_other=other, where=3, where_distance=3, below=True)
    return out


MEANS = {0.95: 22.5, 0.99: 103.7}


def test_the_cut_off_is_the_smallest_distance_the_paper_calls_only_fairly_close():
    assert r_f3cd.derived_cutoff(_gaps((0.2, 0.1), (0.05, 0.01))) == (0.1, 0.8)
    assert r_f3cd.derived_cutoff(_gaps((0.09, 0.1), (0.05, 0.01))) == (0.09, 0.6)
    assert r_f3cd.derived_cutoff({0.95: _gaps((0.2, 0.1), (0.05, 0.01))[0.95]}) is None
    with pytest.raises(ParameterError, match="reading"):
        r_f3cd.derived_cutoff(_gaps((0.2, 0.1), (0.05, 0.01)), "median")


@pytest.mark.parametrize("judged, verdict", [((0.099, 0.01), "agrees"), ((0.05, 0.099), "agrees"),
                                             ((0.101, 0.01), "differs"), ((0.05, 0.15), "differs"),
                                             ((0.1, 0.01), "differs")])
def test_nearly_exact_means_closer_than_every_load_called_only_fairly_close(judged, verdict):
    # the smaller fairly-close distance is 0.1 (load 0.8); 0.2 at load 0.6 must not be the cut-off
    claims = r_f3cd.nearly_exact_claims(_gaps((0.2, 0.1), judged), MEANS)
    first = claims[0]
    assert first.judge() == verdict and first.reading.startswith("as the distance between the two laws")
    assert f"the label flips at a cut-off of {max(judged):.3f}" in first.evidence
    assert first.evidence.startswith(f"At loads 0.95 and 0.99 the exact law of $Q_\\lambda$ is {judged[0]:.3f} and "
                                     f"{judged[1]:.3f} from the approximation, against a cut-off of 0.100, the distance at "
                                     "load 0.8")
    assert "offset of +2.50 jobs" in first.evidence        # the cause: 22.5 against 1 / (1 - 0.95) = 20


def test_each_reading_is_judged_against_its_own_cut_off_and_the_distance_reading_comes_first():
    # one-sided readings: (14) as written small at 0.6 (0.05), so its cut-off is 0.05 and 0.07 at 0.95 differs;
    # the other reading's cut-off is 0.09 (0.8), and 0.95's 0.06 agrees
    values = {0.6: (0.05, 0.2), 0.8: (0.1, 0.09), 0.95: (0.07, 0.06), 0.99: (0.03, 0.02)}
    claims = r_f3cd.nearly_exact_claims(_gaps((0.2, 0.1), (0.07, 0.03), values), MEANS)
    assert [c.reading for c in claims] == list(r_f3cd.READINGS.values())
    assert [c.judge() for c in claims] == ["agrees", "differs", "agrees"]
    assert "against a cut-off of 0.050, the distance at load 0.6" in claims[1].evidence and "0.200 apart at load 0.6" in claims[1].evidence
    assert len({c.text for c in claims}) == 1 and "nearly exact" in claims[0].text


def test_no_claim_without_a_load_called_fairly_close_or_nearly_exact():
    gaps = _gaps((0.2, 0.1), (0.05, 0.01))
    assert r_f3cd.nearly_exact_claims({k: gaps[k] for k in (0.95, 0.99)}, MEANS) == ()
    assert r_f3cd.nearly_exact_claims({k: gaps[k] for k in (0.6, 0.8)}, MEANS) == ()


def test_the_gap_trend_is_read_in_the_order_of_the_loads():
    assert r_f3cd.decreases_with_load({0.6: 0.3, 0.8: 0.2, 0.99: 0.2})
    assert r_f3cd.decreases_with_load({0.99: 0.1, 0.6: 0.3})
    assert not r_f3cd.decreases_with_load({0.6: 0.075, 0.8: 0.128, 0.95: 0.104})
    assert not r_f3cd.decreases_with_load({0.99: 0.3, 0.6: 0.1})
    # the paragraph reads the distance between the laws, not a one-sided reading
    gaps = {0.6: dict(distance=0.075, gap=0.075, gap_other=0.05), 0.8: dict(distance=0.128, gap=0.128, gap_other=0.1)}
    assert "not monotone" in r_f3cd.paper_vs_here([0.6, 0.8], gaps, {0.6: 0, 0.8: 2})
    gaps[0.8]["distance"] = 0.05
    text = r_f3cd.paper_vs_here([0.6, 0.8], gaps, {0.6: 0, 0.8: 2})
    assert "It decreases with the load" in text and "0.050 at load 0.8 (reached at $q = 2$)" in text
    assert "with (14) as written: 0.075, 0.128" in text


def _independent_total_cdf(load, max_jobs):
    """P(Q_{1,2} + Q_{2,3} <= q), q <= max_jobs, from the paper's closed form (13), not the dynamic
    programme (every pair with q + q' <= max_jobs is in the table)."""
    from qtheory.redundancy.productform import m_model_joint_pmf

    joint = m_model_joint_pmf(load, P12, max_jobs)
    return np.cumsum([sum(joint[i, n - i] for i in range(n + 1)) for n in range(max_jobs + 1)])


def test_compute_at_a_tiny_scale_judges_the_two_high_loads():
    loads = [0.6, 0.8, 0.95, 0.99]
    res = r_f3cd.compute(seed=0, p12=P12, loads=loads, max_jobs=300)
    assert [len(select(res.rows, load=lam)) for lam in loads] == [21, 42, 161, 301]
    for lam in loads:
        cdf = [r["cdf_exact"] for r in select(res.rows, load=lam)]
        assert np.all(np.diff(cdf) >= 0) and 0 < cdf[0] and cdf[-1] <= 1
    assert set(res.summary) == {"sup_cdf_distance", "sup_cdf_gap", "sup_cdf_gap_other_convention"}
    # the distances against the closed form (13) (reached below 40 jobs at these loads): the verdicts follow
    distance = {lam: r_f3cd.cdf_gaps(_independent_total_cdf(lam, 40), lam)["distance"] for lam in loads}
    for lam in loads:
        assert res.summary["sup_cdf_distance"][lam] == pytest.approx(distance[lam], abs=1e-9)
    cutoff = min(distance[0.6], distance[0.8])
    expected = "agrees" if max(distance[0.95], distance[0.99]) < cutoff else "differs"
    assert res.claims[0].judge() == expected and len(res.claims) == 3
    assert "It decreases with the load" in res.text and "300 jobs" in res.figure["caption"]


def test_compute_makes_no_claim_without_the_high_loads_or_the_moderate_ones():
    assert r_f3cd.compute(seed=0, p12=P12, loads=[0.5, 0.8], max_jobs=50).claims == ()
    assert r_f3cd.compute(seed=0, p12=P12, loads=[0.5, 0.95], max_jobs=50).claims == ()


@pytest.mark.parametrize("kwargs, name", [(dict(max_jobs=0), "max_jobs"), (dict(loads=[0.5, 1.0]), r"loads\[1\]"),
                                          (dict(p12=0.9, loads=[0.5, 0.8]), r"`loads\[1\]` = 0.8 is at or past .*`p12` = 0.9")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        r_f3cd.compute(**(dict(seed=0, p12=P12, loads=[0.5], max_jobs=20) | kwargs))
