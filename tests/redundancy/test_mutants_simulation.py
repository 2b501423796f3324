"""The R kernel's tables and event loop (``redundancy/simulation.py``) as facts the rules
must satisfy (mutation testing, issue 13):

* a job type's FIFO holds up to its capacity and not one entry more: the run stops with
  a clear error exactly when an entry would overwrite the oldest one, and until then the
  path does not depend on the capacity;
* the type counts add up to Q (time, event and arrival averages), and equal speeds other
  than 1 (the kernel's one-multiplication pick of the completing server) give the product form;
* a run that keeps the mean only (``statistics="mean"``) follows the same path and gives the
  same mean, and leaves the other statistics NaN.

The capacity is a module constant passed to the kernel, so the tests shrink it to reach
conditions that the default (65536 entries per type) leaves out of reach of a test.
"""

import dataclasses

import numpy as np
import pytest

from qtheory._rng import seed_state
from qtheory.errors import ParameterError
from qtheory.redundancy import model as M
from qtheory.redundancy import simulation as SIM
from qtheory.redundancy.mechanisms import as_mechanism
from qtheory.redundancy.simulation import Configuration, _kernel_system, _run_kernel


def _run(mechanism, system, lam_total, n_events, init_jobs, seed, fifo_cap=SIM._FIFO_CAP, warmup=0, hist_max=400,
         all_statistics=True):
    mech = as_mechanism(mechanism)
    config = Configuration(mechanism=int(mech.cancel_on_start), lam_total=lam_total, n_events=n_events,
                           warmup=warmup, init_jobs=init_jobs, track_a=0, track_b=system.n_types - 1,
                           hist_max=hist_max, n_batches=4, fifo_cap=fifo_cap,
                           all_statistics=all_statistics)
    return _run_kernel(mech, _kernel_system(system), config, seed_state(seed))


def _same_run(a, b):
    """Every output of two kernel runs (sums, histograms, integrals, batches, code) equal to the bit."""
    arrays = ("hist_t", "hist_e", "acc_t", "acc_e")
    return (a.code == b.code and tuple(a.sums) == tuple(b.sums) and a.empty_time == b.empty_time
            and all(np.array_equal(getattr(a, name), getattr(b, name)) for name in arrays)
            and all(np.array_equal(x, y) for x, y in zip(a.batches, b.batches)))


def _results_equal(a, b):
    for field in dataclasses.fields(a):
        if field.name != "wall_time":
            x, y = getattr(a, field.name), getattr(b, field.name)
            if not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True):
                return False
    return True


@pytest.mark.parametrize("mechanism, waiting", [("coc", 0), ("cos", 1)])
def test_a_job_list_holds_exactly_its_capacity(mechanism, waiting):
    """One server, jobs placed as arrivals without departures (the initial jobs): every
    c.o.c. job, and every c.o.s. job but the one in service, is in the FIFO of the one type.
    With capacity 8 the FIFO takes 8 entries (8 + `waiting` jobs) and the next job stops the
    run with code 1, whereas an entry written over the oldest one would corrupt the FIFO
    silently. The one event after the placement is a departure (arrival rate 1e-3)."""
    system, cap = M.fully_flexible(1), 8
    full = _run(mechanism, system, 1e-3, 1, cap + waiting, seed=5, fifo_cap=cap)
    assert full.code == 0
    assert full.sums.final_total == cap + waiting - 1                # the event was a departure
    assert _same_run(full, _run(mechanism, system, 1e-3, 1, cap + waiting, seed=5))
    stopped = _run(mechanism, system, 1e-3, 1, cap + waiting + 1, seed=5, fifo_cap=cap)
    # the overflow, among the initial jobs, ends the run: no later stretch of steps (the
    # warm-up, the recorded event) runs
    assert stopped.code == 1 and stopped.sums.events == 0
    assert _run(mechanism, system, 1e-3, 1, cap + waiting + 1, seed=5).code == 0


