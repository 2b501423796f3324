"""L-F3's item function at a tiny scale, and its verdicts on rows that must agree and must differ."""

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_f3


def _rows(ends, t_final=30.0):
    """Synthetic L-F3 rows: one start per entry of `ends` (its q1 at t_final), fixed point 0.5."""
    rows = []
    for k, end in enumerate(ends):
        rows.append(dict(initial=f"Q{k}", reading="lengths-1-3", server_type=1, t=0.0, q1=0.9, fixed_point=0.5))
        rows.append(dict(initial=f"Q{k}", reading="lengths-1-3", server_type=1, t=t_final, q1=end, fixed_point=0.5))
    return rows


def test_final_distance_is_the_largest_gap_at_the_last_time_only():
    assert l_f3.final_distance(_rows([0.5, 0.50002, 0.49997]), 30.0) == pytest.approx(3e-5)
    with pytest.raises(ParameterError, match="t_final"):
        l_f3.final_distance(_rows([0.5]), 29.0)


def test_the_same_limit_claim_agrees_when_every_start_ends_at_the_fixed_point():
    claim = l_f3.same_limit_claim(l_f3.final_distance(_rows([0.5, 0.50005, 0.49996]), 30.0), 30.0)
    assert claim.holds is True and claim.judge() == "agrees" and claim.category == "claim"
    assert "largest distance to the root-solved $q^*$ at the end 5 × 10⁻⁵" in claim.evidence


@pytest.mark.parametrize("ends", [[0.5, 0.5002, 0.5], [0.5, 0.5, 0.4998], [0.5, 0.5, 0.5 + 1.0001e-4]])
def test_the_same_limit_claim_differs_when_one_start_ends_away_from_it(ends):
    claim = l_f3.same_limit_claim(l_f3.final_distance(_rows(ends), 30.0), 30.0)
    assert claim.holds is False and claim.judge() == "differs"


def test_the_criterion_is_strict_at_the_tolerance():
    assert l_f3.same_limit_claim(l_f3.LIMIT_TOLERANCE, 30.0).holds is False
    assert l_f3.reading_reconstruction(l_f3.LIMIT_TOLERANCE).judge().startswith("the starts end")


def test_the_reading_reconstruction_says_whether_the_limit_depends_on_the_reading():
    assert l_f3.reading_reconstruction(2e-6).judge() == "the limit does not depend on the reading"
    far = l_f3.reading_reconstruction(3e-4)
    assert far.judge().startswith("the starts end 3 × 10⁻⁴ apart") and far.category == "reconstruction"


def test_compute_at_a_tiny_scale_returns_rows_claims_and_figure():
    res = l_f3.compute(seed=0, horizon=30.0, n_times=4)
    assert len(res.rows) == 3 * 2 * 3 * 4 and res.seed is None
    assert {(r["initial"], r["reading"]) for r in res.rows} == {(i, r) for i in l_f3.INITIALS for r in l_f3.READINGS}
    # at t = 30 every start has reached the root-solved fixed point (the paper's Fig. 3)
    assert res.claim("same limit").holds is True
    assert res.summary["max_final_distance"] < 1e-4 and res.summary["root_residual"] < 1e-8
    assert res.figure["fixed_point_q1"] == pytest.approx(list(res.summary["fixed_point_q1"]))
    assert "up to $t = 30$" in res.figure["caption"]
    # a short horizon has not reached the limit: the claim is judged on the data, not fixed
    assert l_f3.compute(seed=0, horizon=0.5, n_times=3).claim("same limit").holds is False


@pytest.mark.parametrize("kwargs, name", [(dict(horizon=0.0, n_times=5), "horizon"), (dict(horizon=1.0, n_times=1), "n_times")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        l_f3.compute(**kwargs)


def test_the_legend_speaks_words_and_the_time_ticks_stop_at_the_horizon():
    assert l_f3.series_label("Q1", "lengths-0-2") == "start $Q_{1}$, queue lengths 0, 1, 2"
    assert l_f3.series_label("Q", "lengths-1-3") == "start $Q$, queue lengths 1, 2, 3"
    assert l_f3.time_ticks(30.0) == [0, 1, 3, 10, 30] and l_f3.time_ticks(5.0) == [0, 1, 3]
