r"""Sec. 8.3: JLMU is not optimal in the prelimit, computed exactly.

Two pools, one per class, with :math:`u_1(x) = \varepsilon x` and
:math:`u_2(x) = a \mathbf{1}\{x \ge 1\}` (:math:`0 < \varepsilon < a`; ``eps`` and ``a`` in
the code): our reading of the utilities of Sec. 8.3, reconstructed from its text
(see the book's reconstruction notes). Tasks arrive at rate :math:`\lambda` (``lam``) and
leave at rate :math:`\mu` (``mu``) each; :math:`\rho = \lambda / \mu` (``rho``).

- JLMU sends a task to pool 2 iff pool 2 is empty (its marginal utility :math:`a` beats
  :math:`\varepsilon`; every other marginal utility of pool 2 is :math:`0 < \varepsilon`).
  Pool 2 alone is then a two-state chain with :math:`P(Y = 1) = \rho / (1 + \rho)`, and the
  total :math:`X + Y` is :math:`\mathrm{Poisson}(\rho)`, so
  :math:`E[U] = \varepsilon (\rho - \rho / (1 + \rho)) + a \rho / (1 + \rho)`.
- The conservative policy sends every task to pool 2, an :math:`M/M/\infty` queue:
  :math:`E[V] = a (1 - e^{-\rho})`.

JLMU loses (:math:`E[U] < E[V]`) iff
:math:`\varepsilon < \varepsilon_c(\rho) = a [(1 + \rho)(1 - e^{-\rho}) - \rho] / \rho^2`.
:func:`stationary_mean_utility` computes both by solving a truncated CTMC, an
independent route to the same numbers.

Convention of this module: `rho` is always the **total** offered load of the two pools
and every utility returned here is the **total** over both pools. The generic routes
normalise per pool: ``two_pool_system(eps, rho).rho == rho / 2`` and
``simulate(two_pool_system(eps, rho), 2, ...).mean_utility`` (likewise
``exact_stationary``) is per pool, so twice it is ``jlmu_mean_utility(eps, rho)``
(tests/utility/test_sec83_conventions.py crosses the routes).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.sparse import lil_matrix
from scipy.sparse.linalg import spsolve

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_positive, check_real
from .model import LinearUtility, PoolSystem, StepUtility

__all__ = ["SIM_WARMUP", "two_pool_system", "jlmu_mean_utility", "conservative_mean_utility", "critical_eps",
           "stationary_mean_utility", "jlmu_rule", "conservative_rule", "simulated_mean_utility",
           "simulated_run_utilities"]


def _check(eps: float, rho: float, a: float) -> tuple[float, float, float]:
    a = check_positive("a", a)
    eps = check_real("eps", eps, low=0.0, high=a, low_open=True, high_open=True)
    rho = check_positive("rho", rho)
    return eps, rho, a


def two_pool_system(eps: float, rho: float, a: float = 1.0, mu: float = 1.0) -> PoolSystem:
    """The system of Sec. 8.3: two classes of one pool each (``n = 2``, ``alpha = (1/2, 1/2)``).

    `rho` is the offered load of the whole two-pool system, ``lam / mu`` as in Sec. 8.3;
    the :class:`PoolSystem` is normalised per pool, so its ``rho`` is ``rho / 2``.
    """
    eps, rho, a = _check(eps, rho, a)
    return PoolSystem((LinearUtility(eps), StepUtility(a)), (0.5, 0.5), rho / 2.0, mu)


def jlmu_mean_utility(eps: float, rho: float, a: float = 1.0) -> float:
    """Stationary mean aggregate utility ``E[u_1(X) + u_2(Y)]`` under JLMU (closed form).

    Total over the two pools at total load `rho`; the per-pool ``simulate(...).mean_utility``
    of :func:`two_pool_system` is half of it.
    """
    eps, rho, a = _check(eps, rho, a)
    p_busy = rho / (1.0 + rho)
    return eps * (rho - p_busy) + a * p_busy


def conservative_mean_utility(eps: float, rho: float, a: float = 1.0) -> float:
    """Stationary mean aggregate utility when every task goes to pool 2: ``a (1 - e^{-rho})``."""
    eps, rho, a = _check(eps, rho, a)
    return a * -math.expm1(-rho)


def critical_eps(rho, a: float = 1.0):
    """``eps_c(rho)``: JLMU is strictly worse than the conservative policy iff ``eps < eps_c``.

    Tends to ``a / 2`` as ``rho -> 0`` and behaves like ``a / rho**2`` for large ``rho``.
    """
    rho = check_array("rho", rho, low=0.0, low_open=True)
    a = check_positive("a", a)
    out = a * ((1.0 + rho) * -np.expm1(-rho) - rho) / rho**2
    return float(out) if out.ndim == 0 else out


def jlmu_rule(x: int, y: int) -> int:
    """JLMU for Sec. 8.3: pool 2 (returns 1) iff it is empty, else pool 1 (returns 0)."""
    return 1 if y == 0 else 0


def conservative_rule(x: int, y: int) -> int:
    """Every task to pool 2."""
    return 1


def stationary_mean_utility(eps: float, rho: float, rule: Callable[[int, int], int], a: float = 1.0,
                            mu: float = 1.0, truncation: int | None = None) -> float:
    """``E[u_1(X) + u_2(Y)]`` from the stationary law of the CTMC ``(X, Y)`` truncated at
    ``X + Y <= truncation`` (arrivals blocked there; the :math:`\\mathrm{Poisson}(\\rho)` tail beyond is below
    1e-15 for the default truncation).

    `rule(x, y)` returns the pool (0 or 1) that receives an arriving task.
    """
    eps, rho, a = _check(eps, rho, a)
    mu = check_positive("mu", mu)
    if not callable(rule):
        raise ParameterError(f"`rule` must be a function (x, y) -> 0 or 1, e.g. jlmu_rule (got {rule!r})")
    if truncation is None:
        truncation = int(rho + 12 * math.sqrt(rho) + 30)
    L = check_integer("truncation", truncation, low=2)
    lam = rho * mu
    states = [(x, y) for x in range(L + 1) for y in range(L + 1 - x)]
    index = {s: k for k, s in enumerate(states)}
    size = len(states)
    Q = lil_matrix((size, size))
    for (x, y), k in index.items():
        if x + y < L:
            dest = (x + 1, y) if rule(x, y) == 0 else (x, y + 1)
            Q[k, index[dest]] += lam
        if x > 0:
            Q[k, index[(x - 1, y)]] += mu * x
        if y > 0:
            Q[k, index[(x, y - 1)]] += mu * y
    Q = Q.tocsr()
    diag = np.asarray(Q.sum(axis=1)).ravel()
    A = (Q.T - lil_matrix((size, size)).tocsr()).tolil()
    A.setdiag(A.diagonal() - diag)
    # replace one balance equation by the normalisation
    A[0, :] = np.ones(size)
    b = np.zeros(size)
    b[0] = 1.0
    pi = spsolve(A.tocsr(), b)
    util = np.array([eps * x + (a if y >= 1 else 0.0) for x, y in states])
    return float(pi @ util)


def _sim_run(ss, eps, rho, a, policy, horizon, warmup):
    from .experiments import Replication
    from .simulation import simulate

    res = simulate(two_pool_system(eps, rho, a), 2, policy, horizon=horizon, warmup=warmup, seed=ss)
    return Replication.of(res, mean_utility=res.mean_utility, mean_tasks=res.mean_tasks)


#: time discarded from the start of each simulated run (a fraction :math:`e^{-10}` of the empty start's effect remains,
#: the pools' services being of rate 1)
SIM_WARMUP = 10.0


def simulated_run_utilities(eps: float, rho: float, policy: str, *, horizon: float, n_runs: int, seed: int,
                            a: float = 1.0, warmup: float = SIM_WARMUP) -> np.ndarray:
    """Each independent simulated run's time-averaged aggregate utility of `policy` ("jlmu" or
    "conservative") over ``[warmup, horizon]``, in run order (the run means of
    :func:`simulated_mean_utility`)."""
    from ..runtime import replicate

    runs = replicate(_sim_run, n_runs, seed, args=(eps, rho, a, policy, horizon, warmup),
                     desc=f"sec 8.3 {policy}")
    # aggregate utility of the two pools: twice the mean over pools
    return np.array([2.0 * run.mean_utility for run in runs])


def simulated_mean_utility(eps: float, rho: float, policy: str, *, horizon: float, n_runs: int, seed: int,
                           a: float = 1.0, warmup: float = SIM_WARMUP):
    """Mean aggregate utility of `policy` ("jlmu" or "conservative") over independent
    simulated runs, as a :class:`qtheory.stats.Estimate` (third route to the same numbers)."""
    from ..stats import mean_ci

    return mean_ci(simulated_run_utilities(eps, rho, policy, horizon=horizon, n_runs=n_runs, seed=seed, a=a,
                                           warmup=warmup))
