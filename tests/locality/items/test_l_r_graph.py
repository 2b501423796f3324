"""L-R-graph's item function at a tiny scale, and its checks on rows that must hold and must fail."""

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_r_graph


def _summary(gmf, ode, grmf=None, se=0.001, n=20):
    """Synthetic graph_meanfield_summary rows: one N, three types with the given mean absolute errors."""
    rows = []
    for m in range(3):
        row = dict(N=n, server_type=str(m + 1), graphs=5, gmf_abs_error=gmf[m], ode_abs_error=ode[m],
                   sim_se_of_mean=se)
        if grmf is not None:
            row["grmf_abs_error"] = grmf[m]
        rows.append(row)
    rows.append(dict(N=n, server_type="all", graphs=5, correlation=0.99, correlation_min=0.95,
                     within_type_correlation=0.98, within_type_correlation_min=0.9))
    return rows


def test_the_refinement_check_holds_when_every_resolved_ratio_is_at_most_one_half():
    rows = _summary(gmf=[0.05, 0.04, 0.06], ode=[0.1, 0.1, 0.1], grmf=[0.01, 0.02, 0.03])
    claim = l_r_graph.ratio_claim(rows, "grmf", "gmf", 50)
    assert claim.category == "check" and claim.holds is True and claim.judge() == "holds"


def test_the_refinement_check_fails_when_one_resolved_ratio_exceeds_one_half():
    rows = _summary(gmf=[0.05, 0.04, 0.06], ode=[0.1, 0.1, 0.1], grmf=[0.01, 0.021, 0.03])
    claim = l_r_graph.ratio_claim(rows, "grmf", "gmf", 50)
    assert claim.holds is False and claim.judge() == "fails"


def test_an_unresolved_point_is_listed_but_not_judged():
    # type 2's graph mean-field error (0.002) is below 3 SE (0.003): its ratio of 2 is not judged
    rows = _summary(gmf=[0.05, 0.002, 0.06], ode=[0.1, 0.1, 0.1], grmf=[0.01, 0.004, 0.03])
    points = l_r_graph.ratio_points(rows, "grmf", "gmf", 50)
    assert [p["resolved"] for p in points] == [True, False, True]
    claim = l_r_graph.ratio_claim(rows, "grmf", "gmf", 50)
    assert claim.holds is True and "not resolved" in claim.evidence


def test_a_check_with_nothing_resolved_does_not_hold():
    rows = _summary(gmf=[0.001] * 3, ode=[0.1] * 3, grmf=[0.0005] * 3)
    assert l_r_graph.ratio_claim(rows, "grmf", "gmf", 50).holds is False


def test_a_miss_is_named_with_the_refinement_that_explains_it():
    # type 2: graph mean field 0.07 > 0.5 x 0.1 (resolved); its refinement 0.01 <= 0.5 x 0.07
    rows = _summary(gmf=[0.02, 0.07, 0.03], ode=[0.1, 0.1, 0.1], grmf=[0.005, 0.01, 0.01])
    text = l_r_graph.miss_text(rows)
    assert "$N = 20$, type 2" in text and "type 1" not in text and "independent" in text


def test_a_miss_the_refinement_does_not_remove_is_not_explained_by_it():
    rows = _summary(gmf=[0.02, 0.07, 0.03], ode=[0.1, 0.1, 0.1], grmf=[0.005, 0.036, 0.01])
    text = l_r_graph.miss_text(rows)
    assert "type 2" in text and "independent" not in text and "not shown" in text
    assert "not shown" in l_r_graph.miss_text(_summary(gmf=[0.02, 0.07, 0.03], ode=[0.1] * 3))


def test_no_miss_no_text():
    assert l_r_graph.miss_text(_summary(gmf=[0.05, 0.04, 0.03], ode=[0.1] * 3, grmf=[0.01] * 3)) == ""


def test_sizes_above_the_limit_are_not_judged():
    rows = _summary(gmf=[0.09] * 3, ode=[0.1] * 3, n=1000)
    assert l_r_graph.ratio_points(rows, "gmf", "ode", 200) == []


def test_the_correlation_check_uses_the_smallest_correlation_over_the_graphs():
    rows = _summary(gmf=[0.05] * 3, ode=[0.1] * 3, n=100)
    assert l_r_graph.correlation_claim(rows, 100).holds is True
    assert l_r_graph.correlation_claim(rows, 100, threshold=0.96).holds is False
    with pytest.raises(ParameterError, match="N = 50"):
        l_r_graph.correlation_claim(rows, 50)


