"""The fluid model (12) of JLMU, solved exactly (Definition 1, Theorems 3 and 4).

In the fluid model the arrival rate ``lam`` is poured into the coordinates in rank
order: every coordinate ranked above ``sigma(q)`` is full (``q(i, j) = alpha(i)``) and
receives exactly its departure rate, ``sigma(q)`` receives what is left, the others
receive nothing. The right-hand side is discontinuous where ``sigma(q)`` changes.

Between two changes of the active coordinate the equations are linear with constant
coefficients, so :func:`solve_fluid` advances them with matrix exponentials (exact up
to round-off) and locates each change as the root of a linear functional of the
state:

- *fill*: the active coordinate reaches ``alpha(i)`` -> the next ranked coordinate
  becomes active;
- *starve*: the inflow left for the active coordinate,
  ``Lambda(q, sigma) = lam - sum_{(k, l) above sigma} mu l [alpha(k) - q(k, l + 1)]``,
  reaches 0 -> the lowest full coordinate stops being full and becomes active, which
  keeps (12b), ``Lambda >= 0``.

Only the coordinates ranked within a prefix that holds more mass than
``max(s(0), rho)`` can ever receive tasks (all coordinates above the active one are full,
and the total mass ``s(t) = rho + (s(0) - rho) e^{-mu t}`` never exceeds that bound), so
the solution on that finite prefix is the solution of the infinite system.

:func:`solve_fluid_splitting` is an independent first-order scheme (explicit
departures, then the arrivals ``lam dt`` poured in rank order), which converges to the
same trajectory as ``dt -> 0`` and is used to cross-check the exact solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import expm
from scipy.optimize import brentq

from ..errors import ParameterError
from ..validation import check_array, check_positive, check_real
from .model import Enumeration, PoolSystem, enumeration

__all__ = ["FluidSolution", "solve_fluid", "solve_fluid_splitting", "check_state", "l1_distance",
           "fluid_prefix"]

_TOL = 1e-12
#: how far from the class fractions `check_state` lets ``q[:, 0]`` be
_STATE_TOL = 1e-9
#: how far outside Q the solver's state may be before it reports an internal error: what
#: `check_state` admits (``q[:, 0]`` within _STATE_TOL of alpha, then increases of up to 1e-12 a
#: level, which a full coordinate keeps) with room to spare
_LEFT_Q_TOL = 2 * _STATE_TOL
#: the tolerance of `_Prefix.active` on the inflow left, in units of mu (see there)
_RATE_TOL = 1e-10


def check_state(system: PoolSystem, q, name: str = "q0", alpha=None) -> np.ndarray:
    """Validate an occupancy state of ``Q``: shape ``(m, J + 1)``, ``q[:, 0] = alpha``,
    non-increasing in ``j``, non-negative, finitely many tasks."""
    alpha = system.alpha_array if alpha is None else np.asarray(alpha, dtype=float)
    q = check_array(name, q, ndim=2, low=0.0)
    if q.shape[0] != system.m or q.shape[1] < 2:
        raise ParameterError(f"`{name}` must have shape (m = {system.m}, J + 1) with J >= 1 (got {q.shape})")
    if np.any(np.abs(q[:, 0] - alpha) > _STATE_TOL):
        raise ParameterError(f"`{name}[:, 0]` must equal the class fractions {alpha.tolist()} "
                             f"(got {q[:, 0].tolist()})")
    inc = np.diff(q, axis=1) > 1e-12
    if inc.any():
        i, j = (int(v) for v in np.argwhere(inc)[0])
        raise ParameterError(f"`{name}` must be non-increasing in j: {name}[{i}, {j + 1}] = {q[i, j + 1]} "
                             f"> {name}[{i}, {j}] = {q[i, j]}")
    return q


def l1_distance(a, b) -> float:
    """``||a - b||_1`` over the coordinates ``j >= 1`` of two states (padded with zeros)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    J = max(a.shape[-1], b.shape[-1])
    pa = np.zeros(a.shape[:-1] + (J,))
    pb = np.zeros(b.shape[:-1] + (J,))
    pa[..., : a.shape[-1]] = a
    pb[..., : b.shape[-1]] = b
    return np.abs(pa[..., 1:] - pb[..., 1:]).sum(axis=(-1, -2))


