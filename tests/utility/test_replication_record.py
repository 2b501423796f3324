"""Every replicated U experiment returns one record type, :class:`Replication`, with the names of
the result vocabulary (times, events, wall_time, warm-up and horizon in time units, mean_tasks)."""

import dataclasses
import math

import numpy as np
import pytest

from qtheory.runtime import child_seed
from qtheory.utility import Replication, optimal_assignment, simulate, table1_system
from qtheory.utility.experiments import _fluid_run, _one_run, _poisson_run, _slta_run
from qtheory.utility.suboptimal import _sim_run

SYSTEM = table1_system(9.75)


def _seed():
    return child_seed(11, "record")


def test_a_replication_is_a_frozen_record_with_the_vocabulary_names():
    names = [f.name for f in dataclasses.fields(Replication)]
    assert names[:4] == ["horizon", "warmup", "events", "wall_time"]
    assert {"mean_utility", "mean_tasks", "times", "occupancy"} <= set(names)
    rec = _one_run(_seed(), SYSTEM, 10, "jlmu", 5.0, 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.events = 0


def test_the_stationary_replication_keeps_the_run_and_its_control_variate():
    rec = _one_run(_seed(), SYSTEM, 10, "slta", 20.0, 5.0)
    res = simulate(SYSTEM, 10, "slta", horizon=20.0, warmup=5.0, seed=_seed())
    assert isinstance(rec, Replication) and (rec.horizon, rec.warmup) == (20.0, 5.0)
    assert rec.events == res.events and rec.mean_utility == res.mean_utility and rec.mean_tasks == res.mean_tasks
    opt = optimal_assignment(SYSTEM, alpha=res.alpha)
    slope = opt.enumeration.delta[opt.rank - 1]
    assert rec.mean_utility_cv == res.mean_utility - slope * (res.mean_tasks - SYSTEM.rho)
    assert rec.time_at_r_star == res.r_distribution[opt.rank] and rec.wall_time >= 0
    assert rec.times is None and rec.occupancy is None
    assert math.isnan(_one_run(_seed(), SYSTEM, 10, "jlmu", 20.0, 5.0).time_at_r_star)


def test_the_path_replications_carry_their_time_grid():
    times = np.linspace(0.0, 2.0, 5)
    q0 = np.zeros((2, 3))
    q0[:, 0] = 0.5
    fluid = _fluid_run(_seed(), SYSTEM, 10, q0, times)
    np.testing.assert_array_equal(fluid.times, times)
    assert fluid.occupancy.shape[:2] == (5, 2) and math.isnan(fluid.mean_utility)
    slta = _slta_run(_seed(), SYSTEM, 10, 2.0 + 1e-9, times, None)
    np.testing.assert_array_equal(slta.times, times)
    assert slta.rank.shape == (5,) and slta.l1_to_q_star.shape == (5,) and slta.rank[0] == 1


def test_the_poisson_and_two_pool_replications():
    rec = _poisson_run(_seed(), SYSTEM, 4, "random", 20.0, 5.0, 60)
    assert rec.count_distribution.shape == (61,) and rec.count_distribution.sum() == pytest.approx(1.0)
    two = _sim_run(_seed(), 0.1, 1.0, 1.0, "jlmu", 50.0, 10.0)
    assert isinstance(two, Replication) and two.horizon == 50.0 and two.events > 0