def test_compute_at_a_tiny_scale_returns_rows_checks_tables_and_the_largest_n_record():
    res = l_r_graph.compute(seed=5, n_list=[20, 30], n_graphs=2, events_per_run=40_000, warmup=20.0, refine_up_to=20,
                            per_server_up_to=20, scatter_n=20, transient_n_list=[20], transient_runs=3,
                            horizon=0.5, n_times=3)
    assert len(res.rows) == 2 * 2 * 3
    assert all(("grmf" in r) == (r["N"] == 20) for r in res.rows)
    assert {r["N"] for r in res.tables["servers"]} == {20}
    # the accuracy targets are shown as numbers (the error table), not judged as checks; the headline's
    # statement (closer than (3.7)) is one tested check per N, then the per-server correlation
    assert len(res.claims) == 3 and all(c.category == "check" for c in res.claims)
    assert [c.tested for c in res.claims] == [True, True, False]
    assert "$N = 20$" in res.claims[0].text and "$N = 30$" in res.claims[1].text
    batches = res.tables["batches"]
    assert len(batches) == 2 * 2 * 3 * l_r_graph.N_BATCHES
    # equal batches (N_SAMPLES a multiple of N_BATCHES): their mean is the run's mean
    for r in res.rows:
        mine = [b["sim"] for b in batches if (b["N"], b["graph"], b["server_type"]) == (r["N"], r["graph"],
                                                                                         r["server_type"])]
        assert len(mine) == l_r_graph.N_BATCHES and abs(sum(mine) / len(mine) - r["sim"]) < 1e-12
    assert res.findings[0].title.startswith("At $N = 30$")
    assert res.summary["largest_N"]["N"] == 30 and set(res.summary["largest_N"]["per_type"]) == {"1", "2", "3"}
    assert res.summary["largest_N"]["graph_meanfield_seconds"] > 0
    assert "Refined graph mean field" in res.text and "$N = 20$" in res.text
    assert "±1 SE" in res.figure["scatter_caption"] and "±1 SE" in res.figure["transient_caption"]


def test_compute_names_a_scatter_size_without_per_server_records():
    with pytest.raises(ParameterError, match="scatter_n"):
        l_r_graph.compute(seed=5, n_list=[20, 30], n_graphs=1, events_per_run=40_000, warmup=1.0, refine_up_to=0,
                          per_server_up_to=20, scatter_n=30, transient_n_list=[20], transient_runs=2, horizon=0.5,
                          n_times=3)


SMALL = dict(seed=5, n_list=[20, 30], n_graphs=1, events_per_run=40_000, warmup=1.0, refine_up_to=0,
             per_server_up_to=30, scatter_n=30, transient_n_list=[20], transient_runs=2, horizon=0.5, n_times=3)


@pytest.mark.parametrize("change, words", [
    (dict(transient_n_list=[20, 0]), r"`transient_n_list[1]` must be >= 2"),
    (dict(transient_runs=1), "`transient_runs` must be >= 2"),
    (dict(horizon=0.0), "`horizon` must be > 0"),
    (dict(n_times=1), "`n_times` must be >= 2"),
    # 100 relaxation times (2.1 each) at N = 30: 2 x 3 x 30 x 211.5 = 38,076 events
    (dict(events_per_run=38_000), "`events_per_run` must be at least 38,076 at N = 30"),
])
def test_compute_refuses_in_the_readers_words(change, words):
    """Named as the reader set them (the experiments' functions say `n_list`, `n_runs`)."""
    import re

    with pytest.raises(ParameterError, match=re.escape(words)):
        l_r_graph.compute(**(SMALL | change))


def test_the_shortest_run_covers_a_hundred_relaxation_times_of_the_ode():
    from qtheory.locality.model import paper_system
    from qtheory.locality.refined import refined_stationary

    system = paper_system("design")
    tau = refined_stationary(system).relaxation_time
    n = 1000
    window = l_r_graph.shortest_events(n) / (2 * system.arrival_rate * system.zeta * n)
    assert 100 * tau <= window < 100 * tau + 1e-3


def _tables(ode, gmf, sims):
    """Synthetic rows of graph_meanfield_rows at N = 50: `ode` per type, `gmf[graph][type]`, and
    `sims[graph][type]` the batch means (one list per graph and type)."""
    types, batches = [], []
    for k, row in enumerate(gmf):
        for m, g in enumerate(row):
            types.append(dict(N=50, graph=k, server_type=m + 1, gmf=g, ode=ode[m]))
            batches += [dict(N=50, graph=k, server_type=m + 1, batch=b, sim=x) for b, x in enumerate(sims[k][m])]
    return types, batches


def test_the_advantage_is_the_difference_of_squared_errors_against_each_batch():
    """One graph, two types: per batch the mean over types of (o - s)^2 - (g - s)^2."""
    types, batches = _tables(ode=[1.0, 2.0], gmf=[[0.5, 2.5]], sims=[[[0.8, 0.6], [2.2, 2.6]]])
    expected = [((1.0 - 0.8) ** 2 - (0.5 - 0.8) ** 2 + (2.0 - 2.2) ** 2 - (2.5 - 2.2) ** 2) / 2,
                ((1.0 - 0.6) ** 2 - (0.5 - 0.6) ** 2 + (2.0 - 2.6) ** 2 - (2.5 - 2.6) ** 2) / 2]
    assert l_r_graph.advantage_runs(types, batches, 50) == pytest.approx(expected, abs=1e-15)