def fluid_prefix(system: PoolSystem, q0: np.ndarray) -> Enumeration:
    """An enumeration prefix that contains every coordinate a fluid trajectory from `q0` can use."""
    alpha = system.alpha_array
    s0 = float(q0[:, 1:].sum())
    bound = max(s0, system.rho) + float(alpha.max())
    depth = max(q0.shape[1], int(np.ceil(bound / alpha.min())) + 2)
    while True:
        en = enumeration(system, depth)
        cum = np.cumsum(alpha[en.cls])
        inside = True
        for i in range(system.m):
            top = np.nonzero(q0[i, 1:] > 0)[0]
            if top.size and not np.any((en.cls == i) & (en.level == top[-1] + 1)):
                inside = False
        if inside and cum[-1] > bound:
            return en
        depth *= 2


class _Prefix:
    """The fluid model restricted to an enumeration prefix (vectors indexed by rank)."""

    def __init__(self, system: PoolSystem, en: Enumeration):
        self.system = system
        self.en = en
        self.K = en.valid
        self.alpha = system.alpha_array[en.cls]
        self.j = en.level.astype(float)
        pos = {(int(c), int(l)): k for k, (c, l) in enumerate(zip(en.cls, en.level))}
        self.nxt = np.array([pos.get((int(c), int(l) + 1), -1) for c, l in zip(en.cls, en.level)])
        self.depth = int(en.level.max()) + 1
        self.pos = pos

    def to_vector(self, q: np.ndarray) -> np.ndarray:
        x = np.zeros(self.K)
        for k, (c, l) in enumerate(zip(self.en.cls, self.en.level)):
            if l < q.shape[1]:
                x[k] = q[c, l]
        return x

    def to_state(self, x: np.ndarray) -> np.ndarray:
        """Vectors (..., K) -> states (..., m, depth + 1)."""
        x = np.asarray(x)
        out = np.zeros(x.shape[:-1] + (self.system.m, self.depth + 1))
        out[..., :, 0] = self.system.alpha_array
        out[..., self.en.cls, self.en.level] = x
        return out

    def next_value(self, x: np.ndarray) -> np.ndarray:
        return np.where(self.nxt >= 0, x[np.maximum(self.nxt, 0)], 0.0)

    def departures(self, x: np.ndarray) -> np.ndarray:
        """``mu j [q(i, j) - q(i, j + 1)]`` for every coordinate."""
        return self.system.mu * self.j * (x - self.next_value(x))

    def inflow_left(self, x: np.ndarray, a: int) -> float:
        """``Lambda(q, sigma)`` when the first `a` coordinates (indices < a) are full."""
        full_dep = self.system.mu * self.j[:a] * (self.alpha[:a] - self.next_value(x)[:a])
        return self.system.lam - float(full_dep.sum())

    def active(self, x: np.ndarray) -> int:
        """Index of ``sigma`` for the state `x`: the first non-full coordinate, moved up while
        the inflow left for it would be negative (a full coordinate that cannot be kept full)."""
        nonfull = np.nonzero(x < self.alpha - 1e-10)[0]
        a = int(nonfull[0]) if nonfull.size else self.K - 1
        y = np.append(x, 1.0)
        # Lambda is a rate, mu times a number of tasks per pool (lam = rho mu, departures
        # mu j (alpha - q)), and its rate of change mu^2 times one (the generator's entries are
        # mu j): its tolerances are _RATE_TOL mu and _RATE_TOL mu^2, so that (12) measured in
        # another unit of time takes the same decisions. A coordinate fed an inflow wrong by e
        # settles within e / mu of its true value (it loses mu j >= mu per unit of excess), so
        # a Lambda taken as 0 moves the state by at most _RATE_TOL, well inside _LEFT_Q_TOL.
        tol, slope_tol = _RATE_TOL * self.system.mu, _RATE_TOL * self.system.mu ** 2
        while a > 0:
            c = self.starve_functional(a)
            left = float(c @ y)
            # an inflow at 0 that is about to turn negative cannot keep the full ones full
            if left < -tol or (left <= tol and float(c @ (self.generator(a) @ y)) < -slope_tol):
                a -= 1
            else:
                break
        return a

    def generator(self, a: int) -> np.ndarray:
        """Matrix ``M`` of the affine system ``d/dt [x; 1] = M [x; 1]`` while index `a` is active."""
        K, mu = self.K, self.system.mu
        M = np.zeros((K + 1, K + 1))
        for k in range(a, K):
            M[k, k] -= mu * self.j[k]
            if self.nxt[k] >= 0:
                M[k, self.nxt[k]] += mu * self.j[k]
        # inflow of the active coordinate: lam - sum_{k < a} mu j_k (alpha_k - x_{nxt k})
        M[a, K] += self.system.lam
        for k in range(a):
            M[a, K] -= mu * self.j[k] * self.alpha[k]
            if self.nxt[k] >= 0:
                M[a, self.nxt[k]] += mu * self.j[k]
        return M

    def starve_functional(self, a: int) -> np.ndarray:
        """``c`` with ``c . [x; 1] = Lambda(q, sigma)`` for active index `a`."""
        K, mu = self.K, self.system.mu
        c = np.zeros(K + 1)
        c[K] = self.system.lam
        for k in range(a):
            c[K] -= mu * self.j[k] * self.alpha[k]
            if self.nxt[k] >= 0:
                c[self.nxt[k]] += mu * self.j[k]
        return c


