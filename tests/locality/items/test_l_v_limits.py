"""L-V-limits' item functions at a tiny scale, and each verdict on rows that must agree and must differ."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.experiments import bootstrap_l1_interval
from qtheory.locality.items import l_v_limits as lv
from qtheory.locality.meanfield import solve_meanfield
from qtheory.locality.model import paper_initial_occupancy, paper_system

GW, JSQ = lv.POLICIES["gwsq"], lv.POLICIES["jsqd"]


# -- L-P-gwsq ------------------------------------------------------------------------------------------------

def _gwsq_paths(rng, shift=0.0):
    """Synthetic GWSQ(2) paths: 30 runs, 3 times (t = 0 not judged) x 3 types x 2 levels around an
    ODE between 0.05 and 0.9, sd 0.01 per run, symmetric about it (15 normal deviations and their
    mirror images: no skew to find); entry (t = 2, type 2, level 1) moved by `shift` run sd."""
    t_grid = np.array([0.0, 1.0, 2.0])
    ode = np.linspace(0.05, 0.9, 18).reshape(3, 3, 2)
    dev = 0.01 * (0.7 * rng.normal(size=(15, 1, 1, 1)) + 0.7 * rng.normal(size=(15, 3, 3, 2)))
    paths = ode + np.concatenate([dev, -dev])
    paths[:, 0] += 1.0                      # t = 0 is not judged
    paths[:, 2, 1, 0] += 0.01 * shift
    return paths, ode, t_grid


def test_gwsq_check_is_one_sign_flip_test_of_the_entries_after_0():
    from qtheory.verdicts import judge_one

    paths, ode, t_grid = _gwsq_paths(np.random.default_rng(1))
    claim, numbers = lv.gwsq_ode_claim(paths, ode, t_grid, 300, 5)
    assert judge_one(claim).label == "holds" and "(12 entries" in claim.text and numbers["test_p"] == claim.p_value
    moved = _gwsq_paths(np.random.default_rng(1), shift=1.5)
    claim, numbers = lv.gwsq_ode_claim(*moved, 300, 5)
    assert judge_one(claim).label == "fails" and numbers["max_z_gwsq_vs_ode"] > 5


def test_gwsq_check_with_fewer_than_30_runs_is_not_resolved():
    from qtheory.verdicts import judge_one

    paths, ode, t_grid = _gwsq_paths(np.random.default_rng(1), shift=5.0)
    claim, _ = lv.gwsq_ode_claim(paths[:29], ode, t_grid, 300, 5)
    assert judge_one(claim).label == "not resolved" and claim.p_value < 0.01
    assert claim.assumption_failure.startswith("runs: 29;")


def test_gwsq_check_names_mismatched_paths():
    paths, ode, t_grid = _gwsq_paths(np.random.default_rng(1))
    with pytest.raises(ParameterError, match="paths"):
        lv.gwsq_ode_claim(paths[:, :2], ode, t_grid, 300, 5)


def _weights(printed_sum=-1.0, printed_max=0.0, weight_total=1.0, weight_min=-0.01):
    return [dict(printed_sum=-1.0, printed_max=-1e-3, weight_total=1.0, weight_min=0.1),
            dict(printed_sum=printed_sum, printed_max=printed_max, weight_total=weight_total, weight_min=weight_min)]


def test_printed_sign_erratum_is_confirmed_when_every_cluster_sums_to_minus_one():
    e = lv.printed_sign_erratum(_weights())
    assert e.category == "erratum" and e.verdict.startswith("confirmed") and e.ours == -1.0


@pytest.mark.parametrize("kwargs", [dict(printed_sum=-1.0 + 1e-10), dict(printed_sum=1.0), dict(printed_max=1e-10)])
def test_printed_sign_erratum_is_not_confirmed_otherwise(kwargs):
    assert lv.printed_sign_erratum(_weights(**kwargs)).verdict == "not confirmed"


def test_selection_reading_is_supported_by_a_negative_printed_weight():
    r = lv.selection_reconstruction(_weights(weight_total=1.0 + 2e-15, weight_min=-0.0123), 300)
    assert r.category == "reconstruction" and r.verdict.startswith("the printed weights sum to one")
    assert "−0.0123" in r.verdict and "2 × 10⁻¹⁵" in r.verdict and r.ours == -0.0123
    assert lv.selection_reconstruction(_weights(weight_min=0.0), 300).verdict.startswith(
        "the printed weights are nonnegative")


# -- L-V-thm2 and L-V-thm1 -----------------------------------------------------------------------------------

def _err_rows(first_low, last_high):
    return [dict(N=100, sup_l1_error=first_low + 0.1, ci_low=first_low, ci_high=first_low + 0.2),
            dict(N=1000, sup_l1_error=last_high - 0.01, ci_low=last_high - 0.02, ci_high=last_high)]


def test_theorem2_agrees_when_the_last_interval_lies_below_the_first_and_the_slope_is_negative():
    claim, check = lv.convergence_claims(_err_rows(0.5, 0.2), -0.55, [100, 1000], 60)
    assert claim.judge() == "agrees" and check.judge() == "holds"


@pytest.mark.parametrize("first_low, last_high, slope", [(0.5, 0.5, -0.5), (0.5, 0.2, 0.0)])
def test_theorem2_differs_when_the_intervals_overlap_or_the_error_does_not_fall(first_low, last_high, slope):
    assert lv.convergence_claims(_err_rows(first_low, last_high), slope, [100, 1000], 60)[0].judge() == "differs"


@pytest.mark.parametrize("slope, label", [(-0.64, "holds"), (-0.36, "holds"), (-0.66, "fails"), (-0.3, "fails")])
def test_theorem2_rate_check_within_its_tolerance(slope, label):
    assert lv.convergence_claims(_err_rows(0.5, 0.2), slope, [100, 1000], 60)[1].judge() == label


def _corr_rows(big_highs, small=(0.03, 0.18, 0.22), small_half=0.05):
    rows = [dict(N=20, server_type=m + 1, correlation=c, ci_low=c - small_half, ci_high=c + small_half,
                 N_times_correlation=20 * c) for m, c in enumerate(small)]
    rows += [dict(N=50, server_type=m + 1, correlation=0.01, ci_low=0.0, ci_high=0.02, N_times_correlation=0.5)
             for m in range(3)]
    rows += [dict(N=500, server_type=m + 1, correlation=h / 2, ci_low=0.0, ci_high=h, N_times_correlation=500 * h / 2)
             for m, h in enumerate(big_highs)]
    return rows


def test_theorem1_agrees_when_the_type_average_falls_and_every_type_ends_below_it():
    claim, sentence = lv.chaos_claim(_corr_rows([0.001, 0.01, 0.02]), 2.5)
    assert claim.judge() == "agrees" and "0.030, 0.180, 0.220 (types 1-3, $N = 20$" in sentence
    assert "goes from 2.87 to 2.58" in sentence      # N x correlation averaged over the types
    # a type whose smallest-N estimate is already at (or just below) 0 is noise, not a failure:
    # the average (0.115 +- 0.015 here) still falls far beyond its standard error
    assert lv.chaos_claim(_corr_rows([0.001, 0.01, 0.02], small=(-0.014, 0.15, 0.21)), 2.5)[0].judge() == "agrees"


@pytest.mark.parametrize("highs, small_half", [
    ([0.001, 0.01, 0.5], 0.05),     # one type's interval at N = 500 reaches above the N = 20 average 0.143
    ([0.001, 0.01, 0.02], 0.3),     # the fall 0.138 is within 1.96 SE (SE of the difference 0.088)
])
def test_theorem1_differs_when_a_type_stays_high_or_the_fall_is_noise(highs, small_half):
    assert lv.chaos_claim(_corr_rows(highs, small_half=small_half), 2.5)[0].judge() == "differs"


# -- L-V-thm3 ------------------------------------------------------------------------------------------------

def _thm3_rows(irg_last_high, win_last_low):
    rows = []
    for kind in ("irg", "window"):
        for start in ("iid", "sorted"):
            last_high = irg_last_high if kind == "irg" else 0.9
            last_low = win_last_low if kind == "window" else last_high - 0.02
            rows += [dict(graph=kind, start=start, N=300, sup_l1_error=0.6, ci_low=0.5, ci_high=0.7),
                     dict(graph=kind, start=start, N=3000, sup_l1_error=(last_low + last_high) / 2, ci_low=last_low,
                          ci_high=last_high)]
    return rows


SLOPES = {"irg/iid": -0.5, "irg/sorted": -0.45, "window/iid": -0.5, "window/sorted": -0.05}


def test_theorem3_agrees_on_irg_and_the_window_graph_stays_above():
    thm3, window = lv.non_iid_claims(_thm3_rows(0.2, 0.41), SLOPES)
    assert (thm3.judge(), window.judge()) == ("agrees", "holds")


@pytest.mark.parametrize("irg_high, win_low, slopes, labels", [
    (0.5, 0.41, SLOPES, ("differs", "fails")),                              # irg does not fall below its start
    (0.2, 0.41, {**SLOPES, "irg/sorted": 0.0}, ("differs", "holds")),       # slope not negative
    (0.2, 0.4, SLOPES, ("agrees", "fails")),                                # window exactly twice irg
])
def test_theorem3_differs_when_the_errors_say_otherwise(irg_high, win_low, slopes, labels):
    thm3, window = lv.non_iid_claims(_thm3_rows(irg_high, win_low), slopes)
    assert (thm3.judge(), window.judge()) == labels


# -- L-V-thm6 ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("last_high, label", [(0.1, "agrees"), (0.15, "differs"), (0.2, "differs")])
def test_theorem6_needs_the_last_interval_below_the_first(last_high, label):
    dist = [dict(N=50, l1_distance=0.2, ci_low=0.15, ci_high=0.3),
            dict(N=500, l1_distance=last_high - 0.03, ci_low=0.01, ci_high=last_high)]
    assert lv.stationary_claim(dist, -0.7).judge() == label


def test_bootstrap_l1_interval_covers_the_distance_and_is_reproducible():
    rng = np.random.default_rng(4)
    samples = rng.normal(1.0, 0.1, size=(40, 2, 3))
    target = np.full((2, 3), 0.9)
    dist = np.abs(samples.mean(axis=0) - target).sum()
    low, high = bootstrap_l1_interval(samples, target, np.random.default_rng(9))
    assert low < dist < high and (low, high) == bootstrap_l1_interval(samples, target, np.random.default_rng(9))
    # about 6 x 0.1 / sqrt(40) wide per side at most
    assert high - low < 6 * 4 * 0.1 / np.sqrt(40)
    with pytest.raises(ParameterError, match="samples"):
        bootstrap_l1_interval(samples[:1], target, rng)
    # two replications, 0 and 1: a resample's distance is 0, 1/2 or 1 (each replication can be drawn)
    assert bootstrap_l1_interval(np.array([[0.0], [1.0]]), np.array([0.0]), np.random.default_rng(2)) == (0.0, 1.0)


def test_bootstrap_l1_interval_is_the_95_percent_percentile_interval():
    # one positive coordinate far from the target: the distance is mean - target, whose bootstrap law is
    # close to normal with the standard error of the mean, so each side is about 1.96 standard errors
    samples = np.random.default_rng(5).normal(1.0, 0.2, size=(400, 1))
    se = samples.std(ddof=1) / np.sqrt(400)
    dist = samples.mean() - 0.5
    low, high = bootstrap_l1_interval(samples, np.array([0.5]), np.random.default_rng(6), n_boot=20000)
    assert (dist - low) / se == pytest.approx(1.96, abs=0.12)
    assert (high - dist) / se == pytest.approx(1.96, abs=0.12)


# -- the item functions at a tiny scale ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def setting():
    system = paper_system("design")
    q0 = paper_initial_occupancy("Q", "lengths-1-3")
    t_grid = np.linspace(0.0, 0.4, 3)
    return dict(seed=11, system=system, parameters={}), q0, t_grid, solve_meanfield(system, q0, t_grid).q


def test_gwsq_at_a_tiny_scale(setting):
    from qtheory.verdicts import judge

    common, q0, t_grid, ode = setting
    res = lv.gwsq(**common, q0=q0, t_grid=t_grid, ode=ode, n_servers=40, n_runs=30)
    assert len(res.rows) == 2 * 3 * 2 * 3 and res.figure["policies"] == [GW, JSQ]
    assert [c.category for c in res.claims] == ["erratum", "reconstruction", "check"]
    assert res.claims[0].verdict.startswith("confirmed") and len(res.summary["gwsq_weights"]) == 4
    # 30 runs: the sign-flip test judges the paths (its p-value joins the page's family); at 40 servers
    # the 95% intervals are wider than the margins, so it is not rejected and not resolved
    check = res.claims[2]
    verdict = judge(res.claims).verdicts[2]
    assert "30 runs" in check.evidence and check.assumption_failure == "" and verdict.threshold is not None
    assert not verdict.rejected


def test_theorems_1_2_at_a_tiny_scale(setting):
    common, q0, t_grid, ode = setting
    thm2, thm1 = lv.theorems_1_2(**common, q0=q0, t_grid=t_grid, ode=ode, n_list=[100, 200], n_runs=3)
    assert [r["N"] for r in thm2.rows] == [100, 200] and thm2.rows[0]["fitted_slope_N_ge_100"] == thm2.figure["slope"]
    assert len(thm1.rows) == 6 and set(thm1.summary["correlation_at_largest_N"]) == {1, 2, 3}
    assert all(r["t"] == 0.4 for r in thm1.rows)


def test_theorems_1_2_name_a_list_without_two_fitted_sizes(setting):
    common, q0, t_grid, ode = setting
    with pytest.raises(ParameterError, match="n_list"):
        lv.theorems_1_2(**common, q0=q0, t_grid=t_grid, ode=ode, n_list=[20, 100], n_runs=3)


def test_theorem3_at_a_tiny_scale(setting):
    common, _, t_grid, _ = setting
    res = lv.theorem3(**common, t_grid=t_grid, n_list=[60, 120], n_runs=2)
    assert len(res.rows) == 2 * 2 * 2 and set(res.summary["fitted_slopes"]) == {
        "irg/iid", "irg/sorted", "window/iid", "window/sorted"}
    with pytest.raises(ParameterError, match="sparse_n_list"):
        lv.theorem3(**common, t_grid=t_grid, n_list=[60], n_runs=2)


def test_theorem6_at_a_tiny_scale(setting):
    common, *_ = setting
    res = lv.theorem6(**common, n_list=[20, 40], n_runs=2, warmup=1.0, horizon=3.0)
    dist = [r for r in res.rows if r["server_type"] == "all"]
    assert len(res.rows) == 2 * 9 + 2 and [r["N"] for r in dist] == [20, 40]
    assert all(r["ci_low"] <= r["ci_high"] for r in dist) and set(res.summary["distances"]) == {"20", "40"}
    with pytest.raises(ParameterError, match="stat_n_list"):
        lv.theorem6(**common, n_list=[20, 20], n_runs=2, warmup=1.0, horizon=3.0)


@pytest.mark.parametrize("name, value", [("n_runs", 1), ("sparse_runs", 1), ("stat_runs", 1), ("gwsq_runs", 1),
                                         ("n_times", 1), ("horizon", 0.0), ("stat_horizon", 0.0),
                                         ("stat_warmup", 250.0)])
def test_compute_refuses_in_the_readers_words(name, value):
    """Checked before anything runs, naming the reader's parameter (not `n_replications`)."""
    params = dict(seed=1, n_list=[20, 50], n_runs=2, horizon=0.5, n_times=5, reading="lengths-1-3",
                  sparse_n_list=[20], sparse_runs=2, stat_n_list=[20], stat_runs=2, stat_warmup=5.0, stat_horizon=20.0,
                  gwsq_servers=50, gwsq_runs=2)
    params[name] = value
    with pytest.raises(ParameterError, match=f"`{name}`"):
        lv.compute(**params)


@pytest.mark.parametrize("name, value, words", [
    ("gwsq_servers", 1, r"`gwsq_servers` = 1 is too small"), ("stat_warmup", 0.0, r"`stat_warmup` must be > 0"),
    ("stat_horizon", 1.2, r"`stat_warmup` \(5.0\) must be below `stat_horizon` \(1.2\)"),
    ("sparse_n_list", [20, 1], r"`sparse_n_list\[1\]` = 1 is too small"),
])
def test_compute_names_sizes_and_spans_as_the_reader_set_them(name, value, words):
    params = dict(seed=1, n_list=[20, 50], n_runs=2, horizon=0.5, n_times=5, reading="lengths-1-3",
                  sparse_n_list=[20], sparse_runs=2, stat_n_list=[20], stat_runs=2, stat_warmup=5.0, stat_horizon=20.0,
                  gwsq_servers=50, gwsq_runs=2)
    params[name] = value
    with pytest.raises(ParameterError, match=words):
        lv.compute(**params)