@pytest.mark.parametrize("mechanism, waiting", [("coc", 0), ("cos", 1)])
@pytest.mark.parametrize("seed", range(4))
def test_a_small_job_list_stops_the_run_exactly_when_the_queue_outgrows_it(mechanism, waiting, seed):
    """An M/M/1 queue at load 0.8 (one server and one type, whose FIFO holds the jobs that
    wait, plus the one in service under c.o.c.). Run once with the default capacity, the largest number of
    jobs seen after an event, Q_max, is the last non-empty bin of the event histogram (the
    run starts empty and records from its first event). With capacity c the list overflows
    iff some arrival finds c entries, i.e. iff Q_max >= c + 1 + `waiting`; a run that does
    not overflow is the default run to the bit, whatever the wrap-around of the FIFO."""
    system = M.fully_flexible(1)
    ref = _run(mechanism, system, 0.8, 20_000, 0, seed, hist_max=1000)
    q_max = int(np.flatnonzero(ref.hist_e)[-1])
    assert 0 < q_max < 1000
    outcomes = set()
    for cap in (4, 8, 16, 32, 64):
        r = _run(mechanism, system, 0.8, 20_000, 0, seed, fifo_cap=cap, hist_max=1000)
        overflow = q_max >= cap + 1 + waiting
        outcomes.add(overflow)
        assert r.code == (1 if overflow else 0), (cap, q_max)
        if not overflow:
            assert _same_run(r, ref), cap
    assert outcomes == {True, False}           # both sides of the condition were tested


def test_an_overflowing_job_list_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(SIM, "_FIFO_CAP", 4)
    for mechanism in ("coc", "cos"):
        with pytest.raises(ParameterError, match=r"queue of a job type overflowed \(more than 4 jobs\).*lower `lam`"):
            SIM.simulate(M.fully_flexible(1), 0.9, n_events=20_000, mechanism=mechanism, seed=0)


TWO_TYPES = M.RedundancySystem([1.0, 2.0, 0.5], [(0, 1), (1, 2)], [0.4, 0.6])


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
@pytest.mark.parametrize("system", [TWO_TYPES, M.RedundancySystem([1.5] * 3, [(0, 1), (1, 2)], [0.4, 0.6])],
                         ids=["unequal-speeds", "equal-speeds"])
def test_type_counts_add_up_to_the_total(mechanism, system):
    """Q is the sum of the type counts at every instant, so the per-type averages add up to
    the average of Q (time and event averages), and with two types the shares Q_1/Q and
    Q_2/Q add up to P(Q > 0) (time), to the events' fraction with Q > 0, and to 1 just after
    an arrival (the arriving job is counted)."""
    r = SIM.simulate(system, 0.6, n_events=50_000, mechanism=mechanism, seed=3, warmup_events=1_000, tracked=(0, 1))
    assert r.type_means.sum() == pytest.approx(r.mean_jobs, rel=1e-12)
    assert r.event_type_means.sum() == pytest.approx(r.event_mean_jobs, rel=1e-12)
    assert r.ratio_first + r.ratio_last == pytest.approx(1.0 - r.empty_probability, rel=1e-12)
    assert r.event_ratio_first + r.event_ratio_last == pytest.approx(1.0 - r.event_count_distribution[0], rel=1e-12)
    assert r.arrival_ratio_first + r.arrival_ratio_last == pytest.approx(1.0, rel=1e-12)
    assert 0.0 < r.arrival_ratio_first < 1.0 and 0.0 < r.ratio_first < 1.0


@pytest.mark.parametrize("mechanism, waiting", [("coc", 0), ("cos", 1)])
def test_a_job_list_at_its_capacity_after_departures_does_not_overflow(mechanism, waiting):
    """The same law as above on short paths that start two entries below a capacity of 8
    and move by arrivals and departures at equal rates: the list fills up and drains again
    many times, so departures (which move the list's head) come between the arrivals that
    fill it. Runs stop with code 1 exactly when the queue outgrows the list, and otherwise
    are the default runs to the bit; some runs fill the list completely without stopping."""
    system, cap = M.fully_flexible(1), 8
    filled = overflowed = 0
    for seed in range(24):
        ref = _run(mechanism, system, 1.0, 40, cap + waiting - 2, seed, hist_max=100)
        q_max = int(np.flatnonzero(ref.hist_e)[-1])
        r = _run(mechanism, system, 1.0, 40, cap + waiting - 2, seed, fifo_cap=cap, hist_max=100)
        overflow = q_max >= cap + 1 + waiting
        assert r.code == (1 if overflow else 0), (seed, q_max)
        if overflow:
            overflowed += 1
        else:
            assert _same_run(r, ref), seed
            filled += q_max == cap + waiting
    assert filled >= 1 and overflowed >= 1, (filled, overflowed)


