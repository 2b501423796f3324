"""Build and run the C JSQ(2) supermarket model (``supermarket.c``) with gcc -O2."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import PeerRun

SOURCE = Path(__file__).with_name("supermarket.c")
_BINARIES: dict = {}


def _scratch() -> Path:
    """A temporary folder for one binary, removed when the process ends."""
    folder = Path(tempfile.mkdtemp(prefix="qtheory-bench-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def build(generator: str = "xoshiro") -> Path:
    """Compile ``supermarket.c`` (gcc -O2) once per process into a temporary folder.

    `generator` is ``"xoshiro"`` (xoshiro256+, the default) or ``"mt19937"`` (the
    Mersenne Twister that numba uses).
    """
    if generator in _BINARIES and _BINARIES[generator].exists():
        return _BINARIES[generator]
    gcc = shutil.which("gcc")
    if gcc is None:
        raise RuntimeError("gcc is needed for the C reference implementation")
    out = _scratch() / f"supermarket-{generator}"
    flags = ["-DUSE_MT19937"] if generator == "mt19937" else []
    subprocess.run([gcc, "-O2", *flags, "-o", str(out), str(SOURCE), "-lm"], check=True)
    _BINARIES[generator] = out
    return out


def run(n: int, lam: float, horizon: float, warmup: float, n_grid: int, seed: int, levels: int = 10,
        generator: str = "xoshiro") -> PeerRun:
    """Run the C model; the statistic is the grid-averaged mean queue length on [warmup, horizon]."""
    binary = build(generator)
    out = subprocess.run([str(binary), str(n), repr(lam), repr(horizon), repr(warmup), str(n_grid), str(levels),
                          str(seed)], check=True, capture_output=True, text=True).stdout.split()
    return PeerRun(int(out[0]), float(out[1]), float(out[2]), float(out[3]))
