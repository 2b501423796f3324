"""Compile a C peer (``benchmarks/peers/*.c``) with the system compiler, once per process."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_BINARIES: dict = {}


def _scratch() -> Path:
    """A temporary folder for one binary, removed when the process ends."""
    folder = Path(tempfile.mkdtemp(prefix="qtheory-bench-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def build(name: str, flags: tuple = (), folder: Path = HERE, optimise: str = "-O2") -> Path:
    """Compile ``<folder>/<name>.c`` with ``gcc -O2`` (no -march, no fast-math: the same arithmetic
    as numba's, which the identical-path tests rely on) into a temporary folder; cached.

    The independent loops (``benchmarks/independent``) pass their folder and ``-O3`` (with
    ``-march=native`` among the flags)."""
    key = (str(folder), name, tuple(flags), optimise)
    if key in _BINARIES and _BINARIES[key].exists():
        return _BINARIES[key]
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise RuntimeError("a C compiler (gcc or cc) is needed for the C peers")
    out = _scratch() / name
    subprocess.run([gcc, optimise, *flags, "-o", str(out), str(Path(folder) / f"{name}.c"), "-lm"], check=True)
    _BINARIES[key] = out
    return out
