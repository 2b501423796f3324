"""The redundancy model: servers with speeds, job types as server subsets (Sec. 2.1).

There are :math:`N` servers with speeds :math:`\\mu_1, \\dots, \\mu_N`. A job of type
:math:`S \\subseteq \\{1, \\dots, N\\}` is replicated to every server of :math:`S`;
jobs arrive at total rate :math:`N\\lambda` and are of type :math:`S` with probability
:math:`p_S`, so :math:`\\lambda` is the arrival rate *per server*. The per-server load
:math:`\\lambda` is not part of the model: every computation takes it as an argument,
so that one model can be swept towards its critical load.

Servers are numbered from 0 in code; the paper's server :math:`n` is index ``n - 1``.

Constructors cover the families of the paper (manifest item R-P-types):
:func:`power_of_d` (Remark 2.1), :func:`circular_d` (Appendix E),
:func:`m_model` (Fig. 2), :func:`single_plus_full` (the :math:`\\varepsilon` example of Sec. 3.3),
:func:`fully_flexible` (Remark 2.2), and :class:`RedundancySystem` itself for
arbitrary subsets.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_real

__all__ = [
    "RedundancySystem",
    "power_of_d",
    "circular_d",
    "m_model",
    "single_plus_full",
    "fully_flexible",
    "MAX_SERVERS",
]

#: largest number of servers (server sets are stored as bit masks in int64)
MAX_SERVERS = 62


def _as_types(types, n_servers: int) -> tuple[tuple[int, ...], ...]:
    try:
        raw = [list(t) for t in types]
    except TypeError:
        raise ParameterError(f"`types` must be a sequence of server subsets (got {types!r})") from None
    if not raw:
        raise ParameterError("`types` must contain at least one job type")
    out = []
    seen: dict[tuple[int, ...], int] = {}
    for k, servers in enumerate(raw):
        if not servers:
            raise ParameterError(f"`types[{k}]` is empty: a job type must contain at least one server")
        clean = []
        for n in servers:
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
                raise ParameterError(f"`types[{k}]` contains {n!r}, which is not a server index")
            if not 0 <= int(n) < n_servers:
                raise ParameterError(f"`types[{k}]` contains server {int(n)}, outside the range "
                                     f"0 .. {n_servers - 1} of the {n_servers} servers")
            clean.append(int(n))
        key = tuple(sorted(set(clean)))
        if len(key) != len(clean):
            raise ParameterError(f"`types[{k}]` = {servers!r} lists a server twice")
        if key in seen:
            raise ParameterError(f"`types[{k}]` = {list(key)} duplicates `types[{seen[key]}]`; "
                                 f"merge them into one type with the summed probability")
        seen[key] = k
        out.append(key)
    return tuple(out)


@dataclass(frozen=True)
class RedundancySystem:
    """N servers with speeds and job types (server subsets) with probabilities.

    Parameters
    ----------
    speeds : array_like, shape (N,)
        Server speeds :math:`\\mu_n > 0`.
    types : sequence of sequences of int
        Job types, each a non-empty set of server indices in ``0 .. N-1``; no two alike.
    probabilities : array_like, shape (K,)
        Type probabilities :math:`p_S > 0` summing to 1 (types with :math:`p_S = 0`
        are not types, Sec. 2.1).
    labels : sequence of str, optional
        Names of the types for tables; default the paper's 1-based notation, e.g. ``"{1,2}"``.

    Notes
    -----
    Every server must belong to at least one type. A server that no job can use is
    idle forever and makes the c.o.s. product form (6) undefined.
    """

    speeds: np.ndarray
    types: tuple[tuple[int, ...], ...]
    probabilities: np.ndarray
    labels: tuple[str, ...] = field(default=())

    def __post_init__(self):
        speeds = check_array("speeds", self.speeds, ndim=1, low=0.0, low_open=True)
        if speeds.size == 0:
            raise ParameterError("`speeds` must not be empty: the system needs at least one server")
        if speeds.size > MAX_SERVERS:
            raise ParameterError(f"`speeds` has {speeds.size} servers; at most {MAX_SERVERS} are supported")
        types = _as_types(self.types, speeds.size)
        probs = check_array("probabilities", self.probabilities, shape=(len(types),), low=0.0, low_open=True)
        total = float(probs.sum())
        if abs(total - 1.0) > 1e-9:
            raise ParameterError(f"`probabilities` must sum to 1 (sums to {total!r})")
        covered = set().union(*map(set, types))
        idle = sorted(set(range(speeds.size)) - covered)
        if idle:
            raise ParameterError(f"server(s) {idle} belong to no job type; every server must be "
                                 f"compatible with at least one type")
        labels = tuple(self.labels) if self.labels else tuple(
            "{" + ",".join(str(n + 1) for n in t) + "}" for t in types)
        if len(labels) != len(types):
            raise ParameterError(f"`labels` must have one entry per type ({len(types)}), got {len(labels)}")
        speeds.setflags(write=False)
        probs = probs / total
        probs.setflags(write=False)
        object.__setattr__(self, "speeds", speeds)
        object.__setattr__(self, "types", types)
        object.__setattr__(self, "probabilities", probs)
        object.__setattr__(self, "labels", labels)

    # -- sizes and encodings -------------------------------------------------------------
    @property
    def n_servers(self) -> int:
        """N."""
        return int(self.speeds.size)

    @property
    def n_types(self) -> int:
        """K, the number of types."""
        return len(self.types)

    @property
    def masks(self) -> np.ndarray:
        """Bit mask of each type's servers (bit n for server n), int64 array of shape (K,)."""
        return np.array([sum(1 << n for n in t) for t in self.types], dtype=np.int64)

    @property
    def compatibility(self) -> np.ndarray:
        """The K x N boolean compatibility matrix, True where type k is replicated to server n."""
        out = np.zeros((self.n_types, self.n_servers), dtype=bool)
        for k, t in enumerate(self.types):
            out[k, list(t)] = True
        return out

    @property
    def total_speed(self) -> float:
        """:math:`\\mu_{tot} = \\sum_n \\mu_n`."""
        return float(self.speeds.sum())

    @property
    def mean_speed(self) -> float:
        """:math:`\\mu = \\mu_{tot} / N`, the average service rate."""
        return self.total_speed / self.n_servers

    @property
    def replication_degree(self) -> float:
        """Mean number of replicas per job, :math:`\\sum_S p_S |S|`."""
        return float(sum(p * len(t) for p, t in zip(self.probabilities, self.types)))

    def type_index(self, servers: Iterable[int]) -> int:
        """Index of the type with exactly these (0-based) servers."""
        key = tuple(sorted(int(n) for n in servers))
        try:
            return self.types.index(key)
        except ValueError:
            raise ParameterError(f"no job type has servers {list(key)}") from None

    def describe(self) -> str:
        """A one-line summary."""
        return (f"N = {self.n_servers} servers (mu_tot = {self.total_speed:g}), K = {self.n_types} types, "
                f"mean replication degree {self.replication_degree:.3g}")


