"""Simulators of local JSQ(d) (Sec. 2.2) and GWSQ(d) (Algorithm 1).

Both simulate the N-th system exactly (the continuous-time Markov chain) and record on a time
grid, for every server type m, the occupancy ``q_{m,l}^N(t)`` (l = 1..L), the mean queue length
and the mean squared queue length (the latter two exactly, whatever L).

* Local JSQ(d): an arrival at dispatcher i samples d distinct servers uniformly from
  its neighbourhood N(i) and joins the shortest; ties are broken uniformly at random
  (the sample is drawn in uniformly random order and the first shortest wins). If
  ``delta_i < d`` the task joins a uniform neighbour; d = 1 is random routing.
* GWSQ(d) (Algorithm 1, with the sign of :math:`x_{k,m,\\ell}` corrected to
  ``(v_m p_{k,m} / delta_k)(q_{m,l} - q_{m,l+1})``): a cluster-k arrival draws d
  candidates from the global weighted queue-length distribution of cluster k and
  joins a server of the smallest drawn length, choosing the type in proportion to the
  draws at that length. We draw the d candidates independently (with replacement): a
  candidate is a type m with probability ``v_m p_{k,m} / delta_k`` and then a uniform
  server of that type, and the task joins the first shortest candidate. The paper's
  hypergeometric formula uses the non-integer "counts" ``N x_{k,m,l}`` and is not a
  probability distribution; the two agree to :math:`O(d^2 / N)`, and with independent draws the
  drift of the occupancy is exactly the right side of (3.7) for every N.

The chain is run by uniformisation (see :func:`_kernel_template`): a Poisson number of steps
between recording times, each step one uniform that is an arrival (its dispatcher and the
rule's uniform ``u`` read from the same uniform) or the service slot of one server (nothing
happens if it is idle). No holding time is drawn and no list of busy servers is kept; the
steps that change nothing are a fraction (1 - rho) / (1 + rho) of all at load rho.
Queue lengths are kept in 8 or 16 bits where they fit from :math:`N = 2^{16}` servers on: at
:math:`N = 10^6` the per-server data then stay in the processor's caches. For policies that read
neighbour lists, once the lists hold 1 MiB or more, the dispatchers and uniforms ``u`` of the next
arrivals are drawn in advance, so that the list entries their rules will read can be prefetched
(the policy's ``lookahead``). All these ways are exact; the lookahead uses the generator
differently, so a seed gives other (equally distributed) numbers with it than without.
"""

from __future__ import annotations

import time
from math import lgamma
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import ParameterError
from .._rng import uniform
from ..runtime import RunRecord, kernel_state
from ..validation import check_array, check_integer, check_seed
from .. import _memory, _splice
from .._prefetch import prefetch
from .graphs import CompatibilityGraph
from .policies import REGISTRY, Policy, as_policy, decide, prefetch_list, rule_of  # noqa: F401 (decide: the template's)
from .model import LocalitySystem, check_tails

__all__ = ["SimulationResult", "simulate", "simulate_jsqd", "simulate_gwsq", "iid_initial_state",
           "exact_initial_state"]

# Every subscript of the kernel template below (and of the policy rules spliced into it) casts
# its index with _ix (unsigned): numba then omits the negative-index wrap-around
# (idx < 0 -> idx + size) it emits for each signed index; every index here is >= 0 (as in
# qtheory.redundancy.simulation and the U kernel; qtheory._policy).
from .._policy import _ix  # noqa: E402



def _kernel(policy):
    """The compiled simulation kernel of `policy` (a registered :class:`~qtheory.locality.policies.Policy`)."""
    return _splice.specialise(_kernel_template, policy.rule, {"touch": policy.lookahead or prefetch_list})


def touch(params, i, u, offset, degree, neighbors):
    """The lookahead point of the kernel template: replaced by the policy's
    :attr:`~qtheory.locality.policies.Policy.lookahead` (not callable itself)."""
    raise NotImplementedError("touch is a placeholder spliced out of the kernel template")


