"""Independent C peers: each benchmarked model written again in C from the papers, for speed.

The C loops in ``benchmarks/peers`` are the numba kernels' event loops written statement for
statement (same draws, same path); they show what the *same algorithm* costs in C. The loops
here are written from the models instead, as one would write them for speed (each file's
first comment lists its design choices): no exponential draws (time averages weight each
state by its holding time's conditional mean), one uniform per event, tables of 1 / rate,
the generator in local variables, int32 data, only the statistic the benchmark reads. They
are built with ``gcc -O3 -march=native``; ``benchmarks/run.py --only independent`` times each
numba kernel against them, and ``tests/test_independent_peers.py`` checks that they compute
the same statistics (and the exact values that are known).

Models (the parameters of :data:`benchmarks.peers.models.CASES`, at the sizes of issue 33):

- ``supermarket``: JSQ(2) supermarket, N = 1000, lambda = 0.9 (``jsq2.c``);
- ``local_jsqd``: local JSQ(2) on irg(p^1), the system of Sec. 6 of paper L, N = 1000
  (``jsq2_graph.c``, on the graph the numba run gets);
- ``coc``, ``cos``: c.o.c. and c.o.s.-ALIS on circular-2, N = 20, lambda = 0.9
  (``redundancy.c``);
- ``jlmu``, ``slta``: the Table 1 system of paper U, n = 100, rho = 10 (``utility.c``).
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..peers import PeerRun
from ..peers.cbuild import build as _build

HERE = Path(__file__).resolve().parent
#: how the loops are compiled (``-O3`` is passed as the optimisation level)
FLAGS = ("-march=native",)
OPTIMISE = "-O3"

#: the benchmarked models and their sources
SOURCES = {"supermarket": "jsq2", "local_jsqd": "jsq2_graph", "coc": "redundancy", "cos": "redundancy",
           "jlmu": "utility", "slta": "utility"}
#: servers of the L models (N = 1000: ``n_factor`` 10 on models.CASES' N = 100)
L_SERVERS = 1000


@dataclass(frozen=True)
class IndependentRun(PeerRun):
    """A :class:`~benchmarks.peers.PeerRun` with the check statistic of the ``-DCHECK`` build
    (nan otherwise): the busy fraction (supermarket), the mean departure rate over the arrival
    rate (local JSQ(2)), the busy servers over lambda N (c.o.s.), the tasks per pool (U); and
    `check2`, SLTA's time-averaged index r."""

    check: float = float("nan")
    check2: float = float("nan")


def binary(source: str, check: bool = False) -> Path:
    """The compiled loop `source` (``jsq2``, ``jsq2_graph``, ``redundancy``, ``utility``)."""
    return _build(source, FLAGS + (("-DCHECK",) if check else ()), folder=HERE, optimise=OPTIMISE)


