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

import numpy as np
from scipy.sparse import csr_matrix

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_real


__all__ = ["local_candidates", "gwsq_candidates", "stationary", "type_occupancy"]


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
    """Stationary distribution over states in {0..buffer}^N; returns (states, pi).

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
    size = states.shape[0]
    Q = csr_matrix((vals, (rows, cols)), shape=(size, size))
    out = np.asarray(Q.sum(axis=1)).ravel()
    # power iteration on the uniformised chain P = I + Q / rate (a direct sparse solve
    # fills in badly on this grid-shaped chain)
    rate = out.max() * 1.05
    PT = (Q / rate).T.tocsr()
    stay = 1.0 - out / rate
    pi = np.full(size, 1.0 / size)
    for it in range(200000):
        new = PT @ pi + stay * pi
        new /= new.sum()
        if it % 50 == 0 and np.abs(new - pi).sum() < 1e-15:
            pi = new
            break
        pi = new
    else:
        raise RuntimeError("power iteration did not converge")
    return states, pi


def type_occupancy(states, pi, server_type, levels):
    """Stationary ``q_{m,l}`` (l = 1..levels) per server type from (states, pi)."""
    server_type = np.asarray(server_type)
    M = server_type.max() + 1
    out = np.zeros((M, levels))
    for m in range(M):
        cols = np.nonzero(server_type == m)[0]
        for l in range(1, levels + 1):
            out[m, l - 1] = (pi[:, None] * (states[:, cols] >= l)).sum() / cols.size
    return out
