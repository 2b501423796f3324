"""GWSQ(d) (Algorithm 1, sign erratum fixed), with independent weighted draws."""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..._rng import randint, uniform
from ...validation import check_integer
from . import Policy, _ix

#: ``sorted_members``: the servers are numbered type by type, so the k-th server of type m is
#: ``type_first[m] + k`` and the rule need not read ``type_members`` (a cache miss at large N)
Params = namedtuple("GWSQParams", ["d", "type_cdf", "sorted_members"], defaults=(False,))


@njit(cache=True)
def rule(params, rng, i, state, dispatcher_cluster, type_members, type_first, type_size):
    """d independent candidates: a type with probability ``v_m p_{k,m} / delta_k`` (cluster
    ``k`` of dispatcher ``i``), then a uniform server of that type; the first shortest wins."""
    type_cdf = params.type_cdf
    n_types = type_size.size
    k = dispatcher_cluster[_ix(i)]
    best = 1 << 62
    target = -1
    for h in range(params.d):
        u = uniform(rng)
        m = 0
        while m < n_types - 1 and u >= type_cdf[_ix(k), _ix(m)]:
            m += 1
        c = type_first[_ix(m)] + randint(rng, type_size[_ix(m)])
        j = c if params.sorted_members else type_members[_ix(c)]
        if state[_ix(j)] < best:
            best = state[_ix(j)]
            target = j
    return target


@dataclass(frozen=True)
class GWSQ(Policy):
    """GWSQ(d) with candidates drawn independently (with replacement); ``d = None`` takes the
    system's ``d``. Only the server types and clusters of the graph are used; the weights use
    the system's ``p`` and the realised type fractions ``|V_m| / N``."""

    d: int | None = None
    name = "gwsq"
    Params = Params
    rule = rule
    reads_lists = False

    def __post_init__(self):
        if self.d is not None:
            object.__setattr__(self, "d", check_integer("d", self.d, low=1))

    def kernel_params(self, system, graph):
        type_size = np.bincount(graph.server_type, minlength=graph.n_types)
        v_n = type_size / graph.n_servers
        share = system.p * v_n[None, :]
        share /= share.sum(axis=1, keepdims=True)
        type_cdf = np.cumsum(share, axis=1)
        type_cdf[:, -1] = 1.0
        return Params(int(system.d if self.d is None else self.d), type_cdf,
                      bool(np.all(np.diff(graph.server_type) >= 0)))

    def exact_rule(self, system, graph, i, state):
        """d independent candidates, server j of type m with probability
        ``p_{k,m} |V_m| / (N delta_k) / |V_m|`` (k the cluster of ``i``); the first shortest wins."""
        d = system.d if self.d is None else self.d
        types = [int(m) for m in graph.server_type]
        size = np.bincount(types, minlength=graph.n_types)
        k = int(graph.dispatcher_cluster[i])
        share = [float(system.p[k, m]) * size[m] for m in range(graph.n_types)]
        weight = [share[types[j]] / sum(share) / size[types[j]] for j in range(len(types))]
        law: dict[int, float] = {}
        for sample in itertools.product(range(len(types)), repeat=d):
            prob = float(np.prod([weight[j] for j in sample]))
            if prob > 0:
                winner = min(sample, key=lambda j: state[j])  # the first of equals
                law[winner] = law.get(winner, 0.0) + prob
        return sorted(law.items())
