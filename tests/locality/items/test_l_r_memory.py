"""L-R-memory (JSQ(d) with memory, beyond the paper): the page's comparison rule (Welch's t at a
familywise level over the loads), its exact-chain check and its parameters. The policy itself
is covered by the generic tests of every registered policy (tests/locality/test_registered_policies.py:
the same path in every integer width, the simulator against its exact chain)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.locality.exact import local_candidates, policy_stationary, stationary
from qtheory.locality.graphs import from_adjacency
from qtheory.locality.items import l_r_memory as m
from qtheory.locality.policies import LocalJSQ


def _row(load, policy, mean):
    return dict(load=load, policy=policy, mean_queue_length=mean)


def _symmetric_runs(mean, se, n=30):
    """`n` run means with mean `mean`, standard error `se` and sample skewness exactly 0 (pairs
    mirrored about the mean): Hall's correction is then the identity, and the test is Welch's."""
    half = np.linspace(0.2, 2.0, n // 2)
    x = np.concatenate([half, -half])
    return tuple(mean + x * se * math.sqrt(n) / x.std(ddof=1))


def test_the_difference_test_is_welchs_t_on_symmetric_run_means():
    a, b = _symmetric_runs(1.0, 0.1), _symmetric_runs(1.3, 0.1)
    c = m.difference_test(a, b)
    assert c.testable and c.kappa == pytest.approx(0.0, abs=1e-12)
    assert c.difference == pytest.approx(-0.3)
    assert c.t == pytest.approx(-0.3 / (0.1 * math.sqrt(2)))
    assert c.df == pytest.approx(58.0)          # equal errors and runs: twice the runs less two
    assert c.p == pytest.approx(2 * stats.t.sf(0.3 / (0.1 * math.sqrt(2)), 58))


def test_the_difference_test_does_not_judge_few_run_means_and_judges_skewed_ones_by_cantelli():
    few = m.difference_test(_symmetric_runs(1.0, 0.1, n=8), _symmetric_runs(1.3, 0.1))
    assert not few.testable and "8 run means of ours" in few.why_not
    skewed = tuple(1.0 + np.random.default_rng(1).exponential(0.5, 30))
    c = m.difference_test(_symmetric_runs(1.0, 0.1), skewed)
    assert c.checks[1].skew_p < 0.05 and c.testable and c.method == "Cantelli" and "skewed" in c.why_cantelli
    assert c.p == pytest.approx(min(1.0, 2.0 / (1.0 + c.t ** 2)), rel=1e-12)


def _runs_at(rows, se=0.1, n=30):
    return {(r["load"], r["policy"]): _symmetric_runs(r["mean_queue_length"], se, n) for r in rows
            if math.isfinite(r["mean_queue_length"])}


def test_the_verdicts_are_holms_procedure_over_the_compared_loads():
    """Three loads with p-values p1 < p2 < p3: Holm compares them with 0.01/3, 0.01/2, 0.01 in
    that order and stops at the first not rejected; the sign names the direction."""
    loads = [0.5, 0.7, 0.9]
    se = 0.1

    def at_p(p):                         # the difference whose Welch t (df 58) has two-sided p-value p
        return stats.t.isf(p / 2, 58) * se * math.sqrt(2)
    cases = {  # (p-values of the three loads, signs) -> verdicts
        ((0.002, 0.004, 0.009), (-1, +1, -1)): ["lower", "higher", "lower"],
        ((0.002, 0.006, 0.009), (-1, -1, -1)): ["lower", "not resolved", "not resolved"],   # 0.006 > 0.01/2
        ((0.004, 0.0001, 0.02), (-1, -1, -1)): ["lower", "lower", "not resolved"],
    }
    for (ps, signs), expected in cases.items():
        rows = []
        for load, p, sign in zip(loads, ps, signs):
            rows += [_row(load, m.JSQ2, 2.0), _row(load, m.MEMORY, 2.0 + sign * at_p(p))]
        out = m.comparison_rows(rows, loads, _runs_at(rows, se))
        assert [c["verdict"] for c in out] == expected, (ps, out)
        np.testing.assert_allclose([c["p"] for c in out], ps, rtol=1e-8)
        assert sorted(c["threshold"] for c in out) == pytest.approx([0.01 / 3, 0.01 / 2, 0.01])


def test_a_load_whose_run_means_fail_their_checks_is_not_resolved_and_leaves_the_family():
    """The same large difference at two loads; at the second the memory policy has only 8 run means:
    it is not resolved, whatever its t, and the first load is alone in Holm's family."""
    loads = [0.5, 0.9]
    rows = [_row(0.5, m.JSQ2, 2.0), _row(0.5, m.MEMORY, 1.0), _row(0.9, m.JSQ2, 3.0), _row(0.9, m.MEMORY, 2.0)]
    runs = _runs_at(rows)
    runs[0.9, m.MEMORY] = _symmetric_runs(2.0, 0.1, n=8)
    first, second = m.comparison_rows(rows, loads, runs)
    assert first["verdict"] == "lower" and first["threshold"] == pytest.approx(0.01)
    assert second["verdict"] == "not resolved" and math.isnan(second["threshold"]) and second["p"] < 1e-6
    assert second["why"].startswith(f"8 run means of {m.MEMORY}: a t test needs at least 30")
    text = m._comparison_text([first, second])
    assert "of the 1 loads compared" in text and "**not resolved**: 8 run means" in text


