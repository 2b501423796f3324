"""Facts every mechanism of :data:`qtheory.redundancy.mechanisms.MECHANISMS` must satisfy,
parametrised over that table, which is built from the registry: a mechanism file added to
``qtheory/redundancy/mechanisms/`` is tested here without being listed.

* its name and its object are the same mechanism, registered by its class;
* its start rule, called directly, returns -1 or an idle compatible server, and under
  cancel-on-start it leaves no arriving job waiting while a compatible server is idle;
* its completion rule, called directly, returns one of the server's types with a job (-1 when
  none has one), with the law its plain-Python ``exact_completion`` gives;
* the product forms describe it exactly when it says so (``product_form``): then its exact
  chain equals the product form, else the product forms refuse it;
* the simulator (compiled with the mechanism's start rule) agrees with the mechanism's own
  exact chain, written from its definition (:mod:`qtheory.redundancy.chain`), on a tiny system
  where the choice of the idle server matters.
"""

import inspect

import numpy as np
import pytest
from scipy import stats

from qtheory._rng import seed_state
from qtheory.errors import ParameterError
from qtheory.redundancy import productform as PF
from qtheory.redundancy.mechanisms import MECHANISMS, REGISTRY, as_mechanism
from qtheory.redundancy.model import RedundancySystem, circular_d, m_model
from qtheory.redundancy.simulation import _kernel_system, simulate
from qtheory.runtime import spawn

SYSTEM = m_model(7 / 12)
LAM = 0.3
MAX_JOBS = 12
# the simulator's system: a flexible type served by a slow and a fast server and a type of the
# fast server only, where which idle server starts a job changes the law (exact E[Q] of
# c.o.s. under ALIS 0.450, most-recently-idle 0.357, random 0.435; c.o.c. 0.172), so a start
# rule with a flipped comparison fails; on the M-model, with equal speeds, it would not
TWO_SPEEDS = RedundancySystem([1.0, 6.0], [(0, 1), (1,)], [0.8, 0.2])
TWO_SPEEDS_LAM = 0.5
NAMES = sorted(MECHANISMS)


@pytest.mark.parametrize("name", NAMES)
def test_the_name_and_the_object_are_one_registered_mechanism(name):
    mechanism = MECHANISMS[name]
    assert type(mechanism) is REGISTRY[name] and mechanism.name == name
    assert as_mechanism(name) is mechanism and as_mechanism(mechanism) is mechanism


@pytest.mark.parametrize("name", NAMES)
def test_the_start_rule_picks_an_idle_compatible_server(name):
    """On every busy pattern of circular-3 with N = 5 (idle times distinct), for each job
    type: the rule's server is compatible and idle, or -1; a cancel-on-start mechanism
    returns -1 only when every compatible server is busy, a cancel-on-completion one always
    (the kernel stops a run on any other answer, tests/redundancy/test_impossible_actions.py)."""
    mechanism = MECHANISMS[name]
    kernel = _kernel_system(circular_d(5, 3))
    passed = dict(rng=seed_state(11), type_servers=kernel.type_servers,
                  idle_since=np.array([4, 0, 3, 1, 2], dtype=np.int64))
    wanted = inspect.signature(mechanism.rule.py_func).parameters
    for pattern in range(1 << 5):
        passed["busy"] = np.array([(pattern >> s) & 1 for s in range(5)], dtype=np.bool_)
        for t in range(5):
            passed.update(t=t, deg=kernel.type_deg[t])
            server = mechanism.rule(**{k: passed[k] for k in wanted})
            compatible = kernel.type_servers[t, :kernel.type_deg[t]]
            idle = [s for s in compatible if not passed["busy"][s]]
            assert server == -1 or server in idle, (pattern, t, server)
            if mechanism.cancel_on_start:
                assert (server == -1) == (not idle), (pattern, t, server)
            else:       # under cancel-on-completion every job joins its type's queue
                assert server == -1, (pattern, t, server)


def _fifo_pattern(rng, k, cap=8):
    """Random FIFO contents for `k` job types: 0-3 jobs each, in a random order of arrival
    (stamps 0, 1, ...), each FIFO starting at a random position of its ring of `cap` slots.
    Returns (arrival order as a list of types, fifo, head, tail)."""
    order = list(rng.permutation(np.repeat(np.arange(k), rng.integers(0, 4, size=k))))
    fifo = np.full((k, cap), -7, dtype=np.int64)
    head = rng.integers(0, 3 * cap, size=k).astype(np.int64)
    tail = head.copy()
    for stamp, j in enumerate(order):
        fifo[j, tail[j] & (cap - 1)] = stamp
        tail[j] += 1
    return [int(j) for j in order], fifo, head, tail