@dataclass(frozen=True)
class FluidSolution:
    """A fluid trajectory of (12) sampled at times `t`.

    Attributes
    ----------
    t : ndarray, shape (T,)
    q : ndarray, shape (T, m, J + 1)
        ``q(t)``; ``q[:, :, 0] = alpha``.
    sigma_rank : ndarray of int, shape (T,)
        Rank ``r(t)`` (from 1) of ``sigma(q(t))`` in the enumeration.
    events : list of (time, kind, rank)
        Changes of the active coordinate: kind ``"fill"`` or ``"starve"`` and the new rank.
    enumeration : Enumeration
    """

    t: np.ndarray
    q: np.ndarray
    sigma_rank: np.ndarray
    events: list
    enumeration: Enumeration

    @property
    def total(self) -> np.ndarray:
        """``s(t) = sum_{j >= 1} q(t, i, j)``."""
        return self.q[:, :, 1:].sum(axis=(1, 2))

    def sigma(self, k: int) -> tuple:
        r = int(self.sigma_rank[k]) - 1
        return int(self.enumeration.cls[r]), int(self.enumeration.level[r])


def _times(t_eval) -> np.ndarray:
    t = check_array("t_eval", t_eval, ndim=1, low=0.0)
    if t.size == 0 or np.any(np.diff(t) < 0):
        raise ParameterError("`t_eval` must be a non-empty non-decreasing array of times >= 0")
    return t


def solve_fluid(system: PoolSystem, q0, t_eval, *, max_step: float | None = None) -> FluidSolution:
    """Exact event-driven solution of the fluid model (12) from `q0` (Theorem 3).

    Parameters
    ----------
    system : PoolSystem
    q0 : array, shape (m, J + 1)
        Initial occupancy state in ``Q`` (``q0[:, 0] = alpha``).
    t_eval : array
        Non-decreasing output times.
    max_step : float, optional
        Spacing of the sign checks of the switching functions (default
        ``0.1 / (mu * deepest level)``, well below the fastest time scale of the linear
        dynamics); between checks the state is propagated exactly.

    Returns
    -------
    FluidSolution
    """
    q0 = check_state(system, q0)
    t_eval = _times(t_eval)
    pre = _Prefix(system, fluid_prefix(system, q0))
    K = pre.K
    h = max_step if max_step is not None else 0.1 / (system.mu * pre.j.max())
    h = check_positive("max_step", h)
    x = pre.to_vector(q0)
    t = 0.0
    a = pre.active(x)
    events: list = []
    out_x = np.zeros((t_eval.size, K))
    out_r = np.zeros(t_eval.size, dtype=np.int64)
    e_idx = 0
    horizon = float(t_eval[-1])
    while True:
        M = pre.generator(a)
        y = np.append(x, 1.0)
        c_fill = np.zeros(K + 1)
        c_fill[a] = 1.0
        c_fill[K] = -pre.alpha[a]
        c_starve = pre.starve_functional(a) if a > 0 else None
        E = expm(M * h)
        t0 = t
        y0 = y.copy()
        switched = None
        while True:
            # outputs inside (t, t + h]
            y_next = E @ y
            t_next = t + h
            g_fill = (c_fill @ y, c_fill @ y_next)
            # an event is located where the switching function has overshot by _TOL, so a
            # function that leaves 0 tangentially (e.g. like t**6) is still caught
            fill_cross = g_fill[0] < _TOL and g_fill[1] >= _TOL
            starve_cross = False
            if c_starve is not None:
                g_st = (c_starve @ y, c_starve @ y_next)
                starve_cross = g_st[0] > -_TOL and g_st[1] <= -_TOL
            if fill_cross or starve_cross:
                cands = []
                if fill_cross:
                    cands.append((brentq(lambda s: c_fill @ (expm(M * s) @ y) - _TOL, 0.0, h,
                                         xtol=1e-14), "fill"))
                if starve_cross:
                    cands.append((brentq(lambda s: c_starve @ (expm(M * s) @ y) + _TOL, 0.0, h,
                                         xtol=1e-14), "starve"))
                s_hit, kind = min(cands)
                t_hit = t + s_hit
                while e_idx < t_eval.size and t_eval[e_idx] <= min(t_hit, horizon):
                    out_x[e_idx] = (expm(M * (t_eval[e_idx] - t)) @ y)[:K]
                    out_r[e_idx] = a + 1
                    e_idx += 1
                if t_hit >= horizon:
                    return _finish(pre, t_eval, out_x, out_r, events)
                y = expm(M * s_hit) @ y
                t = t_hit
                switched = kind
                break
            while e_idx < t_eval.size and t_eval[e_idx] <= t_next:
                out_x[e_idx] = (expm(M * (t_eval[e_idx] - t)) @ y)[:K]
                out_r[e_idx] = a + 1
                e_idx += 1
            if e_idx >= t_eval.size:
                return _finish(pre, t_eval, out_x, out_r, events)
            y = y_next
            t = t_next
            if np.any(y[:K] < -_LEFT_Q_TOL) or np.any(y[:K] > pre.alpha + _LEFT_Q_TOL):
                raise ParameterError(f"fluid solver left Q at t = {t} (internal error; try a smaller `max_step`)")
        x = y[:K].copy()
        if switched == "fill":
            x[a] = pre.alpha[a]
            a_new = pre.active(x)
            if a_new <= a:  # the filled coordinate cannot stay full: keep it active
                a_new = a + 1 if pre.inflow_left(x, a + 1) >= 0 else a
        else:
            a_new = pre.active(x)
            a_new = min(a_new, a - 1)
        if a_new >= K:
            raise ParameterError("fluid trajectory left the enumerated coordinates (internal error)")
        a = a_new
        events.append((t, switched, a + 1))
        if len(events) > 100000:
            raise ParameterError("more than 100000 switches of sigma(q): the trajectory chatters")