class Graph(NamedTuple):
    """The compatibility graph as the kernel reads it (narrow copies, see :func:`_prepare`)."""

    #: dispatcher ``i``'s compatible servers are ``neighbors[offset[i]:offset[i] + degree[i]]``
    offset: np.ndarray
    degree: np.ndarray
    neighbors: np.ndarray
    #: cluster of each dispatcher, type of each server
    dispatcher_cluster: np.ndarray
    server_type: np.ndarray


class Types(NamedTuple):
    """The server types: the servers of type ``m`` are ``type_members[type_first[m]:type_first[m]
    + type_size[m]]``, served at rate ``service_rates[m]``."""

    type_members: np.ndarray
    type_first: np.ndarray
    type_size: np.ndarray
    service_rates: np.ndarray


class Configuration(NamedTuple):
    """Rates, recording and the kernel's modes (see :func:`_kernel_template`)."""

    #: arrival rate per dispatcher
    arrival_rate: float
    #: recording times (the run starts at the first and stops at the last) and levels recorded
    t_grid: np.ndarray
    levels: int
    #: largest queue length ``Work.state``'s type holds (set per width by :func:`_run_kernel`)
    cap: int
    #: servers numbered type by type
    sorted_types: bool
    #: the statistics are those of the state counted at each recording time, rather than kept
    #: up to date at every event (chosen by :func:`_prepare` when the counting is the cheaper)
    scan: bool
    #: -1: the outputs hold the statistics at every recording time; g >= 0: one row, their mean
    #: over the recording times g, g + 1, ... (no array the size of the grid is kept)
    average_from: int


class Work(NamedTuple):
    """Arrays the kernel updates: the queue lengths (``state``, of the width being tried) and
    the dispatchers of the arrivals drawn ahead (``ahead``; empty without lookahead)."""

    state: np.ndarray
    ahead: np.ndarray


class Outputs(NamedTuple):
    """What the kernel returns: the recorded occupancy, mean and mean square per type (a row per
    recording time, or one row of their means: ``Configuration.average_from``), and the number of
    events (-1 if a queue outgrew the width of ``state``)."""

    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    mean_square: np.ndarray
    events: int


