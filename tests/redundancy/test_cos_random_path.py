"""The R kernel's path under c.o.s. with random assignment, against an independent plain-Python
event loop fed the same generator words.

c.o.s.-random is the one mechanism whose start rule draws from the generator, so its path
depends on the kernel handing the rule its own stream and taking the advanced words back
(the ``_rule_draws`` switch of :func:`qtheory.redundancy.simulation._kernel`). Its statistics
barely notice a rule that draws from a copy of the generator (the law is the same), so the
check is on the path: every decision of the kernel and of the reference below must be the
same, given the kernel's documented use of the uniforms, one xoshiro256+ word each:

* every step draws one uniform u; the step is an arrival iff ``u R < N lambda`` (R the
  total event rate, ``N lambda + `` the speeds of the busy servers), else the busy server
  whose speed interval, in the order of the busy list, holds ``u R - N lambda`` completes;
* an initial job (placed before the warm-up, as an arrival without departures) draws its
  type from a second uniform; an arrival reuses ``u R / (N lambda)``; either goes through
  Walker's alias table of the type probabilities (``floor(k x)`` when they are equal);
* the start rule then counts the idle compatible servers of the job's type; if there are
  m > 0, one more uniform picks the ``floor(m v)``-th of them (in the order of the type's
  servers), which starts the job; else the job joins its type's FIFO;
* a completing server takes the oldest waiting job among its types, or turns idle (the last
  server of the busy list takes its place there).

The comparisons are bit for bit wherever the reference repeats the kernel's arithmetic (the
counts, the event and arrival sums, the clock and the time sums), and to a relative 1e-12
for the per-type time integrals, which the kernel sums per interval and the reference per
step. Runs of 1, 2, ... recorded events compare the path event by event: Q, the number of
arrivals and the clock (the sum of 1/R, which tells which servers are busy when the speeds
differ) after each event.
"""

from __future__ import annotations

import numpy as np
import pytest

from qtheory._rng import seed_state
from qtheory.redundancy import model as M
from qtheory.redundancy.mechanisms import as_mechanism
from qtheory.redundancy.simulation import Configuration, _kernel_system, _run_kernel
from qtheory.redundancy.stability import require_stable
from tests._xoshiro import Xoshiro256Plus


def _reference(system, lam_total, init_jobs, warmup, n_events, words, hist_max=400, track=(0, -1)):
    """c.o.s. with random assignment written from its definition, drawing as described in the
    module docstring: the statistics the kernel returns (as a dict of its field names) and the
    path after each step (Q, arrivals so far and clock, recorded steps only)."""
    rng = Xoshiro256Plus(words)
    kernel = _kernel_system(system)
    k, n = system.n_types, system.n_servers
    speeds = [float(s) for s in kernel.speeds]
    equal_speeds = all(s == speeds[0] for s in speeds)
    equal_types = bool(np.all(kernel.prob == 1.0))
    servers = [[int(s) for s in kernel.type_servers[t, :kernel.type_deg[t]]] for t in range(k)]
    types_of = [[t for t in range(k) if s in servers[t]] for s in range(n)]
    track_a, track_b = track[0] % k, track[1] % k

    def draw_type(x):
        if equal_types:
            return min(int(x * k), k - 1)
        y = x * k
        col = min(int(y), k - 1)
        return col if y - col < kernel.prob[col] else int(kernel.alias[col])

    waiting = [[] for _ in range(k)]       # arrival stamps of the waiting jobs of each type
    serving = [-1] * n                     # the type of each busy server's job
    busy_list = []                         # busy servers in the kernel's order
    busy_rate = 0.0
    counts = [0] * k
    stamp = 0
    st = dict(time=0.0, time_q=0.0, time_q2=0.0, time_ratio_a=0.0, time_ratio_b=0.0, events=0.0, event_q=0.0,
              event_q2=0.0, event_ratio_a=0.0, event_ratio_b=0.0, arrivals=0.0, arrival_q=0.0, arrival_q2=0.0,
              arrival_ratio_a=0.0, arrival_ratio_b=0.0, empty_time=0.0)
    hist_t, hist_e = np.zeros(hist_max + 1), np.zeros(hist_max + 1)
    acc_t, acc_e = np.zeros(k), np.zeros(k)
    path = []
    for step in range(init_jobs + warmup + n_events):
        recording = step >= init_jobs + warmup
        total = sum(counts)
        rate = lam_total + (len(busy_list) * speeds[0] if equal_speeds else busy_rate)
        w = 1.0 / rate
        if recording:
            st["time_q"] += w * total
            if total == 0:
                st["empty_time"] += w
            st["time"] += w
            hist_t[min(total, hist_max)] += w
            st["time_q2"] += w * total * total
            if total > 0:
                st["time_ratio_a"] += w * counts[track_a] / total
                st["time_ratio_b"] += w * counts[track_b] / total
            acc_t += w * np.array(counts, dtype=float)
        u = rng.uniform()
        if step < init_jobs or u * rate < lam_total:
            t = draw_type(rng.uniform() if step < init_jobs else (u * rate) * (1.0 / lam_total))
            counts[t] += 1
            idle = [s for s in servers[t] if s not in busy_list]
            if idle:
                m = len(idle)
                best = idle[min(int(rng.uniform() * m), m - 1)]
                serving[best] = t
                busy_list.append(best)
                busy_rate += speeds[best]
            else:
                waiting[t].append(stamp)
                stamp += 1
            if recording:
                total = sum(counts)
                st["arrivals"] += 1.0
                st["arrival_q"] += total
                st["arrival_q2"] += total * total
                st["arrival_ratio_a"] += counts[track_a] / total
                st["arrival_ratio_b"] += counts[track_b] / total
        else:
            v = u * rate - lam_total
            if equal_speeds:
                idx = min(int(v * (1.0 / speeds[0])), len(busy_list) - 1)
            else:
                acc, idx = 0.0, len(busy_list) - 1
                for i, s in enumerate(busy_list):
                    acc += speeds[s]
                    if v < acc:
                        idx = i
                        break
            s = busy_list[idx]
            counts[serving[s]] -= 1
            heads = [(waiting[j][0], j) for j in types_of[s] if waiting[j]]
            if heads:
                serving[s] = min(heads)[1]
                waiting[serving[s]].pop(0)
            else:
                serving[s] = -1
                busy_list[idx] = busy_list[-1]
                busy_list.pop()
                busy_rate -= speeds[s]
                if not busy_list:
                    busy_rate = 0.0
        if recording:
            total = sum(counts)
            hist_e[min(total, hist_max)] += 1.0
            st["event_q"] += total
            st["event_q2"] += total * total
            if total > 0:
                st["event_ratio_a"] += counts[track_a] / total
                st["event_ratio_b"] += counts[track_b] / total
            st["events"] += 1.0
            acc_e += np.array(counts, dtype=float)
            path.append((total, st["arrivals"], st["time"]))
    st["final_total"] = float(sum(counts))
    return st, dict(hist_t=hist_t, hist_e=hist_e, acc_t=acc_t, acc_e=acc_e), path


