"""Build and run the C JSQ(2) supermarket model (``supermarket.c``) with gcc -O2."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from . import PeerRun

SOURCE = Path(__file__).with_name("supermarket.c")
_BINARY: Path | None = None


def build() -> Path:
    """Compile ``supermarket.c`` once per process into a temporary folder; return the binary."""
    global _BINARY
    if _BINARY is not None and _BINARY.exists():
        return _BINARY
    gcc = shutil.which("gcc")
    if gcc is None:
        raise RuntimeError("gcc is needed for the C reference implementation")
    out = Path(tempfile.mkdtemp(prefix="qtheory-bench-")) / "supermarket"
    subprocess.run([gcc, "-O2", "-o", str(out), str(SOURCE), "-lm"], check=True)
    _BINARY = out
    return out


def run(n: int, lam: float, horizon: float, warmup: float, n_grid: int, seed: int, levels: int = 10) -> PeerRun:
    """Run the C model; the statistic is the grid-averaged mean queue length on [warmup, horizon]."""
    binary = build()
    out = subprocess.run([str(binary), str(n), repr(lam), repr(horizon), repr(warmup), str(n_grid), str(levels),
                          str(seed)], check=True, capture_output=True, text=True).stdout.split()
    return PeerRun(int(out[0]), float(out[1]), float(out[2]))
