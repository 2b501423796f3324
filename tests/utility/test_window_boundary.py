"""The U simulator's averaging window, to the event: which jumps a run simulates and which part of
each state's holding time its time averages take (issue 50, item 8).

The number of tasks ``N`` of ``n`` infinite-server pools moves the same way under every policy whose
rule draws nothing from the generator (JLMU here): by the module docstring of
:mod:`qtheory.utility.simulation`, each event takes one uniform ``v`` on ``[0, R)`` (``R = n lam +
mu N``) and is an arrival iff ``v < n lam``; a state is held ``1 / R`` (no sample times) or an
exponential time of rate ``R``, ``-log(1 - u) / R`` from one more uniform drawn before the event's
(with sample times). The plain-Python loop below replays that from the kernel's own generator words
(:func:`qtheory.runtime.kernel_state`, xoshiro256+ in ``tests/_xoshiro.py``), with the window written
from its definition: the events are the jumps strictly before the horizon, and the time averages
integrate the overlap of each holding interval with ``[warmup, horizon]``. The clock is the same
floating-point sum as the kernel's, so the event count must agree exactly; a window taken one event
late or early at either end moves a whole holding interval (about ``1 / R``, here 1e-3 to 1e-2 of
the window) in or out of the averages, far beyond the 1e-12 the comparisons allow for the order of
the sums.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.runtime import kernel_state
from qtheory.utility import LogUtility, PoolSystem, simulate, table1_system
from qtheory.utility.model import tabulate
from tests._xoshiro import Xoshiro256Plus

ONE_POOL = PoolSystem((LogUtility(5.0),), (1.0,), 3.0)
MAX_OCCUPANCY = 40
#: the replay's bound on the number of tasks (the runs below stay far under it)
MAX_TASKS = 400


def _replay(system: PoolSystem, n: int, horizon: float, warmup: float, seed: int, timed: bool):
    """The path of ``N`` from the kernel's generator words: the events simulated, the time of
    ``[warmup, horizon]`` spent with each ``N``, the time of the last event, and the end of the
    holding interval that straddles the horizon (a jump exactly at the horizon, a tie of probability
    zero, is not simulated, as in the kernel)."""
    rng = Xoshiro256Plus(kernel_state(seed))
    arrival_rate = n * system.lam
    tasks, t, events = 0, 0.0, 0
    time_with = np.zeros(MAX_TASKS + 1)
    while True:
        rate = arrival_rate + system.mu * tasks
        hold = -math.log(1.0 - rng.uniform()) * (1.0 / rate) if timed else 1.0 / rate
        t_next = t + hold
        inside = min(t_next, horizon) - max(t, warmup)
        if inside > 0:
            time_with[tasks] += inside
        if t_next >= horizon:                 # the jump at t_next lies beyond the run
            return events, time_with, t, t_next
        t = t_next
        events += 1
        tasks += 1 if rng.uniform() * rate < arrival_rate else -1


def _run(system, n, horizon, warmup, seed, timed):
    return simulate(system, n, "jlmu", horizon=horizon, warmup=warmup, seed=seed, max_occupancy=MAX_OCCUPANCY,
                    sample_times=np.array([horizon]) if timed else None)


@pytest.mark.parametrize("timed", [False, True], ids=["mean-holding-times", "drawn-holding-times"])
@pytest.mark.parametrize("warmup", [0.0, 7.5])
@pytest.mark.parametrize("seed", [1, 2**40 + 3])
def test_one_pool_averages_exactly_the_window_of_its_path(timed, warmup, seed):
    """One pool: the utility and the occupancy are functions of ``N`` too, so every time average of
    the run is the replay's."""
    horizon = 40.0
    res = _run(ONE_POOL, 1, horizon, warmup, seed, timed)
    events, time_with, last, beyond = _replay(ONE_POOL, 1, horizon, warmup, seed, timed)
    assert last < horizon <= beyond and events > 100
    assert res.events == events
    span = horizon - warmup
    assert time_with.sum() == pytest.approx(span, rel=1e-12)
    assert not time_with[MAX_OCCUPANCY + 1:].any()
    law = time_with[:MAX_OCCUPANCY + 1] / span                  # of N = 0, 1, ..., MAX_OCCUPANCY
    np.testing.assert_allclose(res.count_distribution, law[:res.count_distribution.size], rtol=0, atol=1e-12)
    assert not law[res.count_distribution.size:].any()
    assert res.mean_tasks == pytest.approx(float(np.arange(law.size) @ law), rel=1e-12)
    values = tabulate(ONE_POOL.utilities, MAX_OCCUPANCY)[0]
    assert res.mean_utility == pytest.approx(float(values @ law), rel=1e-12)
    at_least = np.cumsum(law[::-1])[::-1]                      # fraction of the window with N >= j
    np.testing.assert_allclose(res.mean_occupancy[0], at_least, rtol=0, atol=1e-12)

@pytest.mark.parametrize("timed", [False, True], ids=["mean-holding-times", "drawn-holding-times"])
def test_many_pools_simulate_the_events_before_the_horizon_and_average_the_window(timed):
    """Table 1's two classes, n = 10 pools: the number of tasks, its law over the window and the
    event count do not depend on where JLMU sends the tasks."""
    system = table1_system(10.0)
    horizon, warmup, seed = 6.0, 1.5, 7
    res = _run(system, 10, horizon, warmup, seed, timed)
    events, time_with, last, beyond = _replay(system, 10, horizon, warmup, seed, timed)
    assert last < horizon <= beyond and events > 500
    assert res.events == events
    law = time_with / (horizon - warmup)
    np.testing.assert_allclose(res.count_distribution, law[:res.count_distribution.size], rtol=0, atol=1e-12)
    assert res.mean_tasks == pytest.approx(float(np.arange(law.size) @ law) / 10, rel=1e-12)
