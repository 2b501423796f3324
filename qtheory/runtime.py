"""Seeded replications on any executor.

A replicated experiment is ``func(seed_sequence, *args, **kwargs)`` called once per
replication. Replication ``k`` always receives the ``k``-th child of
``numpy.random.SeedSequence(seed)``, and the results come back in replication order,
so the numbers do not depend on how many workers ran them, in which order they
finished, or on which executor (a local process pool, a Dask ``Client``'s executor,
...) was used.

numba kernels cannot take a :class:`numpy.random.SeedSequence`. The simulation
kernels and the graph samplers take :func:`kernel_state` of it, the four state words
of their xoshiro256+ generator (:mod:`qtheory._rng`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .errors import ParameterError, WorkerLostError
from .validation import check_integer, check_seed

__all__ = ["RunRecord", "spawn", "children", "child_seed", "generator", "kernel_state", "default_workers", "replicate", "progress_enabled",
           "cached_values", "value_cache_dir"]


class RunRecord:
    """What every simulator's result has, by one name in the three papers: ``events`` (events
    simulated) and ``wall_time`` (seconds in the kernel), and from them
    :attr:`events_per_second`. A mixin of the papers' ``SimulationResult`` dataclasses."""

    events: int
    wall_time: float

    @property
    def events_per_second(self) -> float:
        """Events per second of kernel time (infinite for a run too short to time)."""
        return self.events / self.wall_time if self.wall_time > 0 else float("inf")


def spawn(seed: int, n: int) -> list[np.random.SeedSequence]:
    """Return the `n` independent child seed sequences of ``SeedSequence(seed)``."""
    seed = check_seed("seed", seed)
    n = check_integer("n", n, low=0)
    return np.random.SeedSequence(seed).spawn(n)


def children(seed_sequence: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """The first `n` children of `seed_sequence`, without changing it.

    ``seed_sequence.spawn(n)`` would count the children on the caller's object, so that a
    second call (or the caller's own spawn) gets other streams; these are the children a
    fresh copy spawns, the same on every call.
    """
    if not isinstance(seed_sequence, np.random.SeedSequence):
        raise ParameterError(f"`seed_sequence` must be a numpy.random.SeedSequence (got {type(seed_sequence).__name__})")
    n = check_integer("n", n, low=0)
    copy = np.random.SeedSequence(seed_sequence.entropy, spawn_key=seed_sequence.spawn_key,
                                  pool_size=seed_sequence.pool_size,
                                  n_children_spawned=seed_sequence.n_children_spawned)
    return copy.spawn(n)


def _key_words(key) -> list[int]:
    """A prefix-free encoding of one key as 32-bit words: (0, low, high) for an integer,
    (1, number of bytes, the UTF-8 bytes four to a word) for a string."""
    if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer, str)):
        raise ParameterError(f"seed keys must be integers or strings (got {key!r} of type {type(key).__name__})")
    if isinstance(key, str):
        data = key.encode("utf-8")
        padded = data + b"\0" * (-len(data) % 4)
        return [1, len(data)] + [int.from_bytes(padded[i:i + 4], "little") for i in range(0, len(padded), 4)]
    key = int(key)
    if not 0 <= key < 2**64:
        raise ParameterError(f"integer seed keys must be in [0, 2**64) (got {key})")
    return [0, key & 0xFFFFFFFF, key >> 32]


def child_seed(seed: int, *keys: int | str) -> int:
    """The seed of the sub-experiment named by `keys`, derived from the root `seed`.

    ``child_seed(seed, "thm2", n_index, rep)`` is the integer drawn from
    ``SeedSequence(seed, spawn_key=encode(keys))``, where ``encode`` writes each key as a
    tagged run of 32-bit words (integers and strings never encode alike, and no key
    sequence is a prefix-shifted copy of another). Distinct key tuples therefore give
    distinct spawn keys, hence independent streams, however long a preset makes a list;
    the same keys give the same seed on every machine and for any number of workers.
    The result is an integer in [0, 2**63), to pass wherever a seed is taken (e.g. as
    the root seed of :func:`replicate`).
    """
    seed = check_seed("seed", seed)
    if not keys:
        raise ParameterError("child_seed needs at least one key naming the sub-experiment")
    words = []
    for key in keys:
        words += _key_words(key)
    state = np.random.SeedSequence(seed, spawn_key=tuple(words)).generate_state(2, dtype=np.uint32)
    return int(state[0]) | (int(state[1] & 0x7FFFFFFF) << 32)


def generator(seed_sequence: np.random.SeedSequence | int) -> np.random.Generator:
    """A PCG64 :class:`numpy.random.Generator` seeded from `seed_sequence`."""
    return np.random.default_rng(seed_sequence)


