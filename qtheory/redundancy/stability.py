"""Stability, capacity ratios, the critical subset and local stability (Secs. 2.1, 3, 3.1).

The system is stable iff condition (1) holds for every non-empty set of types
:math:`\\mathcal T \\subseteq \\mathcal S`,

.. math:: N\\lambda\\, p_{\\mathcal T} < \\mu_{\\mathcal T},

or, equivalently, condition (2) for every non-empty server set :math:`U`,
:math:`N\\lambda \\sum_{S \\subseteq U} p_S < \\sum_{n\\in U}\\mu_n`. Both say
:math:`\\lambda < \\lambda^* = 1 / (N \\rho_{\\mathcal T^*})` where
:math:`\\rho_{\\mathcal T} = p_{\\mathcal T}/\\mu_{\\mathcal T}` is the capacity ratio and
:math:`\\mathcal T^*` the critical subset maximising it.

How the search scales
---------------------
The maximiser of (1) over the :math:`2^K` type sets can always be taken *closed*:
adding a type whose servers are already covered raises :math:`p_{\\mathcal T}` and
leaves :math:`\\mu_{\\mathcal T}` unchanged. Closed type sets are in one-to-one
correspondence with the server sets :math:`U` that are unions of types, so
:func:`critical_subset` maximises condition (2)'s ratio over server sets instead.
With ``method="servers"`` it computes :math:`\\sum_{S\\subseteq U} p_S` for all
:math:`2^N` sets by a subset-sum (zeta) transform in :math:`O(N 2^N)` time and memory,
independent of K (power-of-2 with N = 20 has K = 190, so :math:`2^K` is out of reach,
while :math:`2^{20}` takes milliseconds). ``method="flow"`` needs neither: the ratio
of the supermodular function :math:`U \\mapsto \\sum_{S\\subseteq U}p_S` to the modular
:math:`\\mu(U)` is maximised by Dinkelbach's iteration, each step a maximum-weight
closure problem solved as a minimum cut (SciPy's ``maximum_flow``, the float capacities taken
exactly) on a graph with K + N + 2 nodes and
:math:`\\sum_S |S| + K + N` arcs (polynomial; a handful of iterations). The
enumerations of (1), (2), (7), (8), (9) and (11) literally, over all type or server
sets, are kept as independent checks for small systems.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_flow

from ..errors import InstabilityError, ParameterError
from ..validation import check_array, check_integer, check_real
from .model import RedundancySystem

__all__ = [
    "require_loads_below",
    "CriticalSubset",
    "ConditionCheck",
    "subset_sums",
    "capacity_ratio",
    "critical_subset",
    "critical_load",
    "condition_1",
    "condition_2",
    "power_of_d_critical_load",
    "is_stable",
    "require_stable",
    "local_condition_7",
    "local_condition_8",
    "local_condition_9",
    "local_condition_10",
    "local_condition_11",
    "is_locally_stable",
    "MAX_ENUMERATION",
]

#: largest N for the O(N 2^N) server-set transforms
MAX_SUBSET_SERVERS = 24
#: largest number of sets enumerated by the literal checks
MAX_ENUMERATION = 1 << 20

_RTOL = 1e-12


def check_arrival_rate(lam) -> float:
    """The per-server arrival rate :math:`\\lambda` as a float > 0."""
    return check_real("lam", lam, low=0.0, low_open=True)


def subset_sums(system: RedundancySystem, values=None) -> np.ndarray:
    """:math:`F(U) = \\sum_{S \\subseteq U} v_S` for every server set U (bit mask index).

    `values` defaults to the type probabilities, giving condition (2)'s left-hand side
    divided by :math:`N\\lambda`. Zeta transform, :math:`O(N 2^N)`.
    """
    n = system.n_servers
    if n > MAX_SUBSET_SERVERS:
        raise ParameterError(f"subset sums over 2^N server sets need N <= {MAX_SUBSET_SERVERS} (N = {n}); "
                             f"use method='flow'")
    v = system.probabilities if values is None else np.asarray(values, dtype=float)
    f = np.zeros(1 << n)
    np.add.at(f, system.masks, v)
    return zeta_transform(f, n)


def zeta_transform(f: np.ndarray, n: int) -> np.ndarray:
    """In-place subset-sum transform along the first axis, indexed by n-bit masks (also
    returns it); further axes are transformed column by column."""
    for bit in range(n):
        view = f.reshape(-1, 2, 1 << bit, *f.shape[1:])
        view[:, 1] += view[:, 0]
    return f


def server_speed_sums(system: RedundancySystem) -> np.ndarray:
    """:math:`\\mu(U) = \\sum_{n\\in U}\\mu_n` for every server set U."""
    n = system.n_servers
    if n > MAX_SUBSET_SERVERS:
        raise ParameterError(f"N = {n} exceeds {MAX_SUBSET_SERVERS} for server-set transforms")
    mu = np.zeros(1 << n)
    mu[1 << np.arange(n)] = system.speeds
    return zeta_transform(mu, n)


def capacity_ratio(system: RedundancySystem, type_subset) -> float:
    """:math:`\\rho_{\\mathcal T} = p_{\\mathcal T} / \\mu_{\\mathcal T}` of a set of type indices (Sec. 3)."""
    idx = _type_indices(system, type_subset)
    union = 0
    for k in idx:
        union |= int(system.masks[k])
    mu = float(sum(system.speeds[n] for n in range(system.n_servers) if union >> n & 1))
    return float(system.probabilities[idx].sum()) / mu


def _type_indices(system, type_subset) -> np.ndarray:
    idx = np.unique(np.asarray(list(type_subset), dtype=np.int64))
    if idx.size == 0:
        raise ParameterError("`type_subset` must be a non-empty set of type indices")
    if idx.min() < 0 or idx.max() >= system.n_types:
        raise ParameterError(f"`type_subset` indices must be in 0 .. {system.n_types - 1}")
    return idx


@dataclass(frozen=True)
class CriticalSubset:
    """The critical subset and what follows from it (Sec. 3).

    Attributes
    ----------
    types : tuple of int
        Indices of the types in :math:`\\mathcal T^*` (closed: every type whose servers
        lie in ``servers``).
    servers : tuple of int
        :math:`\\bigcup_{S\\in\\mathcal T^*} S`.
    ratio : float
        :math:`\\rho_{\\mathcal T^*} = \\max_{\\mathcal T}\\rho_{\\mathcal T}`.
    critical_load : float
        :math:`\\lambda^* = 1/(N\\rho_{\\mathcal T^*})`.
    unique : bool
        Whether no other type set attains the maximum (assumed by Theorem 3.2).
    maximally_stable : bool
        Whether :math:`\\mathcal T^* = \\mathcal S` uniquely, i.e. the local stability
        conditions (7)/(8) hold and :math:`\\lambda^* = \\mu` (Sec. 3.1).
    p_critical, mu_critical : float
        :math:`p_{\\mathcal T^*}` and :math:`\\mu_{\\mathcal T^*}`.
    """

    types: tuple[int, ...]
    servers: tuple[int, ...]
    ratio: float
    critical_load: float
    unique: bool
    maximally_stable: bool
    p_critical: float
    mu_critical: float


def _closure(system: RedundancySystem, server_mask: int) -> tuple[int, ...]:
    return tuple(int(k) for k in np.flatnonzero((system.masks & ~np.int64(server_mask)) == 0))


def _result(system: RedundancySystem, server_mask: int, unique: bool) -> CriticalSubset:
    types = _closure(system, server_mask)
    servers = tuple(n for n in range(system.n_servers) if server_mask >> n & 1)
    p_t = float(system.probabilities[list(types)].sum())
    mu_t = float(system.speeds[list(servers)].sum())
    ratio = p_t / mu_t
    full = len(types) == system.n_types
    return CriticalSubset(types, servers, ratio, 1.0 / (system.n_servers * ratio), unique,
                          bool(full and unique), p_t, mu_t)


def critical_subset(system: RedundancySystem, method: str = "auto") -> CriticalSubset:
    """The critical subset :math:`\\mathcal T^* = \\arg\\max_{\\mathcal T}\\rho_{\\mathcal T}` (Sec. 3).

    Parameters
    ----------
    method : {"auto", "servers", "flow", "types"}
        ``"servers"``: subset-sum transform over the :math:`2^N` server sets,
        :math:`O(N 2^N)`; ``"flow"``: Dinkelbach iteration with minimum cuts,
        polynomial in N and K; ``"types"``: literal enumeration of the :math:`2^K`
        type sets (checks only). ``"auto"`` uses ``"servers"`` for N <= 20, else ``"flow"``.

    Notes
    -----
    Ties are decided with a relative tolerance of 1e-12. When the maximum is not
    unique, the returned set is the largest maximiser (maximisers are closed under
    union) and ``unique`` is False.
    """
    if method == "auto":
        method = "servers" if system.n_servers <= 20 else "flow"
    solvers = {"servers": _critical_by_servers, "flow": _critical_by_flow, "types": _critical_by_types}
    if method not in solvers:
        raise ParameterError(f"`method` must be 'auto', 'servers', 'flow' or 'types' (got {method!r})")
    # every simulation checks stability first, and the O(N 2^N) transform costs 0.1 s at
    # N = 20, as much as a million events: remember the answer per system (both immutable)
    key = (system.speeds.tobytes(), system.types, system.probabilities.tobytes(), method)
    found = _CRITICAL_CACHE.get(key)
    if found is None:
        found = solvers[method](system)
        if len(_CRITICAL_CACHE) >= 256:
            _CRITICAL_CACHE.clear()
        _CRITICAL_CACHE[key] = found
    return found


_CRITICAL_CACHE: dict = {}


def _critical_by_servers(system: RedundancySystem) -> CriticalSubset:
    f = subset_sums(system)
    mu = server_speed_sums(system)
    ratio = np.zeros_like(f)
    ratio[1:] = f[1:] / mu[1:]
    best = ratio.max()
    ties = np.flatnonzero(ratio >= best * (1 - _RTOL))
    largest = 0
    for u in ties:
        largest |= int(u)
    return _result(system, largest, unique=len(ties) == 1)


def _critical_by_types(system: RedundancySystem) -> CriticalSubset:
    k = system.n_types
    if (1 << k) > MAX_ENUMERATION:
        raise ParameterError(f"enumerating 2^K type sets needs K <= 20 (K = {k})")
    masks, probs, speeds = system.masks, system.probabilities, system.speeds
    best, sets = -1.0, []
    for code in range(1, 1 << k):
        idx = [j for j in range(k) if code >> j & 1]
        union = 0
        for j in idx:
            union |= int(masks[j])
        mu = sum(speeds[n] for n in range(system.n_servers) if union >> n & 1)
        r = probs[idx].sum() / mu
        if r > best * (1 + _RTOL):
            best, sets = r, [union]
        elif r >= best * (1 - _RTOL):
            sets.append(union)
    distinct = set(sets)
    largest = 0
    for u in distinct:
        largest |= u
    # a non-closed maximiser would have the same union as its closure; count type sets
    unique = len(sets) == 1
    return _result(system, largest, unique=unique)


# -- Dinkelbach iteration with minimum cuts ---------------------------------------------
#: SciPy's maximum_flow takes int32 capacities (larger ones wrap around silently)
_INT32_MAX = (1 << 31) - 1


def _exact_integers(capacities) -> tuple[list[int], int]:
    """The float `capacities` times one power of two, as exact integers, and that power.

    A float is a dyadic rational, so the largest denominator of their exact values (a power
    of two) scales every one of them to an integer without rounding: the cut below is the
    exact minimum cut of the network whose capacities are these floats.
    """
    fractions = [Fraction(float(c)) for c in capacities]
    if any(f < 0 for f in fractions):
        raise ValueError("capacities must be non-negative")  # pragma: no cover - callers build them
    scale = max((f.denominator for f in fractions), default=1)
    return [int(f * scale) for f in fractions], scale


def _maximum_flow(n_nodes: int, arcs: list[tuple[int, int, float]], source: int,
                  sink: int) -> tuple[dict[tuple[int, int], int], int]:
    """Residual capacities of a maximum flow, by ``scipy.sparse.csgraph.maximum_flow``.

    The capacities are taken exactly (:func:`_exact_integers`); they may need more than
    the 31 bits SciPy accepts, so the flow is found bit slices at a time, as in capacity
    scaling: a phase sends the maximum flow of the residual capacities shifted right by k
    bits (each then fits), which leaves less than m 2^k to send (m arcs: the phase's
    minimum cut loses less than 2^k per arc to the shift). Capping every residual
    capacity at that bound changes neither the maximum flow value nor the minimum cuts (a
    cut through a capped arc costs more than the whole flow), so each phase gains about
    31 - log2(m) bits, and the last one (k = 0) is exact. Returns ``{(u, v): residual}``
    over both directions of every arc, in units of 1 / scale, and the scale.
    """
    caps, scale = _exact_integers([c for _, _, c in arcs])
    residual: dict[tuple[int, int], int] = {}
    for (u, v, _), c in zip(arcs, caps):
        residual[(u, v)] = residual.get((u, v), 0) + c
        residual.setdefault((v, u), 0)
    bound = None
    while True:
        capped = {e: (r if bound is None else min(r, bound)) for e, r in residual.items()}
        top = max(capped.values(), default=0)
        if top == 0:
            return residual, scale
        shift = max(0, top.bit_length() - 31)
        arcs_k = [(u, v, r >> shift) for (u, v), r in capped.items() if r >> shift > 0]
        rows, cols, data = zip(*arcs_k)
        data = np.array(data, dtype=np.int64)
        if data.max() > _INT32_MAX:
            raise RuntimeError("capacity slice does not fit in 31 bits")  # pragma: no cover
        graph = csr_array((data.astype(np.int32), (rows, cols)), shape=(n_nodes, n_nodes))
        flow = maximum_flow(graph, source, sink).flow.tocoo()
        for u, v, f in zip(flow.row, flow.col, flow.data):
            if f > 0:
                residual[(int(u), int(v))] -= int(f) << shift
                residual[(int(v), int(u))] += int(f) << shift
        if shift == 0:
            return residual, scale
        bound = len(residual) << shift


def _reach(n_nodes: int, residual: dict, start: int, *, backwards: bool = False) -> set[int]:
    """Nodes reachable from `start` along residual arcs of positive capacity (with
    `backwards`, the nodes from which `start` is reachable)."""
    out: list[list[int]] = [[] for _ in range(n_nodes)]
    for (u, v), r in residual.items():
        if r > 0:
            if backwards:
                out[v].append(u)
            else:
                out[u].append(v)
    seen = {start}
    queue = deque([start])
    while queue:
        for w in out[queue.popleft()]:
            if w not in seen:
                seen.add(w)
                queue.append(w)
    return seen


def _closure_arcs(system: RedundancySystem, theta: float, big: float) -> list[tuple[int, int, float]]:
    """The maximum-weight closure network of max_U sum_{S subset U} p_S - theta mu(U): source
    -> type j (p_j), type j -> each of its servers (`big`), server n -> sink (theta mu_n);
    nodes 0..K-1 are types, K..K+N-1 servers, K+N the source and K+N+1 the sink."""
    k, n = system.n_types, system.n_servers
    src, sink = k + n, k + n + 1
    arcs = []
    for j, t in enumerate(system.types):
        arcs.append((src, j, float(system.probabilities[j])))
        for s in t:
            arcs.append((j, k + s, big))
    for s in range(n):
        arcs.append((k + s, sink, theta * float(system.speeds[s])))
    return arcs


def _closure_cut(system: RedundancySystem, theta: float) -> tuple[float, int]:
    """max_U sum_{S subset U} p_S - theta mu(U) and the largest maximiser (as a server mask)."""
    k, n = system.n_types, system.n_servers
    src, sink = k + n, k + n + 1
    big = 1.0 + float(system.probabilities.sum()) + theta * system.total_speed
    residual, scale = _maximum_flow(k + n + 2, _closure_arcs(system, theta, big), src, sink)
    # the source's arcs keep p_j minus the net flow through them: together, p minus the cut
    value = float(Fraction(sum(residual[(src, j)] for j in range(k)), scale))
    # the largest source side of a minimum cut: the nodes that cannot reach the sink
    side = set(range(k + n + 2)) - _reach(k + n + 2, residual, sink, backwards=True)
    mask = 0
    for s in range(n):
        if k + s in side:
            mask |= 1 << s
    return value, mask


def _critical_by_flow(system: RedundancySystem) -> CriticalSubset:
    f_all = 1.0
    theta = f_all / system.total_speed
    for _ in range(200):
        value, mask = _closure_cut(system, theta)
        if value <= _RTOL * theta * system.total_speed or mask == 0:
            break
        types = _closure(system, mask)
        theta_new = float(system.probabilities[list(types)].sum()) / float(
            system.speeds[[s for s in range(system.n_servers) if mask >> s & 1]].sum())
        if theta_new <= theta * (1 + _RTOL):
            break
        theta = theta_new
    # largest maximiser at theta: nodes that cannot reach the sink
    _, largest = _closure_cut(system, theta * (1 - 1e-10))
    if largest == 0:
        raise RuntimeError("critical subset search failed")  # pragma: no cover
    # uniqueness: the smallest maximiser containing each server of the largest one
    theta = _result(system, largest, True).ratio
    unique = True
    for s in range(system.n_servers):
        if largest >> s & 1:
            sub = _smallest_maximiser_with(system, theta, s)
            if sub != largest and sub != 0 and _result(system, sub, True).ratio >= theta * (1 - 1e-9):
                unique = False
                break
    return _result(system, largest, unique)


def _smallest_maximiser_with(system: RedundancySystem, theta: float, server: int) -> int:
    k, n = system.n_types, system.n_servers
    src, sink = k + n, k + n + 1
    big = 1.0 + 1.0 + theta * system.total_speed
    arcs = _closure_arcs(system, theta, big) + [(src, k + server, big)]
    residual, _ = _maximum_flow(k + n + 2, arcs, src, sink)
    # source side of the minimum cut = smallest maximiser containing `server`
    seen = _reach(k + n + 2, residual, src)
    mask = 0
    for s in range(n):
        if k + s in seen:
            mask |= 1 << s
    return mask


def critical_load(system: RedundancySystem) -> float:
    """:math:`\\lambda^* = \\mu_{\\mathcal T^*} / (N p_{\\mathcal T^*})`: stable iff :math:`\\lambda < \\lambda^*`."""
    return critical_subset(system).critical_load


# -- the literal conditions (1), (2), (3) ------------------------------------------------
@dataclass(frozen=True)
class ConditionCheck:
    """Outcome of a family of inequalities ``lhs < rhs``.

    Attributes
    ----------
    holds : bool
        Whether every inequality holds strictly.
    worst_margin : float
        Smallest ``rhs - lhs`` over the family (negative or zero when violated).
    worst_set : tuple of int
        The type or server indices where the margin is smallest.
    count : int
        Number of inequalities checked.
    """

    holds: bool
    worst_margin: float
    worst_set: tuple[int, ...]
    count: int


def _enumerate_guard(n: int, what: str) -> None:
    if (1 << n) > MAX_ENUMERATION:
        raise ParameterError(f"enumerating all 2^{n} {what} is limited to 2^20 sets")


def condition_1(system: RedundancySystem, lam: float) -> ConditionCheck:
    """Condition (1) over all non-empty type sets: :math:`N\\lambda p_{\\mathcal T} < \\mu_{\\mathcal T}`. :math:`O(2^K)`."""
    lam = check_arrival_rate(lam)
    k, n = system.n_types, system.n_servers
    _enumerate_guard(k, "type sets")
    masks, probs = system.masks, system.probabilities
    worst, arg = math.inf, ()
    for code in range(1, 1 << k):
        idx = [j for j in range(k) if code >> j & 1]
        union = 0
        for j in idx:
            union |= int(masks[j])
        mu = sum(system.speeds[s] for s in range(n) if union >> s & 1)
        margin = mu - n * lam * probs[idx].sum()
        if margin < worst:
            worst, arg = margin, tuple(idx)
    return ConditionCheck(bool(worst > 0), float(worst), arg, (1 << k) - 1)


def condition_2(system: RedundancySystem, lam: float) -> ConditionCheck:
    """Condition (2) over all non-empty server sets: :math:`N\\lambda\\sum_{S\\subseteq U}p_S < \\mu(U)`. :math:`O(K 2^N)`."""
    lam = check_arrival_rate(lam)
    n = system.n_servers
    _enumerate_guard(n, "server sets")
    masks, probs = system.masks, system.probabilities
    worst, arg = math.inf, ()
    for u in range(1, 1 << n):
        inside = (masks & ~np.int64(u)) == 0
        mu = sum(system.speeds[s] for s in range(n) if u >> s & 1)
        margin = mu - n * lam * probs[inside].sum()
        if margin < worst:
            worst, arg = margin, tuple(s for s in range(n) if u >> s & 1)
    return ConditionCheck(bool(worst > 0), float(worst), arg, (1 << n) - 1)


def power_of_d_critical_load(speeds, d: int) -> float:
    """Critical load of power-of-d replication from the N - d + 1 inequalities (3).

    :math:`N\\lambda\\binom{j}{d}/\\binom{N}{d} < \\sum_{n\\le j}\\mu_{(n)}` for
    :math:`j = d..N`, :math:`\\mu_{(n)}` the n-th smallest speed; returns the largest
    :math:`\\lambda` for which all hold with equality at the binding j.
    """
    mu = np.sort(check_array("speeds", speeds, ndim=1, low=0.0, low_open=True))
    n = mu.size
    d = check_integer("d", d, low=1, high=n)
    cum = np.cumsum(mu)
    total = math.comb(n, d)
    return float(min(cum[j - 1] * total / (n * math.comb(j, d)) for j in range(d, n + 1)))


def is_stable(system: RedundancySystem, lam: float) -> bool:
    """Whether conditions (1)/(2) hold, i.e. :math:`\\lambda < \\lambda^*`."""
    return check_arrival_rate(lam) < critical_load(system)


def require_loads_below(system: RedundancySystem, loads, *, name: str = "loads", because: str) -> float:
    """Refuse, naming ``name[k]``, the first of `loads` (arrival rates) at or past the critical load
    :math:`\\lambda^*` of `system`; `because` says which parameter of the reader's set that
    :math:`\\lambda^*` (e.g. "`p12` = 0.1 makes type {2,3} critical"). Returns :math:`\\lambda^*`."""
    crit = critical_subset(system)
    for k, lam in enumerate(loads):
        if not float(lam) < crit.critical_load:
            labels = ", ".join(system.labels[j] for j in crit.types)
            raise InstabilityError(
                f"`{name}[{k}]` = {float(lam):g} is at or past the critical load lambda* = {crit.critical_load:.6g} "
                f"of this system ({because}; critical types: {labels}): no stationary law exists there")
    return crit.critical_load


def require_stable(system: RedundancySystem, lam: float) -> CriticalSubset:
    """Raise :class:`~qtheory.errors.InstabilityError` unless :math:`\\lambda < \\lambda^*`; return the critical subset."""
    lam = check_arrival_rate(lam)
    crit = critical_subset(system)
    if not lam < crit.critical_load:
        labels = ", ".join(system.labels[k] for k in crit.types)
        raise InstabilityError(
            f"`lam` = {lam!r} violates stability condition (1): lambda must be < lambda* = "
            f"{crit.critical_load:.12g}, set by the critical types {{{labels}}} "
            f"(N lam p_T = {system.n_servers * lam * crit.p_critical:.6g} >= mu_T = {crit.mu_critical:.6g})")
    return crit


# -- local stability (7)-(11) ------------------------------------------------------------
def _type_set_margins(system: RedundancySystem):
    """Yield (type indices, p_T, mu_T, union mask) over all non-empty type sets."""
    k = system.n_types
    _enumerate_guard(k, "type sets")
    masks, probs = system.masks, system.probabilities
    for code in range(1, 1 << k):
        idx = [j for j in range(k) if code >> j & 1]
        union = 0
        for j in idx:
            union |= int(masks[j])
        mu = float(sum(system.speeds[s] for s in range(system.n_servers) if union >> s & 1))
        yield idx, float(probs[idx].sum()), mu, union


def local_condition_7(system: RedundancySystem) -> ConditionCheck:
    """(7): :math:`p_{\\mathcal T} < \\mu_{\\mathcal T}/(N\\mu)` for type sets not covering all servers. :math:`O(2^K)`."""
    full = (1 << system.n_servers) - 1
    tot = system.total_speed
    worst, arg, count = math.inf, (), 0
    for idx, p, mu, union in _type_set_margins(system):
        if union == full:
            continue
        count += 1
        margin = mu / tot - p
        if margin < worst:
            worst, arg = margin, tuple(idx)
    return ConditionCheck(bool(worst > 0), float(worst), arg, count)


def local_condition_9(system: RedundancySystem) -> ConditionCheck:
    """(9): :math:`\\mu((\\bigcup_{S\\notin\\mathcal T'}S)^c)/(N\\mu) < p_{\\mathcal T'}` for proper non-empty :math:`\\mathcal T'`. :math:`O(2^K)`."""
    k, n = system.n_types, system.n_servers
    _enumerate_guard(k, "type sets")
    masks, probs, tot = system.masks, system.probabilities, system.total_speed
    worst, arg = math.inf, ()
    for code in range(1, (1 << k) - 1):
        inside = [j for j in range(k) if code >> j & 1]
        union_out = 0
        for j in range(k):
            if not code >> j & 1:
                union_out |= int(masks[j])
        only = sum(system.speeds[s] for s in range(n) if not union_out >> s & 1)
        margin = float(probs[inside].sum()) - only / tot
        if margin < worst:
            worst, arg = margin, tuple(inside)
    return ConditionCheck(bool(worst > 0), float(worst), arg, max((1 << k) - 2, 0))


def local_condition_10(system: RedundancySystem) -> ConditionCheck:
    """(10), the single-type case of (9): :math:`\\mu(\\mathcal N_{S_0}^c)/(N\\mu) < p_{S_0}` for every type. Necessary only."""
    masks, probs, tot = system.masks, system.probabilities, system.total_speed
    worst, arg = math.inf, ()
    for j in range(system.n_types):
        others = 0
        for i in range(system.n_types):
            if i != j:
                others |= int(masks[i])
        only = sum(system.speeds[s] for s in range(system.n_servers) if not others >> s & 1)
        margin = float(probs[j]) - only / tot
        if margin < worst:
            worst, arg = margin, (j,)
    return ConditionCheck(bool(worst > 0), float(worst), arg, system.n_types)


def local_condition_8(system: RedundancySystem) -> ConditionCheck:
    """(8): :math:`\\sum_{S\\subseteq U}p_S < \\mu(U)/(N\\mu)` for every proper non-empty :math:`U`. :math:`O(K 2^N)`."""
    n = system.n_servers
    _enumerate_guard(n, "server sets")
    masks, probs, tot = system.masks, system.probabilities, system.total_speed
    worst, arg = math.inf, ()
    for u in range(1, (1 << n) - 1):
        inside = (masks & ~np.int64(u)) == 0
        mu = sum(system.speeds[s] for s in range(n) if u >> s & 1)
        margin = mu / tot - float(probs[inside].sum())
        if margin < worst:
            worst, arg = margin, tuple(s for s in range(n) if u >> s & 1)
    return ConditionCheck(bool(worst > 0), float(worst), arg, max((1 << n) - 2, 0))


def local_condition_11(system: RedundancySystem) -> ConditionCheck:
    """(11): :math:`\\mu(U')/(N\\mu) < \\sum_{S\\cap U'\\ne\\emptyset}p_S` for every proper non-empty :math:`U'`. :math:`O(K 2^N)`."""
    n = system.n_servers
    _enumerate_guard(n, "server sets")
    masks, probs, tot = system.masks, system.probabilities, system.total_speed
    worst, arg = math.inf, ()
    for u in range(1, (1 << n) - 1):
        hit = (masks & np.int64(u)) != 0
        mu = sum(system.speeds[s] for s in range(n) if u >> s & 1)
        margin = float(probs[hit].sum()) - mu / tot
        if margin < worst:
            worst, arg = margin, tuple(s for s in range(n) if u >> s & 1)
    return ConditionCheck(bool(worst > 0), float(worst), arg, max((1 << n) - 2, 0))


def is_locally_stable(system: RedundancySystem) -> bool:
    """Local stability (7)/(8): :math:`\\mathcal T^* = \\mathcal S` uniquely and :math:`\\lambda^* = \\mu`.

    Uses :func:`critical_subset` (no enumeration of type sets).
    """
    if system.n_servers == 1:
        return True
    return critical_subset(system).maximally_stable
