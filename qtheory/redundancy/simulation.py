"""Event-driven simulation of redundancy c.o.c. and c.o.s.-ALIS (Secs. 2.1, 2.3, App. E).

Both simulators follow the central-queue representation (Fig. 2(b)): jobs are kept in
order of arrival and every server works on the oldest job it is compatible with.
Replica sizes are exponential with unit mean, so a busy server n completes at rate
:math:`\\mu_n`; the process is a continuous-time Markov chain and is simulated jump by
jump.

- **c.o.c.** (R-P-coc): all replicas of a job are served at once; the first
  completion removes the job and cancels its other replicas. Server n is busy iff
  some job in the system is compatible with it.
- **c.o.s.-ALIS** (R-P-cos): a job starts on one server and its other replicas are
  dropped at that moment. An arriving job with idle compatible servers goes to the
  one that has been idle longest (ALIS); a server that finishes takes the oldest
  waiting compatible job, or else becomes idle.

Implementation: every job type keeps a FIFO of the arrival stamps of its queued jobs
(c.o.c.: all its jobs; c.o.s.: its waiting jobs). The oldest job a server is compatible
with is the oldest of the heads of its types' FIFOs, and the job a completion removes
(c.o.c.) or starts (c.o.s.) is such a head, so an event costs O(d), d the number of types
of a server or of servers of a type, with no job table and no entries to skip.

Statistics
----------
Each run reports two kinds of averages of the total number of jobs Q (waiting plus
in service) and of the counts per type:

- *time averages*, the stationary quantities of the product forms: the state before
  each jump is weighted by its expected holding time :math:`1/R(x)`, R the total
  event rate (a conditional-expectation estimator, no exponential draws needed);
- *event averages*: the plain average over the states seen after each event
  (arrivals and service completions). These are the stationary law of the jump
  chain, which differs from the time-stationary law because R depends on the state.

A run counts *events* = arrivals + service completions, as in Appendix E. Asked for
``statistics="mean"``, a run keeps only the time averages of Q and of 1{Q = 0} (and their
standard errors), which costs less per event; the other fields are then NaN.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from .. import _splice
from .._policy import decide  # noqa: F401 (the template's dispatch point)
from ..errors import ParameterError, RuleError
from .._rng import _TWO_M53, _U11, _U17, _U19, _U45
from ..runtime import RunRecord, kernel_state
from ..stats import batch_means
from ..validation import check_integer, check_real
from .completion import oldest_first
from .mechanisms import MECHANISMS as _MECHANISMS, as_mechanism
from .model import RedundancySystem
from .stability import check_arrival_rate, require_stable

__all__ = ["SimulationResult", "RunSums", "BatchSums", "simulate", "simulate_replication", "MECHANISMS"]

MECHANISMS = tuple(_MECHANISMS)

# Every subscript in the kernels below casts its index with _ix (unsigned): numba omits the
# negative-index wrap-around (idx < 0 -> idx + size) it emits for each signed index, and every
# index here is >= 0. This cut the instructions per event by 18 % (c.o.c.) and 14 % (c.o.s.),
# counted by callgrind (benchmarks/instructions.py), with bit-identical results (qtheory._policy).
from .._policy import _ix  # noqa: E402

# Capacity of a job type's FIFO (queued jobs of one type), a power of two passed to the
# kernel in its Configuration (read by _prepare, so a test can shrink it to reach the
# overflow check)
_FIFO_CAP = 1 << 16

#: what a run may keep: every statistic, or the time averages of Q and 1{Q = 0} only
STATISTICS = ("all", "mean")


def _alias_table(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table for sampling a type with one uniform."""
    k = p.size
    scaled = p * k
    prob = np.zeros(k)
    alias = np.zeros(k, dtype=np.int64)
    small = [i for i in range(k) if scaled[i] < 1.0]
    large = [i for i in range(k) if scaled[i] >= 1.0]
    while small and large:
        s, l = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = l
        scaled[l] = scaled[l] + scaled[s] - 1.0
        (small if scaled[l] < 1.0 else large).append(l)
    for i in small + large:
        prob[i] = 1.0
        alias[i] = i
    return prob, alias


@njit(cache=True, inline="always")
def _uniform_words(g0, g1, g2, g3):
    """:func:`qtheory._rng.uniform` (xoshiro256+, the same steps) on the generator's words held
    in variables: the uniform and the four new words."""
    result = g0 + g3
    shifted = g1 << _U17
    g2 ^= g0
    g3 ^= g1
    g1 ^= g2
    g0 ^= g3
    g2 ^= shifted
    g3 = (g3 << _U45) | (g3 >> _U19)
    return np.float64(result >> _U11) * _TWO_M53, g0, g1, g2, g3


@njit(cache=True, inline="always")
def _draw_type(x, prob, alias):
    k = prob.size
    y = x * k
    col = int(y)
    if col >= k:
        col = k - 1
    if y - col < prob[_ix(col)]:
        return col
    return alias[_ix(col)]


@njit(cache=True)
def _pick_busy(v, busy_list, n_busy, speeds, homogeneous):
    """The position in `busy_list` of the server that completes, `v` uniform on [0, busy rate)."""
    if homogeneous:
        idx = int(v / speeds[0])
        if idx >= n_busy:
            idx = n_busy - 1
        return idx
    acc = 0.0
    for i in range(n_busy):
        acc += speeds[_ix(busy_list[_ix(i)])]
        if v < acc:
            return i
    return n_busy - 1


