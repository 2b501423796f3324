r"""The refined graph mean field: the 1/N correction of the graph mean field (beyond paper L).

:mod:`~qtheory.locality.graphmf` gives each server of one given compatibility graph its own
queue-length marginal :math:`x_j(\ell) = P(Q_j \ge \ell)` and takes the servers to be
independent. Allmeier and Gast ("Mean field and refined mean field approximations for
heterogeneous systems: it works!", SIGMETRICS 2022, arXiv:2111.01594) show that for such
heterogeneous systems the mean-field error is :math:`O(1/N)` and that the refined correction of
Gast and Van Houdt ("A refined mean field approximation", SIGMETRICS 2018, Thm. 3.1), written
for the per-object state, removes it (error :math:`O(1/N^2)`). This module computes that
correction, stationary, for **local JSQ(2)**; the derivation below is ours, for this model.

**The exact drift in indicator form.** Let :math:`Y_j(\ell) = \mathbb 1\{Q_j \ge \ell\}`,
:math:`\ell = 1..L` (the queues truncated at L: a task sent to a server holding L tasks is
lost; with L large this changes nothing measurable), :math:`Y_j(0) = 1`, :math:`Y_j(L+1) = 0`.
For d = 2, dispatcher i with :math:`n_i \ge 2` neighbours picks each pair with probability
:math:`1/\binom{n_i}2`, so server j, holding :math:`\ell - 1` tasks, receives the task at rate

.. math::

   \alpha_j(\ell-1; Y) &= c_j + \sum_{e \ne j} \beta_{je}\, g_e(\ell), \\
   g_e(\ell) &= \tfrac12 \big(Y_e(\ell-1) + Y_e(\ell)\big), \\
   \beta_{je} &= \sum_{i:\, j, e \in N(i)} \frac{\lambda}{\binom{n_i}{2}},

(partner e longer than j: j gets the task; as long: half of the time), :math:`c_j` being
:math:`\lambda` per dispatcher whose only neighbour is j. :math:`\beta` is symmetric and
non-zero only for **pairs of servers that share a dispatcher**. The conditional drift of
:math:`Y_j(\ell)` is

.. math::

   F_{j\ell}(Y) &= D_{j\ell}\, \alpha_j(\ell-1; Y) - u_{m(j)} \big(Y_j(\ell) - Y_j(\ell+1)\big), \\
   D_{j\ell} &= Y_j(\ell-1) - Y_j(\ell),

the same function as the graph mean field's drift (:func:`qtheory.locality.graphmf.drift`,
with its one-node quadrature for d = 2), evaluated at 0/1 tails: the mean field is
:math:`\dot x = F(x)`. F is a polynomial of degree 2 whose only quadratic terms are products
:math:`D_{j\ell}\, g_e(\ell)` of **two different servers** (each server's own variables enter
linearly). Hence, with :math:`y = E[Y]` and :math:`C = \operatorname{Cov}(Y)`, exactly,

.. math:: \frac{d y}{dt} = E[F(Y)] = F(y) + \tfrac12 B : C, \qquad
   \big(\tfrac12 B : C\big)_{j\ell} = \sum_{e \ne j} \beta_{je}
   \operatorname{Cov}\big(D_{j\ell}, g_e(\ell)\big),

:math:`B` the (cross-server) second derivatives of F: only the covariances of servers that
share a dispatcher enter. (For d > 2 the drift has products of d - 1 partners, the expansion
gains terms in the joint cumulants of three or more servers, and its second-order part has
the same form; only d = 2, where it is exact, is implemented and tested.)

**The covariance (Lyapunov equation).** No event moves two servers, so the jump covariance
is diagonal: :math:`Q_{j\ell} = D_{j\ell}\alpha_j(\ell-1) + u_{m(j)}(x_j(\ell) - x_j(\ell+1))`
at the fixed point x. Differentiating :math:`E[Y_a Y_b]` with the generator and expanding F
around y gives :math:`\dot C = A C + C A^\top + Q + O(1/N^2)` in the cross-server blocks, A the
Jacobian of F at x: the blocks of two different servers are :math:`O(1/N)` (their coupling
:math:`\beta = O(1/N)` on dense lists), the terms dropped are third cumulants of servers and
:math:`\beta` times cross covariances of products, :math:`O(1/N^2)`. The blocks of one server
are :math:`O(1)` (its indicators are far from deterministic); with the arrival rate frozen at
:math:`\alpha_j(x)` the same equation is exact for them
(:math:`C_{j\ell,j\ell'} = x_j(\max(\ell,\ell')) - x_j(\ell) x_j(\ell')`, the birth-death chain),
and they are needed only to :math:`O(1)`. So the stationary C solves

.. math:: A C + C A^\top + Q = 0 \quad (\text{scipy.linalg.solve\_continuous\_lyapunov}),

the equation of Gast and Van Houdt's W with the per-server state in place of the occupancy.

**The correction.** At stationarity :math:`0 = F(y) + \frac12 B:C`; with :math:`y = x + v`,
:math:`F(y) = A v + O(|v|^2)` and

.. math:: v = -A^{-1}\, \tfrac12 B : C, \qquad E[Y_j(\ell)] = x_j(\ell) + v_{j\ell} + O(1/N^2),

the heterogeneous form of Thm. 3.1 of Gast and Van Houdt (2018) (Allmeier and Gast 2022,
Sec. 4). v is :math:`O(1/N)`: each row sums :math:`O(N)` partners of weight
:math:`\beta = O(1/N)` times covariances :math:`O(1/N)`.

**Reductions (tested).** (i) Exactness of the expansion: for any law of Y, in particular the
exact stationary law of a tiny truncated chain (enumerated), :math:`F(y) + \frac12 B:C = 0`
holds to round-off with the exact y and C. (ii) On the complete bipartite graph every server
of a type is alike; the graph mean field differs from (3.7)'s :math:`q^*` at order 1/N
(the partner is one of the N - 1 others, see :mod:`~qtheory.locality.graphmf`), and the refined
value must have the exact 1/N term: per type, :math:`N(\bar x + \bar v - q^*) \to V`, the
homogeneous refined mean field's :math:`V` (:func:`qtheory.locality.refined.refined_stationary`,
policy ``LocalJSQ()``), the difference falling like 1/N.

**Cost.** The state has n = N L coordinates; C is dense (n x n) and the Lyapunov solve
(Bartels-Stewart) costs :math:`O(n^3)`: about a second at n = 1000, which is why the correction
is meant for N up to about 50-100 (`max_dimension`). The Jacobian's cross blocks and the
contraction :math:`B:C` run over the pairs that share a dispatcher only (``pairs``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_continuous_lyapunov

from ..errors import ParameterError
from ..validation import check_integer, check_real
from .graphmf import _check_graph, _policy_d, fixed_point
from .graphs import CompatibilityGraph
from .model import LocalitySystem, check_tails

__all__ = ["pair_rates", "second_order_term", "jacobian", "jump_covariance", "refined_correction",
           "GraphRefinedStationary", "refined_fixed_point"]


def pair_rates(system: LocalitySystem, graph: CompatibilityGraph):
    r"""Coupling of local JSQ(2) between servers: ``(beta, single)``.

    ``beta[j, e]`` (N, N), symmetric, zero diagonal:
    :math:`\sum_{i:\, j, e \in N(i)} \lambda / \binom{n_i}{2}`, the rate at which a pair {j, e} is
    sampled; ``single[j]`` (N,): :math:`\lambda` times the number of dispatchers whose only
    neighbour is j (they send every task there)."""
    graph = _check_graph(system, graph)
    n = graph.n_servers
    beta = np.zeros((n, n))
    single = np.zeros(n)
    lam = float(system.arrival_rate)
    for i in range(graph.n_dispatchers):
        size = int(graph.degree[i])
        nbrs = graph.neighbors[graph.offset[i]:graph.offset[i] + size]
        if size == 1:
            single[nbrs[0]] += lam
        elif size >= 2:
            beta[np.ix_(nbrs, nbrs)] += lam / math.comb(size, 2)
    np.fill_diagonal(beta, 0.0)
    return beta, single


def _padded(x: np.ndarray) -> np.ndarray:
    out = np.zeros((x.shape[0], x.shape[1] + 2))
    out[:, 0] = 1.0
    out[:, 1:-1] = x
    return out


def _intensity(beta, single, x):
    """``alpha[j, l-1] = single_j + sum_e beta_je (x_e(l-1) + x_e(l)) / 2`` (N, L)."""
    xp = _padded(x)
    return single[:, None] + beta @ (0.5 * (xp[:, :-2] + xp[:, 1:-1]))


def jacobian(beta, single, rates, x) -> np.ndarray:
    r"""Jacobian of the local JSQ(2) drift F at per-server tails `x` (N, L), shape (N L, N L),
    index ``j L + l - 1``: own terms :math:`\alpha_j(\ell-1)` (from :math:`x_j(\ell-1)`),
    :math:`-\alpha_j(\ell-1) - u_j`, :math:`u_j` (from :math:`x_j(\ell+1)`), and the cross terms
    :math:`D_{j\ell}\beta_{je}/2` from :math:`x_e(\ell-1)` and :math:`x_e(\ell)`."""
    n, L = x.shape
    xp = _padded(x)
    alpha = _intensity(beta, single, x)
    D = xp[:, :-2] - xp[:, 1:-1]
    A = np.zeros((n, L, n, L))
    lv = np.arange(L)
    idx = np.arange(n)
    A[idx[:, None], lv[None, 1:], idx[:, None], lv[None, :-1]] += alpha[:, 1:]
    A[idx[:, None], lv[None, :], idx[:, None], lv[None, :]] -= alpha + rates[:, None]
    A[idx[:, None], lv[None, :-1], idx[:, None], lv[None, 1:]] += rates[:, None]
    # cross terms, only for pairs sharing a dispatcher
    j, e = np.nonzero(beta)
    half = 0.5 * beta[j, e]
    for l in range(L):
        A[j, l, e, l] += half * D[j, l]
        if l >= 1:
            A[j, l, e, l - 1] += half * D[j, l]
    return A.reshape(n * L, n * L)


def jump_covariance(beta, single, rates, x) -> np.ndarray:
    """Diagonal of the jump covariance Q at `x`: ``D_jl alpha_j(l-1) + u_j (x_j(l) - x_j(l+1))`` (N L,)."""
    xp = _padded(x)
    alpha = _intensity(beta, single, x)
    return ((xp[:, :-2] - xp[:, 1:-1]) * alpha + rates[:, None] * (xp[:, 1:-1] - xp[:, 2:])).ravel()


def second_order_term(beta, covariance, n_servers: int, levels: int) -> np.ndarray:
    r""":math:`\frac12 B:C`, shape (N, L): ``sum_{e != j} beta_je Cov(D_jl, g_e(l))`` with
    :math:`D_{j\ell} = Y_j(\ell-1) - Y_j(\ell)`, :math:`g_e(\ell) = (Y_e(\ell-1) + Y_e(\ell))/2`, from the
    covariance of the tail indicators `covariance` (N L, N L) (level 0 is the constant 1).
    Only the pairs with ``beta > 0`` (sharing a dispatcher) are visited."""
    n, L = n_servers, levels
    Cp = np.zeros((n, L + 1, n, L + 1))
    Cp[:, 1:, :, 1:] = np.asarray(covariance).reshape(n, L, n, L)
    j, e = np.nonzero(beta)
    w = beta[j, e]
    out = np.zeros((n, L))
    for l in range(L):
        # D_j(l) uses padded indices l (level l-1, +) and l + 1 (level l, -); g_e(l) the same two, / 2
        cov = 0.5 * (Cp[j, l, e, l] + Cp[j, l, e, l + 1] - Cp[j, l + 1, e, l] - Cp[j, l + 1, e, l + 1])
        np.add.at(out[:, l], j, w * cov)
    return out


@dataclass(frozen=True)
class GraphRefinedStationary:
    """Result of :func:`refined_fixed_point`.

    Attributes
    ----------
    x : (N, L) array
        The graph mean field's fixed point, ``x[j, l-1] = P(Q_j >= l)``.
    correction : (N, L) array
        v: ``E[1{Q_j >= l}] = x + v + O(1/N^2)``.
    covariance : (N L, N L) array
        C, the stationary covariance of the tail indicators (Lyapunov equation).
    server_type : (N,) int array
    levels : int
    top_level : float
        ``max_j max(x_j(L), |v_j(L)|)``.
    seconds : float
    """

    x: np.ndarray
    correction: np.ndarray
    covariance: np.ndarray
    server_type: np.ndarray
    levels: int
    top_level: float
    seconds: float

    def _type_mean(self, values):
        n_types = int(self.server_type.max()) + 1
        size = np.bincount(self.server_type, minlength=n_types).astype(float)
        return np.bincount(self.server_type, weights=values, minlength=n_types) / size

    @property
    def mean_queue_length(self) -> np.ndarray:
        """(N,) graph mean field, ``sum_l x_j(l)``."""
        return self.x.sum(axis=1)

    @property
    def refined_mean_queue_length(self) -> np.ndarray:
        """(N,) refined, ``sum_l (x_j(l) + v_j(l))``."""
        return (self.x + self.correction).sum(axis=1)

    @property
    def type_mean_queue_length(self) -> np.ndarray:
        """(M,) graph mean field averaged over the servers of each type."""
        return self._type_mean(self.mean_queue_length)

    @property
    def refined_type_mean_queue_length(self) -> np.ndarray:
        """(M,) refined, averaged over the servers of each type."""
        return self._type_mean(self.refined_mean_queue_length)


def refined_correction(system: LocalitySystem, graph: CompatibilityGraph, x, *, policy="jsqd",
                       max_dimension: int = 3000):
    r"""The correction v and covariance C at a fixed point `x` (N, L) of the graph mean field
    truncated at L levels (for :func:`refined_fixed_point`, and for a chain truncated at L:
    tasks sent to a server holding L are lost). Returns ``(v, C)``, shapes (N, L) and (N L, N L):
    C solves :math:`A C + C A^\top + Q = 0` and :math:`v = -A^{-1} \tfrac12 B:C`."""
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    if d != 2:
        raise ParameterError(f"the refined graph mean field is implemented for local JSQ(2) only (got d = {d}"
                             + (", JIQ" if d == 0 else "") + ")")
    x = check_tails("x", x, graph.n_servers, row="server", symbol="N")
    max_dimension = check_integer("max_dimension", max_dimension, low=1)
    n, L = x.shape
    if n * L > max_dimension:
        raise ParameterError(f"N L = {n} x {L} = {n * L} exceeds `max_dimension` = {max_dimension}: the Lyapunov "
                             f"equation is dense in N L (time (N L)^3, memory (N L)^2)")
    beta, single = pair_rates(system, graph)
    rates = system.u[graph.server_type].astype(float)
    A = jacobian(beta, single, rates, x)
    C = solve_continuous_lyapunov(A, -np.diag(jump_covariance(beta, single, rates, x)))
    C = 0.5 * (C + C.T)
    v = -np.linalg.solve(A, second_order_term(beta, C, n, L).ravel()).reshape(n, L)
    return v, C


def refined_fixed_point(system: LocalitySystem, graph: CompatibilityGraph, *, policy="jsqd", tol: float = 1e-10,
                        max_dimension: int = 3000) -> GraphRefinedStationary:
    r"""Refined graph mean field of local JSQ(2) at stationarity: :math:`x + v` (module docstring).

    Parameters
    ----------
    system, graph
        As for :func:`qtheory.locality.graphmf.fixed_point`.
    policy : "jsqd" or LocalJSQ with d = 2
    tol : float
        Truncation: L is the graph mean field's (``max_j x_j(L) <= tol``).
    max_dimension : int
        Largest N L accepted (the Lyapunov solve is dense, :math:`O((NL)^3)` time, :math:`(NL)^2` memory).

    Raises
    ------
    ParameterError
        For another policy than local JSQ(2), or N L above `max_dimension`.
    InstabilityError
        As :func:`~qtheory.locality.graphmf.fixed_point`.
    """
    start = time.perf_counter()
    graph = _check_graph(system, graph)
    d = _policy_d(system, policy)
    if d != 2:
        raise ParameterError(f"the refined graph mean field is implemented for local JSQ(2) only (got d = {d}"
                             + (", JIQ" if d == 0 else "") + ")")
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    max_dimension = check_integer("max_dimension", max_dimension, low=1)
    fp = fixed_point(system, graph, policy=policy, tol=tol)
    x = fp.x
    v, C = refined_correction(system, graph, x, policy=policy, max_dimension=max_dimension)
    L = x.shape[1]
    top = float(max(x[:, -1].max(), np.abs(v[:, -1]).max()))
    return GraphRefinedStationary(x.copy(), v, C, graph.server_type.copy(), L, top, time.perf_counter() - start)
