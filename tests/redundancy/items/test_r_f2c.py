"""R-F2c's item function at a tiny scale, and its verdicts on rows that must agree and must differ."""

import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy.items import r_f2c

UNIT = (1.0, 1.0, 1.0)


def _grid(stable, n_directions=59, example_rows=()):
    """Synthetic grid rows: p12 = k/(n+1), locally stable iff p12 lies in the closed interval `stable`."""
    rows = [dict(p12=k / (n_directions + 1), locally_stable=int(stable[0] <= k / (n_directions + 1) <= stable[1]),
                 example=0) for k in range(1, n_directions + 1)]
    return rows + [dict(p12=p, locally_stable=1, example=1) for p in example_rows]


def test_compute_at_a_tiny_scale_traces_the_region_and_its_cone():
    res = r_f2c.compute(seed=0, speeds=list(UNIT), n_directions=9, examples=[7 / 12, 0.25])
    assert len(res.rows) == 9 + 2 and [r["example"] for r in res.rows] == [0] * 9 + [1, 1]
    assert res.summary["cone"] == pytest.approx([0.4, 0.6])
    inside, outside = res.summary["examples"]
    assert (inside["boundary_rate_12"], inside["boundary_rate_23"]) == pytest.approx((1.75, 1.25))
    assert (outside["boundary_rate_12"], outside["boundary_rate_23"]) == pytest.approx((2 / 3, 2.0))
    assert inside["critical_types"] == "{1,2} {2,3}" and outside["critical_types"] == "{2,3}"
    assert [c.judge() for c in res.claims] == ["agrees"] * 3
    assert "9 directions" in res.figure["caption"] and "[0.4000, 0.6000]" in res.displays[0].caption


def test_lambda_star_inside_the_cone_is_the_mean_speed():
    assert r_f2c.inside_cone_claim(dict(lambda_star=1.0), UNIT).judge() == "agrees"
    assert r_f2c.inside_cone_claim(dict(lambda_star=2.0), (1.0, 2.0, 3.0)).judge() == "agrees"
    assert r_f2c.inside_cone_claim(dict(lambda_star=0.95), UNIT).judge() == "differs"
    assert r_f2c.inside_cone_claim(dict(lambda_star=1.0 + 1e-9), UNIT).judge() == "differs"


def test_lambda_star_outside_the_cone_is_the_face_of_type_23():
    row = dict(p23=0.75, lambda_star=2 / 2.25)
    assert r_f2c.outside_cone_claim(row, UNIT).judge() == "agrees"
    assert r_f2c.outside_cone_claim(dict(row, lambda_star=1.0), UNIT).judge() == "differs"
    # mu_2 + mu_3, not mu_1 + mu_2
    assert r_f2c.outside_cone_claim(dict(row, lambda_star=5 / 2.25), (1.0, 2.0, 3.0)).judge() == "agrees"
    assert r_f2c.outside_cone_claim(dict(row, lambda_star=3 / 2.25), (1.0, 2.0, 3.0)).judge() == "differs"


def test_the_cone_edge_agrees_within_one_grid_step_of_two_thirds():
    claim = r_f2c.cone_edge_claim(_grid((0.34, 0.66)), 59)
    assert claim.ours == pytest.approx(0.65) and claim.judge() == "agrees"
    assert r_f2c.cone_edge_claim(_grid((0.1, 0.666), 199), 199).judge() == "agrees"


def test_the_cone_edge_allows_rounding_when_two_thirds_is_a_grid_point():
    # one step of 1/60 below 2/3, a few ulps further than 1/60 in floating point
    rows = [dict(p12=2 / 3 - (1 / 60) * (1 + 1e-14), locally_stable=1, example=0)]
    assert abs(rows[0]["p12"] - 2 / 3) > 1 / 60
    assert r_f2c.cone_edge_claim(rows, 59).judge() == "agrees"
    # but no more than rounding: 1/2000 beyond the step differs
    rows = [dict(p12=2 / 3 - 1 / 60 - 5e-4, locally_stable=1, example=0)]
    assert r_f2c.cone_edge_claim(rows, 59).judge() == "differs"


def test_the_cone_edge_differs_when_the_cone_reaches_further_or_stops_short():
    assert r_f2c.cone_edge_claim(_grid((0.2, 0.8)), 59).judge() == "differs"
    assert r_f2c.cone_edge_claim(_grid((0.4, 0.6)), 59).judge() == "differs"
    # one grid step finer: 0.65 is now too far from 2/3
    assert r_f2c.cone_edge_claim(_grid((0.34, 0.65), 199), 199).judge() == "differs"


def test_the_cone_ignores_the_example_directions():
    rows = _grid((0.34, 0.66), example_rows=(0.9, 0.05))
    assert r_f2c.cone(rows) == pytest.approx([0.35, 0.65])
    assert r_f2c.cone_edge_claim(rows, 59).judge() == "agrees"


def test_no_locally_stable_direction_names_n_directions():
    with pytest.raises(ParameterError, match="n_directions"):
        r_f2c.cone(_grid((0.9, 0.8)))


@pytest.mark.parametrize("kwargs, name", [(dict(n_directions=0), "n_directions"),
                                          (dict(examples=[0.5]), "examples"),
                                          (dict(examples=[1.2, 0.25]), r"examples\[0\]"),
                                          (dict(examples=[0.5, 1.0]), r"examples\[1\]")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=0, speeds=list(UNIT), n_directions=9, examples=[7 / 12, 0.25]) | kwargs
    with pytest.raises(ParameterError, match=name):
        r_f2c.compute(**args)
