"""The simulated models written in SimPy's process style (a process per job or server)."""

from __future__ import annotations

import random
import time

import simpy

from . import PeerRun


class _TimeAverage:
    """Time integral over [warmup, now] of a piecewise-constant quantity, and its changes.

    ``change(delta)`` is called at each event (arrival or departure); ``result`` closes the
    integral at the end of the run and returns the :class:`PeerRun` with the time average
    divided by `per` (e.g. the number of pools).
    """

    def __init__(self, env, warmup):
        self.env, self.warmup = env, warmup
        self.value = self.last = self.area = 0.0
        self.events = 0

    def change(self, delta):
        now = self.env.now
        a = max(self.last, self.warmup)
        if now > a:
            self.area += (now - a) * self.value
        self.last = now
        self.value += delta
        self.events += 1

    def result(self, t_end, seconds, per=1):
        self.change(0)
        return PeerRun(self.events - 1, seconds, self.area / (per * (t_end - self.warmup)))


def locality(offset, degree, neighbors, server_type, dispatcher_cluster, service_rates, arrival_rate, d,
             t_grid, warmup, seed, policy="jsqd", type_cdf=None, type_members=None):
    """Local JSQ(d) / GWSQ(d) with a ``simpy.Resource`` per server; statistic as in ``plain.locality``."""
    rng = random.Random(seed)
    env = simpy.Environment()
    n = len(server_type)
    servers = [simpy.Resource(env, capacity=1) for _ in range(n)]
    n_disp = len(offset)
    lam_total = arrival_rate * n_disp
    n_types = len(service_rates)
    counters = {"events": 0, "total": 0}
    samples = []

    def length(j):
        res = servers[j]
        return res.count + len(res.queue)

    def job(j):
        with servers[j].request() as req:
            yield req
            yield env.timeout(rng.expovariate(service_rates[server_type[j]]))
        counters["total"] -= 1
        counters["events"] += 1

    def arrivals():
        while True:
            yield env.timeout(rng.expovariate(lam_total))
            i = rng.randrange(n_disp)
            if policy == "jsqd":
                nbrs = neighbors[offset[i]:offset[i] + degree[i]]
                target = rng.choice(nbrs) if degree[i] < d else min(rng.sample(nbrs, d), key=length)
            else:
                k = dispatcher_cluster[i]
                target, best = -1, None
                for _ in range(d):
                    u = rng.random()
                    m = 0
                    while m < n_types - 1 and u >= type_cdf[k][m]:
                        m += 1
                    j = rng.choice(type_members[m])
                    if best is None or length(j) < best:
                        best, target = length(j), j
            counters["total"] += 1
            counters["events"] += 1
            env.process(job(target))

    def sampler():
        for t in t_grid:
            yield env.timeout(t - env.now)
            samples.append(counters["total"] / n)

    env.process(arrivals())
    env.process(sampler())
    start = time.perf_counter()
    env.run(until=t_grid[-1] * (1 + 1e-12) + 1e-12)
    seconds = time.perf_counter() - start
    vals = [v for t, v in zip(t_grid, samples) if t >= warmup]
    return PeerRun(counters["events"], seconds, sum(vals) / len(vals))


def redundancy_cos(types, probabilities, speeds, lam, t_end, warmup, seed):
    """c.o.s.-ALIS (R, Sec. 2.3): a process per server taking the oldest waiting compatible job.

    Statistic: time average of the total number of jobs over [warmup, t_end].
    """
    rng = random.Random(seed)
    env = simpy.Environment()
    n_servers = len(speeds)
    lam_total = lam * n_servers
    compat = [set(t) for t in types]
    waiting = []                      # (type, id) in arrival order
    wake = [env.event() for _ in range(n_servers)]
    idle_since = [0.0] * n_servers
    idle = [True] * n_servers
    in_system = _TimeAverage(env, warmup)
    change = in_system.change

    def server(s):
        while True:
            yield wake[s]
            while True:
                yield env.timeout(rng.expovariate(speeds[s]))
                change(-1)
                nxt = next((job for job in waiting if s in compat[job[0]]), None)
                if nxt is None:
                    break
                waiting.remove(nxt)
            idle[s] = True
            idle_since[s] = env.now
            wake[s] = env.event()

    def arrivals():
        k_id = 0
        while True:
            yield env.timeout(rng.expovariate(lam_total))
            k = rng.choices(range(len(probabilities)), weights=probabilities)[0]
            k_id += 1
            change(+1)
            free = [s for s in types[k] if idle[s]]
            if free:
                s = min(free, key=idle_since.__getitem__)
                idle[s] = False
                wake[s].succeed()
            else:
                waiting.append((k, k_id))

    for s in range(n_servers):
        env.process(server(s))
    env.process(arrivals())
    start = time.perf_counter()
    env.run(until=t_end)
    return in_system.result(t_end, time.perf_counter() - start)