def _speeds(n_servers: int, speeds) -> np.ndarray:
    if speeds is None:
        return np.ones(n_servers)
    return check_array("speeds", speeds, shape=(n_servers,), low=0.0, low_open=True)


def power_of_d(n_servers: int, d: int, speeds: Sequence[float] | None = None) -> RedundancySystem:
    """Power-of-d replication (Remark 2.1): every d-subset of the N servers with probability 1/C(N, d)."""
    n_servers = check_integer("n_servers", n_servers, low=1, high=MAX_SERVERS)
    d = check_integer("d", d, low=1, high=n_servers)
    count = math.comb(n_servers, d)
    if count > 200_000:
        raise ParameterError(f"power-of-d with N = {n_servers}, d = {d} has {count} types; "
                             f"at most 200000 are supported")
    types = list(itertools.combinations(range(n_servers), d))
    return RedundancySystem(_speeds(n_servers, speeds), types, np.full(count, 1.0 / count))


def circular_d(n_servers: int, d: int, probabilities: Sequence[float] | None = None,
               speeds: Sequence[float] | None = None) -> RedundancySystem:
    """Circular-d constraints (Appendix E): type n uses servers n, n+1, ..., n+d-1 (mod N).

    `probabilities` defaults to 1/N for every type (setting 3 of Table 1 uses
    (0.4, 0.1, 0.4, 0.1) with N = 4, d = 2). Type labels are the paper's 1..N.
    """
    n_servers = check_integer("n_servers", n_servers, low=1, high=MAX_SERVERS)
    d = check_integer("d", d, low=1, high=n_servers)
    if d == n_servers and n_servers > 1:
        raise ParameterError(f"circular-d with d = N = {n_servers} makes all N types equal; "
                             f"use fully_flexible({n_servers}) instead")
    types = [tuple((n + j) % n_servers for j in range(d)) for n in range(n_servers)]
    probs = np.full(n_servers, 1.0 / n_servers) if probabilities is None else probabilities
    labels = tuple(str(n + 1) for n in range(n_servers))
    return RedundancySystem(_speeds(n_servers, speeds), types, probs, labels)


def m_model(p12: float, speeds: Sequence[float] = (1.0, 1.0, 1.0)) -> RedundancySystem:
    """The M-model of Fig. 2: three servers, types {1,2} (probability `p12`) and {2,3}."""
    p12 = check_real("p12", p12, low=0.0, high=1.0, low_open=True, high_open=True)
    return RedundancySystem(_speeds(3, speeds), [(0, 1), (1, 2)], [p12, 1.0 - p12])


def single_plus_full(n_servers: int, eps: float, speeds: Sequence[float] | None = None) -> RedundancySystem:
    """The :math:`\\varepsilon` example of Sec. 3.3: single-server types plus one fully replicated type.

    :math:`p_{\\{n\\}} = \\frac{N - 1 - \\epsilon}{N (N - 1) \\mu} \\mu_n` and
    :math:`p_{\\{1..N\\}} = \\epsilon / (N - 1)`, for :math:`0 \\le \\epsilon < N - 1`;
    the mean replication degree is :math:`1 + \\epsilon`. For ``eps = 0`` the full type
    is absent and the system is N independent M/M/1 queues.
    """
    n_servers = check_integer("n_servers", n_servers, low=2, high=MAX_SERVERS)
    eps = check_real("eps", eps, low=0.0, high=n_servers - 1.0, high_open=True)
    mu = _speeds(n_servers, speeds)
    mean = float(mu.mean())
    single = (n_servers - 1 - eps) / (n_servers * (n_servers - 1) * mean) * mu
    types = [(n,) for n in range(n_servers)]
    probs = list(single)
    labels = [str(n + 1) for n in range(n_servers)]
    if eps > 0:
        types.append(tuple(range(n_servers)))
        probs.append(eps / (n_servers - 1))
        labels.append("full")
    return RedundancySystem(mu, types, probs, tuple(labels))


def fully_flexible(n_servers: int, speeds: Sequence[float] | None = None) -> RedundancySystem:
    """Remark 2.2: one type replicated to all servers (M/M/1 under c.o.c., M/M/N under c.o.s.)."""
    n_servers = check_integer("n_servers", n_servers, low=1, high=MAX_SERVERS)
    return RedundancySystem(_speeds(n_servers, speeds), [tuple(range(n_servers))], [1.0], ("full",))