def _kernel_template(params, st, rng_state, graph, types, config, work):
    """One run. A template: :func:`_kernel` compiles it once per policy with the policy's
    rule in place of ``decide`` (:mod:`qtheory._splice`). Besides the policy's `params`, its
    state `st` (an int64 array the rule may update, :meth:`Policy.initial_state`) and the
    generator, it takes four bundles built by :func:`_prepare`: `graph` (:class:`Graph`),
    `types` (:class:`Types`), `config` (:class:`Configuration`) and `work` (:class:`Work`),
    whose fields it unpacks under their own names, the names the rule takes. It returns
    :class:`Outputs`.

    The chain is simulated by uniformisation at the constant rate ``Lambda = lambda W +
    sum_m u_m |V_m|``: between two recording times t_{g-1} and t_g it takes a Poisson
    (``Lambda (t_g - t_{g-1})``) number of steps, each of one uniform ``r`` on [0, Lambda):
    an arrival if ``r < lambda W``, else a service slot, one server of rate u_m each (the
    server ``int((r - lambda W - (slots of the types before m)) / u_m)`` of type m); a slot
    of an idle server is a step that changes nothing. The state at each recording time then
    has the law of the chain's (no holding times are drawn), and the steps before t_g do not
    depend on the recording times after it. An arrival's uniform gives its dispatcher (the
    integer part of ``r / lambda``) and, again uniform on [0, 1) and independent of it, the
    fractional part ``u`` the rule may take (local JSQ(2) picks its pair from it).

    ``state`` may be of a narrow integer type: an arrival at a queue of ``cap`` tasks stops
    the run and returns ``events = -1`` (the caller reruns it with a wider type). With
    ``sorted_types`` the servers are numbered type by type: a server's type is found from
    ``type_first`` (a few cached words) instead of a random read of ``server_type``, and the
    k-th server of a type is ``type_first[m] + k`` instead of a read of ``type_members``. With
    a non-empty ``ahead`` (a work array), the dispatcher and ``u`` of the next ``ahead.size``
    arrivals are drawn in advance (from one uniform each, in turn): an arrival's offset and
    degree are prefetched when it is drawn, the list entries its rule will read (the policy's
    lookahead, spliced in at ``touch``, given its dispatcher and ``u``) half the ring later, so
    that the list reads of an arrival do not wait for memory."""
    offset = graph.offset
    degree = graph.degree
    neighbors = graph.neighbors
    dispatcher_cluster = graph.dispatcher_cluster
    server_type = graph.server_type
    type_members = types.type_members
    type_first = types.type_first
    type_size = types.type_size
    service_rates = types.service_rates
    arrival_rate = config.arrival_rate
    t_grid = config.t_grid
    levels = config.levels
    cap = config.cap
    sorted_types = config.sorted_types
    scan = config.scan
    average_from = config.average_from
    state = work.state
    ahead = work.ahead
    rng = rng_state.copy()
    n_types = type_size.size
    n_disp = offset.size
    n_grid = t_grid.size
    n_rows = n_grid if average_from < 0 else 1
    occupancy = np.zeros((n_rows, n_types, levels))
    mean_len = np.zeros((n_rows, n_types))
    mean_sq = np.zeros((n_rows, n_types))
    count = np.zeros((n_types, levels + 1), np.int64)   # count[m, l]: type m, >= l tasks
    total = np.zeros(n_types, np.int64)
    total_sq = np.zeros(n_types, np.int64)
    # with average_from >= 0: the sums of count, total and total_sq over the recording times averaged
    sum_count = np.zeros((n_types, levels + 1), np.int64)
    sum_total = np.zeros(n_types, np.int64)
    sum_sq = np.zeros(n_types, np.int64)
    tally(state, server_type, levels, count, total, total_sq)
    lam_total = arrival_rate * n_disp
    inv_lam = 1.0 / arrival_rate
    # the service slots: type m's span u_m |V_m| of [lambda W, Lambda), 1 / u_m per server
    slots = np.empty(n_types)
    inv_rate = np.empty(n_types)
    uniformised = lam_total
    for m in range(n_types):
        slots[_ix(m)] = service_rates[_ix(m)] * type_size[_ix(m)]
        inv_rate[_ix(m)] = 1.0 / service_rates[_ix(m)]
        uniformised += slots[_ix(m)]
    # with lookahead: the dispatchers and u of the next n_ahead arrivals, used in turn
    n_ahead = ahead.size
    half = n_ahead // 2
    ahead_u = np.empty(n_ahead)
    for h in range(n_ahead):
        ahead[_ix(h)], ahead_u[_ix(h)] = dispatcher_and_u(uniform(rng) * n_disp, n_disp)
    head = 0
    events = 0
    for g in range(n_grid):
        steps = 0
        if g > 0:
            steps = poisson(rng, uniformised * (t_grid[_ix(g)] - t_grid[_ix(g - 1)]))
        for _ in range(steps):
            r = uniform(rng) * uniformised
            if r < lam_total:
                if n_ahead:
                    # the arrival drawn n_ahead arrivals ago; the list entries of the arrival
                    # half as far ahead are prefetched now, and a new one is drawn in its place
                    i = ahead[_ix(head)]
                    u = ahead_u[_ix(head)]
                    mid = head + half if head + half < n_ahead else head + half - n_ahead
                    w = ahead[_ix(mid)]
                    uw = ahead_u[_ix(mid)]
                    touched = touch(params, w, uw, offset, degree, neighbors)
                    nxt, ahead_u[_ix(head)] = dispatcher_and_u(uniform(rng) * n_disp, n_disp)
                    ahead[_ix(head)] = nxt
                    prefetch(offset, _ix(nxt))
                    prefetch(degree, _ix(nxt))
                    head = head + 1 if head + 1 < n_ahead else 0
                else:
                    # a uniform dispatcher and, left over, a uniform u independent of it
                    i, u = dispatcher_and_u(r * inv_lam, n_disp)
                target = decide(params, st, rng, i, u, state, offset, degree, neighbors, dispatcher_cluster,
                                server_type, type_members, type_first, type_size)
                x = state[_ix(target)]
                if x == cap:
                    return Outputs(occupancy, mean_len, mean_sq, -1)
                state[_ix(target)] = x + 1
                events += 1
                if not scan:
                    if sorted_types:
                        m = 0
                        while m + 1 < n_types and target >= type_first[_ix(m + 1)]:
                            m += 1
                    else:
                        m = server_type[_ix(target)]
                    total[_ix(m)] += 1
                    total_sq[_ix(m)] += 2 * x + 1
                    if x + 1 <= levels:
                        count[_ix(m), _ix(x + 1)] += 1
            else:
                # a service slot: type m, then the server of the slot; idle, nothing happens
                r -= lam_total
                m = 0
                while m < n_types - 1 and r >= slots[_ix(m)]:
                    r -= slots[_ix(m)]
                    m += 1
                k = int(r * inv_rate[_ix(m)])
                if k >= type_size[_ix(m)]:
                    k = type_size[_ix(m)] - 1
                c = type_first[_ix(m)] + k
                j = c if sorted_types else type_members[_ix(c)]
                x = state[_ix(j)]
                if x > 0:
                    state[_ix(j)] = x - 1
                    events += 1
                    if not scan:
                        total[_ix(m)] -= 1
                        total_sq[_ix(m)] -= 2 * x - 1
                        if x <= levels:
                            count[_ix(m), _ix(x)] -= 1
        if scan and g > 0:
            tally(state, server_type, levels, count, total, total_sq)
        if average_from < 0:
            for m in range(n_types):
                inv = 1.0 / type_size[_ix(m)]
                for l in range(levels):
                    occupancy[_ix(g), _ix(m), _ix(l)] = count[_ix(m), _ix(l + 1)] * inv
                mean_len[_ix(g), _ix(m)] = total[_ix(m)] * inv
                mean_sq[_ix(g), _ix(m)] = total_sq[_ix(m)] * inv
        elif g >= average_from:
            for m in range(n_types):
                for l in range(levels):
                    sum_count[_ix(m), _ix(l + 1)] += count[_ix(m), _ix(l + 1)]
                sum_total[_ix(m)] += total[_ix(m)]
                sum_sq[_ix(m)] += total_sq[_ix(m)]
    if average_from >= 0:
        for m in range(n_types):
            inv = 1.0 / (type_size[_ix(m)] * (n_grid - average_from))
            for l in range(levels):
                occupancy[0, _ix(m), _ix(l)] = sum_count[_ix(m), _ix(l + 1)] * inv
            mean_len[0, _ix(m)] = sum_total[_ix(m)] * inv
            mean_sq[0, _ix(m)] = sum_sq[_ix(m)] * inv
    return Outputs(occupancy, mean_len, mean_sq, events)


