"""The two redundancy mechanisms of paper R as objects (Sec. 2.1): cancel-on-completion and
cancel-on-start with assign-longest-idle-server.

A mechanism object names itself (``name``, the string every function of
:mod:`qtheory.redundancy` also accepts), and gathers what the package knows of it: its exact
stationary law (the product forms (4) and (6), :mod:`.productform`), its truncated Markov
chain written from the definition (:mod:`.chain`, an independent route) and its simulator
(:mod:`~qtheory.redundancy.simulation`). Every function that takes ``mechanism`` accepts an object or its name.

The simulator's event loop is written once (:func:`qtheory.redundancy.simulation._kernel_simulate`,
a template) and compiled per mechanism with the mechanism's ``start_rule`` spliced in at its
dispatch point (:mod:`qtheory._splice`): the rule picks the idle compatible server that
starts an arriving job, or returns -1 when the job joins the queues of all its compatible
servers. What a completion removes follows ``cancel_on_start``: the job that started (c.o.s.)
or every replica of the finished job (c.o.c.). A c.o.s. variant with another assignment rule
is thus a class here with its own ``start_rule`` (:class:`CancelOnStartRandom`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from .._policy import _ix
from .._rng import randint
from ..errors import ParameterError

__all__ = ["Mechanism", "CancelOnCompletion", "CancelOnStart", "CancelOnStartRandom", "MECHANISMS",
           "as_mechanism"]


@njit(cache=True)
def serve_everywhere():
    """c.o.c.: no server is chosen; the job joins the list of every compatible server."""
    return -1


@njit(cache=True)
def longest_idle(t, deg, type_servers, busy, idle_since):
    """ALIS: the idle compatible server of a type-``t`` job idle for the longest time (-1 if none)."""
    best = -1
    for c in range(deg):
        s = type_servers[_ix(t), _ix(c)]
        if not busy[_ix(s)] and (best < 0 or idle_since[_ix(s)] < idle_since[_ix(best)]):
            best = s
    return best


@njit(cache=True)
def random_idle(rng, t, deg, type_servers, busy):
    """A uniformly random idle compatible server of a type-``t`` job (-1 if none)."""
    idle = 0
    for c in range(deg):
        if not busy[_ix(type_servers[_ix(t), _ix(c)])]:
            idle += 1
    best = -1
    if idle > 0:
        v = randint(rng, idle)
        for c in range(deg):
            s = type_servers[_ix(t), _ix(c)]
            if not busy[_ix(s)]:
                if v == 0:
                    best = s
                    break
                v -= 1
    return best


@dataclass(frozen=True)
class Mechanism:
    """Base class: ``name`` is the mechanism's short name; ``start_rule`` the ``numba.njit``
    rule spliced into the simulator at the arrival of a job, taking any of ``rng, t, deg,
    type_servers, busy, idle_since`` (see the module docstring); ``cancel_on_start`` whether a
    job's replicas are dropped when it starts (else when one completes); ``product_form``
    whether the product forms (4), (6) of :mod:`.productform` describe it."""

    name: ClassVar[str] = ""
    start_rule: ClassVar = None
    cancel_on_start: ClassVar[bool] = True
    product_form: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        rule = cls.__dict__.get("start_rule")
        if rule is not None and not isinstance(rule, staticmethod):
            cls.start_rule = staticmethod(rule)  # not bound as a method

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
    start_rule = serve_everywhere
    cancel_on_start = False

    def exact_chain(self, system, lam: float, max_jobs: int):
        from .chain import solve_coc_chain
        return solve_coc_chain(system, lam, max_jobs)


@dataclass(frozen=True)
class CancelOnStart(Mechanism):
    """c.o.s. with ALIS (R-P-cos): a job starts on one compatible server and its other replicas
    are dropped then; an arriving job goes to the compatible server idle for the longest time."""

    name: ClassVar[str] = "cos"
    start_rule = longest_idle

    def exact_chain(self, system, lam: float, max_jobs: int):
        from .chain import solve_cos_chain
        return solve_cos_chain(system, lam, max_jobs, rule="alis")


@dataclass(frozen=True)
class CancelOnStartRandom(Mechanism):
    """c.o.s. with random assignment (a variant beyond the paper's two): an arriving job with
    idle compatible servers starts on one chosen uniformly at random. Its stationary law is
    not the product form (6); its exact chain is :func:`~qtheory.redundancy.chain.solve_cos_chain`
    with ``rule="random"``."""

    name: ClassVar[str] = "cos-random"
    start_rule = random_idle
    product_form = False

    def exact_chain(self, system, lam: float, max_jobs: int):
        from .chain import solve_cos_chain
        return solve_cos_chain(system, lam, max_jobs, rule="random")


#: the mechanisms by name
MECHANISMS = {m.name: m for m in (CancelOnCompletion(), CancelOnStart(), CancelOnStartRandom())}


def as_mechanism(mechanism) -> Mechanism:
    """A :class:`Mechanism` from an object (returned unchanged) or its name (a key of :data:`MECHANISMS`)."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    if isinstance(mechanism, str) and mechanism in MECHANISMS:
        return MECHANISMS[mechanism]
    raise ParameterError(f"`mechanism` must be one of {', '.join(repr(m) for m in MECHANISMS)} or a Mechanism "
                         f"object (got {mechanism!r})")
