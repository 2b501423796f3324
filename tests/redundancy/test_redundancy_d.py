"""Redundancy-d (beyond paper R; Gardner et al. 2017): the reduction to c.o.c. on the system of
d-subsets, checked against routes that do not use it: independent M/M/1 queues at d = 1, c.o.c.
itself when d covers every type, and a simulation written from the definition (replicas queued
at d random compatible servers, served in arrival order, the first completion cancelling the
rest); the compiled simulator runs the reduced system."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.redundancy.mechanisms import MECHANISMS, REGISTRY, CancelOnCompletion
from qtheory.redundancy.mechanisms.redundancy_d import RedundancyD, d_subset_system
from qtheory.redundancy.model import RedundancySystem, circular_d
from qtheory.redundancy.simulation import simulate
from qtheory.runtime import spawn

#: unequal speeds and type sizes 1 to 3, so that which servers a job picks matters
SYSTEM = RedundancySystem([1.0, 2.0, 0.7, 1.5], [(0, 1, 2), (1, 3), (2,), (0, 2, 3)], [0.4, 0.3, 0.1, 0.2])
LAM = 0.5


def test_it_is_registered_by_its_file_alone():
    assert REGISTRY["redundancy-d"] is RedundancyD and MECHANISMS["redundancy-d"] == RedundancyD(d=2)


def test_the_d_subsets_carry_their_types_probability_shared_equally_and_merged():
    reduced = d_subset_system(SYSTEM, 2)
    law = dict(zip(reduced.types, reduced.probabilities))
    expected = {(0, 1): 0.4 / 3, (1, 2): 0.4 / 3, (0, 2): 0.4 / 3 + 0.2 / 3, (1, 3): 0.3, (2,): 0.1,
                (0, 3): 0.2 / 3, (2, 3): 0.2 / 3}
    assert law.keys() == expected.keys()
    for t, p in expected.items():
        assert law[t] == pytest.approx(p, rel=1e-12)
    np.testing.assert_array_equal(reduced.speeds, SYSTEM.speeds)


def test_with_one_replica_each_server_is_an_independent_mm1_queue():
    """d = 1: server n receives the jobs of each type S containing it at rate N lam p_S / |S|,
    so E[Q] = sum_n rho_n / (1 - rho_n), with rho_n that rate over mu_n."""
    n = len(SYSTEM.speeds)
    rate = np.zeros(n)
    for servers, p in zip(SYSTEM.types, SYSTEM.probabilities):
        for s in servers:
            rate[s] += n * LAM * p / len(servers)
    rho = rate / np.asarray(SYSTEM.speeds)
    law = RedundancyD(d=1).stationary_law(SYSTEM, LAM)
    assert law.mean == pytest.approx(float(np.sum(rho / (1 - rho))), rel=1e-10)


def test_replicas_to_every_compatible_server_is_cancel_on_completion():
    full = RedundancyD(d=3).stationary_law(SYSTEM, LAM)
    coc = CancelOnCompletion().stationary_law(SYSTEM, LAM)
    assert full.mean == pytest.approx(coc.mean, rel=1e-12) and full.variance == pytest.approx(coc.variance, rel=1e-12)
    assert RedundancyD(d=2).stationary_law(SYSTEM, LAM).mean > coc.mean * 1.01     # fewer replicas, longer queue


def _from_the_definition(seed: int, n_events: int, d: int, warmup: int) -> float:
    """Time-average number of jobs of redundancy-d simulated from its definition: a job of type S
    (probability p_S) arriving at rate N lam picks d of S's servers at random; each server works on
    the oldest job holding one of its replicas; a job leaves at its first completion."""
    rng = random.Random(seed)
    n = len(SYSTEM.speeds)
    speeds = list(SYSTEM.speeds)
    arrival = n * LAM
    jobs: list[tuple[int, ...]] = []          # the chosen servers of each job present, oldest first
    area = clock = 0.0
    for event in range(warmup + n_events):
        working = {}                          # server -> index of the job it serves
        for k, chosen in enumerate(jobs):
            for s in chosen:
                working.setdefault(s, k)
        total = arrival + sum(speeds[s] for s in working)
        dt = rng.expovariate(total)
        if event >= warmup:
            area += len(jobs) * dt
            clock += dt
        u = rng.random() * total
        if u < arrival:
            servers = rng.choices(SYSTEM.types, weights=SYSTEM.probabilities)[0]
            jobs.append(tuple(rng.sample(list(servers), min(d, len(servers)))))
            continue
        u -= arrival
        for s, k in working.items():
            if u < speeds[s]:
                del jobs[k]
                break
            u -= speeds[s]
    return area / clock


def test_a_simulation_from_the_definition_and_the_compiled_simulator_match_the_reduced_product_form():
    """Two independent samples of E[Q] against the product form (4) of the d-subset system, each
    judged by Student's t with its runs' degrees of freedom at 1e-4 / 2 (two comparisons); the
    c.o.c. law of the system as given is many standard errors away (the reduction matters)."""
    mech = RedundancyD(d=2)
    exact = mech.stationary_law(SYSTEM, LAM).mean
    plain = np.array([_from_the_definition(seed, 30_000, 2, 1_000) for seed in range(8)])
    compiled = np.array([simulate(SYSTEM, LAM, n_events=200_000, mechanism=mech, seed=ss, warmup_events=5_000).mean_jobs
                         for ss in spawn(23, 8)])
    t = float(stats.t.ppf(1 - 0.25e-4, 7))
    for runs in (plain, compiled):
        se = runs.std(ddof=1) / math.sqrt(runs.size)
        assert abs(runs.mean() - exact) <= t * se, (runs.mean(), exact, se)
    coc = CancelOnCompletion().stationary_law(SYSTEM, LAM).mean
    se = compiled.std(ddof=1) / math.sqrt(compiled.size)
    assert abs(compiled.mean() - coc) > 3 * t * se


def test_the_product_form_functions_refuse_it_on_the_system_as_given():
    from qtheory.redundancy import productform as PF

    with pytest.raises(ParameterError, match="no product form"):
        PF.total_jobs_moments(SYSTEM, LAM, "redundancy-d")


@pytest.mark.parametrize("d", [0, -1, 1.5])
def test_a_bad_d_is_refused_by_name(d):
    with pytest.raises(ParameterError, match="`d`"):
        RedundancyD(d=d)


def test_its_exact_chain_is_that_of_the_reduced_system():
    """Mechanism.exact_chain runs the system the mechanism runs: truncated at 5 jobs, the chain's
    law of Q is the reduced product form conditioned on Q <= 5 (partial balance), not c.o.c.'s on
    the system as given."""
    chain = RedundancyD(d=2).exact_chain(SYSTEM, LAM, 5)
    reduced = RedundancyD(d=2).total_jobs_pmf(SYSTEM, LAM, 5)
    np.testing.assert_allclose(chain.pmf, reduced / reduced.sum(), rtol=1e-9)
    given = CancelOnCompletion().total_jobs_pmf(SYSTEM, LAM, 5)
    assert np.abs(chain.pmf - given / given.sum()).max() > 1e-3
