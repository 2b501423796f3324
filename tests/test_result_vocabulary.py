"""The simulators of the three papers name their run record alike (issue 15)."""

import numpy as np
import pytest

from qtheory.locality.graphs import complete_bipartite
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import JIQ
from qtheory.locality.simulation import simulate as simulate_l
from qtheory.redundancy.model import circular_d
from qtheory.redundancy.simulation import simulate as simulate_r
from qtheory.utility import simulate as simulate_u, table1_system


def test_events_times_and_wall_time_have_one_name_each():
    system = LocalitySystem.homogeneous(0.5)
    graph = complete_bipartite(system, 10)
    grid = np.linspace(0.0, 5.0, 6)
    l_res = simulate_l(system, graph, JIQ(), initial_state=np.zeros(10, np.int64), t_grid=grid, seed=1)
    u_res = simulate_u(table1_system(), 10, "jlmu", horizon=5.0, seed=1, sample_times=grid)
    for res in (l_res, u_res):
        np.testing.assert_array_equal(res.times, grid)
        assert res.events > 0 and res.wall_time >= 0
        assert res.events_per_second == res.events / res.wall_time
    assert l_res.t is l_res.times and l_res.seconds == l_res.wall_time  # the older L names
    r_res = simulate_r(circular_d(6, 2), 0.5, n_events=200, seed=1)
    assert r_res.events == 200 and not hasattr(r_res, "n_events") and not hasattr(r_res, "mean_q")
    assert r_res.wall_time >= 0 and r_res.events_per_second == r_res.events / r_res.wall_time


def _public_functions():
    """Every public function (and class constructor) of every qtheory module, by its module."""
    import importlib
    import inspect
    import pkgutil

    import qtheory

    seen = set()
    for info in pkgutil.walk_packages(qtheory.__path__, "qtheory."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("qtheory") or id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{obj.__module__}.{obj.__qualname__}", obj


def test_no_public_function_takes_t_end_or_burn_in():
    """Warm-up and horizon in time units are `warmup` and `horizon` everywhere (issue 28)."""
    import inspect

    old = {"t_end", "burn_in", "burn_in_relaxations", "stat_burn_in"}
    offenders = []
    for name, obj in _public_functions():
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        offenders += [f"{name}({p})" for p in params if p in old or p.endswith("_t_end")]
    assert not offenders, offenders


def test_no_result_has_an_old_name():
    """`mean_q` meant a scalar in R and a matrix in U; `hist` and `tasks_distribution` are `count_distribution`."""
    import dataclasses

    from qtheory.locality.experiments import Replication as LReplication
    from qtheory.locality.simulation import SimulationResult as LResult
    from qtheory.redundancy.simulation import SimulationResult as RResult
    from qtheory.stats import StationaryStatistics
    from qtheory.utility.experiments import Replication as UReplication
    from qtheory.utility.simulation import SimulationResult as UResult

    old = {"mean_q", "mean_q_se", "hist", "tasks_distribution", "t_end", "burn_in", "n_events", "q"}
    for cls in (LResult, RResult, UResult, LReplication, UReplication, StationaryStatistics):
        names = {f.name for f in dataclasses.fields(cls)} | {n for n in dir(cls) if not n.startswith("_")}
        assert not names & old, (cls, names & old)
    u_res = simulate_u(table1_system(), 10, "jlmu", horizon=5.0, seed=1, sample_times=[0.0, 5.0])
    assert u_res.occupancy.shape[0] == 2 and u_res.mean_occupancy.shape == u_res.occupancy.shape[1:]
    assert u_res.horizon == 5.0 and abs(u_res.count_distribution.sum() - 1.0) < 1e-9
    r_res = simulate_r(circular_d(6, 2), 0.5, n_events=200, seed=1)
    assert abs(r_res.count_distribution.sum() - 1.0) < 1e-9


def test_both_stationary_statistics_return_the_one_class():
    from qtheory.locality.experiments import stationary_statistics as stationary_l
    from qtheory.stats import Estimate, StationaryStatistics
    from qtheory.utility.experiments import stationary_statistics as stationary_u

    system = LocalitySystem.homogeneous(0.5)
    l_st = stationary_l(system, complete_bipartite(system, 10), "jsqd", warmup=1.0, horizon=20.0, seed=1,
                        n_samples=40, n_batches=4)
    u_st = stationary_u(table1_system(), 10, "jlmu", warmup=1.0, horizon=20.0, seed=1, n_samples=40, n_batches=4)
    for st, names in ((l_st, ("mean_queue_length", "overall_mean_queue_length", "occupancy")),
                      (u_st, ("mean_utility", "mean_tasks", "mean_occupancy"))):
        assert type(st) is StationaryStatistics
        assert (st.warmup, st.horizon, st.n_samples, st.n_batches) == (1.0, 20.0, 40, 4) and st.events > 0
        assert set(st.estimates) == set(names)
        for name in names:
            est = getattr(st, name)
            assert isinstance(est, Estimate) and est.n == 4
            assert np.all(est.ci_low <= est.mean) and np.all(est.mean <= est.ci_high)


def test_replications_are_frozen_records_in_l_and_u():
    import dataclasses

    from qtheory.locality.experiments import Replication as LReplication, stationary_replication
    from qtheory.utility.experiments import Replication as UReplication, _one_run

    system = LocalitySystem.homogeneous(0.5)
    rec = stationary_replication(np.random.SeedSequence(3), system, 10, "complete", 1.0, 5.0, n_samples=10, levels=3)
    assert isinstance(rec, LReplication) and rec.occupancy.shape == (1, 3) and rec.events > 0
    assert rec.mean_square is None and rec.servers_per_type is None
    assert isinstance(_one_run(np.random.SeedSequence(3), table1_system(), 10, "jlmu", 5.0, 1.0), UReplication)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.events = 0


def test_no_notebook_parameter_is_named_t_end_or_burn_in():
    """The notebooks' parameters (their meanings file names each one) and the quick presets."""
    import tomllib
    from pathlib import Path

    presets = Path(__file__).resolve().parents[1] / "notebooks" / "presets"
    names = set()
    for path in presets.glob("*.toml"):
        data = tomllib.loads(path.read_text())
        tables = data.get("quick", data)
        names |= {key for table in tables.values() if isinstance(table, dict) for key in table}
    assert "horizon" in names and "warmup" in names
    assert not {n for n in names if n == "t_end" or n.endswith("_t_end") or "burn_in" in n}