@njit(cache=True)
def dispatcher_and_u(v, n_disp):
    """An arrival's dispatcher and rule uniform from `v`, uniform on [0, `n_disp`): its integer
    part (the top value, which rounding of ``uniform * n_disp`` can reach, counted as the last
    dispatcher) and its fractional part, uniform on [0, 1) and independent of the integer part."""
    i = int(v)
    if i >= n_disp:
        i = n_disp - 1
    return i, v - i


@njit(cache=True)
def tally(state, server_type, levels, count, total, total_sq):
    """The statistics of `state` per type (``server_type``) into the zeroed or overwritten
    arrays ``count[m, l]`` (servers of type m with at least l tasks, l <= `levels`), ``total[m]``
    (their tasks) and ``total_sq[m]`` (the sum of the squared lengths)."""
    count[:] = 0
    total[:] = 0
    total_sq[:] = 0
    for j in range(state.size):
        m = server_type[_ix(j)]
        x = np.int64(state[_ix(j)])
        total[_ix(m)] += x
        total_sq[_ix(m)] += x * x
        count[_ix(m), _ix(min(x, levels))] += 1
    # from the numbers at each level (the last: at least `levels`) to tails
    for m in range(count.shape[0]):
        for l in range(levels - 1, 0, -1):
            count[_ix(m), _ix(l)] += count[_ix(m), _ix(l + 1)]