def _pools(delta, pool_class, lam, mu, t_end, warmup, seed, choose):
    """n infinite-server pools (U) with a process per task; `choose(occ, rng)` is the
    dispatching rule, returning the pool of an arriving task (it may keep state of its own).

    Statistic: time average of the utility per pool over [warmup, t_end].
    """
    rng = random.Random(seed)
    env = simpy.Environment()
    n = len(pool_class)
    occ = [0] * n
    utility = _TimeAverage(env, warmup)

    def task(p):
        yield env.timeout(rng.expovariate(mu))
        occ[p] -= 1
        utility.change(-delta[pool_class[p]][occ[p]])

    def arrivals():
        while True:
            yield env.timeout(rng.expovariate(n * lam))
            p = choose(occ, rng)
            utility.change(delta[pool_class[p]][occ[p]])
            occ[p] += 1
            env.process(task(p))

    env.process(arrivals())
    start = time.perf_counter()
    env.run(until=t_end)
    return utility.result(t_end, time.perf_counter() - start, per=n)


def _members(pool_class, m):
    return [[p for p in range(len(pool_class)) if pool_class[p] == i] for i in range(m)]


def utility_jlmu(delta, pool_class, lam, mu, t_end, warmup, seed):
    """JLMU (U, eq. (8)): a least-occupied pool of the class with the largest next marginal
    utility (ties to the smaller class), found by scanning the pools of each class."""
    m = len(delta)
    members = _members(pool_class, m)

    def choose(occ, rng):
        least = [min(occ[p] for p in members[i]) for i in range(m)]
        best = 0
        for i in range(1, m):
            if delta[i][least[i]] > delta[best][least[best]]:
                best = i
        return rng.choice([q for q in members[best] if occ[q] == least[best]])

    return _pools(delta, pool_class, lam, mu, t_end, warmup, seed, choose)


def redundancy_coc(types, probabilities, speeds, lam, t_end, warmup, seed):
    """c.o.c. (R, Sec. 2.1): a process per server serving the oldest compatible job.

    When a job completes on one server, the servers working on its other replicas are
    interrupted and move on to their oldest compatible job (replica sizes are
    exponential, so a restarted replica is as good as a continued one).

    Statistic: time average of the total number of jobs over [warmup, t_end].
    """
    rng = random.Random(seed)
    env = simpy.Environment()
    n_servers = len(speeds)
    lam_total = lam * n_servers
    compat = [set(t) for t in types]
    jobs = []                        # (type, id) in arrival order
    current = [None] * n_servers     # job a server works on
    procs = []
    wake = [env.event() for _ in range(n_servers)]
    in_system = _TimeAverage(env, warmup)
    change = in_system.change

    def oldest(s):
        return next((job for job in jobs if s in compat[job[0]]), None)

    def server(s):
        while True:
            job = oldest(s)
            if job is None:
                current[s] = None
                wake[s] = env.event()
                try:
                    yield wake[s]
                except simpy.Interrupt:
                    pass
                continue
            current[s] = job
            try:
                yield env.timeout(rng.expovariate(speeds[s]))
            except simpy.Interrupt:
                continue
            jobs.remove(job)
            change(-1)
            for other in types[job[0]]:
                if other != s and current[other] == job:
                    current[other] = None
                    procs[other].interrupt()

    def arrivals():
        k_id = 0
        while True:
            yield env.timeout(rng.expovariate(lam_total))
            k = rng.choices(range(len(probabilities)), weights=probabilities)[0]
            k_id += 1
            job = (k, k_id)
            jobs.append(job)
            change(+1)
            for s in types[k]:
                if current[s] is None and not wake[s].triggered:
                    current[s] = job
                    wake[s].succeed()

    procs.extend(env.process(server(s)) for s in range(n_servers))
    env.process(arrivals())
    start = time.perf_counter()
    env.run(until=t_end)
    return in_system.result(t_end, time.perf_counter() - start)


def utility_slta(delta, pool_class, lam, mu, t_end, warmup, seed, ranked_class, ranked_level, green_min, r0=1):
    """SLTA (U, Sec. 3.2); the rules of ``plain.utility_slta``.

    The dispatcher counts green pools (class i, fewer than l_i(r) tasks) and yellow pools
    (class i_r, fewer than j_r tasks) by scanning each class's pools, as a SimPy model
    written without the level lists of the other implementations would.
    """
    n, m = len(pool_class), len(delta)
    members = _members(pool_class, m)
    thr = [0] * m
    for k in range(r0 - 1):
        thr[ranked_class[k]] += 1
    index = [r0]                     # r_n

    def choose(occ, rng):
        r = index[0]
        ir, jr = ranked_class[r - 1], ranked_level[r - 1]
        prev = ranked_class[r - 2] if r >= 2 else -1
        green = [[p for p in members[i] if occ[p] < thr[i]] for i in range(m)]
        yellow = [p for p in members[ir] if occ[p] < jr]
        g_total = sum(len(g) for g in green)
        others = [p for i in range(m) if i != prev for p in green[i]]
        dec = prev >= 0 and g_total >= green_min and len(green[prev]) >= 1
        inc = g_total == 0 and len(yellow) <= 1
        if others:
            p = others[rng.randrange(len(others))]
        elif g_total > 0:
            p = green[prev][rng.randrange(len(green[prev]))]
        elif yellow:
            p = yellow[rng.randrange(len(yellow))]
        else:
            p = rng.randrange(n)
        if dec:
            index[0] = r - 1
            thr[ranked_class[r - 2]] -= 1
        elif inc:
            thr[ranked_class[r - 1]] += 1
            index[0] = r + 1
        return p

    return _pools(delta, pool_class, lam, mu, t_end, warmup, seed, choose)
