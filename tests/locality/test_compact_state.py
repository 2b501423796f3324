"""The L kernel's compact state (issue 18) changes the time of a run, never its result.

* From N = 2**16 servers on, queue lengths are held in uint8 or uint16 and a run whose
  queue outgrows the type restarts with the next wider one (``_run_kernel``): the result
  must equal that of a run held in int32 throughout, including runs that overflow uint8
  and uint16 on the way.
* When the servers are numbered type by type, the kernel computes a server's type from
  the type boundaries instead of reading ``server_type``, and GWSQ(d) takes the k-th
  server of a type as ``type_first[m] + k`` instead of reading ``type_members``:
  relabelling the servers of the same graph (so that the types are no longer in order)
  must give the same statistics, and GWSQ must take the same path either way.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from numba import njit

import qtheory.locality.simulation as sim
from qtheory import _memory
from qtheory._rng import randint, uniform
from qtheory.locality.graphs import CompatibilityGraph, complete_bipartite, irg
from qtheory.locality.model import paper_system
from qtheory.locality.policies import GWSQ, JIQ, LocalJSQ

SYSTEM = paper_system("design", d=2)
N = 60


def _outputs(res):
    return (res.occupancy, res.mean_queue_length, res.mean_square, res.final_state, res.events)


def _assert_same(a, b):
    for x, y in zip(_outputs(a), _outputs(b)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("policy", [LocalJSQ(d=2), LocalJSQ(d=1), GWSQ(d=2), JIQ()], ids=lambda p: repr(p))
@pytest.mark.parametrize("top", [0, 254, 65534])
def test_narrow_queue_lengths_give_the_int32_result(monkeypatch, policy, top):
    """Start with some queues at `top`: 254 overflows uint8 at the second arrival there,
    65534 starts in uint16 and overflows it; under random routing (d = 1) such arrivals
    are certain in this run. The widths the kernel was called with are recorded, so that
    the test also shows the restarts happened."""
    graph = irg(SYSTEM, N, seed=2)
    x0 = np.zeros(N, np.int64)
    x0[::4] = top
    grid = np.linspace(0.0, 20.0, 41)

    widths = []
    kernel = sim._kernel(policy)

    def spy(params, st, rng_state, graph, types, config, work):
        widths.append(work.state.dtype)
        return kernel(params, st, rng_state, graph, types, config, work)

    monkeypatch.setattr(sim, "_NARROW_FROM", 1 << 40)        # int32 throughout
    wide = sim.simulate(SYSTEM, graph, policy, initial_state=x0, t_grid=grid, seed=7)
    monkeypatch.setattr(sim, "_NARROW_FROM", 0)              # narrow from the first server
    monkeypatch.setattr(sim, "_kernel", lambda pol: spy)
    narrow = sim.simulate(SYSTEM, graph, policy, initial_state=x0, t_grid=grid, seed=7)
    _assert_same(narrow, wide)
    assert widths[0] == (np.uint8 if top < 255 else np.uint16)
    if isinstance(policy, LocalJSQ) and policy.d == 1 and top:
        # random routing sends arrivals to the long queues: the run restarted wider
        assert widths == ([np.uint8, np.uint16] if top == 254 else [np.uint16, np.int32])


def test_a_queue_past_int32_is_an_error_not_a_wrapped_length(monkeypatch):
    """The last width has no wider one: the run stops with a clear error."""
    graph = complete_bipartite(SYSTEM, 4)
    kernel = sim._kernel(LocalJSQ(d=1))

    def capped(params, st, rng_state, graph, types, config, work):
        # pretend int32 holds at most 3 tasks
        return kernel(params, st, rng_state, graph, types, config._replace(cap=3), work)

    monkeypatch.setattr(sim, "_kernel", lambda pol: capped)
    with pytest.raises(OverflowError, match="32 bits"):
        sim.simulate(SYSTEM, graph, LocalJSQ(d=1), initial_state=np.full(4, 3), t_grid=np.linspace(0.0, 5.0, 3), seed=0)


@pytest.mark.parametrize("policy", [LocalJSQ(d=2), LocalJSQ(d=3), JIQ()], ids=lambda p: repr(p))
def test_relabelled_servers_give_the_same_statistics(policy):
    """Local JSQ(d) and JIQ choose by position in the dispatcher's list, and a service slot
    is the k-th server of its type, so renaming the servers (a permutation applied to the
    lists and the types) that keeps their order within each type must leave every recorded
    statistic unchanged; the renamed graph's types are out of order, so its run reads
    ``server_type`` and ``type_members`` while the original computes the types and the k-th
    server of a type from their boundaries."""
    graph = irg(SYSTEM, N, seed=4)
    assert np.all(np.diff(graph.server_type) >= 0)
    shuffled = np.random.default_rng(1).permutation(N)
    sigma = np.empty(N, np.int64)                             # server j is renamed sigma[j]
    for m in range(SYSTEM.n_types):
        members = np.flatnonzero(graph.server_type == m)
        sigma[members] = np.sort(shuffled[members])           # the types interleaved, each in order
    server_type = np.empty(N, np.int64)
    server_type[sigma] = graph.server_type
    renamed = CompatibilityGraph(server_type, graph.dispatcher_cluster, graph.offset, graph.degree,
                                 sigma[graph.neighbors].astype(np.int32), graph.n_types, graph.n_clusters)
    assert not np.all(np.diff(renamed.server_type) >= 0)
    grid = np.linspace(0.0, 30.0, 61)
    a = sim.simulate(SYSTEM, graph, policy, initial_state=np.zeros(N, np.int64), t_grid=grid, seed=3)
    b = sim.simulate(SYSTEM, renamed, policy, initial_state=np.zeros(N, np.int64), t_grid=grid, seed=3)
    for x, y in zip(_outputs(a)[:3], _outputs(b)[:3]):
        np.testing.assert_array_equal(x, y)
    assert a.events == b.events
    np.testing.assert_array_equal(b.final_state[sigma], a.final_state)


@pytest.mark.parametrize("size", [10, 300_000, 1_000_003])
def test_huge_page_arrays_are_ordinary_arrays(size, monkeypatch):
    """Whatever backs it, the array has the requested shape, type and contents."""
    for setting in ("1", "0"):
        monkeypatch.setenv("QTHEORY_HUGE_PAGES", setting)
        a = _memory.empty((size,), np.int32)
        assert a.shape == (size,) and a.dtype == np.int32 and a.flags.c_contiguous and a.flags.writeable
        a[:] = np.arange(size, dtype=np.int32)
        b = _memory.copy(a)
        np.testing.assert_array_equal(b, np.arange(size, dtype=np.int32))
        b[0] = -1
        assert a[0] == 0


def test_gwsq_reads_the_type_members_only_when_the_types_are_out_of_order():
    """On a graph numbered type by type the shortcut and the read of ``type_members`` give
    the same path; on a renamed graph the shortcut is off (it would pick servers of the
    wrong type)."""
    graph = irg(SYSTEM, N, seed=4)
    policy = GWSQ(d=2)
    params = policy.kernel_params(SYSTEM, graph)
    assert params.sorted_members
    server_type = graph.server_type[np.random.default_rng(2).permutation(N)]
    renamed = CompatibilityGraph(server_type, graph.dispatcher_cluster, graph.offset, graph.degree,
                                 graph.neighbors, graph.n_types, graph.n_clusters)
    assert not policy.kernel_params(SYSTEM, renamed).sorted_members

    grid = np.linspace(0.0, 30.0, 61)
    fast = sim.simulate(SYSTEM, graph, policy, initial_state=np.zeros(N, np.int64), t_grid=grid, seed=5)

    class Reading(GWSQ):
        def kernel_params(self, system, graph):
            return super().kernel_params(system, graph)._replace(sorted_members=False)

    _assert_same(sim.simulate(SYSTEM, graph, Reading(d=2), initial_state=np.zeros(N, np.int64), t_grid=grid, seed=5), fast)


# -- arrivals drawn ahead, statistics counted --------------------------------------------------
@pytest.fixture
def lookahead_everywhere(monkeypatch):
    """The large-N mode at every size: arrivals whose dispatchers and uniforms are drawn
    ahead, with their lists prefetched (where the policy reads lists). Records (lookahead
    depth, statistics counted at the recording times) of each kernel call."""
    monkeypatch.setattr(sim, "_AHEAD_FROM_BYTES", 0)
    return _spy_modes(monkeypatch)


def _spy_modes(monkeypatch):
    """A list that receives (lookahead depth, scan) of each kernel call from now on."""
    kernel_of = sim._kernel
    modes = []

    def spying(policy):
        kernel = kernel_of(policy)

        def run(params, st, rng_state, graph, types, config, work):
            modes.append((work.ahead.size, config.scan))
            return kernel(params, st, rng_state, graph, types, config, work)
        return run

    monkeypatch.setattr(sim, "_kernel", spying)
    return modes


def test_arrivals_drawn_ahead_give_the_exact_transient_law(lookahead_everywhere):
    """The chi-square test of `test_mutants_simulation.py` (local JSQ(2), two types, three
    dispatchers, the exact law at time h by expm_multiply) on the same system with the
    servers renamed so that the types are in order (the kernel then computes types and
    service slots from the type boundaries); the dispatchers and uniforms of the arrivals
    are drawn ahead, as at large N."""
    from tests.locality import test_mutants_simulation as exact

    order = np.argsort(exact.TYPES, kind="stable")        # new server k is old server order[k]
    graph = exact.from_adjacency(exact.ADJ[:, order], exact.TYPES[order], exact.CLUSTERS)
    x0, h, runs = np.array((2, 0, 1, 3)), 0.8, 6000
    states, law = exact.transient_law(tuple(x0), h)
    counts = {}
    for seed in range(runs):
        res = sim.simulate(exact.SYSTEM, graph, LocalJSQ(), initial_state=x0[order], t_grid=[0.0, h], seed=seed, levels=3)
        back = np.empty(4, np.int64)
        back[order] = res.final_state
        counts[tuple(back.tolist())] = counts.get(tuple(back.tolist()), 0) + 1
    assert {depth for depth, _ in lookahead_everywhere} == {sim._AHEAD}
    exact.assert_counts_follow_law(counts, states, law, runs)


@pytest.mark.parametrize("scan", [False, True], ids=["per-event", "counted"])
@pytest.mark.parametrize("policy", [LocalJSQ(), GWSQ(), JIQ()], ids=lambda p: repr(p))
def test_both_ways_of_keeping_statistics_record_those_of_the_state(monkeypatch, lookahead_everywhere, policy, scan):
    """The bookkeeping check of `test_mutants_simulation.py` (every recorded statistic is
    that of the state at its time) with the statistics kept up to date per event and with
    them counted at the recording times, the arrivals drawn ahead."""
    from tests.locality.test_mutants_simulation import test_every_recorded_statistic_is_that_of_the_state_at_its_time

    monkeypatch.setattr(sim, "_SCAN_SHARE", np.inf if scan else 0.0)
    test_every_recorded_statistic_is_that_of_the_state_at_its_time(policy)
    assert set(lookahead_everywhere) == {(0 if isinstance(policy, GWSQ) else sim._AHEAD, scan)}


def test_the_statistics_are_counted_where_that_reads_fewer_servers_than_the_run_takes_steps(monkeypatch):
    """``scan`` when N x (recording times - 1) <= _SCAN_SHARE x the expected steps, Lambda x
    (t_end - t_0), Lambda = lambda W + sum_m u_m |V_m|: with the paper's system (lambda = 3,
    u = 1, 5, 10 on 50/30/20 % of the servers) Lambda = 7 N, so a grid of 41 points counts
    N x 40 servers against 7 N x 20 x _SCAN_SHARE steps; the same two ways give the same
    numbers (the kernel's statistics are exact either way)."""
    modes = _spy_modes(monkeypatch)
    graph = irg(SYSTEM, N, seed=2)
    x0 = np.zeros(N, np.int64)
    results = {}
    for share, grid, expected in ((1.0, np.linspace(0.0, 20.0, 41), True),
                                  (1.0, np.linspace(0.0, 20.0, 7 * 20 + 2), False),
                                  (1.0, np.linspace(0.0, 20.0, 7 * 20 + 1), True),
                                  (40 / 140 * (1 - 1e-9), np.linspace(0.0, 20.0, 41), False)):
        monkeypatch.setattr(sim, "_SCAN_SHARE", share)
        modes.clear()
        res = sim.simulate(SYSTEM, graph, LocalJSQ(), initial_state=x0, t_grid=grid, seed=3)
        assert [scan for _, scan in modes] == [expected], (share, grid.size)
        if grid.size == 41:
            results[expected] = res
    _assert_same(results[True], results[False])


def test_dispatchers_drawn_ahead_are_uniform_and_used_in_turn(lookahead_everywhere):
    """With lookahead, dispatcher i of an arrival is an independent uniform draw: on a graph
    where dispatcher i's only server is server i (one type, service so slow that no task
    leaves), the tasks per server after many runs are multinomial with equal cells
    (chi-square); the exact-law test above covers the rest."""
    from scipy import stats
    from qtheory.locality.graphs import from_adjacency
    from qtheory.locality.model import LocalitySystem

    w = 5
    system = LocalitySystem(0.7, 1.0, (1.0,), (1.0,), (1e-12,), ((1.0,),), 1)
    graph = from_adjacency(np.eye(w, dtype=np.int64), np.zeros(w, np.int64), np.zeros(w, np.int64))
    totals = np.zeros(w)
    for seed in range(400):
        res = sim.simulate(system, graph, LocalJSQ(d=1), initial_state=np.zeros(w, np.int64), t_grid=[0.0, 0.01, 3.0], seed=seed)
        totals += res.final_state
    assert {depth for depth, _ in lookahead_everywhere} == {sim._AHEAD}
    assert totals.sum() > 4000 and stats.chisquare(totals).pvalue > 1e-6


# -- what the lookahead prefetches ------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3])
def test_the_jsqd_lookahead_prefetches_the_entries_the_rule_compares(monkeypatch, d):
    """``LocalJSQ.lookahead`` (run as Python, with ``prefetch`` recording its indices), given
    an arrival's dispatcher and uniform ``u``, names the list entries the rule then compares:
    with d = 2 exactly the two servers it chooses between (the shorter one under a state and
    under the reversed state), with d = 1 (or a list shorter than d) the one it joins, else
    every cache line of the list. A prefetch changes no value, so only this can show a
    lookahead that prefetches the wrong lines."""
    from qtheory import runtime
    from qtheory.locality import policies
    from qtheory.locality.policies import jsqd

    seen = []
    for module in (jsqd, policies):          # the whole list: the default, policies.prefetch_list
        monkeypatch.setattr(module, "prefetch", lambda arr, k: seen.append((arr, int(k))))
    monkeypatch.setattr(jsqd, "prefetch_list", policies.prefetch_list.py_func)
    graph = irg(SYSTEM, 200, seed=4)
    params = LocalJSQ(d=d).kernel_params(SYSTEM, graph)
    offset, degree, neighbors = graph.offset, graph.degree, graph.neighbors
    state = np.random.default_rng(1).permutation(graph.n_servers)       # distinct lengths
    rule = jsqd.rule.py_func
    uniforms = np.random.default_rng(2).random(60)
    tested = 0
    for seed in range(60):
        i = seed % graph.n_dispatchers
        u = float(uniforms[seed])
        seen.clear()
        jsqd.lookahead.py_func(params, i, u, offset, degree, neighbors)
        assert all(arr is neighbors for arr, _ in seen)
        positions = [k for _, k in seen]
        base, deg = int(offset[i]), int(degree[i])
        chosen = {rule(params, runtime.kernel_state(seed), i, u, x, offset, degree, neighbors)
                  for x in (state, state.max() - state)}
        if d <= 2 and deg >= 2:
            assert len(positions) == d and set(neighbors[positions].tolist()) == chosen
            tested += 1
        elif deg < d:
            assert len(positions) == 1 and set(neighbors[positions].tolist()) == chosen
        else:
            assert positions == list(range(base, base + deg, 16))
    assert d > 2 or tested > 50
    # dispatchers of one and two servers: one entry to prefetch, the one joined; with d = 2 both
    # entries of a list of two (in some order)
    from qtheory.locality.graphs import from_adjacency

    small = from_adjacency(np.array([[0, 1, 0], [1, 0, 1]]), np.zeros(3, np.int64), np.zeros(2, np.int64))
    for i, u in ((0, 0.3), (1, 0.2), (1, 0.7)):
        seen.clear()
        jsqd.lookahead.py_func(params, i, u, small.offset, small.degree, small.neighbors)
        joined = rule(params, runtime.kernel_state(0), i, u, np.zeros(3, np.int64), small.offset, small.degree,
                      small.neighbors)
        entries = sorted(k - int(small.offset[i]) for _, k in seen)
        if i == 1 and d == 2:
            assert entries == [0, 1]
        else:
            assert [small.neighbors[int(small.offset[i]) + k] for k in entries] == [joined]
            assert i == 0 or entries == [int(u * 2)]


TraceParams = namedtuple("TraceParams", ["rule_log", "ahead_log", "count"])


@njit(cache=True)
def _tracing_rule(params, rng, i, u, offset, degree, neighbors):
    """Records (dispatcher, uniform u); joins a uniform neighbour."""
    k = params.count[0]
    if k < params.rule_log.shape[0]:
        params.rule_log[k, 0] = i
        params.rule_log[k, 1] = u
    params.count[0] = k + 1
    c = randint(rng, degree[i])
    return neighbors[offset[i] + c]


@njit(cache=True)
def _tracing_lookahead(params, i, u, offset, degree, neighbors):
    """Records what the kernel's lookahead point is given."""
    k = params.count[1]
    if k < params.ahead_log.shape[0]:
        params.ahead_log[k, 0] = i
        params.ahead_log[k, 1] = u
    params.count[1] = k + 1
    return k


def test_the_lookahead_is_given_each_arrival_and_its_uniform_before_the_rule(monkeypatch):
    """The kernel's pipeline: the lookahead point sees every arrival (dispatcher and uniform
    ``u``) ``_AHEAD / 2`` arrivals before the rule decides it with them, in the same order;
    the uniforms of different arrivals differ, and the dispatchers are all used. A spliced
    policy that records both points on an irg graph in the large-N mode."""
    from qtheory import _splice
    from qtheory.locality.policies import Policy

    monkeypatch.setattr(sim, "_AHEAD_FROM_BYTES", 0)
    kernel = _splice.specialise(sim._kernel_template, _tracing_rule, {"touch": _tracing_lookahead})
    passed = []

    def spy(params, *rest):       # the kernel writes its logs into the copy of params it is given
        passed.append(params)
        return kernel(params, *rest)
    monkeypatch.setattr(sim, "_kernel", lambda policy: spy)
    size = 4000

    class Tracing(Policy):  # no `name`: not registered
        def kernel_params(self, system, graph):
            return TraceParams(np.zeros((size, 2)), np.zeros((size, 2)), np.zeros(2, np.int64))

    graph = irg(SYSTEM, N, seed=2)
    sim.simulate(SYSTEM, graph, Tracing(), initial_state=np.zeros(N, np.int64), t_grid=[0.0, 10.0], seed=9)
    (params,) = passed
    decided, looked = params.count
    half = sim._AHEAD // 2
    assert size > decided > 1000 and looked == decided
    np.testing.assert_array_equal(params.ahead_log[:decided - half], params.rule_log[half:decided])
    assert np.unique(params.rule_log[:decided, 1]).size == decided
    assert np.unique(params.rule_log[:decided, 0]).size == graph.n_dispatchers
    assert 0.0 <= params.rule_log[:decided, 1].min() and params.rule_log[:decided, 1].max() < 1.0


@pytest.mark.parametrize("policy, reads", [(LocalJSQ(), True), (JIQ(), True), (GWSQ(), False)],
                         ids=lambda p: repr(p))
def test_the_lookahead_starts_at_lists_of_ahead_from_bytes(monkeypatch, policy, reads):
    """Arrivals are drawn ahead when the policy reads lists, the lists hold at least
    ``_AHEAD_FROM_BYTES`` (a threshold of the graph, not of N) and their mean length is at most
    ``_AHEAD_DEGREE``; never on the complete graph, whose one shared list stays cached."""
    modes = _spy_modes(monkeypatch)
    graph = irg(SYSTEM, N, seed=2)
    for limit, expected in ((graph.neighbors.nbytes + 1, 0), (graph.neighbors.nbytes, sim._AHEAD)):
        monkeypatch.setattr(sim, "_AHEAD_FROM_BYTES", limit)
        modes.clear()
        sim.simulate(SYSTEM, graph, policy, initial_state=np.zeros(N, np.int64), t_grid=[0.0, 1.0], seed=1)
        assert [depth for depth, _ in modes] == [expected if reads else 0]
    # and when the mean list is at most _AHEAD_DEGREE entries (the default lookahead reads whole lists)
    mean = float(graph.degree.mean())
    for limit, expected in ((mean, sim._AHEAD), (np.nextafter(mean, 0.0), 0)):
        monkeypatch.setattr(sim, "_AHEAD_DEGREE", limit)
        modes.clear()
        sim.simulate(SYSTEM, graph, policy, initial_state=np.zeros(N, np.int64), t_grid=[0.0, 1.0], seed=1)
        assert [depth for depth, _ in modes] == [expected if reads else 0]
    modes.clear()
    monkeypatch.setattr(sim, "_AHEAD_FROM_BYTES", 0)       # whatever the size of its one list
    monkeypatch.setattr(sim, "_AHEAD_DEGREE", np.inf)
    sim.simulate(SYSTEM, complete_bipartite(SYSTEM, N), policy, initial_state=np.zeros(N, np.int64), t_grid=[0.0, 1.0], seed=1)
    assert [depth for depth, _ in modes] == [0]