def test_the_advantage_has_no_bias_from_the_simulations_noise():
    """With noise (sd 1) far above the errors (0.1 and 0.05) the mean advantage still estimates
    (o - mu)^2 - (g - mu)^2 = 0.0075 (4 standard errors); the difference of mean absolute errors
    against the same noisy values is about 0.002, a quarter of it."""
    import numpy as np

    rng = np.random.default_rng(3)
    n = 200_000
    sims = rng.normal(0.0, 1.0, n)
    types, batches = _tables(ode=[0.1], gmf=[[-0.05]], sims=[[list(sims)]])
    values = np.array(l_r_graph.advantage_runs(types, batches, 50))
    assert abs(values.mean() - 0.0075) < 4 * values.std(ddof=1) / np.sqrt(n)
    assert np.mean(np.abs(0.1 - sims) - np.abs(-0.05 - sims)) < 0.004


def _symmetric(mean, spread, n):
    import numpy as np
    from scipy import stats

    half = stats.norm.ppf((np.arange(1, n // 2 + 1) - 0.5) / n + 0.5)
    x = np.concatenate([half, -half])
    return list(mean + spread * x / x.std(ddof=1))


@pytest.mark.parametrize("simulated, label", [
    (1.2, "holds"),     # the truth 1.2: (3.7) at 1.0 is off by 0.2, the graph mean field at 1.15 by 0.05
    (1.0, "fails"),     # the truth at (3.7)'s value: the graph mean field is the farther
    (1.075, "not resolved"),  # halfway: both equally far, the data cannot tell
])
def test_each_size_holds_fails_or_is_not_resolved_with_its_noise(simulated, label):
    from qtheory.verdicts import judge

    n = l_r_graph.N_BATCHES
    types, batches = _tables(ode=[1.0], gmf=[[1.15]], sims=[[_symmetric(simulated, 0.05, n)]])
    records, tests = l_r_graph.closer_records(types, batches, n_graphs=1)
    assert len(records) == 1 and set(tests) == {50}
    assert judge(records).verdicts[0].label == label


def test_the_headline_states_the_difference_with_its_standard_error_and_the_outcome():
    from qtheory.display import number

    n = l_r_graph.N_BATCHES
    rows = _summary(gmf=[0.05] * 3, ode=[0.1] * 3, n=50)
    for simulated, words in ((1.2, "the graph mean field is closer to the simulation than (3.7)"),
                             (1.075, "the data do not show which"), (1.0, "$N = 50$ (3.7) is closer to the simulation")):
        types, batches = _tables(ode=[1.0], gmf=[[1.15]], sims=[[_symmetric(simulated, 0.05, n)]])
        _, tests = l_r_graph.closer_records(types, batches, n_graphs=1)
        finding = l_r_graph.page_finding(rows, tests, n_graphs=1)
        c = tests[50].parts[0].comparison
        assert words in finding.title and number(c.difference, c.se) in finding.title


def test_the_advantage_refuses_batches_that_miss_a_graph():
    types, batches = _tables(ode=[1.0], gmf=[[1.1], [1.2]], sims=[[[1.0, 1.1]], [[1.0, 1.1]]])
    with pytest.raises(ParameterError, match="every graph and type once"):
        l_r_graph.advantage_runs(types, batches[:-1], 50)
    with pytest.raises(ParameterError, match="no rows at N = 20"):
        l_r_graph.advantage_runs(types, batches, 20)


def test_the_headline_names_the_smaller_sizes_shown_not_shown_and_not_judged():
    """Four smaller sizes: one shown closer, one within the noise, one whose batch means are
    skewed (an exponential sample: judged by Cantelli's inequality, here not shown), one with too
    few batch means (not judged)."""
    import numpy as np

    n = l_r_graph.N_BATCHES
    skewed = list(1.2 + 0.05 * (np.random.default_rng(1).exponential(1.0, n) ** 3))
    types, batches = [], []
    for size, sims in ((20, _symmetric(1.2, 0.05, n)), (50, _symmetric(1.075, 0.05, n)), (100, skewed),
                       (150, _symmetric(1.2, 0.05, 10)), (200, _symmetric(1.2, 0.05, n))):
        t, b = _tables(ode=[1.0], gmf=[[1.15]], sims=[[sims]])
        types += [{**r, "N": size} for r in t]
        batches += [{**r, "N": size} for r in b]
    records, tests = l_r_graph.closer_records(types, batches, n_graphs=1)
    assert "skewed" in tests[100].skewed and tests[100].why_not == "" and len(records) == 5
    assert "10 run means" in tests[150].why_not
    title = l_r_graph.page_finding(_summary(gmf=[0.05] * 3, ode=[0.1] * 3, n=200), tests, n_graphs=1).title
    assert title.startswith("At $N = 200$ the graph mean field is closer")
    assert ("at the smaller sizes the graph mean field is closer at $N = 20$, not shown closer at $N = 50$ and "
            "$N = 100$ and not judged at $N = 150$ (its batch means fail their checks)") in title