@njit(cache=True, inline="always")
def _mark_busy(s, busy, busy_pos, busy_list, n_busy, busy_rate, speeds, keep_busy):
    """Server s starts working: into the busy list (and `busy`, if `keep_busy`). Returns the
    new (n_busy, busy_rate)."""
    if keep_busy:
        busy[_ix(s)] = True
    busy_pos[_ix(s)] = n_busy
    busy_list[_ix(n_busy)] = s
    return n_busy + 1, busy_rate + speeds[_ix(s)]


@njit(cache=True, inline="always")
def _mark_idle(s, busy, busy_pos, busy_list, n_busy, busy_rate, speeds, keep_busy):
    """Server s stops: out of the busy list (the last entry fills its place; and out of
    `busy`, if `keep_busy`). Returns the new (n_busy, busy_rate)."""
    if keep_busy:
        busy[_ix(s)] = False
    pos = busy_pos[_ix(s)]
    n_busy -= 1
    last = busy_list[_ix(n_busy)]
    busy_list[_ix(pos)] = last
    busy_pos[_ix(last)] = pos
    busy_pos[_ix(s)] = -1
    return n_busy, busy_rate - speeds[_ix(s)]


@njit(cache=True, inline="always")
def _close_interval(t, counts, acc_t, acc_e, last_t, last_e, clock_t, clock_e):
    """Add type t's count since its last change to its time and event integrals (before it changes)."""
    acc_t[_ix(t)] += counts[_ix(t)] * (clock_t - last_t[_ix(t)])
    acc_e[_ix(t)] += counts[_ix(t)] * (clock_e - last_e[_ix(t)])
    last_t[_ix(t)] = clock_t
    last_e[_ix(t)] = clock_e


class RunSums(NamedTuple):
    """The running sums of one run, by name (the kernel returns one; the C peer prints them
    in this order). ``time_*`` are integrals against the expected holding time, ``event_*``
    sums over recorded events, ``arrival_*`` sums over recorded arrivals; ``ratio_a``/``ratio_b``
    are the shares :math:`Q_a/Q` of the two tracked types (0 when Q = 0)."""

    time: float
    time_q: float
    time_q2: float
    time_ratio_a: float
    time_ratio_b: float
    events: float
    event_q: float
    event_q2: float
    event_ratio_a: float
    event_ratio_b: float
    final_total: float
    arrivals: float
    arrival_q: float
    arrival_q2: float
    arrival_ratio_a: float
    arrival_ratio_b: float


class BatchSums(NamedTuple):
    """Running time integrals at the end of each batch of recorded events: elapsed time,
    :math:`\\int Q`, time with Q = 0, and :math:`\\int Q_j` per type (shape (batches, types))."""

    time: np.ndarray
    q: np.ndarray
    empty: np.ndarray
    types: np.ndarray


class KernelSystem(NamedTuple):
    """The system as the kernel reads it (:func:`_kernel_system`): the servers of each job type
    (``type_servers[t, :type_deg[t]]``, padded with -1), the types of each server
    (``server_types[s, :server_deg[s]]``, padded with -1), Walker's alias table of the type
    probabilities (``prob``, ``alias``) and the server speeds."""

    type_servers: np.ndarray
    type_deg: np.ndarray
    server_types: np.ndarray
    server_deg: np.ndarray
    prob: np.ndarray
    alias: np.ndarray
    speeds: np.ndarray


class Configuration(NamedTuple):
    """What a run does: `mechanism` 1 if a job's replicas are dropped when it starts (c.o.s.,
    a record: the kernel compiles the mechanism's ``cancel_on_start`` in as a constant),
    0 if when one completes (c.o.c.; the start rule itself is spliced in by :func:`_kernel`), the total arrival rate,
    the events recorded after `warmup` events and `init_jobs` initial jobs (arrivals without
    departures), the two tracked types, the histogram range, the number of batches, the
    capacity (a power of two, :data:`_FIFO_CAP`) of a job type's FIFO, and whether to keep
    all statistics (else only the time averages of Q and of 1{Q = 0})."""

    mechanism: int
    lam_total: float
    n_events: int
    warmup: int
    init_jobs: int
    track_a: int
    track_b: int
    hist_max: int
    n_batches: int
    fifo_cap: int
    all_statistics: bool


class Outputs(NamedTuple):
    """What the kernel returns: its running sums (:class:`RunSums`), the time with Q = 0
    (``empty_time``), the time- and event-weighted histograms of Q, the time and event
    integrals of the type counts, the batch integrals (:class:`BatchSums`), and `code`: 0,
    1 if a job type's FIFO overflowed, 2 if the start rule returned a server the mechanism
    cannot start, 3 if the completion rule returned a type the server cannot take (the run
    stops there). Without
    ``all_statistics`` only ``sums.time``, ``sums.time_q``, ``sums.events``, ``empty_time``
    and the batches' ``time``, ``q`` and ``empty`` are computed."""

    sums: RunSums
    empty_time: float
    hist_t: np.ndarray
    hist_e: np.ndarray
    acc_t: np.ndarray
    acc_e: np.ndarray
    batches: BatchSums
    code: int


