"""The locality models as Ciw networks.

Node 1 is the set of dispatchers: a task arrives there (Poisson, rate lambda W),
spends zero time and is routed by a custom ``ciw.routing.NodeRouting`` that implements
local JSQ(d) (or GWSQ(d)) on the queue lengths of the server nodes 2 .. N + 1, each a
single exponential server with the rate of its type. Redundancy (replicas served in
parallel and cancelled) and infinite-server pools with state-dependent dispatching are
not expressible as Ciw networks without rewriting its node logic, so they have no Ciw peer.
"""

from __future__ import annotations

import time

import ciw
import numpy as np

from . import PeerRun


class _LocalRouting(ciw.routing.NodeRouting):
    def __init__(self, offset, degree, neighbors, dispatcher_cluster, d, policy, type_cdf, type_members, rng):
        self.offset, self.degree, self.neighbors = offset, degree, neighbors
        self.dispatcher_cluster, self.d, self.policy = dispatcher_cluster, d, policy
        self.type_cdf, self.type_members, self.rng = type_cdf, type_members, rng

    def _length(self, j):
        return self.simulation.nodes[j + 2].number_of_individuals

    def next_node(self, ind):
        rng = self.rng
        i = rng.randrange(len(self.offset))
        if self.policy == "jsqd":
            nbrs = self.neighbors[self.offset[i]:self.offset[i] + self.degree[i]]
            if self.degree[i] < self.d:
                target = rng.choice(nbrs)
            else:
                target = min(rng.sample(nbrs, self.d), key=self._length)
        else:
            k = self.dispatcher_cluster[i]
            target, best = -1, None
            for _ in range(self.d):
                u = rng.random()
                m = 0
                while m < len(self.type_members) - 1 and u >= self.type_cdf[k][m]:
                    m += 1
                j = rng.choice(self.type_members[m])
                if best is None or self._length(j) < best:
                    best, target = self._length(j), j
        return self.simulation.nodes[target + 2]


def locality(offset, degree, neighbors, server_type, dispatcher_cluster, service_rates, arrival_rate, d,
             t_grid, warmup, seed, policy="jsqd", type_cdf=None, type_members=None):
    """Local JSQ(d) / GWSQ(d) in Ciw; statistic as in ``plain.locality`` (from the records)."""
    import random

    n = len(server_type)
    lam_total = arrival_rate * len(offset)
    ciw.seed(seed)
    rng = random.Random(seed)
    routers = [_LocalRouting(offset, degree, neighbors, dispatcher_cluster, d, policy, type_cdf, type_members, rng)]
    routers += [ciw.routing.Leave() for _ in range(n)]
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(lam_total)] + [None] * n,
        service_distributions=[ciw.dists.Deterministic(0.0)]
        + [ciw.dists.Exponential(service_rates[server_type[j]]) for j in range(n)],
        number_of_servers=[float("inf")] + [1] * n,
        routing=ciw.routing.NetworkRouting(routers),
    )
    sim = ciw.Simulation(network)
    horizon = float(t_grid[-1])
    start = time.perf_counter()
    sim.simulate_until_max_time(horizon)
    seconds = time.perf_counter() - start
    recs = [r for r in sim.get_all_records() if r.node > 1]
    arrive = np.sort([r.arrival_date for r in recs])
    leave = np.sort([r.exit_date for r in recs])
    in_system = [ind for nd in sim.nodes[2:-1] for ind in nd.all_individuals]
    arrive = np.sort(np.concatenate([arrive, [ind.arrival_date for ind in in_system]]))
    grid = np.asarray(t_grid, dtype=float)
    inside = np.searchsorted(arrive, grid, side="right") - np.searchsorted(leave, grid, side="right")
    keep = grid >= warmup
    events = len(recs) + arrive.size
    return PeerRun(int(events), seconds, float(inside[keep].mean() / n))
