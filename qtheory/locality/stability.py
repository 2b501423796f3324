r"""Stability of local JSQ(d): Lemma 1, criterion (3.1) (Lemma 2), Lemma 10 and Proposition 1.

Our readings (recorded as reconstructions on the page L-V-stability): :math:`\rho^N` of Lemma 1
in the form of the result the paper cites for it, and Sec. 6.1's value for the complete
bipartite graph as our evaluation of (5.2):

* Lemma 1 (Foss and Chernova 1998, Thm 2.5). A task of dispatcher :math:`i` lands in a set
  :math:`U` of servers with long queues only if all :math:`d` sampled servers lie in
  :math:`U`, which happens with probability
  :math:`P_i(U) = \binom{|N(i) \cap U|}{d} / \binom{\delta_i}{d}` (:math:`|N(i) \cap U| / \delta_i`
  when :math:`\delta_i < d`). The finite system is ergodic iff
  :math:`\rho^N = \max_U \sum_i \lambda P_i(U) / \sum_{j \in U} u_j < 1`.
* Lemma 10 / (5.2): the large-:math:`N` version, a supremum over fractions :math:`\alpha_m` of
  each type in :math:`U`. The ratio is quasi-convex in :math:`\alpha` (convex numerator, linear
  denominator), so the supremum is attained at a 0/1 vertex: a nonempty set of server types.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import comb

from ..errors import InstabilityError, ParameterError
from ..validation import check_array, check_integer, check_positive
from .graphs import CompatibilityGraph
from .model import LocalitySystem

__all__ = ["exact_load", "complete_bipartite_exact_load", "type_loads", "lemma2_criterion",
           "asymptotic_load", "AsymptoticLoad", "design_compatibility", "require_stable"]


@njit(cache=True)
def _kernel_exact_load(masks, degree, server_rates, arrival_rate, d, n_servers):
    best = -1.0
    best_set = 0
    n_disp = masks.size
    # probability that all d picks of dispatcher i land in a set with c of its neighbours
    prob = np.zeros((n_disp, n_servers + 1))
    for i in range(n_disp):
        di = degree[i]
        for c in range(di + 1):
            if di < d:
                prob[i, c] = c / di
            else:
                num = 1.0
                for h in range(d):
                    num *= (c - h) / (di - h)
                prob[i, c] = max(num, 0.0)
    for s in range(1, 1 << n_servers):
        rate_out = 0.0
        for j in range(n_servers):
            if (s >> j) & 1:
                rate_out += server_rates[j]
        rate_in = 0.0
        for i in range(n_disp):
            x = masks[i] & s
            c = 0
            while x:
                x &= x - 1
                c += 1
            rate_in += arrival_rate * prob[i, c]
        ratio = rate_in / rate_out
        if ratio > best:
            best = ratio
            best_set = s
    return best, best_set


def exact_load(graph: CompatibilityGraph, system: LocalitySystem, *, return_set: bool = False,
               max_servers: int = 22):
    """:math:`\\rho^N` of Lemma 1 for a small graph, by enumerating all :math:`2^N - 1` server sets.

    Parameters
    ----------
    graph : CompatibilityGraph
        At most `max_servers` servers; every dispatcher needs a neighbour.
    system : LocalitySystem
        Gives :math:`\\lambda`, :math:`d` and the service rate of each server type.
    return_set : bool
        Also return the maximising set (boolean array over servers).
    """
    n = graph.n_servers
    max_servers = check_integer("max_servers", max_servers, low=1, high=62)
    if n > max_servers:
        raise ParameterError(f"`max_servers` = {max_servers}: exact enumeration of 2^N - 1 sets is "
                             f"limited to N <= max_servers servers (got N = {n})")
    if graph.degree.min() < 1:
        raise ParameterError(f"dispatcher {int(np.argmin(graph.degree))} has no compatible server")
    masks = np.zeros(graph.n_dispatchers, dtype=np.int64)
    for i in range(graph.n_dispatchers):
        for j in graph.neighbourhood(i):
            masks[i] |= 1 << int(j)
    rates = system.u[graph.server_type]
    value, s = _kernel_exact_load(masks, graph.degree, rates, system.arrival_rate, system.d, n)
    if return_set:
        return float(value), np.array([(s >> j) & 1 for j in range(n)], dtype=bool)
    return float(value)


def complete_bipartite_exact_load(server_rates, n_dispatchers: int, arrival_rate: float, d: int) -> float:
    """:math:`\\rho^N` of the complete bipartite graph in closed form (an independent check).

    Every dispatcher sees all N servers, so a set of size n receives
    ``W lambda C(n, d) / C(N, d)``; for a given size the worst set holds the slowest servers.
    """
    rates = np.sort(check_array("server_rates", server_rates, ndim=1, low=0.0, low_open=True))
    if rates.size == 0:
        raise ParameterError("`server_rates` must not be empty")
    n_dispatchers = check_integer("n_dispatchers", n_dispatchers, low=1)
    arrival_rate = check_positive("arrival_rate", arrival_rate)
    d = check_integer("d", d, low=1)
    n_total = rates.size
    best = 0.0
    for size in range(1, n_total + 1):
        share = size / n_total if n_total < d else comb(size, d) / comb(n_total, d)
        best = max(best, n_dispatchers * arrival_rate * share / rates[:size].sum())
    return float(best)


def type_loads(system: LocalitySystem) -> np.ndarray:
    """Left side of (3.1) per server type: :math:`(\\lambda \\zeta / u_m) \\sum_k w_k p_{k,m} / \\delta_k`.

    This is the load of a type-m server under random routing (d = 1).
    """
    return system.total_arrival_rate / system.u * ((system.w / system.delta) @ system.p)


def lemma2_criterion(system: LocalitySystem) -> bool:
    """Criterion (3.1) of Lemma 2: every entry of :func:`type_loads` is < 1."""
    return bool(np.all(type_loads(system) < 1.0))


@dataclass(frozen=True)
class AsymptoticLoad:
    """Result of :func:`asymptotic_load`.

    Attributes
    ----------
    rho : float
        The supremum in (5.2).
    critical_types : tuple of int
        The set of server types attaining it.
    by_set : dict
        Ratio of (5.2) at every nonempty set of types.
    """

    rho: float
    critical_types: tuple
    by_set: dict


def _ratio(system: LocalitySystem, alpha: np.ndarray) -> float:
    share = system.neighbourhood_shares @ alpha
    return float(system.total_arrival_rate * (system.w @ share ** system.d) / (alpha @ (system.v * system.u)))


def asymptotic_load(system: LocalitySystem) -> AsymptoticLoad:
    """Asymptotic load :math:`\\rho` of Lemma 10, eq. (5.2).

    .. math:: \\rho = \\sup_{\\alpha \\in [0, 1]^M \\setminus \\{0\\}} \\frac{\\lambda \\zeta \\sum_k w_k
       \\bigl(\\sum_m \\alpha_m p_{k,m} v_m / \\delta_k\\bigr)^d}{\\sum_m \\alpha_m v_m u_m},

    evaluated on the :math:`2^M - 1` nonempty 0/1 vertices (where a quasi-convex ratio
    attains its supremum).
    """
    by_set = {}
    for size in range(1, system.n_types + 1):
        for types in itertools.combinations(range(system.n_types), size):
            alpha = np.zeros(system.n_types)
            alpha[list(types)] = 1.0
            by_set[types] = _ratio(system, alpha)
    crit = max(by_set, key=by_set.get)
    return AsymptoticLoad(by_set[crit], crit, by_set)


def design_compatibility(system: LocalitySystem) -> np.ndarray:
    """A compatibility matrix satisfying (3.1) whenever (2.1) holds (Proposition 1).

    ``p[k, m] = u_m / max_m u_m`` for every cluster: each cluster's neighbourhood then
    holds server types in proportion to ``v_m u_m``, and every type has the same load
    ``lambda zeta / sum_m v_m u_m`` under random routing, the smallest possible maximum
    (the ``v_m u_m``-weighted mean of the loads equals it for every p).

    Raises
    ------
    InstabilityError
        If (2.1) fails: then no p satisfies (3.1).
    """
    if not system.capacity_sufficient:
        raise InstabilityError(f"capacity sufficiency (2.1) fails: lambda zeta = {system.total_arrival_rate:g} "
                               f">= sum_m u_m v_m = {system.capacity:g}; no compatibility matrix is stable")
    row = system.u / system.u.max()
    return np.tile(row, (system.n_clusters, 1))


def require_stable(system: LocalitySystem, what: str = "this stationary quantity") -> AsymptoticLoad:
    """Raise :class:`InstabilityError` unless the asymptotic load :math:`\\rho` of (5.2) is < 1."""
    if not system.capacity_sufficient:
        raise InstabilityError(f"{what} does not exist: capacity sufficiency (2.1) fails "
                               f"(lambda zeta = {system.total_arrival_rate:g} >= sum_m u_m v_m = {system.capacity:g})")
    load = asymptotic_load(system)
    if load.rho >= 1.0:
        raise InstabilityError(f"{what} does not exist: the asymptotic load rho of (5.2) is {load.rho:.4g} >= 1 "
                               f"(server types {[m + 1 for m in load.critical_types]} are overloaded)")
    return load


@dataclass(frozen=True)
class PolicyStability:
    """Result of :func:`policy_stability`: whether a policy's stationary quantities exist.

    Attributes
    ----------
    policy : str
        The policy in words ("random routing", "local JSQ(2)", "GWSQ(2)", "JIQ").
    stable : bool or None
        True: the condition holds (the stationary quantities exist); False: it fails (they
        do not: the queues grow); None: no stability condition is known for the policy, so
        stationarity must be checked from the simulation (see :func:`policy_stability`).
    load : float
        The asymptotic load :math:`\\rho` of (5.2) with the policy's :math:`d`. For a policy
        without a known condition: NaN, or :math:`\\lambda\\zeta / \\sum_m v_m u_m` when that is at least 1.
    critical_types : tuple of int
        The server types (1-based) whose set attains the load (all types in the second case
        above); empty when no condition is known.
    reason : str
        A sentence saying why, with the load that decides it.
    """

    policy: str
    stable: bool | None
    load: float
    critical_types: tuple
    reason: str

    @property
    def known(self) -> bool:
        """Whether the paper gives a condition for the policy (``stable`` is then True or False)."""
        return self.stable is not None


def _types_words(types) -> str:
    """Server types (1-based) in words: "type-2 servers", "type-1 and type-2 servers"."""
    names = [f"type-{m}" for m in types]
    return (" and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]) + " servers"


def policy_stability(system: LocalitySystem, policy) -> PolicyStability:
    """Whether `policy` on `system` (large :math:`N`) has stationary quantities: Lemma 10, eq. (5.2).

    The rule:

    * Local JSQ(d) (``LocalJSQ(d)``, or the integer ``d``; ``d = 1`` is random routing) and
      GWSQ(d) (``GWSQ(d)``): stable iff the asymptotic load :math:`\\rho` of (5.2), evaluated
      with the policy's :math:`d` (:func:`asymptotic_load` of the system with that ``d``), is
      below 1 (Lemma 10). For GWSQ(d) with independent draws, the probability that all
      :math:`d` draws of a cluster-:math:`k` task land in a set of types with fractions
      :math:`\\alpha_m` is :math:`(\\sum_m \\alpha_m p_{k,m} v_m / \\delta_k)^d`, the term (5.2)
      uses, so we read the same condition for it. With :math:`d = 1` the ratio of (5.2) at a
      single type is the random-routing load of :func:`type_loads`.
    * Any other policy (JIQ: an idle compatible server if any, else a uniformly random
      compatible one): the paper proves no condition, and none is claimed here (not even a
      comparison with random routing). The result is ``stable=None`` ("condition not known")
      unless capacity sufficiency (2.1) fails, which no policy survives (``stable=False``, with
      the load :math:`\\lambda\\zeta / \\sum_m v_m u_m \\ge 1` of all servers).
      A caller that reports a stationary mean for such a policy must check stationarity from
      its simulation, e.g. the time average over the second half of the averaging window
      against the first half, and report "stationarity not established" when they differ
      significantly and by more than the margin that matters (5% of the mean;
      :func:`qtheory.locality.items.l_r_jiq.drift_check`).

    Parameters
    ----------
    system : LocalitySystem
        The system (its own ``d`` is replaced by the policy's).
    policy : int or qtheory.locality.policies.Policy or str
        ``d`` of local JSQ(d), a policy object (``LocalJSQ(d=1)``, ``GWSQ(d=2)``, ``JIQ()``;
        ``d=None`` takes the system's ``d``) or a registered policy name.

    Returns
    -------
    PolicyStability

    Raises
    ------
    ParameterError
        If `system` is not a :class:`LocalitySystem`, or `policy` is not a positive integer,
        a policy or a registered name.

    Examples
    --------
    >>> import dataclasses
    >>> from qtheory.locality.model import paper_system
    >>> base = paper_system("design")  # load lambda zeta / sum_m v_m u_m = 3/4
    >>> heavy = dataclasses.replace(base, arrival_rate=0.85 * base.capacity / base.zeta)
    >>> policy_stability(heavy, 1).reason
    'random routing loads type-2 servers at 1.029 ≥ 1 (Lemma 10, eq. (5.2) with d = 1)'
    >>> policy_stability(heavy, 2).stable
    True
    """
    from dataclasses import replace

    from .policies import GWSQ, LocalJSQ, Policy, as_policy

    if not isinstance(system, LocalitySystem):
        raise ParameterError(f"`system` must be a LocalitySystem (got {type(system).__name__})")
    if isinstance(policy, str):
        try:
            policy = as_policy(policy)
        except ParameterError as exc:
            raise ParameterError(f"`policy`: {exc}") from None
    if isinstance(policy, Policy):
        if isinstance(policy, (LocalJSQ, GWSQ)):
            d = int(system.d if policy.d is None else policy.d)
            name = f"GWSQ({d})" if isinstance(policy, GWSQ) else ("random routing" if d == 1 else f"local JSQ({d})")
        else:
            d, name = None, "JIQ" if policy.name == "jiq" else policy.name
    else:
        d = check_integer("policy", policy, low=1)
        name = "random routing" if d == 1 else f"local JSQ({d})"
    if d is None:
        if not system.capacity_sufficient:
            total = float(system.total_arrival_rate / system.capacity)
            return PolicyStability(name, False, total, tuple(range(1, system.n_types + 1)),
                                   f"{name} loads all servers at {total:.3f} ≥ 1: capacity sufficiency (2.1) fails, "
                                   f"and no policy is stable then")
        return PolicyStability(name, None, float("nan"), (),
                               f"no stability condition is known for {name} (the paper proves none): "
                               f"stationarity must be checked from the simulation")
    load = asymptotic_load(replace(system, d=d))
    types = tuple(m + 1 for m in load.critical_types)
    where = "all servers" if len(types) == system.n_types and len(types) > 1 else _types_words(types)
    source = f"Lemma 10, eq. (5.2) with d = {d}"
    if load.rho >= 1.0:
        return PolicyStability(name, False, float(load.rho), types,
                               f"{name} loads {where} at {load.rho:.3f} ≥ 1 ({source})")
    return PolicyStability(name, True, float(load.rho), types,
                           f"{name} is stable: its asymptotic load is {load.rho:.3f} < 1, attained on {where} ({source})")


__all__ += ["PolicyStability", "policy_stability"]
