"""The row builders of the stability page (L-V-stability): Lemma 1, (3.1), Proposition 1, Lemma 10."""

import numpy as np
import pytest
from scipy import stats

from qtheory.locality.experiments import (lemma1_rows, lemma2_rows, lemma10_rows, proposition1_rows,
                                          proposition1_summary)


def t_bound(runs, comparisons, level=0.999):
    """Two-sided t quantile, Bonferroni over `comparisons`, runs - 1 degrees of freedom."""
    return stats.t.ppf(1 - (1 - level) / (2 * comparisons), runs - 1)


def test_lemma1_rows_growth_follows_the_set_load_and_not_the_with_replacement_reading():
    rows = lemma1_rows(3, [1.0, 3.0, 4.0], 8, 600.0)
    # slow pair: each of the 4 dispatchers sends 2 distinct picks; both slow with probability 1/6
    for r in rows:
        assert r["rho_N"] == pytest.approx(4 * r["arrival_rate"] / 6 / 1.0)
        assert r["closed_form_rho_N"] == pytest.approx(r["rho_N"], abs=1e-12)
    bound = t_bound(8, len(rows))
    above = [r for r in rows if r["rho_N"] > 1]
    assert len(above) == 2
    for r in rows:
        assert abs(r["growth_sim"] - r["growth_predicted"]) <= bound * r["se"]
    # the other reading predicts twice the slow pair's arrival rate: far outside the band
    for r in above:
        assert abs(r["growth_sim"] - r["growth_predicted_with_replacement"]) > bound * r["se"]


def test_lemma1_rows_seeds_are_keyed_by_position():
    a = lemma1_rows(5, [3.0], 2, 50.0)
    b = lemma1_rows(5, [3.0], 2, 50.0)
    c = lemma1_rows(6, [3.0], 2, 50.0)
    assert a[0]["growth_sim"] == b[0]["growth_sim"] != c[0]["growth_sim"]


def test_lemma2_rows_loads_and_busy_fractions():
    rows = lemma2_rows(4, 300, 4, 200.0)
    p1 = [r for r in rows if r["matrix"] == "p1 (Sec. 6.1)"]
    # (3.1) by hand: delta = (0.5*0.05 + 0.3*0.6 + 0.2, 0.5*0.1 + 0.3*0.7 + 0.2) = (0.405, 0.46)
    delta = np.array([0.405, 0.46])
    p = np.array([[0.05, 0.6, 1.0], [0.1, 0.7, 1.0]])
    by_hand = 3.0 / np.array([1.0, 5.0, 10.0]) * ((np.array([0.2, 0.8]) / delta) @ p)
    assert [r["load_31"] for r in p1] == pytest.approx(by_hand.tolist(), abs=1e-12)
    assert all(r["criterion_holds"] for r in p1)
    p0 = [r for r in rows if r["matrix"] == "p0 (complete)"]
    assert [r["load_31"] for r in p0] == pytest.approx([3.0, 0.6, 0.3]) and not p0[0]["criterion_holds"]
    design = [r for r in rows if r["matrix"] == "Prop. 1 design"]
    assert [r["load_31"] for r in design] == pytest.approx([0.75] * 3)
    bound = t_bound(4, 3)
    for r in p1:
        assert abs(r["busy_sim"] - r["load_31"]) <= bound * r["se"]


def test_proposition1_rows_design_stabilises_below_capacity_only():
    rows = proposition1_rows(2, 200)
    s = proposition1_summary(rows)
    assert s["n_below_capacity"] > 50 and s["n_above_capacity"] > 20
    assert s["design_stable"] == s["n_below_capacity"]
    assert s["random_p_violating"] == s["n_above_capacity"]
    for r in rows:
        if r["load_over_capacity"] < 1:
            # every type carries lambda zeta / sum v u under the design
            assert r["max_load"] == pytest.approx(r["load_over_capacity"], rel=1e-9)


def test_proposition1_summary_sees_a_design_that_does_not_stabilise():
    # the complete graph as "design": many random systems below capacity stay unstable
    rows = proposition1_rows(2, 200, design=lambda system: np.ones((system.n_clusters, system.n_types)))
    s = proposition1_summary(rows)
    assert s["design_stable"] < s["n_below_capacity"]