def kernel_state(seed: np.random.SeedSequence | int) -> np.ndarray:
    """The four uint64 state words of a kernel's xoshiro256+ generator, from `seed`.

    `seed` is a :class:`numpy.random.SeedSequence` or a non-negative integer (read as
    ``SeedSequence(seed)``). The words are the second four of ``generate_state(8,
    uint64)``: a NumPy generator built from the same seed (``default_rng(seed)``, PCG64)
    takes the first four, and the two streams must not start from the same bits. The
    all-zero state, which xoshiro never leaves, has probability 2**-256 and is replaced
    by (1, 0, 0, 0).
    """
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(check_seed("seed", seed))
    state = seed.generate_state(8, dtype=np.uint64)[4:].copy()
    if not state.any():
        state[0] = 1
    return state


def default_workers() -> int:
    """Number of worker processes: ``$QTHEORY_WORKERS`` if set, else the CPU count."""
    env = os.environ.get("QTHEORY_WORKERS")
    if env:
        try:
            value = int(env)
        except ValueError:
            raise ParameterError(f"QTHEORY_WORKERS must be a positive integer (got {env!r})") from None
        return check_integer("QTHEORY_WORKERS", value, low=1)
    return os.cpu_count() or 1


def default_scheduler() -> str | None:
    """Address of a Dask scheduler for replications: ``$QTHEORY_SCHEDULER`` (set by
    ``python -m qtheory reproduce --scheduler ADDRESS``), else None (local processes)."""
    return os.environ.get("QTHEORY_SCHEDULER") or None


_DASK_CLIENTS: dict = {}
#: how long :func:`dask_executor` waits for a scheduler to answer before naming ``--scheduler``
DASK_CONNECT_TIMEOUT = "10s"
#: guards the shared process pools and Dask clients, created on first use
_SHARED_LOCK = threading.RLock()


def dask_executor(address: str) -> Executor:
    """A ``concurrent.futures`` executor on the Dask scheduler at `address`.

    ``dask.distributed`` is imported only here. The client is created once per
    address and process. An unreachable address raises :class:`ParameterError`
    naming ``--scheduler``.
    """
    with _SHARED_LOCK:                   # replicate may be called from several threads at once
        return _dask_client(address).get_executor()


