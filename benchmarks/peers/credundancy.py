"""Build and run the C loop of c.o.s.-ALIS / c.o.c. on circular-d (``redundancy.c``)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import numpy as np

from . import PeerRun
from .cbuild import HERE, build

SOURCE = HERE / "redundancy.c"

#: the names (fields of :class:`qtheory.redundancy.simulation.RunSums`) of the 17 numbers the C
#: loop prints, in its order (the elapsed time is printed twice)
STAT_NAMES = ("time", "time_q", "time_q2", "time_ratio_a", "time_ratio_b", "event_q", "event_q2",
              "event_ratio_a", "event_ratio_b", "events", "time", "final_total", "arrivals", "arrival_q",
              "arrival_q2", "arrival_ratio_a", "arrival_ratio_b")


@dataclass(frozen=True)
class CRedundancyRun:
    """Everything the C loop returns: `stats` holds the kernel's running sums, named by
    :data:`STAT_NAMES`."""

    steps: int
    seconds: float
    code: int
    cpu_seconds: float
    stats: np.ndarray
    acc_t: np.ndarray
    acc_e: np.ndarray
    hist_t: np.ndarray
    hist_e: np.ndarray

    @property
    def mean_jobs(self) -> float:
        """Time-averaged number of jobs (as ``SimulationResult.mean_jobs``)."""
        return float(self.stats[1] / self.stats[0])


def run_full(mechanism: str, n: int, d: int, lam: float, n_events: int, warmup: int, seed: int,
             init_jobs: int = 0, hist_max: int = 400) -> CRedundancyRun:
    """One run of the C loop; its generator is seeded by splitmix64 of `seed`
    (:func:`qtheory._rng.seed_state`)."""
    binary = build("redundancy")
    proc = subprocess.run([str(binary), mechanism, str(n), str(d), repr(lam), str(n_events), str(warmup),
                           str(init_jobs), str(hist_max), str(seed)], capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"redundancy.c failed ({proc.returncode}): {proc.stderr.strip()}")
    lines = proc.stdout.splitlines()
    head = lines[0].split()
    arr = [np.array(line.split(), dtype=float) for line in lines[1:]]
    return CRedundancyRun(int(head[0]), float(head[1]), int(head[2]), float(head[3]), *arr)


def run(mechanism: str, n: int, d: int, lam: float, n_events: int, warmup: int, seed: int) -> PeerRun:
    """The benchmark's view: events (warm-up included, as for numba), loop seconds, mean jobs."""
    out = run_full(mechanism, n, d, lam, n_events, warmup, seed)
    if out.code != 0:
        raise RuntimeError(f"redundancy.c stopped with code {out.code} (overflow)")
    return PeerRun(out.steps, out.seconds, out.mean_jobs, out.cpu_seconds)
