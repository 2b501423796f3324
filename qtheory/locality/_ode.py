"""The one integration step the L ODEs share: the time grid checked once, a one-point grid answered
without calling the solver, and the path returned as a (T, n) array.

``scipy.integrate.solve_ivp`` over the empty span ``(t0, t0)`` returns ``y`` as a list, not an
array; every mean-field solver of the package used to crash there when a reader asked for one time
(``n_times = 1``). The start is the whole path on such a grid.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import ParameterError
from ..validation import check_array

__all__ = ["time_grid", "integrate"]


def time_grid(t_eval) -> np.ndarray:
    """`t_eval` as a float array: non-empty, every time >= 0, strictly increasing."""
    t_eval = check_array("t_eval", t_eval, ndim=1, low=0.0)
    if t_eval.size < 1 or np.any(np.diff(t_eval) <= 0):
        raise ParameterError("`t_eval` must be a non-empty increasing array of times >= 0 "
                             f"(got {t_eval.size} times)")
    return t_eval


def integrate(rhs, y0: np.ndarray, t_eval: np.ndarray, *, method: str, rtol: float, atol: float,
              what: str) -> np.ndarray:
    """The path of ``y' = rhs(t, y)`` from ``y(t_eval[0]) = y0`` at the times `t_eval` (checked by
    :func:`time_grid`), as a (T, len(y0)) array; `what` names the ODE in a failure's message."""
    y0 = np.asarray(y0, dtype=float)
    if t_eval.size == 1:
        return y0[None, :].copy()
    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), y0, t_eval=t_eval, method=method, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"{what} integration failed: {sol.message}")
    return np.asarray(sol.y).T