@njit(cache=True)
def poisson(rng, mean):
    """A Poisson variable of the given mean (>= 0) from the generator `rng`: by multiplying
    uniforms below mean 10, else by Hoermann's transformed rejection with squeeze (PTRS,
    1993), exact in both (the uniformisation's number of steps between recording times)."""
    if mean <= 0.0:
        return 0
    if mean < 10.0:
        limit = np.exp(-mean)
        n = 0
        prod = uniform(rng)
        while prod > limit:
            n += 1
            prod *= uniform(rng)
        return n
    slam = np.sqrt(mean)
    loglam = np.log(mean)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    while True:
        us = uniform(rng) - 0.5
        v = uniform(rng)
        half_gap = 0.5 - abs(us)
        k = np.floor((2.0 * a / half_gap + b) * us + mean + 0.43)
        if half_gap >= 0.07 and v <= vr:
            return int(k)
        if k < 0.0 or (half_gap < 0.013 and v > half_gap):
            continue
        if np.log(v) + np.log(inv_alpha) - np.log(a / (half_gap * half_gap) + b) <= -mean + k * loglam - lgamma(k + 1.0):
            return int(k)


@dataclass(frozen=True)
class SimulationResult(RunRecord):
    """Output of :func:`simulate` (and :func:`simulate_jsqd` / :func:`simulate_gwsq`).

    The run record has the names the U simulator's result uses (``times``, ``events``,
    ``wall_time``, ``events_per_second``); ``t`` and ``seconds`` are the older names.

    Attributes
    ----------
    times : (T,) array
        Recording times.
    occupancy : (T, M, L) array
        ``occupancy[g, m, l-1] = q_{m,l}^N(t_g)`` (with ``average_from``: one row, the mean over `times`).
    mean_queue_length, mean_square : (T, M) arrays
        Average of :math:`X_j` and of :math:`X_j^2` over type-:math:`m` servers (exact, not truncated at
        :math:`L`; with ``average_from``: one row, as ``occupancy``).
    final_state : (N,) int64 array
        Queue lengths at the last recording time.
    events : int
        Arrivals plus departures simulated.
    wall_time : float
        Wall time of the kernel (seconds).
    policy_state : int64 array
        The policy's own state at the last recording time (:meth:`Policy.initial_state`;
        empty for a policy without memory).
    """

    times: np.ndarray
    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    mean_square: np.ndarray
    final_state: np.ndarray
    events: int
    wall_time: float
    policy_state: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def t(self) -> np.ndarray:
        """Older name of :attr:`times`."""
        return self.times

    @property
    def seconds(self) -> float:
        """Older name of :attr:`wall_time`."""
        return self.wall_time



#: queue lengths and server numbers are int32 in the kernel; the margin leaves room for arrivals
_INT32_LIMIT = 2**31 - 2**20