def test_the_finding_names_the_lower_loads_and_those_not_judged():
    loads = [0.5, 0.7, 0.9]
    rows = [_row(0.5, m.JSQ2, 2.0), _row(0.5, m.MEMORY, 1.0), _row(0.7, m.JSQ2, 3.0), _row(0.7, m.MEMORY, 2.0),
            _row(0.9, m.JSQ2, 4.0), _row(0.9, m.MEMORY, 3.0)]
    runs = _runs_at(rows)
    runs[0.7, m.JSQ2] = _symmetric_runs(3.0, 0.1, n=8)
    text = m.comparison_summary(m.comparison_rows(rows, loads, runs))
    assert text.startswith("Significantly lower (Welch's $t$ on the run means, Holm's procedure over 2 loads")
    assert "at loads 0.5 and 0.9; not judged at load 0.7, whose run means fail the book's checks" in text
    assert "not judged" not in m.comparison_summary(m.comparison_rows(rows, loads, _runs_at(rows)))


def test_a_load_without_both_means_is_not_compared_and_not_counted_in_the_family():
    loads = [0.5, 0.9]
    rows = [_row(0.5, m.JSQ2, 2.0), _row(0.5, m.MEMORY, 1.0),
            _row(0.9, m.JSQ2, float("nan")), _row(0.9, m.MEMORY, 3.0)]
    first, second = m.comparison_rows(rows, loads, _runs_at(rows))
    assert second["verdict"] == "not compared"
    assert first["threshold"] == pytest.approx(0.01) and first["verdict"] == "lower"


def test_comparison_rows_names_missing_run_means():
    rows = [_row(0.5, m.JSQ2, 2.0), _row(0.5, m.MEMORY, 1.0)]
    with pytest.raises(ParameterError, match="`runs`"):
        m.comparison_rows(rows, [0.5], {})


def test_the_exact_chain_of_local_jsq2_on_the_tiny_graph_is_the_candidate_chain():
    """The page's exact route (policy_stationary over the policy's exact rule, enumerated from
    empty queues) against the other exact route of the package: the grid chain of the candidate
    lists of local JSQ(2) (exact.stationary), on the page's tiny graph."""
    graph = from_adjacency(np.array(m.TINY_ADJACENCY), list(m.TINY_TYPES), list(m.TINY_CLUSTERS))
    states, pi = policy_stationary(m.TINY_SYSTEM, graph, LocalJSQ(d=2), 8)
    cands = [local_candidates(graph.neighbors[graph.offset[i]:graph.offset[i] + graph.degree[i]], 2)
             for i in range(graph.n_dispatchers)]
    rates = np.asarray(m.TINY_SYSTEM.u, dtype=float)[np.asarray(graph.server_type)]
    grid_states, grid_pi = stationary(cands, m.TINY_SYSTEM.arrival_rate, rates, 8)
    ours = m._type_means(states, pi, m.TINY_TYPES)
    theirs = m._type_means(grid_states, grid_pi, m.TINY_TYPES)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)


#: the page at a small size whose records and comparisons the book's tests can judge: 30 runs on the
#: tiny graph and at each Sec. 6 point (the fewest a t test judges), short runs of a 40-server system
SMALL = dict(seed=3, n_servers=40, loads=[0.5, 0.8], n_runs=30, warmup=20.0, horizon=60.0, exact_runs=30,
             exact_horizon=800.0)


@pytest.fixture(scope="module")
def tiny():
    return m.compute(**SMALL)


