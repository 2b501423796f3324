"""Exact stationary law of tiny systems from their Markov chain (Lemma 1 setting).

Written independently of the numba simulators, as a check on them: the routing of a
policy is a list, per dispatcher, of (ordered candidate tuple, probability); a task
joins the first shortest candidate (so a uniformly ordered sample breaks ties fairly).
Queues are truncated at `buffer` (arrivals beyond it are dropped); the caller checks
that the truncated mass is negligible.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from .._chain import reachable_chain, stationary_law
from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_real


__all__ = ["local_candidates", "local_candidates_with_replacement", "gwsq_candidates", "stationary",
           "policy_stationary", "type_occupancy", "OccupancyLaw", "occupancy_stationary"]


def local_candidates(neighbourhood, d):
    """Local JSQ(d): all ordered d-tuples of distinct neighbours, equally likely
    (a uniform neighbour when the neighbourhood has fewer than d servers)."""
    nb = [int(j) for j in check_array("neighbourhood", neighbourhood, ndim=1, low=0, dtype=np.int64)]
    if not nb:
        raise ParameterError("`neighbourhood` must not be empty: the dispatcher needs a server")
    d = check_integer("d", d, low=1)
    if len(nb) < d:
        return [((j,), 1.0 / len(nb)) for j in nb]
    tuples = list(itertools.permutations(nb, d))
    return [(t, 1.0 / len(tuples)) for t in tuples]


def local_candidates_with_replacement(neighbourhood, d):
    """The alternative reading of local JSQ(d) with d independent uniform picks (repeats
    allowed): all ordered d-tuples of neighbours, equally likely. Used to show that the
    simulator (distinct picks, Sec. 2.2) is told apart from this reading."""
    nb = [int(j) for j in check_array("neighbourhood", neighbourhood, ndim=1, low=0, dtype=np.int64)]
    if not nb:
        raise ParameterError("`neighbourhood` must not be empty: the dispatcher needs a server")
    d = check_integer("d", d, low=1)
    tuples = list(itertools.product(nb, repeat=d))
    return [(t, 1.0 / len(tuples)) for t in tuples]


def gwsq_candidates(server_type, share_k, d):
    """GWSQ(d) for one cluster: d independent candidates, type m with probability
    ``share_k[m]`` and then a uniform server of that type."""
    server_type = check_array("server_type", server_type, ndim=1, low=0, dtype=np.int64)
    share_k = check_array("share_k", share_k, ndim=1, low=0.0, high=1.0)
    if share_k.size < server_type.max(initial=-1) + 1:
        raise ParameterError(f"`share_k` must have an entry per server type (got {share_k.size})")
    d = check_integer("d", d, low=1)
    sizes = np.bincount(server_type)
    weight = [share_k[server_type[j]] / sizes[server_type[j]] for j in range(server_type.size)]
    out = []
    for t in itertools.product(range(server_type.size), repeat=d):
        p = math.prod(weight[j] for j in t)
        if p > 0:
            out.append((t, p))
    return out


def stationary(candidates_per_dispatcher, arrival_rate, server_rates, buffer):
    """Stationary distribution over states in :math:`\\{0, \\dots, b\\}^N` (`b` = `buffer`); returns (states, pi).

    Parameters
    ----------
    candidates_per_dispatcher : list of lists of (tuple, probability)
    arrival_rate : float
        Poisson rate at every dispatcher.
    server_rates : (N,) array
    buffer : int
    """
    arrival_rate = check_positive("arrival_rate", arrival_rate)
    server_rates = check_array("server_rates", server_rates, ndim=1, low=0.0, low_open=True)
    buffer = check_integer("buffer", buffer, low=1)
    n = server_rates.size
    if n == 0:
        raise ParameterError("`server_rates` must not be empty")
    for i, cands in enumerate(candidates_per_dispatcher):
        for tup, prob in cands:
            if len(tup) == 0 or min(tup) < 0 or max(tup) >= n:
                raise ParameterError(f"`candidates_per_dispatcher[{i}]` names server(s) {tuple(tup)} outside "
                                     f"0..{n - 1} (one entry of `server_rates` per server)")
            check_real("candidate probability", prob, low=0.0, high=1.0)
    states = np.array(list(itertools.product(range(buffer + 1), repeat=n)), dtype=np.int64)
    base = (buffer + 1) ** np.arange(n - 1, -1, -1)
    idx = np.arange(states.shape[0])
    rows, cols, vals = [], [], []
    for cands in candidates_per_dispatcher:
        for tup, prob in cands:
            tup = np.asarray(tup)
            target = tup[np.argmin(states[:, tup], axis=1)]        # first shortest, per state
            ok = states[idx, target] < buffer
            rows.append(idx[ok])
            cols.append(idx[ok] + base[target[ok]])
            vals.append(np.full(ok.sum(), arrival_rate * prob))
    for j in range(n):
        ok = states[:, j] > 0
        rows.append(idx[ok])
        cols.append(idx[ok] - base[j])
        vals.append(np.full(ok.sum(), float(server_rates[j])))
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    return states, _power_stationary(rows, cols, vals, states.shape[0])


def _power_stationary(rows, cols, vals, size) -> np.ndarray:
    """The stationary law of the chain with rates ``vals`` from ``rows`` to ``cols``, by power
    iteration on the uniformised chain (a direct sparse solve fills in badly on this
    grid-shaped chain): :func:`qtheory._chain.stationary_law`."""
    Q = csr_matrix((vals, (rows, cols)), shape=(size, size))
    return stationary_law(Q, method="power")


def policy_stationary(system, graph, policy, buffer: int, *, max_states: int = 2_000_000):
    """Stationary law of `policy` on a tiny `graph` with queues truncated at `buffer`, from the
    policy's ``exact_rule`` (its plain-Python reading, independent of the simulator's rule);
    returns ``(states, pi)``: the queue-length vectors (one row per state of the chain) and
    their stationary probabilities.

    Tasks arrive at every dispatcher at rate ``system.arrival_rate`` and go where
    ``policy.exact_rule(system, graph, i, state)`` sends them (dropped at a full queue);
    server j completes at rate ``system.u[server_type[j]]``. A policy with memory
    (``exact_start`` not None) is a chain over (queue lengths, policy state): its exact rule
    also takes and returns the policy state; a row of ``states`` is then repeated for each
    policy state it is seen with (sum ``pi`` over equal rows for the law of the queues).
    The chain is enumerated from the empty queues and the policy's start
    (:func:`qtheory._chain.reachable_chain`) and solved by power iteration. The caller checks
    that the truncated mass is negligible.
    """
    from .policies import as_policy

    pol = as_policy(policy)
    if pol.exact_rule is None:
        raise ParameterError(f"policy {pol!r} has no `exact_rule`: its exact chain cannot be built")
    buffer = check_integer("buffer", buffer, low=1)
    max_states = check_integer("max_states", max_states, low=1)
    n = graph.n_servers
    if (buffer + 1) ** n > max_states:
        raise ParameterError(f"the chain has (buffer + 1)^N = {(buffer + 1) ** n} queue states > `max_states` = "
                             f"{max_states}: lower `buffer` or use a smaller graph")
    rates = np.asarray(system.u, dtype=float)[np.asarray(graph.server_type)]
    lam = float(system.arrival_rate)
    start = pol.exact_start(system, graph)
    stateful = start is not None

    def moves(chain_state):
        queues, memory = chain_state
        state = np.array(queues)
        for i in range(graph.n_dispatchers):
            law = (pol.exact_rule(system, graph, i, state, memory) if stateful
                   else pol.exact_rule(system, graph, i, state))
            for outcome in law:
                j, prob = int(outcome[0]), outcome[1]
                nxt_memory = outcome[2] if stateful else None
                if queues[j] < buffer:
                    nxt = list(queues)
                    nxt[j] += 1
                    yield (tuple(nxt), nxt_memory), lam * prob
        for j in range(n):
            if queues[j] > 0:
                nxt = list(queues)
                nxt[j] -= 1
                yield (tuple(nxt), memory), rates[j]

    order, Q = reachable_chain(((0,) * n, start), moves, max_states=max_states,
                               hint="raise `max_states`, lower `buffer` or use a smaller graph")
    states = np.array([q for q, _ in order], dtype=np.int64)
    return states, stationary_law(Q, method="power")


def type_occupancy(states, pi, server_type, levels):
    """Stationary :math:`q_{m,\\ell}` (:math:`\\ell = 1, \\dots,` `levels`) per server type from (states, pi)."""
    server_type = np.asarray(server_type)
    M = server_type.max() + 1
    out = np.zeros((M, levels))
    for m in range(M):
        cols = np.nonzero(server_type == m)[0]
        for l in range(1, levels + 1):
            out[m, l - 1] = (pi[:, None] * (states[:, cols] >= l)).sum() / cols.size
    return out


# -- the occupancy chain of exchangeable systems ---------------------------------------
@dataclass(frozen=True)
class OccupancyLaw:
    """Result of :func:`occupancy_stationary`.

    Attributes
    ----------
    occupancy : (M, buffer) array
        Stationary ``E[q^N_{m,l}]``, l = 1..buffer.
    mean_queue_length : (M,) array
        Stationary mean queue length per server type.
    boundary_mass : float
        ``max_m E[fraction of type-m servers holding `buffer` tasks]``: the share of
        arrivals the truncation could have turned away, which bounds its effect.
    n_states : int
    servers_per_type : (M,) int array
    """

    occupancy: np.ndarray
    mean_queue_length: np.ndarray
    boundary_mass: float
    n_states: int
    servers_per_type: np.ndarray


def _multisets(n: int, buffer: int) -> np.ndarray:
    """All count vectors (c_0..c_buffer) of n exchangeable servers over lengths 0..buffer."""
    rows = [np.bincount(np.array(c, dtype=np.int64), minlength=buffer + 1)
            for c in itertools.combinations_with_replacement(range(buffer + 1), n)]
    return np.array(rows, dtype=np.int64)


def occupancy_stationary(system, n_servers: int, *, policy="gwsq", buffer: int = 8,
                         max_states: int = 3_000_000) -> OccupancyLaw:
    """Exact stationary occupancy of the N-server system whose servers of a type are exchangeable.

    The state is, for each server type, how many of its servers hold 0, 1, ..., `buffer`
    tasks (arrivals to a full queue are turned away). ``policy=GWSQ()`` (or ``"gwsq"``): GWSQ(d) with
    independent draws (type m with probability ``v_m p_{k,m} / delta_k`` from the
    realised type sizes, then a uniform server of that type; the first shortest draw
    wins). ``LocalJSQ()`` (or ``"jsqd"``): local JSQ(d) on the complete bipartite graph (d
    distinct servers); checked by :func:`qtheory.locality.refined.check_population_policy`.
    Sizes as in :func:`qtheory.locality.model.system_sizes`. The stationary
    law solves ``pi G = 0`` by a sparse LU factorisation (``scipy.sparse.linalg.splu``), states
    ordered by their total number of tasks.
    """
    from scipy.sparse.linalg import splu

    from .model import system_sizes

    from .policies import GWSQ
    from .refined import check_population_policy

    gwsq = isinstance(check_population_policy(system, policy), GWSQ)
    buffer = check_integer("buffer", buffer, low=1)
    sizes = system_sizes(system, check_integer("n_servers", n_servers, low=1))
    n_m = sizes.servers_per_type
    n_k = sizes.dispatchers_per_cluster
    N = int(n_m.sum())
    M, d, B1 = system.n_types, system.d, buffer + 1
    per_type = [_multisets(int(c), buffer) for c in n_m]
    n_states = int(np.prod([len(s) for s in per_type]))
    if n_states > max_states:
        raise ParameterError(f"the chain has {n_states} states > `max_states` = {max_states}; "
                             f"lower `buffer` or `n_servers`")
    # A type's state is its sorted tuple of queue lengths, keyed in base buffer + 1
    # (position i has weight (buffer + 1)^i); the chain's state is the tuple of the
    # types' indices in mixed radix.
    type_keys, type_order, type_sorted = [], [], []
    for m, cnt in enumerate(per_type):
        if (B1 ** int(n_m[m])) >= 2 ** 62:
            raise ParameterError(f"`buffer` = {buffer} with {int(n_m[m])} servers of type {m} overflows the "
                                 "64-bit state key; lower `buffer` or `n_servers`")
        pos_weight = B1 ** np.arange(int(n_m[m]), dtype=np.int64)
        lengths = np.array([np.repeat(np.arange(B1), c) for c in cnt], dtype=np.int64).reshape(len(cnt), -1)
        key = lengths @ pos_weight
        order_m = np.argsort(key)
        type_keys.append(key)
        type_order.append(order_m)
        type_sorted.append(key[order_m])
    stride = np.ones(M, dtype=np.int64)
    for m in range(M - 2, -1, -1):
        stride[m] = stride[m + 1] * len(per_type[m + 1])
    grids = np.meshgrid(*[np.arange(len(c)) for c in per_type], indexing="ij")
    type_index = np.stack([g.ravel() for g in grids], axis=1)                   # (S, M)
    counts = np.stack([per_type[m][type_index[:, m]] for m in range(M)], axis=1)  # (S, M, B1)
    below = np.cumsum(counts, axis=2)                                           # servers with <= j tasks

    def move(m, j, step, ok):
        """Index of the state where one type-m server of the states `ok` goes from j to j + step."""
        pos = below[ok, m, j] - 1 if step > 0 else below[ok, m, j] - counts[ok, m, j]
        new_key = type_keys[m][type_index[ok, m]] + step * B1 ** pos
        new_index = type_order[m][np.searchsorted(type_sorted[m], new_key)]
        # states are numbered in mixed radix of the type indices (the meshgrid order)
        return np.nonzero(ok)[0] + (new_index - type_index[ok, m]) * stride[m]

    atleast = counts[:, :, ::-1].cumsum(axis=2)[:, :, ::-1] / n_m[None, :, None]   # (S, M, B1): P(>= j)
    atleast = np.concatenate([atleast, np.zeros((n_states, M, 1))], axis=2)      # level buffer + 1
    v_n = n_m / N
    if gwsq:
        share = system.p * v_n[None, :]
        share /= share.sum(axis=1, keepdims=True)                              # (K, M)
    else:
        share = np.tile(v_n, (system.n_clusters, 1))

    def all_in(x):                                                              # P(all d draws in a set)
        if gwsq:
            return x ** d
        if N < d:
            return x
        out = np.ones_like(x)
        for h in range(d):
            out *= np.maximum(N * x - h, 0.0) / (N - h)
        return out

    rows, cols, vals = [], [], []
    idx = np.arange(n_states)
    for j in range(buffer):
        for k in range(system.n_clusters):
            a = np.einsum("m,sm->s", share[k], atleast[:, :, j])               # candidate length >= j
            b = np.einsum("m,sm->s", share[k], atleast[:, :, j + 1])
            p_min = all_in(a) - all_in(b)                                       # P(shortest draw has j tasks)
            exact_j = a - b
            for m in range(M):
                # the winner is a type-m server with j tasks in proportion share_k[m] x_{m,j}
                part = share[k, m] * (atleast[:, m, j] - atleast[:, m, j + 1])
                with np.errstate(invalid="ignore", divide="ignore"):
                    prob = np.where(exact_j > 0, p_min * part / np.where(exact_j > 0, exact_j, 1.0), 0.0)
                rate = system.arrival_rate * n_k[k] * prob
                ok = rate > 0
                rows.append(idx[ok])
                cols.append(move(m, j, 1, ok))
                vals.append(rate[ok])
    for m in range(M):
        for j in range(1, B1):
            rate = system.u[m] * counts[:, m, j]
            ok = rate > 0
            rows.append(idx[ok])
            cols.append(move(m, j, -1, ok))
            vals.append(rate[ok].astype(float))
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    G = csr_matrix((vals, (rows, cols)), shape=(n_states, n_states))
    G = G - csr_matrix((np.asarray(G.sum(axis=1)).ravel(), (idx, idx)), shape=(n_states, n_states))
    # pi G = 0 with pi_0 = 1 (state 0: all queues empty); the others solve
    # G^T[1:, 1:] x = -G^T[1:, 0]. Ordered by the total number of tasks, which moves by
    # +-1 per event, the matrix is block tridiagonal and an LU in that order fills in least.
    total = (counts * np.arange(B1)[None, None, :]).sum(axis=(1, 2))
    perm = np.argsort(total, kind="stable")
    if perm[0] != 0:  # pragma: no cover - the empty state is the only one with no task
        raise RuntimeError("state 0 must be the empty state")
    GT = G.T.tocsr()[perm][:, perm].tocsc()
    lu = splu(GT[1:, 1:], permc_spec="NATURAL")
    pi_perm = np.concatenate([[1.0], lu.solve(-GT[1:, [0]].toarray().ravel())])
    pi = np.empty(n_states)
    pi[perm] = pi_perm
    if pi.min() < -1e-9 * pi.max():
        raise RuntimeError("the sparse solve returned a negative probability")
    pi = np.maximum(pi, 0.0)
    pi /= pi.sum()
    occ = np.einsum("s,smj->mj", pi, atleast[:, :, 1:B1])
    mean_len = (np.arange(B1)[None, :] * np.einsum("s,smj->mj", pi, counts)).sum(axis=1) / n_m
    boundary = float((np.einsum("s,sm->m", pi, counts[:, :, buffer]) / n_m).max())
    return OccupancyLaw(occ, mean_len, boundary, n_states, n_m.copy())
