"""Cancel-on-start with assign-longest-idle-server (R-P-cos, Sec. 2.1 of paper R)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from ..._policy import _ix
from . import Mechanism


@njit(cache=True)
def longest_idle(t, deg, type_servers, busy, idle_since):
    """ALIS: the idle compatible server of a type-``t`` job idle for the longest time (-1 if none)."""
    best = -1
    for c in range(deg):
        s = type_servers[_ix(t), _ix(c)]
        if not busy[_ix(s)] and (best < 0 or idle_since[_ix(s)] < idle_since[_ix(best)]):
            best = s
    return best


@dataclass(frozen=True)
class CancelOnStart(Mechanism):
    """c.o.s. with ALIS (R-P-cos): a job starts on one compatible server and its other replicas
    are dropped then; an arriving job goes to the compatible server idle for the longest time."""

    name: ClassVar[str] = "cos"
    rule = longest_idle

    def exact_start(self, idle):
        """ALIS, rule (iii): the longest idle of the idle compatible servers (the first)."""
        return [(idle[0], 1.0)]
