"""The mean-field limit of paper L: ODE (3.7), its fixed point (Theorems 4, 7) and checks.

State: ``q[m, l-1] = q_{m,l}``, the fraction of type-m servers with at least l tasks,
l = 1..L (``q_{m,0} = 1``). The system is truncated at L levels (``q_{m,L+1} = 0``);
:func:`solve_meanfield` and :func:`fixed_point` choose L so that the top level never
holds more than `tol`, and report that value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import root
from scipy.special import logsumexp

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_real
from ._ode import integrate, time_grid
from .model import LocalitySystem, check_tails
from .stability import require_stable, type_loads

__all__ = ["drift", "MeanFieldSolution", "solve_meanfield", "FixedPoint", "fixed_point",
           "homogeneous_fixed_point", "refined_tail", "log_tail", "tail_decay_ratios", "mean_queue_length"]


def _padded(q: np.ndarray) -> np.ndarray:
    M, L = q.shape
    out = np.zeros((M, L + 2))
    out[:, 0] = 1.0
    out[:, 1:L + 1] = q
    return out


def _selection_factor(a: np.ndarray, b: np.ndarray, d: int) -> np.ndarray:
    """``(a^d - b^d) / (a - b) = sum_{r<d} a^r b^(d-1-r)``, without the 0/0 at a = b."""
    out = np.zeros_like(a)
    for r in range(d):
        out += a ** r * b ** (d - 1 - r)
    return out


def drift(system: LocalitySystem, q) -> np.ndarray:
    """Right-hand side of ODE (3.7) at the truncated state `q` (shape (M, L)).

    .. math:: \\frac{dq_{m,\\ell}}{dt} = -u_m (q_{m,\\ell} - q_{m,\\ell+1}) + \\lambda \\zeta
       (q_{m,\\ell-1} - q_{m,\\ell}) \\sum_k \\frac{p_{k,m} w_k}{\\delta_k}
       \\frac{\\tilde q_{k,\\ell-1}^d - \\tilde q_{k,\\ell}^d}{\\tilde q_{k,\\ell-1} - \\tilde q_{k,\\ell}},

    with :math:`\\tilde q_{k,\\ell} = \\sum_m r_{k,m} q_{m,\\ell}` the cluster-:math:`k` view of the
    occupancy.

    `q` must be a state of S: one row per server type, tails in [0, 1] that do not
    increase with the level (the solvers call an unchecked version on their iterates).
    """
    return _drift(system, _check_state(system, q, "q"))


def _drift(system: LocalitySystem, q: np.ndarray) -> np.ndarray:
    qp = _padded(q)
    qt = system.neighbourhood_shares @ qp                      # (K, L+2)
    sel = _selection_factor(qt[:, :-2], qt[:, 1:-1], system.d)  # (K, L): levels l = 1..L
    weight = (system.w / system.delta)[:, None] * system.p      # (K, M)
    arrival = system.total_arrival_rate * (qp[:, :-2] - qp[:, 1:-1]) * (weight.T @ sel)
    departure = system.u[:, None] * (qp[:, 1:-1] - qp[:, 2:])
    return arrival - departure


def mean_queue_length(q) -> np.ndarray:
    """Mean queue length per type, ``sum_{l>=1} q_{m,l}``."""
    return check_array("q", q).sum(axis=-1)


def _check_state(system: LocalitySystem, q0, name: str = "q0") -> np.ndarray:
    return check_tails(name, q0, system.n_types)


@dataclass(frozen=True)
class MeanFieldSolution:
    """Solution of ODE (3.7) on a time grid.

    Attributes
    ----------
    t : (T,) array
    q : (T, M, L) array
        ``q[t, m, l-1] = q_{m,l}(t)``.
    levels : int
        Truncation level L.
    truncation_error : float
        ``max_t max_m q_{m,L}(t)``: the mass at the top level, which bounds the error of
        the truncation (it is below `tol` by construction).
    """

    t: np.ndarray
    q: np.ndarray
    levels: int
    truncation_error: float

    @property
    def mean_queue_length(self) -> np.ndarray:
        """(T, M) mean queue length per server type."""
        return self.q.sum(axis=2)


def solve_meanfield(system: LocalitySystem, q0, t_eval, *, levels: int | None = None, tol: float = 1e-9,
                    rtol: float = 1e-9, atol: float = 1e-12, max_levels: int = 4096) -> MeanFieldSolution:
    """Integrate ODE (3.7) (Theorems 2 and 3) from `q0` and return it at `t_eval`.

    Parameters
    ----------
    system : LocalitySystem
    q0 : (M, L0) array
        Initial tails ``q_{m,l}(0)``, l = 1..L0, non-increasing in l.
    t_eval : increasing array of times >= 0 (the first is the start time)
    levels : int, optional
        Starting truncation level; doubled until ``max_t max_m q_{m,L}(t) <= tol``.
    tol : float
        Allowed mass at the top level.
    """
    q0 = _check_state(system, q0)
    t_eval = time_grid(t_eval)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    L = check_integer("levels", levels, low=1) if levels is not None else max(16, q0.shape[1] + 8)
    M = system.n_types
    while True:
        start = np.zeros((M, L))
        width = min(L, q0.shape[1])
        start[:, :width] = q0[:, :width]
        if q0.shape[1] > L:
            lost = q0[:, L:].max()
            if lost > tol:
                L *= 2
                continue

        def rhs(_t, y):
            return _drift(system, y.reshape(M, L)).ravel()

        q = integrate(rhs, start.ravel(), t_eval, method="LSODA", rtol=rtol, atol=atol,
                      what="ODE (3.7)").reshape(-1, M, L)
        top = float(np.max(q[:, :, -1]))
        if top <= tol:
            return MeanFieldSolution(t_eval.copy(), q, L, top)
        if 2 * L > max_levels:
            raise ParameterError(f"truncation at {L} levels still leaves {top:.3g} > tol = {tol:g} at the top "
                                 f"level; the queues grow too long (is the system unstable?)")
        L *= 2


@dataclass(frozen=True)
class FixedPoint:
    """The fixed point q* of (3.7) (Theorem 4).

    Attributes
    ----------
    q : (M, L) array
        ``q[m, l-1] = q*_{m,l}``.
    residual : float
        Max-norm of the drift at q.
    levels : int
        Truncation level.
    flow_balance : float
        ``sum_m v_m u_m q*_{m,1} - lambda zeta`` (zero at the fixed point).
    """

    q: np.ndarray
    residual: float
    levels: int
    flow_balance: float


def fixed_point(system: LocalitySystem, *, levels: int | None = None, tol: float = 1e-14) -> FixedPoint:
    """Fixed point of (3.7) by a root solve of drift = 0 (an independent route to Theorem 4).

    Levenberg-Marquardt root finding (``scipy.optimize.root``) on the truncated system,
    started from the random-routing fixed point ``q_{m,l} = rho_m^l`` (rho_m from (3.1),
    capped at 0.95) rather than from any ODE trajectory; then checked: the root must lie
    in S (tails in [0, 1], non-increasing in l, up to round-off of 1e-13), its top level
    must hold less than `tol` (else L is doubled), and flow balance
    ``sum_m v_m u_m q*_{m,1} = lambda zeta`` must hold.

    Raises
    ------
    InstabilityError
        If the asymptotic load (5.2) is >= 1 (no fixed point in S).
    """
    tol = check_real("tol", tol, low=0.0, low_open=True, high=1.0, high_open=True)
    require_stable(system, "the fixed point of (3.7)")
    M = system.n_types
    rho_m = np.minimum(type_loads(system), 0.95)
    if levels is None:
        levels = 16 if system.d > 1 else int(np.ceil(np.log(tol) / np.log(rho_m.max()))) + 5
    L = check_integer("levels", levels, low=2)
    while True:
        start = rho_m[:, None] ** np.arange(1, L + 1)[None, :]

        def fun(x):
            return _drift(system, x.reshape(M, L)).ravel()

        sol = root(fun, start.ravel(), method="lm", options={"xtol": 1e-15, "ftol": 1e-15, "maxiter": 20000})
        q = sol.x.reshape(M, L)
        residual = float(np.max(np.abs(fun(sol.x))))
        if residual > 1e-10:
            raise RuntimeError(f"fixed-point root solve failed (residual {residual:.3g}): {sol.message}")
        if np.any(q < -1e-13) or np.any(q > 1 + 1e-13) or np.any(np.diff(q, axis=1) > 1e-13):
            raise RuntimeError("the root found is not in the state space S (not a tail sequence)")
        if np.abs(q[:, -1]).max() <= tol:
            break
        L *= 2
    q = np.where(q < 0.0, 0.0, q)  # round-off (> -1e-13, checked above) at deep levels
    balance = float(system.v * system.u @ q[:, 0] - system.total_arrival_rate)
    return FixedPoint(q, residual, L, balance)


def _check_tail_inputs(func: str, system: LocalitySystem, fp, levels, relative_from, passes, levels_name: str):
    """The common arguments of :func:`refined_tail` and :func:`log_tail`, checked."""
    if system.d < 2:
        raise ParameterError(f"`{func}` needs d >= 2 (random routing has geometric tails rho_m^l)")
    if not isinstance(fp, FixedPoint) or fp.q.shape[0] != system.n_types:
        raise ParameterError("`fp` must be the FixedPoint of this system (see fixed_point)")
    return (check_integer(levels_name, levels, low=1),
            check_real("relative_from", relative_from, low=0.0, high=1.0, low_open=True),
            check_integer("passes", passes, low=1))


def refined_tail(system: LocalitySystem, fp: FixedPoint, *, max_levels: int = 64,
                 relative_from: float = 1e-6, passes: int = 4) -> np.ndarray:
    """The fixed point's tails with *relative* accuracy far below the root solve's 1e-16.

    Summing the fixed-point equations (5.1) over levels >= l gives
    ``u_m q*_{m,l} = lambda zeta sum_{j>=l} (q*_{m,j-1} - q*_{m,j}) c_{m,j}(q*)``, where
    ``c_{m,j}`` is the selection factor of (3.7). From the first level where every tail
    is below `relative_from`, each level is recomputed from the levels below it with this
    (cancellation-free) relation, repeated `passes` times to include the higher levels,
    until the tails underflow or `max_levels` is reached. Used for Theorem 7.

    Returns
    -------
    (M, L') array of tails (zeros after underflow).

    Raises
    ------
    ParameterError
        For d = 1, whose tails are geometric (``rho_m^l``, known in closed form) and
        not dominated by the level below.
    """
    max_levels, relative_from, passes = _check_tail_inputs("refined_tail", system, fp, max_levels,
                                                           relative_from, passes, "max_levels")
    q = np.zeros((system.n_types, max_levels))
    L0 = min(fp.q.shape[1], max_levels)
    q[:, :L0] = fp.q[:, :L0]
    small = np.nonzero(fp.q.max(axis=0) < relative_from)[0]
    start = int(small[0]) if small.size else L0
    weight = ((system.w / system.delta)[:, None] * system.p).T     # (M, K)
    r = system.neighbourhood_shares
    lz = system.total_arrival_rate
    for _ in range(passes):
        for l in range(start, max_levels):           # column l holds level l + 1
            prev = q[:, l - 1] if l > 0 else np.ones(system.n_types)
            cur = q[:, l].copy()
            for _it in range(60):
                qp = _padded(q)                         # column j of qp is level j
                qt = r @ qp
                sel = _selection_factor(qt[:, l:-2], qt[:, l + 1:-1], system.d)  # levels l+1..
                flux = (qp[:, l:-2] - qp[:, l + 1:-1]) * (weight @ sel)
                new = lz * flux.sum(axis=1) / system.u
                if np.allclose(new, cur, rtol=1e-15, atol=0.0):
                    break
                cur = new
                q[:, l] = cur
            q[:, l] = np.minimum(cur, prev)
            if cur.max() < 1e-290:
                q[:, l:] = 0.0
                break
    return q


def log_tail(system: LocalitySystem, fp: FixedPoint, levels: int, *, relative_from: float = 1e-6,
             passes: int = 4) -> np.ndarray:
    """``log q*_{m,l}`` for l = 1..`levels`, with relative accuracy where q* underflows.

    `fp.q` is accurate only in absolute terms (about 1e-16); deep tails of JSQ(d) fall
    doubly exponentially and leave double precision within a few levels. This route
    works on logarithms throughout: from the first level where every tail is below
    `relative_from`, each level is recomputed from the cancellation-free relation of
    :func:`refined_tail`, ``u_m q*_{m,l} = lambda zeta sum_{j>=l} (q*_{m,j-1} - q*_{m,j})
    sum_k (p[k,m] w_k / delta_k) c_{k,j}(q*)``, with every sum a log-sum-exp and
    ``q_{j-1} - q_j`` as ``log q_{j-1} + log1p(-q_j/q_{j-1})``; repeated `passes` times.
    For the homogeneous system it reproduces ``(d^l - 1)/(d - 1) log rho``.

    Returns
    -------
    (M, levels) array of natural logarithms of the tails (finite, even below 1e-308).

    Raises
    ------
    ParameterError
        For d = 1 (tails ``rho_m^l`` in closed form), or if `fp` is not this system's.
    """
    levels, relative_from, passes = _check_tail_inputs("log_tail", system, fp, levels, relative_from, passes,
                                                       "levels")
    M, d = system.n_types, system.d
    small = np.nonzero(fp.q.max(axis=0) < relative_from)[0]
    start = min(int(small[0]) if small.size else fp.q.shape[1], levels)
    lq = np.full((M, levels + 1), -np.inf)        # column j holds level j (level 0: log 1 = 0)
    lq[:, 0] = 0.0
    with np.errstate(divide="ignore"):
        lq[:, 1:start + 1] = np.log(fp.q[:, :start])
    # levels beyond the start: a first guess one step of the dominant term below, refined next
    for l in range(start + 1, levels + 1):
        lq[:, l] = d * lq[:, l - 1]
    r = system.neighbourhood_shares                 # (K, M)
    weight = ((system.w / system.delta)[:, None] * system.p).T   # (M, K)
    with np.errstate(divide="ignore"):
        log_r = np.log(r)
        log_w = np.log(weight)
    log_rate = np.log(system.total_arrival_rate) - np.log(system.u)
    expo = np.arange(d)
    for _ in range(passes):
        for l in range(max(start, 1), levels + 1):
            for _it in range(60):
                # cluster views log qt_{k,j} for j = l-1..levels
                lqt = logsumexp(log_r[:, :, None] + lq[None, :, l - 1:], axis=1)          # (K, J)
                a, b = lqt[:, :-1], lqt[:, 1:]                                              # levels j-1, j
                lsel = logsumexp(expo[:, None, None] * a[None] + (d - 1 - expo)[:, None, None] * b[None],
                                 axis=0)                                                    # (K, J-1)
                lmix = logsumexp(log_w[:, :, None] + lsel[None], axis=1)                   # (M, J-1)
                prev, cur = lq[:, l - 1:-1], lq[:, l:]
                with np.errstate(divide="ignore", invalid="ignore"):
                    ldiff = prev + np.log1p(-np.exp(np.where(np.isfinite(prev), cur - prev, -np.inf)))
                new = log_rate + logsumexp(ldiff + lmix, axis=1)
                new = np.minimum(new, lq[:, l - 1])
                done = np.allclose(new, lq[:, l], rtol=1e-15, atol=0.0)
                lq[:, l] = new
                if done:
                    break
    return lq[:, 1:]


def homogeneous_fixed_point(load: float, d: int, levels: int) -> np.ndarray:
    """``q_l = load^((d^l - 1)/(d - 1))`` (``load^l`` for d = 1): the classical JSQ(d)
    fixed point for identical servers under full flexibility (Mitzenmacher 1996)."""
    load = check_real("load", load, low=0.0, high=1.0, high_open=True)
    d = check_integer("d", d, low=1)
    l = np.arange(1, check_integer("levels", levels, low=1) + 1, dtype=float)
    expo = l if d == 1 else (float(d) ** l - 1.0) / (d - 1.0)
    return load ** expo


def tail_decay_ratios(q) -> np.ndarray:
    """``log q_{m,l+1} / log q_{m,l}`` (Theorem 7 diagnostic).

    For a doubly exponential tail ``q_{m,l} ~ b a^(d^l)`` the ratio tends to d; for a
    geometric tail (random routing) it tends to 1. Entries where a tail is 0 or 1 are nan.
    """
    q = check_array("q", q)
    if q.ndim < 1 or q.shape[-1] < 2:
        raise ParameterError(f"`q` needs at least two levels along its last axis (got shape {q.shape})")
    with np.errstate(divide="ignore", invalid="ignore"):
        lq = np.log(q)
        ratio = lq[..., 1:] / lq[..., :-1]
    bad = (q[..., 1:] <= 0) | (q[..., :-1] <= 0) | (q[..., :-1] >= 1)
    return np.where(bad, np.nan, ratio)
