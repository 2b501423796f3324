"""Cancel-on-start with random order of service (a variant beyond paper R, whose servers
serve in order of arrival): the completion rule as a plug-in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..completion import random_order
from . import Mechanism
from .cos import longest_idle


@dataclass(frozen=True)
class CancelOnStartRandomOrder(Mechanism):
    """c.o.s. with ALIS at arrivals and random order of service at completions: a server that
    finishes a job starts one of its waiting compatible jobs chosen uniformly at random (not
    the oldest). Its stationary law is not claimed to be the product form (6); its exact chain
    is the c.o.s. chain of :func:`~qtheory.redundancy.chain.solve_cos_chain` with its
    :meth:`exact_completion`."""

    name: ClassVar[str] = "cos-ros"
    rule = longest_idle
    completion = random_order
    product_form = False

    def exact_start(self, idle):
        """ALIS, rule (iii): the longest idle of the idle compatible servers (the first)."""
        return [(idle[0], 1.0)]

    def exact_completion(self, server, jobs):
        """Each waiting compatible job with equal probability: a type with probability its
        share of those jobs."""
        return [(t, jobs.count(t) / len(jobs)) for t in dict.fromkeys(jobs)]
