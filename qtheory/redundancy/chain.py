"""The c.o.c. and c.o.s. dynamics as explicit Markov chains, solved exactly.

This module is an independent route to the product forms (4) and (6): it knows nothing
of them. It enumerates the states of the detailed process of Sec. 2.3, writes its
generator from the *rules* of the two mechanisms, and solves the global balance
equations with a sparse linear solve.

c.o.c. (Sec. 2.3.1)
    State: the types :math:`(c_1, \\dots, c_M)` of the jobs in order of arrival. A job of
    type S arrives at rate :math:`N\\lambda p_S` and joins the end. Every server works on
    the oldest job compatible with it (or on the job its mechanism's completion rule takes,
    ``exact_completion``); a job leaves when any of its replicas completes, so job i leaves
    at rate :math:`\\sum \\mu_n` over the servers of :math:`c_i` that are in no older job's
    type.

c.o.s. (Sec. 2.3.2)
    State: the types of the *waiting* jobs in order of arrival, and the idle servers in
    order of the time they became idle (longest idle first). An arriving job of type S
    starts at once on an idle server of S if there is one, chosen by the mechanism's
    assignment rule (its ``exact_start``: ALIS takes the longest idle one, rule (iii);
    c.o.s. with random assignment a uniformly chosen one, rule (i)); otherwise it waits.
    A busy server n completes at rate :math:`\\mu_n` and takes a waiting job compatible
    with it, chosen by the mechanism's completion rule (its ``exact_completion``: the oldest
    under the paper's first come, first served), or becomes the newest idle server. The number of jobs is the
    number waiting plus the number of busy servers.

Truncation
----------
Arrivals that would bring the number of jobs above ``max_jobs`` are blocked. Both
product forms satisfy *partial balance* (for every state, the probability flow out by
arrivals equals the flow in by departures, and vice versa), so the stationary law of the
truncated chain is the product form conditioned on :math:`Q \\le` ``max_jobs``: the
comparison is exact at any truncation level, and the tests need no tail bound. (A
product form that were wrong, or that held only without truncation, would not pass.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._chain import reachable_chain, stationary_law
from ..errors import ParameterError, RuleError
from ..validation import check_integer, check_real
from .model import RedundancySystem

__all__ = ["ChainSolution", "solve_coc_chain", "solve_cos_chain", "coc_weight", "cos_weight", "MAX_CHAIN_STATES"]

#: largest state space the solver accepts
MAX_CHAIN_STATES = 400_000


@dataclass(frozen=True)
class ChainSolution:
    """Stationary law of a truncated chain.

    ``states[i]`` has probability ``probabilities[i]`` and ``jobs[i]`` jobs in the system;
    ``pmf[m]`` is P(Q = m) for m = 0..max_jobs.
    """

    states: list
    probabilities: np.ndarray
    jobs: np.ndarray
    max_jobs: int

    @property
    def pmf(self) -> np.ndarray:
        return np.bincount(self.jobs, weights=self.probabilities, minlength=self.max_jobs + 1)

    def law(self) -> dict:
        """The map state -> probability."""
        return dict(zip(self.states, self.probabilities))


def _check(system: RedundancySystem, lam, max_jobs) -> tuple[float, int]:
    if not isinstance(system, RedundancySystem):
        raise ParameterError(f"`system` must be a RedundancySystem (got {type(system).__name__})")
    lam = check_real("lam", lam, low=0.0, low_open=True)
    max_jobs = check_integer("max_jobs", max_jobs, low=1)
    return lam, max_jobs


def _solve(start, successors, size_of, max_jobs: int) -> ChainSolution:
    """The states reachable from `start` by `successors` and their stationary law, by the exact
    chains' shared builder (:func:`qtheory._chain.reachable_chain`, breadth first; at most
    :data:`MAX_CHAIN_STATES` states) and a direct sparse solve (:func:`qtheory._chain.stationary_law`)."""
    states, q = reachable_chain(start, successors, max_states=MAX_CHAIN_STATES, hint="lower `max_jobs`")
    return ChainSolution(states, stationary_law(q), np.asarray([size_of(st) for st in states], dtype=np.int64),
                         max_jobs)


def solve_coc_chain(system: RedundancySystem, lam: float, max_jobs: int, mechanism="coc") -> ChainSolution:
    """Stationary law of the c.o.c. chain truncated at `max_jobs` jobs; states are type tuples.

    Server n works, at every moment, on the job its mechanism's completion rule takes
    (``mechanism.exact_completion(n, jobs)``, :meth:`~qtheory.redundancy.mechanisms.Mechanism.exact_completion`:
    the law of the job's type given the types of the jobs compatible with n, in order of arrival;
    the oldest job of that type), so that job leaves at rate :math:`\\mu_n` from n. Under first
    come, first served, job i leaves at rate :math:`\\sum \\mu_n` over the servers of
    :math:`c_i` that are in no older job's type, as Sec. 2.3.1 says."""
    from .mechanisms import as_mechanism

    lam, max_jobs = _check(system, lam, max_jobs)
    mech = as_mechanism(mechanism)
    if mech.cancel_on_start:
        raise ParameterError(f"`mechanism` must be a cancel-on-completion mechanism for the c.o.c. chain (got "
                             f"{mech.name!r}; its chain is solve_cos_chain)")
    arrival = system.n_servers * lam * system.probabilities
    types = [frozenset(t) for t in system.types]
    speeds = system.speeds

    def successors(c):
        if len(c) < max_jobs:
            for k in range(system.n_types):
                yield c + (k,), float(arrival[k])
        for n in range(system.n_servers):
            for rest, prob in _taken(mech, n, c, types):
                yield rest, float(speeds[n]) * prob

    return _solve((), successors, len, max_jobs)


