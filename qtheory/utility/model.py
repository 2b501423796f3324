"""Server-pool classes, utility functions and the ranking of coordinates (Sec. 2.1, 2.3).

A system has ``m`` classes of server pools; a fraction ``alpha[i]`` of the pools is of
class ``i`` and a pool of class ``i`` holding ``x`` tasks has utility ``u_i(x)``. Tasks
arrive at rate ``n * lam`` and leave after exponential times of mean ``1 / mu``; the
offered load per pool is ``rho = lam / mu``.

Occupancy states are arrays ``q`` of shape ``(m, J + 1)``: ``q[i, j]`` is the fraction of
pools that are of class ``i`` and hold at least ``j`` tasks, so ``q[i, 0] = alpha[i]``
(classes are numbered from 0 in code, from 1 in the paper and in the tables).

Coordinates ``(i, j)`` with ``j >= 1`` stand for "a class-``i`` pool holding ``j - 1``
tasks"; their marginal utility is ``Delta(i, j - 1) = u_i(j) - u_i(j - 1)``. The total order
of Sec. 2.3 ranks coordinates by decreasing marginal utility, ties broken by the
dictionary order (smaller class first, then smaller ``j``); :func:`enumeration` lists the
coordinates in that order, which is also the enumeration ``(i_k, j_k)`` used by SLTA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_real

__all__ = [
    "Utility",
    "LogUtility",
    "ResourceUtility",
    "PiecewiseLinearUtility",
    "LinearUtility",
    "StepUtility",
    "CallableUtility",
    "PoolSystem",
    "tabulate",
    "marginal_utilities",
    "enumeration",
    "Enumeration",
    "overall_utility",
    "total_tasks",
    "TIE_DECIMALS",
]

#: marginal utilities equal to this many decimals are treated as ties of the ranking,
#: so that round-off in ``u(j + 1) - u(j)`` cannot reorder coordinates of equal utility
TIE_DECIMALS = 12


class Utility:
    """A utility function of the number of tasks sharing a pool (concave on the integers).

    Subclasses implement :meth:`values`; concavity is checked by :func:`tabulate` on the
    range of occupancies actually used.
    """

    def values(self, max_tasks: int) -> np.ndarray:  # pragma: no cover - interface
        """``u(0), u(1), ..., u(max_tasks)`` as a float array."""
        raise NotImplementedError

    def __call__(self, x) -> np.ndarray:
        x = np.asarray(x)
        if x.size == 0:
            return np.zeros(x.shape)
        if np.any(x < 0) or np.any(x != np.floor(x)):
            raise ParameterError("`x` must be non-negative integers (numbers of tasks)")
        table = self.values(int(x.max()))
        return table[x.astype(np.int64)]


@dataclass(frozen=True)
class LogUtility(Utility):
    """``u(x) = x log(r / x)`` with ``u(0) = 0`` (Sec. 3.4.1, Table 1).

    Concave, increasing up to ``x = r / e`` and decreasing after: not monotone.
    """

    r: float

    def __post_init__(self):
        check_positive("r", self.r)

    def values(self, max_tasks: int) -> np.ndarray:
        x = np.arange(max_tasks + 1, dtype=float)
        out = np.zeros_like(x)
        out[1:] = x[1:] * np.log(self.r / x[1:])
        return out

    def __str__(self) -> str:
        return f"x log({self.r:g}/x)"


def _log1p_quality(y):
    return np.log1p(y)


@dataclass(frozen=True)
class ResourceUtility(Utility):
    """``u(x) = x g(r / x)``: ``x`` tasks share resources ``r`` (Sec. 2.3.1, Fig. 3 left).

    ``g`` is the quality of service of one task given its share of the resources; for
    ``g`` concave and increasing, ``u`` is concave (it is the perspective of ``g``).
    ``u(0)`` is ``value_at_zero`` (the limit of ``x g(r / x)`` as ``x -> 0``, which is 0
    for the default ``g(y) = log(1 + y)``).
    """

    r: float
    g: Callable = _log1p_quality
    value_at_zero: float = 0.0

    def __post_init__(self):
        check_positive("r", self.r)
        check_real("value_at_zero", self.value_at_zero)
        if not callable(self.g):
            raise ParameterError("`g` must be callable")

    def values(self, max_tasks: int) -> np.ndarray:
        x = np.arange(max_tasks + 1, dtype=float)
        out = np.empty_like(x)
        out[0] = self.value_at_zero
        out[1:] = x[1:] * np.asarray(self.g(self.r / x[1:]), dtype=float)
        return out

    def __str__(self) -> str:
        name = "log(1+y)" if self.g is _log1p_quality else getattr(self.g, "__name__", "g")
        return f"x g({self.r:g}/x), g(y) = {name}"


@dataclass(frozen=True)
class PiecewiseLinearUtility(Utility):
    """Continuous piecewise-linear utility.

    ``slopes[k]`` is the slope on ``[breakpoints[k-1], breakpoints[k]]`` (with
    ``breakpoints[-1] = 0`` and the last slope extending to infinity); concave iff the
    slopes do not increase.
    """

    slopes: tuple
    breakpoints: tuple = ()
    value_at_zero: float = 0.0

    def __post_init__(self):
        slopes = check_array("slopes", self.slopes, ndim=1)
        bps = check_array("breakpoints", self.breakpoints, ndim=1, low=0.0, low_open=True) \
            if len(self.breakpoints) else np.zeros(0)
        if slopes.size != bps.size + 1:
            raise ParameterError(f"`slopes` must have one entry more than `breakpoints` "
                                 f"(got {slopes.size} and {bps.size})")
        if np.any(np.diff(bps) <= 0):
            raise ParameterError("`breakpoints` must be strictly increasing")
        if np.any(np.diff(slopes) > 0):
            k = int(np.argmax(np.diff(slopes) > 0))
            raise ParameterError(f"`slopes` must be non-increasing for a concave utility "
                                 f"(slopes[{k + 1}] = {slopes[k + 1]} > slopes[{k}] = {slopes[k]})")
        check_real("value_at_zero", self.value_at_zero)
        object.__setattr__(self, "slopes", tuple(float(s) for s in slopes))
        object.__setattr__(self, "breakpoints", tuple(float(b) for b in bps))

    def values(self, max_tasks: int) -> np.ndarray:
        x = np.arange(max_tasks + 1, dtype=float)
        edges = np.concatenate([[0.0], self.breakpoints, [np.inf]])
        out = np.full_like(x, self.value_at_zero)
        for k, slope in enumerate(self.slopes):
            length = np.clip(x - edges[k], 0.0, edges[k + 1] - edges[k])
            out += slope * length
        return out

    def __str__(self) -> str:
        return f"piecewise linear, slopes {self.slopes} with breakpoints {self.breakpoints}"


@dataclass(frozen=True)
class LinearUtility(Utility):
    """``u(x) = slope * x`` (Sec. 8.3 uses ``u_1(x) = eps x``)."""

    slope: float

    def __post_init__(self):
        check_real("slope", self.slope)

    def values(self, max_tasks: int) -> np.ndarray:
        return self.slope * np.arange(max_tasks + 1, dtype=float)

    def __str__(self) -> str:
        return f"{self.slope:g} x"


@dataclass(frozen=True)
class StepUtility(Utility):
    """``u(x) = height * 1{x >= 1}``: concave on the integers (Sec. 8.3, pool 2)."""

    height: float

    def __post_init__(self):
        check_real("height", self.height, low=0.0)

    def values(self, max_tasks: int) -> np.ndarray:
        out = np.full(max_tasks + 1, float(self.height))
        out[0] = 0.0
        return out

    def __str__(self) -> str:
        return f"{self.height:g} 1{{x >= 1}}"


@dataclass(frozen=True)
class CallableUtility(Utility):
    """Any user function ``func(x)`` of the number of tasks (evaluated on integers).

    It must be vectorised over a NumPy array of integers, or is called element-wise.
    Concavity (non-increasing marginal utilities) is checked on the range of
    occupancies used by each computation, see :func:`tabulate`.
    """

    func: Callable
    name: str = "user utility"

    def __post_init__(self):
        if not callable(self.func):
            raise ParameterError("`func` must be callable")

    def values(self, max_tasks: int) -> np.ndarray:
        x = np.arange(max_tasks + 1)
        try:
            out = np.asarray(self.func(x), dtype=float)
            if out.shape != x.shape:
                raise TypeError
        except (TypeError, ValueError):
            out = np.array([float(self.func(int(k))) for k in x])
        if not np.all(np.isfinite(out)):
            k = int(np.argmax(~np.isfinite(out)))
            raise ParameterError(f"utility {self.name!r} is not finite at x = {k} (got {out[k]!r})")
        return out

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class PoolSystem:
    """Classes of infinite-server pools with their utilities (Sec. 2.1).

    Parameters
    ----------
    utilities : sequence of Utility
        ``u_i`` for each class ``i`` (code numbers classes from 0).
    alpha : sequence of float
        Fraction of pools of each class; positive, summing to 1.
    rho : float
        Offered load per pool, ``lam / mu`` (> 0).
    mu : float
        Service rate of a task (> 0); ``lam = rho * mu``.
    """

    utilities: tuple
    alpha: tuple
    rho: float
    mu: float = 1.0
    m: int = field(init=False)

    def __post_init__(self):
        utilities = tuple(self.utilities)
        if not utilities:
            raise ParameterError("`utilities` must name at least one class")
        for i, u in enumerate(utilities):
            if not isinstance(u, Utility):
                raise ParameterError(f"`utilities[{i}]` must be a qtheory.utility Utility "
                                     f"(wrap a plain function in CallableUtility), got {u!r}")
        alpha = check_array("alpha", self.alpha, ndim=1, low=0.0, low_open=True, high=1.0)
        if alpha.size != len(utilities):
            raise ParameterError(f"`alpha` must have one entry per class ({len(utilities)}), "
                                 f"got {alpha.size}")
        if abs(alpha.sum() - 1.0) > 1e-9:
            raise ParameterError(f"`alpha` must sum to 1 (sums to {alpha.sum()!r})")
        object.__setattr__(self, "utilities", utilities)
        object.__setattr__(self, "alpha", tuple(float(a) for a in alpha))
        object.__setattr__(self, "rho", check_positive("rho", self.rho))
        object.__setattr__(self, "mu", check_positive("mu", self.mu))
        object.__setattr__(self, "m", len(utilities))

    @property
    def lam(self) -> float:
        """Arrival rate per pool, ``rho * mu``."""
        return self.rho * self.mu

    @property
    def alpha_array(self) -> np.ndarray:
        return np.array(self.alpha)

    def with_rho(self, rho: float) -> "PoolSystem":
        """The same pools at another offered load."""
        return PoolSystem(self.utilities, self.alpha, rho, self.mu)

    def pool_counts(self, n: int, *, name: str = "n") -> np.ndarray:
        """``A_n(i) = n alpha(i)``, which must be integers (``n`` pools in all); a refusal names the
        parameter as `name` (the reader's name for the size, e.g. ``base_n``)."""
        n = check_integer(name, n, low=1)
        exact = n * self.alpha_array
        counts = np.rint(exact).astype(np.int64)
        if np.any(np.abs(exact - counts) > 1e-6) or counts.sum() != n or np.any(counts < 1):
            fractions = ", ".join(f"{a:.4g}" for a in self.alpha)
            raise ParameterError(f"`{name}` = {n} does not split into whole numbers of pools per class: the class "
                                 f"fractions are {fractions}, so {name} times each must be a whole number >= 1")
        return counts


def tabulate(utilities: Sequence[Utility], max_tasks: int) -> np.ndarray:
    """Values ``u_i(x)`` for ``x = 0..max_tasks``, shape ``(m, max_tasks + 1)``.

    Raises :class:`ParameterError` if some ``u_i`` is not concave on ``0..max_tasks``,
    i.e. if a marginal utility increases somewhere on that range.
    """
    max_tasks = check_integer("max_tasks", max_tasks, low=1)
    table = np.empty((len(utilities), max_tasks + 1))
    for i, u in enumerate(utilities):
        vals = np.asarray(u.values(max_tasks), dtype=float)
        if vals.shape != (max_tasks + 1,) or not np.all(np.isfinite(vals)):
            raise ParameterError(f"`utilities[{i}]` ({u}) must give finite values on 0..{max_tasks}")
        delta = np.diff(vals)
        scale = max(1.0, float(np.max(np.abs(vals))))
        bad = np.diff(delta) > 1e-10 * scale
        if bad.any():
            j = int(np.argmax(bad)) + 1
            raise ParameterError(
                f"`utilities[{i}]` ({u}) is not concave on 0..{max_tasks}: marginal utility "
                f"Delta({j}) = {delta[j]!r} > Delta({j - 1}) = {delta[j - 1]!r}")
        table[i] = vals
    return table


def marginal_utilities(system: PoolSystem, max_tasks: int) -> np.ndarray:
    """``Delta(i, x) = u_i(x + 1) - u_i(x)`` for ``x = 0..max_tasks - 1``, shape ``(m, max_tasks)``.

    ``Delta(i, j - 1)`` is the marginal utility of coordinate ``(i, j)`` (Sec. 2.3).
    """
    return np.diff(tabulate(system.utilities, max_tasks), axis=1)


@dataclass(frozen=True)
class Enumeration:
    """Coordinates ``(i_k, j_k)`` in decreasing rank (Sec. 2.3, Sec. 3.2).

    Attributes
    ----------
    cls, level : ndarray of int
        ``i_k`` (from 0) and ``j_k`` (>= 1) of the ``k``-th ranked coordinate, ``k = 1..``
        stored at index ``k - 1``.
    delta : ndarray
        Its marginal utility ``Delta(i_k, j_k - 1)``.
    valid : int
        Number of leading entries that are exact: beyond it, coordinates deeper than the
        tabulated depth could rank higher. Only ``cls[:valid]`` etc. are returned.
    depth : int
        Number of levels tabulated per class.
    """

    cls: np.ndarray
    level: np.ndarray
    delta: np.ndarray
    valid: int
    depth: int

    def index(self, i: int, j: int) -> int:
        """Rank position ``k`` (from 1) of coordinate ``(i, j)``; raises if beyond ``valid``."""
        hit = np.nonzero((self.cls == i) & (self.level == j))[0]
        if hit.size == 0:
            raise ParameterError(f"coordinate ({i}, {j}) is beyond the {self.valid} enumerated ones; "
                                 f"use a larger `depth`")
        return int(hit[0]) + 1


def enumeration(system: PoolSystem, depth: int) -> Enumeration:
    """The coordinates of ``I_+`` in decreasing order of the total order of Sec. 2.3.

    ``(i1, j1)`` ranks below ``(i2, j2)`` iff ``Delta(i1, j1 - 1) < Delta(i2, j2 - 1)``, or
    they are equal (to :data:`TIE_DECIMALS` decimals) and ``(i2, j2)`` comes first in the
    dictionary order. Levels ``1..depth`` of every class are ranked; the returned prefix
    stops at the first coordinate of level ``depth``, after which unseen deeper
    coordinates could interleave.
    """
    depth = check_integer("depth", depth, low=1)
    delta = marginal_utilities(system, depth)  # (m, depth): coordinate (i, j) has delta[i, j-1]
    m = system.m
    cls = np.repeat(np.arange(m), depth)
    level = np.tile(np.arange(1, depth + 1), m)
    d = delta.ravel()
    key = np.round(d, TIE_DECIMALS)
    order = np.lexsort((level, cls, -key))
    cls, level, d = cls[order], level[order], d[order]
    deepest = np.nonzero(level == depth)[0]
    valid = int(deepest[0]) + 1
    return Enumeration(cls[:valid].copy(), level[:valid].copy(), d[:valid].copy(), valid, depth)


def _as_state(system: PoolSystem, q) -> np.ndarray:
    q = check_array("q", q, ndim=2, low=0.0)
    if q.shape[0] != system.m or q.shape[1] < 1:
        raise ParameterError(f"`q` must have shape (m = {system.m}, J + 1) (got {q.shape})")
    return q


def overall_utility(system: PoolSystem, q, alpha=None) -> float:
    """Overall utility ``u(q) = sum_i sum_j u_i(j) [q(i, j) - q(i, j + 1)]`` (eq. (1)).

    Equivalently ``sum_i u_i(0) alpha(i) + sum_{(i, j)} Delta(i, j - 1) q(i, j)``, linear in
    ``q``. `q` has shape ``(m, J + 1)`` with ``q[:, 0] = alpha`` (the class fractions,
    which may be those of a finite system) and ``q(i, J + 1) = 0``.
    """
    q = _as_state(system, q)
    J = q.shape[1] - 1
    values = tabulate(system.utilities, max(J, 1))[:, : J + 1]
    ext = np.concatenate([q, np.zeros((system.m, 1))], axis=1)
    return float(np.sum(values * (ext[:, :-1] - ext[:, 1:])))


def total_tasks(q) -> float:
    """Normalised number of tasks ``s = sum_{i, j >= 1} q(i, j)`` (eq. (1))."""
    q = np.asarray(q, dtype=float)
    return float(q[:, 1:].sum())
