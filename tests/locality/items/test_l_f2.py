"""L-F2's item function at a tiny scale, and its verdict on rows that must agree and must differ."""

import re

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_f2


def _drops(early_by_type, level_of_change=None):
    """Synthetic occupancy_drops rows: type m falls early_by_type[level][m] by t = 0.1."""
    rows = []
    for m in range(3):
        for lv in (1, 2):
            drop = early_by_type[lv][m]
            rows.append(dict(server_type=m + 1, level=lv, start=0.9, t_early=0.1, at_early=0.9 - drop, end=0.2,
                             early_drop=drop, total_drop=0.7 - 0.1 * m))
    return rows


TYPE1_FASTEST = {1: [0.5, 0.2, 0.1], 2: [0.4, 0.3, 0.1]}
TYPE2_FASTEST_AT_LEVEL2 = {1: [0.5, 0.2, 0.1], 2: [0.3, 0.4, 0.1]}


def test_the_remark_holds_when_type_1_falls_fastest_at_both_levels_in_simulation_and_ode():
    claim = l_f2.fastest_fall_claim(_drops(TYPE1_FASTEST), _drops(TYPE1_FASTEST), 1000)
    assert claim.holds is True and claim.judge() == "agrees" and claim.source == l_f2.SOURCE
    assert "$q_{1,1}$ falls fastest at first" in claim.evidence


@pytest.mark.parametrize("sim, ode", [(TYPE2_FASTEST_AT_LEVEL2, TYPE1_FASTEST),
                                      (TYPE1_FASTEST, TYPE2_FASTEST_AT_LEVEL2)])
def test_the_remark_differs_when_another_type_falls_fastest_in_simulation_or_ode(sim, ode):
    claim = l_f2.fastest_fall_claim(_drops(sim), _drops(ode), 1000)
    assert claim.holds is False and claim.judge() == "differs"


def test_fastest_takes_the_largest_drop_at_the_level():
    rows = _drops(TYPE2_FASTEST_AT_LEVEL2)
    assert l_f2.fastest(rows, 1, "early_drop")["server_type"] == 1
    assert l_f2.fastest(rows, 2, "early_drop")["server_type"] == 2


def test_compute_at_a_tiny_scale_returns_rows_claim_and_figure():
    res = l_f2.compute(seed=3, n_list=[20, 40], n_runs=3, horizon=0.4, n_times=5, reading="lengths-1-3")
    sim = [r for r in res.rows if r["method"] == "sim"]
    assert len(sim) == 2 * 3 * 2 * 5 and len(res.rows) == len(sim) + 2 * 3 * 2 * 5
    for r in sim:
        assert r["ci_low"] <= r["mean"] <= r["ci_high"] and 0.0 <= r["mean"] <= 1.0
    assert len(res.claims) == 3 and all(c.holds in (True, False) for c in res.claims[1:])
    # the main statement is judged with its noise: a tested record (3 runs: too few to judge)
    assert res.claims[0].tested and "approach the ODE" in res.claims[0].text and "own words" in res.claims[1].text
    assert "at least 30" in res.claims[0].assumption_failure and res.claims[0].judge() == "not resolved"
    # one sentence, two readings: the paper's own words first (the verdict rests on it), the ranking beside
    assert [c.reading for c in res.claims[1:]] == ["in the paper's own words", "as a ranking of the types"]
    from qtheory.claimpages import verdict_box

    box = verdict_box([{"id": "L-F2", "claims": [c.to_json() for c in res.claims]}])
    heads = [x.split("\n")[0] for x in box.splitlines() if x.startswith("- ")]
    assert sum(h.count("Read in the paper's own words: ") for h in heads) == 1
    assert sum(h.count("Read as a ranking of the types instead") for h in heads) == 1
    assert set(res.summary["max_abs_gap_mean_vs_ode"]) == {"20", "40"}
    assert set(res.summary["run_distance_mean"]) == {"20", "40"}
    assert "$N = 20, 40$" in res.figure["caption"]
    # the ODE rows are the mean-field solution at t = 0: the initial matrix Q
    ode0 = [r["mean"] for r in res.rows if r["method"] == "ode" and r["t"] == 0.0]
    assert np.all(np.array(ode0) >= 0)


def test_compute_names_a_wrong_graph_reading():
    with pytest.raises(ParameterError, match="irg_graphs"):
        l_f2.compute(seed=3, n_list=[20], n_runs=2, horizon=0.4, n_times=5, reading="lengths-1-3", irg_graphs="two")


