"""The L kernel's event loop (``locality/simulation.py``: clock, uniform dispatcher, the
arrival and departure bookkeeping, the recording) on tiny systems, as facts the rule
must satisfy (mutation testing, issue 13):

* the state at time h has the exact transient law of the Markov chain, computed here
  from the model's definition by ``expm_multiply`` (chi-square, level 1e-6);
* what is recorded at every grid point (occupancy, mean and mean square per type) is
  exactly the statistic of the state at that time, obtained by rerunning the same seed
  on the grid cut at that point (the grid draws no random numbers, so the path is the same);
* every event moves the total number of tasks by one, so ``events`` has the parity of
  the change of the total and is at least its size.
"""

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.sparse import csr_matrix, diags
from scipy.sparse.linalg import expm_multiply

from qtheory.locality.exact import local_candidates
from qtheory.locality.graphs import from_adjacency, irg
from qtheory.locality.model import LocalitySystem, paper_system
from qtheory.locality.policies import GWSQ, JIQ, LocalJSQ
from qtheory.locality.simulation import SimulationResult, simulate

# 3 dispatchers with different neighbourhoods (dispatcher 2 has one server), 4 servers;
# type 0 = servers 1 and 2, type 1 = servers 0 and 3, so the kernel's per-type segments
# (type 0 first) do not follow the server numbers
ADJ = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [0, 0, 0, 1]])
TYPES = np.array([1, 0, 0, 1])
CLUSTERS = [0, 0, 1]
RATES = (1.3, 0.8)                 # per type; not 1, so that r / u and r * u differ
LAM = 0.55                         # per dispatcher; not 1, so that r / lambda and r * lambda differ
SYSTEM = LocalitySystem(LAM, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), RATES, ((1.0, 1.0), (1.0, 1.0)), 2)
GRAPH = from_adjacency(ADJ, TYPES, CLUSTERS)
BUFFER = 10                        # the exact chain's truncation (checked below)


def transient_law(x0, h, buffer=BUFFER):
    """Exact law of the local JSQ(2) state at time h from x0, on {0..buffer}^4; the last
    entry is the mass of the paths that would have left the box (an absorbing state)."""
    n = TYPES.size
    states = list(itertools.product(range(buffer + 1), repeat=n))
    index = {s: k for k, s in enumerate(states)}
    out = len(states)
    rows, cols, vals = [], [], []
    routing = [local_candidates(np.nonzero(row)[0], SYSTEM.d) for row in ADJ]
    for s, k in index.items():
        for cands in routing:
            for tup, prob in cands:
                j = min(tup, key=lambda c: s[c])          # the first shortest candidate
                t = list(s)
                t[j] += 1
                rows.append(k), cols.append(index.get(tuple(t), out)), vals.append(LAM * prob)
        for j in range(n):
            if s[j] > 0:
                t = list(s)
                t[j] -= 1
                rows.append(k), cols.append(index[tuple(t)]), vals.append(RATES[TYPES[j]])
    Q = csr_matrix((vals, (rows, cols)), shape=(out + 1, out + 1))
    Q = Q - diags(np.asarray(Q.sum(axis=1)).ravel())
    p0 = np.zeros(out + 1)
    p0[index[tuple(x0)]] = 1.0
    return states, expm_multiply(Q.T.tocsc() * h, p0)


def stats_of(state, server_type, n_types, levels):
    occ = np.array([[np.mean(state[server_type == m] >= l) for l in range(1, levels + 1)]
                    for m in range(n_types)])
    mean = np.array([state[server_type == m].mean() for m in range(n_types)])
    square = np.array([(state[server_type == m].astype(float) ** 2).mean() for m in range(n_types)])
    return occ, mean, square


def assert_counts_follow_law(counts, states, law, runs):
    """Chi-square test of the final states of `runs` runs (`counts`, state -> number of runs)
    against the exact law (`law[k]` of `states[k]`, its last entry the truncated mass): one
    cell per state with expected count >= 5, the rest pooled (at least 20 cells)."""
    expected = runs * law[:-1]
    keep = np.nonzero(expected >= 5)[0]
    obs = np.array([counts.get(states[k], 0) for k in keep], float)
    exp = expected[keep]
    obs, exp = np.append(obs, runs - obs.sum()), np.append(exp, runs - exp.sum())
    assert keep.size > 20 and exp[-1] >= 5
    pvalue = stats.chisquare(obs, exp).pvalue
    assert pvalue > 1e-6, sorted(zip(exp, obs), key=lambda t: -abs(t[0] - t[1]))[:5]


def test_state_at_time_h_has_the_exact_transient_law():
    x0, h, runs = (2, 0, 1, 3), 0.8, 6000
    states, law = transient_law(x0, h)
    assert law[-1] < 1e-5                                       # the truncation is negligible
    counts = {}
    for seed in range(runs):
        res = simulate(SYSTEM, GRAPH, LocalJSQ(), initial_state=np.array(x0), t_grid=[0.0, h], seed=seed, levels=3)
        key = tuple(res.final_state.tolist())
        counts[key] = counts.get(key, 0) + 1
    assert_counts_follow_law(counts, states, law, runs)


def test_the_state_at_time_h_is_the_start_when_nothing_happens():
    # a tiny horizon: with probability about 1 - 5e-6 no event happens before h = 1e-6,
    # so the state at h is the start (a clock run too fast or a grid skipped would move it)
    x0 = np.array([2, 0, 1, 3])
    for seed in range(20):
        res = simulate(SYSTEM, GRAPH, LocalJSQ(), initial_state=x0, t_grid=[0.0, 1e-6], seed=seed, levels=3)
        assert res.final_state.tolist() == x0.tolist() and res.events == 0


@pytest.mark.parametrize("policy", [LocalJSQ(), GWSQ(), JIQ()])
def test_every_recorded_statistic_is_that_of_the_state_at_its_time(policy):
    system = paper_system()
    graph = irg(system, 60, seed=3)
    rng = np.random.default_rng(11)
    x0 = rng.integers(0, 5, graph.n_servers) * (rng.random(graph.n_servers) < 0.6)   # zeros and up to 4
    grid = np.array([0.5, 0.6, 1.0, 1.7, 2.5, 4.0])              # starts after 0, unequal steps
    levels = 2                                                    # queues go beyond the levels
    for seed in range(3):
        full = simulate(system, graph, policy, initial_state=x0, t_grid=grid, seed=seed, levels=levels)
        assert full.final_state.min() >= 0
        for g in range(grid.size):
            state = x0 if g == 0 else simulate(system, graph, policy, initial_state=x0, t_grid=grid[:g + 1], seed=seed,
                                               levels=levels).final_state
            occ, mean, square = stats_of(state, graph.server_type, system.n_types, levels)
            assert np.allclose(full.occupancy[g], occ, rtol=0, atol=1e-12), (g, full.occupancy[g], occ)
            assert np.allclose(full.mean_queue_length[g], mean, rtol=0, atol=1e-12), g
            assert np.allclose(full.mean_square[g], square, rtol=0, atol=1e-12), g
        assert full.final_state.tolist() == state.tolist()
        change = int(full.final_state.sum() - x0.sum())
        assert full.events >= abs(change) and (full.events - change) % 2 == 0, (full.events, change)
        assert full.events > 50                                  # the path is not trivial


def test_events_per_second_is_events_over_wall_time():
    grid = np.zeros(1)
    res = SimulationResult(grid, grid, grid, grid, grid, 10, 0.5)
    assert res.events_per_second == 20.0
    assert SimulationResult(grid, grid, grid, grid, grid, 10, 0.0).events_per_second == float("inf")
