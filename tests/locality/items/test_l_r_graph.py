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
    # the accuracy targets are shown as numbers (the error table), not judged as checks
    assert len(res.claims) == 1 and all(c.category == "check" for c in res.claims)
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
