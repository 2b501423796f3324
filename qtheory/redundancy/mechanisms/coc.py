"""Cancel-on-completion (R-P-coc, Sec. 2.1 of paper R)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from . import Mechanism


@njit(cache=True)
def serve_everywhere():
    """c.o.c.: no server is chosen; the job joins its type's queue, served by every compatible
    server at once."""
    return -1


@dataclass(frozen=True)
class CancelOnCompletion(Mechanism):
    """c.o.c. (R-P-coc): every replica of a job is served at once by its compatible servers;
    the first completion removes the job and cancels the other replicas."""

    name: ClassVar[str] = "coc"
    rule = serve_everywhere
    cancel_on_start = False

