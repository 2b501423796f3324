"""U-F3's item function at a tiny scale, and its records on inputs that must agree and must differ."""

import math

import pytest

from qtheory.errors import ParameterError
from qtheory.utility import PiecewiseLinearUtility, PoolSystem, class_change_loads, figure3_right_system
from qtheory.utility.items import u_f3


def test_the_segment_route_finds_the_stated_breakpoints_of_our_right_panel_utilities():
    assert u_f3.segment_breakpoints(figure3_right_system(), 10.0) == pytest.approx([1.25, 6.25, 7.5], abs=1e-12)


def test_the_segment_route_stops_at_rho_max_and_merges_consecutive_segments_of_one_class():
    # slopes 5 and 4.5 (class 1, masses 1 and 0.5), then 4 (class 2, mass 2), then class 1's -1
    system = PoolSystem((PiecewiseLinearUtility((5.0, 4.5, -1.0), (2.0, 3.0)), PiecewiseLinearUtility((4.0, -2.0), (4.0,))),
                        (0.5, 0.5), 1.0)
    assert u_f3.segment_breakpoints(system, 10.0) == pytest.approx([1.5, 3.5])
    assert u_f3.segment_breakpoints(system, 2.0) == pytest.approx([1.5])
    assert u_f3.segment_breakpoints(figure3_right_system(), 7.0) == pytest.approx([1.25, 6.25])
    assert u_f3.segment_breakpoints(figure3_right_system(), 6.0) == pytest.approx([1.25])
    assert u_f3.segment_breakpoints(figure3_right_system(), 1.0) == []
    # a breakpoint at rho_max itself is beyond the range, as for class_change_loads
    assert u_f3.segment_breakpoints(figure3_right_system(), 6.25) == pytest.approx([1.25])
    assert class_change_loads(figure3_right_system(), 6.25) == pytest.approx([1.25])


def test_breakpoint_checks_hold_when_both_routes_agree_and_fail_otherwise():
    same = u_f3.breakpoint_checks([1.25, 6.25, 7.5], [1.25, 6.25, 7.5])
    assert [c.judge() for c in same] == ["holds"] * 3
    off = u_f3.breakpoint_checks([1.25, 6.25, 7.5], [1.25, 6.25 + 1e-9, 7.5])
    assert [c.judge() for c in off] == ["holds", "fails", "holds"]
    missing = u_f3.breakpoint_checks([1.25, 6.25, 7.5], [1.25, 6.25])
    assert [c.judge() for c in missing] == ["holds", "holds", "fails"] and missing[2].holds is False
    assert "breakpoint 3 from the ranking" in missing[2].text


def test_the_reconstruction_reproduces_the_text_only_with_the_stated_breakpoints():
    ok = u_f3.reconstruction_claim([1.25, 6.25, 7.5])
    assert ok.category == "reconstruction" and ok.verdict.startswith("reproduces") and ok.ours == 0.0
    moved = u_f3.reconstruction_claim([1.25, 6.5, 7.5])
    assert moved.verdict.startswith("does not reproduce") and moved.ours == pytest.approx(0.25)
    short = u_f3.reconstruction_claim([1.25, 6.25])
    assert short.verdict.startswith("does not reproduce") and short.ours is None
    extra = u_f3.reconstruction_claim([1.25, 6.25, 7.5, 9.0])
    assert extra.verdict.startswith("does not reproduce") and extra.ours is None


def _rows(values_by_class, rhos):
    return [{"panel": "right", "rho": r, "cls": c, "tasks_per_pool": v[k]}
            for k, r in enumerate(rhos) for c, v in values_by_class.items()]


def test_growing_classes_names_the_classes_that_increase_inside_the_interval():
    rhos = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    rows = _rows({1: [0, 0, 0, 1, 2, 3], 2: [1, 2, 3, 3, 3, 3]}, rhos)
    assert u_f3.growing_classes(rows, "right", 0.0, 1.75) == [2]
    assert u_f3.growing_classes(rows, "right", 1.75, 3.5) == [1]
    assert u_f3.growing_classes(rows, "right", 0.0, 3.5) == [1, 2]
    # a flat class, or a rise only at the interval's edges, is not growing
    assert u_f3.growing_classes(rows, "right", 2.1, 2.9) == []


