import os
import numpy as np
import pytest
from concurrent.futures import ThreadPoolExecutor

from qtheory import runtime
from qtheory.errors import ParameterError


def draw(ss, size):
    return runtime.generator(ss).standard_normal(size)


def test_replications_are_identical_whatever_the_worker_count():
    serial = runtime.replicate(draw, 6, seed=11, args=(5,), workers=1)
    pooled = runtime.replicate(draw, 6, seed=11, args=(5,), workers=2)
    threaded = runtime.replicate(draw, 6, seed=11, args=(5,), executor=ThreadPoolExecutor(3))
    for a, b, c in zip(serial, pooled, threaded):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_replications_are_independent_streams_and_depend_on_the_seed():
    a = runtime.replicate(draw, 3, seed=1, args=(4,), workers=1)
    b = runtime.replicate(draw, 3, seed=2, args=(4,), workers=1)
    assert not np.array_equal(a[0], a[1])
    assert not np.array_equal(a[0], b[0])


def test_replication_k_uses_the_kth_child_seed():
    out = runtime.replicate(draw, 3, seed=5, args=(2,), workers=1)
    child = np.random.SeedSequence(5).spawn(3)[2]
    np.testing.assert_array_equal(out[2], np.random.default_rng(child).standard_normal(2))


def fails(ss):
    raise RuntimeError("boom")


def test_an_error_in_a_replication_propagates():
    with pytest.raises(RuntimeError, match="boom"):
        runtime.replicate(fails, 2, seed=0, workers=2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_replications=0, seed=1), "n_replications"),
    (dict(n_replications=2, seed=-1), "seed"),
    (dict(n_replications=2, seed=1.5), "seed"),
    (dict(n_replications=2, seed=1, workers=0), "workers"),
])
def test_bad_replication_arguments_name_the_parameter(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        runtime.replicate(draw, args=(1,), **kwargs)


def test_workers_environment_variable_is_validated(monkeypatch):
    monkeypatch.setenv("QTHEORY_WORKERS", "many")
    with pytest.raises(ParameterError, match="QTHEORY_WORKERS"):
        runtime.default_workers()
    monkeypatch.setenv("QTHEORY_WORKERS", "3")
    assert runtime.default_workers() == 3


def test_child_seeds_differ_for_distinct_keys_and_repeat_for_equal_keys():
    from qtheory.runtime import child_seed

    keys = [("thm2", n, rep) for n in range(12) for rep in range(12)]
    keys += [("thm2", "1"), ("thm2", 1), (0,), (1,), ("a", "bc"), ("ab", "c"), ("abcd",), ("abcd", "")]
    seeds = [child_seed(7, *k) for k in keys]
    assert len(set(seeds)) == len(seeds)
    assert child_seed(7, "thm2", 3, 4) == child_seed(7, "thm2", 3, 4)
    assert child_seed(7, "thm2", 3, 4) != child_seed(8, "thm2", 3, 4)
    # the old stride arithmetic collided: seed + 10 * i + j for (i, j) = (0, 10) and (1, 0)
    assert child_seed(7, 0, 10) != child_seed(7, 1, 0)
    assert all(0 <= s < 2**63 for s in seeds)


def test_child_seed_names_bad_keys():
    from qtheory.runtime import child_seed

    with pytest.raises(ParameterError, match="keys"):
        child_seed(7, 1.5)
    with pytest.raises(ParameterError, match="key"):
        child_seed(7)
    with pytest.raises(ParameterError, match="seed"):
        child_seed(-1, "a")


def worker_pid(ss):
    import os

    return os.getpid()


def test_a_module_function_runs_on_workers_kept_between_calls():
    # what a worker loaded (numba kernels) is loaded once, not once per call: the second call
    # runs on the pool of the first, whose processes are still there. (Which of the two
    # workers takes which task depends on the load, so the pids each call happens to see
    # are not compared with each other.)
    first = set(runtime.replicate(worker_pid, 6, seed=1, workers=2))
    pool = runtime._POOLS[2]
    started = set(pool._processes)
    second = set(runtime.replicate(worker_pid, 6, seed=2, workers=2))
    assert runtime._POOLS[2] is pool
    assert first <= started and started <= set(pool._processes)
    assert second <= set(pool._processes)
    assert os.getpid() not in first | second


def test_a_function_defined_in_main_after_the_pool_started_still_runs():
    # a notebook's functions live in __main__: workers forked before the definition would
    # not find them, so such a function gets workers forked after it
    runtime.replicate(worker_pid, 2, seed=1, workers=2)
    import sys

    main = sys.modules["__main__"]
    exec("def late(ss):\n    return int(ss.generate_state(1)[0])\n", main.__dict__)
    try:
        out = runtime.replicate(main.late, 4, seed=3, workers=2)
    finally:
        del main.late
    assert out == [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(3).spawn(4)]


def test_children_leave_the_callers_seed_sequence_unchanged_and_repeat():
    import numpy as np

    from qtheory.runtime import children

    ss = np.random.SeedSequence(7)
    first = [c.generate_state(2).tolist() for c in children(ss, 3)]
    assert ss.n_children_spawned == 0
    assert [c.generate_state(2).tolist() for c in children(ss, 3)] == first
    # the same streams as the caller's own first spawn
    assert [c.generate_state(2).tolist() for c in ss.spawn(3)] == first


def test_locality_replications_do_not_spawn_from_the_callers_seed_sequence():
    import numpy as np

    from qtheory.locality.experiments import _seeds

    ss = np.random.SeedSequence(11)
    _seeds(ss)
    assert ss.n_children_spawned == 0


def _counted(values):
    calls = []

    def compute():
        calls.append(1)
        return dict(values)

    return compute, calls


def test_cached_values_are_computed_once_and_load_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))
    values = {"q": np.array([0.1, 1 / 3, 2e-300]), "mass": 1 / 7, "states": 123}
    compute, calls = _counted(values)
    inputs = {"n": 3, "rates": np.array([1.0, 2.5]), "name": "gwsq"}
    first = runtime.cached_values("toy", inputs, compute)
    again = runtime.cached_values("toy", {"name": "gwsq", "rates": np.array([1.0, 2.5]), "n": 3}, compute)
    assert len(calls) == 1
    for got in (first, again):
        assert got["q"].tobytes() == values["q"].tobytes()
        assert type(got["mass"]) is float and got["mass"] == values["mass"]
        assert type(got["states"]) is int and got["states"] == 123


