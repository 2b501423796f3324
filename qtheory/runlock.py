"""The lock of a results folder: one ``reproduce`` run at a time."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from .errors import QTheoryError


class ResultsBusy(QTheoryError):
    """Another ``reproduce`` holds the lock of the results folder."""


LOCK_NAME = ".lock"


@contextmanager
def results_lock(results: Path, *, wait: bool = False, echo=None):
    """Hold the lock of the results folder `results` (``fcntl.flock`` on ``<results>/.lock``).

    Two ``reproduce`` runs on one folder would interleave their results; the second
    raises :class:`ResultsBusy` naming the holder's PID, or with `wait` blocks until the
    holder finishes. The lock file stays (removing it would let a waiter lock a file
    that no longer has a name); the kernel releases the lock when its holder exits,
    however it exits.
    """
    import fcntl

    results.mkdir(parents=True, exist_ok=True)
    path = results / LOCK_NAME
    with open(path, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            if not wait:
                raise ResultsBusy(f"results folder {results} is in use by another reproduce run (PID {holder}); "
                                  f"wait for it to finish or pass --wait") from None
            if echo:
                echo(f"results folder {results} is in use by PID {holder}; waiting for it to finish ...")
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
