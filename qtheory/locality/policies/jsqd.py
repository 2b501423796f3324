"""Local JSQ(d) (Sec. 2.2): the shortest of d distinct compatible servers."""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..._prefetch import prefetch
from ...validation import check_integer
from . import Policy, _ix, _identity_lists, distinct_position, prefetch_list, require_served

#: ``identity``: every dispatcher reads one stored list, 0, 1, ..., N - 1 (the complete graph as
#: :func:`~qtheory.locality.graphs.complete_bipartite` stores it), so position c is server c
Params = namedtuple("LocalJSQParams", ["d", "picks", "identity"], defaults=(False,))


@njit(cache=True, inline="always")
def _pair(u, deg):
    """Two distinct uniform positions of a list of ``deg >= 2`` entries, in uniformly random
    order, from one uniform ``u``: the fractional part left after the first pick is again uniform."""
    v = u * deg
    c1 = int(v)
    if c1 >= deg:
        c1 = deg - 1
    c2 = int((v - c1) * (deg - 1))
    if c2 >= deg - 1:
        c2 = deg - 2
    if c2 >= c1:
        c2 += 1
    return c1, c2


@njit(cache=True, inline="always")
def _single(u, deg):
    """A uniform position of a list of ``deg >= 1`` entries from one uniform ``u``."""
    c = int(u * deg)
    return deg - 1 if c >= deg else c


@njit(cache=True)
def rule(params, rng, i, u, state, offset, degree, neighbors):
    """d distinct uniform neighbours of dispatcher ``i`` (without replacement), the first
    shortest in the (uniformly random) sampling order; a uniform neighbour if ``deg < d``.
    With d <= 2 (or ``deg < d``) the positions come from the kernel's uniform ``u`` alone,
    else from the generator. With ``params.identity`` (the complete graph) the sampled
    positions are the servers themselves: the same draws choose the same servers without
    reading the list, whose random reads are cache misses at large N."""
    d = params.d
    picks = params.picks
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    target = -1
    if deg < d or d == 1:
        c = _single(u, deg)
        target = c if params.identity else neighbors[_ix(base + c)]
    elif d == 2:
        c1, c2 = _pair(u, deg)
        j1 = c1 if params.identity else neighbors[_ix(base + c1)]
        j2 = c2 if params.identity else neighbors[_ix(base + c2)]
        target = j1 if state[_ix(j1)] <= state[_ix(j2)] else j2
        # on a tie j1 wins; (c1, c2) is a uniformly ordered pair, so ties are fair
    else:
        best = 1 << 62
        for h in range(d):
            c = distinct_position(rng, deg, picks, h)
            j = c if params.identity else neighbors[_ix(base + c)]
            if state[_ix(j)] < best:
                best = state[_ix(j)]
                target = j
    return target


@njit(cache=True)
def lookahead(params, i, u, offset, degree, neighbors):
    """Prefetch the list entries ``rule`` will read for an arrival at ``i`` whose uniform is
    ``u``: with d = 2 the two positions ``u`` picks, with d = 1 (or a list shorter than d) the
    one, else the whole list (:func:`~qtheory.locality.policies.prefetch_list`, the default)."""
    deg = degree[_ix(i)]
    base = offset[_ix(i)]
    if deg < params.d or params.d == 1:
        prefetch(neighbors, _ix(base + _single(u, deg)))
    elif params.d == 2:
        c1, c2 = _pair(u, deg)
        prefetch(neighbors, _ix(base + c1))
        prefetch(neighbors, _ix(base + c2))
    else:
        base = prefetch_list(params, i, u, offset, degree, neighbors)
    return base


@dataclass(frozen=True)
class LocalJSQ(Policy):
    """Local JSQ(d): ``d`` distinct servers sampled from the dispatcher's neighbourhood
    (without replacement); ``d = None`` takes the system's ``d``."""

    d: int | None = None
    name = "jsqd"
    Params = Params
    rule = rule
    lookahead = lookahead

    def __post_init__(self):
        if self.d is not None:
            object.__setattr__(self, "d", check_integer("d", self.d, low=1))

    def kernel_params(self, system, graph):
        require_served(graph)
        d = system.d if self.d is None else self.d
        return Params(int(d), np.empty(max(int(d), 1), np.int64), _identity_lists(graph))

    def exact_rule(self, system, graph, i, state):
        """Every ordered d-tuple of distinct neighbours equally likely, the first shortest of
        the tuple wins; a uniform neighbour when there are fewer than d."""
        d = system.d if self.d is None else self.d
        nb = [int(j) for j in graph.neighbors[graph.offset[i]:graph.offset[i] + graph.degree[i]]]
        if len(nb) < d:
            return [(j, 1.0 / len(nb)) for j in nb]
        samples = list(itertools.permutations(nb, d))
        law: dict[int, float] = {}
        for sample in samples:
            winner = min(sample, key=lambda j: state[j])  # min keeps the first of equals
            law[winner] = law.get(winner, 0.0) + 1.0 / len(samples)
        return sorted(law.items())