def _finish(pre: _Prefix, t_eval, out_x, out_r, events) -> FluidSolution:
    out_x = np.clip(out_x, 0.0, None)  # round-off of order 1e-16 below zero
    return FluidSolution(t=t_eval, q=pre.to_state(out_x), sigma_rank=out_r, events=events,
                         enumeration=pre.en)


def solve_fluid_splitting(system: PoolSystem, q0, t_eval, dt: float) -> FluidSolution:
    """First-order splitting scheme for (12), an independent check of :func:`solve_fluid`.

    Each step of length `dt` removes the departures ``dt mu j [q(i, j) - q(i, j + 1)]``
    (explicit Euler, which keeps ``q`` in ``Q`` when ``dt mu j <= 1``) and then pours the
    arrivals ``lam dt`` into the coordinates in rank order, each up to ``alpha(i)``:
    the discrete counterpart of the priority structure of ``Lambda``. The error is
    ``O(dt)``.
    """
    q0 = check_state(system, q0)
    t_eval = _times(t_eval)
    dt = check_positive("dt", dt)
    pre = _Prefix(system, fluid_prefix(system, q0))
    if dt * system.mu * pre.j.max() > 1:
        raise ParameterError(f"`dt` = {dt} must be <= 1 / (mu * deepest level) = "
                             f"{1 / (system.mu * pre.j.max())} for the scheme to stay in Q")
    x = pre.to_vector(q0)
    out = np.zeros((t_eval.size, pre.K))
    out_r = np.zeros(t_eval.size, dtype=np.int64)
    t = 0.0
    idx = 0
    pour = system.lam * dt
    while idx < t_eval.size:
        while idx < t_eval.size and t_eval[idx] <= t + 0.5 * dt:
            out[idx] = x
            out_r[idx] = pre.active(x) + 1
            idx += 1
        if idx >= t_eval.size:
            break
        x = x - dt * pre.departures(x)
        room = pre.alpha - x
        cum = np.cumsum(room)
        full = cum <= pour
        k = int(np.argmin(full)) if not full.all() else pre.K
        x[:k] = pre.alpha[:k]
        if k < pre.K:
            x[k] += pour - (cum[k - 1] if k > 0 else 0.0)
        t += dt
    return FluidSolution(t=t_eval, q=pre.to_state(out), sigma_rank=out_r, events=[], enumeration=pre.en)
