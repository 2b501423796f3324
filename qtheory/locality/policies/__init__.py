"""Dispatching policies of the locality paper: one file per policy, one registry.

A policy is a frozen dataclass deriving from :class:`Policy` that owns and checks its
parameters and names its compiled decision rule (the shared model of
:mod:`qtheory._policy`). Every file of this folder is imported when the package is, and a
class that sets ``name`` is registered when it is defined: a new policy is a new file, and
:func:`qtheory.locality.simulation.simulate` takes it by object or name.

What a policy file provides (class attributes of the policy, except ``kernel_params``):

``Params``
    a :func:`collections.namedtuple` of the rule's parameters (numbers, arrays).
``rule(...)``, taking any of ``params``, ``st``, ``rng``, ``i``, ``u``, ``state``, ``offset``, ``degree``, ``neighbors``,
    ``dispatcher_cluster``, ``server_type``, ``type_members``, ``type_first``, ``type_size`` (only those
    it uses, by name: JIQ's is ``rule(rng, i, state, offset, degree, neighbors)``):
    a ``numba.njit`` function evaluated for every arrival at dispatcher ``i``; it returns
    the server that receives the task, and its last statement is its only ``return``. It may
    not assign to its parameters (``i`` is the kernel's own dispatcher index) nor read a
    module-level name that the kernel template binds itself (such as ``cap``);
    :mod:`qtheory._splice` refuses such a rule naming its file and line.
    ``state[j]`` is the queue length of server ``j``; dispatcher ``i``'s compatible servers
    are ``neighbors[offset[i]:offset[i] + degree[i]]``; ``dispatcher_cluster[i]`` is its
    cluster; the servers of type ``m`` are ``type_members[type_first[m]:type_first[m] +
    type_size[m]]``; ``rng`` is the kernel's generator (:mod:`qtheory._rng`); ``u`` is a
    uniform on [0, 1) independent of ``i`` and of every draw of ``rng``, which the rule may use
    as its first draw (one uniform less per arrival; the lookahead sees it too). The kernel is
    compiled once per policy with the rule's body in place of its dispatch point
    (:mod:`qtheory._splice`).
``kernel_params(system, graph)``
    builds ``Params`` for a run, checking what depends on the system and the graph.
``lookahead`` (optional, a class attribute)
    a ``numba.njit`` function ``(params, i, u, offset, degree, neighbors)`` that prefetches
    the list entries the rule will read for an arrival at ``i`` whose uniform is ``u``; the
    kernel calls it (spliced in like the rule) some arrivals ahead, once the lists are large
    (see :attr:`Policy.lookahead`). Draws of the rule from ``rng`` cannot be foreseen.
``initial_state(system, graph)`` (a method; optional)
    the policy's own state, a 1-D int64 array that the rule takes as ``st`` and is the only
    array it may write into besides the scratch arrays of its ``Params``: what it remembers
    from one arrival to the next (JSQ(d) with memory keeps a server per dispatcher). Every
    kernel attempt starts from a fresh copy (the overflow rerun of a narrow queue type
    included) and the result returns the final value (``policy_state``). Default: none.
``exact_rule(self, system, graph, i, state)`` (a method)
    the law of the server that receives a task arriving at dispatcher ``i`` in ``state``
    (queue lengths), as a list of ``(server, probability)``, written in plain Python
    independently of ``rule``; :func:`qtheory.locality.exact.policy_stationary` builds the
    exact chain of a tiny system from it, and the generic policy tests compare the
    simulator with that chain. Every registered policy has one. A policy with memory also
    defines ``exact_start(system, graph)``, its state at the start of the chain (hashable),
    and its exact rule is ``exact_rule(self, system, graph, i, state, policy_state)``
    returning ``(server, probability, next policy state)``: the chain's state is the pair
    (queue lengths, policy state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from numba import njit

from ... import _policy
from ...errors import ParameterError
from ..._policy import _ix, decide, rule_of  # noqa: F401 (the shared pieces, importable from here)
from ..._prefetch import prefetch
from ..._rng import randint

__all__ = ["Policy", "REGISTRY", "rule_of", "as_policy", "decide", "prefetch_list", "distinct_position",
           "require_served"]


@dataclass(frozen=True)
class Policy(_policy.Policy, family=True):
    """Base class of the locality policies: a subclass that sets ``name``, ``Params`` and
    ``rule`` is registered when it is defined."""

    #: whether the rule reads the dispatcher's neighbour list (the kernel then prefetches what
    #: the next arrivals will read, once the lists are large; see ``lookahead``)
    reads_lists: ClassVar[bool] = True
    #: optional ``numba.njit`` function ``(params, i, u, offset, degree, neighbors)`` that
    #: prefetches (:func:`qtheory._prefetch.prefetch`) the entries of ``neighbors`` the rule
    #: will read for an arrival at dispatcher ``i`` whose uniform is ``u`` (the rule's ``u``);
    #: it ends with ``return <value>`` like a rule. ``None``: the kernel prefetches the whole
    #: list (:func:`prefetch_list`)
    lookahead: ClassVar = None

    def kernel_params(self, system, graph):
        """The ``Params`` tuple of a run of `system` on `graph`."""
        raise NotImplementedError

    def initial_state(self, system, graph) -> np.ndarray:
        """The policy's own state at the start of a run of `system` on `graph`: a 1-D int64
        array the rule takes as ``st`` and may update (a remembered server per dispatcher);
        every kernel attempt starts from a fresh copy, and the run's result returns its final
        value (``policy_state``). A policy without memory has none (an empty array)."""
        return np.zeros(0, np.int64)

    def exact_start(self, system, graph):
        """The policy's state at the start of its exact chain, a hashable value, or ``None``
        for a policy without memory. A policy with memory returns it and its ``exact_rule``
        then takes the policy state as a last argument and returns ``(server, probability,
        next policy state)`` triples (:func:`qtheory.locality.exact.policy_stationary`)."""
        return None

    def checked_initial_state(self, system, graph) -> np.ndarray:
        """:meth:`initial_state`, checked to be what the kernel takes (a 1-D int64 array)."""
        st = self.initial_state(system, graph)
        if not (isinstance(st, np.ndarray) and st.ndim == 1 and st.dtype == np.int64):
            raise TypeError(f"{type(self).__qualname__}.initial_state must return a 1-D int64 numpy array "
                            f"(got {type(st).__name__} {getattr(st, 'dtype', '')})")
        return np.ascontiguousarray(st)


def require_served(graph) -> None:
    """Refuse a graph with a dispatcher that has no compatible server (its tasks could not be
    served): the check of the ``kernel_params`` of every policy that sends a task to a neighbour."""
    if graph.degree.min() < 1:
        raise ParameterError(f"dispatcher {int(np.argmin(graph.degree))} has no compatible server: "
                             f"its tasks could not be served")


@njit(cache=True)
def prefetch_list(params, i, u, offset, degree, neighbors):
    """The default lookahead of a policy that reads lists (see :attr:`Policy.lookahead`):
    every cache line of dispatcher ``i``'s list."""
    first = offset[_ix(i)]
    for q in range(first, first + degree[_ix(i)], 16):
        prefetch(neighbors, _ix(q))
    return first


