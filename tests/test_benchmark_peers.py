"""The benchmarks' peer implementations simulate the same models as qtheory's simulators.

Throughput ratios in ``benchmarks/run.py`` are only meaningful if every peer computes
the same statistic of the same model. Each test runs independent seeded replications
of two implementations (or one against an exact value) and requires agreement within
5 combined standard errors, the standard error estimated from the replications.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.peers import models, plain, simpy_models  # noqa: E402
from benchmarks.peers import csupermarket  # noqa: E402

Z = 5.0
#: the C peers are compiled with gcc (benchmarks/peers/csupermarket.py, cbuild.py): without it they are skipped
NEEDS_GCC = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the C peers")


def _mean_se(values):
    v = np.asarray(values, dtype=float)
    return v.mean(), v.std(ddof=1) / np.sqrt(v.size)


def _agree(a, b):
    (ma, sa), (mb, sb) = _mean_se(a), _mean_se(b)
    assert abs(ma - mb) <= Z * np.hypot(sa, sb), (ma, sa, mb, sb)


def _small(key, impl, seeds, **scale):
    return [models.run(key, impl, s, scale).statistic for s in seeds]


SEEDS = range(8)


def test_supermarket_peers_agree_with_numba():
    scale = {"horizon": 60.0}
    numba = _small("supermarket", "numba", SEEDS, **scale)
    _agree(numba, _small("supermarket", "plain", SEEDS, **scale))
    _agree(numba, _small("supermarket", "simpy", SEEDS, **scale))


@NEEDS_GCC
def test_c_supermarket_agrees_with_numba_and_with_the_mean_field_limit():
    scale = {"horizon": 300.0, "n_factor": 10}      # N = 1000: close to the N -> infinity limit
    numba = _small("supermarket", "numba", SEEDS, **scale)
    c = _small("supermarket", "c", SEEDS, **scale)
    _agree(numba, c)
    _agree(numba, _small("supermarket", "c_mt", SEEDS, **scale))
    # Against the mean-field limit. The N = infinity value of this statistic (grid average on
    # [warm-up, horizon] from empty queues) is the same average of the ODE's mean queue length;
    # it lies below the fixed point's mean sum_k lam^(2^k - 1) by the transient left after the
    # warm-up (both computed). What remains is the O(1/N) bias of the finite system: bounded
    # from N0 = 100 (cheap runs) as 2 (N0 / N)(|dev_N0| + t se_N0), the factor 2 covering the
    # O(1/N^2) terms (relatively O(1/N0)). Two t tests, familywise level 1e-3 (Bonferroni).
    from scipy import stats

    from benchmarks.peers.models import L_WARMUP
    from qtheory.locality.meanfield import solve_meanfield
    from qtheory.locality.model import LocalitySystem

    lam = models.CASES["supermarket"].params["lam"]
    limit = sum(lam ** (2 ** k - 1) for k in range(1, 12))
    grid = np.linspace(0.0, scale["horizon"], 1001)          # the grid of models._locality
    ode = solve_meanfield(LocalitySystem(lam, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2), np.zeros((1, 1)),
                          grid).mean_queue_length[:, 0]
    reference = ode[grid >= min(L_WARMUP, scale["horizon"] / 2)].mean()
    assert 0 < limit - reference < 0.02                       # the transient after the warm-up
    small = _small("supermarket", "c", range(100, 356), horizon=scale["horizon"], n_factor=1)
    m0, s0 = _mean_se(small)
    t0 = stats.t.ppf(1 - 1e-3 / 4, len(small) - 1)
    bias = 2 * (100 / 1000) * (abs(m0 - reference) + t0 * s0)
    assert bias < 0.02
    mc, sc = _mean_se(c)
    t = stats.t.ppf(1 - 1e-3 / 4, len(c) - 1)
    assert abs(mc - reference) <= t * sc + bias, (mc, sc, reference, bias)


@pytest.mark.parametrize("key", ["supermarket", "gwsq"])
def test_ciw_peer_agrees_with_numba(key):
    """One Ciw run (Ciw is slow) against numba runs of the same length: the spread of numba's
    single runs is the standard error of the single Ciw run (same model, same estimator)."""
    pytest.importorskip("ciw")
    horizon = {"supermarket": 30.0, "gwsq": 16.0}[key]
    scale = {"horizon": horizon}
    numba = np.array(_small(key, "numba", range(12), **scale))
    ciw_run = models.run(key, "ciw", 7, scale)
    sd = numba.std(ddof=1)
    assert abs(ciw_run.statistic - numba.mean()) <= Z * sd * np.sqrt(1 + 1 / numba.size), (ciw_run, numba)
    # arrivals + departures: about twice the expected arrivals lambda W t, less the final backlog
    expected_arrivals = {"supermarket": 0.9 * 100, "gwsq": 3.0 * 100}[key] * horizon
    assert 1.8 * expected_arrivals < ciw_run.events < 2.1 * expected_arrivals


@pytest.mark.parametrize("key", ["local_jsqd", "gwsq"])
def test_locality_peers_agree_with_numba(key):
    scale = {"horizon": 40.0}
    numba = _small(key, "numba", SEEDS, **scale)
    _agree(numba, _small(key, "plain", SEEDS, **scale))
    _agree(numba, _small(key, "simpy", SEEDS[:4], **scale))


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_redundancy_plain_peer_matches_the_product_form(mechanism):
    from qtheory.redundancy import model as M
    from qtheory.redundancy import productform as PF

    system = M.circular_d(6, 2)
    lam = 0.7
    exact = PF.total_jobs_moments(system, lam, mechanism).mean
    types = [list(t) for t in system.types]
    stats = [plain.redundancy(types, list(system.probabilities), list(system.speeds), lam, 20_000, 2_000, s,
                              mechanism=mechanism).statistic for s in SEEDS]
    m, se = _mean_se(stats)
    assert abs(m - exact) <= Z * se, (m, se, exact)
    func = simpy_models.redundancy_cos if mechanism == "cos" else simpy_models.redundancy_coc
    stats = [func(types, list(system.probabilities), list(system.speeds), lam, 2000.0, 200.0, s).statistic
             for s in SEEDS]
    m, se = _mean_se(stats)
    assert abs(m - exact) <= Z * se, (m, se, exact)


def test_jlmu_peers_agree_with_numba():
    scale = {"u_horizon": 20.0}
    numba = _small("jlmu", "numba", SEEDS, **scale)
    _agree(numba, _small("jlmu", "plain", SEEDS, **scale))
    _agree(numba, _small("jlmu", "simpy", SEEDS[:4], **scale))


def test_slta_peers_agree_with_numba():
    scale = {"u_horizon": 25.0}
    numba = _small("slta", "numba", SEEDS, **scale)
    _agree(numba, _small("slta", "plain", SEEDS[:6], **scale))
    _agree(numba, _small("slta", "simpy", SEEDS[:6], **scale))


def test_c_mersenne_twister_is_numpys():
    """The C build with -DUSE_MT19937 draws NumPy's legacy doubles (numba's generator)."""
    import re
    import subprocess
    import tempfile

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc")
    src = csupermarket.SOURCE.read_text()
    block = re.search(r"#ifdef USE_MT19937\n(.*?)\n#else", src, re.S).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "mt.c"
        prog.write_text("#include <stdint.h>\n#include <stdio.h>\n" + block +
                        '\nint main(void){mt_seed(12345u);for(int i=0;i<5;i++)printf("%.17g\\n",uniform());}\n')
        subprocess.run([gcc, "-O2", "-o", str(Path(tmp) / "mt"), str(prog)], check=True)
        out = subprocess.run([str(Path(tmp) / "mt")], capture_output=True, text=True, check=True).stdout.split()
    expected = np.random.RandomState(12345).random_sample(5)
    assert np.array_equal(np.array(out, dtype=float), expected)


@NEEDS_GCC
def test_c_binary_rejects_bad_arguments():
    import subprocess

    binary = csupermarket.build()
    out = subprocess.run([str(binary), "1", "0.9", "10", "1", "11", "10", "0"], capture_output=True, text=True)
    assert out.returncode == 2


# -- the C loops of the R and U kernels ---------------------------------------------------
def _t_quantile(dof, comparisons=4, level=1e-3):
    """Two-sided t quantile at familywise `level` over `comparisons` tests (Bonferroni)."""
    from scipy import stats

    return float(stats.t.ppf(1 - level / (2 * comparisons), dof))


def _redundancy_kernel_system(system):
    from qtheory.redundancy.simulation import _kernel_system

    kernel_system = _kernel_system(system)
    # redundancy.c draws the type as floor(k x): the alias table must be the identity; it
    # serves every type by its d servers, at speed 1
    k, d = kernel_system.type_servers.shape
    assert np.array_equal(kernel_system.type_servers, np.array(system.types))
    assert np.all(kernel_system.prob == 1.0) and np.array_equal(kernel_system.alias, np.arange(k))
    assert np.all(kernel_system.type_deg == d) and np.all(kernel_system.speeds == 1.0)
    return kernel_system


@NEEDS_GCC
@pytest.mark.parametrize("mechanism", ["cos", "coc"])
@pytest.mark.parametrize("seed", [3, 2**40 + 1])
def test_c_redundancy_and_the_numba_kernel_simulate_the_same_path(mechanism, seed):
    """Fed the same xoshiro256+ stream, redundancy.c and the numba kernel take the same
    decisions event by event (initial jobs, warm-up and recording included): every
    statistic, per-type integral and histogram bin is equal to the last bit."""
    from benchmarks.peers import credundancy
    from qtheory._rng import seed_state
    from qtheory.redundancy import model as M
    from qtheory.redundancy import simulation as SIM
    from qtheory.redundancy.mechanisms import as_mechanism
    from qtheory.redundancy.simulation import _kernel

    system = M.circular_d(20, 2)
    lam, n_events, warmup, init_jobs = 0.9, 100_000, 10_000, 40
    mech = as_mechanism(mechanism)
    config = SIM.Configuration(mechanism=int(mech.cancel_on_start), lam_total=20 * lam, n_events=n_events,
                               warmup=warmup, init_jobs=init_jobs, track_a=0, track_b=19, hist_max=400,
                               n_batches=32, fifo_cap=SIM._FIFO_CAP,
                               all_statistics=True)
    out = _kernel(mech)(_redundancy_kernel_system(system), config, seed_state(seed))
    c = credundancy.run_full(mechanism, 20, 2, lam, n_events, warmup, seed, init_jobs=init_jobs)
    sums = out.sums
    assert out.code == c.code == 0 and c.steps == n_events + warmup + init_jobs
    assert sums.events == n_events and sums.arrivals > 0.3 * n_events           # events and arrivals recorded
    assert sorted(set(credundancy.STAT_NAMES)) == sorted(sums._fields)
    for name, value in zip(credundancy.STAT_NAMES, c.stats):
        assert getattr(sums, name) == value, name
    for a, b in ((out.hist_t, c.hist_t), (out.hist_e, c.hist_e), (out.acc_t, c.acc_t), (out.acc_e, c.acc_e)):
        assert np.array_equal(a, b)


@NEEDS_GCC
@pytest.mark.parametrize("mechanism", ["cos", "coc"])
def test_c_redundancy_agrees_with_numba_and_the_product_form(mechanism):
    """Independent streams (numba seeded by kernel_state, C by splitmix64): the mean number
    of jobs of 16 runs each agrees between the two and with the exact product-form value.
    Runs start empty; the warm-up (30 000 events, about 800 time units) is long against the
    relaxation time of the total count. The standard error is the spread of the 16 run
    means (independent batches), the quantile is t with 15 degrees of freedom at familywise
    level 1e-3 over the 3 comparisons (4.9 standard errors, about 2 jobs of 50)."""
    from benchmarks.peers import credundancy
    from qtheory.redundancy import model as M
    from qtheory.redundancy import productform as PF
    from qtheory.redundancy.simulation import simulate

    system = M.circular_d(20, 2)
    lam, n_events, warmup = 0.9, 300_000, 30_000
    exact = PF.total_jobs_moments(system, lam, mechanism).mean
    seeds = range(16)
    numba = [simulate(system, lam, n_events=n_events, mechanism=mechanism, seed=s, warmup_events=warmup).mean_jobs for s in seeds]
    c = [credundancy.run(mechanism, 20, 2, lam, n_events, warmup, 100 + s).statistic for s in seeds]
    t = _t_quantile(len(seeds) - 1, comparisons=3)
    (mn, sn), (mc, sc) = _mean_se(numba), _mean_se(c)
    assert abs(mn - mc) <= t * np.hypot(sn, sc), (mn, sn, mc, sc)
    assert abs(mc - exact) <= t * sc, (mc, sc, exact)
    assert abs(mn - exact) <= t * sn, (mn, sn, exact)


def _numba_utility_with_seed_state(system, n, policy, horizon, warmup, seed):
    """`simulate` with the kernel's generator seeded like the C loop's (splitmix64 of `seed`)."""
    import qtheory.utility.simulation as S
    from qtheory._rng import seed_state

    original = S.kernel_state
    S.kernel_state = lambda s: seed_state(s)
    try:
        return S.simulate(system, n, policy, horizon=horizon, seed=seed, warmup=warmup, max_occupancy=models.U_DEPTH)
    finally:
        S.kernel_state = original


@NEEDS_GCC
@pytest.mark.parametrize("policy", ["jlmu", "slta"])
@pytest.mark.parametrize("seed", [3, 2**40 + 1])
def test_c_utility_and_the_numba_kernel_simulate_the_same_path(policy, seed):
    """Fed the same xoshiro256+ stream, utility.c and the numba kernel take the same path on
    the Table 1 system (n = 100, rho = 10): same events, and the utility, task and occupancy
    integrals and the law of SLTA's index equal to the last bit."""
    from benchmarks.peers import cutility
    from qtheory.utility import table1_system

    system = table1_system(10.0)
    n, horizon, warmup = 100, 60.0, 10.0
    res = _numba_utility_with_seed_state(system, n, policy, horizon, warmup, seed)
    c = cutility.run_full(system, n, policy, horizon, warmup, seed, models.U_DEPTH)
    span = n * (horizon - warmup)
    assert c.status == 0 and res.events == c.events > 1.8 * n * system.lam * horizon
    assert res.mean_utility == c.area_u / span
    assert res.mean_tasks == float(np.arange(c.hist_n.size) @ c.hist_n) / span  # as simulate takes it
    assert np.array_equal(res.mean_occupancy[:, 1:], c.area_q.reshape(system.m, -1)[:, 1:models.U_DEPTH + 1] / span)
    assert np.array_equal(res.r_distribution, c.time_r / (horizon - warmup))
    if policy == "slta":
        assert np.count_nonzero(c.time_r) > 3          # the index moved: the learning rules ran