EQUAL_SPEEDS = M.RedundancySystem([2.0, 2.0, 2.0], [(0,), (0, 1), (1, 2)], [0.3, 0.3, 0.4])


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_equal_speeds_other_than_one_give_the_product_form(mechanism):
    """With equal speeds the kernel picks the completing server by one division,
    floor((u R - N lambda) / mu); every other test has mu = 1 there. At mu = 2 on a nested
    system, E[Q] and P(Q = 0..3) of 12 runs agree with the product form within the t(11)
    quantile at a family-wise level 1e-3 over the 5 comparisons (about 5.5 SE)."""
    from scipy import stats

    from qtheory.redundancy import productform as PF

    lam, n_runs = 1.2, 12
    runs = [SIM.simulate(EQUAL_SPEEDS, lam, n_events=150_000, mechanism=mechanism, seed=s, warmup_events=5_000)
            for s in range(n_runs)]
    x = np.array([[r.mean_jobs, *r.count_distribution[:4]] for r in runs])
    exact = np.array([PF.total_jobs_moments(EQUAL_SPEEDS, lam, mechanism).mean,
                      *PF.total_jobs_pmf(EQUAL_SPEEDS, lam, 3, mechanism)])
    z = np.abs(x.mean(axis=0) - exact) / (x.std(axis=0, ddof=1) / np.sqrt(n_runs))
    assert np.all(z < stats.t.ppf(1 - 1e-3 / (2 * exact.size), n_runs - 1)), z


# the kernel's FIFOs per type on a system where a server's types and a type's servers differ
# in number and order: server 0 is slow and compatible with every type
SLOW_SHARED = M.RedundancySystem([0.05, 1.0, 1.0, 1.0], [(0, 1), (0, 2), (3, 0)], [1 / 3, 1 / 3, 1 / 3])


@pytest.mark.parametrize("mechanism", ["coc", "cos", "cos-random"])
@pytest.mark.parametrize("system", [SLOW_SHARED, M.circular_d(6, 2)], ids=["slow-shared", "circular"])
def test_the_mean_only_run_follows_the_same_path(mechanism, system):
    """With ``all_statistics`` off the kernel skips the other statistics, not events: the
    same draws give the same time integral of Q, the same time with Q = 0 and the same
    batch integrals, bit for bit."""
    full = _run(mechanism, system, 0.5 * system.n_servers, 20_000, 7, seed=9, warmup=500)
    mean = _run(mechanism, system, 0.5 * system.n_servers, 20_000, 7, seed=9, warmup=500, all_statistics=False)
    assert full.code == mean.code == 0
    assert (mean.sums.time, mean.sums.time_q, mean.sums.events, mean.empty_time) == \
        (full.sums.time, full.sums.time_q, full.sums.events, full.empty_time)
    for name in ("time", "q", "empty"):
        assert np.array_equal(getattr(mean.batches, name), getattr(full.batches, name)), name
    assert full.empty_time == full.hist_t[0] > 0


def test_statistics_mean_leaves_the_rest_unknown():
    full = SIM.simulate(SLOW_SHARED, 0.5, n_events=20_000, mechanism="cos", seed=2)
    mean = SIM.simulate(SLOW_SHARED, 0.5, n_events=20_000, mechanism="cos", seed=2, statistics="mean")
    for name in ("mean_jobs", "mean_jobs_se", "empty_probability", "empty_probability_se", "events", "n_batches"):
        assert getattr(mean, name) == getattr(full, name), name
    assert np.isnan(mean.var_jobs) and np.isnan(mean.event_mean_jobs) and np.isnan(mean.arrival_ratio_first)
    assert np.all(np.isnan(mean.count_distribution)) and np.all(np.isnan(mean.type_means))
    with pytest.raises(ParameterError, match="`statistics`"):
        SIM.simulate(SLOW_SHARED, 0.5, n_events=100, seed=2, statistics="some")