def test_the_tiny_page_checks_each_server_type_against_the_exact_chain(tiny):
    assert len(tiny.claims) == 2
    for claim, row in zip(tiny.claims, tiny.tables["tiny"]):
        assert claim.category == "check" and claim.reference == row["exact_memory"]
        assert len(claim.ours_runs) == SMALL["exact_runs"] and claim.ours_df == SMALL["exact_runs"] - 1
        assert claim.ours == pytest.approx(row["simulated"]) and claim.ours_se == pytest.approx(row["se"])
        assert row["ci_low"] < row["simulated"] < row["ci_high"]
        assert not claim.family      # the two types share their runs: no joint test as if independent


def test_the_tiny_checks_carry_30_run_means_and_are_judged_by_the_t_test(tiny):
    """At a fixed seed the simulator's two type means are judged by the book's t test on their run
    means (enough of them, not skewed): each holds, in one family of the page's two hypotheses."""
    from qtheory.verdicts import MIN_RUNS, judge

    judgement = judge(tiny.claims)
    assert all(len(c.ours_runs) >= MIN_RUNS for c in tiny.claims)
    assert [v.label for v in judgement.verdicts] == ["holds", "holds"]
    assert all(v.comparison.testable and v.threshold is not None for v in judgement.verdicts)
    assert judgement.size == 2 and judgement.joint == ()


def test_the_tiny_page_compares_both_policies_at_every_load_and_says_how(tiny):
    assert [c["load"] for c in tiny.tables["comparison"]] == [0.5, 0.8]
    for c in tiny.tables["comparison"]:
        assert c["verdict"] in ("lower", "higher", "not resolved")
        assert f"Load {c['load']:g}: difference" in tiny.text and f"**{c['verdict']}**" in tiny.text
    assert tiny.findings[0].title.startswith("JSQ(2) with memory has ")


def test_the_comparisons_at_30_runs_are_judged_on_the_run_means(tiny):
    """Each compared load's test has the run means of both policies (30 a side) behind it, passes
    their checks and takes part in Holm's family: memory is lower at both loads."""
    rows = {(r["load"], r["policy"]): r for r in tiny.rows}
    for c in tiny.tables["comparison"]:
        assert math.isfinite(c["threshold"]) and c["verdict"] == "lower"
        memory, jsq2 = rows[c["load"], m.MEMORY], rows[c["load"], m.JSQ2]
        assert memory["runs"] == jsq2["runs"] == SMALL["n_runs"]
        assert c["difference"] == pytest.approx(memory["mean_queue_length"] - jsq2["mean_queue_length"])
        assert c["df"] > SMALL["n_runs"] - 1          # Welch's degrees of freedom over both samples


@pytest.mark.parametrize("kwargs, name", [
    (dict(exact_horizon=150.0), "exact_horizon"), (dict(exact_runs=1), "exact_runs"), (dict(n_runs=1), "n_runs"),
    (dict(loads=[0.5, 1.0]), "loads"), (dict(loads=[]), "loads"), (dict(n_servers=5), "n_servers"),
    (dict(warmup=40.0), "warmup")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    args = dict(seed=3, n_servers=40, loads=[0.5], n_runs=3, warmup=5.0, horizon=30.0, exact_runs=3,
                exact_horizon=400.0) | kwargs
    with pytest.raises(ParameterError, match=f"`{name}`"):
        m.compute(**args)


def test_the_page_has_no_machine_text(tiny):
    """Captions, lines, verdict evidence and the finding as the book's prose check reads them
    (tests/book/test_prose.py: the CI's browser run caught the mass at the truncation written
    as a raw float)."""
    from tests.book.test_prose import machine_text

    texts = [tiny.text, *(d.caption for d in tiny.displays), tiny.figure["caption"],
             *(c.evidence for c in tiny.claims), *(c.text for c in tiny.claims),
             tiny.findings[0].title, tiny.findings[0].text]
    import re

    assert machine_text([re.sub(r"\$[^$]*\$", "", t) for t in texts]) == []     # math is typeset, not prose


def test_a_chain_over_queues_and_memory_past_max_states_is_refused_by_name():
    """16 queue states pass the grid check; the remembered servers multiply them past 20."""
    from qtheory.locality.policies import JSQdMemory

    graph = from_adjacency(np.array(m.TINY_ADJACENCY), list(m.TINY_TYPES), list(m.TINY_CLUSTERS))
    with pytest.raises(ParameterError, match=r"more than 20 states: raise `max_states`"):
        policy_stationary(m.TINY_SYSTEM, graph, JSQdMemory(d=2), 1, max_states=20)
