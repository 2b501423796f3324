"""Exact stationary quantities of small systems, an independent check of the simulators.

The continuous-time Markov chain of Sec. 3.3 (occupancies of every pool, and SLTA's
index ``r_n``) is enumerated from the empty state, with arrivals blocked once the
system holds `max_tasks` tasks, and its stationary law is solved directly. The
dispatching rules are read in plain Python from the paper's description, independently of
the numba kernel, each in its policy file (the policy's ``exact_rule``; SLTA's over the
occupancies and its index ``r_n``, Sec. 3.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._chain import reachable_chain, stationary_law
from ..errors import ParameterError
from ..validation import check_integer
from .model import TIE_DECIMALS, PoolSystem, enumeration, tabulate
from .policies import as_policy

__all__ = ["ExactStationary", "ExactChain", "exact_stationary"]

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


@dataclass(frozen=True)
class ExactChain:
    """What a policy's exact rule reads besides the occupancies (:meth:`Policy.exact_rule`).

    Attributes
    ----------
    system : PoolSystem
    n : int
        Number of pools.
    cls : ndarray, shape (n,)
        Class of each pool (pools ordered by class).
    key : ndarray, shape (m, max_tasks + 1)
        ``key[i, x]``: the marginal utility ``Delta(i, x)`` rounded for tie-breaking.
    enumeration : Enumeration
        The ranked coordinates ``(i_k, j_k)`` of Sec. 2.3 (:func:`~qtheory.utility.model.enumeration`).
    max_tasks : int
        Arrivals are blocked once the system holds this many tasks.
    """

    system: PoolSystem
    n: int
    cls: np.ndarray
    key: np.ndarray
    enumeration: object
    max_tasks: int


def exact_stationary(system: PoolSystem, n: int, policy, *, max_tasks: int, beta: float | None = None,
                     target_class: int | None = None, max_states: int = 2_000_000) -> ExactStationary:
    """Stationary mean utility (per pool), mean ``s_n`` and law of ``r_n`` of the chain with
    ``n`` pools, arrivals blocked at `max_tasks` tasks (exact up to that truncation).

    `policy` is a :mod:`qtheory.utility.policies` object or a registered name (then with
    `beta`, `target_class` as keywords); the chain reads each policy's own ``exact_rule``,
    independent of the simulation kernel, over the occupancies and, for a policy with memory
    (SLTA's index ``r_n``), the policy's state. The states reachable from the empty pools
    (the policy's ``exact_start``) are enumerated by :func:`qtheory._chain.reachable_chain`,
    pools of a class merged by sorting their occupancies, and the law solved directly. SLTA's
    ``r0`` does not enter (stationary law)."""
    if target_class is not None:  # checked for every policy, as before
        check_integer("target_class", target_class, low=0, high=system.m - 1)
    pol = as_policy(policy, beta=beta, target_class=target_class)
    if pol.exact_rule is None:
        raise ParameterError(f"policy {pol.name!r} has no `exact_rule`: the exact chain cannot be built")
    if getattr(pol, "target_class", None) is not None:  # a policy object's target_class, checked against the system
        check_integer("target_class", pol.target_class, low=0, high=system.m - 1)
    n = check_integer("n", n, low=1)
    max_tasks = check_integer("max_tasks", max_tasks, low=1)
    max_states = check_integer("max_states", max_states, low=1)
    counts = system.pool_counts(n)
    cls = np.repeat(np.arange(system.m), counts)
    values = tabulate(system.utilities, max_tasks + 1)
    chain = ExactChain(system, n, cls, np.round(np.diff(values, axis=1), TIE_DECIMALS),
                       enumeration(system, max_tasks + 2), max_tasks)
    start_memory = pol.exact_start(chain)
    stateful = start_memory is not None

    def canon(occ, memory):
        # pools of a class are exchangeable: sort occupancies within each class
        out = []
        begin = 0
        for c in counts:
            out.extend(sorted(occ[begin:begin + c]))
            begin += c
        return tuple(out), memory

    lam, mu = system.lam, system.mu

    def moves(state):
        occ, memory = state
        if sum(occ) < max_tasks:
            law = pol.exact_rule(chain, occ, memory) if stateful else pol.exact_rule(chain, occ)
            for outcome in law:
                nxt = list(occ)
                nxt[outcome[0]] += 1
                yield canon(nxt, outcome[2] if stateful else None), n * lam * outcome[1]
        for p in range(n):
            if occ[p] > 0:
                nxt = list(occ)
                nxt[p] -= 1
                yield canon(nxt, memory), mu * occ[p]

    order, Q = reachable_chain(canon([0] * n, start_memory), moves, max_states=max_states,
                               hint="raise `max_states`, or lower `n` or `max_tasks`")
    pi = stationary_law(Q)
    util = np.array([sum(values[cls[p], occ[p]] for p in range(n)) / n for occ, _ in order])
    tasks = np.array([sum(occ) / n for occ, _ in order])
    per_class = np.zeros((len(order), system.m))
    r_dist: dict[int, float] = {}
    for k, (occ, memory) in enumerate(order):
        for p in range(n):
            per_class[k, cls[p]] += occ[p] / n
        r = memory if pol.has_index else 1
        r_dist[r] = r_dist.get(r, 0.0) + pi[k]
    return ExactStationary(float(pi @ util), float(pi @ tasks), r_dist, len(order), pi @ per_class)
