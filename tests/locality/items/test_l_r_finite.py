"""L-R-finite's item function at a tiny scale, and its checks (our own targets) on rows that must
hold and must fail."""

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_r_finite as lrf

CASE = "JSQ(2), load 0.7"


def _row(n, method, value, se=None, case=CASE, policy="gwsq", load=0.7, quantity="mean"):
    return dict(case=case, load=load, policy=policy, N=n, method=method, quantity=quantity, value=value, se=se)


def _point(n, mf, refined, sim, se, case=CASE, policy="gwsq", load=0.7, no_f1=None):
    """The stationary rows of one case and N: mean field, refined, simulation (and refined without f1)."""
    rows = [_row(n, "mean-field", mf, case=case, policy=policy, load=load),
            _row(n, "refined", refined, case=case, policy=policy, load=load)]
    if no_f1 is not None:
        rows.append(_row(n, "refined without f1", no_f1, case=case, policy=policy, load=load))
    return rows + [_row(n, "simulation", sim, se, case=case, policy=policy, load=load)]


# -- target 1, point by point: met / within noise / missed ---------------------------------------
def test_the_target_is_met_when_the_refined_error_is_at_most_a_quarter_of_the_mean_field_error():
    assert lrf.target_verdict(0.4, 0.1, 0.001) == "met"          # exactly a quarter
    assert lrf.target_verdict(0.4, 0.0, 0.0) == "met"


def test_above_a_quarter_the_target_is_within_noise_up_to_3_se_and_missed_beyond():
    assert lrf.target_verdict(0.4, 0.11, 0.05) == "within noise"
    assert lrf.target_verdict(0.5, 0.375, 0.125) == "within noise"   # exactly 3 SE (binary-exact numbers)
    assert lrf.target_verdict(0.4, 0.16, 0.05) == "missed"
    assert lrf.target_verdict(0.4, 0.11, 0.03) == "missed"


def test_target_rows_measure_both_errors_against_simulation_and_flag_resolved_points():
    rows = _point(10, 1.0, 1.24, 1.25, 0.01) + _point(50, 1.0, 1.01, 1.03, 0.01) + _point(100, 1.0, 1.0, 1.5, 0.125)
    t = lrf.target_rows(rows, [dict(case=CASE, policy="gwsq", load=0.7)], [10, 50, 100])
    assert [r["N"] for r in t] == [10, 50, 100]
    assert t[0]["mf_error"] == pytest.approx(0.25) and t[0]["refined_error"] == pytest.approx(0.01)
    assert t[0]["verdict"] == "met" and t[0]["met"] is True and t[0]["resolved"] is True
    # 0.03 = 3 SE: the mean-field error is not resolved (needs more than 4 SE); 0.02 = 2 SE: within noise
    assert t[1]["resolved"] is False and t[1]["verdict"] == "within noise" and t[1]["met"] is False
    # resolved means above 4 SE: 0.5 = 4 x 0.125 exactly is not
    assert t[2]["resolved"] is False and t[2]["verdict"] == "missed"


def _targets(*specs):
    """Rows of the targets table: (load, verdict, resolved) per point."""
    return [dict(case=CASE, policy="gwsq", load=load, N=10 * (k + 1), mf_error=0.2, refined_error=0.1, se=0.01,
                 resolved=resolved, verdict=verdict, met=verdict == "met")
            for k, (load, verdict, resolved) in enumerate(specs)]


def test_target_1_holds_with_met_and_within_noise_points():
    t = _targets((0.7, "met", True), (0.9, "within noise", True), (0.7, "met", False))
    claim = lrf.target_claim(t)
    assert claim.holds is True and claim.category == "check" and claim.label == "internal check"
    assert claim.evidence == "1 of 2 resolved points meet it, 1 within 3 SE, 0 missed; 1 points unresolved"


def test_target_1_fails_when_a_resolved_point_of_load_at_most_0_9_is_missed():
    claim = lrf.target_claim(_targets((0.7, "met", True), (0.9, "missed", True)))
    assert claim.holds is False and claim.judge() == "fails"


@pytest.mark.parametrize("load, resolved", [(0.95, True), (0.95, False), (0.9, False), (0.9000001, True)])
def test_a_missed_point_outside_the_target_does_not_count(load, resolved):
    t = _targets((0.7, "met", True), (load, "missed", resolved))
    assert lrf.target_claim(t).holds is True
    counts = lrf.target_counts(t)
    assert len(counts["high_load"]) == (1 if load > 0.9 and resolved else 0)


