"""Cancel-on-start with random order of service (a variant beyond paper R, whose servers
serve in order of arrival): the completion rule as a plug-in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..completion import random_order
from .cos import CancelOnStart


@dataclass(frozen=True)
class CancelOnStartRandomOrder(CancelOnStart):
    """c.o.s. with ALIS at arrivals and random order of service at completions: a server that
    finishes a job starts one of its waiting compatible jobs chosen uniformly at random (not
    the oldest). Its stationary law is not claimed to be the product form (6); its exact chain
    is the c.o.s. chain of :func:`~qtheory.redundancy.chain.solve_cos_chain` with its
    :meth:`exact_completion`."""

    name: ClassVar[str] = "cos-ros"
    completion = random_order       # the start rule and its exact law are c.o.s.-ALIS's
    product_form = False

    def exact_completion(self, server, jobs):
        """Each waiting compatible job with equal probability: a type with probability its
        share of those jobs."""
        return [(t, jobs.count(t) / len(jobs)) for t in dict.fromkeys(jobs)]
