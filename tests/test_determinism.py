"""Results do not depend on the number of workers or on the executor (process pool, Dask).

Each check runs a real replicated experiment of a paper (numba kernels seeded through
``runtime.kernel_state``) serially, on a local process pool and on a Dask cluster of
local worker processes, and requires bit-identical results.
"""

import numpy as np
import pytest

from qtheory import runtime
from qtheory.locality.experiments import stationary_replication
from qtheory.locality.model import LocalitySystem
from qtheory.redundancy.model import power_of_d
from qtheory.redundancy.simulation import simulate_replication
from qtheory.utility.experiments import _one_run
from qtheory.utility.model import LogUtility, PoolSystem

LSYS = LocalitySystem(0.45, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((1, 1), (1, 1)), 2)
EXPERIMENTS = {
    "L": (stationary_replication, (LSYS, 8, "irg", 5.0, 20.0), dict(n_samples=50, levels=3)),
    "R": (simulate_replication, (power_of_d(4, 2), 0.6, 2000), {}),
    "U": (_one_run, (PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5), 4, "slta", 30.0, 2.0), {}),
}


def _flat(result):
    """Every number of a replication's result, as one list (dicts, tuples, dataclasses)."""
    if isinstance(result, dict):
        return [x for k in sorted(result) for x in _flat(result[k])]
    if hasattr(result, "__dataclass_fields__"):  # the kernel's clock time is not a result
        return [x for k in result.__dataclass_fields__ if k != "wall_time" for x in _flat(getattr(result, k))]
    if isinstance(result, (list, tuple)):
        return [x for v in result for x in _flat(v)]
    return list(np.ravel(np.asarray(result, dtype=float)))


def _same(a, b):
    return all(np.array_equal(_flat(x), _flat(y), equal_nan=True) for x, y in zip(a, b, strict=True))


# Dask gives up on a connection after 30 s by default: on a loaded machine (the stress
# run of benchmarks/stress_tests.sh) starting two worker processes may take longer, and
# the outcome of the test must not depend on the load
PATIENT = {"distributed.comm.timeouts.connect": "600s", "distributed.comm.timeouts.tcp": "600s",
           "distributed.deploy.lost-worker-timeout": "600s"}


@pytest.fixture(scope="module")
def dask_executor():
    distributed = pytest.importorskip("distributed")
    import dask

    from tests._dask import local_cluster

    with dask.config.set(PATIENT), \
            local_cluster(n_workers=2, threads_per_worker=1, processes=True, death_timeout=600) as cluster, \
            distributed.Client(cluster, timeout=600) as client:
        yield client.get_executor()


@pytest.mark.parametrize("paper", list(EXPERIMENTS))
def test_replications_are_identical_serially_on_a_process_pool_and_on_dask(paper, dask_executor):
    func, args, kwargs = EXPERIMENTS[paper]
    serial = runtime.replicate(func, 5, 2024, args=args, kwargs=kwargs, workers=1)
    pooled = runtime.replicate(func, 5, 2024, args=args, kwargs=kwargs, workers=2)
    dask = runtime.replicate(func, 5, 2024, args=args, kwargs=kwargs, executor=dask_executor)
    assert _same(serial, pooled), "a process pool changed the numbers"
    assert _same(serial, dask), "Dask changed the numbers"
    # and the replications differ from each other (a constant result would pass trivially)
    assert not np.array_equal(_flat(serial[0]), _flat(serial[1]), equal_nan=True)


def test_property_tests_do_not_depend_on_time_load_or_earlier_runs():
    """tests/conftest.py's hypothesis profile: no per-example deadline, no slowness check,
    the same examples every run, no replay of failures stored by an earlier run."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert settings.default.derandomize and settings.default.database is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
