"""Exact stationary quantities from the product forms (4) (c.o.c.) and (6) (c.o.s.-ALIS).

Dynamic programming over server sets
------------------------------------
The weight (4) of a central-queue state :math:`(c_1, \\dots, c_M)` is
:math:`\\prod_i N\\lambda p_{c_i} / \\mu(c_1, \\dots, c_i)`, and
:math:`\\mu(c_1..c_i)` depends only on the *set* of servers
:math:`U_i = c_1\\cup\\dots\\cup c_i` covered by the first i jobs. Group the states by
the sequence of distinct prefix sets :math:`\\emptyset \\subsetneq U_1 \\subsetneq \\dots`:
while the prefix set stays at U every further job is one of the types
:math:`T\\subseteq U`, each contributing :math:`N\\lambda p_T/\\mu(U)`, so the stay
contributes a geometric series of ratio :math:`r(U) = N\\lambda\\sum_{T\\subseteq U}
p_T/\\mu(U)` -- finite exactly under condition (2) for U (this is the geometric
representation of Appendix B with type sets coarsened to server sets). The total
weight :math:`G(U)` of all states whose final prefix set is U obeys

.. math:: G(\\emptyset) = 1,\\qquad G(U) = \\frac{1}{1 - r(U)} \\sum_{V\\subsetneq U}
          G(V) \\sum_{T:\\, V\\cup T = U} \\frac{N\\lambda p_T}{\\mu(U)},

evaluated in increasing bit-mask order, :math:`O(K 2^N)` time and :math:`O(2^N)`
memory (circular-2 with N = 20: about 2e7 steps, well under a second once compiled).
The normalisation constant of (4) is :math:`C = 1/\\sum_U G(U)`.

Moments come from carrying, with every weight, its first two derivatives in a
variable z that counts jobs (all jobs, one type, or the replicas at one server),
i.e. "jets" :math:`(g, g', g'')` at z = 1; distributions of the total come from
carrying truncated polynomials in z instead.

For c.o.s.-ALIS, (6) factorises over the set I of idle servers: the idle-server
factor :math:`\\prod_l \\mu_{u_l}/\\lambda_{\\mathcal C(u_1..u_l)}` summed over the orders
of I obeys :math:`B(I) = \\sum_{n\\in I} B(I\\setminus n)\\,\\mu_n/\\lambda_{\\mathcal C(I)}`,
and the waiting jobs form a c.o.c.-type sequence of types avoiding I, of total weight
:math:`\\sum_{U\\subseteq I^c} G(U)` (a subset-sum transform of G). The number of jobs
in service is :math:`N - |I|`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_probability, check_real
from .mechanisms import MECHANISMS as _MECHANISMS, CancelOnCompletion, CancelOnStart, as_mechanism
from .model import RedundancySystem
from .stability import MAX_SUBSET_SERVERS, check_arrival_rate, require_stable, server_speed_sums, zeta_transform

__all__ = [
    "Moments",
    "normalisation_constant",
    "total_jobs_moments",
    "TotalJobs",
    "total_jobs_law",
    "type_moments",
    "server_replica_moments",
    "waiting_type_moments",
    "total_jobs_pmf",
    "pgf",
    "pgf_prop31",
    "joint_type_pmf",
    "empty_probability",
    "m_model_constant",
    "m_model_joint_pmf",
    "MECHANISMS",
]

MECHANISMS = tuple(name for name, m in _MECHANISMS.items() if m.product_form)
#: largest N for the exact dynamic programme
MAX_DP_SERVERS = 22


def _check_mechanism(mechanism):
    """The :class:`~qtheory.redundancy.mechanisms.Mechanism` given by name or as an object,
    refused if the product forms (4) and (6) do not describe it."""
    mechanism = as_mechanism(mechanism)
    if not mechanism.product_form:
        raise ParameterError(f"mechanism {mechanism.name!r} has no product form (the product forms (4) and (6) "
                             f"are those of c.o.c. and c.o.s.-ALIS): use its exact chain (mechanism.exact_chain)")
    return mechanism


def _indices(name: str, values, size: int) -> list[int]:
    """0-based indices in 0..size-1 (a type or server list)."""
    arr = check_array(name, values, ndim=1, low=0, high=size - 1, dtype=np.int64)
    return [int(i) for i in arr]


def _check_dp_size(system: RedundancySystem) -> None:
    if system.n_servers > MAX_DP_SERVERS:
        raise ParameterError(f"the exact dynamic programme over 2^N server sets is limited to "
                             f"N <= {MAX_DP_SERVERS} (N = {system.n_servers})")


# -- kernels -----------------------------------------------------------------------------
@njit(cache=True)
def _kernel_coc_jets(masks, w, marks, mu_u, tail0, tail1, tail2):
    """Forward DP of G(U) as jets (value, d/dz, d2/dz2) at z = 1.

    w[T] = N lam p_T (jump numerators), marks[T] = jobs counted per type-T job;
    tail0/1/2[U] = sum_{T subset U} w_T {1, m_T, m_T (m_T - 1)} / mu(U).
    """
    n_sets = mu_u.size
    k = masks.size
    g = np.zeros((3, n_sets))
    h = np.zeros((3, n_sets))
    h[0, 0] = 1.0
    for u in range(n_sets):
        a0 = h[0, u]
        if a0 == 0.0:
            continue
        a1 = h[1, u]
        a2 = h[2, u]
        if u == 0:
            g0, g1, g2 = a0, a1, a2
        else:
            r = tail0[u]
            s = 1.0 - r
            t0 = 1.0 / s
            t1 = tail1[u] / (s * s)
            t2 = tail2[u] / (s * s) + 2.0 * tail1[u] * tail1[u] / (s * s * s)
            g0 = a0 * t0
            g1 = a1 * t0 + a0 * t1
            g2 = a2 * t0 + 2.0 * a1 * t1 + a0 * t2
        g[0, u] = g0
        g[1, u] = g1
        g[2, u] = g2
        for j in range(k):
            v = u | masks[j]
            if v != u:
                c = w[j] / mu_u[v]
                m = marks[j]
                # multiply by the jet of c z^m: (c, c m, c m (m - 1))
                h[0, v] += g0 * c
                h[1, v] += g1 * c + g0 * c * m
                h[2, v] += g2 * c + 2.0 * g1 * c * m + g0 * c * m * (m - 1.0)
    return g


@njit(cache=True)
def _kernel_coc_type_jets(masks, w, mu_u, rows):
    """Forward DP of G(U) with every type marked by its own variable :math:`z_k`, all at 1.

    rows[k] >= 0 selects type k: the result's column 1 + 2 rows[k] is :math:`\\partial G/\\partial z_k`
    and the next column :math:`\\partial^2 G/\\partial z_k^2`; column 0 is G. One pass gives what
    one :func:`_kernel_coc_jets` per type gives (marks 0 or 1: a type-k job counts once).
    """
    n_sets = mu_u.size
    k = masks.size
    n_rows = 1
    for j in range(k):
        if rows[j] >= 0:
            n_rows += 2
    g = np.zeros((n_sets, n_rows))
    h = np.zeros((n_sets, n_rows))
    h[0, 0] = 1.0
    t1 = np.zeros(k)
    gu = np.zeros(n_rows)
    for u in range(n_sets):
        a0 = h[u, 0]
        if a0 == 0.0:
            continue
        if u == 0:
            for i in range(n_rows):
                gu[i] = h[u, i]
        else:
            # 1 / (1 - r(z)), r(z) = sum_{T subset U} w_T z_T / mu(U): value 1/s, first
            # derivative r_k / s^2, second 2 r_k^2 / s^3 (r is linear in each z_k)
            r = 0.0
            for j in range(k):
                if masks[j] & u == masks[j]:
                    t1[j] = w[j] / mu_u[u]
                    r += t1[j]
                else:
                    t1[j] = 0.0
            s = 1.0 - r
            t0 = 1.0 / s
            gu[0] = a0 * t0
            for j in range(k):
                i = rows[j]
                if i < 0:
                    continue
                d1 = t1[j] / (s * s)
                d2 = 2.0 * t1[j] * t1[j] / (s * s * s)
                b1 = h[u, 1 + 2 * i]
                b2 = h[u, 2 + 2 * i]
                gu[1 + 2 * i] = b1 * t0 + a0 * d1
                gu[2 + 2 * i] = b2 * t0 + 2.0 * b1 * d1 + a0 * d2
        for i in range(n_rows):
            g[u, i] = gu[i]
        for j in range(k):
            v = u | masks[j]
            if v != u:
                c = w[j] / mu_u[v]
                for i in range(n_rows):
                    h[v, i] += gu[i] * c
                i = rows[j]
                if i >= 0:
                    # the jump adds one type-j job: multiply by z_j. Its second-derivative
                    # term 2 (dG/dz_j) c vanishes: dG/dz_j is 0 on sets u not containing
                    # type j's servers, and a jump of type j leaves those sets (v != u)
                    h[v, 1 + 2 * i] += gu[0] * c
    return g


@njit(cache=True)
def _kernel_coc_pmf(masks, w, marks, mu_u, tail0, tail1, max_count):
    """Forward DP of G(U) as truncated polynomials in z (marks are 0 or 1)."""
    n_sets = mu_u.size
    k = masks.size
    g = np.zeros((n_sets, max_count + 1))
    h = np.zeros((n_sets, max_count + 1))
    h[0, 0] = 1.0
    for u in range(n_sets):
        if h[u].max() == 0.0:
            continue
        if u == 0:
            for m in range(max_count + 1):
                g[u, m] = h[u, m]
        else:
            # 1 / (1 - r0 - beta (z - 1)) = c / (1 - rho z), c = 1/(1 - r0 + beta), rho = beta c
            c = 1.0 / (1.0 - tail0[u] + tail1[u])
            rho = tail1[u] * c
            prev = 0.0
            for m in range(max_count + 1):
                prev = c * h[u, m] + rho * prev
                g[u, m] = prev
        for j in range(k):
            v = u | masks[j]
            if v != u:
                c = w[j] / mu_u[v]
                shift = marks[j]
                for m in range(max_count + 1 - shift):
                    h[v, m + shift] += g[u, m] * c
    return g


@njit(cache=True)
def _kernel_idle_weights(speeds, lam_c):
    """B(I) = sum over orders of the idle set I of prod_l mu_{u_l} / lambda_C(u_1..u_l) (6)."""
    n = speeds.size
    n_sets = 1 << n
    b = np.zeros(n_sets)
    b[0] = 1.0
    for i in range(1, n_sets):
        acc = 0.0
        for s in range(n):
            if i >> s & 1:
                acc += b[i ^ (1 << s)] * speeds[s]
        b[i] = acc / lam_c[i]
    return b


# -- shared set-up -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Setup:
    masks: np.ndarray
    w: np.ndarray
    mu_u: np.ndarray
    n: int


def _setup(system: RedundancySystem, lam: float, z=None) -> _Setup:
    _check_dp_size(system)
    require_stable(system, lam)
    w = system.n_servers * lam * system.probabilities
    if z is not None:
        w = w * z
    return _Setup(system.masks, np.ascontiguousarray(w), server_speed_sums(system), system.n_servers)


def _tails(st: _Setup, values) -> np.ndarray:
    f = np.zeros(1 << st.n)
    np.add.at(f, st.masks, values)
    f = zeta_transform(f, st.n)
    out = np.zeros_like(f)
    out[1:] = f[1:] / st.mu_u[1:]
    return out


def _coc_jets(st: _Setup, marks) -> np.ndarray:
    marks = np.asarray(marks, dtype=float)
    return _kernel_coc_jets(st.masks, st.w, marks, st.mu_u, _tails(st, st.w), _tails(st, st.w * marks),
                            _tails(st, st.w * marks * (marks - 1.0)))


def _idle_weights(system: RedundancySystem, lam: float) -> np.ndarray:
    n = system.n_servers
    full = (1 << n) - 1
    f = np.zeros(1 << n)
    np.add.at(f, system.masks, system.probabilities)
    f = zeta_transform(f, n)  # f[W] = P(type subset of W)
    idx = np.arange(1 << n)
    lam_c = n * lam * (1.0 - f[full ^ idx])  # arrival rate of types hitting the idle set I
    lam_c[0] = 1.0
    return _kernel_idle_weights(system.speeds, lam_c)


def _cos_combine(system, st, jets, idle_count) -> np.ndarray:
    """Sum over idle sets I of B(I) * [subset sum of G over I^c] * jet(z^{c(I)})."""
    n = st.n
    full = (1 << n) - 1
    gsum = zeta_transform(jets.T.copy(), n).T
    idx = np.arange(1 << n)
    d = gsum[:, full ^ idx]
    b = _idle_weights(system, st.w.sum() / n)
    c = idle_count.astype(float)
    # multiply the jet d by (1, c, c (c - 1))
    t0 = d[0]
    t1 = d[1] + d[0] * c
    t2 = d[2] + 2.0 * d[1] * c + d[0] * c * (c - 1.0)
    return np.array([(b * t0).sum(), (b * t1).sum(), (b * t2).sum()])


def _popcount(n: int) -> np.ndarray:
    idx = np.arange(1 << n)
    out = np.zeros(1 << n, dtype=np.int64)
    for s in range(n):
        out += (idx >> s) & 1
    return out


@dataclass(frozen=True)
class Moments:
    """Mean and variance of a stationary count, with the normalising total.

    Attributes
    ----------
    mean, variance : float
    second_moment : float
        :math:`E[X^2]`.
    normaliser : float
        :math:`1/C` (c.o.c.) or :math:`1/C'` (c.o.s.): the total weight of all states.
    """

    mean: float
    variance: float
    second_moment: float
    normaliser: float

    @property
    def sd(self) -> float:
        return math.sqrt(max(self.variance, 0.0))


def _moments(total: np.ndarray) -> Moments:
    z, d1, d2 = (float(x) for x in total)
    mean = d1 / z
    second = d2 / z + mean
    return Moments(mean, second - mean * mean, second, z)


def _jets_for(system: RedundancySystem, lam: float, mechanism, marks, idle_count=None) -> np.ndarray:
    mechanism = _check_mechanism(mechanism)
    st = _setup(system, lam)
    jets = _coc_jets(st, marks)
    if not mechanism.cancel_on_start:
        return jets.sum(axis=1)
    if idle_count is None:
        idle_count = np.zeros(1 << st.n)
    return _cos_combine(system, st, jets, idle_count)


# -- public quantities -------------------------------------------------------------------
def normalisation_constant(system: RedundancySystem, lam: float, mechanism: str = "coc") -> float:
    """C of (4) (probability of the empty system) or C' of (6) (all busy, nobody waiting)."""
    mechanism = _check_mechanism(mechanism)
    return 1.0 / _jets_for(system, check_arrival_rate(lam), mechanism, np.zeros(system.n_types))[0]


