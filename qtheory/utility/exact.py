"""Exact stationary quantities of small systems, an independent check of the simulators.

The continuous-time Markov chain of Sec. 3.3 (occupancies of every pool, and SLTA's
index ``r_n``) is enumerated from the empty state, with arrivals blocked once the
system holds `max_tasks` tasks, and its stationary law is solved directly. The
dispatching rules are read in plain Python from the paper's description, independently of
the numba kernel: SLTA's (Sec. 3.2) here, the others' in their policy files (each
policy's ``exact_rule``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.linalg import spsolve

from ..errors import ParameterError
from ..validation import check_integer, check_positive
from .model import TIE_DECIMALS, PoolSystem, enumeration, tabulate
from .policies import as_policy
from .simulation import default_beta

__all__ = ["ExactStationary", "exact_stationary"]

@dataclass(frozen=True)
class ExactStationary:
    """Stationary law of the truncated chain.

    Attributes
    ----------
    mean_utility, mean_tasks : float
        Stationary mean utility per pool and mean ``s_n``.
    r_distribution : dict
        ``r -> probability`` of SLTA's index (``{1: 1.0}`` for other policies).
    states : int
        Number of states of the chain.
    class_tasks : ndarray, shape (m,)
        Mean number of tasks in the pools of each class, divided by ``n``.
    """

    mean_utility: float
    mean_tasks: float
    r_distribution: dict
    states: int
    class_tasks: np.ndarray


def _dispatch(pol, occ, cls, r, key, thresholds, ecls, elev, green_min):
    """List of (pool, probability) for an arrival in state `occ` (and the r update).

    A policy without the index ``r_n`` brings its plain-Python reading, its ``exact_rule``
    (written from the paper's description, Sec. 3.1 and 8.3, independently of its compiled
    rule); SLTA's learning step is read here from Sec. 3.2."""
    if not pol.has_index:
        return pol.exact_rule(occ, cls, key), r
    n = len(occ)
    # SLTA (Sec. 3.2)
    thr = thresholds(r)
    ir, jr = int(ecls[r - 1]), int(elev[r - 1])
    prev = int(ecls[r - 2]) if r >= 2 else -1
    green = [p for p in range(n) if occ[p] < thr[cls[p]]]
    yellow = [p for p in range(n) if cls[p] == ir and occ[p] <= jr - 1]
    dec = prev >= 0 and len(green) >= green_min and any(cls[p] == prev for p in green)
    inc = len(green) == 0 and len(yellow) <= 1
    other = [p for p in green if cls[p] != prev]
    if other:
        chosen = other
    elif green:
        chosen = green
    elif yellow:
        chosen = yellow
    else:
        chosen = list(range(n))
    new_r = r - 1 if dec else (r + 1 if inc else r)
    return [(p, 1.0 / len(chosen)) for p in chosen], new_r


def exact_stationary(system: PoolSystem, n: int, policy, *, max_tasks: int, beta: float | None = None,
                     target_class: int | None = None) -> ExactStationary:
    """Stationary mean utility (per pool), mean ``s_n`` and law of ``r_n`` of the chain with
    ``n`` pools, arrivals blocked at `max_tasks` tasks (exact up to that truncation).

    `policy` is a :mod:`qtheory.utility.policies` object or a registered name (then with
    `beta`, `target_class` as keywords); the chain keeps its own implementation of each
    rule, independent of the simulation kernel. SLTA's ``r0`` does not enter (stationary law)."""
    if target_class is not None:  # checked for every policy, as before
        check_integer("target_class", target_class, low=0, high=system.m - 1)
    pol = as_policy(policy, beta=beta, target_class=target_class)
    policy, beta, target_class = pol.name, getattr(pol, "beta", None), getattr(pol, "target_class", None)
    if not pol.has_index and pol.exact_rule is None:
        raise ParameterError(f"policy {policy!r} has no `exact_rule`: the exact chain cannot be built")
    n = check_integer("n", n, low=1)
    max_tasks = check_integer("max_tasks", max_tasks, low=1)
    counts = system.pool_counts(n)
    cls = np.repeat(np.arange(system.m), counts)
    values = tabulate(system.utilities, max_tasks + 1)
    key = np.round(np.diff(values, axis=1), TIE_DECIMALS)
    en = enumeration(system, max_tasks + 2)
    ecls, elev = en.cls, en.level
    beta = default_beta(n) if beta is None else check_positive("beta", beta)
    green_min = n * beta
    if target_class is not None:  # a policy object's target_class, checked against the system
        check_integer("target_class", target_class, low=0, high=system.m - 1)

    def thresholds(r):
        thr = np.zeros(system.m, dtype=int)
        for k in range(r - 1):
            thr[ecls[k]] += 1
        return thr

    def canon(occ, r):
        # pools of a class are exchangeable: sort occupancies within each class
        out = []
        start = 0
        for c in counts:
            out.extend(sorted(occ[start:start + c]))
            start += c
        return tuple(out), (r if pol.has_index else 1)

    lam, mu = system.lam, system.mu
    start = canon([0] * n, 1)
    index = {start: 0}
    queue = deque([start])
    rows, cols, rates = [], [], []
    while queue:
        state = queue.popleft()
        occ, r = state
        k = index[state]
        targets = []
        if sum(occ) < max_tasks:
            probs, new_r = _dispatch(pol, occ, cls, r, key, thresholds, ecls, elev, green_min)
            if new_r > en.valid:
                raise ParameterError("SLTA index beyond the enumeration; raise `max_tasks`")
            for p, pr in probs:
                nxt = list(occ)
                nxt[p] += 1
                targets.append((canon(nxt, new_r), n * lam * pr))
        for p in range(n):
            if occ[p] > 0:
                nxt = list(occ)
                nxt[p] -= 1
                targets.append((canon(nxt, r), mu * occ[p]))
        for dest, rate in targets:
            if dest not in index:
                index[dest] = len(index)
                queue.append(dest)
            rows.append(k)
            cols.append(index[dest])
            rates.append(rate)
    size = len(index)
    Q = coo_matrix((rates, (rows, cols)), shape=(size, size)).tocsr()
    out_rate = np.asarray(Q.sum(axis=1)).ravel()
    A = (Q - csr_matrix((out_rate, (np.arange(size), np.arange(size))), shape=(size, size))).T.tolil()
    A[0, :] = np.ones(size)
    b = np.zeros(size)
    b[0] = 1.0
    pi = spsolve(A.tocsr(), b)
    util = np.zeros(size)
    tasks = np.zeros(size)
    per_class = np.zeros((size, system.m))
    r_dist: dict[int, float] = {}
    for (occ, r), k in index.items():
        util[k] = sum(values[cls[p], occ[p]] for p in range(n)) / n
        tasks[k] = sum(occ) / n
        for p in range(n):
            per_class[k, cls[p]] += occ[p] / n
        r_dist[r] = r_dist.get(r, 0.0) + pi[k]
    return ExactStationary(float(pi @ util), float(pi @ tasks), r_dist, size, pi @ per_class)
