"""Build and run the C JSQ(2) supermarket model (``supermarket.c``) with gcc -O2."""

from __future__ import annotations

import subprocess
from pathlib import Path

from . import PeerRun, cbuild

SOURCE = Path(__file__).with_name("supermarket.c")


def build(generator: str = "xoshiro") -> Path:
    """Compile ``supermarket.c`` (gcc -O2) once per process into a temporary folder
    (:func:`benchmarks.peers.cbuild.build`).

    `generator` is ``"xoshiro"`` (xoshiro256+, the default) or ``"mt19937"`` (the
    Mersenne Twister that numba uses).
    """
    return cbuild.build(SOURCE.stem, ("-DUSE_MT19937",) if generator == "mt19937" else (), folder=SOURCE.parent)


def run(n: int, lam: float, horizon: float, warmup: float, n_grid: int, seed: int, levels: int = 10,
        generator: str = "xoshiro") -> PeerRun:
    """Run the C model; the statistic is the grid-averaged mean queue length on [warmup, horizon]."""
    binary = build(generator)
    out = subprocess.run([str(binary), str(n), repr(lam), repr(horizon), repr(warmup), str(n_grid), str(levels),
                          str(seed)], check=True, capture_output=True, text=True).stdout.split()
    return PeerRun(int(out[0]), float(out[1]), float(out[2]), float(out[3]))
