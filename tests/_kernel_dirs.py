"""A folder kept between test runs for a test that compiles its own rules in a fresh interpreter.

Such a test (a rule that returns an impossible answer, an index out of range under the debug switch)
runs a script in a subprocess; with a fresh kernel cache every run compiled the whole simulator
with the script's rules again (10 to 30 s a test). Its script and cache now live in
``$QTHEORY_CACHE_DIR/tests/<name>`` (the user's qtheory cache): the kernels are keyed by their
sources, as every kernel is, so an edit of the simulator or of the script compiles afresh and an
unchanged rerun loads them.
"""

from __future__ import annotations

from pathlib import Path


def stable_dir(name: str) -> Path:
    from qtheory._kernelcache import _base

    folder = _base() / "tests" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_if_changed(path: Path, text: str) -> Path:
    """Write `text` to `path` unless it holds it already (numba keys a script's own kernels by its
    modification time)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path