def _dask_client(address: str):
    if address not in _DASK_CLIENTS:
        try:
            from distributed import Client
        except ImportError:
            raise ParameterError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
        try:
            client = Client(address, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise ParameterError(
                f"--scheduler {address!r}: cannot connect to a Dask scheduler there ({exc})") from None
        _DASK_CLIENTS[address] = client
    return _DASK_CLIENTS[address]


def progress_enabled() -> bool:
    """Whether progress bars are shown: off under ``QTHEORY_PROGRESS=0`` (set by reproduce)."""
    return os.environ.get("QTHEORY_PROGRESS", "1") not in ("0", "false", "no")


def _call(func: Callable, seed_sequence, args, kwargs):
    return func(seed_sequence, *args, **kwargs)


def _call_block(func: Callable, seed_sequences, args, kwargs) -> list:
    return [func(ss, *args, **kwargs) for ss in seed_sequences]


#: a local pool gets about this many blocks of replications per worker (:func:`_block_size`)
BLOCKS_PER_WORKER = 4


def _block_size(n_replications: int, workers: int) -> int:
    """Replications per task on a local pool: :data:`BLOCKS_PER_WORKER` blocks per worker, so that
    thousands of short replications (L-R-finite's 2000 transient runs per size) cost a few
    submissions instead of one each, and the workers still finish together."""
    return max(1, n_replications // (workers * BLOCKS_PER_WORKER))


def replicate(
    func: Callable[..., Any],
    n_replications: int,
    seed: int,
    *,
    args: Sequence = (),
    kwargs: dict | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    desc: str | None = None,
) -> list:
    """Run ``func(seed_sequence_k, *args, **kwargs)`` for k = 0 .. n_replications - 1.

    Parameters
    ----------
    func : callable
        A module-level (picklable) function whose first argument is a
        :class:`numpy.random.SeedSequence`.
    n_replications : int
        Number of independent replications (>= 1).
    seed : int
        Root seed; replication k uses child k of ``SeedSequence(seed)``.
    args, kwargs
        Extra arguments passed to every call.
    executor : concurrent.futures.Executor, optional
        Where to run the calls (e.g. ``dask.distributed.Client(...).get_executor()``).
        By default the Dask scheduler of ``$QTHEORY_SCHEDULER`` when set (see
        :func:`dask_executor`), else a local process pool with `workers` processes,
        or the calling process itself when ``workers == 1``. The pool of a function
        defined in an importable module is kept for later calls (its workers load
        modules and compiled kernels once); a function defined in ``__main__`` (a
        notebook) gets a pool forked after its definition. The results do not
        depend on the executor: replication k always gets child k of the seed.
    workers : int, optional
        Size of the default pool; defaults to :func:`default_workers`.
    progress : bool, optional
        Show a progress bar; defaults to :func:`progress_enabled`.
    desc : str, optional
        Label of the progress bar.

    Returns
    -------
    list
        The results in replication order.

    Raises
    ------
    WorkerLostError
        On Dask, when the workers running one replication died more often than the scheduler
        allows (``distributed.scheduler.allowed-failures``); no partial list is returned.
    """
    n_replications = check_integer("n_replications", n_replications, low=1)
    seeds = spawn(seed, n_replications)
    kwargs = dict(kwargs or {})
    show = progress_enabled() if progress is None else bool(progress)
    bar = _progress_bar(n_replications, desc or getattr(func, "__name__", "replications"), show)
    if executor is None and default_scheduler():
        executor = dask_executor(default_scheduler())
    try:
        if executor is not None:
            return _run_on(executor, func, seeds, args, kwargs, bar)
        workers = default_workers() if workers is None else check_integer("workers", workers, low=1)
        workers = min(workers, n_replications)
        if workers == 1:
            out = []
            for ss in seeds:
                out.append(func(ss, *args, **kwargs))
                bar.update(1)
            return out
        block = _block_size(n_replications, workers)
        if _importable(func):
            pool = _shared_pool(workers)
            try:
                return _run_on(pool, func, seeds, args, kwargs, bar, block)
            except BrokenProcessPool:
                _POOLS.pop(workers, None)
                raise
        # fork keeps functions defined in a notebook picklable by reference (the workers are
        # forked after the function was defined, so a fresh pool for each call)
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
            return _run_on(pool, func, seeds, args, kwargs, bar, block)
    finally:
        bar.close()


_POOLS: dict[int, ProcessPoolExecutor] = {}


def _context():
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)


def _importable(func) -> bool:
    """Whether a worker started earlier finds `func` by importing its module: a function
    of a module other than ``__main__``, reachable under its qualified name."""
    module = getattr(func, "__module__", None)
    name = getattr(func, "__qualname__", "")
    if not module or module == "__main__" or "<" in name or module not in sys.modules:
        return False
    obj = sys.modules[module]
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj is func


def _shared_pool(workers: int) -> ProcessPoolExecutor:
    """The process pool of `workers` workers kept for the rest of the process.

    Its workers stay alive between calls of :func:`replicate`, so that what they loaded
    (imported modules, compiled numba kernels: about 0.2-2 s of processor time per
    kernel and process) is loaded once per worker, not once per call and worker. A
    worker holds no state that a result depends on: replication k is a function of its
    seed alone.
    """
    with _SHARED_LOCK:                   # replicate may be called from several threads at once
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ProcessPoolExecutor(max_workers=workers, mp_context=_context())
    return pool


def _run_on(executor: Executor, func, seeds, args, kwargs, bar, block: int = 1) -> list:
    """The replications of `seeds` on `executor`, in their order: one task each, or (`block` > 1)
    one task per `block` consecutive seeds, each replication with its own seed as before."""
    if block == 1:
        futures = [executor.submit(_call, func, ss, tuple(args), kwargs) for ss in seeds]
        sizes = [1] * len(seeds)
    else:
        blocks = [seeds[i:i + block] for i in range(0, len(seeds), block)]
        futures = [executor.submit(_call_block, func, b, tuple(args), kwargs) for b in blocks]
        sizes = [len(b) for b in blocks]
    try:
        for fut, size in zip(futures, sizes):
            fut.add_done_callback(lambda _f, size=size: bar.update(size))
        out = [fut.result() for fut in futures]
        if block > 1:
            out = [r for part in out for r in part]
    except BaseException as exc:
        for fut in futures:
            fut.cancel()
        lost = _workers_lost(executor, exc)
        if lost is not None:
            raise lost from None  # Dask's KilledWorker stays readable as its __context__
        raise
    if len(out) != len(seeds):  # pragma: no cover - a broken executor
        raise RuntimeError(f"executor returned {len(out)} of {len(seeds)} replications")
    return out


def _workers_lost(executor: Executor, exc: BaseException) -> WorkerLostError | None:
    """The qtheory error for Dask's ``KilledWorker`` (a task whose workers all died, more
    times than ``distributed.scheduler.allowed-failures``), naming the scheduler of
    `executor`; None for any other exception."""
    distributed = sys.modules.get("distributed")
    if distributed is None or not isinstance(exc, getattr(distributed, "KilledWorker", ())):
        return None
    client = getattr(executor, "_client", None)
    address = getattr(getattr(client, "scheduler", None), "address", None) or "(unknown address)"
    args = exc.args
    deaths = f"{args[2] + 1} " if len(args) >= 3 and isinstance(args[2], int) else ""
    last = getattr(args[1], "address", None) if len(args) >= 2 else None
    return WorkerLostError(
        f"replications on the Dask scheduler {address} stopped: {deaths}workers died running one task"
        f"{f' (the last {last})' if last else ''}; check the workers' logs and memory (a worker past its "
        f"`dask worker --memory-limit` is killed), start fewer per machine (`dask worker --nworkers`) or rerun "
        f"(without --scheduler: local processes); the replications done are discarded, nothing of this run "
        f"is published")


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, desc: str, show: bool):
    if not show:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)