@njit(cache=True, inline="always")
def distinct_position(rng, deg, picks, h):
    """A uniform position of a list of ``deg`` entries other than ``picks[0:h]`` (``h < deg``),
    drawn by rejection: the ``h``-th pick of a sample without replacement, stored in
    ``picks[h]`` and returned. Rules that sample distinct neighbours one at a time call it."""
    while True:
        c = randint(rng, deg)
        dup = False
        for hh in range(h):
            if picks[_ix(hh)] == c:
                dup = True
                break
        if not dup:
            break
    picks[_ix(h)] = c
    return c


def _identity_lists(graph) -> bool:
    """Whether every dispatcher of `graph` reads the same stored list and that list is
    0, 1, ..., N - 1: the complete graph as :func:`~qtheory.locality.graphs.complete_bipartite`
    stores it. A rule may then take the c-th position of a neighbourhood as server c without
    reading the list (the same draws choose the same servers). A complete graph stored with
    one list per dispatcher (:func:`~qtheory.locality.graphs.from_adjacency`) is not
    recognised and takes the general path."""
    n = graph.n_servers
    offset, degree = graph.offset, graph.degree
    if offset.size == 0 or not (degree == n).all() or not (offset == offset[0]).all():
        return False
    return bool(np.array_equal(graph.neighbors[offset[0]:offset[0] + n], np.arange(n)))


def as_policy(policy):
    """A :class:`~qtheory.locality.policies.Policy` from an object (returned unchanged) or a registered name (its
    default parameters)."""
    return _policy.as_policy(Policy, policy)


#: registered policies by name (every policy file of this folder)
REGISTRY = Policy.REGISTRY
_policy.discover(__name__, __path__, globals())