def test_target_2_holds_below_one_second_only():
    assert lrf.speed_claim(0.999).holds is True
    assert lrf.speed_claim(1.0).holds is False and lrf.speed_claim(1.0).judge() == "fails"


# -- target 3: second order at N = 10 -------------------------------------------------------------
def test_target_3_is_met_at_a_third_of_the_first_order_error_within_noise_up_to_3_se_and_missed_beyond():
    assert lrf.second_order_verdict(0.375, 0.125, 0.001) == "met"     # exactly a third (binary-exact)
    assert lrf.second_order_verdict(0.3, 0.11, 0.04) == "within noise"
    assert lrf.second_order_verdict(0.3, 0.13, 0.04) == "missed"


def _sweep_point(load, mf, first, second, sim, se):
    case = lrf.sweep_case(load)
    return [_row(10, "mean-field", mf, case=case, load=load), _row(10, "refined", first, case=case, load=load),
            _row(10, "second-order", second, case=case, load=load), _row(10, "simulation", sim, se, case=case, load=load)]


def test_sweep_rows_measure_the_three_errors_and_judge_target_3():
    rows = _sweep_point(0.7, 1.0, 1.1, 1.12, 1.125, 0.001) + _sweep_point(0.9, 2.0, 2.5, 2.75, 3.0, 0.01)
    sweep = lrf.sweep_rows(rows, [0.7, 0.9])
    assert sweep[0]["mf_error"] == pytest.approx(0.125) and sweep[0]["refined_error"] == pytest.approx(0.025)
    assert sweep[0]["second_order_error"] == pytest.approx(0.005) and sweep[0]["ratio"] == pytest.approx(0.2)
    assert sweep[0]["verdict"] == "met" and sweep[0]["resolved"]
    assert sweep[1]["verdict"] == "missed" and sweep[1]["ratio"] == pytest.approx(0.5)
    claim = lrf.second_order_claim(sweep)
    assert claim.holds is False and claim.category == "check"
    assert lrf.second_order_claim(sweep[:1]).holds is True
    with pytest.raises(ParameterError, match="load 0.95"):
        lrf.sweep_rows(rows, [0.95])


def test_the_targets_text_reports_target_3_and_the_terms_where_it_is_not_met():
    rows = _sweep_point(0.7, 1.0, 1.1, 1.12, 1.125, 0.001) + _sweep_point(0.9, 2.0, 2.5, 2.75, 3.0, 0.01)
    text = lrf.targets_text([], [], [], sec6_seconds=0.1, sec6_levels=8, transient_seconds=0.2,
                            sec6_sizes10=(5, 3, 2), sweep=lrf.sweep_rows(rows, [0.7, 0.9]), second_order_seconds=0.25)
    assert "the second-order expansion 0.25 s" in text
    assert "load 0.7: errors 0.12 (mean field), 0.025 (refined), 0.005 (second order), SE 0.001, ratio 0.2, met" in text
    # load 0.9 is missed: the terms 0.5 and 0.25 (factor 2) and the remainder 0.25
    assert "load 0.9: V/N adds 0.5, V₂/N² adds 0.25, and the simulation differs from their sum by 0.25" in text
    assert "factor 2: 0.12" in text and "load 0.7: V/N" not in text


def test_target_3_does_not_hold_without_a_resolved_load():
    # refined error 0.003 = 3 SE: not resolved (needs more than 4 SE)
    sweep = lrf.sweep_rows(_sweep_point(0.7, 1.0, 1.1, 1.1, 1.103, 0.001), [0.7])
    assert not sweep[0]["resolved"] and lrf.second_order_claim(sweep).holds is False


def test_error_summary_takes_the_largest_error_per_n_against_exact_first():
    rows = [_row(2, "mean-field", 1.0), _row(2, "refined", 1.25), _row(2, "second-order", 1.5), _row(2, "exact", 1.5),
            _row(2, "simulation", 9.0, 0.5)] + \
        _point(10, 1.0, 1.1, 1.2, 0.01) + [_row(10, "second-order", 1.15)] + \
        _point(10, 2.0, 2.5, 2.25, 0.02, case="other") + [_row(10, "second-order", 2.25, case="other")]
    cases = [dict(case=CASE, policy="gwsq"), dict(case="other", policy="gwsq")]
    out = {r["N"]: r for r in lrf.error_summary(rows, cases)}
    assert out[2]["against"] == "exact" and out[2]["max_se"] == 0.0 and out[2]["cases"] == 1
    assert out[2]["mean-field_max_error"] == 0.5 and out[2]["second-order_max_error"] == 0.0
    assert out[10]["cases"] == 2 and out[10]["max_se"] == 0.02
    assert out[10]["mean-field_max_error"] == pytest.approx(0.25)
    assert out[10]["refined_max_error"] == pytest.approx(0.25) and out[10]["second-order_max_error"] == pytest.approx(0.05)


