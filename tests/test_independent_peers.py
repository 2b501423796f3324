"""The independent C loops (benchmarks/independent) simulate the benchmarked models.

They are written from the papers, not from the kernels, and use the random numbers
differently (no exponential draws, other reuse of uniforms), so they cannot follow the
numba kernels' paths: they are checked in law. For every model the compared statistic of
24 independent runs of the C loop agrees with that of 24 runs of the numba simulator, and
where an exact value is known it agrees with that value:

- R: the product-form mean number of jobs (c.o.c. and c.o.s.-ALIS);
- flow balance, for any policy: the busy fraction of the supermarket is lambda, the mean
  departure rate of local JSQ(2) equals the arrival rate, the mean number of busy servers of
  c.o.s. is lambda N (every job is one unit of work at one server), and the tasks per pool
  of the U system have mean rho (an M/M/infinity queue).

Tolerances: the standard error is the spread of the run means (independent runs), the
quantile that of Student's t with 23 degrees of freedom at a familywise level of 1e-3
over the 15 comparisons of this file (Bonferroni): 4.8 standard errors. Runs start empty;
where an exact value is compared, the warm-up is long against the relaxation time, so
that what is left of the transient is far below one standard error (said per test).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import independent  # noqa: E402
from benchmarks.peers import models  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

SEEDS = range(24)
COMPARISONS = 15


def _quantile() -> float:
    from scipy import stats

    return float(stats.t.ppf(1 - 1e-3 / (2 * COMPARISONS), len(SEEDS) - 1))


def _mean_se(values):
    v = np.asarray(values, dtype=float)
    return v.mean(), v.std(ddof=1) / np.sqrt(v.size)


def test_the_tolerance_is_about_five_standard_errors():
    assert 4.5 < _quantile() < 5.0


#: run sizes of the comparison with numba: each case's parameters as benchmarked (N = 1000
#: for L), shorter runs
SCALES = {"supermarket": {"horizon": 150.0, "n_factor": 10}, "local_jsqd": {"horizon": 60.0, "n_factor": 10},
          "coc": {"r_events": 200_000}, "cos": {"r_events": 200_000}, "jlmu": {"u_horizon": 60.0},
          "slta": {"u_horizon": 60.0}}


@pytest.mark.parametrize("key", list(SCALES))
def test_independent_loop_agrees_with_the_numba_simulator(key):
    """Same statistic (mean queue length, mean jobs, utility per pool) within the t
    quantile of the combined standard error, and about as many events per run (the C loops
    read warm-up and horizon on the clock of the expected holding times: the counts agree
    within 1 %, far more than the Poisson spread of about 0.1 %)."""
    scale = SCALES[key]
    c = [independent.run(key, 1000 + s, scale) for s in SEEDS]
    numba = [models.run(key, "numba", s, scale) for s in SEEDS]
    (mc, sc), (mn, sn) = _mean_se([r.statistic for r in c]), _mean_se([r.statistic for r in numba])
    assert abs(mc - mn) <= _quantile() * np.hypot(sc, sn), (key, mc, sc, mn, sn)
    ratio = np.mean([r.events for r in c]) / np.mean([r.events for r in numba])
    assert abs(ratio - 1) < 0.01, (key, ratio)


def test_supermarket_with_ten_queues_agrees_with_the_numba_simulator():
    """At N = 10 the two sampled queues being distinct matters (with replacement, a tenth of
    the arrivals would join a random queue), which N = 1000 cannot tell within its errors."""
    scale = {"horizon": 20_000.0, "n_factor": 0.1}
    c = [independent.run("supermarket", 1000 + s, scale).statistic for s in SEEDS]
    numba = [models.run("supermarket", "numba", s, scale).statistic for s in SEEDS]
    (mc, sc), (mn, sn) = _mean_se(c), _mean_se(numba)
    assert abs(mc - mn) <= _quantile() * np.hypot(sc, sn), (mc, sc, mn, sn)


def test_supermarket_busy_fraction_is_lambda():
    """Flow balance: the stationary busy fraction of single-server queues of rate 1 fed at
    rate lambda per server is lambda, whatever the dispatching. Warm-up 100 against a
    relaxation time of about 1 / (1 - lambda) = 10 from empty queues."""
    lam = models.CASES["supermarket"].params["lam"]
    runs = [independent.supermarket(independent.L_SERVERS, lam, 300.0, 100.0, s, check=True) for s in SEEDS]
    m, se = _mean_se([r.check for r in runs])
    assert abs(m - lam) <= _quantile() * se, (m, se)
    assert se < 1.5e-3        # a 1 % error of lambda (0.009) is then more than 6 standard errors


def test_local_jsq2_departure_rate_equals_the_arrival_rate():
    """Flow balance on the Sec. 6 system (load lambda zeta / sum_m u_m v_m = 0.75): the
    time-averaged departure rate sum_m u_m (busy servers of type m) over lambda W is 1.
    Warm-up 50 from empty queues (the transient of the mean field lasts a few time units)."""
    system, graph = independent._locality_setup("local_jsqd", independent.L_SERVERS)
    runs = [independent.local_jsq2(system, graph, 110.0, 50.0, s, check=True) for s in SEEDS]
    m, se = _mean_se([r.check for r in runs])
    assert abs(m - 1.0) <= _quantile() * se, (m, se)
    assert se < 1.5e-3        # a 1 % error is more than 6 standard errors


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_redundancy_loop_matches_the_product_form(mechanism):
    """The time-averaged number of jobs on circular-2, N = 20, lambda = 0.9 (setting 10 of
    Table 1) against the exact product-form mean; for c.o.s. also the busy servers, lambda N
    on average. Warm-up 100 000 events (about 2800 time units) against a relaxation time of
    the total count of a few hundred."""
    from qtheory.redundancy import model as M
    from qtheory.redundancy import productform as PF

    exact = PF.total_jobs_moments(M.circular_d(20, 2), 0.9, mechanism).mean
    runs = [independent.redundancy(mechanism, 20, 2, 0.9, 1_000_000, 100_000, 50 + s, check=True) for s in SEEDS]
    m, se = _mean_se([r.statistic for r in runs])
    assert abs(m - exact) <= _quantile() * se, (m, se, exact)
    assert se < 0.004 * exact        # an error of 2 % is more than 5 standard errors
    if mechanism == "cos":
        m, se = _mean_se([r.check for r in runs])
        assert abs(m - 1.0) <= _quantile() * se, (m, se)


@pytest.mark.parametrize("policy", ["jlmu", "slta"])
def test_utility_loop_tasks_per_pool_is_rho(policy):
    """The task count is an M/M/infinity queue under any policy: tasks per pool have mean
    rho = 10. Warm-up 10 = 10 / mu from empty pools leaves about 1000 e^-10 = 0.05 tasks of the
    transient, 5e-4 per pool, against a standard error of about 0.01."""
    from qtheory.utility import table1_system

    runs = [independent.utility(table1_system(10.0), 100, policy, 60.0, 10.0, 70 + s, models.U_DEPTH, check=True)
            for s in SEEDS]
    m, se = _mean_se([r.check for r in runs])
    assert abs(m - 10.0) <= _quantile() * se, (m, se)
    assert se < 0.02          # 1 % of rho is more than 5 standard errors


def test_slta_learning_index_agrees_with_the_numba_simulator():
    """The time-averaged index r_n of SLTA's learning scheme (its rules barely move the
    utility, so the utility alone would not tell a wrong rule)."""
    from qtheory.utility import simulate, table1_system

    system = table1_system(10.0)
    c = [independent.utility(system, 100, "slta", 60.0, 10.0, 1000 + s, models.U_DEPTH, check=True).check2
         for s in SEEDS]
    numba = []
    for s in SEEDS:
        res = simulate(system, 100, "slta", horizon=60.0, seed=s, warmup=10.0, max_occupancy=models.U_DEPTH)
        numba.append(float(np.arange(res.r_distribution.size) @ res.r_distribution))
    (mc, sc), (mn, sn) = _mean_se(c), _mean_se(numba)
    assert abs(mc - mn) <= _quantile() * np.hypot(sc, sn), (mc, sc, mn, sn)
    assert mc > 2                                  # the index moved: the learning rules ran


def test_the_benchmark_build_leaves_the_check_out():
    """The timed loops compute only the statistic the benchmark reads."""
    run = independent.run("cos", 1, {"r_events": 10_000})
    assert np.isnan(run.check) and np.isnan(run.check2) and run.events == 11_000 and run.statistic > 0


@pytest.mark.parametrize("source, args", [
    ("jsq2", ["1", "0.9", "10", "1", "0"]),                          # N < 2
    ("jsq2", ["100", "0.9", "10", "20", "0"]),                       # warm-up past the horizon
    ("redundancy", ["cos", "20", "2", "1.2", "1000", "0", "0"]),     # lambda >= 1
    ("redundancy", ["lifo", "20", "2", "0.9", "1000", "0", "0"]),    # unknown mechanism
    ("utility", ["jlmu", "100", "2", "75", "10", "1", "5", "6", "0", "1", "100", "0", "0"]),  # warm-up > horizon
])
def test_the_loops_reject_bad_arguments(source, args):
    out = subprocess.run([str(independent.binary(source)), *args], capture_output=True, text=True)
    assert out.returncode == 2 and "bad arguments" in out.stderr


def test_the_wrappers_name_bad_parameters():
    with pytest.raises(ValueError, match="`mechanism`"):
        independent.redundancy("lifo", 20, 2, 0.9, 1000, 0, 1)
    with pytest.raises(KeyError, match="gwsq"):
        independent.run("gwsq", 1, {"horizon": 1.0})