def solve_cos_chain(system: RedundancySystem, lam: float, max_jobs: int, mechanism="cos") -> ChainSolution:
    """Stationary law of the c.o.s. chain truncated at `max_jobs` jobs.

    States are pairs (waiting type tuple, idle server tuple with the longest idle first). Which
    idle compatible server starts an arriving job is the mechanism's own plain-Python reading,
    ``mechanism.exact_start(idle)`` (:meth:`~qtheory.redundancy.mechanisms.Mechanism.exact_start`:
    the law of the server given the idle compatible servers, longest idle first), checked at
    every use: a server that is not one of them, or probabilities that do not sum to 1, are a
    :class:`~qtheory.errors.RuleError` naming the mechanism.
    """
    from .mechanisms import as_mechanism

    lam, max_jobs = _check(system, lam, max_jobs)
    mech = as_mechanism(mechanism)
    if not mech.cancel_on_start:
        raise ParameterError(f"`mechanism` must be a cancel-on-start mechanism for the c.o.s. chain (got {mech.name!r}; "
                             "its chain is solve_coc_chain)")
    n_servers = system.n_servers
    arrival = system.n_servers * lam * system.probabilities
    types = [frozenset(t) for t in system.types]
    speeds = system.speeds

    def size(state):
        waiting, idle = state
        return len(waiting) + n_servers - len(idle)

    def successors(state):
        waiting, idle = state
        if size(state) < max_jobs:
            for k in range(system.n_types):
                rate = float(arrival[k])
                free = [u for u in idle if u in types[k]]
                if not free:
                    yield (waiting + (k,), idle), rate
                    continue
                for v, prob in _start_law(mech, free):
                    yield (waiting, tuple(u for u in idle if u != v)), rate * prob
        for n in range(n_servers):
            if n in idle:
                continue
            taken = _taken(mech, n, waiting, types)
            if not taken:
                yield (waiting, idle + (n,)), float(speeds[n])
            for rest, prob in taken:
                yield (rest, idle), float(speeds[n]) * prob

    # the empty system: all servers idle (the start order is immaterial: states not reachable
    # from it are transient)
    return _solve(((), tuple(range(n_servers))), successors, size, max_jobs)


def _taken(mech, server: int, queue: tuple, types: list) -> list:
    """Each way server `server` takes a job of `queue` (job types in order of arrival) by the
    mechanism's completion rule, as ``(the rest of the queue, probability)``: the oldest job of
    the type ``mech.exact_completion`` draws among the jobs compatible with the server (checked:
    :func:`_checked_law`). Empty when no job of `queue` is compatible with it."""
    jobs = [k for k in queue if server in types[k]]
    if not jobs:
        return []
    law = _checked_law(mech.exact_completion(server, list(jobs)), jobs, mech, "exact_completion",
                       f"server {server} and the types {jobs!r} of its compatible jobs (oldest first)", "types")
    return [(queue[:queue.index(k)] + queue[queue.index(k) + 1:], p) for k, p in law]


def _start_law(mech, free: list) -> list:
    """``mech.exact_start(free)``, checked (:func:`_checked_law`)."""
    return _checked_law(mech.exact_start(list(free)), free, mech, "exact_start",
                        f"the idle compatible servers {free!r} (longest idle first)", "servers")


def _checked_law(pairs, allowed: list, mech, method: str, given: str, what: str) -> list:
    """A mechanism's plain-Python law `pairs` (``(value, probability)``, from its `method`, for the
    situation `given`) as a list, checked: every value one of `allowed`, probabilities
    non-negative and summing to 1, else a :class:`~qtheory.errors.RuleError` naming the mechanism."""
    law = [(int(v), float(p)) for v, p in pairs]
    if not law or any(v not in allowed or not p >= 0 for v, p in law) or abs(sum(p for _, p in law) - 1) > 1e-12:
        rule = method.replace("_", " ")
        raise RuleError(f"the {rule} rule of mechanism {mech.name!r} ({type(mech).__qualname__}.{method}) gave "
                        f"{law!r} for {given}: it must give some of these {what} with probabilities summing to 1")
    return law


def coc_weight(system: RedundancySystem, lam: float, c) -> float:
    """The unnormalised weight (4) of the c.o.c. state c (a tuple of type indices)."""
    weight, covered = 1.0, set()
    for k in c:
        covered |= set(system.types[k])
        weight *= system.n_servers * lam * system.probabilities[k] / sum(system.speeds[n] for n in covered)
    return weight


def cos_weight(system: RedundancySystem, lam: float, state) -> float:
    """The unnormalised weight (6) of the c.o.s. state (waiting types, idle servers longest idle first)."""
    waiting, idle = state
    weight = coc_weight(system, lam, waiting)
    seen: set = set()
    for u in idle:
        seen.add(u)
        rate = system.n_servers * lam * sum(p for p, t in zip(system.probabilities, system.types)
                                              if seen & set(t))
        weight *= system.speeds[u] / rate
    return weight