# -- the Sec. 6 check at N = 50 -----------------------------------------------------------------
def _symmetric_runs(mean, se, n=30):
    """`n` run means with mean `mean`, standard error `se` and sample skewness exactly 0 (pairs
    mirrored about the mean): Hall's correction is then the identity and the t test is Student's."""
    import math

    import numpy as np

    half = np.linspace(0.2, 2.0, n // 2)
    x = np.concatenate([half, -half])
    return tuple(mean + x * se * math.sqrt(n) / x.std(ddof=1))


def _sec6(n, refined, sim, se):
    return _point(n, 1.0, refined, sim, se, case=lrf.SEC6_CASE, load=0.75)


def _sec6_runs(rows, n_runs=30):
    """The symmetric run means behind each simulated Sec. 6 row of `rows`."""
    return {(r["case"], r["policy"], r["N"]): _symmetric_runs(r["value"], r["se"], n_runs) for r in rows
            if r["method"] == "simulation"}


def test_the_refined_sec6_mean_is_judged_by_a_t_test_on_the_run_means():
    from scipy import stats

    from qtheory.verdicts import FAMILY_LEVEL

    cut = stats.t.isf(FAMILY_LEVEL / 2, 29)              # 30 runs
    rows = _sec6(10, 1.5, 1.0, 0.01) + _sec6(50, 1.3, 1.3 + 0.99 * cut * 0.01, 0.01)
    claim = lrf.refined_vs_simulation_check(rows, [10, 50], _sec6_runs(rows), events_per_run=1000, seed=1)
    assert "$N = 50$" in claim.text and claim.judge() == "holds" and claim.z == pytest.approx(0.99 * cut)
    assert claim.reference_df == 29 and len(claim.reference_runs) == 30 and "30 independent runs" in claim.evidence
    rows = _sec6(10, 1.5, 1.0, 0.01) + _sec6(50, 1.3, 1.3 + 1.01 * cut * 0.01, 0.01)
    assert lrf.refined_vs_simulation_check(rows, [10, 50], _sec6_runs(rows), events_per_run=1000,
                                           seed=1).judge() == "fails"


def test_the_sec6_check_on_fewer_than_30_runs_is_not_resolved():
    rows = _sec6(10, 1.5, 1.0, 0.01) + _sec6(50, 1.3, 1.5, 0.01)            # 20 SE apart
    claim = lrf.refined_vs_simulation_check(rows, [10, 50], _sec6_runs(rows, 10), events_per_run=1000, seed=1)
    assert claim.judge() == "not resolved"
    with pytest.raises(ParameterError, match="`runs`"):
        lrf.refined_vs_simulation_check(rows, [10, 50], {}, events_per_run=1000, seed=1)


def test_the_sec6_check_is_at_n_50_when_it_is_simulated():
    rows = _sec6(10, 1.5, 1.0, 0.01) + _sec6(50, 1.3, 1.3, 0.01) + _sec6(100, 1.5, 1.0, 0.01)
    claim = lrf.refined_vs_simulation_check(rows, [10, 50, 100], _sec6_runs(rows), events_per_run=1000, seed=1)
    assert "$N = 50$" in claim.text and claim.judge() == "holds"


def test_without_n_50_the_sec6_check_takes_the_largest_size_and_names_missing_rows():
    rows = _sec6(10, 1.5, 1.0, 0.01) + _sec6(20, 1.2, 1.2, 0.01)
    claim = lrf.refined_vs_simulation_check(rows, [10, 20], _sec6_runs(rows), events_per_run=1000, seed=1)
    assert "$N = 20$" in claim.text and claim.judge() == "holds"
    with pytest.raises(ParameterError, match="N = 30"):
        lrf.refined_vs_simulation_check(_sec6(10, 1.5, 1.0, 0.01), [10, 30], {}, events_per_run=1000, seed=1)


# -- the error figure and its slopes --------------------------------------------------------------
def test_error_points_use_the_exact_chain_first_and_mark_unresolved_simulation_points():
    rows = [_row(2, "mean-field", 1.0), _row(2, "refined", 1.25), _row(2, "exact", 1.5)] + \
        _point(10, 1.0, 1.1, 1.2, 0.01) + _point(50, 1.0, 1.25, 1.375, 0.125)
    pts = {p["N"]: p for p in lrf.error_points(rows, CASE, "gwsq", "mean-field")}
    assert pts[2]["source"] == "exact" and pts[2]["error"] == pytest.approx(0.5) and pts[2]["marker"] == "s"
    assert pts[10]["resolved"] and pts[10]["marker"] == "o" and pts[10]["y"] == pytest.approx(0.2)
    # 0.375 = 3 SE exactly is not above 3 SE: drawn as an open triangle at 3 SE, without a bar
    assert not pts[50]["resolved"] and pts[50]["marker"] == "v" and pts[50]["yerr"] == 0.0
    assert pts[50]["y"] == 0.375 and pts[50]["error"] == 0.375
    refined = {p["N"]: p for p in lrf.error_points(rows, CASE, "gwsq", "refined")}
    assert set(refined) == {2, 10, 50} and refined[50]["error"] == 0.125 and refined[10]["yerr"] == 0.01


def test_an_exact_point_is_always_resolved_even_without_error():
    rows = [_row(2, "mean-field", 1.0), _row(2, "refined", 1.5), _row(2, "exact", 1.5)]
    (p,) = lrf.error_points(rows, CASE, "gwsq", "refined")
    assert p["error"] == 0.0 and p["resolved"] and p["marker"] == "s"


def test_slopes_fit_the_resolved_points_only_and_need_two_of_them():
    # mean-field error 1/N (slope -1), refined error 1/N^2 at N = 10 only resolved
    rows = []
    for n in (10, 20, 40, 80):
        rows += _point(n, 1.0, 1.0 + 1.0 / n - 1.0 / n ** 2, 1.0 + 1.0 / n, 1e-5 if n == 10 else 1e-3)
    slopes = lrf.slope_rows(rows, [(CASE, "gwsq")])
    assert [s["method"] for s in slopes] == ["mean-field"]
    assert slopes[0]["slope"] == pytest.approx(-1.0) and (slopes[0]["n_min"], slopes[0]["n_max"]) == (10, 80)


def test_local_gap_shares_split_the_resolved_gap_of_local_jsqd_only():
    rows = _point(10, 1.0, 1.08, 1.1, 0.01, policy="jsqd-complete", no_f1=1.12) + \
        _point(50, 1.0, 1.0, 1.5, 0.125, policy="jsqd-complete", no_f1=1.0) + _point(10, 1.0, 1.1, 1.5, 0.01)
    cases = [dict(case=CASE, policy="jsqd-complete"), dict(case=CASE, policy="gwsq")]
    shares = lrf.local_gap_shares(rows, cases, [10, 50])
    assert len(shares) == 1 and shares[0]["N"] == 10       # N = 50: gap of exactly 4 SE is not resolved
    assert shares[0]["refined_share"] == pytest.approx(0.8) and shares[0]["f1_share"] == pytest.approx(-0.4)
    assert shares[0]["no_f1_share"] == pytest.approx(1.2)


def test_the_targets_text_counts_the_points_and_names_the_missed_ones():
    t = _targets((0.7, "met", True), (0.9, "missed", True), (0.7, "within noise", True), (0.95, "met", True))
    text = lrf.targets_text([], t, [], sec6_seconds=0.1, sec6_levels=8, transient_seconds=0.2,
                            sec6_sizes10=(5, 3, 2))
    assert "of the 3 points where the simulation resolves" in text and "1 meet it" in text
    assert "it is missed at JSQ(2), load 0.7 GWSQ(2) N = 20 (ratio 0.50, refined error 10.0 SE)" in text
    assert "at 1 of 1 resolved points" in text and "9,555,975 states" in text


# -- the whole item at a tiny scale ---------------------------------------------------------------
TINY = dict(seed=3, loads=[0.7], n_list=[10, 20], n_runs=3, events_per_run=20_000, sweep_events_per_run=20_000,
            warmup_relaxations=5.0,
            exact_buffers={"0.7": {"2": 12}, "0.95": {"2": 30}}, transient_n_list=[10], transient_runs=4, horizon=0.5,
            n_times=3, reading="lengths-1-3")


def test_compute_at_a_tiny_scale_returns_rows_tables_checks_and_figure():
    res = lrf.compute(**TINY)
    assert {r["method"] for r in res.rows} == {"mean-field", "refined", "second-order", "refined without f1", "exact",
                                               "simulation"}
    assert list(res.tables) == ["transient", "transient_sup", "targets", "sweep", "errors", "slopes"]
    assert len(res.tables["targets"]) == 3 * 2          # 2 JSQ(2) cases and the Sec. 6 one, 2 sizes each
    assert {r["verdict"] for r in res.tables["targets"]} <= {"met", "within noise", "missed"}
    assert len(res.tables["transient"]) == 3 * 2 * 3 and len(res.tables["transient_sup"]) == 2
    assert [c.category for c in res.claims] == ["check"] * 2   # the accuracy targets are tables, not checks
    assert "$N = 20$" in res.claims[0].text               # no N = 50: the largest size
    # the check carries the run means of the simulated row it compares with
    sim, se = lrf.value(res.rows, lrf.SEC6_CASE, "gwsq", 20, "simulation")
    check = res.claims[0]
    assert len(check.reference_runs) == TINY["n_runs"] and check.reference == pytest.approx(sim)
    assert check.reference_se == pytest.approx(se)
    assert res.summary["target_points_resolved"] == len(lrf.target_counts(res.tables["targets"])["resolved"])
    assert len(res.figure["panels"]) == 2 and len(res.figure["transient_band"]) == 3 * 2 * 3
    # the Sec. 6 sweep: one case per load, simulated at N = 10 only
    assert [(r["load"], r["N"]) for r in res.tables["sweep"]] == [(0.7, 10)]
    assert {r["N"] for r in res.rows if r["case"] == lrf.sweep_case(0.7)} == {10}
    assert [r["N"] for r in res.tables["errors"]] == [2, 10, 20]
    assert all(r["second_order_error"] is not None for r in res.tables["targets"])
    exact = [r for r in res.rows if r["method"] == "exact" and r["quantity"] == "mean"]
    # both policies at load 0.7; the buffers of a load that is not run are ignored
    assert {(r["N"], r["buffer"]) for r in exact} == {(2, 12)} and len(exact) == 2
    assert len(res.displays) == 3 and "Target 1" in res.text


def test_at_30_runs_the_sec6_check_is_judged_by_the_t_test():
    """30 short runs a point (the fewest a t test judges): the check's run means pass their checks
    and its p-value joins the page's family, at a fixed seed."""
    from qtheory.verdicts import judge

    res = lrf.compute(**(TINY | dict(n_runs=30, events_per_run=10_000, sweep_events_per_run=10_000)))
    check = res.claims[0]
    verdict = judge(res.claims).verdicts[0]
    assert len(check.reference_runs) == 30 and verdict.comparison.testable and verdict.threshold is not None
    assert verdict.label == "holds"


@pytest.mark.parametrize("change, name", [(dict(loads=[1.0], exact_buffers={}), "lie in"), (dict(n_list=[]), "n_list"),
                                          (dict(sweep_events_per_run=0), "sweep_events_per_run"),
                                          # the reader's names, not the derived t_eval / n_replications / warmup
                                          (dict(n_runs=1), "`n_runs` must be >= 2"),
                                          (dict(transient_runs=0), "`transient_runs` must be >= 2"),
                                          (dict(events_per_run=0), "`events_per_run` must be >= 1"),
                                          (dict(horizon=0.0), "`horizon` must be > 0"),
                                          (dict(n_times=1), "`n_times` must be >= 2")])
def test_compute_names_a_wrong_parameter(change, name):
    with pytest.raises(ParameterError, match=name):
        lrf.compute(**(TINY | change))


def test_the_exact_chain_kept_on_disk_is_the_one_solved(tmp_path, monkeypatch):
    from qtheory.locality.exact import occupancy_stationary

    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))
    system = lrf._homogeneous(0.7)
    for policy in lrf.ANALYSED.values():
        law = occupancy_stationary(system, 3, policy=policy, buffer=6)
        for _ in range(2):                      # solved, then loaded
            kept = lrf.exact_law(system, 3, policy, 6)
            assert kept["occupancy"].tobytes() == law.occupancy.tobytes()
            assert kept["mean_queue_length"].tobytes() == law.mean_queue_length.tobytes()
            assert (kept["boundary_mass"], kept["n_states"]) == (law.boundary_mass, law.n_states)
    # the two policies' chains differ, and each has a file of its own
    assert len(list(tmp_path.rglob("*.npz"))) == 2
