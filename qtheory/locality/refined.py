"""Refined mean-field approximation of paper L's occupancy (a result beyond the paper).

Paper L gives the limits N -> infinity: ODE (3.7) and its fixed point (Theorems 2-6).
For the systems in which the occupancy is itself a Markov chain, a *density-dependent
population process*, the mean at size N has an expansion in 1/N (Gast and Van Houdt
2017, "A refined mean field approximation"; Gast, Bortolussi and Tribastone 2019,
"Size expansions of mean field approximation: transient and steady-state analysis"):

.. math:: E[q^N] = q^* + V / N + O(1/N^2), \\qquad E[q^N(t)] = q(t) + V(t) / N + O(1/N^2).

**Which systems.** The state is ``q[m, l-1] = q_{m,l}``, flattened type by type
(index ``m L + l - 1``), truncated at L levels. The occupancy is a population process
when the servers of a type are exchangeable and the routing depends on the state only
through the occupancy:

* ``policy=GWSQ()`` (or ``"gwsq"``): GWSQ(d) with independent weighted draws (Algorithm 1 as implemented
  in :mod:`~qtheory.locality.simulation`), for any compatibility matrix p. Its drift is
  exactly the right side of (3.7) at every N;
* ``policy=LocalJSQ()`` (or ``"jsqd"``): local JSQ(d) on the complete bipartite graph (p = 1), which
  samples d *distinct* servers. At size N the chance that all d land among the ``N x``
  servers with at least l tasks is ``C(N x, d) / C(N, d) = x^d - d(d-1)/2 x^(d-1)(1-x)/N
  + O(1/N^2)``, so its drift is (3.7) plus a term ``f1 / N`` (:func:`drift_correction`),
  which enters V. With one type and one cluster this is the classical JSQ(d); GWSQ(d)
  is JSQ(d) with replacement.

Local JSQ(d) on any other graph (irg(p), ...) is refused: its servers are not
exchangeable, the occupancy alone is not Markov (Sec. 1.2 of the paper), and no
population-process expansion applies.

**Transitions.** ``q_{m,l}`` moves by ``+-1/N_m = +-1/(v_m N)``: an arrival joins a type-m
server with l - 1 tasks at rate ``N v_m a_{m,l}(q)`` and a type-m server with l tasks
finishes at rate ``N v_m u_m (q_{m,l} - q_{m,l+1})``, where ``a_{m,l}`` is the arrival
term of (3.7). In the form ``x -> x + e / N at rate N beta_e(x)`` the jumps are
``+-e_{m,l} / v_m``; the drift is ``sum_e e beta_e = (3.7)`` and the jump covariance
``Q = sum_e e e^T beta_e`` is diagonal, ``Q_{(m,l),(m,l)} = (a_{m,l} + u_m (q_{m,l} -
q_{m,l+1})) / v_m``.

**Stationary term.** With ``A`` the Jacobian and ``B`` the second derivatives of the drift
at q*, W solves the Lyapunov equation ``A W + W A^T + Q = 0`` (:math:`N \\operatorname{Cov}(q^N) \\to W`) and
``V = -A^{-1} (B:W / 2 + f1(q*))``, ``(B:W)_i = sum_{j,k} B_{ijk} W_{jk}`` (Gast and Van
Houdt 2017, Thm. 3.1; f1 = 0 for GWSQ). **Transient term**: along the ODE solution,
``dV/dt = A V + B:W / 2 + f1``, ``dW/dt = A W + W A^T + Q`` (Gast, Bortolussi and
Tribastone 2019, Thm. 1), from ``V(0) = 0`` and ``W(0) = 0`` for a deterministic start or
the covariance of i.i.d. initial queue lengths (``W(0)_{(m,l),(m,l')} = (q_{m,max(l,l')}
- q_{m,l} q_{m,l'}) / v_m``).

**Truncation.** Levels above L are set to 0. L is raised until the fixed point (or the
trajectory) and V hold less than `tol` at the top level; both decay doubly
exponentially in l for d >= 2 (Theorem 7), so the neglected levels change q and V by
less than that (the results report the top-level mass, and :func:`refined_stationary`
also the change of V when two more levels are added).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_continuous_lyapunov

from ..errors import ParameterError
from ..validation import check_integer, check_real
from ._ode import integrate, time_grid
from .graphs import CompatibilityGraph
from .meanfield import _padded, fixed_point, solve_meanfield
from .model import LocalitySystem, check_tails
from .policies import GWSQ, LocalJSQ, Policy, as_policy
from .stability import require_stable

__all__ = ["POLICIES", "check_population_policy", "Transitions", "transitions", "drift", "finite_drift",
           "drift_correction", "jacobian", "hessian", "jump_covariance", "iid_covariance",
           "RefinedStationary", "refined_stationary", "RefinedTransient", "refined_transient"]

#: the registered policies whose occupancy is a density-dependent population process (local
#: JSQ(d) only on the complete bipartite graph)
POLICIES = ("gwsq", "jsqd")


# -- which systems ---------------------------------------------------------------------
def check_population_policy(system: LocalitySystem, policy):
    """Return the policy object if the occupancy of `system` under `policy` is a population process.

    `policy` is a :class:`~qtheory.locality.policies.GWSQ` or
    :class:`~qtheory.locality.policies.LocalJSQ` object (local JSQ(d) on the complete
    bipartite graph), their registered name (``"gwsq"``, ``"jsqd"``), or a
    :class:`~qtheory.locality.graphs.CompatibilityGraph` (local JSQ(d) on that graph,
    accepted only when it is complete bipartite). A policy's own ``d`` must be the
    system's.

    Raises
    ------
    ParameterError
        For another policy, for local JSQ(d) on a graph that is not complete bipartite (or a
        system whose p is not all ones), saying why the expansion does not apply.
    """
    if isinstance(policy, CompatibilityGraph):
        graph = policy
        if graph.n_types != system.n_types or graph.n_clusters != system.n_clusters:
            raise ParameterError(f"`policy` graph has {graph.n_types} types and {graph.n_clusters} clusters, "
                                 f"the system {system.n_types} and {system.n_clusters}")
        if np.any(graph.degree != graph.n_servers):
            i = int(np.argmin(graph.degree))
            raise ParameterError(
                f"local JSQ(d) on this graph is not a population process: dispatcher {i} sees "
                f"{int(graph.degree[i])} of the {graph.n_servers} servers, so servers of one type are not "
                "exchangeable and the occupancy alone is not Markov; the refined expansion needs the "
                "complete bipartite graph (policy=LocalJSQ()) or GWSQ(d) (policy=GWSQ())")
        policy = LocalJSQ()
    if not isinstance(policy, (str, Policy)):
        raise ParameterError(f"`policy` must be GWSQ(), LocalJSQ(), their name or a complete bipartite graph "
                             f"(got {policy!r})")
    policy = as_policy(policy)
    if not isinstance(policy, (GWSQ, LocalJSQ)):
        raise ParameterError(f"`policy` must be GWSQ(), LocalJSQ(), their name or a complete bipartite graph "
                             f"(got {policy!r}): the occupancy of other policies is not a population process "
                             f"with this expansion")
    if policy.d is not None and policy.d != system.d:
        raise ParameterError(f"`policy.d` = {policy.d} differs from the system's d = {system.d}: "
                             f"give the system with that d (system.with_d)")
    if isinstance(policy, LocalJSQ) and not np.all(system.p == 1.0):
        raise ParameterError(
            "local JSQ(d) (policy LocalJSQ()) is a population process only on the complete bipartite graph, "
            "which needs `compatibility` = 1 everywhere; with other densities local JSQ(d) runs on a graph "
            "whose servers are not exchangeable, so its occupancy is not a population process "
            "(use policy=GWSQ() for the population process with the same limit (3.7))")
    return policy


def _check_n(n_servers) -> int:
    return check_integer("n_servers", n_servers, low=1)


# -- the selection polynomial ----------------------------------------------------------
def _selection_polynomial(d: int, kind: str, n_servers: int | None = None) -> np.ndarray:
    """Coefficients h_0..h_d of ``H(x)``, the chance that all sampled servers lie in a set
    holding a fraction x of the candidates: ``x^d`` (limit, and GWSQ at any N),
    ``C(N x, d) / C(N, d)`` (d distinct servers out of N) or its 1/N coefficient
    ``d(d-1)/2 (x^d - x^(d-1))``."""
    h = np.zeros(d + 1)
    if kind == "limit":
        h[d] = 1.0
    elif kind == "correction":
        h[d] += d * (d - 1) / 2.0
        h[d - 1] -= d * (d - 1) / 2.0
    elif kind == "distinct":
        if n_servers < d:             # a uniform neighbour (Sec. 2.2)
            h[1] = 1.0
        else:
            poly = np.poly1d([1.0])
            for k in range(d):
                poly = poly * np.poly1d([n_servers / (n_servers - k), -k / (n_servers - k)])
            coefs = poly.coeffs[::-1]
            h[:coefs.size] = coefs
    else:  # pragma: no cover - internal
        raise ValueError(kind)
    return h


def _pow(x: np.ndarray, k: int) -> np.ndarray:
    return x ** k if k >= 0 else np.zeros_like(x)


def _divided_difference(h: np.ndarray, a: np.ndarray, b: np.ndarray):
    """``G(a, b) = (H(a) - H(b)) / (a - b) = sum_j h_j sum_{r+s=j-1} a^r b^s`` and its first
    and second partial derivatives (G, Ga, Gb, Gaa, Gab, Gbb), free of the 0/0 at a = b."""
    out = [np.zeros_like(a) for _ in range(6)]
    for j in range(1, h.size):
        if h[j] == 0.0:
            continue
        for r in range(j):
            s = j - 1 - r
            c = h[j]
            out[0] += c * _pow(a, r) * _pow(b, s)
            out[1] += c * r * _pow(a, r - 1) * _pow(b, s)
            out[2] += c * s * _pow(a, r) * _pow(b, s - 1)
            out[3] += c * r * (r - 1) * _pow(a, r - 2) * _pow(b, s)
            out[4] += c * r * s * _pow(a, r - 1) * _pow(b, s - 1)
            out[5] += c * s * (s - 1) * _pow(a, r) * _pow(b, s - 2)
    return out


# -- the drift and its derivatives -----------------------------------------------------
class _Terms:
    """Arrival and departure terms of (3.7) at a state, with what their derivatives need."""

    def __init__(self, system: LocalitySystem, q: np.ndarray, h: np.ndarray):
        self.system = system
        self.M, self.L = q.shape
        qp = _padded(q)
        self.qp = qp
        self.r = system.neighbourhood_shares                                # (K, M)
        self.c = (system.w / system.delta)[:, None] * system.p               # (K, M)
        a = self.r @ qp[:, :-2]                                              # qt_{k,l-1}, l = 1..L
        b = self.r @ qp[:, 1:-1]                                             # qt_{k,l}
        self.G, self.Ga, self.Gb, self.Gaa, self.Gab, self.Gbb = _divided_difference(h, a, b)
        self.diff = qp[:, :-2] - qp[:, 1:-1]                                 # q_{m,l-1} - q_{m,l}
        self.lz = system.total_arrival_rate
        self.arrival = self.lz * self.diff * (self.c.T @ self.G)             # (M, L)
        self.departure = system.u[:, None] * (qp[:, 1:-1] - qp[:, 2:])      # (M, L)


def _state(system: LocalitySystem, q, name: str = "q") -> np.ndarray:
    return check_tails(name, q, system.n_types)


def drift(system: LocalitySystem, q, *, policy="gwsq") -> np.ndarray:
    """Limit drift of the population process: the right side of ODE (3.7), shape (M, L).

    Built from the transitions (:func:`transitions`), independently of
    :func:`qtheory.locality.meanfield.drift`; the two agree (test).
    """
    check_population_policy(system, policy)
    q = _state(system, q)
    tr = _Terms(system, q, _selection_polynomial(system.d, "limit"))
    return tr.arrival - tr.departure


def finite_drift(system: LocalitySystem, q, n_servers: int, *, policy="gwsq") -> np.ndarray:
    """Exact drift ``E[dq^N / dt | q^N = q]`` of the N-server system, shape (M, L).

    GWSQ(d): equal to (3.7) for every N. Local JSQ(d) on the complete graph: the
    arrival term uses ``C(N x, d) / C(N, d)`` (d distinct servers) for ``x^d``. Server
    types are assumed to hold ``v_m N`` servers and clusters ``w_k zeta N`` dispatchers.
    """
    policy = check_population_policy(system, policy)
    n = _check_n(n_servers)
    q = _state(system, q)
    kind = "limit" if isinstance(policy, GWSQ) else "distinct"
    tr = _Terms(system, q, _selection_polynomial(system.d, kind, n))
    return tr.arrival - tr.departure


def drift_correction(system: LocalitySystem, q, *, policy="gwsq") -> np.ndarray:
    """The 1/N term f1 of the drift, ``finite_drift = drift + f1 / N + O(1/N^2)``, shape (M, L).

    Zero for GWSQ; for local JSQ(d) on the complete graph the arrival term with
    ``H(x) = d(d-1)/2 (x^d - x^(d-1))`` in place of ``x^d`` (no departure part).
    """
    policy = check_population_policy(system, policy)
    q = _state(system, q)
    if isinstance(policy, GWSQ):
        return np.zeros_like(q)
    return _Terms(system, q, _selection_polynomial(system.d, "correction")).arrival


def _jacobian_hessian(system: LocalitySystem, q: np.ndarray, h: np.ndarray, *, with_hessian: bool = True,
                      contract: np.ndarray | None = None):
    """Jacobian, and the Hessian (n, n, n) or, given a matrix `contract` = W, ``B:W`` (n,)."""
    tr = _Terms(system, q, h)
    M, L = q.shape
    n = M * L
    J = np.zeros((n, n))
    if contract is not None:
        H = np.zeros(n)
    else:
        H = np.zeros((n, n, n)) if with_hessian else None
    lz, c, r = tr.lz, tr.c, tr.r
    for l in range(1, L + 1):
        col = l - 1
        # local variables: q_{.,l-1} (absent for l = 1: q_{m,0} = 1) then q_{.,l}
        idx_prev = [m * L + col - 1 for m in range(M)] if l > 1 else []
        idx_cur = [m * L + col for m in range(M)]
        idx = np.array(idx_prev + idx_cur, dtype=np.int64)
        two = len(idx_prev) > 0
        for m in range(M):
            i = m * L + col
            # gradient of h_m = sum_k c_{k,m} G(a_k, b_k) in the local variables
            grad_a = (c[:, m] * tr.Ga[:, col]) @ r                          # (M,)
            grad_b = (c[:, m] * tr.Gb[:, col]) @ r
            grad_h = np.concatenate([grad_a, grad_b]) if two else grad_b
            e = np.zeros(idx.size)
            if two:
                e[m] = 1.0
                e[M + m] = -1.0
            else:
                e[m] = -1.0
            hval = c[:, m] @ tr.G[:, col]
            diff = tr.diff[m, col]
            J[i, idx] += lz * (e * hval + diff * grad_h)
            if with_hessian or contract is not None:
                w_aa = ((c[:, m] * tr.Gaa[:, col])[:, None] * r).T @ r
                w_ab = ((c[:, m] * tr.Gab[:, col])[:, None] * r).T @ r
                w_bb = ((c[:, m] * tr.Gbb[:, col])[:, None] * r).T @ r
                hess_h = np.block([[w_aa, w_ab], [w_ab.T, w_bb]]) if two else w_bb
                block = lz * (np.outer(e, grad_h) + np.outer(grad_h, e) + diff * hess_h)
                if contract is not None:
                    H[i] += np.sum(block * contract[np.ix_(idx, idx)])
                else:
                    H[i][np.ix_(idx, idx)] += block
            J[i, i] -= system.u[m]
            if l < L:
                J[i, i + 1] += system.u[m]
    return J, H


def _fast_jacobian_contract(system: LocalitySystem, q: np.ndarray, h: np.ndarray, W: np.ndarray):
    """Jacobian (n, n) and ``B:W`` (n,) without the n^3 Hessian, vectorised over levels
    (used along trajectories; equal to the loop of :func:`_jacobian_hessian`, test)."""
    tr = _Terms(system, q, h)
    M, L = q.shape
    n = M * L
    lz, c, r = tr.lz, tr.c, tr.r
    grad_a = np.einsum("km,kl,kn->lmn", c, tr.Ga, r)             # d h_m / d q_{n,l-1}
    grad_b = np.einsum("km,kl,kn->lmn", c, tr.Gb, r)             # d h_m / d q_{n,l}
    hval = (c.T @ tr.G).T                                         # (L, M)
    diff = tr.diff.T                                              # (L, M)
    eye = np.eye(M)
    J4 = np.zeros((M, L, M, L))
    cur = lz * (-eye[None] * hval[:, :, None] + diff[:, :, None] * grad_b)      # (L, M, M)
    prev = lz * (eye[None] * hval[:, :, None] + diff[:, :, None] * grad_a)
    lv = np.arange(L)
    J4[:, lv, :, lv] += cur
    J4[:, lv[1:], :, lv[1:] - 1] += prev[1:]
    J4[:, lv, :, lv] -= eye[None] * system.u[None, :, None]
    J4[:, lv[:-1], :, lv[:-1] + 1] += eye[None] * system.u[None, :, None]
    J = J4.reshape(n, n)
    Wp = np.zeros((M, L + 1, M, L + 1))                           # level 0 (q_{m,0} = 1) is constant
    Wp[:, 1:, :, 1:] = W.reshape(M, L, M, L)
    W_pp = np.einsum("mlnl->lmn", Wp[:, :-1, :, :-1])
    W_pc = np.einsum("mlnl->lmn", Wp[:, :-1, :, 1:])
    W_cc = np.einsum("mlnl->lmn", Wp[:, 1:, :, 1:])
    # e^T W_loc grad with e = (+e_m at level l-1, -e_m at level l)
    e_w_g = (np.einsum("lmn,lmn->lm", W_pp, grad_a) + np.einsum("lmn,lmn->lm", W_pc, grad_b)
             - np.einsum("lnm,lmn->lm", W_pc, grad_a) - np.einsum("lmn,lmn->lm", W_cc, grad_b))
    form_pp = np.einsum("km,lmn,kn->kl", r, W_pp, r)
    form_pc = np.einsum("km,lmn,kn->kl", r, W_pc, r)
    form_cc = np.einsum("km,lmn,kn->kl", r, W_cc, r)
    hess_w = c.T @ (tr.Gaa * form_pp + 2.0 * tr.Gab * form_pc + tr.Gbb * form_cc)   # (M, L)
    BW = lz * (2.0 * e_w_g + diff * hess_w.T)                     # (L, M)
    return J, BW.T.ravel()


def jacobian(system: LocalitySystem, q, *, policy="gwsq") -> np.ndarray:
    """Jacobian ``A[i, j] = d drift_i / d q_j`` of (3.7) at `q` (flattened, n = M L), analytic."""
    check_population_policy(system, policy)
    q = _state(system, q)
    return _jacobian_hessian(system, q, _selection_polynomial(system.d, "limit"), with_hessian=False)[0]


def hessian(system: LocalitySystem, q, *, policy="gwsq") -> np.ndarray:
    """Second derivatives ``B[i, j, k] = d^2 drift_i / dq_j dq_k`` of (3.7) at `q`, analytic (n, n, n)."""
    check_population_policy(system, policy)
    q = _state(system, q)
    return _jacobian_hessian(system, q, _selection_polynomial(system.d, "limit"))[1]


@dataclass(frozen=True)
class Transitions:
    """The transitions of the population process at a state.

    ``x -> x + jumps[e] / N`` at rate ``N * rates[e]`` (x = q flattened type by type).

    Attributes
    ----------
    jumps : (E, n) array
        ``+e_{m,l} / v_m`` (arrival to a type-m server with l-1 tasks) or ``-e_{m,l} / v_m``
        (departure from one with l tasks).
    rates : (E,) array
        ``beta_e(x)``, rate per server.
    server_type, level, direction : (E,) int arrays
        m (0-based), l (1-based) and +1 / -1 for each transition.
    """

    jumps: np.ndarray
    rates: np.ndarray
    server_type: np.ndarray
    level: np.ndarray
    direction: np.ndarray

    @property
    def drift(self) -> np.ndarray:
        """``sum_e jumps[e] rates[e]`` (flattened)."""
        return self.jumps.T @ self.rates

    @property
    def covariance(self) -> np.ndarray:
        """``Q = sum_e jumps[e] jumps[e]^T rates[e]`` (n, n)."""
        return (self.jumps * self.rates[:, None]).T @ self.jumps


def transitions(system: LocalitySystem, q, *, policy="gwsq") -> Transitions:
    """The transitions and their rates at `q` (the limit rates; see the module docstring)."""
    check_population_policy(system, policy)
    q = _state(system, q)
    tr = _Terms(system, q, _selection_polynomial(system.d, "limit"))
    M, L = q.shape
    n = M * L
    jumps = np.zeros((2 * n, n))
    rates = np.zeros(2 * n)
    types = np.zeros(2 * n, np.int64)
    levels = np.zeros(2 * n, np.int64)
    direction = np.zeros(2 * n, np.int64)
    for m in range(M):
        for l in range(L):
            i = m * L + l
            for sign, term, e in ((1, tr.arrival, 2 * i), (-1, tr.departure, 2 * i + 1)):
                jumps[e, i] = sign / system.v[m]
                rates[e] = system.v[m] * term[m, l]
                types[e], levels[e], direction[e] = m, l + 1, sign
    return Transitions(jumps, rates, types, levels, direction)


def jump_covariance(system: LocalitySystem, q, *, policy="gwsq") -> np.ndarray:
    """``Q(q)``: diagonal, ``(a_{m,l} + u_m (q_{m,l} - q_{m,l+1})) / v_m`` (n, n)."""
    check_population_policy(system, policy)
    q = _state(system, q)
    tr = _Terms(system, q, _selection_polynomial(system.d, "limit"))
    return np.diag(((tr.arrival + tr.departure) / system.v[:, None]).ravel())


def iid_covariance(system: LocalitySystem, q0) -> np.ndarray:
    """``N Cov(q^N(0))`` for independent initial lengths with tails `q0` (Theorem 2's start).

    ``q^N_{m,l}(0)`` is an average of ``v_m N`` independent indicators ``1{X_j >= l}``,
    so the covariance is block diagonal with ``(q_{m,max(l,l')} - q_{m,l} q_{m,l'}) / v_m``.
    """
    q0 = _state(system, q0, "q0")
    M, L = q0.shape
    out = np.zeros((M * L, M * L))
    for m in range(M):
        top = np.maximum.outer(np.arange(L), np.arange(L))
        out[m * L:(m + 1) * L, m * L:(m + 1) * L] = (q0[m][top] - np.outer(q0[m], q0[m])) / system.v[m]
    return out


def _contract(B: np.ndarray, W: np.ndarray) -> np.ndarray:
    return np.einsum("ijk,jk->i", B, W)


# -- stationary ------------------------------------------------------------------------
class _Refinement:
    """What a refined result with mean field ``q`` and correction ``V`` (levels on the last
    axis: (M, L) stationary, (T, M, L) over time) gives for ``N`` servers."""

    def occupancy(self, n_servers: int | None = None) -> np.ndarray:
        """``q + V / N``, shaped like ``q`` (the mean field itself when `n_servers` is None)."""
        if n_servers is None:
            return self.q.copy()
        return self.q + self.V / _check_n(n_servers)

    def mean_queue_length(self, n_servers: int | None = None) -> np.ndarray:
        """Mean queue length per server type, ``sum_l (q_{m,l} + V_{m,l} / N)``: (M,) stationary,
        (T, M) over time."""
        return self.occupancy(n_servers).sum(axis=-1)


@dataclass(frozen=True)
class RefinedStationary(_Refinement):
    """Result of :func:`refined_stationary`.

    Attributes
    ----------
    q : (M, L) array
        The fixed point q* of (3.7) (Theorem 4).
    V : (M, L) array
        The 1/N term: ``E[q^N_{m,l}] = q_{m,l} + V_{m,l} / N + O(1/N^2)``.
    W : (n, n) array
        ``lim N Cov(q^N)`` (Lyapunov equation).
    type_fractions : (M,) array
    policy : GWSQ or LocalJSQ
    levels : int
        Truncation level L.
    top_level : float
        ``max_m max(q*_{m,L}, |V_{m,L}|)``.
    truncation_change : float
        ``max |V|`` change when the computation is repeated with two more levels.
    relaxation_time : float
        ``1 / min |Re eig(A)|``: the slowest decay time of the linearised ODE at q*
        (a guide for simulation warm-up).
    seconds : float
        Wall time.
    """

    q: np.ndarray
    V: np.ndarray
    W: np.ndarray
    type_fractions: np.ndarray
    policy: Policy
    levels: int
    top_level: float
    truncation_change: float
    relaxation_time: float
    seconds: float

    def overall_mean_queue_length(self, n_servers: int | None = None) -> float:
        """Mean queue length over all servers, ``sum_m v_m sum_l (...)``."""
        return float(self.type_fractions @ self.mean_queue_length(n_servers))


def _newton(system: LocalitySystem, q: np.ndarray, h: np.ndarray, steps: int = 20) -> np.ndarray:
    M, L = q.shape
    x = q.ravel().copy()
    for _ in range(steps):
        tr = _Terms(system, x.reshape(M, L), h)
        f = (tr.arrival - tr.departure).ravel()
        if np.max(np.abs(f)) < 1e-15:
            break
        J = _fast_jacobian_contract(system, x.reshape(M, L), h, np.zeros((x.size, x.size)))[0]
        x = x - np.linalg.solve(J, f)
    return x.reshape(M, L)


def _stationary_terms(system: LocalitySystem, q: np.ndarray, policy):
    h = _selection_polynomial(system.d, "limit")
    A = _fast_jacobian_contract(system, q, h, np.zeros((q.size, q.size)))[0]
    Q = jump_covariance(system, q)
    W = solve_continuous_lyapunov(A, -Q)
    W = (W + W.T) / 2.0
    rhs = 0.5 * _fast_jacobian_contract(system, q, h, W)[1]
    if isinstance(policy, LocalJSQ):
        rhs = rhs + _Terms(system, q, _selection_polynomial(system.d, "correction")).arrival.ravel()
    V = -np.linalg.solve(A, rhs)
    return V.reshape(q.shape), W, A


def _extend(q: np.ndarray, L: int) -> np.ndarray:
    out = np.zeros((q.shape[0], L))
    width = min(L, q.shape[1])
    out[:, :width] = q[:, :width]
    return out


def refined_stationary(system: LocalitySystem, *, policy="gwsq", tol: float = 1e-13,
                       max_levels: int = 256) -> RefinedStationary:
    """Refined stationary approximation ``q* + V / N`` (Gast and Van Houdt 2017, Thm. 3.1).

    Parameters
    ----------
    system : LocalitySystem
    policy : GWSQ, LocalJSQ (complete graph), their name or a complete bipartite graph
        See :func:`check_population_policy`.
    tol : float
        The truncation level L is raised until ``q*_{m,L}`` and ``|V_{m,L}|`` are below it.

    Raises
    ------
    InstabilityError
        If the asymptotic load (5.2) is >= 1 (no fixed point).
    ParameterError
        For a system whose occupancy is not a population process.
    """
    start = time.perf_counter()
    policy = check_population_policy(system, policy)
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    max_levels = check_integer("max_levels", max_levels, low=2)
    require_stable(system, "the refined stationary approximation")
    fp = fixed_point(system)
    h = _selection_polynomial(system.d, "limit")
    above = np.nonzero(fp.q.max(axis=0) > tol)[0]
    L = max(4, int(above[-1]) + 3 if above.size else 4)
    while True:
        q = _newton(system, _extend(fp.q, L), h)
        V, W, A = _stationary_terms(system, q, policy)
        top = float(max(np.abs(q[:, -1]).max(), np.abs(V[:, -1]).max()))
        if top <= tol:
            break
        if L + 2 > max_levels:
            raise ParameterError(f"the refined approximation still holds {top:.3g} > tol = {tol:g} at the top "
                                 f"level L = {L} (max_levels = {max_levels})")
        L += 2
    q2 = _newton(system, _extend(q, L + 2), h)
    V2 = _stationary_terms(system, q2, policy)[0]
    change = float(np.max(np.abs(V2[:, :L] - V)))
    q = np.where(np.abs(q) < 1e-300, 0.0, q)
    relax = float(1.0 / np.min(-np.linalg.eigvals(A).real))
    return RefinedStationary(q, V, W, system.v.copy(), policy, L, top, change, relax, time.perf_counter() - start)


# -- transient -------------------------------------------------------------------------
@dataclass(frozen=True)
class RefinedTransient(_Refinement):
    """Result of :func:`refined_transient`.

    Attributes
    ----------
    t : (T,) array
    q : (T, M, L) array
        Solution of ODE (3.7).
    V : (T, M, L) array
        ``E[q^N(t)] = q(t) + V(t) / N + O(1/N^2)``.
    variance : (T, M, L) array
        Diagonal of W(t): ``N Var(q^N_{m,l}(t))`` to leading order.
    type_fractions : (M,) array
    policy : GWSQ or LocalJSQ
    start : str
    levels : int
    top_level : float
        ``max_t max_m max(q_{m,L}(t), |V_{m,L}(t)|)``.
    seconds : float
    """

    t: np.ndarray
    q: np.ndarray
    V: np.ndarray
    variance: np.ndarray
    type_fractions: np.ndarray
    policy: Policy
    start: str
    levels: int
    top_level: float
    seconds: float


def refined_transient(system: LocalitySystem, q0, t_eval, *, policy="gwsq", start: str = "iid",
                      tol: float = 1e-10, rtol: float = 1e-8, atol: float = 1e-11,
                      max_levels: int = 128) -> RefinedTransient:
    """Refined transient approximation ``q(t) + V(t) / N`` (Gast, Bortolussi, Tribastone 2019).

    Integrates ODE (3.7) together with ``dV/dt = A V + B:W / 2 + f1`` and
    ``dW/dt = A W + W A^T + Q`` along the solution.

    Parameters
    ----------
    q0 : (M, L0) array
        Initial tails.
    t_eval : increasing array of times (the first is the start)
    start : "iid" or "deterministic"
        i.i.d. initial queue lengths with tails `q0` (W(0) from :func:`iid_covariance`,
        as in Theorems 1-2 and the L notebooks), or a start whose occupancy is exactly
        `q0` (W(0) = 0).
    tol : float
        Truncation: L is raised until ``q_{m,L}(t)`` and ``|V_{m,L}(t)|`` stay below it.
    """
    t0 = time.perf_counter()
    policy = check_population_policy(system, policy)
    q0 = _state(system, q0, "q0")
    t_eval = time_grid(t_eval)
    if start not in ("iid", "deterministic"):
        raise ParameterError(f"`start` must be 'iid' or 'deterministic' (got {start!r})")
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    max_levels = check_integer("max_levels", max_levels, low=2)
    L = solve_meanfield(system, q0, t_eval, tol=tol).levels
    M = system.n_types
    h = _selection_polynomial(system.d, "limit")
    h1 = _selection_polynomial(system.d, "correction")
    while True:
        n = M * L
        x0 = _extend(q0, L)
        W0 = iid_covariance(system, x0) if start == "iid" else np.zeros((n, n))
        y0 = np.concatenate([x0.ravel(), np.zeros(n), W0.ravel()])

        def rhs(_t, y, L=L, n=n):
            x = y[:n].reshape(M, L)
            V = y[n:2 * n]
            W = y[2 * n:].reshape(n, n)
            tr = _Terms(system, x, h)
            A, BW = _fast_jacobian_contract(system, x, h, W)
            Q = np.diag(((tr.arrival + tr.departure) / system.v[:, None]).ravel())
            dV = A @ V + 0.5 * BW
            if isinstance(policy, LocalJSQ):
                dV = dV + _Terms(system, x, h1).arrival.ravel()
            AW = A @ W
            dW = AW + AW.T + Q
            return np.concatenate([(tr.arrival - tr.departure).ravel(), dV, dW.ravel()])

        y = integrate(rhs, y0, t_eval, method="RK45", rtol=rtol, atol=atol, what="refined transient")
        q = y[:, :n].reshape(-1, M, L)
        V = y[:, n:2 * n].reshape(-1, M, L)
        var = np.einsum("tii->ti", y[:, 2 * n:].reshape(-1, n, n)).reshape(-1, M, L)
        top = float(max(np.abs(q[:, :, -1]).max(), np.abs(V[:, :, -1]).max()))
        if top <= tol:
            return RefinedTransient(t_eval.copy(), q, V, var, system.v.copy(), policy, start, L, top,
                                    time.perf_counter() - t0)
        if L + 2 > max_levels:
            raise ParameterError(f"the refined transient still holds {top:.3g} > tol = {tol:g} at the top "
                                 f"level L = {L} (max_levels = {max_levels})")
        L += 2