def _call(source: str, args, stdin: bytes = b"", check: bool = False) -> IndependentRun:
    proc = subprocess.run([str(binary(source, check)), *map(str, args)], input=stdin, capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{source}.c failed ({proc.returncode}): {proc.stderr.decode().strip()}")
    ev, wall, cpu, stat, chk, chk2 = proc.stdout.decode().split()
    return IndependentRun(int(ev), float(wall), float(stat), float(cpu), float(chk), float(chk2))


def supermarket(n: int, lam: float, horizon: float, warmup: float, seed: int, check: bool = False) -> IndependentRun:
    """JSQ(2) supermarket: time-averaged mean queue length on [warmup, horizon]."""
    return _call("jsq2", [n, repr(float(lam)), repr(float(horizon)), repr(float(warmup)), seed], check=check)


def _int32(name: str, values) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size and (arr.min() < 0 or arr.max() > np.iinfo(np.int32).max):
        raise ValueError(f"`{name}` does not fit in int32 (the C loop's data type)")
    return np.ascontiguousarray(arr, dtype="<i4")


def local_jsq2(system, graph, horizon: float, warmup: float, seed: int, check: bool = False) -> IndependentRun:
    """Local JSQ(2) on `graph` (a :class:`~qtheory.locality.graphs.CompatibilityGraph`):
    time-averaged mean queue length over all servers on [warmup, horizon]."""
    if system.d != 2:
        raise ValueError(f"`system.d` must be 2 for the JSQ(2) loop (got {system.d})")
    arrays = [np.ascontiguousarray(system.u, dtype="<f8"), _int32("server_type", graph.server_type),
              _int32("offset", graph.offset), _int32("degree", graph.degree), _int32("neighbors", graph.neighbors)]
    stdin = b"".join(a.tobytes() for a in arrays)
    args = [graph.n_dispatchers, graph.n_servers, system.n_types, graph.neighbors.size,
            repr(float(system.arrival_rate)), repr(float(horizon)), repr(float(warmup)), seed]
    return _call("jsq2_graph", args, stdin, check=check)


def redundancy(mechanism: str, n: int, d: int, lam: float, n_events: int, warmup: int, seed: int,
               check: bool = False) -> IndependentRun:
    """c.o.c. or c.o.s.-ALIS on circular-d: time-averaged number of jobs over `n_events` events
    after `warmup` events (events counted as the numba simulator counts them: warm-up included)."""
    if mechanism not in ("coc", "cos"):
        raise ValueError(f"`mechanism` must be 'coc' or 'cos' (got {mechanism!r})")
    return _call("redundancy", [mechanism, n, d, repr(float(lam)), n_events, warmup, seed], check=check)


def utility(system, n: int, policy: str, horizon: float, warmup: float, seed: int, max_occupancy: int,
            check: bool = False, r0: int = 1) -> IndependentRun:
    """JLMU or SLTA on `system` (a :class:`~qtheory.utility.model.PoolSystem`) with `n` pools:
    time-averaged utility per pool on [warmup, horizon] from empty pools. The model's tables
    (marginal utilities, their tie keys, the ranking of coordinates for SLTA, n beta_n) are
    the package's, the inputs of the numba simulator."""
    import math

    from qtheory.utility.model import TIE_DECIMALS, enumeration, tabulate
    from qtheory.utility.simulation import default_beta

    if policy not in ("jlmu", "slta"):
        raise ValueError(f"`policy` must be 'jlmu' or 'slta' (got {policy!r})")
    counts = np.asarray(system.pool_counts(n))
    values = tabulate(system.utilities, max_occupancy)
    delta = np.ascontiguousarray(np.diff(values, axis=1), dtype="<f8")
    key = np.ascontiguousarray(np.round(delta, TIE_DECIMALS), dtype="<f8")
    u_start = float(values[np.repeat(np.arange(system.m), counts), 0].sum())
    parts = [_int32("pool counts", counts).tobytes(), delta.tobytes(), key.tobytes()]
    n_coords, green_min = 0, float(n)
    if policy == "slta":
        en = enumeration(system, max_occupancy)
        parts += [_int32("classes", en.cls).tobytes(), _int32("levels", en.level).tobytes()]
        n_coords, green_min = en.cls.size, float(n * default_beta(n))
    args = [policy, n, system.m, max_occupancy, repr(float(system.lam)), repr(float(system.mu)),
            repr(float(horizon)), repr(float(warmup)), repr(u_start), r0, repr(green_min), n_coords, seed]
    assert math.isfinite(u_start)
    return _call("utility", args, b"".join(parts), check=check)


@functools.lru_cache(maxsize=4)
def _locality_setup(key: str, n: int):
    from ..peers import models

    return models._locality_setup(key, n)


def run(key: str, seed: int, scale: dict, check: bool = False) -> IndependentRun:
    """The independent loop of benchmark case `key` at `scale`, with the parameters and the
    warm-up rules of :func:`benchmarks.peers.models.run` (so the statistic estimates the same
    quantity as ``models.run(key, "numba", seed, scale)``). L cases take ``horizon`` and
    ``n_factor`` (N = 100 n_factor), R cases ``r_events``, U cases ``u_horizon``."""
    from ..peers import models

    if key not in SOURCES:
        raise KeyError(f"no independent loop for case {key!r}")
    case = models.CASES[key]
    if case.paper == "L":
        n = int(case.params.get("n", 100) * scale.get("n_factor", 1))
        horizon = float(scale["horizon"])
        warmup = min(models.L_WARMUP, horizon / 2)
        if key == "supermarket":
            return supermarket(n, case.params["lam"], horizon, warmup, seed, check)
        system, graph = _locality_setup(key, n)
        return local_jsq2(system, graph, horizon, warmup, seed, check)
    if case.paper == "R":
        n_events = int(scale["r_events"])
        return redundancy(case.params["mechanism"], 20, 2, 0.9, n_events, n_events // 10, seed, check)
    from qtheory.utility import table1_system

    horizon = float(scale["u_horizon"])
    return utility(table1_system(10.0), case.params["n"], case.params["policy"], horizon,
                   min(models.U_WARMUP, horizon / 2), seed, models.U_DEPTH, check)