def total_jobs_moments(system: RedundancySystem, lam: float, mechanism: str = "coc",
                       waiting_only: bool = False) -> Moments:
    """Mean and variance of the total number of jobs Q (waiting + in service).

    For c.o.s. ``waiting_only=True`` gives the number of waiting jobs instead.
    """
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    marks = np.ones(system.n_types)
    idle = None
    if mechanism.cancel_on_start and not waiting_only:
        idle = system.n_servers - _popcount(system.n_servers)
    return _moments(_jets_for(system, lam, mechanism, marks, idle))


@dataclass(frozen=True)
class TotalJobs:
    """Stationary summaries of the total number of jobs Q from one product-form DP.

    Attributes
    ----------
    mean, variance : float
        :math:`E[Q]` and :math:`Var(Q)` (waiting + in service).
    empty_probability : float
        :math:`P(Q = 0)`.
    normaliser : float
        :math:`1/C` (c.o.c.) or :math:`1/C'` (c.o.s.).
    mechanism : str
    """

    mean: float
    variance: float
    empty_probability: float
    normaliser: float
    mechanism: str


def total_jobs_law(system: RedundancySystem, lam: float, mechanism: str = "coc") -> TotalJobs:
    """E[Q], Var(Q) and P(Q = 0) from a single subset DP.

    The DP's value at the marks z = 1 is the normaliser whatever the marks, so the
    normalising constant (and with it the empty probability) comes with the moments:
    :func:`total_jobs_moments` and :func:`empty_probability` called separately run the
    DP twice.
    """
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    mo = total_jobs_moments(system, lam, mechanism)
    if not mechanism.cancel_on_start:
        p0 = 1.0 / mo.normaliser
    else:
        p0 = float(_idle_weights(system, lam)[-1]) / mo.normaliser
    return TotalJobs(mo.mean, mo.variance, p0, mo.normaliser, mechanism.name)