def _kernel_run(system, lam_total, init_jobs, warmup, n_events, seed, n_batches=1):
    config = Configuration(mechanism=1, lam_total=lam_total, n_events=n_events, warmup=warmup, init_jobs=init_jobs,
                           track_a=0, track_b=system.n_types - 1, hist_max=400, n_batches=n_batches,
                           fifo_cap=1 << 16, all_statistics=True)
    out = _run_kernel(as_mechanism("cos-random"), _kernel_system(system), config, seed_state(seed))
    assert out.code == 0
    return out


# unequal speeds and type probabilities (the kernel's running busy rate, its walk along the
# busy list and Walker's table), and equal ones (its rate table, its one-division pick of the
# completing server and floor(k x) for the type); both leave arriving jobs a choice among
# up to 3 idle servers often, and make them wait sometimes
UNEQUAL = M.RedundancySystem([1.0, 2.0, 0.5, 1.5], [(0, 1, 2), (1, 2, 3), (0, 3), (2,)], [0.4, 0.3, 0.2, 0.1])
EQUAL = M.circular_d(5, 3)
SYSTEMS = {"unequal": (UNEQUAL, 0.7), "equal": (EQUAL, 0.75)}     # (system, load per server)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@pytest.mark.parametrize("seed", [1, 2**40 + 3])
def test_the_kernel_takes_the_reference_path_event_by_event(name, seed):
    """Runs of 1..150 recorded events (after 5 initial jobs and 10 warm-up events), each
    from the start of the same stream: after every event the kernel's Q, arrival count and
    clock are the reference's, to the bit. The path has both choices and waits in it."""
    system, lam = SYSTEMS[name]
    require_stable(system, lam)
    lam_total = system.n_servers * lam
    _, _, path = _reference(system, lam_total, 5, 10, 150, seed_state(seed))
    for n_events in range(1, 151):
        sums = _kernel_run(system, lam_total, 5, 10, n_events, seed).sums
        assert (sums.final_total, sums.arrivals, sums.time) == path[n_events - 1], n_events
    queues = [q for q, _, _ in path]
    assert max(queues) > system.n_servers and min(queues) < system.n_servers      # waits, and idle servers


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_statistic_of_a_long_run_is_the_reference(name):
    """20 000 recorded events after 40 initial jobs and 1 000 warm-up events: every sum the
    kernel returns and every histogram bin equal to the reference's, to the bit; the per-type
    time integrals to a relative 1e-12 (the same terms summed in another order: the error
    is a few ulps per term, 2e4 terms, well below 1e-12)."""
    system, lam = SYSTEMS[name]
    lam_total = system.n_servers * lam
    stats, arrays, _ = _reference(system, lam_total, 40, 1_000, 20_000, seed_state(7))
    out = _kernel_run(system, lam_total, 40, 1_000, 20_000, 7, n_batches=4)
    assert stats["arrivals"] > 0.4 * 20_000 and stats["time_q"] > 0
    for field in out.sums._fields:
        assert getattr(out.sums, field) == stats[field], field
    assert out.empty_time == stats["empty_time"] > 0
    for key in ("hist_t", "hist_e", "acc_e"):
        assert np.array_equal(getattr(out, key), arrays[key]), key
    np.testing.assert_allclose(out.acc_t, arrays["acc_t"], rtol=1e-12, atol=0)