def _log_symmetric(center, spread=0.1, n=40, reverse=False):
    """`n` positive run values whose logarithms are symmetric about log(`center`) (skewness 0);
    `reverse` lists them in reverse order, so that two samples paired by index, one reversed,
    differ by values symmetric about the difference of their centres (not by a constant)."""
    from scipy import stats

    half = stats.norm.ppf((np.arange(1, n // 2 + 1) - 0.5) / n + 0.5)
    x = np.exp(np.log(center) + spread * np.concatenate([half, -half]))
    return x[::-1] if reverse else x


@pytest.mark.parametrize("centers, label", [
    ((0.30, 0.13, 0.094), "agrees"),     # falls at both steps
    ((0.30, 0.13, 0.16), "differs"),     # rises from 500 to 1000 (ratio 0.81, far beyond the noise)
    ((0.30, 0.13, 0.129), "not resolved"),  # a step of 1%: the noise cannot show it
])
def test_the_main_statement_is_judged_with_the_noise_of_the_runs_distances(centers, label):
    distances = {n: _log_symmetric(c, reverse=n == "500") for n, c in zip(("100", "500", "1000"), centers)}
    claim = l_f2.convergence_claim(distances)
    assert claim.tested and claim.source == l_f2.SOURCE and claim.judge() == label
    assert "approach the ODE" in claim.text and "$N = 500$ over $N = 1000$" in claim.evidence


def test_the_evidence_places_the_mean_paths_distance_against_its_noise():
    distances = {n: _log_symmetric(c) for n, c in (("100", 0.3), ("500", 0.13))}
    bound = l_f2.noise_bound(156)
    claim = l_f2.convergence_claim(distances, {"100": (0.032, 0.0125, 2.56), "500": (0.06, 0.01, 6.0)}, points=156)
    assert "0.032 ± 0.013 at $N = 100$ (2.6 standard errors)" in claim.evidence
    assert f"exceeds {bound:.1f} standard errors at most 5% of the time" in claim.evidence
    assert "at $N$ = 100 the mean path is within that noise" in claim.evidence
    assert "at $N$ = 500 it is beyond it" in claim.evidence
    with pytest.raises(ParameterError, match="`points`"):
        l_f2.convergence_claim(distances, {"100": (0.03, 0.01, 3.0), "500": (0.02, 0.01, 2.0)})
    with pytest.raises(ParameterError, match="two sizes or more"):
        l_f2.convergence_claim({"100": distances["100"]})


def test_the_noise_bound_is_bonferronis_normal_quantile():
    from scipy import stats

    assert l_f2.noise_bound(156) == pytest.approx(stats.norm.isf(0.05 / 312), rel=1e-12)
    assert l_f2.noise_bound(1, level=0.05) == pytest.approx(1.959964, rel=1e-6)


def test_a_runs_distance_is_its_largest_over_times_types_and_levels():
    ode = np.zeros((2, 3, 2))
    runs = np.zeros((2, 2, 3, 2))
    runs[0, 1, 2, 1] = -0.4      # run 0: largest |deviation| 0.4 (below the ODE counts too)
    runs[0, 0, 0, 0] = 0.1
    runs[1, 0, 1, 0] = 0.25
    np.testing.assert_allclose(l_f2.run_distances(runs, ode), [0.4, 0.25])


def test_the_mean_paths_distance_is_read_with_its_standard_error_where_it_is_largest():
    mean = np.array([[0.1, -0.5], [0.2, 0.0]])
    se = np.array([[0.1, 0.2], [0.05, 0.3]])
    assert l_f2.mean_path_distance(mean, se, np.zeros((2, 2))) == pytest.approx((0.5, 0.2, 2.5))


def _net_falls(falls):
    return [dict(server_type=m, level=lv, start=1.0, end=1.0 - f, early_drop=f / 10, total_drop=f)
            for (m, lv), f in falls.items()]


def test_the_fast_decay_statement_in_the_papers_words_is_about_type_1_itself():
    falls = {(1, 1): 0.25, (1, 2): 0.35, (2, 1): 0.17, (2, 2): -0.05, (3, 1): 0.27, (3, 2): -0.3}
    assert l_f2.own_fall_claim(_net_falls(falls), 1000).judge() == "agrees"
    # level 2 not the larger fall of type 1, or another type's level 2 falling more: differs
    assert l_f2.own_fall_claim(_net_falls({**falls, (1, 2): 0.2}), 1000).judge() == "differs"
    assert l_f2.own_fall_claim(_net_falls({**falls, (3, 2): 0.4}), 1000).judge() == "differs"


@pytest.mark.parametrize("name, value, words", [
    ("n_runs", 1, "`n_runs` must be >= 2"), ("n_times", 1, "`n_times` must be >= 2"),
    ("horizon", 0.025, "`horizon` must be a number >= 0.1"), ("horizon", 0.0, "`horizon`"),
])
def test_compute_refuses_in_the_readers_words(name, value, words):
    """The reader's parameter is named, not a derived one (`early`, `t_eval`, `n_replications`)."""
    params = dict(seed=1, n_list=[20], n_runs=2, horizon=0.5, n_times=6, reading="lengths-1-3")
    params[name] = value
    with pytest.raises(ParameterError, match=re.escape(words)):
        l_f2.compute(**params)