def _per_type_moments(system: RedundancySystem, lam: float, types, mechanism) -> list[Moments]:
    """One subset DP for all requested types (each marked by its own variable)."""
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    types = list(range(system.n_types)) if types is None else _indices("types", types, system.n_types)
    st = _setup(system, lam)
    rows = np.full(system.n_types, -1, dtype=np.int64)
    for i, k in enumerate(dict.fromkeys(types)):
        rows[k] = i
    g = _kernel_coc_type_jets(st.masks, st.w, st.mu_u, rows)
    if not mechanism.cancel_on_start:
        totals = g.sum(axis=0)
    else:
        # c.o.s.: sum over idle sets I of B(I) times the subset sum of G over the busy set
        # (waiting jobs only, so the idle set adds no marks)
        full = (1 << st.n) - 1
        b = _idle_weights(system, lam)
        busy = full ^ np.arange(1 << st.n)
        totals = b[busy] @ zeta_transform(g, st.n)
    return [_moments(totals[[0, 1 + 2 * int(rows[k]), 2 + 2 * int(rows[k])]]) for k in types]


def type_moments(system: RedundancySystem, lam: float, types=None) -> list[Moments]:
    """Moments of :math:`Q_S` per type under c.o.c. (one subset DP for all requested types)."""
    return _per_type_moments(system, lam, types, CancelOnCompletion())