def _prepare(system: LocalitySystem, graph: CompatibilityGraph, policy: Policy, initial_state, t_grid, levels,
             average_from=None):
    """The kernel's bundles for a run of `policy` (its arguments but the policy's parameters
    and the generator), after checking `graph`, `initial_state`, `t_grid` and `levels`:
    ``(graph, types, config, work)``, a :class:`Graph`, :class:`Types`, :class:`Configuration`
    (with the int32 ``cap``) and :class:`Work` (with the int32 state). The kernel's modes are
    chosen here: servers numbered type by type, arrivals drawn ahead, statistics counted at
    the recording times or kept per event (see :func:`_run_kernel` for the width of the state)."""
    if graph.n_types != system.n_types or graph.n_clusters != system.n_clusters:
        raise ParameterError(f"`graph` has {graph.n_types} types and {graph.n_clusters} clusters, the system "
                             f"{system.n_types} and {system.n_clusters}")
    if graph.n_servers >= _INT32_LIMIT:
        raise ParameterError(f"`graph` has {graph.n_servers} servers; the simulator takes fewer than 2**31 - 2**20")
    state = check_array("initial_state", initial_state, shape=(graph.n_servers,), low=0, dtype=np.int64)
    if state.size and state.max() >= _INT32_LIMIT:
        raise ParameterError(f"`initial_state` holds a queue of {int(state.max())} tasks; the simulator keeps "
                             f"queue lengths below 2**31 - 2**20")
    state = state.astype(np.int32)
    t_grid = check_array("t_grid", t_grid, ndim=1, low=0.0)
    if t_grid.size < 1 or np.any(np.diff(t_grid) <= 0):
        raise ParameterError("`t_grid` must be a non-empty increasing array of times")
    levels = check_integer("levels", levels, low=1)
    average_from = -1 if average_from is None else check_integer("average_from", average_from, low=0,
                                                                   high=t_grid.size - 1)
    type_size = np.bincount(graph.server_type, minlength=graph.n_types).astype(np.int64)
    if np.any(type_size == 0):
        raise ParameterError(f"server type {int(np.argmin(type_size))} has no server in `graph`")
    type_first = np.concatenate([[0], np.cumsum(type_size)[:-1]]).astype(np.int64)
    type_members = np.argsort(graph.server_type, kind="stable").astype(np.int32)
    # narrow copies of the per-server and per-dispatcher arrays the events read at random:
    # at N = 10^6 they are what the caches must hold
    server_type = _memory.copy(graph.server_type, np.int8 if graph.n_types <= 127 else np.int32)
    cluster = graph.dispatcher_cluster.astype(np.int8 if graph.n_clusters <= 127 else np.int32)
    offset_type = np.int32 if graph.neighbors.size < _INT32_LIMIT else graph.offset.dtype
    offset, degree = graph.offset, graph.degree
    if offset.size and (offset == offset[0]).all() and (degree == degree[0]).all():
        # every dispatcher has the same list (the complete graph): zero-stride views, so that
        # the dispatcher's offset and degree are one cached word, not a cache miss per arrival
        offset = np.broadcast_to(offset[:1].astype(offset_type), offset.shape)
        degree = np.broadcast_to(degree[:1].astype(np.int32), degree.shape)
    else:
        offset, degree = _memory.copy(offset, offset_type), _memory.copy(degree, np.int32)
    service_rates = system.u.copy()
    neighbors = graph.neighbors
    # few types numbered in order: the kernel computes a server's type instead of reading it
    sorted_types = bool(type_size.size <= 8 and np.all(np.diff(server_type) >= 0))
    # with large lists an arrival's list read is a memory access: prefetch what the next
    # arrivals will read, when the policy reads lists, each dispatcher has its own and they are short
    lookahead = (policy.reads_lists and neighbors.nbytes >= _AHEAD_FROM_BYTES and offset.size
                 and offset.strides[0] != 0 and degree.mean() <= _AHEAD_DEGREE)
    ahead = np.empty(_AHEAD if lookahead else 0, np.int64)
    # count the statistics at the recording times when that reads fewer servers than the run
    # takes steps (an event costs more than a server counted), else keep them per event
    steps = (system.arrival_rate * offset.size + float(service_rates @ type_size)) * (t_grid[-1] - t_grid[0])
    scan = bool(state.size * (t_grid.size - 1) <= _SCAN_SHARE * steps)
    return (Graph(offset=offset, degree=degree, neighbors=neighbors, dispatcher_cluster=cluster,
                  server_type=server_type),
            Types(type_members=type_members, type_first=type_first, type_size=type_size,
                  service_rates=service_rates),
            Configuration(arrival_rate=system.arrival_rate, t_grid=t_grid, levels=levels,
                          cap=int(np.iinfo(np.int32).max), sorted_types=sorted_types, scan=scan,
                          average_from=average_from),
            Work(state=state, ahead=ahead))


