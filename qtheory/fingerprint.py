"""Content hashes of a run's inputs, and whether its published results are up to date.

``reproduce`` skips a notebook whose executed copy and every result sidecar carry the hash
of its inputs: the notebook file, its parameters, and the package (version and sources).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from .notebooks import executed_path, notebook_path
from .presets import Run


def package_fingerprint() -> str:
    """SHA-256 of the qtheory version and every source file of the package."""
    import hashlib

    from . import __version__

    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def input_hash(run: Run, source: Path | None = None) -> str:
    """Content hash of what determines a run's results: notebook, parameters, package.

    A result whose sidecar carries the same hash is up to date and is not recomputed.
    """
    import hashlib

    source = source or notebook_path(run.notebook)
    digest = hashlib.sha256(source.read_bytes())
    digest.update(json.dumps(run.parameters, sort_keys=True, default=repr).encode())
    digest.update(package_fingerprint().encode())
    return digest.hexdigest()


def up_to_date(run: Run, results: Path, *, executed: Path | None = None, source: Path | None = None,
               items: Sequence[str] | None = None) -> bool:
    """Whether every result of `run` and its executed notebook exist with the run's input hash."""
    executed = executed or executed_path(run.notebook, results)
    if not executed.exists():
        return False
    want = input_hash(run, source)
    try:
        shown = json.loads(executed.read_text(encoding="utf-8")).get("metadata", {}).get("qtheory", {})
    except json.JSONDecodeError:
        return False
    if shown.get("input_hash") != want:
        return False
    for item in (items if items is not None else run.items):
        meta = results / item / f"{item}.json"
        if not meta.exists():
            return False
        try:
            if json.loads(meta.read_text(encoding="utf-8")).get("input_hash") != want:
                return False
        except json.JSONDecodeError:
            return False
    return True