def waiting_type_moments(system: RedundancySystem, lam: float, types=None) -> list[Moments]:
    """Moments of the number of *waiting* type-S jobs :math:`\\tilde Q_S` under c.o.s.-ALIS."""
    return _per_type_moments(system, lam, types, CancelOnStart())


def server_replica_moments(system: RedundancySystem, lam: float, mechanism: str = "coc",
                           servers=None) -> list[Moments]:
    """Moments of the number of replicas :math:`R_n` at server n (Corollary 3.1, eq. (28)).

    c.o.c.: :math:`R_n = \\sum_{S\\ni n} Q_S`; c.o.s.: waiting jobs compatible with n
    plus one if n is busy.
    """
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    servers = range(system.n_servers) if servers is None else _indices("servers", servers, system.n_servers)
    comp = system.compatibility
    idx = np.arange(1 << system.n_servers)
    out = []
    for s in servers:
        marks = comp[:, s].astype(float)
        idle = ((idx >> s) & 1) ^ 1 if mechanism.cancel_on_start else None
        out.append(_moments(_jets_for(system, lam, mechanism, marks, idle)))
    return out


def empty_probability(system: RedundancySystem, lam: float, mechanism: str = "coc") -> float:
    """P(no job in the system): C under c.o.c.; under c.o.s. the probability all servers are idle."""
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    if not mechanism.cancel_on_start:
        return normalisation_constant(system, lam, "coc")
    b = _idle_weights(system, lam)
    return float(b[-1] * normalisation_constant(system, lam, "cos"))


