"""L-R-jiq's item function at a tiny scale, and its check on rows that must hold and must fail."""

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_r_jiq

LOADS = [0.5, 0.9]


def _rows(means, half=0.01):
    """Synthetic rows: means[policy] = mean queue length at each load of LOADS, 95% half-width `half`."""
    return [dict(load=load, policy=p, mean_queue_length=m[i], low=m[i] - half, high=m[i] + half)
            for p, m in means.items() for i, load in enumerate(LOADS)]


CLEAR = {"JIQ": [0.4, 1.0], "local JSQ(2)": [0.6, 2.0], "GWSQ(2)": [0.6, 2.0], l_r_jiq.RANDOM: [1.0, 9.0]}


def test_jiq_beats_random_when_its_intervals_lie_below_at_every_load():
    claim = l_r_jiq.beats_random_claim(_rows(CLEAR), LOADS, 500)
    assert claim.holds is True and claim.category == "check" and claim.judge() == "holds"
    assert claim.label == "internal check"
    assert claim.evidence == "loads 0.5 and 0.9, $N = 500$"  # prose, not a Python list


@pytest.mark.parametrize("jiq", [[0.4, 9.0], [0.4, 8.5], [1.5, 1.0], [0.75, 1.0]])
def test_jiq_does_not_beat_random_when_the_intervals_overlap_or_cross_at_one_load(jiq):
    # half-widths 0.25: [0.4, 8.5] touches random's interval at load 0.9 (8.5 + 0.25 = 9 - 0.25), which is not
    # disjoint; [0.75, 1.0] overlaps it at load 0.5
    claim = l_r_jiq.beats_random_claim(_rows({**CLEAR, "JIQ": jiq}, half=0.25), LOADS, 500)
    assert claim.holds is False and claim.judge() == "fails"


def test_loads_below_needs_disjoint_intervals_in_the_right_direction():
    rows = _rows({**CLEAR, "JIQ": [0.4, 2.0], "local JSQ(2)": [0.6, 1.0]})
    assert l_r_jiq.loads_below(rows, LOADS, "JIQ", "local JSQ(2)") == [0.5]
    assert l_r_jiq.loads_below(rows, LOADS, "local JSQ(2)", "JIQ") == [0.9]
    # equal means: neither below
    assert l_r_jiq.loads_below(_rows({"A": [1.0, 1.0], "B": [1.0, 1.0]}), LOADS, "A", "B") == []
    # intervals that touch at one point are not disjoint (exact binary values: 1 + 0.25 = 1.5 - 0.25)
    assert l_r_jiq.loads_below(_rows({"A": [1.0, 1.0], "B": [1.5, 1.75]}, half=0.25), LOADS, "A", "B") == [0.9]


def test_the_comparison_text_names_better_and_worse_loads():
    rows = _rows({**CLEAR, "JIQ": [0.4, 2.0], "local JSQ(2)": [0.6, 1.0]})
    text = l_r_jiq.comparison_text(rows, LOADS, False)
    assert "**no**" in text and "0.67 at load 0.5, 2.00 at load 0.9" in text
    assert "better than local JSQ(2) at load 0.5 and worse at load 0.9" in text
    assert "at no load and worse at no load" in l_r_jiq.comparison_text(_rows({"JIQ": [1, 1], "local JSQ(2)": [1, 1]}),
                                                                          LOADS, True)
    assert "better than local JSQ(2) at loads 0.5 and 0.9 and worse at no load" in l_r_jiq.comparison_text(
        _rows(CLEAR), LOADS, True)


def test_policy_row_names_a_missing_load():
    with pytest.raises(ParameterError, match="load"):
        l_r_jiq.policy_row(_rows(CLEAR), 0.7, "JIQ")


def test_compute_at_a_tiny_scale_returns_rows_check_and_figure():
    res = l_r_jiq.compute(seed=5, n_servers=30, loads=[0.5, 0.8], n_runs=3, warmup=1.0, horizon=6.0)
    assert [(r["load"], r["policy"]) for r in res.rows] == [(load, p) for load in (0.5, 0.8)
                                                            for p in res.figure["policies"]]
    for r in res.rows:
        assert r["low"] <= r["mean_queue_length"] <= r["high"] and r["events"] > 0 and r["runs"] == 3
    assert len(res.claims) == 1 and res.claims[0].holds in (True, False)
    assert "N$ = 30 servers (95% CIs over 3 runs" in res.figure["caption"]
    assert "JIQ / local JSQ(2) mean queue length" in res.text


@pytest.mark.parametrize("kwargs, name", [(dict(loads=[0.5, 1.0]), "loads"), (dict(loads=[0.0]), "loads"),
                                          (dict(loads=[0.5, 0.5]), "loads"), (dict(warmup=7.0), "warmup"),
                                          (dict(warmup=6.0), "warmup"), (dict(warmup=0.0), "warmup")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=5, n_servers=30, loads=[0.5], n_runs=2, warmup=1.0, horizon=6.0) | kwargs
    with pytest.raises(ParameterError, match=name):
        l_r_jiq.compute(**args)