def simulate(system: LocalitySystem, graph: CompatibilityGraph, policy, *, initial_state, t_grid, seed,
             levels: int = 10, average_from: int | None = None) -> SimulationResult:
    """Simulate `policy` on `graph` from `initial_state`.

    The papers' simulators share one shape: the system, its size (here the graph, whose
    servers and dispatchers are the N of the run), the policy, then keywords: how long
    (`t_grid`), from where (`initial_state`), the `seed`, and options.

    Parameters
    ----------
    system : LocalitySystem
        Gives :math:`\\lambda` (per dispatcher), the service rate of each type and the default :math:`d`.
    graph : CompatibilityGraph
        Any bipartite graph (policies that need one need every dispatcher to have a
        neighbour).
    policy : qtheory.locality.policies.Policy or str
        A :mod:`qtheory.locality.policies` object, e.g. ``LocalJSQ(d=2)`` (``d`` distinct
        neighbours, without replacement), ``GWSQ(d=2)`` (independent weighted draws, with
        replacement) or ``JIQ()``, or a registered name (default parameters).
    initial_state : (N,) int array
        Queue lengths at ``t_grid[0]`` (any state, i.i.d. or not).
    t_grid : increasing array
        Recording times; the simulation starts at ``t_grid[0]`` and stops at ``t_grid[-1]``.
    seed : int or numpy.random.SeedSequence
        Seed of the kernel's generator (through :func:`qtheory.runtime.kernel_state`).
    levels : int
        Number L of occupancy levels recorded.
    average_from : int, optional
        Instead of the statistics at every recording time, one row: their mean over the
        recording times ``t_grid[average_from:]`` (``times`` is then ``t_grid[average_from:]``);
        the same path and numbers as the mean of those rows, to rounding, without arrays the
        size of the grid (a stationary run may record :math:`10^5` times).
    """
    pol = as_policy(policy)
    kgraph, types, config, work = _prepare(system, graph, pol, initial_state, t_grid, levels, average_from)
    params = pol.kernel_params(system, graph)
    st = pol.checked_initial_state(system, graph)
    start = time.perf_counter()
    out, state, st = _run_kernel(_kernel(pol), params, st, kernel_state(seed), kgraph, types, config, work)
    times = config.t_grid if average_from is None else config.t_grid[config.average_from:]
    return SimulationResult(times, out.occupancy, out.mean_queue_length, out.mean_square,
                            state.astype(np.int64), int(out.events), time.perf_counter() - start, st)


#: below this many servers the per-server arrays stay in the caches whatever their width
_NARROW_FROM = 1 << 16


#: from this size of the neighbour lists on, the arrivals of policies that read lists are drawn
#: in advance and their list entries prefetched: a random read of 1 MiB or more of lists
#: leaves the fastest private caches (with the irg graphs of Sec. 6 from about N = 600 on:
#: the lists of N = 1000 hold 1.7 MiB)
_AHEAD_FROM_BYTES = 1 << 20
#: statistics counted at the recording times when the servers counted are at most this share of
#: the expected steps of the run
_SCAN_SHARE = 1.0
#: arrivals drawn in advance (what their rules will read prefetched), with large lists
_AHEAD = 16
#: longest mean list for which the lookahead pays (the default lookahead prefetches whole lists)
_AHEAD_DEGREE = 1024


def _run_kernel(kernel, params, st, rng_state, graph: Graph, types: Types, config: Configuration, work: Work):
    """Run `kernel` from ``work.state`` (int32), with the queue lengths held in the narrowest
    unsigned type that holds them, from N = 2**16 servers on: at N = 10^6 a uint8 state is
    1 MB and stays in a core's private cache, int32 (4 MB) does not. When a queue outgrows the
    type the kernel stops, and the run restarts from the same state, generator and policy
    parameters (fresh copies of their arrays, in which a rule may keep state) with the next
    wider type (uint8, uint16, int32): the same draws give the same path, so the result does
    not depend on the type, only the time does. Each attempt starts from the policy's state
    `st` as built (:meth:`Policy.initial_state`; a fresh copy, as are the arrays of `params`:
    a failed attempt has written into its own). Returns the kernel's :class:`Outputs`, the
    final queue lengths and the policy's final state."""
    state = work.state
    widths = [np.int32]
    if state.size >= _NARROW_FROM:
        top = int(state.max()) if state.size else 0
        widths = [w for w in (np.uint8, np.uint16) if top < np.iinfo(w).max] + widths
    for width in widths:
        held = _memory.copy(state.astype(width))
        # each attempt from the policy's state and params as built: an attempt that overflowed
        # has written into its copies (a remembered server, scratch)
        fresh = type(params)(*(np.copy(v) if isinstance(v, np.ndarray) else v for v in params))
        st_run = st.copy()
        with _splice.rule_errors(kernel):   # a rule that does not compile, or indexes out of range: named
            out = kernel(fresh, st_run, rng_state, graph, types, config._replace(cap=int(np.iinfo(width).max)),
                         work._replace(state=held))
        if out.events >= 0:
            return out, held, st_run
    raise OverflowError(f"a queue grew past {np.iinfo(np.int32).max} tasks: the simulator keeps queue lengths "
                        f"in 32 bits (shorten `t_grid` or lower the load)")


