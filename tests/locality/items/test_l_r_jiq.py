"""L-R-jiq's item function at a tiny scale, its check on rows that must hold and must fail, and the
stability check before each stationary mean (policy_stability, drift_check)."""

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_r_jiq

LOADS = [0.5, 0.9]


def _rows(means, half=0.01):
    """Synthetic rows: means[policy] = mean queue length at each load of LOADS, 95% half-width `half`."""
    return [dict(load=load, policy=p, mean_queue_length=m[i], ci_low=m[i] - half, ci_high=m[i] + half)
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
        assert r["ci_low"] <= r["mean_queue_length"] <= r["ci_high"] and r["events"] > 0 and r["runs"] == 3
    assert len(res.claims) == 1 and res.claims[0].holds in (True, False)
    assert "N$ = 30 servers (95% CIs over 3 runs" in res.figure["caption"]
    assert "JIQ / local JSQ(2) mean queue length" in res.text


@pytest.mark.parametrize("kwargs, name", [(dict(loads=[0.5, 1.0]), "loads"), (dict(loads=[0.0]), "loads"),
                                          (dict(loads=[0.5, 0.5]), "loads"), (dict(warmup=7.0), "warmup"),
                                          (dict(warmup=6.0), "`warmup` must be shorter than `horizon`"),
                                          (dict(horizon=0.5), "`warmup` must be shorter than `horizon`"),
                                          (dict(warmup=0.0), "warmup")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=5, n_servers=30, loads=[0.5], n_runs=2, warmup=1.0, horizon=6.0) | kwargs
    with pytest.raises(ParameterError, match=name):
        l_r_jiq.compute(**args)


# -- stability before stationarity ---------------------------------------------------------------------------

import dataclasses  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402

from qtheory.locality.model import paper_system  # noqa: E402
from qtheory.locality.policies import GWSQ, JIQ, LocalJSQ  # noqa: E402
from qtheory.locality.stability import PolicyStability, policy_stability, type_loads  # noqa: E402


def _design(load):
    """The Sec. 6 system at `load` = lambda zeta / sum_m v_m u_m, as compute builds it."""
    base = paper_system("design")
    return dataclasses.replace(base, arrival_rate=load * base.capacity / base.zeta)


@pytest.mark.parametrize("load, rho", [(0.85, 1.0293), (0.92, 1.1141)])
@pytest.mark.parametrize("policy", [1, LocalJSQ(d=1)])
def test_random_routing_is_unstable_at_loads_085_and_092_because_type_2_is_overloaded(load, rho, policy):
    s = policy_stability(_design(load), policy)
    assert isinstance(s, PolicyStability)
    assert s.stable is False and s.known and s.policy == "random routing"
    assert s.load == pytest.approx(rho, abs=1e-4) and s.critical_types == (2,)
    # the load of (5.2) with d = 1 at one type is the random-routing load of that type (3.1)
    assert s.load == pytest.approx(type_loads(_design(load))[1], rel=1e-12)
    assert s.reason == f"random routing loads type-2 servers at {rho:.3f} ≥ 1 (Lemma 10, eq. (5.2) with d = 1)"


@pytest.mark.parametrize("load", [0.5, 0.85, 0.92])
@pytest.mark.parametrize("policy, name", [(2, "local JSQ(2)"), (LocalJSQ(d=2), "local JSQ(2)"),
                                          (LocalJSQ(), "local JSQ(2)"), (GWSQ(d=2), "GWSQ(2)"), ("gwsq", "GWSQ(2)")])
def test_jsq2_and_gwsq2_are_stable_at_every_load_of_the_page(load, policy, name):
    s = policy_stability(_design(load), policy)
    # with d = 2 the design p^1 loads every set of types at most as much as all servers: rho = the load
    assert s.stable is True and s.policy == name and s.load == pytest.approx(load, rel=1e-12)
    assert s.critical_types == (1, 2, 3) and "< 1" in s.reason and "Lemma 10" in s.reason


def test_random_routing_is_stable_at_load_05():
    s = policy_stability(_design(0.5), 1)
    assert s.stable is True and s.load == pytest.approx(0.6055, abs=1e-4) and s.critical_types == (2,)
    assert "0.605 < 1" in s.reason


@pytest.mark.parametrize("policy", [JIQ(), "jiq"])
def test_jiq_has_no_known_condition_and_is_unstable_only_without_capacity(policy):
    s = policy_stability(_design(0.92), policy)
    assert s.stable is None and not s.known and math.isnan(s.load) and s.critical_types == ()
    assert "no stability condition is known for JIQ" in s.reason
    over = policy_stability(_design(1.1), policy)  # (2.1) fails: no policy is stable
    assert over.stable is False and over.load == pytest.approx(1.1) and "(2.1)" in over.reason


@pytest.mark.parametrize("args, name", [(("design", 1), "system"), ((None, 0), "policy"), ((None, 1.5), "policy"),
                                        ((None, True), "policy"), ((None, "no-such-policy"), "policy")])
def test_policy_stability_names_a_wrong_parameter(args, name):
    system = _design(0.5) if args[0] is None else args[0]
    with pytest.raises(ParameterError, match=name):
        policy_stability(system, args[1])


def test_drift_check_flags_growth_keeps_noise_and_a_small_settling_drift():
    grow = l_r_jiq.drift_check([1.0, 1.1, 0.9], [3.0, 3.3, 2.8])
    assert grow["significant"] and grow["drifting"] and grow["drift"] == pytest.approx(2.0333, abs=1e-4)
    noise = l_r_jiq.drift_check([1.0, 1.1, 0.9], [1.05, 0.95, 0.98])
    assert not noise["significant"] and not noise["drifting"] and noise["drift_ci_low"] < 0 < noise["drift_ci_high"]
    # significant, but 1% of the mean: inside the book's 5% margin, the mean stays
    small = l_r_jiq.drift_check([1.0, 1.1, 0.9], [1.01, 1.111, 0.909])
    assert small["significant"] and not small["drifting"]
    assert l_r_jiq.drift_check([1.0], [1.0])["drifting"]  # one run: no interval, nothing established
    with pytest.raises(ParameterError, match="first"):
        l_r_jiq.drift_check([1.0, 2.0], [1.0])


def test_a_stationary_replication_with_halves_is_the_same_run_plus_the_two_halves():
    from qtheory.locality.experiments import stationary_replication

    system = _design(0.75)
    ref = stationary_replication(np.random.SeedSequence(3), system, 20, "irg", 1.0, 5.0, policy=JIQ())
    ours = stationary_replication(np.random.SeedSequence(3), system, 20, "irg", 1.0, 5.0, policy=JIQ(), halves=True)
    assert np.array_equal(ours.mean_queue_length, ref.mean_queue_length) and ours.events == ref.events
    assert ref.half_means is None and ours.half_means.shape == (2, system.n_types)
    np.testing.assert_allclose(ours.half_means.mean(axis=0), ref.mean_queue_length, atol=1e-12)


TINY = dict(seed=5, n_servers=20, loads=[0.5, 0.92], n_runs=3, warmup=2.0, horizon=20.0)


@pytest.fixture(scope="module")
def tiny():
    return l_r_jiq.compute(**TINY)


def test_random_routing_has_no_mean_at_092_where_it_is_unstable_and_is_not_simulated(tiny):
    row = l_r_jiq.policy_row(tiny.rows, 0.92, l_r_jiq.RANDOM)
    assert row["stable"] is False and row["stationarity"] == "unstable (Lemma 10)"
    assert row["rho"] == pytest.approx(1.1141, abs=1e-4) and row["critical_types"] == "2"
    assert "type-2 servers at 1.114 ≥ 1" in row["reason"]
    assert all(math.isnan(row[c]) for c in ("mean_queue_length", "ci_low", "ci_high", "se", "type_1", "type_2", "type_3",
                                            "drift"))
    assert row["runs"] == 0 and row["events"] == 0 and not l_r_jiq.reported(row)


def test_random_routing_has_a_mean_at_05_where_it_is_stable(tiny):
    row = l_r_jiq.policy_row(tiny.rows, 0.5, l_r_jiq.RANDOM)
    assert row["stable"] is True and row["stationarity"] == "stable (Lemma 10)"
    assert row["ci_low"] <= row["mean_queue_length"] <= row["ci_high"] and row["runs"] == 3 and row["events"] > 0
    assert row["rho"] == pytest.approx(0.6055, abs=1e-4)


def test_every_other_point_of_the_tiny_page_has_a_mean_and_a_drift(tiny):
    for r in tiny.rows:
        if (r["load"], r["policy"]) != (0.92, l_r_jiq.RANDOM):
            assert l_r_jiq.reported(r) and r["ci_low"] <= r["mean_queue_length"] <= r["ci_high"]
            assert r["drift_ci_low"] <= r["drift"] <= r["drift_ci_high"] and r["drifting"] is False
    assert [r["stable"] for r in tiny.rows if r["policy"] == "JIQ"] == [None, None]  # no condition known


def test_the_table_says_unstable_with_the_type_and_its_load_instead_of_a_number(tiny):
    table = tiny.displays[0]
    cells = [{name: f(row) for name, f in table.columns.items()} for row in table.rows]
    assert cells[1]["load"] == "0.92" and cells[1][l_r_jiq.RANDOM] == "unstable (type 2 at load 1.114)"
    assert " ± " in cells[0][l_r_jiq.RANDOM] and all(" ± " in cells[1][p] for p in ("JIQ", "local JSQ(2)", "GWSQ(2)"))
    assert "nan" not in table.html().lower()


def test_the_check_compares_jiq_with_random_routing_only_where_both_are_stable_and_says_so(tiny):
    claim = tiny.claims[0]
    assert "where both have a stationary mean" in claim.text and claim.holds in (True, False)
    assert claim.evidence.startswith("loads 0.5, $N = 20$; not compared where random routing is unstable at load "
                                     "0.92 (type 2 loaded at 1.114 ≥ 1, Lemma 10)")
    assert "where both have a stationary mean (load 0.5)" in tiny.text
    assert "- No mean where random routing is unstable at load 0.92" in tiny.text and "nan" not in tiny.text
    assert "Not drawn, having no stationary mean: random routing is unstable at load 0.92" in tiny.figure["caption"]


def test_the_figure_draws_no_point_without_a_stationary_mean(tiny):
    fig = l_r_jiq.draw(tiny)
    lines = {c.get_label(): c.lines[0] for c in fig.axes[0].containers}  # each errorbar's data line
    assert set(lines) == set(tiny.figure["policies"])
    x, y = (np.asarray(a, dtype=float) for a in lines[l_r_jiq.RANDOM].get_data())
    assert list(x) == [0.5, 0.92] and np.isfinite(y[0]) and np.isnan(y[1])  # NaN: nothing drawn at 0.92
    assert all(np.isfinite(np.asarray(lines[p].get_data()[1], dtype=float)).all() for p in ("JIQ", "GWSQ(2)"))


def test_the_check_does_not_hold_when_no_load_has_both_means():
    rows = [dict(load=0.9, policy="JIQ", mean_queue_length=1.0, ci_low=0.9, ci_high=1.1),
            dict(load=0.9, policy=l_r_jiq.RANDOM, mean_queue_length=math.nan, ci_low=math.nan, ci_high=math.nan,
                 stable=False, rho=1.114, critical_types="2")]
    claim = l_r_jiq.beats_random_claim(rows, [0.9], 500)
    assert claim.holds is False and claim.judge() == "fails"  # nothing compared: not a vacuous "holds"
    assert "no load where both have a stationary mean, so nothing was compared" in claim.evidence


def test_without_a_known_condition_the_drift_check_finds_random_routing_unstable_at_092(monkeypatch):
    # the empirical rule that decides JIQ, applied to every policy: random routing at 0.92 (rho = 1.114)
    # grows, its window average drifts, and no mean is reported; at 0.5 it settles
    def unknown(system, policy):
        return PolicyStability("any", None, math.nan, (), "condition not known")

    from qtheory.locality import experiments

    monkeypatch.setattr(l_r_jiq, "policy_stability", unknown)
    # the stationary replication's own refusal of an unstable policy is switched off with it (in this
    # process: one worker, the same numbers whatever the number of workers)
    monkeypatch.setattr(experiments, "_require_policy_stable", lambda system, policy: None)
    monkeypatch.setenv("QTHEORY_WORKERS", "1")
    res = l_r_jiq.compute(**(TINY | dict(warmup=5.0, horizon=60.0)))
    high = l_r_jiq.policy_row(res.rows, 0.92, l_r_jiq.RANDOM)
    assert high["stationarity"] == "not established" and high["drifting"] and high["drift_ci_low"] > 0
    assert not l_r_jiq.reported(high) and high["runs"] == 3
    assert l_r_jiq.cell_text(high).startswith("stationarity not established (drift +")
    assert l_r_jiq.reported(l_r_jiq.policy_row(res.rows, 0.5, l_r_jiq.RANDOM))


def test_the_halves_of_a_stationary_replication_need_two_sampling_times():
    from qtheory.locality.experiments import stationary_replication

    with pytest.raises(ParameterError, match="n_samples"):
        stationary_replication(np.random.SeedSequence(3), _design(0.5), 20, "irg", 1.0, 5.0, policy=JIQ(),
                               n_samples=1, halves=True)


def test_the_page_opens_with_its_result_as_a_sentence_with_numbers():
    rows = [dict(load=load, policy=p, mean_queue_length=m, stable=s)
            for load, vals in ((0.5, (0.5, 1.0, 2.0, True)), (0.92, (0.9, 2.7, float("nan"), False)))
            for p, m, s in (("JIQ", vals[0], True), ("local JSQ(2)", vals[1], True), (l_r_jiq.RANDOM, vals[2], vals[3]))]
    f = l_r_jiq.page_finding(rows, [0.5, 0.92])
    assert f.label == "beyond the papers" and f.id == "L-R-jiq-result"
    assert f.title == "JIQ's mean queue length is 0.50 times local JSQ(2)'s at load 0.5 and 0.33 times local JSQ(2)'s at load 0.92"
    assert "no stationary mean at load 0.92" in f.text


def test_the_caption_names_the_curves_that_coincide_and_only_those():
    means = {"JIQ": [0.4, 0.9], "local JSQ(2)": [0.6, 2.6], "GWSQ(2)": [0.61, 2.64], l_r_jiq.RANDOM: [1.0, 9.0]}
    pairs = l_r_jiq.coinciding_pairs(_rows(means), list(means))
    assert [(a, b) for a, b, _ in pairs] == [("local JSQ(2)", "GWSQ(2)")]
    assert pairs[0][2] == pytest.approx(0.61 / 0.6 - 1)
    words = l_r_jiq.coincide_words(pairs)
    assert "local JSQ(2) and GWSQ(2) coincide at this scale" in words and "1.7%" in words
    apart = {**means, "GWSQ(2)": [0.75, 3.2]}            # 25% apart: a reader tells the curves apart
    assert l_r_jiq.coinciding_pairs(_rows(apart), list(apart)) == []
    assert l_r_jiq.coincide_words([]) == ""


def test_the_figure_check_accepts_the_caption_of_coinciding_curves(tiny):
    from qtheory.plotting import coinciding_curves

    fig = l_r_jiq.draw(tiny)
    drawn = {frozenset(p[1:]) for p in coinciding_curves(fig)}
    named = {frozenset(p[:2]) for p in l_r_jiq.coinciding_pairs(tiny.rows, tiny.figure["policies"])}
    assert drawn <= named     # every pair a reader sees as one curve is named in the caption