def pgf(system: RedundancySystem, lam: float, z, mechanism: str = "coc", z_busy: float = 1.0) -> float:
    """Joint PGF :math:`E[\\prod_S z_S^{Q_S}]` by the DP (Proposition 3.1 / C.1), real z in [0, 1].

    For c.o.s. the counts are the *waiting* jobs :math:`\\tilde Q_S` (Proposition C.1),
    times :math:`z_{busy}^{\\#busy}` for the jobs in service.
    """
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    z = check_array("z", z, shape=(system.n_types,), low=0.0, high=1.0)
    z_busy = check_probability("z_busy", z_busy)
    zero = np.zeros(system.n_types)

    def total(zz, zb):
        st = _setup(system, lam, zz)
        jets = _coc_jets(st, zero)
        if not mechanism.cancel_on_start:
            return jets[0].sum()
        busy = system.n_servers - _popcount(system.n_servers)
        n = st.n
        gsum = zeta_transform(jets[0].copy(), n)
        idx = np.arange(1 << n)
        b = _idle_weights(system, lam)
        return float((b * gsum[((1 << n) - 1) ^ idx] * zb ** busy).sum())

    return float(total(z, z_busy) / total(np.ones(system.n_types), 1.0))


def pgf_prop31(system: RedundancySystem, lam: float, z) -> float:
    """:math:`f(z)/f(1)` of Proposition 3.1 evaluated literally, over all ordered type vectors.

    Exponential in K (sum over :math:`\\sum_m K!/(K-m)!` vectors): K <= 7. An
    independent check of the DP.
    """
    lam = check_arrival_rate(lam)
    require_stable(system, lam)
    k = system.n_types
    if k > 7:
        raise ParameterError(f"the literal Proposition 3.1 sum is limited to K <= 7 types (K = {k})")
    z = check_array("z", z, shape=(k,), low=0.0, high=1.0)
    n_lam = system.n_servers * lam
    masks, p, sp = system.masks, system.probabilities, system.speeds

    def f(zz):
        acc = 1.0
        for m in range(1, k + 1):
            for vec in itertools.permutations(range(k), m):
                union, psum, term = 0, 0.0, 1.0
                for j in vec:
                    union |= int(masks[j])
                    mu = sum(sp[s] for s in range(system.n_servers) if union >> s & 1)
                    psum += p[j] * zz[j]
                    term *= n_lam * p[j] * zz[j] / mu / (1.0 - n_lam * psum / mu)
                acc += term
        return acc

    return float(f(z) / f(np.ones(k)))


