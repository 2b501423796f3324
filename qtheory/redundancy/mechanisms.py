"""The two redundancy mechanisms of paper R as objects (Sec. 2.1): cancel-on-completion and
cancel-on-start with assign-longest-idle-server.

A mechanism object names itself (``name``, the string every function of
:mod:`qtheory.redundancy` also accepts), and gathers what the package knows of it: its exact
stationary law (the product forms (4) and (6), :mod:`.productform`), its truncated Markov
chain written from the definition (:mod:`.chain`, an independent route) and its simulator
(:mod:`~qtheory.redundancy.simulation`). Every function that takes ``mechanism`` accepts an object or its name.

Unlike the dispatching policies of papers L and U, the two mechanisms differ in several
places of the simulator's event loop (who serves an arriving job, what a completion
removes), so a third mechanism needs a branch of the kernel as well as its class here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..errors import ParameterError

__all__ = ["Mechanism", "CancelOnCompletion", "CancelOnStart", "MECHANISMS", "as_mechanism"]


@dataclass(frozen=True)
class Mechanism:
    """Base class: ``name`` is the mechanism's short name, ``code`` its branch in the kernel."""

    name: ClassVar[str] = ""
    code: ClassVar[int] = -1

    def stationary_law(self, system, lam: float):
        """:math:`E[Q]`, :math:`\\mathrm{Var}(Q)` and :math:`P(Q = 0)` from the product form
        (:func:`qtheory.redundancy.productform.total_jobs_law`)."""
        from .productform import total_jobs_law
        return total_jobs_law(system, lam, self.name)

    def total_jobs_pmf(self, system, lam: float, max_jobs: int):
        """:math:`P(Q = m)`, m = 0..max_jobs, from the product form."""
        from .productform import total_jobs_pmf
        return total_jobs_pmf(system, lam, max_jobs, self.name)

    def exact_chain(self, system, lam: float, max_jobs: int):
        """The chain of this mechanism truncated at `max_jobs` jobs, solved numerically
        (:mod:`qtheory.redundancy.chain`, written from the definition, not from the product form)."""
        raise NotImplementedError

    def simulate(self, system, lam: float, n_events: int, **options):
        """:func:`qtheory.redundancy.simulation.simulate` under this mechanism (`options` must
        include its required ``seed``)."""
        from .simulation import simulate
        return simulate(system, lam, n_events, mechanism=self, **options)


@dataclass(frozen=True)
class CancelOnCompletion(Mechanism):
    """c.o.c. (R-P-coc): every replica of a job is served at once by its compatible servers;
    the first completion removes the job and cancels the other replicas."""

    name: ClassVar[str] = "coc"
    code: ClassVar[int] = 0

    def exact_chain(self, system, lam: float, max_jobs: int):
        from .chain import solve_coc_chain
        return solve_coc_chain(system, lam, max_jobs)


@dataclass(frozen=True)
class CancelOnStart(Mechanism):
    """c.o.s. with ALIS (R-P-cos): a job starts on one compatible server and its other replicas
    are dropped then; an arriving job goes to the compatible server idle for the longest time."""

    name: ClassVar[str] = "cos"
    code: ClassVar[int] = 1

    def exact_chain(self, system, lam: float, max_jobs: int):
        from .chain import solve_cos_chain
        return solve_cos_chain(system, lam, max_jobs, rule="alis")


#: the mechanisms by name
MECHANISMS = {m.name: m for m in (CancelOnCompletion(), CancelOnStart())}


def as_mechanism(mechanism) -> Mechanism:
    """A :class:`Mechanism` from an object (returned unchanged) or its name ("coc", "cos")."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    if isinstance(mechanism, str) and mechanism in MECHANISMS:
        return MECHANISMS[mechanism]
    raise ParameterError(f"`mechanism` must be 'coc', 'cos' or a Mechanism object (got {mechanism!r})")