@njit(cache=True)
def _yes():
    return True


@njit(cache=True)
def _no():
    return False


def _placeholder(name: str):
    """A name the template calls where :func:`_kernel` splices in a constant switch (``_yes`` or
    ``_no``, :mod:`qtheory._splice`); the template itself is never run, so it is not callable."""
    def placeholder():
        raise NotImplementedError(f"{name} is spliced out of the kernel template")

    placeholder.__name__ = placeholder.__qualname__ = name
    return placeholder


_all_statistics = _placeholder("_all_statistics")
_equal_speeds = _placeholder("_equal_speeds")
_equal_types = _placeholder("_equal_types")
_cancel_on_start = _placeholder("_cancel_on_start")
_rule_draws = _placeholder("_rule_draws")
_rule_reads_busy = _placeholder("_rule_reads_busy")
_completion_draws = _placeholder("_completion_draws")
_completion_checked = _placeholder("_completion_checked")
_complete = _placeholder("_complete")


def _rule_takes(rule, name):
    """Whether the start or completion rule `rule` takes the template's argument `name`."""
    return name in inspect.signature(getattr(rule, "py_func", rule)).parameters


def _kernel(mechanism, all_statistics=True, equal_speeds=False, equal_types=False):
    """The compiled kernel of `mechanism`: :func:`_kernel_simulate` with its start rule (``rule``)
    in place of the dispatch point (:mod:`qtheory._splice`), and two of its switches made
    constants, so that the compiler drops the code they turn off: whether it keeps every
    statistic (else the mean only) and whether the servers' speeds are equal (then the
    total rate is a table; a kernel compiled for equal speeds must get equal speeds).
    Turned into constants, the switches made c.o.c. and c.o.s. 7-9 % faster than as
    fields of the Configuration.
    The mechanism's own switches are constants too: whether a job's replicas are dropped
    when it starts, whether its start rule draws from the generator (else the generator's
    words stay in variables around it) or reads which servers are busy (else nothing keeps
    that array); and, with `equal_types` (every type equally likely, as Walker's table
    then says: every ``prob`` 1), the type is the integer part of a uniform on [0, k).
    These made c.o.c. and c.o.s. about 3 % faster (events per processor second against
    benchmarks/independent/redundancy.c). The mechanism's completion rule (``completion``,
    :mod:`qtheory.redundancy.completion`) is spliced in at a completion, with the same two
    switches for the generator, and a check of its answer unless it is the paper's first
    come, first served (:func:`~qtheory.redundancy.completion.oldest_first`)."""
    completion = mechanism.completion
    return _splice.specialise(_kernel_simulate, mechanism.rule,
                              {"_all_statistics": _yes if all_statistics else _no,
                               "_equal_speeds": _yes if equal_speeds else _no,
                               "_equal_types": _yes if equal_types else _no,
                               "_cancel_on_start": _yes if mechanism.cancel_on_start else _no,
                               "_rule_draws": _yes if _rule_takes(mechanism.rule, "rng") else _no,
                               "_rule_reads_busy": _yes if _rule_takes(mechanism.rule, "busy") else _no,
                               "_completion_draws": _yes if _rule_takes(completion, "rng") else _no,
                               "_completion_checked": _no if completion is oldest_first else _yes},
                              named={"_complete": completion})


