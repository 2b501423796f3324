"""Build and run the C loop of JLMU / SLTA on infinite-server pools (``utility.c``)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import numpy as np

from . import PeerRun
from .cbuild import HERE, build

SOURCE = HERE / "utility.c"


@dataclass(frozen=True)
class CUtilityRun:
    """The kernel's return values and time integrals (see ``utility.c``); `area_s` is nan
    (the task integral is the package's ``arange @ hist_n``)."""

    status: int
    events: int
    area_u: float
    area_s: float
    t: float
    seconds: float
    cpu_seconds: float
    area_q: np.ndarray
    hist_n: np.ndarray
    time_r: np.ndarray


def inputs(system, n: int, policy: str, max_occupancy: int):
    """The arrays `simulate` hands the numba kernel, for an empty start: (offset, delta, key,
    u_start, max_tasks, ecls, elev, green_min)."""
    import math

    from qtheory.utility.model import TIE_DECIMALS, enumeration, tabulate
    from qtheory.utility.simulation import default_beta

    counts = system.pool_counts(n)
    offset = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    values = tabulate(system.utilities, max_occupancy)
    delta = np.ascontiguousarray(np.diff(values, axis=1))
    key = np.round(delta, TIE_DECIMALS)
    u_start = float(values[np.repeat(np.arange(system.m), counts), 0].sum())
    mean = n * system.rho
    max_tasks = int(mean + 12 * math.sqrt(mean) + 50)          # simulate's default for an empty start
    if policy == "slta":
        en = enumeration(system, max_occupancy)
        ecls, elev = en.cls.astype(np.int64), en.level.astype(np.int64)
        green_min = float(n * default_beta(n))
    else:
        ecls, elev, green_min = np.zeros(1, np.int64), np.ones(1, np.int64), float(n)
    return offset, delta, key, u_start, max_tasks, ecls, elev, green_min


def run_full(system, n: int, policy: str, t_end: float, warmup: float, seed: int, max_occupancy: int,
             r0: int = 1) -> CUtilityRun:
    """One run from empty pools; the generator is seeded by splitmix64 of `seed`."""
    offset, delta, key, u_start, max_tasks, ecls, elev, green_min = inputs(system, n, policy, max_occupancy)
    text = [" ".join(map(str, offset)), " ".join(map(repr, delta.ravel().tolist())),
            " ".join(map(repr, key.ravel().tolist()))]
    if policy == "slta":
        text += [str(ecls.size), " ".join(map(str, ecls)), " ".join(map(str, elev))]
    binary = build("utility")
    proc = subprocess.run([str(binary), policy, str(n), str(system.m), str(max_occupancy), repr(system.lam),
                           repr(system.mu), repr(float(t_end)), repr(float(warmup)), repr(u_start), str(max_tasks),
                           str(r0), repr(green_min), str(seed)], input="\n".join(text) + "\n",
                          capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"utility.c failed ({proc.returncode}): {proc.stderr.strip()}")
    lines = proc.stdout.splitlines()
    h = lines[0].split()
    arr = [np.array(line.split(), dtype=float) for line in lines[1:]]
    return CUtilityRun(int(h[0]), int(h[1]), float(h[2]), float(h[3]), float(h[4]), float(h[5]), float(h[6]), *arr)


def run(system, n: int, policy: str, t_end: float, warmup: float, seed: int, max_occupancy: int) -> PeerRun:
    """The benchmark's view: events, loop seconds, time-averaged utility per pool."""
    out = run_full(system, n, policy, t_end, warmup, seed, max_occupancy)
    if out.status != 0:
        raise RuntimeError(f"utility.c stopped with status {out.status}")
    return PeerRun(out.events, out.seconds, out.area_u / (n * (t_end - warmup)), out.cpu_seconds)