@pytest.mark.parametrize("name", NAMES)
def test_the_completion_rule_takes_a_job_of_the_server_with_its_exact_law(name):
    """On 30 random FIFO patterns of circular-3 with N = 5, for every server: the rule's type is
    one of the server's types with a job, -1 exactly when none has one, and its law over 3000
    calls (one call when it draws nothing) is the mechanism's ``exact_completion`` law given the
    server's jobs in order of arrival: each frequency within 5 binomial standard errors (plus
    one call), exactly for a rule that does not draw. A rule that took the newest job, or a
    random type not weighted by its jobs, fails on these patterns."""
    mechanism = MECHANISMS[name]
    rule = mechanism.completion
    kernel = _kernel_system(circular_d(5, 3))
    types_of = np.full((5, kernel.server_types.shape[1] + 1), -1, dtype=np.int64)
    types_of[:, : kernel.server_types.shape[1]] = kernel.server_types
    wanted = inspect.signature(rule.py_func).parameters
    draws = "rng" in wanted
    pattern_rng = np.random.default_rng(2024)
    rng = seed_state(5)
    for _ in range(30):
        order, fifo, head, tail = _fifo_pattern(pattern_rng, kernel.type_deg.size)
        for s in range(5):
            mine = [int(j) for j in kernel.server_types[s, :kernel.server_deg[s]]]
            jobs = [j for j in order if j in mine]
            passed = dict(rng=rng, s=s, types_of=types_of, head=head, tail=tail, fifo=fifo, fifo_mask=7)
            calls = 3000 if draws else 1
            picks = np.array([rule(**{k: passed[k] for k in wanted}) for _ in range(calls)])
            if not jobs:
                assert np.all(picks == -1), (order, s, picks[:5])
                continue
            assert np.all(np.isin(picks, jobs)), (order, s, picks[:5])
            for j, p in mechanism.exact_completion(s, jobs):
                freq = np.mean(picks == j)
                slack = 5 * np.sqrt(p * (1 - p) / calls) + 1 / calls if draws else 0.0   # one call: exact
                assert abs(freq - p) <= slack, (order, s, j, freq, p)


@pytest.mark.parametrize("name", NAMES)
def test_the_product_form_is_its_law_exactly_when_it_says_so(name):
    """Truncated at 12 jobs at load 0.3, the chain puts about 1e-6 on its last state, so its
    first probabilities are off by about that (relative), far below the rtol; the product
    forms of c.o.c. and c.o.s. differ by more than 1e-2 here (test_mechanisms.py), so the
    wrong one fails."""
    mechanism = MECHANISMS[name]
    if mechanism.product_form:
        chain = mechanism.exact_chain(SYSTEM, LAM, MAX_JOBS)
        np.testing.assert_allclose(chain.pmf[:5], mechanism.total_jobs_pmf(SYSTEM, LAM, 4), rtol=1e-4)
    else:
        with pytest.raises(ParameterError, match="no product form"):
            PF.total_jobs_moments(SYSTEM, LAM, mechanism)


@pytest.mark.parametrize("name", NAMES)
def test_the_simulator_matches_the_exact_chain(name):
    mechanism = MECHANISMS[name]
    chain = mechanism.exact_chain(TWO_SPEEDS, TWO_SPEEDS_LAM, MAX_JOBS)
    assert chain.pmf[-1] < 1e-8                                  # the truncation is negligible
    exact = np.array([chain.jobs @ chain.probabilities, *chain.pmf[:3]])
    runs = np.array([[r.mean_jobs, *r.count_distribution[:3]]
                     for r in (simulate(TWO_SPEEDS, TWO_SPEEDS_LAM, n_events=100_000, mechanism=mechanism, seed=ss, warmup_events=2_000)
                               for ss in spawn(5, 16))])
    mean, se = runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    # 16 independent runs, 4 comparisons: the two-sided t(15) quantile at 1e-4 / 4 keeps the
    # chance of a false alarm below 1e-4 for a correct mechanism
    t = float(stats.t.ppf(1 - 0.5e-4 / exact.size, runs.shape[0] - 1))
    assert np.all(np.abs(mean - exact) <= t * se), (mean, exact, se)
