"""The benchmarked models: the numba simulator and every peer on the same parameters.

A *case* is one simulator of qtheory with fixed parameters; ``run(case, impl, seed,
scale)`` runs implementation `impl` ("numba", "plain", "simpy", "ciw", "c") of it and
returns a :class:`~benchmarks.peers.PeerRun`. The statistic of a case is the same
stationary quantity for every implementation, estimated from one run:

- L cases: mean queue length per server (grid average over [warmup, horizon]);
- R cases: time-averaged total number of jobs;
- U cases: time-averaged utility per pool.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import PeerRun, ciw_models, credundancy, csupermarket, cutility, plain, simpy_models


@dataclass(frozen=True)
class Case:
    name: str
    paper: str
    statistic: str
    implementations: tuple
    params: dict = field(default_factory=dict)


CASES = {
    "supermarket": Case("JSQ(2) supermarket (L, one type, complete graph)", "L", "mean queue length",
                        ("numba", "c", "plain", "simpy", "ciw"), {"n": 100, "lam": 0.9}),
    "local_jsqd": Case("local JSQ(2), Sec. 6 system on irg(p1)", "L", "mean queue length",
                       ("numba", "plain", "simpy", "ciw"), {"n": 100, "policy": "jsqd"}),
    "gwsq": Case("GWSQ(2), Sec. 6 system", "L", "mean queue length",
                 ("numba", "plain", "simpy", "ciw"), {"n": 100, "policy": "gwsq"}),
    "coc": Case("c.o.c., circular-2, N = 20, lambda = 0.9 (Table 1, setting 10)", "R", "mean jobs",
                ("numba", "c", "plain", "simpy"), {"mechanism": "coc"}),
    "cos": Case("c.o.s.-ALIS, circular-2, N = 20, lambda = 0.9 (Table 1, setting 10)", "R", "mean jobs",
                ("numba", "c", "plain", "simpy"), {"mechanism": "cos"}),
    "jlmu": Case("JLMU, Table 1 system, n = 100, rho = 10", "U", "utility per pool",
                 ("numba", "c", "plain", "simpy"), {"n": 100, "policy": "jlmu"}),
    "slta": Case("SLTA, Table 1 system, n = 100, rho = 10", "U", "utility per pool",
                 ("numba", "c", "plain", "simpy"), {"n": 100, "policy": "slta"}),
}

#: largest pool occupancy of the U cases (numba's default for n = 100, rho = 10 is 75)
U_DEPTH = 75


#: warm-up (time) of the L cases, shared by all implementations
L_WARMUP = 30.0


# -- L ----------------------------------------------------------------------------------
def _locality_setup(key: str, n: int):
    from qtheory.locality.graphs import complete_bipartite, irg
    from qtheory.locality.model import LocalitySystem, paper_system

    if key == "supermarket":
        system = LocalitySystem(CASES[key].params["lam"], 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2)
        graph = complete_bipartite(system, n)
    else:
        system = paper_system("design", d=2)
        graph = irg(system, n, seed=1)
    return system, graph


def _gwsq_cdf(system, graph):
    type_size = np.bincount(graph.server_type, minlength=graph.n_types)
    share = system.p * (type_size / graph.n_servers)[None, :]
    share /= share.sum(axis=1, keepdims=True)
    cdf = np.cumsum(share, axis=1)
    cdf[:, -1] = 1.0
    return cdf


def _locality(key, impl, seed, scale):
    from qtheory.locality.simulation import simulate_gwsq, simulate_jsqd

    case = CASES[key]
    n = int(case.params.get("n", 100) * scale.get("n_factor", 1))
    # the same warm-up for every implementation (the relaxation time from empty queues is
    # about 1 / (1 - load) ~ 10), so that their statistics estimate the same quantity
    horizon = scale["horizon"]
    warmup = min(L_WARMUP, horizon / 2)
    t_grid = np.linspace(0.0, horizon, 1001)
    if impl in ("c", "c_mt"):
        return csupermarket.run(n, case.params["lam"], horizon, warmup, t_grid.size, seed,
                                generator="mt19937" if impl == "c_mt" else "xoshiro")
    system, graph = _locality_setup(key, n)
    policy = case.params.get("policy", "jsqd")
    if impl == "numba":
        sim = simulate_gwsq if policy == "gwsq" else simulate_jsqd
        c0 = time.thread_time()
        res = sim(system, graph, initial_state=np.zeros(graph.n_servers, np.int64), t_grid=t_grid, seed=seed)
        cpu = time.thread_time() - c0
        sizes = np.bincount(graph.server_type, minlength=graph.n_types)
        overall = res.mean_queue_length @ sizes / graph.n_servers
        return PeerRun(res.events, res.seconds, float(overall[t_grid >= warmup].mean()), cpu)
    type_members = [np.flatnonzero(graph.server_type == m).tolist() for m in range(graph.n_types)]
    args = (graph.offset.tolist(), graph.degree.tolist(), graph.neighbors.tolist(), graph.server_type.tolist(),
            graph.dispatcher_cluster.tolist(), system.u.tolist(), system.arrival_rate, system.d, t_grid.tolist(),
            warmup, seed)
    kw = dict(policy=policy, type_cdf=_gwsq_cdf(system, graph).tolist(), type_members=type_members)
    module = {"plain": plain, "simpy": simpy_models, "ciw": ciw_models}[impl]
    return module.locality(*args, **kw)


# -- R ----------------------------------------------------------------------------------
def _redundancy(key, impl, seed, scale):
    from qtheory.redundancy import model as M
    from qtheory.redundancy.simulation import simulate

    mech = CASES[key].params["mechanism"]
    system = M.circular_d(20, 2)
    lam = 0.9
    n_events = int(scale["r_events"])
    warmup = n_events // 10
    if impl == "numba":
        t0, c0 = time.perf_counter(), time.thread_time()
        # the benchmark reads the mean only, and the C loops compute nothing else
        res = simulate(system, lam, n_events=n_events, mechanism=mech, seed=seed, warmup_events=warmup, statistics="mean")
        return PeerRun(n_events + warmup, time.perf_counter() - t0, res.mean_jobs, time.thread_time() - c0)
    if impl == "c":
        return credundancy.run(mech, 20, 2, lam, n_events, warmup, seed)
    types = [list(t) for t in system.types]
    probs = list(system.probabilities)
    speeds = list(system.speeds)
    if impl == "plain":
        return plain.redundancy(types, probs, speeds, lam, n_events, warmup, seed, mechanism=mech)
    # SimPy is driven by time: the same expected number of events (rate about 2 N lambda)
    t_end = (n_events + warmup) / (2 * 20 * lam)
    func = simpy_models.redundancy_coc if mech == "coc" else simpy_models.redundancy_cos
    return func(types, probs, speeds, lam, t_end, t_end * warmup / (n_events + warmup), seed)


#: warm-up (time) of the U cases (relaxation time 1 / mu = 1 for the task count)
U_WARMUP = 10.0


# -- U ----------------------------------------------------------------------------------
def _utility(key, impl, seed, scale):
    from qtheory.utility import default_beta, simulate, table1_system
    from qtheory.utility.model import enumeration, tabulate

    system = table1_system(10.0)
    n = CASES[key].params["n"]
    policy = CASES[key].params["policy"]
    horizon = scale["u_horizon"]
    warmup = min(U_WARMUP, horizon / 2)
    if impl == "numba":
        c0 = time.thread_time()
        res = simulate(system, n, policy, horizon=horizon, seed=seed, warmup=warmup, max_occupancy=U_DEPTH)
        return PeerRun(res.events, res.wall_time, res.mean_utility, time.thread_time() - c0)
    if impl == "c":
        return cutility.run(system, n, policy, horizon, warmup, seed, U_DEPTH)
    counts = system.pool_counts(n)
    pool_class = np.repeat(np.arange(system.m), counts).tolist()
    values = tabulate(system.utilities, U_DEPTH)
    delta = np.diff(values, axis=1).tolist()
    base = float(values[pool_class, 0].sum()) / n
    if policy == "slta":
        en = enumeration(system, U_DEPTH)
        func = plain.utility_slta if impl == "plain" else simpy_models.utility_slta
        out = func(delta, pool_class, system.lam, system.mu, horizon, warmup, seed, en.cls.tolist(),
                   en.level.tolist(), n * default_beta(n))
    else:
        func = plain.utility_jlmu if impl == "plain" else simpy_models.utility_jlmu
        out = func(delta, pool_class, system.lam, system.mu, horizon, warmup, seed)
    return PeerRun(out.events, out.seconds, out.statistic + base)


def run(key: str, impl: str, seed: int, scale: dict) -> PeerRun:
    """Run implementation `impl` of case `key` at `scale` (horizon, r_events, u_horizon)."""
    if key not in CASES:
        raise KeyError(f"unknown case {key!r}")
    if impl not in CASES[key].implementations and not (key == "supermarket" and impl == "c_mt"):
        raise KeyError(f"case {key!r} has no {impl!r} implementation")
    paper = CASES[key].paper
    if paper == "L":
        return _locality(key, impl, seed, scale)
    if paper == "R":
        return _redundancy(key, impl, seed, scale)
    return _utility(key, impl, seed, scale)
