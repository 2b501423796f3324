"""The optimal task assignment and the upper bound of Theorem 1 (Sec. 2.2-2.5, eqs. (4), (5), (10), (11)).

The optimisation problem (2) maximises ``u(q)`` over occupancy sequences with
``q(i, 0) = alpha(i) >= q(i, 1) >= q(i, 2) >= ... >= 0`` and ``sum_{j >= 1} q(i, j) = rho``.
Its solution fills the coordinates in decreasing rank, each up to ``alpha(i)``, until
the mass ``rho`` is used up: the coordinate where the mass runs out is ``sigma*``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_real
from .model import Enumeration, PoolSystem, enumeration, marginal_utilities, overall_utility, tabulate

__all__ = ["OptimalAssignment", "optimal_assignment", "upper_bound", "optimal_assignment_lp", "class_change_loads",
           "default_depth"]

_MAX_DEPTH = 1 << 16


@dataclass(frozen=True)
class OptimalAssignment:
    """An optimal task assignment ``q*`` (eq. (4) / (11)).

    Attributes
    ----------
    q : ndarray, shape (m, J + 1)
        ``q*(i, j)``; ``q[:, 0]`` are the class fractions used.
    sigma : tuple of int
        ``sigma* = (i, j)`` (class from 0 as a Python index, level from 1), eq. (5) / (10);
        tidy rows (e.g. ``assignment_rows``) print the class from 1, as the paper.
    rank : int
        Position ``r*`` of ``sigma*`` in the enumeration (from 1): ``sigma* = (i_r*, j_r*)``.
    theta : float
        Mass of the coordinates ranked above ``sigma*``: ``theta <= rho < theta + alpha(i*)``.
    utility : float
        ``u(q*)``, the upper bound of Theorem 1.
    rho : float
        Load that was assigned.
    enumeration : Enumeration
        The ranking used.
    """

    q: np.ndarray
    sigma: tuple
    rank: int
    theta: float
    utility: float
    rho: float
    enumeration: Enumeration

    @property
    def integral(self) -> bool:
        """Whether every pool of a class holds the same number of tasks (``q*(sigma*) = 0``)."""
        return bool(self.q[self.sigma[0], self.sigma[1]] <= 1e-12)

    def levels(self) -> np.ndarray:
        """Number of tasks per pool at the top of each class: ``max{j : q*(i, j) > 0}``."""
        pos = self.q[:, 1:] > 1e-15
        return np.array([int(np.nonzero(row)[0][-1]) + 1 if row.any() else 0 for row in pos])


def _check_alpha(system: PoolSystem, alpha) -> np.ndarray:
    """Class fractions: one positive entry per class, summing to 1."""
    alpha = check_array("alpha", alpha, shape=(system.m,), low=0.0, low_open=True, high=1.0)
    if abs(float(alpha.sum()) - 1.0) > 1e-9:
        raise ParameterError(f"`alpha` must sum to 1 (sums to {float(alpha.sum())!r})")
    return alpha


def default_depth(system: PoolSystem, rho: float, alpha: np.ndarray) -> int:
    """A first guess of the number of levels per class to rank (doubled until enough)."""
    return int(math.ceil(rho / float(np.min(alpha)))) + 2


def optimal_assignment(system: PoolSystem, rho: float | None = None, *, alpha=None,
                       depth: int | None = None) -> OptimalAssignment:
    """The optimal task assignment ``q_n*`` of eqs. (4)-(5), or ``q_*`` of (10)-(11).

    Parameters
    ----------
    system : PoolSystem
        Classes and utilities.
    rho : float, optional
        Load to assign (default ``system.rho``), >= 0; e.g. the time average of ``s_n`` for
        the empirical bound of Sec. 3.4.1. ``rho = 0`` gives the empty assignment (every
        pool idle; ``sigma*`` is then the first coordinate of the ranking, holding 0).
    alpha : array, optional
        Class fractions (default ``system.alpha``); pass ``A_n / n`` for a finite system.
    depth : int, optional
        Levels per class to rank; doubled automatically until the ranking is exact up to
        ``sigma*``.

    Notes
    -----
    ``sigma*`` is the unique coordinate with
    ``sum_{(i, j) ranked above sigma*} alpha(i) <= rho < sum_{(i, j) ranked at or above sigma*} alpha(i)``;
    ``q*`` equals ``alpha(i)`` above it, the remainder at it, and 0 below (Proposition 1).
    """
    rho = system.rho if rho is None else check_real("rho", rho, low=0.0)
    alpha = system.alpha_array if alpha is None else _check_alpha(system, alpha)
    depth = default_depth(system, rho, alpha) if depth is None else check_integer("depth", depth, low=1)
    while True:
        en = enumeration(system, depth)
        mass = alpha[en.cls]
        cum = np.cumsum(mass)
        hit = np.nonzero(cum > rho * (1 + 1e-14) + 1e-15)[0]
        if hit.size:
            k = int(hit[0])
            break
        if depth >= _MAX_DEPTH:
            raise ParameterError(f"could not place rho = {rho} within {depth} levels per class")
        depth *= 2
    theta = float(cum[k - 1]) if k > 0 else 0.0
    J = int(en.level[: k + 1].max()) + 1
    q = np.zeros((system.m, J + 1))
    q[:, 0] = alpha
    for c, lvl in zip(en.cls[:k], en.level[:k]):
        q[c, lvl] = alpha[c]
    sigma = (int(en.cls[k]), int(en.level[k]))
    q[sigma] = max(rho - theta, 0.0)
    return OptimalAssignment(q=q, sigma=sigma, rank=k + 1, theta=theta,
                             utility=overall_utility(system, q), rho=rho, enumeration=en)


def upper_bound(system: PoolSystem, n: int | None = None, rho: float | None = None) -> float:
    """``u(q_n*)``, the upper bound of Theorem 1 on ``E[u(q_n)]`` for any policy.

    With `n` the class fractions are those of the finite system, ``A_n(i) / n``.
    """
    alpha = None if n is None else system.pool_counts(n) / n
    return optimal_assignment(system, rho, alpha=alpha).utility


#: bytes HiGHS needs per variable of :func:`optimal_assignment_lp` (a generous bound: measured about
#: 1 kB per variable with its two sparse rows, including scipy's copies)
LP_BYTES_PER_VARIABLE = 4096


def optimal_assignment_lp(system: PoolSystem, rho: float | None = None, *, alpha=None,
                          depth: int | None = None):
    """Solve problem (2) as a linear program (HiGHS), an independent check of Proposition 1.

    Variables are ``q(i, j)`` for ``j = 1..depth``; the objective is the linear form
    ``sum_i u_i(0) alpha(i) + sum Delta(i, j - 1) q(i, j)`` of (6). The truncation is
    harmless when ``depth * alpha(i) > rho`` for every class, the choice of ``k`` in the
    proof of Proposition 1. Returns ``(q, value)``.
    """
    rho = system.rho if rho is None else check_real("rho", rho, low=0.0)
    alpha = system.alpha_array if alpha is None else np.asarray(alpha, dtype=float)
    if depth is None:
        depth = int(math.floor(rho / alpha.min())) + 2
    m = system.m
    nv = m * depth
    # HiGHS keeps about a dozen doubles per variable and nonzero: refuse what this machine cannot hold
    from .._memory import require_memory
    require_memory(LP_BYTES_PER_VARIABLE * nv, what=f"the linear program of (2) with {nv:,} variables "
                   f"({m} classes x depth {depth:,}: depth = floor(rho / smallest class fraction) + 2)",
                   parameter="rho")
    delta = marginal_utilities(system, depth)           # (m, depth)
    u0 = tabulate(system.utilities, depth)[:, 0]
    c = -delta.ravel()
    # monotonicity q(i, j + 1) - q(i, j) <= 0, two nonzeros per row: a sparse matrix (a dense one
    # has nv^2 entries, 16 GB at 44 000 variables)
    n_rows = m * (depth - 1)
    if n_rows:
        k = np.arange(nv).reshape(m, depth)[:, :-1].ravel()
        r = np.arange(n_rows)
        A_ub = sparse.csr_matrix((np.r_[np.ones(n_rows), -np.ones(n_rows)], (np.r_[r, r], np.r_[k + 1, k])),
                                 shape=(n_rows, nv))
        b_ub = np.zeros(n_rows)
    else:
        A_ub, b_ub = None, None
    A_eq = sparse.csr_matrix(np.ones((1, nv)))
    b_eq = np.array([rho])
    bounds = np.column_stack([np.zeros(nv), np.repeat(alpha, depth)])
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if not res.success:
        raise ParameterError(f"linear program (2) failed: {res.message}")
    q = np.zeros((m, depth + 1))
    q[:, 0] = alpha
    q[:, 1:] = res.x.reshape(m, depth)
    return q, float(-res.fun + np.dot(u0, alpha))


def class_change_loads(system: PoolSystem, rho_max: float) -> list[float]:
    """Loads ``rho <= rho_max`` at which the class receiving the extra load in ``q_*`` changes.

    Along the enumeration the coordinate ``(i_k, j_k)`` absorbs the load between
    ``sum_{l < k} alpha(i_l)`` and ``sum_{l <= k} alpha(i_l)``; a breakpoint is a
    cumulative mass where ``i_k`` changes (Sec. 2.3.1, Fig. 3).
    """
    rho_max = check_positive("rho_max", rho_max)
    alpha = system.alpha_array
    depth = default_depth(system, rho_max, alpha)
    while True:
        en = enumeration(system, depth)
        cum = np.cumsum(alpha[en.cls])
        if cum[-1] > rho_max:
            break
        depth *= 2
    out = []
    for k in range(1, en.valid):
        if cum[k - 1] >= rho_max:
            break
        if en.cls[k] != en.cls[k - 1]:
            out.append(float(cum[k - 1]))
    return out