def _kernel_simulate(system, config, rng_state):
    """One run (a template, compiled per mechanism and switches by :func:`_kernel`, run by
    :func:`_run_kernel`) of the
    :class:`KernelSystem` `system` as `config` (:class:`Configuration`) says, from the generator `rng_state`; returns :class:`Outputs`. `batches` holds the running time
    integrals at the end of each of `n_batches` equal blocks of recorded events (for
    batch-means standard errors).

    The state is one FIFO per job type of the arrival stamps of its queued jobs (c.o.c.:
    every job in the system; c.o.s.: the waiting jobs). The oldest job a server is
    compatible with is the oldest of the heads of its types' FIFOs, and the job a
    completion removes (c.o.c.) or starts (c.o.s.) is such a head, so an event costs O(d)
    without a job table or deleted entries. Compiled without ``all_statistics`` (for a
    `config` that asks for the mean only), it keeps only the time averages of Q and of
    1{Q = 0} and their batch integrals."""
    type_servers = system.type_servers
    type_deg = system.type_deg
    server_types = system.server_types
    server_deg = system.server_deg
    prob = system.prob
    alias = system.alias
    speeds = system.speeds
    lam_total = config.lam_total
    n_events = config.n_events
    warmup = config.warmup
    init_jobs = config.init_jobs
    track_a = config.track_a
    track_b = config.track_b
    hist_max = config.hist_max
    n_batches = config.n_batches
    fifo_cap = config.fifo_cap
    all_statistics = _all_statistics()
    # the generator's four words in local variables (registers), written to the array `rng`
    # only for a start rule that draws
    rng = rng_state.copy()
    g0, g1, g2, g3 = rng[0], rng[1], rng[2], rng[3]
    n = speeds.size
    k = type_deg.size
    homogeneous = _equal_speeds()
    equal_types = _equal_types()
    cancel_on_start = _cancel_on_start()
    rule_draws = _rule_draws()
    keep_busy = _rule_reads_busy()
    completion_draws = _completion_draws()
    completion_checked = _completion_checked()
    # with equal speeds the total rate and its inverse are tables indexed by the number of
    # busy servers (with speed 1, exactly the sums and quotients the running rate gives)
    rate_of = np.empty(n + 1)
    inv_rate_of = np.empty(n + 1)
    for b in range(n + 1):
        rate_of[_ix(b)] = lam_total + b * speeds[0]
        inv_rate_of[_ix(b)] = 1.0 / rate_of[_ix(b)]
    inv_lam_total = 1.0 / lam_total
    inv_speed = 1.0 / speeds[0]
    fifo_mask = fifo_cap - 1
    # the servers of each type and the types of each server, each row ended by -1 (a column
    # more than the system's): loops that stop at the -1 have no trip count, which LLVM
    # would otherwise unroll 8 times behind a set-up of several instructions per loop
    servers_of = np.full((k, type_servers.shape[1] + 1), -1, dtype=np.int64)
    servers_of[:, : type_servers.shape[1]] = type_servers
    types_of = np.full((n, server_types.shape[1] + 1), -1, dtype=np.int64)
    types_of[:, : server_types.shape[1]] = server_types
    # fifo is read only between head and tail, where written before: left uninitialised,
    # it costs no page faults beyond the pages a run touches
    fifo = np.empty((k, fifo_cap), dtype=np.int64)
    head = np.zeros(k, dtype=np.int64)
    tail = np.zeros(k, dtype=np.int64)
    live = np.zeros(n, dtype=np.int64)  # c.o.c.: the server's types with jobs (busy iff > 0)
    busy = np.zeros(n, dtype=np.bool_)
    busy_list = np.zeros(n, dtype=np.int64)
    busy_pos = np.full(n, -1, dtype=np.int64)
    n_busy = 0
    busy_rate = 0.0
    idle_since = np.zeros(n, dtype=np.int64)
    serving = np.full(n, -1, dtype=np.int64)  # c.o.s.: the type of the job in service
    counts = np.zeros(k, dtype=np.int64)
    total = 0
    next_stamp = 0
    code = 0

    hist_t = np.zeros(hist_max + 1)
    hist_e = np.zeros(hist_max + 1)
    acc_t = np.zeros(k)
    acc_e = np.zeros(k)
    last_t = np.zeros(k)
    last_e = np.zeros(k)
    # sums of the time averages (weights w = 1 / rate), of the event averages and of the
    # arrival averages: Q, Q^2 and the shares Q_a / Q, Q_b / Q of the tracked types. Kept in
    # local variables (registers), not in an array, in the loop
    t_q = t_q2 = t_ra = t_rb = t_empty = 0.0
    e_q = e_q2 = e_ra = e_rb = 0.0
    a_n = a_q = a_q2 = a_ra = a_rb = 0.0
    clock_t = 0.0  # accumulated expected holding time (recorded part)
    clock_e = 0.0  # recorded events
    recording = False
    # batch b ends after floor((b + 1) n_events / n_batches) recorded events; at its end the
    # running integrals are copied (the per-type ones completed to the current clock
    # without closing the intervals, so the totals keep their arithmetic)
    b_clock = np.zeros(n_batches)
    b_q = np.zeros(n_batches)
    b_empty = np.zeros(n_batches)
    b_types = np.zeros((n_batches, k))
    batch = 0
    batch_end = float(n_events // n_batches)

    n_steps = init_jobs + warmup + n_events
    # three stretches of steps, each a loop of its own, so that no step tests whether it
    # places an initial job or starts the recording: the initial jobs, the warm-up, the
    # recorded events
    for stretch in range(3):
        in_init = stretch == 0
        recording = stretch == 2
        if stretch == 0:
            first, last = 0, init_jobs
        elif stretch == 1:
            first, last = init_jobs, init_jobs + warmup
        else:
            first, last = init_jobs + warmup, n_steps
            for j in range(k):
                last_t[_ix(j)] = 0.0
                last_e[_ix(j)] = 0.0
        for step in range(first, last):
            if homogeneous:
                rate = rate_of[_ix(n_busy)]
                w = inv_rate_of[_ix(n_busy)]
            else:
                rate = lam_total + busy_rate
                w = 1.0 / rate
            if recording:
                t_q += w * total
                if total == 0:
                    t_empty += w
                clock_t += w
                if all_statistics:
                    qi = total if total < hist_max else hist_max
                    hist_t[_ix(qi)] += w
                    t_q2 += w * total * total
                    if total > 0:
                        t_ra += w * counts[_ix(track_a)] / total
                        t_rb += w * counts[_ix(track_b)] / total
            u, g0, g1, g2, g3 = _uniform_words(g0, g1, g2, g3)
            if in_init or u * rate < lam_total:
                if in_init:
                    x, g0, g1, g2, g3 = _uniform_words(g0, g1, g2, g3)
                else:
                    x = (u * rate) * inv_lam_total
                if equal_types:
                    t = int(x * k)
                    if t >= k:
                        t = k - 1
                else:
                    t = _draw_type(x, prob, alias)
                if all_statistics:
                    if recording:
                        _close_interval(t, counts, acc_t, acc_e, last_t, last_e, clock_t, clock_e)
                    counts[_ix(t)] += 1
                total += 1
                deg = type_deg[_ix(t)]
                # the mechanism's start rule (spliced in): the idle server that starts the job, or -1
                if rule_draws:
                    rng[0], rng[1], rng[2], rng[3] = g0, g1, g2, g3
                best = decide(rng, t, deg, type_servers, busy, idle_since)
                if rule_draws:
                    g0, g1, g2, g3 = rng[0], rng[1], rng[2], rng[3]
                if best >= 0 and (not cancel_on_start or best >= n or (keep_busy and busy[_ix(best)])):
                    # an action the mechanism cannot take: a server under cancel-on-completion (its
                    # jobs always join their type's queue), one that does not exist, or a busy one
                    code = 2
                    break
                if best >= 0:
                    if all_statistics:
                        serving[_ix(best)] = t
                    if cancel_on_start:
                        # c.o.s. takes a server out of the busy list by its position there: no busy_pos
                        if keep_busy:
                            busy[_ix(best)] = True
                        busy_list[_ix(n_busy)] = best
                        n_busy += 1
                        busy_rate += speeds[_ix(best)]
                    else:
                        n_busy, busy_rate = _mark_busy(best, busy, busy_pos, busy_list, n_busy, busy_rate, speeds,
                                                       keep_busy)
                else:
                    # the job waits (c.o.s.) or is served by all its servers at once (c.o.c.): it
                    # joins its type's FIFO
                    if tail[_ix(t)] - head[_ix(t)] >= fifo_cap:
                        code = 1
                        break
                    fifo[_ix(t), _ix(tail[_ix(t)] & fifo_mask)] = next_stamp
                    next_stamp += 1
                    if not cancel_on_start and tail[_ix(t)] == head[_ix(t)]:
                        # the type had no job: each of its servers gains one to work on
                        i = 0
                        s = servers_of[_ix(t), 0]
                        while s >= 0:
                            live[_ix(s)] += 1
                            if live[_ix(s)] == 1:
                                n_busy, busy_rate = _mark_busy(s, busy, busy_pos, busy_list, n_busy, busy_rate, speeds,
                                                               keep_busy)
                            i += 1
                            s = servers_of[_ix(t), _ix(i)]
                    tail[_ix(t)] += 1
                if recording and all_statistics:
                    # the count an arriving job finds, itself included
                    a_n += 1.0
                    a_q += total
                    a_q2 += total * total
                    a_ra += counts[_ix(track_a)] / total
                    a_rb += counts[_ix(track_b)] / total
            else:
                if homogeneous:
                    # _pick_busy's first branch written in the loop: called, it cost 66 of the 296
                    # instructions per event of c.o.s. (callgrind), the arrays passed to it
                    idx = int((u * rate - lam_total) * inv_speed)
                    if idx >= n_busy:
                        idx = n_busy - 1
                else:
                    idx = _pick_busy(u * rate - lam_total, busy_list, n_busy, speeds, homogeneous)
                s = busy_list[_ix(idx)]
                # the mechanism's completion rule (spliced in): the type whose oldest job server s
                # takes (c.o.s.: starts next; c.o.c.: completes), -1 if none of its types has a job
                # (first come, first served: the oldest head of its types' FIFOs)
                if completion_draws:
                    rng[0], rng[1], rng[2], rng[3] = g0, g1, g2, g3
                oldest = _complete(rng, s, types_of, head, tail, fifo, fifo_mask)
                if completion_draws:
                    g0, g1, g2, g3 = rng[0], rng[1], rng[2], rng[3]
                if completion_checked:
                    # a rule other than first come, first served: its type must be one of the
                    # server's with a job, and -1 only when none has one
                    has_job = False
                    found = False
                    i = 0
                    j = types_of[_ix(s), 0]
                    while j >= 0:
                        if head[_ix(j)] != tail[_ix(j)]:
                            has_job = True
                            if j == oldest:
                                found = True
                        i += 1
                        j = types_of[_ix(s), _ix(i)]
                    if (oldest >= 0 and not found) or (oldest < 0 and has_job):
                        code = 3
                        break
                if cancel_on_start:
                    # the server's job leaves; it starts the job its completion rule took, if any
                    if all_statistics:
                        t = serving[_ix(s)]
                        if recording:
                            _close_interval(t, counts, acc_t, acc_e, last_t, last_e, clock_t, clock_e)
                        counts[_ix(t)] -= 1
                    total -= 1
                    if oldest >= 0:
                        head[_ix(oldest)] += 1
                        if all_statistics:
                            serving[_ix(s)] = oldest
                    else:
                        if all_statistics:
                            serving[_ix(s)] = -1
                        idle_since[_ix(s)] = step
                        if keep_busy:
                            busy[_ix(s)] = False
                        # the last busy server fills s's place in the list
                        n_busy -= 1
                        busy_list[_ix(idx)] = busy_list[_ix(n_busy)]
                        busy_rate -= speeds[_ix(s)]
                        if n_busy == 0:
                            busy_rate = 0.0
                else:
                    # the oldest job of server s completes and leaves with all its replicas
                    t = oldest
                    head[_ix(t)] += 1
                    if all_statistics:
                        if recording:
                            _close_interval(t, counts, acc_t, acc_e, last_t, last_e, clock_t, clock_e)
                        counts[_ix(t)] -= 1
                    total -= 1
                    if head[_ix(t)] == tail[_ix(t)]:
                        # the type has no job left: each of its servers loses one to work on
                        i = 0
                        m = servers_of[_ix(t), 0]
                        while m >= 0:
                            live[_ix(m)] -= 1
                            if live[_ix(m)] == 0:
                                n_busy, busy_rate = _mark_idle(m, busy, busy_pos, busy_list, n_busy, busy_rate, speeds,
                                                               keep_busy)
                            i += 1
                            m = servers_of[_ix(t), _ix(i)]
                        if n_busy == 0:
                            busy_rate = 0.0
            if recording:
                if all_statistics:
                    qi = total if total < hist_max else hist_max
                    hist_e[_ix(qi)] += 1.0
                    e_q += total
                    e_q2 += total * total
                    if total > 0:
                        e_ra += counts[_ix(track_a)] / total
                        e_rb += counts[_ix(track_b)] / total
                clock_e += 1.0
                if clock_e == batch_end:
                    b_clock[_ix(batch)] = clock_t
                    b_q[_ix(batch)] = t_q
                    b_empty[_ix(batch)] = t_empty
                    if all_statistics:
                        for j in range(k):
                            b_types[_ix(batch), _ix(j)] = acc_t[_ix(j)] + counts[_ix(j)] * (clock_t - last_t[_ix(j)])
                    batch += 1
                    if batch < n_batches:
                        batch_end = float(((batch + 1) * n_events) // n_batches)
        if code != 0:
            break
    for j in range(k):
        acc_t[_ix(j)] += counts[_ix(j)] * (clock_t - last_t[_ix(j)])
        acc_e[_ix(j)] += counts[_ix(j)] * (clock_e - last_e[_ix(j)])
    sums = RunSums(clock_t, t_q, t_q2, t_ra, t_rb, clock_e, e_q, e_q2, e_ra, e_rb, float(total),
                   a_n, a_q, a_q2, a_ra, a_rb)
    return Outputs(sums, t_empty, hist_t, hist_e, acc_t, acc_e, BatchSums(b_clock, b_q, b_empty, b_types), code)


@dataclass(frozen=True)
class SimulationResult(RunRecord):
    """Averages of one simulation run.

    Attributes
    ----------
    mean_jobs, var_jobs : float
        Time-averaged mean and variance of the total number of jobs Q.
    mean_jobs_se : float
        Batch-means standard error of `mean_jobs` (:func:`qtheory.stats.batch_means` over
        `n_batches` equal blocks of recorded events).
    empty_probability, empty_probability_se : float
        Fraction of time with Q = 0 and its batch-means standard error.
    ratio_first, ratio_last : float
        Time averages of :math:`Q_{S}/Q \\cdot 1\\{Q>0\\}` for the tracked types (default the
        first and the last type, :math:`Q_1` and :math:`Q_M` of Table 1).
    type_means, type_means_se : ndarray
        Time-averaged number of jobs of each type (waiting + in service), and their
        batch-means standard errors.
    count_distribution : ndarray
        Time-weighted distribution of Q on 0..hist_max (last bin: >= hist_max).
    event_mean_jobs, event_var_jobs, event_ratio_first, event_ratio_last, event_type_means, event_count_distribution
        The same averaged over events instead of time.
    arrival_mean_jobs, arrival_var_jobs, arrival_ratio_first, arrival_ratio_last : float
        Mean and variance of Q and the two shares just after each arrival, the arriving
        job included (by PASTA, Q is then the time-stationary count plus one).
    events : int
        Recorded events (arrivals + service completions, Appendix E).
    wall_time : float
        Seconds spent in the kernel (the whole run: initial jobs and warm-up included).
    n_batches : int
        Number of batches behind the standard errors.
    """

    mean_jobs: float
    var_jobs: float
    ratio_first: float
    ratio_last: float
    type_means: np.ndarray
    count_distribution: np.ndarray
    event_mean_jobs: float
    event_var_jobs: float
    event_ratio_first: float
    event_ratio_last: float
    event_type_means: np.ndarray
    event_count_distribution: np.ndarray
    arrival_mean_jobs: float
    arrival_var_jobs: float
    arrival_ratio_first: float
    arrival_ratio_last: float
    events: int
    mean_jobs_se: float = math.nan
    type_means_se: np.ndarray | None = None
    empty_probability: float = math.nan
    empty_probability_se: float = math.nan
    wall_time: float = math.nan
    n_batches: int = 0



def simulate(system: RedundancySystem, lam: float, mechanism="cos", *, n_events: int,
             seed: int | np.random.SeedSequence, warmup_events: int = 0, initial_scale: float = 0.0,
             tracked=(0, -1), hist_max: int = 400, n_batches: int | None = None,
             statistics: str = "all") -> SimulationResult:
    """Simulate `n_events` events (arrivals + completions) of a redundancy mechanism.

    The papers' simulators share one shape: the system, its size (here the arrival rate per
    server: the system fixes N), the policy (here the mechanism), then keywords: how long
    (`n_events`), the warm-up (`warmup_events`, counted in events as its name says), the
    `seed`, and options.

    Parameters
    ----------
    lam : float
        Arrival rate per server (total rate :math:`N\\lambda`); must satisfy (1).
    mechanism : str or Mechanism
        A registered mechanism by name (``"coc"``, ``"cos"``, ...) or an object of
        :mod:`qtheory.redundancy.mechanisms`.
    n_events : int
        Events recorded (after the warm-up).
    seed : int or SeedSequence
        Required. Seed of the kernel's generator (through :func:`qtheory.runtime.kernel_state`)
        and of the initial condition (:func:`_initial_stream`); a SeedSequence is read, never
        spawned from, so the same one gives the same run every time.
    warmup_events : int
        Events simulated before recording starts.
    initial_scale : float
        Appendix E's initial condition: start with ``floor(initial_scale * Exp(1))`` jobs
        of i.i.d. types, placed as arrivals without departures (0: start empty; the paper
        uses :math:`(1-\\lambda/\\mu)^{-1}`).
    tracked : pair of int
        Types whose share :math:`Q_S/Q` is averaged.
    hist_max : int
        Histogram range of Q.
    n_batches : int, optional
        Blocks of recorded events behind the batch-means standard errors, 2 to `n_events`
        (default ``min(32, n_events)``; each block should be long against the relaxation
        time of Q). A run of one event has no standard errors (NaN).
    statistics : {"all", "mean"}
        Every statistic of :class:`SimulationResult`, or only ``mean_jobs``,
        ``empty_probability`` and their standard errors (the rest NaN), at a lower cost per
        event.
    """
    system_k, config, kstate = _prepare(system, lam, n_events, mechanism, seed, warmup_events, initial_scale, tracked,
                                        hist_max, n_batches, statistics)
    mech = as_mechanism(mechanism)                                          # checked by _prepare
    start = time.perf_counter()
    out = _run_kernel(mech, system_k, config, kstate)
    wall = time.perf_counter() - start
    if out.code == 1:
        raise ParameterError(f"the queue of a job type overflowed (more than {config.fifo_cap} jobs): the system "
                             "is too congested to simulate; lower `lam`")
    if out.code == 3:
        raise RuleError(f"the completion rule of mechanism {mech.name!r} ({_splice.location(mech.completion)}) "
                        "returned a job type the server cannot take: it must return one of the server's types "
                        "with a job, and -1 only when none of them has one")
    if out.code == 2:
        raise RuleError(f"the start rule of mechanism {mech.name!r} ({_splice.location(mech.rule)}) returned a "
                        "server it cannot start: "
                        + ("under cancel-on-completion a job always joins its type's queue, so the rule must "
                           "return -1" if not mech.cancel_on_start else
                           "not one of the system's servers, or a busy one (it must return an idle compatible "
                           "server or -1)"))
    return _result(out, wall, config.all_statistics)


def _prepare(system: RedundancySystem, lam, n_events, mechanism, seed, warmup, initial_scale, tracked, hist_max,
             n_batches, statistics="all"):
    """The kernel's arguments for a run (see :func:`simulate`), after checking them:
    ``(system, config, rng_state)``, a :class:`KernelSystem`, a :class:`Configuration` and
    the generator's state. The initial number of jobs is drawn here, from its own stream."""
    mechanism = as_mechanism(mechanism)
    system = mechanism.system_for(system)     # the system the mechanism runs (redundancy-d: its d-subsets)
    lam = check_arrival_rate(lam)
    require_stable(system, lam)
    n_events = check_integer("n_events", n_events, low=1)
    warmup = check_integer("warmup_events", warmup, low=0)
    hist_max = check_integer("hist_max", hist_max, low=1)
    n_batches = (min(32, n_events) if n_batches is None
                 else check_integer("n_batches", n_batches, low=2, high=n_events))
    initial_scale = check_real("initial_scale", initial_scale, low=0.0)
    if statistics not in STATISTICS:
        raise ParameterError(f"`statistics` must be one of {', '.join(map(repr, STATISTICS))} (got {statistics!r})")
    k = system.n_types
    a, b = (check_integer("tracked[0]", tracked[0], low=-k, high=k - 1) % k,
            check_integer("tracked[1]", tracked[1], low=-k, high=k - 1) % k)
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(check_integer("seed", seed, low=0))
    kstate = kernel_state(ss)
    init_rng = np.random.default_rng(_initial_stream(ss))
    init_jobs = int(np.floor(initial_scale * init_rng.exponential())) if initial_scale > 0 else 0
    config = Configuration(mechanism=int(mechanism.cancel_on_start), lam_total=system.n_servers * lam,
                           n_events=n_events, warmup=warmup, init_jobs=init_jobs, track_a=a, track_b=b, hist_max=hist_max,
                           n_batches=n_batches, fifo_cap=_FIFO_CAP,
                           all_statistics=statistics == "all")
    return _kernel_system(system), config, kstate


def _run_kernel(mechanism, system: KernelSystem, config: Configuration, rng_state) -> Outputs:
    """One run of the kernel of `mechanism` compiled for `config` (``all_statistics``) and for
    the speeds of `system` (equal or not): the way every caller runs a kernel."""
    equal_speeds = bool(np.all(system.speeds == system.speeds[0]))
    # Walker's table of equal probabilities has every prob 1 (and alias[i] = i): its draw is
    # then the integer part of k x (exactly: y - col < 1 always)
    equal_types = bool(np.all(system.prob == 1.0))
    kernel = _kernel(mechanism, config.all_statistics, equal_speeds, equal_types)
    with _splice.rule_errors(kernel):    # a rule that does not compile, or indexes out of range: named
        return kernel(system, config, rng_state)


def _initial_stream(seed_sequence: np.random.SeedSequence) -> np.random.SeedSequence:
    """The seed of the initial condition: the first child of `seed_sequence`, built from its entropy
    and spawn key without calling its ``spawn``, which would change the caller's object (its
    ``n_children_spawned``) and give a different child on the next call."""
    return np.random.SeedSequence(seed_sequence.entropy, spawn_key=(*seed_sequence.spawn_key, 0),
                                  pool_size=seed_sequence.pool_size)


def _kernel_system(system: RedundancySystem) -> KernelSystem:
    """The kernel's view of a system (:class:`KernelSystem`): servers of each type and types
    of each server (padded with -1, in increasing order), their numbers, Walker's alias table
    of the type probabilities, speeds."""
    k, n = system.n_types, system.n_servers
    dmax = max(len(t) for t in system.types)
    type_servers = np.full((k, dmax), -1, dtype=np.int64)
    for j, t in enumerate(system.types):
        type_servers[j, : len(t)] = t
    type_deg = np.array([len(t) for t in system.types], dtype=np.int64)
    of_server = [[j for j, t in enumerate(system.types) if s in t] for s in range(n)]
    server_deg = np.array([len(js) for js in of_server], dtype=np.int64)
    server_types = np.full((n, max(1, int(server_deg.max()))), -1, dtype=np.int64)
    for s, js in enumerate(of_server):
        server_types[s, : len(js)] = js
    prob, alias = _alias_table(np.asarray(system.probabilities, dtype=float))
    return KernelSystem(type_servers=type_servers, type_deg=type_deg, server_types=server_types,
                        server_deg=server_deg, prob=prob, alias=alias,
                        speeds=np.ascontiguousarray(system.speeds, dtype=float))


def _result(out: Outputs, wall: float, all_statistics: bool = True) -> SimulationResult:
    """The averages and standard errors of a run from the kernel's :class:`Outputs` (the
    fields it did not compute NaN, if it kept only the mean)."""
    sums, hist_t, hist_e, acc_t, acc_e, batches = out.sums, out.hist_t, out.hist_e, out.acc_t, out.acc_e, out.batches
    wt, ne = sums.time, sums.events
    mean_t = sums.time_q / wt
    mean_e = sums.event_q / ne
    # averages after arrivals; a short run may record no arrival, and then they are
    # undefined (nan), without a division warning
    na = sums.arrivals
    arrival = (np.array([sums.arrival_q, sums.arrival_q2, sums.arrival_ratio_a, sums.arrival_ratio_b]) / na
               if na > 0 else np.full(4, math.nan))
    empty = out.empty_time / wt
    if batches.time.size >= 2:
        _, mean_se = batch_means(batches.q, batches.time)
        _, empty_se = batch_means(batches.empty, batches.time)
        _, types_se = batch_means(batches.types, batches.time)
    else:
        mean_se = empty_se = math.nan
        types_se = np.full(acc_t.size, math.nan)
    result = SimulationResult(
        mean_jobs=float(mean_t), var_jobs=float(sums.time_q2 / wt - mean_t ** 2),
        ratio_first=float(sums.time_ratio_a / wt), ratio_last=float(sums.time_ratio_b / wt),
        type_means=acc_t / wt, count_distribution=hist_t / wt,
        event_mean_jobs=float(mean_e), event_var_jobs=float(sums.event_q2 / ne - mean_e ** 2),
        event_ratio_first=float(sums.event_ratio_a / ne), event_ratio_last=float(sums.event_ratio_b / ne),
        event_type_means=acc_e / ne, event_count_distribution=hist_e / ne,
        arrival_mean_jobs=float(arrival[0]), arrival_var_jobs=float(arrival[1] - arrival[0] ** 2),
        arrival_ratio_first=float(arrival[2]), arrival_ratio_last=float(arrival[3]),
        events=int(ne), mean_jobs_se=float(mean_se), type_means_se=types_se,
        empty_probability=float(empty), empty_probability_se=float(empty_se), wall_time=wall,
        n_batches=int(batches.time.size))
    if all_statistics:
        return result
    # the kernel kept the mean only: every other statistic is unknown, not zero
    return dataclasses.replace(result, **{
        name: (np.full_like(value, math.nan) if isinstance(value, np.ndarray) else math.nan)
        for name, value in ((f.name, getattr(result, f.name)) for f in dataclasses.fields(result))
        if name not in _MEAN_ONLY})


#: the fields of a result that a run with ``statistics="mean"`` computes
_MEAN_ONLY = ("mean_jobs", "mean_jobs_se", "empty_probability", "empty_probability_se", "events", "wall_time",
              "n_batches")


def simulate_replication(seed_sequence: np.random.SeedSequence, system: RedundancySystem, lam: float,
                         n_events: int, mechanism: str = "cos", warmup_events: int = 0, initial_scale: float = 0.0,
                         hist_max: int = 400) -> SimulationResult:
    """:func:`simulate` with the seed first, for :func:`qtheory.runtime.replicate`."""
    return simulate(system, lam, n_events=n_events, mechanism=mechanism, seed=seed_sequence, warmup_events=warmup_events,
                    initial_scale=initial_scale, hist_max=hist_max)
