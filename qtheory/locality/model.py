"""The heterogeneous data-locality system of paper L (Sec. 2) and its finite realisations.

A system has ``W(N) ~ zeta N`` dispatchers split into K clusters (fractions ``w``) and
N single-server queues split into M server types (fractions ``v``, service rates ``u``).
Tasks arrive at every dispatcher as a Poisson process of rate ``lambda``; a cluster-k
dispatcher and a type-m server are connected with asymptotic density ``p[k, m]``
(Condition 1, eq. (2.2)); each dispatcher runs JSQ(d) on its neighbourhood (Sec. 2.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..validation import (check_array, check_integer, check_positive, check_probability_vector,
                          check_real)

__all__ = ["LocalitySystem", "check_tails", "paper_system", "PAPER_DESIGN", "PAPER_INITIAL", "SystemSizes",
           "system_sizes", "occupancy_from_pmf", "paper_initial_occupancy"]


def _as_tuple(arr: np.ndarray):
    return tuple(map(tuple, arr.tolist())) if arr.ndim == 2 else tuple(arr.tolist())


@dataclass(frozen=True)
class LocalitySystem:
    """Parameters of the system of Sec. 2 (the limit object shared by every N).

    Parameters
    ----------
    arrival_rate : float
        Poisson arrival rate ``lambda`` at every dispatcher (> 0).
    zeta : float
        Dispatchers per server, ``W(N)/N -> zeta`` (> 0).
    cluster_weights : array of shape (K,)
        Fractions ``w_k`` of dispatchers in each cluster (a probability vector).
    type_fractions : array of shape (M,)
        Fractions ``v_m`` of servers of each type (a probability vector).
    service_rates : array of shape (M,)
        Service rate ``u_m`` of a type-m server (the paper's Sec. 6 calls it ``mu``), > 0.
    compatibility : array of shape (K, M)
        Edge densities ``p[k, m]`` in [0, 1] (Condition 1, eq. (2.2)); every cluster needs
        at least one compatible server type.
    d : int
        Number of servers sampled per task (>= 1; d = 1 is random routing).
    """

    arrival_rate: float
    zeta: float
    cluster_weights: tuple
    type_fractions: tuple
    service_rates: tuple
    compatibility: tuple
    d: int = 2
    _arrays: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        lam = check_positive("arrival_rate", self.arrival_rate)
        zeta = check_positive("zeta", self.zeta)
        w = check_probability_vector("cluster_weights", self.cluster_weights)
        v = check_probability_vector("type_fractions", self.type_fractions)
        u = check_array("service_rates", self.service_rates, ndim=1, low=0.0, low_open=True)
        if u.shape != v.shape:
            raise ParameterError(f"`service_rates` must have one entry per server type "
                                 f"(M = {v.size}, got {u.size})")
        if np.any(w == 0):
            raise ParameterError(f"`cluster_weights[{int(np.argmin(w))}]` = 0: every cluster needs w_k > 0")
        if np.any(v == 0):
            raise ParameterError(f"`type_fractions[{int(np.argmin(v))}]` = 0: every server type needs v_m > 0")
        p = check_array("compatibility", self.compatibility, shape=(w.size, v.size), low=0.0, high=1.0)
        delta = p @ v
        if np.any(delta == 0):
            k = int(np.argmin(delta))
            raise ParameterError(f"`compatibility[{k}, :]` is all zero: cluster {k} has no compatible servers")
        d = check_integer("d", self.d, low=1)
        object.__setattr__(self, "arrival_rate", lam)
        object.__setattr__(self, "zeta", zeta)
        object.__setattr__(self, "cluster_weights", _as_tuple(w))
        object.__setattr__(self, "type_fractions", _as_tuple(v))
        object.__setattr__(self, "service_rates", _as_tuple(u))
        object.__setattr__(self, "compatibility", _as_tuple(p))
        object.__setattr__(self, "d", d)
        for arr in (w, v, u, p):
            arr.setflags(write=False)
        object.__setattr__(self, "_arrays", {"w": w, "v": v, "u": u, "p": p})

    # -- array views -------------------------------------------------------------------
    @property
    def w(self) -> np.ndarray:
        """Cluster weights ``w_k`` (read-only array)."""
        return self._arrays["w"]

    @property
    def v(self) -> np.ndarray:
        """Server-type fractions ``v_m``."""
        return self._arrays["v"]

    @property
    def u(self) -> np.ndarray:
        """Service rates ``u_m``."""
        return self._arrays["u"]

    @property
    def p(self) -> np.ndarray:
        """Compatibility matrix ``p[k, m]``."""
        return self._arrays["p"]

    @property
    def n_clusters(self) -> int:
        return self.w.size

    @property
    def n_types(self) -> int:
        return self.v.size

    @property
    def delta(self) -> np.ndarray:
        """``delta_k = sum_m p[k, m] v_m``: neighbourhood size of a cluster-k dispatcher / N."""
        return self.p @ self.v

    @property
    def neighbourhood_shares(self) -> np.ndarray:
        """``r[k, m] = v_m p[k, m] / delta_k``: share of type m in a cluster-k neighbourhood."""
        return self.p * self.v[None, :] / self.delta[:, None]

    @property
    def total_arrival_rate(self) -> float:
        """Scaled total arrival rate ``lambda zeta`` (left side of (2.1))."""
        return self.arrival_rate * self.zeta

    @property
    def capacity(self) -> float:
        """Scaled maximum departure rate ``sum_m u_m v_m`` (right side of (2.1))."""
        return float(self.u @ self.v)

    @property
    def capacity_sufficient(self) -> bool:
        """Capacity sufficiency (2.1): ``lambda zeta < sum_m u_m v_m``."""
        return self.total_arrival_rate < self.capacity

    @classmethod
    def homogeneous(cls, load: float, d: int = 2) -> "LocalitySystem":
        """The classical homogeneous system: one dispatcher cluster, one server type of rate
        1, one dispatcher per server (``zeta = 1``), full compatibility.

        `load` is the arrival rate per server, ``lambda zeta / u`` (the load of an M/M/1
        queue under random routing); with ``d = 2`` this is the JSQ(2) supermarket model.
        """
        load = check_positive("load", load)
        return cls(load, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), d)

    def with_compatibility(self, compatibility) -> "LocalitySystem":
        """The same system with another compatibility matrix."""
        return LocalitySystem(self.arrival_rate, self.zeta, self.cluster_weights, self.type_fractions,
                              self.service_rates, compatibility, self.d)

    def with_d(self, d: int) -> "LocalitySystem":
        """The same system with another number of sampled servers."""
        return LocalitySystem(self.arrival_rate, self.zeta, self.cluster_weights, self.type_fractions,
                              self.service_rates, self.compatibility, d)


#: the designed compatibility matrix :math:`p^1` of Sec. 6.1 (rows: clusters, columns: server types)
PAPER_DESIGN = ((0.05, 0.6, 1.0), (0.1, 0.7, 1.0))

#: initial matrices of Sec. 6 (row m: server type m; see :func:`paper_initial_occupancy`)
PAPER_INITIAL = {
    "Q": ((0.2, 0.5, 0.3), (0.5, 0.0, 0.5), (0.9, 0.1, 0.0)),
    "Q1": ((0.4, 0.3, 0.3), (0.1, 0.8, 0.1), (0.3, 0.6, 0.1)),
    "Q2": ((0.6, 0.3, 0.1), (0.8, 0.1, 0.1), (0.7, 0.2, 0.1)),
}


def paper_system(compatibility="design", d: int = 2) -> LocalitySystem:
    """The system of Sec. 6: :math:`K = 2`, :math:`M = 3`, :math:`\\lambda = 3`, :math:`\\zeta = 1`,
    :math:`w = (0.2, 0.8)`, :math:`v = (0.5, 0.3, 0.2)`, :math:`u = (1, 5, 10)`.

    Parameters
    ----------
    compatibility : "design", "complete" or array
        ``"design"`` is :math:`p^1` of Sec. 6.1, ``"complete"`` the all-ones matrix :math:`p^0` (complete
        bipartite graph); an array is used as is.
    d : int
        Number of sampled servers (2 in the paper).
    """
    if isinstance(compatibility, str):
        if compatibility == "design":
            compatibility = PAPER_DESIGN
        elif compatibility == "complete":
            compatibility = np.ones((2, 3))
        else:
            raise ParameterError(f"`compatibility` must be 'design', 'complete' or an array (got {compatibility!r})")
    return LocalitySystem(3.0, 1.0, (0.2, 0.8), (0.5, 0.3, 0.2), (1.0, 5.0, 10.0), compatibility, d)


def check_tails(name: str, q, n_types: int, *, row: str = "server type", symbol: str = "M") -> np.ndarray:
    """Return `q` as an (M, L) occupancy state of S: one row per server type, tails
    ``q[m, l-1] = P(queue >= l)`` in [0, 1], non-increasing in the level (up to 1e-12 of
    round-off, which is not changed). `row` and `symbol` name what a row is in the messages
    (the graph mean field checks one row per server: ``row="server", symbol="N"``)."""
    q = check_array(name, q, ndim=2, low=0.0, high=1.0)
    if q.shape[0] != n_types:
        raise ParameterError(f"`{name}` must have one row per {row} ({symbol} = {n_types}, got {q.shape[0]})")
    diffs = np.diff(q, axis=1)
    if np.any(diffs > 1e-12):
        m, l = np.argwhere(diffs > 1e-12)[0]
        raise ParameterError(f"`{name}[{m}]` must be non-increasing in the level "
                             f"({name}[{m}, {l + 1}] > {name}[{m}, {l}])")
    return q


def occupancy_from_pmf(pmf) -> np.ndarray:
    """Tails ``q[m, l-1] = P(X_m >= l)``, l = 1..L, from ``pmf[m, x] = P(X_m = x)``, x = 0..L.

    Each row of `pmf` must be a probability vector.
    """
    pmf = check_array("pmf", pmf, ndim=2, low=0.0, high=1.0)
    for m, row in enumerate(pmf):
        check_probability_vector(f"pmf[{m}]", row, atol=1e-9)
    tails = 1.0 - np.cumsum(pmf, axis=1)[:, :-1]
    # rows sum to 1 within 1e-9, so a cumulative sum may overshoot 1 by that round-off
    tails[(tails < 0.0) & (tails > -1e-9)] = 0.0
    return tails


def paper_initial_occupancy(name: str = "Q", reading: str = "lengths-1-3") -> np.ndarray:
    """Initial occupancy of Sec. 6 from the matrix `name` ("Q", "Q1" or "Q2").

    The paper says entry (m, l) is the probability that a type-m server starts with l
    tasks, l = 1, 2, 3 (rows sum to 1). Read literally (``reading="lengths-1-3"``, our
    default) no server starts empty, so ``q_{m,1}(0) = 1``; the alternative
    ``reading="lengths-0-2"`` shifts the lengths to 0, 1, 2. Theorem 4 says the limit
    does not depend on the choice (checked in L-F3 and L-V).

    Returns
    -------
    ndarray of shape (3, L)
        ``q[m, l-1] = q_{m,l}(0)``.
    """
    if name not in PAPER_INITIAL:
        raise ParameterError(f"`name` must be one of {', '.join(PAPER_INITIAL)} (got {name!r})")
    Q = np.array(PAPER_INITIAL[name])
    if reading == "lengths-1-3":
        pmf = np.hstack([np.zeros((3, 1)), Q])
    elif reading == "lengths-0-2":
        pmf = Q
    else:
        raise ParameterError(f"`reading` must be 'lengths-1-3' or 'lengths-0-2' (got {reading!r})")
    return occupancy_from_pmf(pmf)


@dataclass(frozen=True)
class SystemSizes:
    """Integer sizes of the N-th system: servers per type, dispatchers per cluster."""

    servers_per_type: np.ndarray
    dispatchers_per_cluster: np.ndarray

    @property
    def n_servers(self) -> int:
        return int(self.servers_per_type.sum())

    @property
    def n_dispatchers(self) -> int:
        return int(self.dispatchers_per_cluster.sum())

    @property
    def server_type(self) -> np.ndarray:
        """Type of each server; servers are numbered type by type."""
        return np.repeat(np.arange(self.servers_per_type.size), self.servers_per_type).astype(np.int64)

    @property
    def dispatcher_cluster(self) -> np.ndarray:
        """Cluster of each dispatcher; dispatchers are numbered cluster by cluster."""
        return np.repeat(np.arange(self.dispatchers_per_cluster.size),
                         self.dispatchers_per_cluster).astype(np.int64)


def _apportion(total: int, fractions: np.ndarray) -> np.ndarray:
    """Largest-remainder rounding of ``total * fractions`` to integers summing to `total`."""
    raw = total * fractions
    out = np.floor(raw).astype(np.int64)
    rest = total - out.sum()
    order = np.argsort(-(raw - out), kind="stable")
    out[order[:rest]] += 1
    return out


def system_sizes(system: LocalitySystem, n_servers: int, *, name: str = "n_servers") -> SystemSizes:
    """Sizes of the system with `n_servers` servers: ``|V_m| ~ v_m N``, ``W = round(zeta N)``,
    ``|W_k| ~ w_k W`` (largest-remainder rounding). Every type and cluster must be non-empty.
    Errors name the parameter `name` (a notebook's own, e.g. ``gwsq_servers``).
    """
    n = check_integer(name, n_servers, low=1)
    per_type = _apportion(n, system.v)
    n_disp = int(round(system.zeta * n))
    if n_disp < 1:
        raise ParameterError(f"`{name}` = {n} gives no dispatcher for zeta = {system.zeta}")
    per_cluster = _apportion(n_disp, system.w)
    if np.any(per_type == 0):
        raise ParameterError(f"`{name}` = {n} is too small: server type {int(np.argmin(per_type))} is empty")
    if np.any(per_cluster == 0):
        raise ParameterError(f"`{name}` = {n} is too small: cluster {int(np.argmin(per_cluster))} is empty")
    from .._memory import require_memory
    # a graph's per-server and per-dispatcher arrays and a simulator's copies and state (queue
    # lengths, positions in the level lists): about 64 bytes per server and dispatcher
    require_memory(BYTES_PER_NODE * (n + n_disp), what=f"a system of N = {n:,} servers and {n_disp:,} dispatchers",
                   parameter=name)
    return SystemSizes(per_type, per_cluster)


#: memory of a system per server and per dispatcher (graph arrays, a simulator's copies and state)
BYTES_PER_NODE = 64
