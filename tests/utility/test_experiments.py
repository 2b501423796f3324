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


def test_poisson_rows_use_a_stream_per_policy_and_one_test_judges_every_count():
    from qtheory.utility.experiments import poisson_samples, poisson_test
    from qtheory.verdicts import judge_one

    system = PoolSystem((LogUtility(4), LogUtility(6)), (0.5, 0.5), 1.5)
    _, a = poisson_rows(system, 10, ["random", "jlmu"], horizon=200.0, warmup=10.0, n_runs=4, seed=3)
    _, b = poisson_rows(system, 10, ["jlmu"], horizon=200.0, warmup=10.0, n_runs=4, seed=3)
    # the seed is keyed by the policy's name, not its position in the list
    assert a[1]["mean_tasks"] == b[0]["mean_tasks"]
    samples = poisson_samples(system, 10, ["random", "jlmu"], horizon=400.0, warmup=10.0, n_runs=6, seed=3)
    test = poisson_test(system, 10, samples, seed=3)
    # counts with Poisson(15) probability above 1e-3, for each of the two policies
    from scipy import stats
    kmax = samples[0]["dists"].shape[1]
    assert test.size == 2 * int(np.sum(stats.poisson.pmf(np.arange(kmax), 15.0) > 1e-3))
    assert test.p > 0.01
    # the law moved by one count (Poisson(15) shifted) is rejected
    moved = [dict(g, dists=np.roll(g["dists"], 1, axis=1)) for g in samples]
    assert poisson_test(system, 10, moved, seed=3).p < 0.01
