"""Dispatching policies of the locality paper: one file per policy, one registry.

A policy is a frozen dataclass that owns and checks its parameters and names its
compiled decision rule; :func:`register` (plus one import line at the end of this file)
makes it available to :func:`qtheory.locality.simulation.simulate` by object or name.

What a policy file provides:

``Params``
    a :func:`collections.namedtuple` of the rule's parameters (numbers, arrays).
``rule(...)``, taking any of ``params``, ``rng``, ``i``, ``state``, ``offset``, ``degree``, ``neighbors``,
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
    type_size[m]]``; ``rng`` is the kernel's generator (:mod:`qtheory._rng`). The kernel is
    compiled once per policy with the rule's body in place of its dispatch point
    (:mod:`qtheory._splice`).
``kernel_params(system, graph)``
    builds ``Params`` for a run, checking what depends on the system and the graph.
``lookahead`` (optional, a class attribute)
    a ``numba.njit`` function ``(params, rng, i, offset, degree, neighbors)`` that prefetches
    the list entries the rule will read for an arrival at ``i`` with generator ``rng``; the
    kernel calls it (spliced in like the rule) with a copy of the arrival's own generator some
    arrivals ahead, once the lists are large (see :attr:`Policy.lookahead`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from numba import njit

from ..._prefetch import prefetch
from ..._registry import policy_registry
from ...errors import ParameterError

__all__ = ["Policy", "REGISTRY", "register", "rule_of", "as_policy", "decide", "prefetch_list", "LocalJSQ", "GWSQ",
           "JIQ"]

#: registered policies by name; ``register(params_class, rule)`` is the class decorator of a
#: policy file and ``rule_of(policy)`` its compiled rule (see :mod:`qtheory._registry`)
REGISTRY, register, rule_of = policy_registry()

#: the index type of the rules' subscripts: ``arr[_ix(i)]`` casts the index to unsigned, so
#: that numba omits the negative-index wrap-around it emits for a signed one (every index
#: of a rule is >= 0); as in the kernel template of :mod:`qtheory.locality.simulation`
_ix = np.uint64


@dataclass(frozen=True)
class Policy:
    """Base class of the policies; subclasses set ``name`` and register a rule."""

    name: ClassVar[str] = ""
    #: whether the rule reads the dispatcher's neighbour list (the kernel then prefetches what
    #: the next arrivals will read, once the lists are large; see ``lookahead``)
    reads_lists: ClassVar[bool] = True
    #: optional ``numba.njit`` function ``(params, rng, i, offset, degree, neighbors)`` that
    #: prefetches (:func:`qtheory._prefetch.prefetch`) the entries of ``neighbors`` the rule
    #: will read for an arrival at dispatcher ``i`` whose generator is ``rng`` (a copy: the
    #: function may draw from it); it ends with ``return <value>`` like a rule. ``None``: the
    #: kernel prefetches the whole list (:func:`prefetch_list`)
    lookahead: ClassVar = None

    def kernel_params(self, system, graph):
        """The ``Params`` tuple of a run of `system` on `graph`."""
        raise NotImplementedError


def decide(params, rng, i, state, offset, degree, neighbors, dispatcher_cluster, server_type, type_members,
           type_first, type_size):
    """The dispatch point of the simulation kernel's template (spliced out by
    :mod:`qtheory._splice`; not callable itself)."""
    raise NotImplementedError("decide is a placeholder spliced out of the kernel template")


@njit(cache=True)
def prefetch_list(params, rng, i, offset, degree, neighbors):
    """The default lookahead of a policy that reads lists (see :attr:`Policy.lookahead`):
    every cache line of dispatcher ``i``'s list."""
    first = offset[_ix(i)]
    for q in range(first, first + degree[_ix(i)], 16):
        prefetch(neighbors, _ix(q))
    return first


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
    if isinstance(policy, Policy):
        return policy
    if policy not in REGISTRY:
        raise ParameterError(f"`policy` must be one of {', '.join(REGISTRY)} or a Policy (got {policy!r})")
    return REGISTRY[policy]()


# registration: one import per policy file
from .jsqd import LocalJSQ  # noqa: E402
from .gwsq import GWSQ  # noqa: E402
from .jiq import JIQ  # noqa: E402