@NEEDS_GCC
@pytest.mark.parametrize("policy", ["jlmu", "slta"])
def test_c_utility_agrees_with_numba(policy):
    """Independent streams: the time-averaged utility per pool of 8 runs each agrees within
    the t quantile (7 degrees of freedom, level 1e-3 over 2 comparisons) of the combined
    standard error of the run means."""
    scale = {"u_horizon": 60.0}
    numba = _small(policy, "numba", SEEDS, **scale)
    c = _small(policy, "c", [100 + s for s in SEEDS], **scale)
    (mn, sn), (mc, sc) = _mean_se(numba), _mean_se(c)
    assert abs(mn - mc) <= _t_quantile(len(SEEDS) - 1, comparisons=2) * np.hypot(sn, sc), (mn, sn, mc, sc)


@NEEDS_GCC
def test_c_redundancy_and_utility_binaries_reject_bad_arguments():
    import subprocess

    from benchmarks.peers.cbuild import build

    for args in (["cos", "20", "2", "1.2", "1000", "0", "0", "400", "1"], ["lifo", "20", "2", "0.9", "1000", "0", "0",
                                                                          "400", "1"]):
        assert subprocess.run([str(build("redundancy")), *args], capture_output=True).returncode == 2
    out = subprocess.run([str(build("utility")), "jlmu", "100", "2", "75", "10", "1", "5", "6", "0", "1000", "1", "1",
                          "0"], capture_output=True, text=True)
    assert out.returncode == 2                                   # warm-up past the horizon
