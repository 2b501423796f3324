"""The simulated models in plain Python: one event at a time, ``random`` for randomness.

Each function mirrors the model (not the code) of a qtheory simulator and returns a
:class:`~benchmarks.peers.PeerRun` whose statistic is computed the same way as the
numba side's (see ``benchmarks/peers/models.py`` for the numba side).
"""

from __future__ import annotations

import math
import random
import time

from . import PeerRun


def _grid_mean(samples, t_grid, warmup):
    vals = [v for t, v in zip(t_grid, samples) if t >= warmup]
    return sum(vals) / len(vals)


def locality(offset, degree, neighbors, server_type, dispatcher_cluster, service_rates, arrival_rate, d,
             t_grid, warmup, seed, policy="jsqd", type_cdf=None, type_members=None):
    """Local JSQ(d) (Sec. 2.2 of L) or GWSQ(d) on a bipartite graph, from empty queues.

    Statistic: the mean queue length over all servers at the grid times >= `warmup`,
    averaged over those times.
    """
    rng = random.Random(seed)
    rand = rng.random
    n = len(server_type)
    n_types = len(service_rates)
    n_disp = len(offset)
    state = [0] * n
    busy = [[] for _ in range(n_types)]
    pos = [-1] * n
    total = 0
    lam_total = arrival_rate * n_disp
    samples = []
    g, n_grid = 0, len(t_grid)
    t = t_grid[0]
    events = 0
    start = time.perf_counter()
    while True:
        dep = 0.0
        for m in range(n_types):
            dep += service_rates[m] * len(busy[m])
        rate = lam_total + dep
        t += -math.log(1.0 - rand()) / rate
        while g < n_grid and t_grid[g] < t:
            samples.append(total / n)
            g += 1
        if g == n_grid:
            break
        events += 1
        r = rand() * rate
        if r < lam_total:
            i = min(int(r / arrival_rate), n_disp - 1)
            if policy == "jsqd":
                nbrs = neighbors[offset[i]:offset[i] + degree[i]]
                if degree[i] < d:
                    target = rng.choice(nbrs)
                else:
                    target = min(rng.sample(nbrs, d), key=state.__getitem__)
            else:
                k = dispatcher_cluster[i]
                target, best = -1, None
                for _ in range(d):
                    u = rand()
                    m = 0
                    while m < n_types - 1 and u >= type_cdf[k][m]:
                        m += 1
                    j = rng.choice(type_members[m])
                    if best is None or state[j] < best:
                        best, target = state[j], j
            x = state[target]
            state[target] = x + 1
            total += 1
            if x == 0:
                lst = busy[server_type[target]]
                pos[target] = len(lst)
                lst.append(target)
        else:
            r -= lam_total
            m = 0
            while m < n_types - 1 and r >= service_rates[m] * len(busy[m]):
                r -= service_rates[m] * len(busy[m])
                m += 1
            if not busy[m]:
                m = next(mm for mm in range(n_types) if busy[mm])
            lst = busy[m]
            j = lst[rng.randrange(len(lst))]
            state[j] -= 1
            total -= 1
            if state[j] == 0:
                last = lst.pop()
                if last != j:
                    lst[pos[j]] = last
                    pos[last] = pos[j]
                pos[j] = -1
    seconds = time.perf_counter() - start
    return PeerRun(events, seconds, _grid_mean(samples, t_grid, warmup))


