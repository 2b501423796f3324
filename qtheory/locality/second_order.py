"""Second-order (:math:`1/N^2`) stationary expansion of paper L's occupancy (a result beyond the paper).

For the systems whose occupancy is a density-dependent population process (GWSQ(d) for any
compatibility matrix, local JSQ(d) on the complete bipartite graph; see
:mod:`qtheory.locality.refined`) the stationary mean has the size expansion of Gast,
Bortolussi and Tribastone ("Size expansions of mean field approximation: transient and
steady-state analysis", Performance Evaluation 2019; its steady-state :math:`1/N^2` result, the
"refined refined" approximation of rmf_tool). The paper's text is not among the project's
sources, so its equation numbers are not quoted here: the equations below are derived in
this docstring and checked against rmf_tool 0.5's ``refinedRefined_fixedPoint.computePiVA``
(test), which implements the paper's steady-state equations for an N-independent drift:

.. math:: E[q^N] = q^* + V / N + A / N^2 + O(1/N^3).

**Notation** (index form; sums over repeated indices). ``x`` is the occupancy flattened type
by type (``i = m L + l - 1``), ``Y = q^N - q*`` and ``F`` the limit drift (3.7);
``F_{i,j}``, ``F_{i,jk}``, ... are its partial derivatives at q* (``J = (F_{i,j})`` the
Jacobian). The drift at size N is ``F + f1 / N + f2 / N^2 + ...`` (f1 = f2 = 0 for GWSQ,
whose drift is (3.7) at every N; for local JSQ(d) they are the :math:`1/N` and :math:`1/N^2` terms of
``C(N x, d) / C(N, d)``, :func:`selection_series`). ``Q_ij(x) = sum_e e_i e_j beta_e(x)`` is
the jump covariance (diagonal here, ``(a_i + s_i) / v_m`` with a the arrival and s the
departure term; its 1/N part ``Q1 = diag(f1) / v``), ``R_ijk = sum_e e_i e_j e_k beta_e``
(``delta_ijk (a_i - s_i) / v_m^2``). The moments of Y expand as ``E[Y] = V/N + A/N^2``,
``E[Y_i Y_j] = W/N + B/N^2``, ``E[Y_i Y_j Y_k] = C/N^2``, ``E[Y_i Y_j Y_k Y_l] = D/N^2``
(raw moments, orders :math:`O(N^{-3})` dropped).

**Equations.** The stationary law makes the generator of every polynomial average to
zero, ``E[sum_e N beta_e(x) (h(x + e/N) - h(x))] = 0``; applied to ``h = Y_i``, ``Y_i Y_j``,
``Y_i Y_j Y_k`` and ``Y_i Y_j Y_k Y_l``, with the drift, Q and R Taylor-expanded around q*
and the terms collected by powers of 1/N, this gives, order by order (for f1 = f2 = 0 these
are rmf_tool's ``computeW``, ``computeV``, ``computeD``, ``computeC``, ``computeB`` and
``computeA``):

* (W) ``J W + W J^T + Q = 0`` (Lyapunov);
* (V) ``J V + F'':W / 2 + f1 = 0``;
* (D) ``sum_{4 slots} J_ia D_ajkl + sum_{6 pairings} Q_ij W_kl = 0``, solved in closed form
  by the Gaussian moment ``D_ijkl = W_ij W_kl + W_ik W_jl + W_il W_jk`` (substitute and use
  (W));
* (C) ``sum_{3 slots} J_ia C_ajk = -[sum_{3 slots} (F_{i,ab} D_abjk / 2 + f1_i W_jk)
  + sum_{3 slots} (Q_ij V_k + Q_{ij,a} W_ak) + R_ijk]``, a tensor Sylvester equation,
  solved through the complex Schur form of J (:func:`_solve_kronecker_sum3`);
* (B) ``J B + B J^T = -[X + X^T + Q_{ij,a} V_a + Q_{ij,ab} W_ab / 2 + Q1]`` with
  ``X_ij = F_{i,ab} C_abj / 2 + F_{i,abc} D_abcj / 6 + f1_i V_j + f1_{i,a} W_aj``;
* (A) ``J A = -[F_{i,jk} B_jk / 2 + F_{i,jkl} C_jkl / 6 + F_{i,jklm} D_jklm / 24
  + f1_{i,j} V_j + f1_{i,jk} W_jk / 2 + f2_i]``.

The f1, f2 and Q1 terms are the additions for a drift that depends on N (local JSQ(d)):
they come from the same expansion with ``F + f1/N + f2/N^2`` in place of F and are
tested against exact finite chains extrapolated in 1/N.

**Structure used.** Row ``(m, l)`` of the drift depends on ``q_{., l-1}``, ``q_{., l}``
(and linearly on ``q_{m, l+1}``), so every derivative of order >= 2 is a small tensor in
these 2M local variables (:func:`local_derivatives`, analytic up to order 4); with D in
closed form nothing of size :math:`n^4` or :math:`n^5` is formed. The cost is dominated by the :math:`n^3` tensor C
(n = M L).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import schur, solve_continuous_lyapunov
from scipy.linalg.lapack import ztrsyl

from ..errors import ParameterError
from ..validation import check_integer, check_real
from .meanfield import fixed_point
from .model import LocalitySystem
from .policies import LocalJSQ
from .refined import _extend, _fast_jacobian_contract, _newton, _selection_polynomial, _state, _Terms, \
    check_population_policy
from .stability import require_stable

__all__ = ["selection_series", "local_derivatives", "SecondOrderStationary", "second_order_stationary"]

#: highest derivative of the drift the expansion needs
_ORDER = 4


# -- the selection polynomial and its expansion in 1/N ---------------------------------
def selection_series(d: int, kind: str, terms: int = 3) -> list[np.ndarray]:
    """Coefficients ``h^(0), ..., h^(terms-1)`` (each of length d + 1, powers of x) of the
    expansion ``H_N(x) = sum_k h^(k)(x) / N^k`` of the chance that all d sampled servers lie in a
    set holding a fraction x of the candidates.

    ``kind="gwsq"``: independent draws, ``H_N = x^d`` at every N. ``kind="jsqd-complete"``:
    d distinct servers, ``H_N = C(N x, d) / C(N, d) = prod_{k<d} (x - k/N) / (1 - k/N)``; each
    factor is ``x + (x - 1) sum_{r>=1} (k/N)^r``, and the product is expanded in 1/N.
    """
    d = check_integer("d", d, low=1)
    out = [np.zeros(d + 1) for _ in range(terms)]
    if kind == "gwsq":
        out[0][d] = 1.0
        return out
    if kind != "jsqd-complete":
        raise ParameterError(f"`kind` must be 'gwsq' or 'jsqd-complete' (got {kind!r})")
    # poly[t] = coefficients in x of the 1/N^t term of the running product
    poly = [np.zeros(d + 1) for _ in range(terms)]
    poly[0][0] = 1.0
    for k in range(d):
        factor = [np.zeros(2) for _ in range(terms)]      # each term linear in x: (const, x)
        factor[0][:] = (0.0, 1.0)
        for r in range(1, terms):
            factor[r][:] = (-(k ** r), k ** r)                  # (x - 1) k^r
        new = [np.zeros(d + 1) for _ in range(terms)]
        for t in range(terms):
            for s in range(terms - t):
                prod = np.convolve(poly[t], factor[s])[:d + 1]
                new[t + s] += prod
        poly = new
    return poly


# -- local derivatives of the arrival term ---------------------------------------------
def _g_partials(h: np.ndarray, a: np.ndarray, b: np.ndarray, order: int) -> np.ndarray:
    """``G_{pq} = d^{p+q} G / da^p db^q`` for p + q <= `order` of the divided difference
    ``G(a, b) = sum_j h_j sum_{r+s=j-1} a^r b^s``; shape (order+1, order+1) + a.shape."""
    out = np.zeros((order + 1, order + 1) + a.shape)
    for j in range(1, h.size):
        if h[j] == 0.0:
            continue
        for r in range(j):
            s = j - 1 - r
            for p in range(min(r, order) + 1):
                for q in range(min(s, order - p) + 1):
                    coef = h[j] * _falling(r, p) * _falling(s, q)
                    out[p, q] += coef * a ** (r - p) * b ** (s - q)
    return out


def _falling(r: int, p: int) -> float:
    out = 1.0
    for t in range(p):
        out *= r - t
    return out


def _outer(vectors) -> np.ndarray:
    out = np.ones(())
    for v in vectors:
        out = np.multiply.outer(out, v)
    return out


def local_derivatives(system: LocalitySystem, q: np.ndarray, h: np.ndarray, order: int = _ORDER):
    """Derivatives of orders 0..`order` of the arrival term ``a_{m,l}`` of (3.7) (with the
    selection polynomial `h`) in its 2M local variables ``z = (q_{., l-1}, q_{., l})``.

    ``a_{m,l} = lambda zeta (z_m - z_{M+m}) sum_k c_{k,m} G(alpha_k . z, beta_k . z)`` with
    ``alpha_k = (r_k, 0)``, ``beta_k = (0, r_k)``, r the neighbourhood shares and G the divided
    difference of H. The n-th derivative of G is ``sum_words G_{#alpha, #beta} alpha^... x beta^...``
    over the :math:`2^n` words in the letters alpha and beta; the factor ``z_m - z_{M+m}`` adds, by Leibniz,
    ``sum_{slots} e (x) (n-1)-th derivative``.

    Returns
    -------
    list of arrays, entry n of shape (M, L) + (2M,) * n.
    """
    tr = _Terms(system, q, h)
    M, L = q.shape
    P = 2 * M
    r = tr.r                                                  # (K, M)
    K = r.shape[0]
    alpha = np.zeros((K, P))
    alpha[:, :M] = r
    beta = np.zeros((K, P))
    beta[:, M:] = r
    a = tr.r @ tr.qp[:, :-2]
    b = tr.r @ tr.qp[:, 1:-1]
    G = _g_partials(h, a, b, order)                           # (o+1, o+1, K, L)
    c = tr.c                                                  # (K, M)
    dH = []                                                   # derivatives of sum_k c_km G
    for n in range(order + 1):
        T = np.zeros((M, L) + (P,) * n)
        for word in range(2 ** n):
            bits = [(word >> t) & 1 for t in range(n)]        # 1: alpha (d/da), 0: beta
            p = sum(bits)
            for k in range(K):
                vec = _outer([alpha[k] if bit else beta[k] for bit in bits])
                coef = c[k][:, None] * G[p, n - p, k][None, :]                  # (M, L)
                T += coef.reshape((M, L) + (1,) * n) * vec
        dH.append(T)
    e = np.zeros((M, P))
    e[np.arange(M), np.arange(M)] = 1.0
    e[np.arange(M), M + np.arange(M)] = -1.0
    out = []
    for n in range(order + 1):
        T = tr.diff.reshape((M, L) + (1,) * n) * dH[n]
        for slot in range(n):
            # e in slot `slot`, the (n-1)-th derivative of H in the others
            lower = dH[n - 1]
            ev = e.reshape((M, 1) + (1,) * slot + (P,) + (1,) * (n - 1 - slot))
            T = T + ev * np.expand_dims(lower, axis=2 + slot)
        out.append(tr.lz * T)
    return out


def _local_index(M: int, L: int) -> np.ndarray:
    """``idx[i, a]``: the flat index of local variable a of row i; n (a zero dummy) for the
    constant ``q_{., 0} = 1``."""
    n = M * L
    idx = np.empty((M, L, 2 * M), np.int64)
    for lv in range(L):
        for mm in range(M):
            idx[:, lv, mm] = mm * L + lv - 1 if lv > 0 else n
            idx[:, lv, M + mm] = mm * L + lv
    return idx.reshape(n, 2 * M)


def _pad(x: np.ndarray) -> np.ndarray:
    return np.pad(x, [(0, 1)] * x.ndim)


def _scatter_gradient(grad: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
    """(n, P) local gradients to an (n, n) Jacobian (the dummy column dropped)."""
    out = np.zeros((n, n + 1))
    np.add.at(out, (np.repeat(np.arange(n), idx.shape[1]), idx.ravel()), grad.ravel())
    return out[:, :n]


# -- the tensor Sylvester equation for C -----------------------------------------------
def _mode_products(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``Z_ijk = sum_abc M_ai M_bj M_ck X_abc`` (three n^4 products; each contraction moves the
    contracted axis to the end, so three of them restore the order). Plain einsum, not BLAS:
    at n of about 40 a threaded BLAS mostly waits for cores on a shared machine."""
    for _ in range(3):
        X = np.einsum("abc,ai->bci", X, M)
    return X


def _solve_kronecker_sum3(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve ``J_ia C_ajk + J_ja C_iak + J_ka C_ija = rhs_ijk`` for C.

    With the complex Schur form ``J = U T U^H`` (T upper triangular) the transformed tensor
    ``X = C x_1 U^H x_2 U^H x_3 U^H`` solves the same equation with T, whose slices
    ``X_i`` follow by back substitution in i, each a triangular Sylvester equation
    ``(T + T_ii) X_i + X_i T^T = Y_i - sum_{a>i} T_ia X_a`` (LAPACK ``ztrsyl``)."""
    T, U = schur(J.astype(complex), output="complex")
    Y = _mode_products(rhs.astype(complex), U.conj())
    n = J.shape[0]
    X = np.zeros((n, n, n), complex)
    Tc = T.conj()
    eye = np.eye(n)
    for i in range(n - 1, -1, -1):
        # plain einsum, not BLAS: n small products, where a threaded BLAS mostly waits for cores
        # on a shared machine (1 to 4 s instead of 0.3 s measured under load)
        rhs_i = Y[i] - np.einsum("a,ajk->jk", T[i, i + 1:], X[i + 1:])
        x, scale, info = ztrsyl(T + T[i, i] * eye, Tc, rhs_i, trana="N", tranb="C", isgn=1)
        if info < 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"ztrsyl failed (info = {info})")
        X[i] = x / scale
    C = _mode_products(X, U.T)
    return C.real


# -- the expansion -----------------------------------------------------------------------
@dataclass(frozen=True)
class SecondOrderStationary:
    """Result of :func:`second_order_stationary`.

    Attributes
    ----------
    q : (M, L) array
        The fixed point q* of (3.7).
    V, A : (M, L) arrays
        The :math:`1/N` and :math:`1/N^2` terms: ``E[q^N] = q* + V / N + A / N^2 + O(1/N^3)``.
    W, B : (n, n) arrays
        ``E[Y Y^T] = W / N + B / N^2`` (raw second moment of ``Y = q^N - q*``, flattened).
    C : (n, n, n) array
        ``E[Y (x) Y (x) Y] = C / N^2``.
    type_fractions : (M,) array
    policy : str
    levels : int
        Truncation level L.
    top_level : float
        ``max_m max(q*_{m,L}, |V_{m,L}|, |A_{m,L}|)``.
    truncation_change : float
        ``max |A|`` change when the computation is repeated with two more levels.
    seconds : float
    """

    q: np.ndarray
    V: np.ndarray
    A: np.ndarray
    W: np.ndarray
    B: np.ndarray
    C: np.ndarray
    type_fractions: np.ndarray
    policy: str
    levels: int
    top_level: float
    truncation_change: float
    seconds: float

    def occupancy(self, n_servers: int | None = None, order: int = 2) -> np.ndarray:
        """``q* + V / N + A / N^2`` (order 2), ``q* + V / N`` (order 1), q* (order 0 or no N)."""
        order = check_integer("order", order, low=0, high=2)
        if n_servers is None or order == 0:
            return self.q.copy()
        n = check_integer("n_servers", n_servers, low=1)
        return self.q + self.V / n + (self.A / n ** 2 if order == 2 else 0.0)

    def mean_queue_length(self, n_servers: int | None = None, order: int = 2) -> np.ndarray:
        """Mean queue length per server type at the given order."""
        return self.occupancy(n_servers, order).sum(axis=1)

    def overall_mean_queue_length(self, n_servers: int | None = None, order: int = 2) -> float:
        """Mean queue length over all servers, ``sum_m v_m sum_l (...)``."""
        return float(self.type_fractions @ self.mean_queue_length(n_servers, order))


def _terms(system: LocalitySystem, q: np.ndarray, policy: str):
    M, L = q.shape
    n = M * L
    v = np.repeat(system.v, L)
    series = selection_series(system.d, policy, 3)
    h0 = _selection_polynomial(system.d, "limit")
    tr = _Terms(system, q, h0)
    arrival, departure = tr.arrival.ravel(), tr.departure.ravel()
    J = _fast_jacobian_contract(system, q, h0, np.zeros((n, n)))[0]
    idx = _local_index(M, L)
    der = [x.reshape((n,) + x.shape[2:]) for x in local_derivatives(system, q, h0)]
    H2, H3, H4 = der[2], der[3], der[4]
    J_arrival = _scatter_gradient(der[1], idx, n)
    J_departure = J_arrival - J                                  # gradient of the departure term
    if policy == "jsqd-complete":            # sampling without replacement: 1/N and 1/N^2 drift terms
        d1 = [x.reshape((n,) + x.shape[2:]) for x in local_derivatives(system, q, series[1], order=2)]
        f1, f1_grad, f1_hess = d1[0], _scatter_gradient(d1[1], idx, n), d1[2]
        f2 = local_derivatives(system, q, series[2], order=0)[0].ravel()
    else:
        f1, f1_grad, f1_hess, f2 = np.zeros(n), np.zeros((n, n)), np.zeros((n, 2 * M, 2 * M)), np.zeros(n)

    # (W), (V)
    Qd = (arrival + departure) / v
    W = solve_continuous_lyapunov(J, -np.diag(Qd))
    W = (W + W.T) / 2.0
    Wp = _pad(W)
    W_loc = Wp[idx[:, :, None], idx[:, None, :]]                 # (n, P, P)
    H2W = np.einsum("iab,iab->i", H2, W_loc)
    V = -np.linalg.solve(J, 0.5 * H2W + f1)
    Vp = _pad(V)

    # (C): D in closed form enters through F_{i,ab} D_abjk = (H_i:W) W_jk + 2 (W H_i W)_jk
    W_cols = Wp[:n][:, idx]                                      # [j, i, a] = W_{j, idx[i, a]}
    WHW = np.einsum("jia,iab,kib->ijk", W_cols, H2, W_cols, optimize=True)
    S1 = 0.5 * H2W[:, None, None] * W[None] + WHW + f1[:, None, None] * W[None]
    grad_Q = (J_arrival + J_departure) / v[:, None]              # Q_{ii,a}
    S2 = np.zeros((n, n, n))
    ar = np.arange(n)
    S2[ar, ar, :] = Qd[:, None] * V[None, :] + grad_Q @ W
    rhs_C = (S1 + S1.transpose(1, 0, 2) + S1.transpose(1, 2, 0)
             + S2 + S2.transpose(0, 2, 1) + S2.transpose(2, 0, 1))
    rhs_C[ar, ar, ar] += (arrival - departure) / v ** 2
    C = _solve_kronecker_sum3(J, -rhs_C)
    C = (C + C.transpose(0, 2, 1) + C.transpose(1, 0, 2) + C.transpose(1, 2, 0) + C.transpose(2, 0, 1)
         + C.transpose(2, 1, 0)) / 6.0
    Cp = _pad(C)

    # (B)
    C_loc2 = Cp[idx[:, :, None], idx[:, None, :], :n]            # (n, P, P, n)
    H3W = np.einsum("iabc,iab->ic", H3, W_loc)
    X = (0.5 * np.einsum("iab,iabj->ij", H2, C_loc2)
         + 0.5 * np.einsum("ic,icj->ij", H3W, Wp[idx, :n])       # F_{i,abc} D_abcj / 6 = (H3:W) W / 2
         + np.outer(f1, V) + f1_grad @ W)
    hess_Q_W = H2W / v                                           # Q_{ii,ab} W_ab (departure is linear)
    rhs_B = X + X.T + np.diag(grad_Q @ V + 0.5 * hess_Q_W + f1 / v)
    B = solve_continuous_lyapunov(J, -rhs_B)
    B = (B + B.T) / 2.0

    # (A)
    B_loc = _pad(B)[idx[:, :, None], idx[:, None, :]]
    C_loc3 = Cp[idx[:, :, None, None], idx[:, None, :, None], idx[:, None, None, :]]
    rhs_A = (0.5 * np.einsum("iab,iab->i", H2, B_loc)
             + np.einsum("iabc,iabc->i", H3, C_loc3) / 6.0
             + np.einsum("iabcd,iab,icd->i", H4, W_loc, W_loc) / 8.0   # D_jklm -> 3 W_jk W_lm, /24
             + f1_grad @ V + 0.5 * np.einsum("iab,iab->i", f1_hess, W_loc) + f2)
    A = -np.linalg.solve(J, rhs_A)
    return V.reshape(M, L), A.reshape(M, L), W, B, C


def second_order_stationary(system: LocalitySystem, *, policy="gwsq", tol: float = 1e-12,
                            max_levels: int = 128, levels: int | None = None) -> SecondOrderStationary:
    """Stationary expansion ``q* + V / N + A / N^2`` (Gast, Bortolussi and Tribastone 2019).

    Parameters
    ----------
    system : LocalitySystem
    policy : GWSQ(), LocalJSQ() (local JSQ(d) on the complete graph, without replacement), their
        registered name, or a complete bipartite graph
        See :func:`qtheory.locality.refined.check_population_policy`.
    tol : float
        The truncation level L is raised until ``q*_{m,L}``, ``|V_{m,L}|`` and ``|A_{m,L}|``
        are below it.
    levels : int, optional
        A fixed truncation level instead (for comparisons at a given L).

    Raises
    ------
    InstabilityError
        If the asymptotic load (5.2) is >= 1.
    ParameterError
        For a system whose occupancy is not a population process, or bad `tol` / `levels`.
    """
    start = time.perf_counter()
    # the sampling kind of the checked policy object: "jsqd-complete" (d distinct servers of the
    # complete graph) or "gwsq" (d independent draws), the names of selection_series
    policy = "jsqd-complete" if isinstance(check_population_policy(system, policy), LocalJSQ) else "gwsq"
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    max_levels = check_integer("max_levels", max_levels, low=2)
    require_stable(system, "the second-order stationary expansion")
    fp = fixed_point(system)
    h = _selection_polynomial(system.d, "limit")
    if levels is not None:
        L = check_integer("levels", levels, low=2, high=max_levels)
    else:
        above = np.nonzero(fp.q.max(axis=0) > tol)[0]
        L = max(4, int(above[-1]) + 3 if above.size else 4)
    while True:
        q = _newton(system, _extend(fp.q, L), h)
        V, A, W, B, C = _terms(system, q, policy)
        top = float(max(np.abs(q[:, -1]).max(), np.abs(V[:, -1]).max(), np.abs(A[:, -1]).max()))
        if levels is not None or top <= tol:
            break
        if L + 2 > max_levels:
            raise ParameterError(f"the second-order expansion still holds {top:.3g} > tol = {tol:g} at the top "
                                 f"level L = {L} (max_levels = {max_levels})")
        L += 2
    change = float("nan")
    if levels is None:
        q2 = _newton(system, _extend(q, L + 2), h)
        A2 = _terms(system, q2, policy)[1]
        change = float(np.max(np.abs(A2[:, :L] - A)))
    q = np.where(np.abs(q) < 1e-300, 0.0, q)
    return SecondOrderStationary(q, V, A, W, B, C, system.v.copy(), policy, L, top, change,
                                 time.perf_counter() - start)

