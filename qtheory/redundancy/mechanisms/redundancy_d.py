"""Redundancy-d (Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky and Zbarsky 2017), a
mechanism beyond paper R: each arriving job is replicated to ``d`` of its compatible servers
chosen uniformly at random (all of them if it has fewer), every server serves the replicas it
holds in arrival order, and the first completion of a job cancels its other replicas.

This is paper R's cancel-on-completion model with another type distribution: a job of type
:math:`S` that picks the :math:`d`-subset :math:`D \\subseteq S` (probability
:math:`1/\\binom{|S|}{d}`) is served exactly as a c.o.c. job of type :math:`D` (each server works
on the oldest job it may serve, the first completion removes the job). So redundancy-d on a
system with types :math:`S` and probabilities :math:`p_S` is c.o.c. on the system whose types are
the :math:`d`-subsets :math:`D`, with :math:`p_D = \\sum_{S \\supseteq D} p_S / \\binom{|S|}{d}`
(:func:`d_subset_system`), and the product form (4) of that system is its law. The simulator,
the product form and the exact chain all run that system (:meth:`RedundancyD.system_for`); the
test of this file checks the reduction against a simulation written from the definition above
and against independent M/M/1 queues at ``d = 1``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

from ...validation import check_integer
from ..model import RedundancySystem
from . import Mechanism
from .coc import serve_everywhere

__all__ = ["RedundancyD", "d_subset_system"]


def d_subset_system(system: RedundancySystem, d: int) -> RedundancySystem:
    """The c.o.c. system of redundancy-``d`` on `system`: types the ``min(d, |S|)``-subsets of each
    type :math:`S`, with :math:`p_D = \\sum_{S \\supseteq D} p_S / \\binom{|S|}{\\min(d, |S|)}`
    (subsets of several types merged), the same servers and speeds; types in sorted order."""
    d = check_integer("d", d, low=1)
    weights: dict[tuple[int, ...], float] = {}
    for servers, p in zip(system.types, system.probabilities):
        subsets = list(itertools.combinations(sorted(servers), min(d, len(servers))))
        for subset in subsets:
            weights[subset] = weights.get(subset, 0.0) + float(p) / len(subsets)
    types = sorted(weights, key=lambda t: (len(t), t))
    return RedundancySystem(system.speeds, types, [weights[t] for t in types])


@dataclass(frozen=True)
class RedundancyD(Mechanism):
    """Redundancy-``d``: a job's replicas go to ``d`` of its compatible servers chosen uniformly
    at random, served in arrival order, the first completion cancelling the others; run as
    c.o.c. on :func:`d_subset_system`."""

    d: int = 2
    name: ClassVar[str] = "redundancy-d"
    rule = serve_everywhere
    cancel_on_start = False
    #: the product form (4) is its law on :func:`d_subset_system`, not on the system it is given:
    #: the product-form functions, which take the given system, refuse it (its own
    #: ``stationary_law`` and ``total_jobs_pmf`` use the reduced system)
    product_form = False

    def __post_init__(self):
        object.__setattr__(self, "d", check_integer("d", self.d, low=1))

    def system_for(self, system):
        return d_subset_system(system, self.d)

    def stationary_law(self, system, lam: float):
        from ..productform import total_jobs_law
        return total_jobs_law(self.system_for(system), lam, "coc")

    def total_jobs_pmf(self, system, lam: float, max_jobs: int):
        from ..productform import total_jobs_pmf
        return total_jobs_pmf(self.system_for(system), lam, max_jobs, "coc")
