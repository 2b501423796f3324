"""Replications on a real Dask cluster of separate worker processes (issue 18).

Same numbers as a local run (replication k gets child k of the seed wherever it runs);
a worker killed mid-run costs no replication (Dask reruns its task); a task that kills every
worker it runs on ends the run with one qtheory line (WorkerLostError, naming the scheduler and what
to do) once the scheduler gives up (Dask's KilledWorker after ``distributed.scheduler.allowed-failures``
deaths, 3 by default), never with missing replications;
a bad address is a ParameterError naming --scheduler. The kill is deterministic: the task of replication 0
creates a marker file and exits its worker process on its first attempt only.
"""
import os
import sys

import numpy as np
import pytest

from qtheory import runtime
from qtheory.errors import ParameterError, WorkerLostError

distributed = pytest.importorskip("distributed")

from tests._dask import local_cluster  # noqa: E402  (after the skip: it imports distributed)
cloudpickle = pytest.importorskip("cloudpickle")
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def draw(seed_sequence, marker=None):
    """Mean of 1000 uniforms; with `marker`, the first call of replication 0 kills its worker."""
    if marker is not None and seed_sequence.spawn_key[-1] == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return (tuple(seed_sequence.spawn_key), float(np.random.default_rng(seed_sequence).random(1000).mean()))


def die(seed_sequence):
    """Kill the worker process running this task, every time."""
    os._exit(1)


@pytest.fixture(scope="module")
def cluster():
    """A local cluster; the client runtime.dask_executor kept for it is closed with it: left
    open, it tries to reconnect for 10 s from a background thread, whose backoff draws from the
    global `random` module while the next tests run (a HypothesisDeprecationWarning, "Do not use
    the `random` module inside strategies", in whichever hypothesis test ran then)."""
    with local_cluster(n_workers=2, threads_per_worker=1, processes=True, silence_logs=40) as c:
        yield c
        client = runtime._DASK_CLIENTS.pop(c.scheduler_address, None)
        if client is not None:
            client.close()


def test_dask_matches_local(cluster, monkeypatch):
    local = runtime.replicate(draw, 8, seed=7, workers=1, progress=False)
    monkeypatch.setenv("QTHEORY_SCHEDULER", cluster.scheduler_address)
    remote = runtime.replicate(draw, 8, seed=7, progress=False)
    assert remote == local
    assert len({v for _, v in remote}) == 8


def test_killed_worker_loses_no_replication(cluster, tmp_path):
    marker = tmp_path / "killed"
    ex = runtime.dask_executor(cluster.scheduler_address)
    out = runtime.replicate(draw, 6, seed=3, executor=ex, kwargs={"marker": str(marker)}, progress=False)
    assert marker.exists()  # a worker did die
    assert len(out) == 6
    assert out == runtime.replicate(draw, 6, seed=3, workers=1, progress=False)


def test_bad_address_names_the_option(monkeypatch):
    monkeypatch.setattr(runtime, "DASK_CONNECT_TIMEOUT", "1s")     # nothing listens there: no need to wait 10 s
    with pytest.raises(ParameterError, match="--scheduler"):
        runtime.dask_executor("tcp://127.0.0.1:1")


def test_a_task_killing_every_worker_ends_in_one_qtheory_line(cluster):  # last: leaves fewer workers
    """After more worker deaths than the scheduler allows (Dask's KilledWorker), the run fails
    with one qtheory line naming the scheduler and what to do, not Dask's raw KilledWorker and
    not a shorter list of results."""
    ex = runtime.dask_executor(cluster.scheduler_address)
    with pytest.raises(WorkerLostError) as info:
        runtime.replicate(die, 2, seed=0, executor=ex, progress=False)
    message = str(info.value)
    assert "\n" not in message
    assert cluster.scheduler_address in message
    assert "memory" in message and "--nworkers" in message and "rerun" in message
    assert "workers died" in message and "nothing of this run is published" in message
    assert isinstance(info.value.__context__, distributed.KilledWorker)   # Dask's own error, kept for a debugger
    assert info.value.__suppress_context__                                 # but not printed
