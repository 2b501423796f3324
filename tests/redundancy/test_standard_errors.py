"""Batch-means standard errors of the redundancy simulator (issue 15: stationary statistics
with their standard errors), checked against the exact product forms (4) and (6).

If the reported standard error `se` is right, ``z = (estimate - exact) / se`` of an
independent run is close to Student-t with B - 1 = 31 degrees of freedom, so
``E z^2 = 31/29 = 1.069`` and ``Var z^2 = 3 * 31^2 / (29 * 27) - 1.069^2 = 2.54``. Over 400 runs
the mean of ``z^2`` has standard error ``sqrt(2.54 / 400) = 0.080``: the band 1.069 +- 4.5 * 0.080
= [0.71, 1.43] is the test. The runs are long (100 000 events, batches of 3 125) against the
relaxation time of Q at load 0.7, so batch correlation is negligible. A standard error off by
a factor sqrt(2) already moves E z^2 to 0.53 or 2.1.
"""

import numpy as np
import pytest

from qtheory.redundancy import productform as PF
from qtheory.redundancy.model import circular_d
from qtheory.redundancy.simulation import simulate

SYSTEM = circular_d(6, 2)
LAM = 0.7
RUNS = 400
LOW, HIGH = 0.71, 1.43


@pytest.fixture(scope="module", params=["coc", "cos"])
def runs(request):
    mech = request.param
    return mech, [simulate(SYSTEM, LAM, n_events=100_000, mechanism=mech, seed=i, warmup_events=10_000) for i in range(RUNS)]


def _mean_z2(estimates, ses, exact):
    z = (np.asarray(estimates) - exact) / np.asarray(ses)
    return float(np.mean(z ** 2, axis=0).max()), float(np.mean(z ** 2, axis=0).min())


def test_standard_error_of_the_mean_number_of_jobs(runs):
    mech, rs = runs
    exact = PF.total_jobs_moments(SYSTEM, LAM, mech).mean
    hi, lo = _mean_z2([r.mean_jobs for r in rs], [r.mean_jobs_se for r in rs], exact)
    assert LOW < lo and hi < HIGH
    # and the spread of the 400 estimates matches the typical reported standard error: the
    # sample sd of 400 runs has relative standard error 1 / sqrt(2 * 399) = 3.5 %, +-4.5 of them
    spread = np.std([r.mean_jobs for r in rs], ddof=1) / np.mean([r.mean_jobs_se for r in rs])
    assert 0.84 < spread < 1.16


def test_standard_error_of_the_probability_of_an_empty_system(runs):
    mech, rs = runs
    exact = PF.empty_probability(SYSTEM, LAM, mech)
    hi, lo = _mean_z2([r.empty_probability for r in rs], [r.empty_probability_se for r in rs], exact)
    assert LOW < lo and hi < HIGH


def test_standard_errors_of_the_per_type_means(runs):
    mech, rs = runs
    if mech == "cos":
        pytest.skip("the product form gives per-type means of c.o.c. (type_moments)")
    exact = np.array([m.mean for m in PF.type_moments(SYSTEM, LAM)])
    hi, lo = _mean_z2([r.type_means for r in rs], [r.type_means_se for r in rs], exact)
    assert LOW < lo and hi < HIGH


@pytest.mark.parametrize("n_events, n_batches", [(10_001, 7), (64, 64), (1000, 2)])
def test_every_batch_is_closed(n_events, n_batches):
    """Batch boundaries at floor((b + 1) n / B) recorded events: every batch gets an end
    (otherwise its running time would stay 0 and :func:`qtheory.stats.batch_means` would
    refuse the non-increasing times), down to one event per batch."""
    r = simulate(SYSTEM, LAM, n_events=n_events, mechanism="coc", seed=3, n_batches=n_batches, warmup_events=100)
    assert r.n_batches == n_batches and r.events == n_events
    assert np.isfinite(r.mean_jobs_se) and r.mean_jobs_se > 0


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_batch_integrals_are_the_run_integrals_at_each_batch_end(mechanism):
    """At every batch end the per-type integrals add up to the integral of Q (Q is the sum
    of the type counts, so this holds whatever the path), and the last batch ends with the
    run's own totals, to the last bit."""
    from qtheory._rng import seed_state
    from qtheory.redundancy import simulation as SIM
    from qtheory.redundancy.mechanisms import as_mechanism
    from qtheory.redundancy.simulation import Configuration, _kernel_system, _run_kernel

    system = circular_d(7, 3)
    mech = as_mechanism(mechanism)
    config = Configuration(mechanism=int(mech.cancel_on_start), lam_total=7 * 0.8, n_events=20_000, warmup=500,
                           init_jobs=5, track_a=0, track_b=6, hist_max=400, n_batches=9, fifo_cap=SIM._FIFO_CAP,
                           all_statistics=True)
    sums, _, hist_t, _, acc_t, _, batches, code = _run_kernel(mech, _kernel_system(system), config, seed_state(11))
    assert code == 0
    np.testing.assert_allclose(batches.types.sum(axis=1), batches.q, rtol=1e-12)
    assert np.all(np.diff(batches.time) > 0) and np.all(np.diff(batches.q) > 0)
    assert batches.time[-1] == sums.time and batches.q[-1] == sums.time_q
    assert batches.empty[-1] == hist_t[0]
    np.testing.assert_array_equal(batches.types[-1], acc_t)


def test_n_batches_is_checked():
    from qtheory.errors import ParameterError
    with pytest.raises(ParameterError, match="n_batches"):
        simulate(SYSTEM, LAM, n_events=100, seed=0, n_batches=1)
    with pytest.raises(ParameterError, match="n_batches"):
        simulate(SYSTEM, LAM, n_events=100, seed=0, n_batches=101)