def simulate_jsqd(system: LocalitySystem, graph: CompatibilityGraph, *, initial_state, t_grid, seed,
                  levels: int = 10) -> SimulationResult:
    """Local JSQ(d) (Sec. 2.2) with the system's ``d``: :func:`simulate` with
    ``LocalJSQ()`` (``d`` distinct neighbours, sampled without replacement)."""
    from .policies import LocalJSQ

    return simulate(system, graph, LocalJSQ(), initial_state=initial_state, t_grid=t_grid, seed=seed, levels=levels)


def simulate_gwsq(system: LocalitySystem, graph: CompatibilityGraph, *, initial_state, t_grid, seed,
                  levels: int = 10) -> SimulationResult:
    """GWSQ(d) (Algorithm 1, sign erratum fixed; see the module docstring) with the system's
    ``d``: :func:`simulate` with ``GWSQ()`` (independent draws, with replacement).

    Only the server types and dispatcher clusters of `graph` are used (GWSQ has no
    graph); the weights use the system's p and the realised type fractions
    ``|V_m| / N``, so that each cluster's weighted distribution sums to 1.
    """
    from .policies import GWSQ

    return simulate(system, graph, GWSQ(), initial_state=initial_state, t_grid=t_grid, seed=seed, levels=levels)


def iid_initial_state(graph: CompatibilityGraph, q0, seed) -> np.ndarray:
    """Independent queue lengths with ``P(X_j >= l) = q0[type(j), l-1]`` (Theorems 1-2)."""
    q0 = check_tails("q0", q0, graph.n_types)
    if not isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        seed = check_seed("seed", seed)
    rng = np.random.default_rng(seed)
    u = rng.random(graph.n_servers)
    tails = q0[graph.server_type]                 # (N, L)
    return (u[:, None] < tails).sum(axis=1).astype(np.int64)


def exact_initial_state(graph: CompatibilityGraph, q0, order=None) -> np.ndarray:
    """A deterministic state whose occupancy matches `q0` up to rounding (Theorem 3 starts).

    Within each type the counts ``round(|V_m| P(X = l))`` (largest remainder) are handed
    out in increasing length along `order` (default: server index), so the state is
    far from i.i.d.: it is sorted along `order`.
    """
    from .model import _apportion

    q0 = check_array("q0", q0, ndim=2, low=0.0, high=1.0)
    if q0.shape[0] != graph.n_types:
        raise ParameterError(f"`q0` must have one row per server type ({graph.n_types})")
    order = np.arange(graph.n_servers) if order is None else check_array(
        "order", order, shape=(graph.n_servers,), low=0, dtype=np.int64)
    if np.unique(order).size != graph.n_servers:
        raise ParameterError("`order` must be a permutation of the servers")
    state = np.zeros(graph.n_servers, dtype=np.int64)
    padded = np.hstack([np.ones((q0.shape[0], 1)), q0, np.zeros((q0.shape[0], 1))])
    for m in range(graph.n_types):
        members = order[graph.server_type[order] == m]
        pmf = padded[m, :-1] - padded[m, 1:]
        counts = _apportion(members.size, pmf / pmf.sum())
        state[members] = np.repeat(np.arange(pmf.size), counts)
    return state