def redundancy(types, probabilities, speeds, lam, n_events, warmup, seed, mechanism="cos"):
    """Redundancy c.o.c. or c.o.s.-ALIS (Secs. 2.1, 2.3 of R), central-queue representation.

    Jobs are kept in arrival order; every server serves the oldest job compatible with it.
    c.o.c.: all compatible servers of a job work on it, the first completion removes it.
    c.o.s.-ALIS: a job starts on one server (the longest idle compatible one if any) and
    drops its other replicas.

    Statistic: the time average of the total number of jobs over events ``warmup ..
    warmup + n_events`` (the state before each jump weighted by its mean holding time
    1/R, as the numba simulator does).
    """
    rng = random.Random(seed)
    rand = rng.random
    n_servers = len(speeds)
    cum = []
    acc = 0.0
    for p in probabilities:
        acc += p
        cum.append(acc)
    cum[-1] = 1.0
    lam_total = lam * n_servers
    jobs = []                  # in arrival order: types (c.o.c.), (type, id) (c.o.s.)
    serving = [None] * n_servers   # c.o.s.: job record a server works on
    idle_since = [0] * n_servers   # c.o.s.: ALIS order (smaller = idle longer)
    clock = 0
    area = 0.0
    time_total = 0.0
    events = 0
    compat = [set(t) for t in types]
    start = time.perf_counter()
    while events < warmup + n_events:
        # which servers are busy, and on what
        if mechanism == "coc":
            assigned = [-1] * n_servers
            free = n_servers
            for idx, job in enumerate(jobs):
                for s in types[job]:
                    if assigned[s] < 0:
                        assigned[s] = idx
                        free -= 1
                if free == 0:
                    break
            dep_rate = sum(speeds[s] for s in range(n_servers) if assigned[s] >= 0)
        else:
            dep_rate = sum(speeds[s] for s in range(n_servers) if serving[s] is not None)
        rate = lam_total + dep_rate
        if events >= warmup:
            area += len(jobs) / rate
            time_total += 1.0 / rate
        events += 1
        r = rand() * rate
        if r < lam_total:
            u = rand()
            k = 0
            while u >= cum[k]:
                k += 1
            if mechanism == "coc":
                jobs.append(k)
            else:
                idle = [s for s in types[k] if serving[s] is None]
                job = (k, events)          # unique, so removal is by identity of the job
                jobs.append(job)
                if idle:
                    s = min(idle, key=idle_since.__getitem__)
                    serving[s] = job
        else:
            r -= lam_total
            if mechanism == "coc":
                for s in range(n_servers):
                    if assigned[s] >= 0:
                        if r < speeds[s]:
                            break
                        r -= speeds[s]
                del jobs[assigned[s]]
            else:
                for s in range(n_servers):
                    if serving[s] is not None:
                        if r < speeds[s]:
                            break
                        r -= speeds[s]
                jobs.remove(serving[s])
                serving[s] = None
                # the oldest waiting compatible job starts here, else the server idles
                in_service = set(sv for sv in serving if sv is not None)
                for job in jobs:
                    if job not in in_service and s in compat[job[0]]:
                        serving[s] = job
                        break
                else:
                    clock += 1
                    idle_since[s] = clock
    seconds = time.perf_counter() - start
    return PeerRun(events, seconds, area / time_total)


def utility_jlmu(delta, pool_class, lam, mu, t_end, warmup, seed):
    """JLMU (eq. (8) of U) on infinite-server pools, from empty pools.

    An arrival (rate n lam) joins a least-occupied pool of the class whose next marginal
    utility ``delta[i][x]`` at its least occupancy x is largest (ties to the smaller
    class; uniform among the least-occupied pools of that class); every task leaves at
    rate mu.

    Statistic: time average of the utility per pool over [warmup, t_end].
    """
    rng = random.Random(seed)
    rand = rng.random
    n = len(pool_class)
    m = len(delta)
    occ = [0] * n
    members = [[p for p in range(n) if pool_class[p] == i] for i in range(m)]
    # by_level[i][x]: set of class-i pools with x tasks (dicts keep O(1) random picks via lists)
    levels = [[list(members[i])] for i in range(m)]
    where = [0] * n      # position of pool p in its level list
    for i in range(m):
        for k, p in enumerate(levels[i][0]):
            where[p] = k
    minocc = [0] * m
    tasks = []
    util = 0.0
    t = 0.0
    area = 0.0
    events = 0
    arrival_rate = n * lam

    def move(p, x_from, x_to):
        i = pool_class[p]
        lst = levels[i][x_from]
        last = lst.pop()
        if last != p:
            lst[where[p]] = last
            where[last] = where[p]
        if x_to == len(levels[i]):
            levels[i].append([])
        dst = levels[i][x_to]
        where[p] = len(dst)
        dst.append(p)

    start = time.perf_counter()
    while True:
        rate = arrival_rate + mu * len(tasks)
        t_next = t - math.log(1.0 - rand()) / rate
        a = max(t, warmup)
        b = min(t_next, t_end)
        if b > a:
            area += (b - a) * util
        if t_next >= t_end:
            break
        t = t_next
        events += 1
        if rand() * rate < arrival_rate:
            best = 0
            for i in range(1, m):
                if delta[i][minocc[i]] > delta[best][minocc[best]]:
                    best = i
            x = minocc[best]
            lst = levels[best][x]
            p = lst[rng.randrange(len(lst))]
            move(p, x, x + 1)
            occ[p] = x + 1
            if not levels[best][x]:
                minocc[best] = x + 1
            util += delta[best][x]
            tasks.append(p)
        else:
            k = rng.randrange(len(tasks))
            p = tasks[k]
            tasks[k] = tasks[-1]
            tasks.pop()
            i = pool_class[p]
            x = occ[p]
            move(p, x, x - 1)
            occ[p] = x - 1
            if x - 1 < minocc[i]:
                minocc[i] = x - 1
            util -= delta[i][x - 1]
    seconds = time.perf_counter() - start
    return PeerRun(events, seconds, area / (n * (t_end - warmup)))


