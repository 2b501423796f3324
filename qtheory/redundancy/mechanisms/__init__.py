"""The redundancy mechanisms of paper R as objects, one file per mechanism: cancel-on-completion
(``coc.py``), cancel-on-start with assign-longest-idle-server (``cos.py``), both of Sec. 2.1,
and, beyond the paper, c.o.s. with random assignment (``cos_random.py``), c.o.s. with random
order of service (``cos_ros.py``) and redundancy-d (``redundancy_d.py``).

A mechanism object names itself (``name``, the string every function of
:mod:`qtheory.redundancy` also accepts), and gathers what the package knows of it: its exact
stationary law (the product forms (4) and (6), :mod:`~qtheory.redundancy.productform`), its
truncated Markov chain written from the definition (:mod:`~qtheory.redundancy.chain`, an
independent route) and its simulator (:mod:`~qtheory.redundancy.simulation`). Every function
that takes ``mechanism`` accepts an object or its name.

Mechanisms follow the policy model of papers L and U (:mod:`qtheory._policy`): a frozen
dataclass deriving from :class:`Mechanism` that sets ``name`` is registered when it is
defined, and every file of this folder is imported when the package is, so a new mechanism
is a new file, with no list to edit (:data:`MECHANISMS` is built from the registry).

The simulator's event loop is written once (:func:`qtheory.redundancy.simulation._kernel_simulate`,
a template) and compiled per mechanism with the mechanism's ``rule`` (its *start rule*)
spliced in at its dispatch point (:mod:`qtheory._splice`): the rule picks the idle
compatible server that starts an arriving job, or returns -1 when the job joins the queue
of its type (served by all its compatible servers at once under c.o.c.). What a completion
removes follows ``cancel_on_start``: the job that started (c.o.s.) or every replica of the
finished job (c.o.c.); which job a server takes at a completion is the mechanism's
``completion`` rule (:mod:`qtheory.redundancy.completion`), spliced in at that point: the
paper's first come, first served unless a mechanism says otherwise (c.o.s. with random order
of service, ``cos_ros.py``).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import ClassVar

from ... import _policy
from ...errors import ParameterError
from ..completion import oldest_first

__all__ = ["Mechanism", "MECHANISMS", "REGISTRY", "as_mechanism"]

#: a mechanism's kernel parameters: none (the start rule reads the kernel's own state)
Params = namedtuple("MechanismParams", ())


@dataclass(frozen=True)
class Mechanism(_policy.Policy, family=True):
    """Base class of the mechanisms: a subclass that sets ``name`` and ``rule`` is registered
    when it is defined.

    ``name`` is the mechanism's short name; ``rule`` the ``numba.njit`` start rule spliced
    into the simulator at the arrival of a job, taking any of ``rng, t, deg, type_servers,
    busy, idle_since`` (only those it uses, by name): the arriving job's type ``t``, its
    ``deg`` compatible servers ``type_servers[t, :deg]``, which of the servers are ``busy``
    and the event number at which each idle one turned idle, and the kernel's generator
    ``rng`` (:mod:`qtheory._rng`); it returns the idle server that starts the job, or -1.
    ``completion`` is the rule spliced in at the completion of a service: the job type whose
    oldest job the server takes next (c.o.s.) or completes (c.o.c.), by default first come,
    first served (:mod:`qtheory.redundancy.completion`).
    ``cancel_on_start`` says whether a job's replicas are dropped when it starts (else when
    one completes); ``product_form`` whether the product forms (4), (6) of
    :mod:`~qtheory.redundancy.productform` describe it."""

    Params: ClassVar[type] = Params
    completion: ClassVar = oldest_first
    SPLICED: ClassVar[tuple] = ("rule", "completion")
    cancel_on_start: ClassVar[bool] = True
    product_form: ClassVar[bool] = True

    def stationary_law(self, system, lam: float):
        """:math:`E[Q]`, :math:`\\mathrm{Var}(Q)` and :math:`P(Q = 0)` from the product form
        (:func:`qtheory.redundancy.productform.total_jobs_law`)."""
        from ..productform import total_jobs_law
        return total_jobs_law(system, lam, self.name)

    def total_jobs_pmf(self, system, lam: float, max_jobs: int):
        """:math:`P(Q = m)`, m = 0..max_jobs, from the product form."""
        from ..productform import total_jobs_pmf
        return total_jobs_pmf(system, lam, max_jobs, self.name)

    def system_for(self, system):
        """The system this mechanism runs as one of paper R's models: `system` itself, or, for
        a mechanism that reads the job types otherwise (redundancy-d replicates a job to ``d``
        of its compatible servers), the equivalent system with other types. The simulator runs
        it (its ``tracked`` type indices are that system's)."""
        return system

    def exact_start(self, idle: list) -> list:
        """The mechanism's start rule read in plain Python, independently of ``rule``: the law
        of the server that starts an arriving job, as ``(server, probability)`` pairs, given
        its idle compatible servers `idle` (non-empty, longest idle first). Every c.o.s.
        mechanism has one: the exact chain is built from it."""
        raise NotImplementedError(f"mechanism {self.name!r} has no exact start rule")

    def exact_completion(self, server: int, jobs: list) -> list:
        """The mechanism's completion rule read in plain Python, independently of
        ``completion``: the law of the type of the job that server `server` takes (c.o.s.: starts;
        c.o.c.: completes), as ``(type, probability)`` pairs, given the types `jobs` of the jobs
        compatible with it (non-empty, in order of arrival, one entry per job; c.o.s.: the
        waiting ones). Within a type the oldest job is taken. First come, first served: the
        oldest job's type."""
        return [(jobs[0], 1.0)]

    def exact_chain(self, system, lam: float, max_jobs: int):
        """The chain of this mechanism truncated at `max_jobs` jobs, solved numerically
        (:mod:`qtheory.redundancy.chain`, written from the definition, not from the product
        form): the c.o.c. chain, or the c.o.s. chain with this mechanism's :meth:`exact_start`,
        each with its :meth:`exact_completion`, of the system it runs (:meth:`system_for`)."""
        from ..chain import solve_coc_chain, solve_cos_chain
        system = self.system_for(system)
        if self.cancel_on_start:
            return solve_cos_chain(system, lam, max_jobs, self)
        return solve_coc_chain(system, lam, max_jobs, self)

    def simulate(self, system, lam: float, **options):
        """:func:`qtheory.redundancy.simulation.simulate` under this mechanism (`options` must
        include its required ``n_events`` and ``seed``)."""
        from ..simulation import simulate
        return simulate(system, lam, self, **options)


#: the family's base under the name :func:`qtheory._policy.discover` reads
Policy = Mechanism
#: registered mechanism classes by name (every mechanism file of this folder)
REGISTRY = Mechanism.REGISTRY
_policy.discover(__name__, __path__, globals())
del Policy
#: the mechanisms by name (one object of each registered class, in the order of their files)
MECHANISMS = {name: cls() for name, cls in REGISTRY.items()}


def as_mechanism(mechanism) -> Mechanism:
    """A :class:`Mechanism` from an object (returned unchanged) or its name (a key of :data:`MECHANISMS`)."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    if isinstance(mechanism, str) and mechanism in MECHANISMS:
        return MECHANISMS[mechanism]
    raise ParameterError(f"`mechanism` must be one of {', '.join(repr(m) for m in MECHANISMS)} or a Mechanism "
                         f"object (got {mechanism!r})")