def total_jobs_pmf(system: RedundancySystem, lam: float, max_jobs: int, mechanism: str = "coc",
                   type_index: int | None = None, server_index: int | None = None) -> np.ndarray:
    """P(X = m) for m = 0..max_jobs: X the total number of jobs Q by default.

    With `type_index`, X is :math:`Q_S` (c.o.c.) or the waiting :math:`\\tilde Q_S` (c.o.s.);
    with `server_index`, X is the number of replicas :math:`R_n` at that server (28):
    the jobs compatible with it (c.o.c.), or the waiting ones plus one if it is busy (c.o.s.).

    Memory :math:`2^N (max\\_jobs + 1)` floats; the mass beyond `max_jobs` is
    ``1 - pmf.sum()``. For c.o.s. the total includes the jobs in service (one per busy server).
    """
    mechanism = _check_mechanism(mechanism)
    lam = check_arrival_rate(lam)
    max_jobs = check_integer("max_jobs", max_jobs, low=0)
    if (1 << system.n_servers) * (max_jobs + 1) > 60_000_000:
        raise ParameterError(f"pmf table 2^N x (max_jobs + 1) = {(1 << system.n_servers) * (max_jobs + 1)} "
                             f"exceeds 6e7 entries")
    st = _setup(system, lam)
    if type_index is not None and server_index is not None:
        raise ParameterError("give at most one of `type_index` and `server_index`")
    if server_index is not None:
        server_index = check_integer("server_index", server_index, low=0, high=system.n_servers - 1)
        marks = system.compatibility[:, server_index].astype(np.int64)
    elif type_index is None:
        marks = np.ones(system.n_types, dtype=np.int64)
    else:
        marks = np.zeros(system.n_types, dtype=np.int64)
        marks[check_integer("type_index", type_index, low=0, high=system.n_types - 1)] = 1
    g = _kernel_coc_pmf(st.masks, st.w, marks, st.mu_u, _tails(st, st.w), _tails(st, st.w * marks), max_jobs)
    norm = normalisation_constant(system, lam, mechanism)
    if not mechanism.cancel_on_start:
        return g.sum(axis=0) * norm
    n = st.n
    full = (1 << n) - 1
    for bit in range(n):  # subset sums along the set axis
        view = g.reshape(-1, 2, 1 << bit, max_jobs + 1)
        view[:, 1] += view[:, 0]
    b = _idle_weights(system, lam)
    out = np.zeros(max_jobs + 1)
    if server_index is not None:
        busy = ((np.arange(1 << n) >> server_index) & 1) ^ 1
    elif type_index is None:
        busy = n - _popcount(n)
    else:
        busy = np.zeros(1 << n, dtype=np.int64)
    for i in range(1 << n):
        if b[i] == 0.0:
            continue
        shift = int(busy[i])
        if shift <= max_jobs:
            out[shift:] += b[i] * g[full ^ i, : max_jobs + 1 - shift]
    return out * norm


#: entries of the joint pmf table of :func:`joint_type_pmf` (two tables of doubles: 32 MB)
JOINT_TABLE_LIMIT = 2_000_000


