"""Where numba keeps qtheory's compiled kernels: one folder per version of the sources.

numba's ``cache=True`` keys a compiled function on its own source file only. A kernel
that calls a jitted function of another module (every simulator calls the generator
in :mod:`qtheory._rng`; a kernel specialised on a policy's decision function calls
that policy's file) would keep running the old machine code after that other file
changed. qtheory therefore points numba's cache at a folder named by a hash of all of
its own ``.py`` files: any edit of the package starts from a fresh cache, an
unchanged package reuses its compiled kernels.

The folder is ``$QTHEORY_CACHE_DIR/numba/<hash>``, by default under
``~/.cache/qtheory`` (or the system's temporary folder where that is not writable).
It is set before the first kernel is compiled, in :mod:`qtheory`'s ``__init__``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["source_hash", "kernel_cache_dir", "configure"]


def source_hash(root: str | os.PathLike) -> str:
    """A hex digest of every ``.py`` file under `root` (relative path and contents)."""
    root = Path(root)
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def _base() -> Path:
    env = os.environ.get("QTHEORY_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qtheory"


def kernel_cache_dir(root: str | os.PathLike) -> Path:
    """The numba cache folder for the package sources under `root`."""
    return _base() / "numba" / source_hash(root)


def configure(root: str | os.PathLike) -> Path:
    """Point numba's cache at :func:`kernel_cache_dir` of `root`; return the folder."""
    folder = kernel_cache_dir(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir()) / "qtheory-numba" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before qtheory: its config was read already
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder
