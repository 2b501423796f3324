r"""The graph mean field: the mean-field ODE of one given compatibility graph (beyond paper L).

Paper L's ODE (3.7) is the limit, as :math:`N \to \infty`, over sequences of graphs that
satisfy Condition 1 (eq. (2.2)); it describes server *types*. An operator has one given
graph, with N servers whose neighbourhoods differ. The graph mean field treats every server
as an object of its own (the heterogeneous mean field of Allmeier and Gast, SIGMETRICS 2022):
server j has its own queue-length marginal

.. math:: x_j(\ell) = P(Q_j \ge \ell), \qquad \ell = 0, 1, \dots, L, \quad x_j(0) = 1,

and the servers are taken to be **independent**. Under that assumption the rate at which
server j is chosen, when it holds :math:`\ell - 1` tasks, is an exact function of the other
servers' marginals (:func:`arrival_intensity`), and each marginal solves the birth-death
equation

.. math::
   \begin{aligned}
   \frac{d x_j(\ell)}{dt} &= (x_j(\ell-1) - x_j(\ell))\, \alpha_j(\ell - 1; x) \\
   &\quad - u_{m(j)} (x_j(\ell) - x_j(\ell+1)), \qquad \ell = 1, \dots, L,
   \end{aligned}

with :math:`x_j(L+1) = 0` (truncation), the per-server analogue of (3.7): there the first term is
:math:`\lambda\zeta (q_{m,\ell-1} - q_{m,\ell}) \sum_k (p_{k,m} w_k/\delta_k)
(\tilde q_{k,\ell-1}^d - \tilde q_{k,\ell}^d)/(\tilde q_{k,\ell-1} - \tilde q_{k,\ell})`.

**The arrival intensity of local JSQ(d)** (Sec. 2.2). Dispatcher i, with Poisson arrivals of
rate :math:`\lambda` and neighbour list :math:`N(i)` of :math:`n = |N(i)| \ge d` servers, samples
a uniformly random set of d distinct neighbours and sends the task to the shortest of them,
ties broken uniformly. Fix a server :math:`j \in N(i)` with :math:`Q_j = \ell - 1`. It is in
the sample with probability :math:`d/n`, and then its d - 1 partners T form a uniform
(d-1)-subset of the n - 1 other neighbours. Given T, j receives the task iff every partner
holds at least :math:`\ell - 1` tasks, and then with probability :math:`1/(1+Z)`, Z the number
of partners holding exactly :math:`\ell - 1`. With independent servers, partner k holds
:math:`\ge \ell` with probability :math:`b_k = x_k(\ell)` and exactly :math:`\ell - 1` with
probability :math:`a_k - b_k`, :math:`a_k = x_k(\ell-1)`; since :math:`1/(1+z) = \int_0^1 t^z dt`,

.. math:: E\big[\mathbb 1\{\text{all} \ge \ell-1\} / (1 + Z) \,\big|\, T\big]
   = \int_0^1 \prod_{k \in T} f_k(t)\, dt, \qquad f_k(t) = b_k + (a_k - b_k)\, t.

Averaging over the :math:`\binom{n-1}{d-1}` equally likely T turns the product into the
elementary symmetric polynomial :math:`e_{d-1}` of the other servers' :math:`f_k(t)`, and

.. math::
   \begin{aligned}
   \alpha_{ij}(\ell - 1) &= \frac{\lambda}{\binom{n}{d}} \int_0^1
   e_{d-1}\big(f_k(t) : k \in N(i) \setminus \{j\}\big)\, dt, \\
   \alpha_j(\ell-1) &= \sum_{i : j \in N(i)} \alpha_{ij}(\ell-1)
   \end{aligned}

(using :math:`(d/n)/\binom{n-1}{d-1} = 1/\binom{n}{d}`). The integrand is a polynomial of degree
d - 1 in t, so Gauss-Legendre quadrature with :math:`\lceil d/2 \rceil` nodes is exact (one
node, t = 1/2, for d = 2: :math:`\alpha_{ij} = \lambda \sum_{k \ne j} (a_k + b_k)/2 / \binom n2`).
For all j of one list at once, :math:`e_{d-1}` without j is
:math:`\sum_{r<d} P_{c,r} S_{c+1,d-1-r}` with the prefix and suffix elementary symmetric
polynomials :math:`P_{c,r} = e_r(f_1..f_{c-1})`, :math:`S_{c,r} = e_r(f_c..f_n)` of the list
order (all terms non-negative: no cancellation), i.e. :math:`O(n\, d \lceil d/2 \rceil)` per
dispatcher and level, linear in the number of edges. A dispatcher with :math:`n < d`
neighbours sends to a uniform neighbour (as the simulator does): :math:`\alpha_{ij} = \lambda/n`.
The sorting of the sampled servers by queue length that JSQ(d) performs is what the
product over partners :math:`\ge \ell - 1` encodes: the order statistics of the sample reduce to
"every partner at least as long as j", level by level.

**What it is and is not.** On the complete bipartite graph with type-symmetric initial
marginals the servers of a type stay identical, and the graph mean field is a finite-N
ODE for the type marginals. It differs from (3.7) at order :math:`1/N` for two reasons:
(i) the *sampled set excludes the server itself*: j's d - 1 partners are distinct servers
among the N - 1 others, of which its own type holds :math:`N v_m - 1` and every other type
:math:`N v_{m'}`, while (3.7) draws them from the type mix :math:`v` (with replacement in
effect); (ii) the d distinct draws from a finite list are not d independent draws. It is
*not* the exact finite-N drift either (:func:`qtheory.locality.refined.finite_drift`,
:math:`\binom{N\tilde q}{d}/\binom Nd` in place of :math:`\tilde q^d`), and differs from it at
order :math:`1/N` through the **independence approximation**: given the occupancy, the exact
drift draws the partners without replacement from the realised population, whose numbers at
each length are fixed (j's partners at length :math:`\ge \ell - 1` number
:math:`N\tilde q_{\ell-1} - 1`, a hypergeometric draw), whereas here each partner's length is
an independent draw from its marginal (a Poisson-binomial count). Averaged over the
stationary law, the exact drift also carries the correlations between servers that
independence drops; the refined mean field's :math:`V/N` (:mod:`qtheory.locality.refined`)
is the exact :math:`1/N` term of the mean, and the graph mean field's :math:`1/N` term is not
it (for Sec. 6's servers and clusters at :math:`\lambda = 1.5` on the complete graph, type 1's
mean queue length: graph mean field :math:`-2.87/N`, refined :math:`-1.63/N`; simulated at
N = 10, 20, 50 the errors are -0.089, -0.039, -0.025 against (3.7)'s 0.175, 0.099, 0.032 and
the refined one's 0.012, 0.017, -0.001, SE 0.022, 0.014, 0.013). On a sparse graph (irg(p))
the graph mean field keeps what (3.7) averages away: which servers share dispatchers, and
how many. The correlations it drops are restored to first order by its refinement
(:mod:`qtheory.locality.graphrefined`, local JSQ(2)), whose :math:`1/N` term on the complete
graph is the refined mean field's (tested).

**JIQ** (:class:`~qtheory.locality.policies.JIQ`: a uniform idle neighbour if there is one,
else a uniform neighbour). With :math:`b_k = x_k(1)` the chance that neighbour k is busy, an idle
server j is chosen by dispatcher i with probability :math:`E[1/(1+S)]`, S the number of idle
servers among the n - 1 others, and a busy one with probability :math:`1/n` times the chance
that all others are busy:

.. math:: \alpha_{ij}(0) = \lambda \int_0^1 \prod_{k \ne j} \big(b_k + (1-b_k)\, t\big)\, dt,
   \qquad \alpha_{ij}(s) = \frac{\lambda}{n} \prod_{k \ne j} b_k \quad (s \ge 1).

The integrand has degree n - 1, so the exact rule has :math:`\lceil n/2 \rceil` nodes: JIQ costs
:math:`O(\sum_i n_i^2 / 2)` per evaluation (quadratic in the degrees, not linear in the edges;
prefix and suffix products give the products without j).

Policies: local JSQ(d) (``"jsqd"`` or :class:`~qtheory.locality.policies.LocalJSQ`), d from the
policy or the system, and JIQ (``"jiq"``). GWSQ(d) samples whole server types, not the graph,
so under independence the servers of a type stay identical and its occupancy is the
population process of (3.7) and :mod:`~qtheory.locality.refined`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import roots_legendre

from ..errors import InstabilityError, ParameterError
from ..validation import check_array, check_integer, check_real
from ._ode import integrate, time_grid
from .graphs import CompatibilityGraph
from .model import LocalitySystem, check_tails
from .policies import JIQ, LocalJSQ, as_policy

__all__ = ["arrival_intensity", "drift", "GraphFixedPoint", "fixed_point", "GraphMeanFieldSolution",
           "solve", "per_server_tails", "type_average"]


# -- the arrival intensity (kernel) -----------------------------------------------------
@njit(cache=True)
def _binomial(n, d):
    out = 1.0
    for r in range(d):
        out = out * (n - r) / (r + 1)
    return out


@njit(cache=True)
def _kernel_jsqd_intensity(tails, offset, degree, neighbors, arrival_rate, d, nodes, weights, out):
    """Add ``alpha_j(l - 1)`` (column l - 1 of `out`, l = 1..L) of local JSQ(d) to `out` (N, L).

    `tails` (N, L + 2) holds ``x_j(0) = 1, x_j(1..L), x_j(L+1) = 0``; `nodes`, `weights` are the
    Gauss-Legendre rule on [0, 1] with ceil(d / 2) nodes. Each dispatcher gathers its list's
    rows once (contiguous reads of `tails`) into a level-major local copy, then works level by
    level on contiguous rows; d = 2 (one node, t = 1/2) has a loop of its own."""
    n_disp = offset.size
    levels = tails.shape[1] - 2
    width = tails.shape[1]
    max_deg = 0
    for i in range(n_disp):
        if degree[i] > max_deg:
            max_deg = degree[i]
    loc = np.empty((width, max_deg))
    acc = np.empty((levels, max_deg))
    f = np.empty(max_deg)
    pre = np.empty((d, max_deg + 1))
    suf = np.empty((d, max_deg + 1))
    n_nodes = nodes.size
    for i in range(n_disp):
        n = degree[i]
        base = offset[i]
        if n == 0:
            continue
        if n < d:
            share = arrival_rate / n
            for c in range(n):
                j = neighbors[base + c]
                for l in range(levels):
                    out[j, l] += share
            continue
        scale = arrival_rate / _binomial(n, d)
        # deepest level l (1..L) at which some neighbour holds >= l - 1 tasks: beyond it no
        # partner set qualifies (d >= 2) and the intensity is 0
        last = 1
        for c in range(n):
            j = neighbors[base + c]
            for l in range(width):
                v = tails[j, l]
                loc[l, c] = v
                if v > 0.0 and l + 1 > last:
                    last = l + 1
        if d == 1 or last > levels:
            last = levels
        for l in range(levels):
            for c in range(n):
                acc[l, c] = 0.0
        for l in range(1, last + 1):
            a = loc[l - 1]
            b = loc[l]
            row = acc[l - 1]
            if d == 2:
                # e_1 without c = (sum of f before c) + (sum after c), f = (a + b) / 2
                run = 0.0
                for c in range(n):
                    row[c] = run
                    run += 0.5 * (a[c] + b[c])
                run = 0.0
                for c in range(n - 1, -1, -1):
                    row[c] += run
                    run += 0.5 * (a[c] + b[c])
                continue
            for g in range(n_nodes):
                t = nodes[g]
                for c in range(n):
                    f[c] = b[c] + (a[c] - b[c]) * t
                # pre[r, c] = e_r(f[0..c-1]), suf[r, c] = e_r(f[c..n-1]), r < d
                for c in range(n + 1):
                    pre[0, c] = 1.0
                    suf[0, c] = 1.0
                for r in range(1, d):
                    pre[r, 0] = 0.0
                    suf[r, n] = 0.0
                    for c in range(n):
                        pre[r, c + 1] = pre[r, c] + f[c] * pre[r - 1, c]
                    for c in range(n - 1, -1, -1):
                        suf[r, c] = suf[r, c + 1] + f[c] * suf[r - 1, c + 1]
                w = weights[g]
                for c in range(n):
                    e = 0.0
                    for r in range(d):
                        e += pre[r, c] * suf[d - 1 - r, c + 1]
                    row[c] += w * e
        for c in range(n):
            j = neighbors[base + c]
            for l in range(levels):
                out[j, l] += scale * acc[l, c]
    return out


@njit(cache=True, inline="always")
def _prefix_suffix(values, n, pre, suf):
    """Fill ``pre[c] = prod_{k < c} values[k]`` (c = 0..n) and ``suf[c] = prod_{c <= k < n}
    values[k]``: ``pre[c] * suf[c + 1]`` is the product of all but ``values[c]``."""
    pre[0] = 1.0
    for c in range(n):
        pre[c + 1] = pre[c] * values[c]
    suf[n] = 1.0
    for c in range(n - 1, -1, -1):
        suf[c] = suf[c + 1] * values[c]


@njit(cache=True)
def _kernel_jiq_intensity(tails, offset, degree, neighbors, arrival_rate, node_first, nodes, weights, out):
    """Add ``alpha_j(s)`` of JIQ to `out` (N, L): for s = 0 ``lambda int_0^1 prod_{k != j}
    (b_k + (1 - b_k) t) dt`` (b_k = x_k(1)), for s >= 1 ``lambda / n prod_{k != j} b_k``, summed over
    j's dispatchers. The Gauss-Legendre rule of a list of n servers (ceil(n / 2) nodes, exact for
    the degree n - 1 of the integrand) is ``nodes[node_first[n]:node_first[n + 1]]``."""
    n_disp = offset.size
    levels = out.shape[1]
    max_deg = 0
    for i in range(n_disp):
        if degree[i] > max_deg:
            max_deg = degree[i]
    busy = np.empty(max_deg)
    g = np.empty(max_deg)
    pre = np.empty(max_deg + 1)
    suf = np.empty(max_deg + 1)
    idle = np.empty(max_deg)
    for i in range(n_disp):
        n = degree[i]
        base = offset[i]
        if n == 0:
            continue
        for c in range(n):
            busy[c] = tails[neighbors[base + c], 1]
            idle[c] = 0.0
        for q in range(node_first[n], node_first[n + 1]):
            t = nodes[q]
            for c in range(n):
                g[c] = busy[c] + (1.0 - busy[c]) * t
            _prefix_suffix(g, n, pre, suf)
            w = weights[q]
            for c in range(n):
                idle[c] += w * pre[c] * suf[c + 1]
        # t = 0: every other neighbour busy
        _prefix_suffix(busy, n, pre, suf)
        for c in range(n):
            j = neighbors[base + c]
            out[j, 0] += arrival_rate * idle[c]
            share = arrival_rate / n * pre[c] * suf[c + 1]
            for l in range(1, levels):
                out[j, l] += share
    return out


_JIQ_RULES = {}


def _jiq_rules(degrees: np.ndarray):
    """Gauss-Legendre rules on [0, 1] for the list sizes in `degrees` (ceil(n / 2) nodes for n
    servers, exact for the degree n - 1 of JIQ's integrand), concatenated: the rule of n is
    ``nodes[first[n]:first[n + 1]]`` (empty for sizes not in `degrees`); cached by the set of sizes."""
    sizes = np.unique(degrees)
    key = sizes.tobytes()
    if key not in _JIQ_RULES:
        top = int(sizes.max()) if sizes.size else 1
        count = np.zeros(top + 2, np.int64)
        parts_x, parts_w = [], []
        for n in sizes:
            x, w = _quadrature(int(n))
            parts_x.append(x)
            parts_w.append(w)
            count[n + 1] = x.size
        first = np.cumsum(count)
        if len(_JIQ_RULES) > 8:
            _JIQ_RULES.clear()
        _JIQ_RULES[key] = (first, np.concatenate(parts_x) if parts_x else np.zeros(0),
                           np.concatenate(parts_w) if parts_w else np.zeros(0))
    return _JIQ_RULES[key]


def _quadrature(d: int):
    """Gauss-Legendre nodes and weights on [0, 1], exact for polynomials of degree d - 1."""
    s, w = roots_legendre(max(1, math.ceil(d / 2)))
    return (s + 1.0) / 2.0, w / 2.0


# -- inputs ----------------------------------------------------------------------------
def _policy_d(system: LocalitySystem, policy) -> int:
    """d of local JSQ(d), or 0 for JIQ."""
    pol = as_policy(policy)
    if isinstance(pol, JIQ):
        return 0
    if not isinstance(pol, LocalJSQ):
        raise ParameterError(
            f"`policy` {pol.name!r}: the graph mean field is implemented for local JSQ(d) ('jsqd') and JIQ ('jiq'); "
            "GWSQ(d) samples whole server types, so its servers of a type stay identical and its occupancy is the "
            "population process of (3.7) (see qtheory.locality.refined)")
    return system.d if pol.d is None else pol.d


def _check_graph(system: LocalitySystem, graph) -> CompatibilityGraph:
    if not isinstance(graph, CompatibilityGraph):
        raise ParameterError(f"`graph` must be a CompatibilityGraph (got {type(graph).__name__})")
    if graph.n_types != system.n_types or graph.n_clusters != system.n_clusters:
        raise ParameterError(f"`graph` has {graph.n_types} types and {graph.n_clusters} clusters, the system "
                             f"{system.n_types} and {system.n_clusters}")
    if graph.n_dispatchers and graph.degree.min() < 1:
        raise ParameterError(f"`graph`: dispatcher {int(np.argmin(graph.degree))} has no compatible server, "
                             f"its tasks could not be served")
    return graph


def _check_tails(name: str, x, n_servers: int) -> np.ndarray:
    """Per-server tails: :func:`qtheory.locality.model.check_tails` with one row per server."""
    return check_tails(name, x, n_servers, row="server", symbol="N")


def _padded(x: np.ndarray) -> np.ndarray:
    n, L = x.shape
    out = np.zeros((n, L + 2))
    out[:, 0] = 1.0
    out[:, 1:L + 1] = x
    return out


def _intensity(system: LocalitySystem, graph: CompatibilityGraph, x: np.ndarray, d: int) -> np.ndarray:
    out = np.zeros(x.shape)
    if d == 0:
        first, nodes, weights = _jiq_rules(graph.degree)
        tails = _padded(x)
        return _kernel_jiq_intensity(tails, graph.offset, graph.degree, graph.neighbors,
                                     float(system.arrival_rate), first, nodes, weights, out)
    nodes, weights = _quadrature(d)
    return _kernel_jsqd_intensity(_padded(x), graph.offset, graph.degree, graph.neighbors,
                                  float(system.arrival_rate), int(d), nodes, weights, out)


def _drift(system, graph, x, d, rates):
    xp = _padded(x)
    alpha = _intensity(system, graph, x, d)
    return (xp[:, :-2] - xp[:, 1:-1]) * alpha - rates[:, None] * (xp[:, 1:-1] - xp[:, 2:])


def per_server_tails(graph: CompatibilityGraph, q) -> np.ndarray:
    """Per-server tails ``x_j(l) = q[type(j), l-1]`` (N, L) from a type-level state `q` (M, L):
    the independent start of Theorems 1-2 (every server of type m drawn from row m)."""
    q = check_array("q", q, ndim=2, low=0.0, high=1.0)
    if q.shape[0] != graph.n_types:
        raise ParameterError(f"`q` must have one row per server type (M = {graph.n_types}, got {q.shape[0]})")
    return q[graph.server_type].copy()


def type_average(graph: CompatibilityGraph, values) -> np.ndarray:
    """Average of per-server `values` (first axis: servers) over the servers of each type,
    e.g. the expected occupancy ``q_{m,l} = mean_{j in V_m} x_j(l)`` (types without servers: nan)."""
    values = np.asarray(values, dtype=float)
    if values.ndim < 1 or values.shape[0] != graph.n_servers:
        raise ParameterError(f"`values` must have one row per server (N = {graph.n_servers})")
    flat = values.reshape(graph.n_servers, -1)
    out = _type_mean(graph.server_type, flat, graph.n_types)
    return out.reshape((graph.n_types,) + values.shape[1:])


def arrival_intensity(system: LocalitySystem, graph: CompatibilityGraph, x, *, policy="jsqd") -> np.ndarray:
    r"""Rate :math:`\alpha_j(\ell-1)` at which server j receives a task while it holds
    :math:`\ell - 1` tasks, under independent servers with tails `x` (see the module docstring).

    Parameters
    ----------
    system : LocalitySystem
        Gives :math:`\lambda` (per dispatcher) and d.
    graph : CompatibilityGraph
    x : (N, L) array
        ``x[j, l-1] = P(Q_j >= l)``, non-increasing in l.
    policy : "jsqd", LocalJSQ, "jiq" or JIQ
        Local JSQ(d) (d distinct neighbours, ties uniform) or JIQ.

    Returns
    -------
    (N, L) array
        ``alpha[j, l-1]``; ``(x_j(l-1) - x_j(l)) alpha[j, l-1]`` is the arrival term of the
        per-server ODE (the per-server form of the arrival term of (3.7)).
    """
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    x = _check_tails("x", x, graph.n_servers)
    return _intensity(system, graph, x, d)


def drift(system: LocalitySystem, graph: CompatibilityGraph, x, *, policy="jsqd") -> np.ndarray:
    r"""Right side of the graph mean-field ODE at `x` (N, L): the per-server analogue of (3.7),
    :math:`(x_j(\ell-1) - x_j(\ell))\alpha_j(\ell-1) - u_{m(j)} (x_j(\ell) - x_j(\ell+1))`."""
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    x = _check_tails("x", x, graph.n_servers)
    return _drift(system, graph, x, d, system.u[graph.server_type])


# -- fixed point -----------------------------------------------------------------------
@dataclass(frozen=True)
class GraphFixedPoint:
    """The fixed point of the graph mean field (result of :func:`fixed_point`).

    Attributes
    ----------
    x : (N, L) array
        ``x[j, l-1] = P(Q_j >= l)`` at the fixed point.
    server_type : (N,) int array
    levels : int
        Truncation level L (``max_j x_j(L) <= tol``).
    residual : float
        Max-norm of the drift at `x`.
    iterations : int
        Best-response sweeps (each one evaluation of the arrival intensity).
    seconds : float
        Wall time.
    """

    x: np.ndarray
    server_type: np.ndarray
    levels: int
    residual: float
    iterations: int
    seconds: float

    @property
    def mean_queue_length(self) -> np.ndarray:
        """(N,) stationary mean queue length of each server, ``sum_l x_j(l)``."""
        return self.x.sum(axis=1)

    @property
    def occupancy(self) -> np.ndarray:
        """(M, L) expected occupancy, ``q_{m,l} = mean over type-m servers of x_j(l)``."""
        return _type_mean(self.server_type, self.x)

    @property
    def type_mean_queue_length(self) -> np.ndarray:
        """(M,) mean queue length of each type (average over its servers)."""
        return self.occupancy.sum(axis=1)


def _type_mean(server_type, values, n_types=None):
    n_types = int(server_type.max()) + 1 if n_types is None else n_types
    size = np.bincount(server_type, minlength=n_types).astype(float)
    sums = np.zeros((n_types, values.shape[1]))
    np.add.at(sums, server_type, values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / size[:, None]


def _best_response(alpha: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """Tails of each server's birth-death chain on 0..L with up-rates ``alpha[j, s]`` (from s)
    and down-rate ``rates[j]``: ``pi_j(s) ~ prod_{r<s} alpha_j(r) / u_j``, tails by reverse sums
    (no cancellation at deep levels)."""
    n, L = alpha.shape
    ratio = alpha / rates[:, None]
    pi = np.ones((n, L + 1))
    pi[:, 1:] = np.cumprod(ratio, axis=1)
    tails = np.cumsum(pi[:, ::-1], axis=1)[:, ::-1]        # tails[:, s] = sum_{r >= s} pi(r)
    return tails[:, 1:] / tails[:, :1]


def _extend(x: np.ndarray, L: int) -> np.ndarray:
    out = np.zeros((x.shape[0], L))
    w = min(L, x.shape[1])
    out[:, :w] = x[:, :w]
    return out


def fixed_point(system: LocalitySystem, graph: CompatibilityGraph, *, policy="jsqd", tol: float = 1e-10,
                xtol: float = 1e-12, levels: int | None = None, max_levels: int = 200,
                max_iterations: int = 100000, memory: int = 6) -> GraphFixedPoint:
    r"""Stationary point of the graph mean field on `graph` (the per-server analogue of
    Theorem 4's :math:`q^*` of (3.7)).

    At a fixed point every server's marginal is the stationary law of its birth-death chain
    with up-rate :math:`\alpha_j(s; x)` from s and down-rate :math:`u_{m(j)}`:
    :math:`P(Q_j = s) \propto \prod_{r<s} \alpha_j(r)/u_{m(j)}` (flow balance across each cut,
    the per-server form of (5.1)). The map :math:`x \mapsto` (these laws) is monotone (longer
    partners send more tasks to j), and its iterates from the empty state increase to the
    least fixed point; they are accelerated by Anderson mixing of the last `memory` iterates
    (falling back to the plain step whenever the mixed one leaves the state space or does not
    reduce the step). L starts at 8 and grows by 2 until ``max_j x_j(L) <= tol``.

    Parameters
    ----------
    system : LocalitySystem
    graph : CompatibilityGraph
    policy : "jsqd", LocalJSQ, "jiq" or JIQ
    tol : float
        Largest mass allowed at the top level L.
    xtol : float
        Stop when a sweep changes no tail by more than this.
    levels : int, optional
        First truncation level (default 8).

    Raises
    ------
    InstabilityError
        If some server's tail still holds more than `tol` at `max_levels` (its arrival
        intensity does not fall below its service rate soon enough), or, for random routing
        (d = 1, M/M/1 queues of loads :math:`\rho_j = \alpha_j / u_j`, L chosen from the
        largest), if some :math:`\rho_j \ge 1`.
    """
    start = time.perf_counter()
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    xtol = check_real("xtol", xtol, low=0.0, low_open=True)
    L = 8 if levels is None else check_integer("levels", levels, low=1)
    max_levels = check_integer("max_levels", max_levels, low=L)
    max_iterations = check_integer("max_iterations", max_iterations, low=1)
    memory = check_integer("memory", memory, low=0)
    rates = system.u[graph.server_type].astype(float)
    if d == 1:
        # random routing: the intensity does not depend on x, each server is an M/M/1 queue
        # of load rho_j = alpha_j / u_j with tails rho_j^l; L from the largest load
        load = _intensity(system, graph, np.zeros((graph.n_servers, 1)), 1)[:, 0] / rates
        j = int(np.argmax(load))
        if load[j] >= 1.0:
            raise InstabilityError(f"server {j} has load {load[j]:.4g} >= 1 under random routing (d = 1): "
                                   f"the graph mean field has no stationary point")
        if load[j] > 0.0:
            L = max(L, int(np.ceil(np.log(tol) / np.log(load[j]))) + 1)
        if L > max_levels:
            raise ParameterError(f"`max_levels` = {max_levels} is too small: server {j} has load {load[j]:.4g}, "
                                 f"whose tail needs {L} levels to fall below tol = {tol:g}")
    x = np.zeros((graph.n_servers, L))
    iterations = 0
    while True:
        x, its = _solve_fixed_point(system, graph, x, d, rates, xtol, max_iterations - iterations, memory)
        iterations += its
        top = float(x[:, -1].max()) if x.size else 0.0
        if top <= tol:
            break
        if L + 2 > max_levels:
            j = int(np.argmax(x[:, -1]))
            raise InstabilityError(f"server {j} still holds {top:.3g} > tol = {tol:g} at level L = {L} "
                                   f"(max_levels = {max_levels}): its arrival intensity does not fall below its "
                                   f"service rate {rates[j]:g} soon enough (an overloaded server, or one too "
                                   f"close to its capacity for `max_levels`)")
        L += 2
        x = _extend(x, L)
    residual = float(np.abs(_drift(system, graph, x, d, rates)).max()) if x.size else 0.0
    return GraphFixedPoint(x, graph.server_type.copy(), L, residual, iterations, time.perf_counter() - start)


def _solve_fixed_point(system, graph, x, d, rates, xtol, budget, memory):
    """Iterate the best-response map G from `x` with Anderson acceleration; returns (x, sweeps)."""
    n = x.size
    shape = x.shape
    xs, gs = [], []                 # recent iterates and their images (flattened)
    its = 0
    prev_step = np.inf
    while its < budget:
        g = _best_response(_intensity(system, graph, x, d), rates)
        its += 1
        step = float(np.abs(g - x).max()) if n else 0.0
        if step <= xtol:
            return g, its
        xs.append(x.ravel().copy())
        gs.append(g.ravel().copy())
        if len(xs) > memory + 1:
            xs.pop(0)
            gs.pop(0)
        new = g
        if memory > 0 and len(xs) >= 2 and step < prev_step:
            X = np.array(xs)
            F = np.array(gs) - X                      # residuals f_k = G(x_k) - x_k
            dF = np.diff(F, axis=0)
            dG = np.diff(np.array(gs), axis=0)
            try:
                gamma, *_ = np.linalg.lstsq(dF.T, F[-1], rcond=None)
                cand = (gs[-1] - gamma @ dG).reshape(shape)
            except np.linalg.LinAlgError:
                cand = None
            if cand is not None and np.all(np.isfinite(cand)) and cand.min() >= 0.0 and cand.max() <= 1.0 \
                    and np.all(np.diff(cand, axis=1) <= 0.0):
                new = cand
            else:
                xs, gs = [], []
        elif step >= prev_step:
            xs, gs = [], []            # restart the mixing on a non-contracting step
        prev_step = step
        x = new
    raise RuntimeError(f"the graph mean-field fixed point did not converge in the iteration budget "
                       f"(last step {step:.3g})")


# -- transient -------------------------------------------------------------------------
@dataclass(frozen=True)
class GraphMeanFieldSolution:
    """Solution of the graph mean-field ODE on a time grid (result of :func:`solve`).

    Attributes
    ----------
    t : (T,) array
    x : (T, N, L) array
        ``x[t, j, l-1] = P(Q_j(t) >= l)``.
    server_type : (N,) int array
    levels : int
    truncation_error : float
        ``max_t max_j x_j(L)(t)``.
    seconds : float
    """

    t: np.ndarray
    x: np.ndarray
    server_type: np.ndarray
    levels: int
    truncation_error: float
    seconds: float

    @property
    def occupancy(self) -> np.ndarray:
        """(T, M, L) expected occupancy of each type."""
        return np.array([_type_mean(self.server_type, xt) for xt in self.x])

    @property
    def type_mean_queue_length(self) -> np.ndarray:
        """(T, M) mean queue length of each type."""
        return self.occupancy.sum(axis=2)

    @property
    def mean_queue_length(self) -> np.ndarray:
        """(T, N) mean queue length of each server."""
        return self.x.sum(axis=2)


def solve(system: LocalitySystem, graph: CompatibilityGraph, x0, t_eval, *, policy="jsqd", tol: float = 1e-9,
          rtol: float = 1e-7, atol: float = 1e-10, max_levels: int = 1024) -> GraphMeanFieldSolution:
    """Integrate the graph mean-field ODE from the per-server tails `x0` (N, L0) (the per-server
    analogue of Theorem 2's limit (3.7); :func:`per_server_tails` makes `x0` from a type-level
    start). Explicit Runge-Kutta (RK45); L starts at ``L0 + 8`` and doubles until the top level
    never holds more than `tol`.
    """
    start = time.perf_counter()
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    x0 = _check_tails("x0", x0, graph.n_servers)
    t_eval = time_grid(t_eval)
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    rates = system.u[graph.server_type].astype(float)
    n = graph.n_servers
    L = max(16, x0.shape[1] + 8)
    while True:
        if x0.shape[1] > L and x0[:, L:].max() > tol:
            L *= 2
            continue
        y0 = _extend(x0, L).ravel()

        def rhs(_t, y, L=L):
            return _drift(system, graph, y.reshape(n, L), d, rates).ravel()

        x = integrate(rhs, y0, t_eval, method="RK45", rtol=rtol, atol=atol,
                      what="graph mean-field").reshape(-1, n, L)
        top = float(x[:, :, -1].max())
        if top <= tol:
            return GraphMeanFieldSolution(t_eval.copy(), x, graph.server_type.copy(), L, top,
                                          time.perf_counter() - start)
        if 2 * L > max_levels:
            raise ParameterError(f"truncation at {L} levels still leaves {top:.3g} > tol = {tol:g} at the top "
                                 f"level; the queues grow too long (is some server overloaded?)")
        L *= 2