def test_lemma10_rows_supremum_rho_n_and_growth():
    rows = lemma10_rows(7, [300], 8, 20.0, exact_n_list=(10, 100, 1000))
    p0 = {r["types"]: r for r in rows if r["part"] == "rho by set of types" and r["matrix"] == "p0 (complete)"}
    assert p0["[1]"]["critical"] and p0["[1]"]["value"] == pytest.approx(3 * 0.5 ** 2 / 0.5)
    assert p0["[1, 2, 3]"]["value"] == pytest.approx(0.75)
    p1 = [r for r in rows if r["part"] == "rho by set of types" and r["matrix"] == "p1 (Sec. 6.1)" and r["critical"]]
    assert p1[0]["types"] == "[1, 2, 3]" and p1[0]["value"] == pytest.approx(0.75)
    exact = [r for r in rows if r["part"] == "rho^N complete graph"]
    for r in exact:      # N/2 type-1 servers, N dispatchers: rho^N = 1.5 (N - 2) / (N - 1)
        assert r["value"] == pytest.approx(1.5 * (r["N"] - 2) / (r["N"] - 1), abs=1e-12)
    g = next(r for r in rows if r["part"] == "type-1 growth rate")
    assert g["long_run"] == pytest.approx(1.5 * 298 / 299 - 1)
    # the ODE's growth over [10, 20] is above the long-run rate (mixed pairs still reach short type-1 queues)
    assert 0.5 < g["ode"] < 0.52
    # at N = 300 the O(1/N) bias (about 0.005, the gap of rho^N to rho) is well below the band
    assert abs(g["value"] - g["ode"]) <= t_bound(8, 1) * g["se"]
    path = [r for r in rows if r["part"] == "type-1 mean queue"]
    assert len(path) == 41 and path[-1]["ode"] > path[0]["ode"] + 8


def test_gwsq_printed_weights_sum_to_minus_one_and_the_hypergeometric_law():
    from math import comb

    from qtheory.locality.experiments import gwsq_hypergeometric_weights, gwsq_printed_weights, gwsq_weight_rows
    from qtheory.locality.model import paper_initial_occupancy, paper_system

    s = paper_system()
    x = gwsq_printed_weights(s, paper_initial_occupancy("Q"))
    assert x.shape == (2, 3, 4)     # l = 0 .. 3 for the tails q_1 .. q_3
    assert x.sum(axis=(1, 2)) == pytest.approx([-1.0, -1.0]) and x.max() <= 0
    # type 1 of cluster 1 at l = 1: share 0.5 * 0.05 / 0.405 times (q_2 - q_1) = 0.8 - 1
    assert x[0, 0, 1] == pytest.approx(0.5 * 0.05 / 0.405 * (0.8 - 1.0))
    # integer counts: the hypergeometric law of 2 distinct servers among 3 + 2 (by hand: C(5, 2) = 10)
    w = dict(gwsq_hypergeometric_weights(np.array([3.0, 2.0]), 5, 2))
    assert w == pytest.approx({(0, 0): 3 / 10, (0, 1): 6 / 10, (1, 1): 1 / 10})
    # fractional counts: still summing to one (Chu-Vandermonde), one weight negative
    w = dict(gwsq_hypergeometric_weights(np.array([0.5, 4.5]), 5, 2))
    assert sum(w.values()) == pytest.approx(1.0)
    assert w[(0, 0)] == pytest.approx(0.5 * -0.5 / 2 / comb(5, 2)) and w[(0, 0)] < 0
    rows = gwsq_weight_rows(s, {"Q": paper_initial_occupancy("Q")}, [1000])
    assert len(rows) == 2 and all(r["weight_total"] == pytest.approx(1.0) for r in rows)


def test_local_candidates_with_replacement_are_all_ordered_tuples():
    from qtheory.locality.exact import local_candidates, local_candidates_with_replacement

    c = local_candidates_with_replacement([4, 7, 9], 2)
    assert len(c) == 9 and {t for t, _ in c} == {(a, b) for a in (4, 7, 9) for b in (4, 7, 9)}
    assert sum(p for _, p in c) == pytest.approx(1.0)
    assert len(local_candidates([4, 7, 9], 2)) == 6            # distinct picks: no (j, j)


def _mean_and_se(values):
    x = np.asarray(values, dtype=float)
    return x.mean(), x.std(ddof=1) / np.sqrt(x.size)


def test_the_rows_return_the_run_values_behind_their_means():
    """With `return_runs` each simulated row comes with the run values it averages (for the book's
    checks of run means): their mean and standard error are the row's."""
    rows, runs = lemma1_rows(3, [1.0, 3.0], 4, 60.0, return_runs=True)
    assert rows == lemma1_rows(3, [1.0, 3.0], 4, 60.0) and len(runs) == 2
    for r, x in zip(rows, runs):
        assert len(x) == 4 and _mean_and_se(x) == pytest.approx((r["growth_sim"], r["se"]))
    rows, runs = lemma2_rows(4, 60, 3, 20.0, return_runs=True)
    sim = [r for r in rows if "busy_sim" in r]
    assert len(runs) == len(sim) == 3
    for r, x in zip(sim, runs):
        assert len(x) == 3 and _mean_and_se(x) == pytest.approx((r["busy_sim"], r["se"]))
    rows, runs = lemma10_rows(7, [60, 90], 3, 4.0, exact_n_list=(10,), return_runs=True)
    growth = [r for r in rows if r["part"] == "type-1 growth rate"]
    assert sorted(runs) == [60, 90]
    for r in growth:
        assert len(runs[r["N"]]) == 3 and _mean_and_se(runs[r["N"]]) == pytest.approx((r["value"], r["se"]))