def utility_slta(delta, pool_class, lam, mu, t_end, warmup, seed, ranked_class, ranked_level, green_min, r0=1):
    """SLTA (Sec. 3.2 of U): green and yellow tokens, thresholds learnt from r_n.

    ``ranked_class[k - 1], ranked_level[k - 1]`` is the k-th ranked coordinate (i_k, j_k);
    the threshold of class i is l_i(r) = #{k < r : i_k = i}. A pool of class i is green
    when it holds fewer than l_i(r) tasks; the yellow pools are those of class i_r with
    fewer than j_r tasks. An arrival joins a uniform green pool of a class other than
    i_{r-1} if any, else a green pool of class i_{r-1}, else a yellow pool, else a uniform
    pool; r decreases when at least `green_min` (= n beta_n) green pools exist and class
    i_{r-1} has one, and increases when no green pool and at most one yellow pool exist
    (both decided on the state seen by the arrival).

    Statistic: time average of the utility per pool over [warmup, t_end].
    """
    rng = random.Random(seed)
    rand = rng.random
    n = len(pool_class)
    m = len(delta)
    occ = [0] * n
    members = [[p for p in range(n) if pool_class[p] == i] for i in range(m)]
    levels = [[list(members[i])] for i in range(m)]     # levels[i][x]: class-i pools with x tasks
    where = [0] * n
    for i in range(m):
        for k, p in enumerate(levels[i][0]):
            where[p] = k
    thr = [0] * m
    r = r0
    for k in range(r0 - 1):
        thr[ranked_class[k]] += 1
    tasks = []
    util = 0.0
    t = 0.0
    area = 0.0
    events = 0
    arrival_rate = n * lam

    def below(i, x):
        return sum(len(levels[i][y]) for y in range(min(x, len(levels[i]))))

    def pick_below(i, x, v):
        for y in range(x):
            if v < len(levels[i][y]):
                return levels[i][y][v]
            v -= len(levels[i][y])
        raise AssertionError

    def move(p, x_from, x_to):
        i = pool_class[p]
        lst = levels[i][x_from]
        last = lst.pop()
        if last != p:
            lst[where[p]] = last
            where[last] = where[p]
        if x_to == len(levels[i]):
            levels[i].append([])
        dst = levels[i][x_to]
        where[p] = len(dst)
        dst.append(p)

    start = time.perf_counter()
    while True:
        rate = arrival_rate + mu * len(tasks)
        t_next = t - math.log(1.0 - rand()) / rate
        a = max(t, warmup)
        b = min(t_next, t_end)
        if b > a:
            area += (b - a) * util
        if t_next >= t_end:
            break
        t = t_next
        events += 1
        if rand() * rate < arrival_rate:
            ir, jr = ranked_class[r - 1], ranked_level[r - 1]
            prev = ranked_class[r - 2] if r >= 2 else -1
            green = [below(i, thr[i]) for i in range(m)]
            g_total = sum(green)
            g_other = g_total - (green[prev] if prev >= 0 else 0)
            yellow = below(ir, jr)
            dec = prev >= 0 and g_total >= green_min and green[prev] >= 1
            inc = g_total == 0 and yellow <= 1
            if g_other > 0:
                v = rng.randrange(g_other)
                for i in range(m):
                    if i == prev:
                        continue
                    if v < green[i]:
                        p = pick_below(i, thr[i], v)
                        break
                    v -= green[i]
            elif g_total > 0:
                p = pick_below(prev, thr[prev], rng.randrange(green[prev]))
            elif yellow > 0:
                p = pick_below(ir, jr, rng.randrange(yellow))
            else:
                p = rng.randrange(n)
            i = pool_class[p]
            x = occ[p]
            move(p, x, x + 1)
            occ[p] = x + 1
            util += delta[i][x]
            tasks.append(p)
            if dec:
                r -= 1
                thr[ranked_class[r - 1]] -= 1
            elif inc:
                thr[ranked_class[r - 1]] += 1
                r += 1
        else:
            k = rng.randrange(len(tasks))
            p = tasks[k]
            tasks[k] = tasks[-1]
            tasks.pop()
            i = pool_class[p]
            x = occ[p]
            move(p, x, x - 1)
            occ[p] = x - 1
            util -= delta[i][x - 1]
    seconds = time.perf_counter() - start
    return PeerRun(events, seconds, area / (n * (t_end - warmup)))
