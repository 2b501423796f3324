"""SHA-256 of the statistics of seeded short runs of every simulator, to show that a change
of a kernel's plumbing (not of its event loop) leaves every result bit-identical.

Runs, through the public ``simulate`` of each paper and in every mode of each kernel:

* U: every registered policy (default parameters), Table 1 system, from empty pools and
  from a given occupancy state, with sample times;
* L: every registered policy on an irg graph (servers numbered type by type, and renamed so
  that they are not) and on the complete graph, with queue
  lengths held in int32 and, forced by lowering the module's size thresholds, in uint8 and
  uint16 (runs started with queues at 254 and 65534 overflow them and restart wider),
  with arrivals drawn ahead (lookahead) and with the statistics kept per event;
* R: every registered mechanism, homogeneous and heterogeneous speeds, with initial jobs
  and a warm-up.

Prints one line per run (case and the hash of its statistics: every field of the result
but the wall time) and the hash of all lines. Run it on two trees and compare::

    PYTHONPATH=/tmp/base .venv/bin/python benchmarks/stat_hashes.py > before.txt
    PYTHONPATH=.         .venv/bin/python benchmarks/stat_hashes.py > after.txt
    diff before.txt after.txt

(about a minute of one core, most of it compiling the kernels of a fresh tree).
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys

import numpy as np


def _digest(result) -> str:
    """Hash of every field of a result record except its wall time."""
    h = hashlib.sha256()
    for field in dataclasses.fields(result):
        if field.name in ("wall_time", "seconds"):
            continue
        value = getattr(result, field.name)
        if isinstance(value, np.ndarray) and value.size == 0 and field.name == "policy_state":
            continue        # a policy without memory (the field is newer than the first hashes)
        h.update(field.name.encode() + b"\0")
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, float):
            h.update(np.float64(value).tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()


def _utility():
    from qtheory.utility import table1_system
    from qtheory.utility.simulation import POLICIES, simulate

    system = table1_system(10.0)
    n = 100
    q = np.zeros((system.m, 8))
    alpha = np.asarray(system.alpha)
    q[:, 0] = alpha
    q[:, 1] = np.floor(n * alpha / 2) / n          # half the pools of each class hold a task
    q[:, 2] = np.floor(n * alpha / 4) / n          # a quarter two
    for policy in POLICIES:
        yield f"U {policy} empty", simulate(system, n, policy, horizon=8.0, warmup=2.0, seed=11,
                                            sample_times=np.linspace(0.0, 8.0, 9))
        yield f"U {policy} from q", simulate(system, n, policy, horizon=5.0, warmup=1.0, seed=12, initial=q)


def _locality():
    import qtheory.locality.simulation as sim
    from qtheory.locality.graphs import CompatibilityGraph, complete_bipartite, irg
    from qtheory.locality.model import paper_system
    from qtheory.locality.policies import REGISTRY

    system = paper_system("design", d=2)
    n = 120
    graph = irg(system, n, seed=2)
    # the same graph with its servers renamed, so that the types are out of order (the kernel
    # then reads server types and type members instead of computing them)
    sigma = np.random.default_rng(1).permutation(n)
    server_type = np.empty(n, np.int64)
    server_type[sigma] = graph.server_type
    renamed = CompatibilityGraph(server_type, graph.dispatcher_cluster, graph.offset, graph.degree,
                                 sigma[graph.neighbors].astype(graph.neighbors.dtype), graph.n_types,
                                 graph.n_clusters)
    graphs = {"irg": graph, "irg renamed": renamed, "complete": complete_bipartite(system, n)}
    grid = np.linspace(0.0, 10.0, 21)
    modes = {  # module constants -> the kernel's modes (defaults: int32 lists, no lookahead, statistics
        # counted at the recording times, as the runs here take more steps than servers counted)
        "int32": {},
        "narrow": {"_NARROW_FROM": 0},
        "ahead": {"_NARROW_FROM": 0, "_AHEAD_FROM_BYTES": 0},
        "per-event statistics": {"_SCAN_SHARE": 0.0},
    }
    for mode, settings in modes.items():
        saved = {k: getattr(sim, k) for k in settings}
        for k, v in settings.items():
            setattr(sim, k, v)
        try:
            for gname, graph in graphs.items():
                for name in REGISTRY:
                    for top in (0, 254, 65534):
                        x0 = np.zeros(n, np.int64)
                        x0[::4] = top
                        x0[1::4] = 3
                        yield (f"L {name} {gname} {mode} top={top}",
                               sim.simulate(system, graph, name, initial_state=x0, t_grid=grid, seed=7, levels=5))
        finally:
            for k, v in saved.items():
                setattr(sim, k, v)


def _redundancy():
    from qtheory.redundancy import model as M
    from qtheory.redundancy.simulation import MECHANISMS, simulate

    systems = {"circular(6,2)": M.circular_d(6, 2),
               "circular(6,2) speeds": M.circular_d(6, 2)}
    base = systems["circular(6,2)"]
    systems["circular(6,2) speeds"] = M.RedundancySystem(speeds=(0.5, 1.0, 1.5, 0.8, 1.2, 1.0), types=base.types,
                                                         probabilities=base.probabilities)
    for mechanism in MECHANISMS:
        for sname, system in systems.items():
            yield (f"R {mechanism} {sname}",
                   simulate(system, 0.7, n_events=20_000, mechanism=mechanism, seed=5, initial_scale=4.0,
                            n_batches=8, **_warmup_events(simulate, 1000)))


def _warmup_events(simulate, events: int) -> dict:
    """R's warm-up keyword, as the tree measured names it (``warmup`` before 2026-12-06)."""
    import inspect

    return {"warmup_events" if "warmup_events" in inspect.signature(simulate).parameters else "warmup": events}


def main() -> int:
    papers = sys.argv[1:] or ["U", "L", "R"]
    runs = {"U": _utility, "L": _locality, "R": _redundancy}
    total = hashlib.sha256()
    for paper in papers:
        for case, result in runs[paper]():
            line = f"{_digest(result)}  {case}"
            print(line, flush=True)
            total.update(line.encode() + b"\n")
    print(f"{total.hexdigest()}  all ({' '.join(papers)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