def test_cached_values_follow_every_input_and_the_kind(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))
    compute, calls = _counted({"x": 1.0})
    base = {"n": 3, "rates": np.array([1.0, 2.5]), "zeros": np.zeros(2)}
    runtime.cached_values("toy", base, compute)
    for kind, inputs in (("toy", {**base, "n": 4}),
                         ("toy", {**base, "rates": np.array([1.0, 2.5000000000000004])}),   # one ulp
                         ("toy", {**base, "zeros": np.zeros(2, dtype=np.int64)}),            # same bytes, another dtype
                         ("toy", {**base, "zeros": np.zeros((1, 2))}),                       # another shape
                         ("other", base)):
        before = len(calls)
        runtime.cached_values(kind, inputs, compute)
        assert len(calls) == before + 1, (kind, inputs)


def test_cached_values_recompute_a_damaged_file_and_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))
    compute, calls = _counted({"x": 2.0})
    runtime.cached_values("toy", {"n": 1}, compute)
    (path,) = (runtime.value_cache_dir() / "toy").glob("*.npz")
    path.write_bytes(b"not a zip file")
    assert runtime.cached_values("toy", {"n": 1}, compute) == {"x": 2.0} and len(calls) == 2
    assert runtime.cached_values("toy", {"n": 1}, compute) == {"x": 2.0} and len(calls) == 2
    monkeypatch.setenv("QTHEORY_VALUE_CACHE", "0")
    runtime.cached_values("toy", {"n": 1}, compute)
    assert len(calls) == 3


def test_cached_values_refuse_inputs_they_cannot_name(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))
    with pytest.raises(ParameterError, match="cannot key a object"):
        runtime.cached_values("toy", {"x": object()}, lambda: {})


def test_replications_in_blocks_are_those_run_one_by_one_in_order():
    # 40 replications on 2 workers go as 8 blocks of 5 (BLOCKS_PER_WORKER = 4); each keeps its seed
    assert runtime._block_size(40, 2) == 5 and runtime._block_size(10, 2) == 1
    serial = runtime.replicate(draw, 40, seed=12, args=(3,), workers=1)
    blocks = runtime.replicate(draw, 40, seed=12, args=(3,), workers=2)
    assert len(blocks) == 40
    for a, b in zip(serial, blocks):
        np.testing.assert_array_equal(a, b)


def test_cached_values_take_a_callable_object_and_key_on_its_code(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path))

    class Compute:                     # no __code__: keyed on the file defining its class
        calls = 0

        def __call__(self):
            Compute.calls += 1
            return {"x": 3.0}

    assert runtime.cached_values("toy-object", {"n": 1}, Compute()) == {"x": 3.0}
    assert runtime.cached_values("toy-object", {"n": 1}, Compute()) == {"x": 3.0} and Compute.calls == 1
