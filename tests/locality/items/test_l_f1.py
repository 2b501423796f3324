"""L-F1's item function (L-F1 and L-P-jsqd) at a tiny scale, and its verdicts on rows that must agree
and must differ."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_f1
from qtheory.locality.model import paper_system

RISING = np.linspace(0.5, 1.5, 11)


def test_a_path_that_rises_at_every_step_grows_almost_monotonically():
    claim = l_f1.monotone_growth_claim(RISING)
    assert claim.holds is True and claim.judge() == "agrees" and claim.source == l_f1.SOURCE
    assert "rises in 100% of the 10 steps of the grid, from 0.500 to 1.500" in claim.evidence


def test_one_dip_in_ten_steps_is_still_almost_monotone_but_two_are_not():
    one_dip = RISING.copy()
    one_dip[5] = one_dip[4] - 0.01          # falls at one step of 10: 90% rise
    assert l_f1.monotone_growth_claim(one_dip).holds is True
    two_dips = one_dip.copy()
    two_dips[8] = two_dips[7] - 0.01        # 80%
    claim = l_f1.monotone_growth_claim(two_dips)
    assert claim.holds is False and claim.judge() == "differs"


@pytest.mark.parametrize("path", [RISING[::-1], np.full(11, 0.7), np.r_[RISING[:-1], 0.5]])
def test_a_falling_flat_or_net_flat_path_does_not_grow(path):
    # the last one rises in 9 of 10 steps but ends where it started
    assert l_f1.monotone_growth_claim(path).holds is False


def test_a_flat_step_is_not_a_rise():
    flat = RISING.copy()
    flat[3], flat[7] = flat[2], flat[6]     # flat at two steps of 10, rising overall
    assert l_f1.monotone_growth_claim(flat).holds is False
    assert "rises in 80% of the 10 steps" in l_f1.monotone_growth_claim(flat).evidence


def test_the_path_needs_two_values():
    with pytest.raises(ParameterError, match="s1_type1"):
        l_f1.monotone_growth_claim([1.0])


def test_the_capacity_of_sec_6_is_four():
    claim = l_f1.capacity_claim(paper_system())
    assert claim.ours == pytest.approx(4.0) and claim.judge() == "agrees"
    import dataclasses
    other = dataclasses.replace(paper_system(), service_rates=(1.0, 5.0, 10.5))
    assert l_f1.capacity_claim(other).judge() == "differs"


def test_the_interval_claim_is_judged_at_the_paper_scale_only_and_against_the_marker():
    assert l_f1.narrow_ci_claim(0.01, 99, 1000) is None and l_f1.narrow_ci_claim(0.01, 100, 999) is None
    assert l_f1.narrow_ci_claim(0.049, 100, 1000).judge() == "agrees"
    assert l_f1.narrow_ci_claim(l_f1.MARKER_HEIGHT, 100, 1000).judge() == "differs"
    assert l_f1.narrow_ci_claim(0.2, 200, 5000).holds is False


def _tiny_rows(z, z_alt):
    """Synthetic L-P-jsqd rows: d = 1, 2 with the given z scores (z_alt for the with-replacement chain)."""
    return [dict(d=d, server_type=1, level=k + 1, z=z[i], z_with_replacement=z_alt[i], sim_mean=0.3,
                 exact=0.3, exact_with_replacement=0.2) for i, (d, k) in enumerate([(1, 0), (1, 1), (2, 0), (2, 1)])]


def _tiny_samples(rng, shift=0.0):
    """Synthetic L-P-jsqd runs: d = 1, 2, 3, 30 runs of 6 correlated entries around 0.1..0.6 (sd
    0.002 per run), symmetric about them (15 normal deviations and their mirror images: no skew to
    find); entry 4 of d = 2 moved by `shift` run sd."""
    out = []
    for d in (1, 2, 3):
        exact = np.linspace(0.1, 0.6, 6)
        dev = 0.002 * (0.8 * rng.normal(size=(15, 1)) + 0.6 * rng.normal(size=(15, 6)))
        runs = exact + np.vstack([dev, -dev])
        if d == 2:
            runs[:, 4] += 0.002 * shift
        out.append(dict(d=d, runs=runs, exact=exact, exact_with_replacement=exact))
    return out


def test_the_exact_chain_check_is_one_sign_flip_test_of_every_entry():
    from qtheory.verdicts import judge_one

    calm = l_f1.exact_chain_check(_tiny_samples(np.random.default_rng(2)), 4, 100.0)
    assert calm.category == "check" and calm.p_value > 0.05 and judge_one(calm).label == "holds"
    assert calm.label == "internal check" and "18 stationary" in calm.text
    off = l_f1.exact_chain_check(_tiny_samples(np.random.default_rng(2), shift=1.0), 4, 100.0)
    assert judge_one(off).label == "fails" and off.p_value < 0.01


def test_the_exact_chain_check_needs_30_runs_per_d_to_be_judged():
    """With 29 runs for one d the sign-flip test cannot show that the run means are symmetric: the
    check is not resolved (and leaves the page's family), however far off the entries are."""
    from qtheory.verdicts import judge_one

    samples = _tiny_samples(np.random.default_rng(2), shift=4.0)
    samples[1]["runs"] = samples[1]["runs"][:29]
    check = l_f1.exact_chain_check(samples, 4, 100.0)
    assert judge_one(check).label == "not resolved" and check.p_value < 0.01
    assert "29 in group 2" in check.assumption_failure and "at least 30" in check.assumption_failure


def test_exact_rows_are_the_means_of_the_samples():
    samples = _tiny_samples(np.random.default_rng(3))
    rows = l_f1.exact_rows(seed=1, horizon=100.0, n_runs=30, samples=samples)
    assert len(rows) == 18
    r = [r for r in rows if r["d"] == 2 and r["server_type"] == 2 and r["level"] == 2][0]
    x = samples[1]["runs"][:, 4]
    assert r["sim_mean"] == pytest.approx(x.mean()) and r["se"] == pytest.approx(x.std(ddof=1) / np.sqrt(30))
    assert r["exact"] == pytest.approx(samples[1]["exact"][4])


def test_the_with_replacement_chain_is_rejected_only_beyond_the_bound_at_d_2_or_more():
    claim, worst, sentence = l_f1.distinct_picks_check(_tiny_rows([0, 0, 0, 0], [50.0, 0.0, 1.0, -12.0]), 5.0)
    assert claim.holds is True and worst["d"] == 2 and worst["level"] == 2
    assert "is off by 12 standard errors" in sentence and claim.evidence.startswith(sentence)
    # a large z at d = 1 does not count: the two chains coincide there
    claim, _, _ = l_f1.distinct_picks_check(_tiny_rows([0, 0, 0, 0], [50.0, 0.0, 1.0, -5.0]), 5.0)
    assert claim.holds is False and claim.judge() == "fails"
    with pytest.raises(ParameterError, match="d >= 2"):
        l_f1.distinct_picks_check(_tiny_rows([0] * 4, [0] * 4)[:2], 5.0)


def test_compute_at_a_tiny_scale_returns_both_items():
    # 30 runs per d on the tiny graph (the fewest the sign-flip test judges), each long enough that
    # the time averages of its rarest occupancies are near symmetric
    res = l_f1.compute(seed=4, n_servers=40, n_runs=3, horizon=0.5, n_times=4, levels=4, reading="lengths-1-3",
                       exact_horizon=20000.0, exact_runs=30)
    f1, jsqd = res
    assert f1.item == "L-F1" and jsqd.item == "L-P-jsqd"
    assert len(f1.rows) == 2 * 3 * 4 * 2
    for r in f1.rows:
        if r["method"] == "sim":
            assert r["ci_low"] <= r["mean"] <= r["ci_high"] and r["runs"] == 3
    # below the paper's scale the interval claim is not judged
    assert [c.text[:12] for c in f1.claims] == ["Fig. 1: the ", "Fig. 1: unde", "Sec. 6: capa"]
    assert set(f1.summary) == {"type1_growth_second_half_S1", "max_ci_half_width"}
    assert "$N = 40$ servers" in f1.figure["caption"] and "one irg($p^1$) graph" in f1.figure["caption"]
    assert len(jsqd.rows) == 3 * 2 * 3 and len(jsqd.claims) == 2
    # the simulator against the exact chain: judged by its sign-flip test on 30 runs per d, and holding
    from qtheory.verdicts import judge

    check = jsqd.claims[0]
    assert check.tested and check.assumption_failure == "" and "30 runs of length 20000" in check.evidence
    assert [v.label for v in judge(jsqd.claims).verdicts] == ["holds", "holds"]
    assert set(jsqd.summary) == {"max_abs_z", "max_abs_z_with_replacement", "alt_sentence"}
    assert jsqd.summary["max_abs_z"] == max(abs(r["z"]) for r in jsqd.rows)
    # d = 1: the two chains are the same
    for r in jsqd.rows:
        if r["d"] == 1:
            assert r["exact"] == pytest.approx(r["exact_with_replacement"])


@pytest.mark.parametrize("kwargs, name", [(dict(irg_graphs="two"), "irg_graphs"), (dict(irg_graphs="per run"), "irg_graphs"),
                                          (dict(n_times=1), "n_times")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=4, n_servers=40, n_runs=2, horizon=0.5, n_times=4, levels=4, reading="lengths-1-3",
                exact_horizon=60.0, exact_runs=3) | kwargs
    with pytest.raises(ParameterError, match=name):
        l_f1.compute(**args)


def test_the_tiny_graph_averages_leave_out_the_first_5_percent_of_the_horizon(monkeypatch):
    """A stand-in simulator whose occupancy is 1 before 5% of the horizon and about 0.2 after it."""
    class Fake:
        def __init__(self, occupancy):
            self.occupancy = occupancy

    def fake_simulate(system, graph, *, initial_state, t_grid, seed, levels):
        grid, ss = t_grid, seed
        level = 0.2 + 0.01 * np.random.default_rng(ss).random()
        return Fake(np.where((grid < 0.05 * grid[-1])[:, None, None], 1.0, level) * np.ones((len(grid), 2, levels)))

    monkeypatch.setattr(l_f1, "simulate_jsqd", fake_simulate)
    rows = l_f1.exact_rows(seed=1, horizon=100.0, n_runs=3)
    assert all(0.2 <= r["sim_mean"] <= 0.21 for r in rows)


def _s2_rows(mid, end, se=0.01):
    rows = []
    for m, (a, b) in enumerate(zip(mid, end), start=1):
        for t, v in ((0.0, a), (1.0, a), (2.0, b)):
            rows.append(dict(system="S2", server_type=m, t=t, method="sim", mean=v, se=se))
    return rows


def test_s2_stays_bounded_unless_a_type_grows_over_the_second_half():
    assert l_f1.bounded_claim(_s2_rows([1.6, 1.7], [1.4, 1.72]), "S2", 3).judge() == "agrees"
    assert l_f1.bounded_claim(_s2_rows([1.6, 1.7], [1.4, 1.8]), "S2", 3).judge() == "differs"


@pytest.mark.parametrize("name, value", [("n_runs", 1), ("exact_runs", 1), ("horizon", 0.0), ("exact_horizon", 0.0)])
def test_compute_refuses_in_the_readers_words(name, value):
    params = dict(seed=4, n_servers=40, n_runs=3, horizon=0.5, n_times=4, levels=4, reading="lengths-1-3",
                  exact_horizon=1500.0, exact_runs=3)
    params[name] = value
    with pytest.raises(ParameterError, match=f"`{name}`"):
        l_f1.compute(**params)
