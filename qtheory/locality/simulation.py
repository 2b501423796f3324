"""Event-driven simulators of local JSQ(d) (Sec. 2.2) and GWSQ(d) (Algorithm 1).

Both simulate the N-th system exactly (continuous-time Markov chain, one event at a
time, no uniformisation) and record on a time grid, for every server type m, the
occupancy ``q_{m,l}^N(t)`` (l = 1..L), the mean queue length and the mean squared
queue length (the latter two exactly, whatever L).

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

A departing server is a uniform busy server of the departing type, taken from a list of
busy servers; from :math:`N = 2^{16}` servers on (when the servers are numbered type by type
and the draws are few, see ``_rejection_pays``) it is found instead by drawing uniform servers
of the type until one is busy, and queue lengths are kept in 8 or 16 bits where they fit: at
:math:`N = 10^6` the per-server data then stay in the processor's caches. For policies that read
neighbour lists, once the lists hold 4 MiB or more, the next arrivals are drawn in advance, each
with a dispatcher and a generator of its own (spawned from the kernel's), so that the list entries
its rule will read can be prefetched (the policy's ``lookahead``). All these ways are exact; they
use the generator differently, so a seed gives other (equally distributed) numbers in these modes
than the small-N way would.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import ParameterError
from .._rng import exponential, randint, spawn, uniform
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


def touch(params, peek, w, offset, degree, neighbors):
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
    #: servers numbered type by type; departures found by rejection
    sorted_types: bool
    rejection: bool


class Work(NamedTuple):
    """Arrays the kernel updates: the queue lengths (``state``, of the width being tried), the
    busy list and places (``busy``, ``pos``; empty with rejection), the arrivals drawn ahead
    (``ahead``; empty without lookahead)."""

    state: np.ndarray
    busy: np.ndarray
    pos: np.ndarray
    ahead: np.ndarray


class Outputs(NamedTuple):
    """What the kernel returns: the recorded occupancy, mean and mean square per type, and the
    number of events (-1 if a queue outgrew the width of ``state``)."""

    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    mean_square: np.ndarray
    events: int


def _kernel_template(params, rng_state, graph, types, config, work):
    """One run. A template: :func:`_kernel` compiles it once per policy with the policy's
    rule in place of ``decide`` (:mod:`qtheory._splice`). Besides the policy's `params` and
    the generator, it takes four bundles built by :func:`_prepare`: `graph` (:class:`Graph`),
    `types` (:class:`Types`), `config` (:class:`Configuration`) and `work` (:class:`Work`),
    whose fields it unpacks under their own names, the names the rule takes. It returns
    :class:`Outputs`.

    ``state`` may be of a narrow integer type: an arrival at a queue of ``cap`` tasks stops
    the run and returns ``events = -1`` (the caller reruns it with a wider type). With
    ``sorted_types`` the servers are numbered type by type, and a server's type is found from
    ``type_first`` (a few cached words) instead of a random read of ``server_type``. With
    ``rejection`` (only with ``sorted_types``) a departure of type m draws uniform servers of
    type m until it draws a busy one, and ``busy`` and ``pos`` are neither kept nor read. With
    a non-empty ``ahead`` (a work array), the next ``ahead.size`` arrivals are drawn in advance,
    each a uniform dispatcher and a generator spawned from the kernel's (used in turn): an
    arrival's offset and degree are prefetched when it is drawn, the list entries its rule will
    read (the policy's lookahead, spliced in at ``touch``) half the ring later, and the rule
    decides it with its own generator, so that the list reads of an arrival do not wait for memory."""
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
    rejection = config.rejection
    state = work.state
    busy = work.busy
    pos = work.pos
    ahead = work.ahead
    rng = rng_state.copy()
    n_servers = server_type.size
    n_types = type_size.size
    n_disp = offset.size
    n_grid = t_grid.size
    occupancy = np.zeros((n_grid, n_types, levels))
    mean_len = np.zeros((n_grid, n_types))
    mean_sq = np.zeros((n_grid, n_types))
    # unless rejection: busy servers of each type, in the segment [type_first[m], type_first[m]
    # + n_busy[m]), and pos[j], the place of busy server j in its segment (work arrays of the
    # caller; pos of an idle server is never read)
    n_busy = np.zeros(n_types, np.int64)
    count = np.zeros((n_types, levels + 1), np.int64)   # count[m, l]: type m, >= l tasks
    total = np.zeros(n_types, np.int64)
    total_sq = np.zeros(n_types, np.int64)
    for j in range(n_servers):
        m = server_type[_ix(j)]
        x = state[_ix(j)]
        total[_ix(m)] += x
        total_sq[_ix(m)] += x * x
        for l in range(1, min(x, levels) + 1):
            count[_ix(m), _ix(l)] += 1
        if x > 0:
            if not rejection:
                busy[_ix(type_first[_ix(m)] + n_busy[_ix(m)])] = j
                pos[_ix(j)] = n_busy[_ix(m)]
            n_busy[_ix(m)] += 1
    lam_total = arrival_rate * n_disp
    # with lookahead: the dispatchers of the next n_ahead arrivals and a generator of each
    # (spawned from the kernel's), used in turn
    n_ahead = ahead.size
    half = n_ahead // 2
    words = rng.size                  # of a generator's state
    ahead_rng = np.empty((n_ahead, words), np.uint64)
    peek = np.empty(words, np.uint64)
    saved = np.empty(words, np.uint64)
    for h in range(n_ahead):
        ahead[_ix(h)] = randint(rng, n_disp)
        spawn(rng, ahead_rng[_ix(h)])
    head = 0
    t = t_grid[0]
    g = 0
    events = 0
    while True:
        dep_total = 0.0
        for m in range(n_types):
            dep_total += service_rates[_ix(m)] * n_busy[_ix(m)]
        rate = lam_total + dep_total
        t += exponential(rng) / rate
        while g < n_grid and t_grid[_ix(g)] < t:
            for m in range(n_types):
                inv = 1.0 / type_size[_ix(m)]
                for l in range(levels):
                    occupancy[_ix(g), _ix(m), _ix(l)] = count[_ix(m), _ix(l + 1)] * inv
                mean_len[_ix(g), _ix(m)] = total[_ix(m)] * inv
                mean_sq[_ix(g), _ix(m)] = total_sq[_ix(m)] * inv
            g += 1
        if g == n_grid:
            break
        events += 1
        r = uniform(rng) * rate
        if r < lam_total:
            if n_ahead:
                # the arrival drawn n_ahead arrivals ago: its dispatcher and its own generator;
                # the list entries of the arrival half as far ahead are prefetched now
                i = ahead[_ix(head)]
                mid = head + half if head + half < n_ahead else head + half - n_ahead
                w = ahead[_ix(mid)]
                for k in range(words):
                    peek[_ix(k)] = ahead_rng[_ix(mid), _ix(k)]
                touched = touch(params, peek, w, offset, degree, neighbors)
                for k in range(words):
                    saved[_ix(k)] = rng[_ix(k)]
                    rng[_ix(k)] = ahead_rng[_ix(head), _ix(k)]
            else:
                i = int(r / arrival_rate)          # uniform dispatcher, reusing the same uniform
                if i >= n_disp:
                    i = n_disp - 1
            target = decide(params, rng, i, state, offset, degree, neighbors, dispatcher_cluster, server_type,
                            type_members, type_first, type_size)
            if n_ahead:
                # back to the kernel's generator; it draws the arrival n_ahead arrivals later,
                # whose dispatcher's offset and degree are prefetched
                for k in range(words):
                    rng[_ix(k)] = saved[_ix(k)]
                nxt = randint(rng, n_disp)
                ahead[_ix(head)] = nxt
                spawn(rng, ahead_rng[_ix(head)])
                prefetch(offset, _ix(nxt))
                prefetch(degree, _ix(nxt))
                head = head + 1 if head + 1 < n_ahead else 0
            if sorted_types:
                m = 0
                while m + 1 < n_types and target >= type_first[_ix(m + 1)]:
                    m += 1
            else:
                m = server_type[_ix(target)]
            x = state[_ix(target)]
            if x == cap:
                return Outputs(occupancy, mean_len, mean_sq, -1)
            state[_ix(target)] = x + 1
            total[_ix(m)] += 1
            total_sq[_ix(m)] += 2 * x + 1
            if x + 1 <= levels:
                count[_ix(m), _ix(x + 1)] += 1
            if x == 0:
                if not rejection:
                    busy[_ix(type_first[_ix(m)] + n_busy[_ix(m)])] = target
                    pos[_ix(target)] = n_busy[_ix(m)]
                n_busy[_ix(m)] += 1
        else:
            r -= lam_total
            m = 0
            while m < n_types - 1 and r >= service_rates[_ix(m)] * n_busy[_ix(m)]:
                r -= service_rates[_ix(m)] * n_busy[_ix(m)]
                m += 1
            if n_busy[_ix(m)] == 0:          # round-off at the last type boundary
                m = 0
                while n_busy[_ix(m)] == 0:
                    m += 1
            if rejection:
                # a uniform busy server of type m: uniform servers of the type until one is busy
                while True:
                    j = type_first[_ix(m)] + randint(rng, type_size[_ix(m)])
                    if state[_ix(j)] > 0:
                        break
            else:
                # the uniform left over after choosing the type picks the busy server
                idx = int(r / service_rates[_ix(m)]) if r >= 0.0 else 0
                if idx >= n_busy[_ix(m)]:
                    idx = n_busy[_ix(m)] - 1
                j = busy[_ix(type_first[_ix(m)] + idx)]
            x = state[_ix(j)]
            state[_ix(j)] = x - 1
            total[_ix(m)] -= 1
            total_sq[_ix(m)] -= 2 * x - 1
            if x <= levels:
                count[_ix(m), _ix(x)] -= 1
            if x == 1:
                if not rejection:
                    last = busy[_ix(type_first[_ix(m)] + n_busy[_ix(m)] - 1)]
                    busy[_ix(type_first[_ix(m)] + pos[_ix(j)])] = last
                    pos[_ix(last)] = pos[_ix(j)]
                    pos[_ix(j)] = -1
                n_busy[_ix(m)] -= 1
    return Outputs(occupancy, mean_len, mean_sq, events)


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
        ``occupancy[g, m, l-1] = q_{m,l}^N(t_g)``.
    mean_queue_length, mean_square : (T, M) arrays
        Average of :math:`X_j` and of :math:`X_j^2` over type-:math:`m` servers (exact, not truncated at :math:`L`).
    final_state : (N,) int64 array
        Queue lengths at the last recording time.
    events : int
        Arrivals plus departures simulated.
    wall_time : float
        Wall time of the kernel (seconds).
    """

    times: np.ndarray
    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    mean_square: np.ndarray
    final_state: np.ndarray
    events: int
    wall_time: float

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


def _prepare(system: LocalitySystem, graph: CompatibilityGraph, policy: Policy, initial_state, t_grid, levels):
    """The kernel's bundles for a run of `policy` (its arguments but the policy's parameters
    and the generator), after checking `graph`, `initial_state`, `t_grid` and `levels`:
    ``(graph, types, config, work)``, a :class:`Graph`, :class:`Types`, :class:`Configuration`
    (with the int32 ``cap``) and :class:`Work` (with the int32 state). The kernel's modes are
    chosen here: servers numbered type by type, departures by rejection, arrivals drawn
    ahead (see :func:`_run_kernel` for the width of the state)."""
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
    # at large N a departure finds its busy server by rejection (see _rejection_pays)
    rejection = sorted_types and state.size >= _REJECTION_FROM and _rejection_pays(
        service_rates, type_size, system.arrival_rate * offset.size)
    busy = _memory.empty(0 if rejection else state.size, np.int32)
    pos = _memory.empty(0 if rejection else state.size, np.int32)
    # with large lists an arrival's list read is a memory access: prefetch what the next
    # arrivals will read, when the policy reads lists, each dispatcher has its own and they are short
    lookahead = (policy.reads_lists and neighbors.nbytes >= _AHEAD_FROM_BYTES and offset.size
                 and offset.strides[0] != 0 and degree.mean() <= _AHEAD_DEGREE)
    ahead = np.empty(_AHEAD if lookahead else 0, np.int64)
    return (Graph(offset=offset, degree=degree, neighbors=neighbors, dispatcher_cluster=cluster,
                  server_type=server_type),
            Types(type_members=type_members, type_first=type_first, type_size=type_size,
                  service_rates=service_rates),
            Configuration(arrival_rate=system.arrival_rate, t_grid=t_grid, levels=levels,
                          cap=int(np.iinfo(np.int32).max), sorted_types=sorted_types, rejection=rejection),
            Work(state=state, busy=busy, pos=pos, ahead=ahead))


def simulate(system: LocalitySystem, graph: CompatibilityGraph, policy, initial_state, t_grid, seed, *,
             levels: int = 10) -> SimulationResult:
    """Simulate `policy` on `graph` from `initial_state`.

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
    """
    pol = as_policy(policy)
    kgraph, types, config, work = _prepare(system, graph, pol, initial_state, t_grid, levels)
    params = pol.kernel_params(system, graph)
    start = time.perf_counter()
    out, state = _run_kernel(_kernel(pol), params, kernel_state(seed), kgraph, types, config, work)
    return SimulationResult(config.t_grid, out.occupancy, out.mean_queue_length, out.mean_square,
                            state.astype(np.int64), int(out.events), time.perf_counter() - start)


#: below this many servers the per-server arrays stay in the caches whatever their width
_NARROW_FROM = 1 << 16


#: from this many servers on, departures may find their server by rejection (below it the
#: busy list stays in the caches, and small runs keep the path of the C peer)
_REJECTION_FROM = 1 << 16
#: from this size of the neighbour lists on, the arrivals of policies that read lists are drawn
#: in advance and their list entries prefetched (a random read of 4 MiB or more leaves the
#: private caches)
_AHEAD_FROM_BYTES = 1 << 22
#: arrivals drawn in advance (what their rules will read prefetched), with large lists
_AHEAD = 16
#: longest mean list for which the lookahead pays (the default lookahead prefetches whole lists)
_AHEAD_DEGREE = 1024
#: most draws per arrival the rejection sampling of departing servers may cost (see below)
_REJECTION_DRAWS = 4.0


def _rejection_pays(service_rates, type_size, arrival_total) -> bool:
    """Whether departures should find their server by rejection rather than from the list
    of busy servers. The list costs two random reads of N-entry arrays per departure and one
    per server turning busy or idle, which at N = 10^6 leave the caches; rejection keeps no
    list, and draws uniform servers of the departing type m until one is busy: 1 / (busy
    fraction of m) draws per departure, and since type m's departures occur at rate
    u_m x (its busy servers), u_m |V_m| draws per unit time, whatever the state. Rejection is
    used when these draws, sum_m u_m |V_m| per unit time, are at most ``_REJECTION_DRAWS``
    per arrival (rate ``arrival_total``): a read of the compact state is cheaper than a
    cache miss, but not unboundedly many of them (a lightly loaded system with fast servers
    keeps the list)."""
    return float(np.dot(service_rates, type_size)) <= _REJECTION_DRAWS * arrival_total


def _run_kernel(kernel, params, rng_state, graph: Graph, types: Types, config: Configuration, work: Work):
    """Run `kernel` from ``work.state`` (int32), with the queue lengths held in the narrowest
    unsigned type that holds them, from N = 2**16 servers on: at N = 10^6 a uint8 state is
    1 MB and stays in a core's private cache, int32 (4 MB) does not. When a queue outgrows the
    type the kernel stops, and the run restarts from the same state and generator with the
    next wider type (uint8, uint16, int32): the same draws give the same path, so the result
    does not depend on the type, only the time does. Returns the kernel's :class:`Outputs` and
    the final state."""
    state = work.state
    widths = [np.int32]
    if state.size >= _NARROW_FROM:
        top = int(state.max()) if state.size else 0
        widths = [w for w in (np.uint8, np.uint16) if top < np.iinfo(w).max] + widths
    for width in widths:
        held = _memory.copy(state.astype(width))
        out = kernel(params, rng_state, graph, types, config._replace(cap=int(np.iinfo(width).max)),
                     work._replace(state=held))
        if out.events >= 0:
            return out, held
    raise OverflowError(f"a queue grew past {np.iinfo(np.int32).max} tasks: the simulator keeps queue lengths "
                        f"in 32 bits (shorten `t_grid` or lower the load)")


def simulate_jsqd(system: LocalitySystem, graph: CompatibilityGraph, initial_state, t_grid, seed, *,
                  levels: int = 10) -> SimulationResult:
    """Local JSQ(d) (Sec. 2.2) with the system's ``d``: :func:`simulate` with
    ``LocalJSQ()`` (``d`` distinct neighbours, sampled without replacement)."""
    from .policies import LocalJSQ

    return simulate(system, graph, LocalJSQ(), initial_state, t_grid, seed, levels=levels)


def simulate_gwsq(system: LocalitySystem, graph: CompatibilityGraph, initial_state, t_grid, seed, *,
                  levels: int = 10) -> SimulationResult:
    """GWSQ(d) (Algorithm 1, sign erratum fixed; see the module docstring) with the system's
    ``d``: :func:`simulate` with ``GWSQ()`` (independent draws, with replacement).

    Only the server types and dispatcher clusters of `graph` are used (GWSQ has no
    graph); the weights use the system's p and the realised type fractions
    ``|V_m| / N``, so that each cluster's weighted distribution sums to 1.
    """
    from .policies import GWSQ

    return simulate(system, graph, GWSQ(), initial_state, t_grid, seed, levels=levels)


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