# -- values that do not depend on a seed, kept on disk between runs ---------------------------------

def value_cache_dir() -> Path:
    """Folder of :func:`cached_values`: ``values`` beside the compiled kernels
    (:mod:`qtheory._kernelcache`: ``$QTHEORY_CACHE_DIR``, by default ``~/.cache/qtheory``)."""
    from . import _kernelcache

    return _kernelcache._base() / "values"


def _canonical(obj, out: list) -> None:
    """Append to `out` a text that names `obj` exactly: its type and every value (arrays by dtype,
    shape and bytes; floats by repr, which round-trips); a type it does not know raises."""
    import dataclasses
    import hashlib

    if obj is None or isinstance(obj, (bool, int, float, str, np.bool_, np.integer, np.floating)):
        out.append(f"{type(obj).__name__}:{obj!r}")
    elif isinstance(obj, np.ndarray):
        out.append(f"array:{obj.dtype.str}:{obj.shape}:{hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest()}")
    elif isinstance(obj, (list, tuple)):
        out.append(f"{type(obj).__name__}[{len(obj)}]")
        for x in obj:
            _canonical(x, out)
    elif isinstance(obj, dict):
        out.append(f"dict[{len(obj)}]")
        for k in sorted(obj, key=repr):
            _canonical(k, out)
            _canonical(obj[k], out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out.append(f"{type(obj).__module__}.{type(obj).__qualname__}")
        for f in dataclasses.fields(obj):
            out.append(f.name)
            _canonical(getattr(obj, f.name), out)
    else:
        raise ParameterError(f"cached_values cannot key a {type(obj).__name__} (use numbers, strings, arrays, "
                             "lists, dicts and dataclasses of them)")


def cached_values(kind: str, inputs: dict, compute: Callable[[], dict]) -> dict:
    """``compute()`` (a dict of arrays and numbers), kept on disk under its `kind` and `inputs`.

    For work that depends on its inputs alone and no seed (exact chains, fixed points), which a
    rerun of a notebook would otherwise repeat: the first call computes and stores the values
    (atomically, as ``.npz`` in :func:`value_cache_dir`); a later call with equal `inputs` and
    unchanged code loads them, bit for bit. The file name is a hash of `kind`, `inputs`
    (:func:`_canonical`: types and exact values) and the code that computes them: the file that
    defines `compute` and every package file it imports, directly or through others
    (:func:`qtheory._kernelcache.dependency_hash`), so an edit of that code computes afresh and
    an edit elsewhere (the runner, another page) keeps the values. ``QTHEORY_VALUE_CACHE=0``
    turns the cache off; a file that cannot be read is computed again.
    """
    import hashlib
    import inspect
    import tempfile

    if os.environ.get("QTHEORY_VALUE_CACHE", "1") in ("0", "false", "no"):
        return compute()
    from . import _kernelcache

    code = getattr(compute, "__code__", None)       # a function; else the class of a callable object
    source = code.co_filename if code is not None else inspect.getfile(type(compute))
    text: list[str] = [kind, _kernelcache.dependency_hash(source).hex()]
    _canonical(inputs, text)
    name = hashlib.sha256("\n".join(text).encode()).hexdigest()[:32]
    path = value_cache_dir() / kind / f"{name}.npz"
    try:
        with np.load(path, allow_pickle=False) as data:
            return _plain({k: data[k] for k in data.files})
    except (OSError, ValueError, KeyError, EOFError):
        pass
    values = {k: np.asarray(v) for k, v in compute().items()}
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **values)
        os.replace(tmp, path)
    except OSError:      # a read-only or full disk: the values are still right, only not kept
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
    return _plain(values)


def _plain(values: dict) -> dict:
    """Arrays as arrays, numbers (0-d arrays) as Python numbers: a loaded value has the type of a
    computed one."""
    return {k: (v.item() if v.ndim == 0 else v) for k, v in values.items()}