def test_growing_classes_leaves_out_the_loads_next_to_the_interval_ends_and_rounding():
    rows = _rows({1: [0.0, 0.0, 1.0], 2: [0.0, 1e-12, 2e-12], 3: [0.0, 1e-13, 2e-13]}, [0.96, 1.0, 1.04])
    # class 1 rises between 1.0 and 1.04, within EDGE_MARGIN of the end 1.06
    assert u_f3.growing_classes(rows, "right", 0.9, 1.06) == []
    assert u_f3.growing_classes(rows, "right", 0.9, 1.10) == [1]
    # rises of at most GROWTH_FLOOR are rounding
    assert u_f3.GROWTH_FLOOR == 1e-12
    assert u_f3.growing_classes(rows, "right", 0.9, 1.5) == [1]


def test_left_ratios_and_class_edges():
    rows = [{"panel": "left", "cls": c, "tasks_per_pool": t} for t in (1.0, 2.0) for c in (1, 2, 3)]
    assert u_f3.left_ratios(rows) == pytest.approx([2.0 / 2, 2.0 / 4, 2.0 / 6])
    cols = [{"cls": c} for c in (1, 1, 2, 3, 3)]
    assert u_f3.class_edges(cols) == [1.5, 2.5]


def test_compute_at_a_tiny_scale_returns_rows_tables_records_and_figure():
    res = u_f3.compute(seed=0, rho_max=10.0, n_points=41, column_rhos=[2.0, 8.0], column_pools=12)
    assert len(res.rows) == 2 * 3 * 41 and len(res.tables["columns"]) == 2 * 2 * 12
    assert res.summary["breakpoints_found"] == pytest.approx([1.25, 6.25, 7.5])
    assert res.summary["left_ratios_at_rho_max"] == pytest.approx([2.5] * 3, abs=0.01)
    assert [c.judge() for c in res.claims] == ["agrees"] + ["holds"] * 3 + [res.claims[4].verdict]
    assert res.claims[0].source == "Sec. 2.3.1, Fig. 3 (left)"
    assert res.claims[4].verdict.startswith("reproduces")
    assert res.figure["class_edges"] == {"left": [3.5, 7.5], "right": [2.5, 5.5]}
    assert "growing class(es) 3" in res.text and math.isclose(res.claims[4].ours, 0.0, abs_tol=1e-12)


@pytest.mark.parametrize("kwargs, name", [(dict(rho_max=-1.0), "rho_max"), (dict(n_points=1), "n_points"),
                                          (dict(column_pools=0), "column_pools"), (dict(column_rhos=[]), "column_rhos"),
                                          # thirds: 2 pools do not split (named as the reader set it, not `n`)
                                          (dict(column_pools=2), "`column_pools` = 2 does not split"),
                                          (dict(column_rhos=[2.0, 0.0]), r"column_rhos\[1\]")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=0, rho_max=10.0, n_points=11, column_rhos=[2.0], column_pools=12) | kwargs
    with pytest.raises(ParameterError, match=name):
        u_f3.compute(**args)


def test_the_left_panel_statement_holds_for_any_concave_g_and_fails_when_pools_leave_their_share():
    system = u_f3.figure3_left_system()
    rows = [{"panel": "left", "rho": 4.0, "cls": c, "tasks_per_pool": r * 4.0 / 4.0 + 0.4}
            for c, r in enumerate((2.0, 4.0, 6.0), start=1)]
    assert u_f3.proportional_claim(rows, system).judge() == "agrees"
    rows[2]["tasks_per_pool"] = 6.0 + 1.0          # one task away from r(3)/c
    assert u_f3.proportional_claim(rows, system).judge() == "differs"
