"""Row builders of the U notebooks: Fig. 3's columns, the Poisson rows, collision-free seeds."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.utility import (LogUtility, PoolSystem, figure3_right_system, optimal_assignment, pool_columns,
                             poisson_rows)


def test_pool_columns_realise_the_optimal_assignment():
    system = figure3_right_system()
    for rho in (2.0, 5.0, 8.0):
        cols = pool_columns(system, 12, rho)
        tasks = np.array([c["tasks"] for c in cols])
        cls = np.array([c["cls"] for c in cols])
        assert tasks.sum() == 12 * rho
        q = optimal_assignment(system, rho).q
        for i in range(3):
            for j in range(1, q.shape[1]):  # pools of class i with at least j tasks
                assert np.sum((cls == i + 1) & (tasks >= j)) == pytest.approx(12 * q[i, j], abs=1e-9)
    # at rho = 2 class 2 is full at 5 tasks and class 3 holds the remaining 0.75 per pool (Sec. 2.3.1's order)
    assert [c["tasks"] for c in pool_columns(system, 12, 2.0) if c["cls"] == 2] == [5, 5, 5]
    with pytest.raises(ParameterError, match="whole number"):
        pool_columns(system, 12, 2.01)


def test_poisson_rows_use_a_stream_per_policy():
    system = PoolSystem((LogUtility(4), LogUtility(6)), (0.5, 0.5), 1.5)
    _, a = poisson_rows(system, 10, ["random", "jlmu"], horizon=200.0, warmup=10.0, n_runs=4, seed=3)
    _, b = poisson_rows(system, 10, ["jlmu"], horizon=200.0, warmup=10.0, n_runs=4, seed=3)
    # the seed is keyed by the policy's name, not its position in the list
    assert a[1]["mean_tasks"] == b[0]["mean_tasks"]


def test_poisson_bins_are_the_counts_between_the_poisson_quintiles():
    from scipy import stats

    from qtheory.utility.experiments import poisson_bins

    for mean, size in ((15.0, 60), (15.0, 20), (195.0, 320), (487.5, 700)):
        which, probability = poisson_bins(mean, size)
        cuts = stats.poisson.ppf([0.2, 0.4, 0.6, 0.8], mean)
        counts = np.arange(size)
        # bin j: the counts above the j-th quintile and at most the (j+1)-th
        assert np.array_equal(which, (counts[:, None] > cuts[None, :]).sum(axis=1))
        pmf = stats.poisson.pmf(counts, mean)
        inside = [pmf[which == j].sum() for j in range(5)]
        inside[-1] += stats.poisson.sf(size - 1, mean)        # the last bin holds the tail beyond `size`
        assert probability == pytest.approx(inside, abs=1e-12) and probability.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(np.abs(probability - 0.2) < stats.poisson.pmf(int(mean), mean) + 1e-12)
    # quantiles that coincide (a small mean) make one bin
    which, probability = poisson_bins(0.3, 5)
    assert which.tolist() == [0, 1, 2, 2, 2] and probability == pytest.approx([np.exp(-0.3), 0.3 * np.exp(-0.3),
                                                                              1 - 1.3 * np.exp(-0.3)])


def test_one_sign_flip_test_judges_the_fifths_of_the_poisson_law_under_every_policy():
    """30 runs of 600 time units per policy of a 40-pool system (n s_n Poisson(60)): the shares of
    time in the five fifths are symmetric enough for the sign-flip test (at this seed) and agree with
    Poisson within 10% of their probability; the law moved by one count is rejected."""
    from qtheory.utility.experiments import poisson_bins, poisson_samples, poisson_test
    from qtheory.verdicts import judge_one

    system = PoolSystem((LogUtility(4), LogUtility(6)), (0.5, 0.5), 1.5)
    samples = poisson_samples(system, 40, ["random", "jlmu"], horizon=610.0, warmup=10.0, n_runs=30, seed=3)
    test = poisson_test(system, 40, samples, seed=3)
    assert test.size == 2 * 5 and not test.why_not and test.p > 0.01 and test.resolved
    assert judge_one(test.record(item="U-X-poisson", text="law", source="Sec. 2.1")).label == "agrees"
    # the test's quantities: each run's share of time in each fifth, against its Poisson probability
    largest = 0.0
    for g in samples:
        which, probability = poisson_bins(60.0, g["dists"].shape[1])
        shares = np.stack([g["dists"][:, which == j].sum(axis=1) for j in range(5)], axis=1)
        t = (shares.mean(axis=0) - probability) / (shares.std(axis=0, ddof=1) / np.sqrt(30))
        largest = max(largest, float(np.max(np.abs(t))))
    assert test.largest == pytest.approx(largest, rel=1e-9)
    # the law moved by one count (Poisson(60) shifted) is rejected
    moved = [dict(g, dists=np.roll(g["dists"], 1, axis=1)) for g in samples]
    assert poisson_test(system, 40, moved, seed=3).p < 0.01