def joint_type_pmf(system: RedundancySystem, lam: float, max_jobs: int) -> np.ndarray:
    """Joint pmf :math:`P((Q_S)_S = q)` under c.o.c. for all q with entries <= max_jobs.

    Returns an array of shape ``(max_jobs + 1,) * K``; small systems only
    (:math:`(J + 1)^K 2^N \\le 2 \\cdot 10^6`, with :math:`J` = `max_jobs`). Same DP, with a count
    vector per prefix set.
    """
    lam = check_arrival_rate(lam)
    max_jobs = check_integer("max_jobs", max_jobs, low=0)
    k, n = system.n_types, system.n_servers
    size = (max_jobs + 1) ** k * (1 << n)
    if size > JOINT_TABLE_LIMIT:
        largest = int(math.floor((JOINT_TABLE_LIMIT / (1 << n)) ** (1.0 / k))) - 1
        raise ParameterError(f"`max_jobs` must be at most {largest} for this system ({k} types, {n} servers): the joint "
                             f"pmf table has (max_jobs + 1)^{k} x 2^{n} = {size:,} entries, limit "
                             f"{JOINT_TABLE_LIMIT:,} (got {max_jobs})")
    st = _setup(system, lam)
    shape = (max_jobs + 1,) * k
    g = np.zeros((1 << n,) + shape)
    h = np.zeros((1 << n,) + shape)
    h[(0,) + (0,) * k] = 1.0
    order = list(itertools.product(range(max_jobs + 1), repeat=k))
    inside = [[j for j in range(k) if (int(st.masks[j]) & ~u) == 0] for u in range(1 << n)]
    for u in range(1 << n):
        if not h[u].any():
            continue
        coef = [(j, st.w[j] / st.mu_u[u]) for j in inside[u]] if u else []
        gu, hu = g[u], h[u]
        for q in order:
            val = hu[q]
            for j, c in coef:
                if q[j] > 0:
                    prev = list(q)
                    prev[j] -= 1
                    val += c * gu[tuple(prev)]
            gu[q] = val
        for j in range(k):
            v = u | int(st.masks[j])
            if v != u:
                c = st.w[j] / st.mu_u[v]
                src = [slice(None)] * k
                dst = [slice(None)] * k
                src[j] = slice(0, max_jobs)
                dst[j] = slice(1, max_jobs + 1)
                h[v][tuple(dst)] += c * gu[tuple(src)]
    return g.sum(axis=0) * normalisation_constant(system, lam, "coc")


# -- the M-model in closed form (Sec. 3.3) ------------------------------------------------
def m_model_constant(lam: float, p12: float, mu: float = 1.0) -> float:
    """Normalisation constant C of the M-model's joint pmf (13), identical servers of speed `mu`.

    :math:`C = 3(2\\mu - 3\\lambda p_{\\{1,2\\}})(2\\mu - 3\\lambda p_{\\{2,3\\}})(\\mu - \\lambda)
    / ((3\\lambda)^2 p_{\\{1,2\\}} p_{\\{2,3\\}}\\mu + 12\\mu^2(\\mu - \\lambda))`.
    """
    lam = check_arrival_rate(lam)
    p12 = check_real("p12", p12, low=0.0, high=1.0, low_open=True, high_open=True)
    mu = check_positive("mu", mu)
    p23 = 1.0 - p12
    a = 3.0 * lam
    if not (a * p12 < 2 * mu and a * p23 < 2 * mu and lam < mu):
        from ..errors import InstabilityError
        raise InstabilityError(f"`lam` = {lam!r} violates the M-model's stability conditions "
                               f"3 lam p12 < 2 mu, 3 lam p23 < 2 mu, lam < mu")
    return 3 * (2 * mu - a * p12) * (2 * mu - a * p23) * (mu - lam) / (
        a * a * p12 * p23 * mu + 12 * mu * mu * (mu - lam))


def m_model_joint_pmf(lam: float, p12: float, max_jobs: int, mu: float = 1.0) -> np.ndarray:
    """:math:`P((Q_{\\{1,2\\}}, Q_{\\{2,3\\}}) = (q, q'))` from the closed form (13), q, q' <= max_jobs."""
    c = m_model_constant(lam, p12, mu)
    max_jobs = check_integer("max_jobs", max_jobs, low=0)
    p23 = 1.0 - p12
    a = 3.0 * lam
    out = np.zeros((max_jobs + 1, max_jobs + 1))
    out[0, 0] = c
    q = np.arange(1, max_jobs + 1)
    out[1:, 0] = c * (a * p12 / (2 * mu)) ** q
    out[0, 1:] = c * (a * p23 / (2 * mu)) ** q
    x, y = a * p12 / (3 * mu), a * p23 / (3 * mu)
    for i in range(1, max_jobs + 1):
        for j in range(1, max_jobs + 1):
            s = sum(math.comb(i + j - k - 1, j - 1) * 1.5 ** k for k in range(1, i + 1))
            s += sum(math.comb(i + j - k - 1, i - 1) * 1.5 ** k for k in range(1, j + 1))
            out[i, j] = c * x ** i * y ** j * s
    return out
