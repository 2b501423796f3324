"""Input checks shared by every model.

Each check takes the parameter's *name* first so that the error message names it,
returns the value converted to the expected type, and never clips or rounds:
a value out of range is an error, not something to fix silently.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from .errors import ParameterError

__all__ = [
    "RELAXATIONS",
    "check_runs",
    "check_times",
    "check_window",
    "check_load",
    "check_real",
    "check_positive",
    "check_probability",
    "check_integer",
    "check_array",
    "check_probability_vector",
    "check_seed",
]


#: the shortest simulation run a page accepts, in relaxation times of what it averages: a run that
#: starts empty and ends before it forgets its start judges nothing (R: :math:`(1 - \text{load})^{-2}`
#: events of the total queue; L-R-graph: the slowest decay time of ODE (3.7) at its fixed point)
RELAXATIONS = 100


def _fmt(value) -> str:
    return np.array2string(np.asarray(value), precision=6, threshold=8) if np.ndim(value) else repr(value)


def check_runs(**runs) -> None:
    """Every keyword a number of independent runs (or graphs) behind a standard error: an integer
    >= 2 (one run has no interval), named as the reader set it."""
    for name, value in runs.items():
        check_integer(name, value, low=2)


def check_times(**times) -> None:
    """Every keyword a horizon or time span: a finite number > 0, named as the reader set it."""
    for name, value in times.items():
        check_positive(name, value)


def check_window(first_name: str, first, horizon_name: str, horizon, *,
                 why: str = "the warm-up is discarded from each run") -> tuple[float, float]:
    """A time inside a run and the run's horizon: ``0 <= first < horizon``, both named as the reader
    set them (a reader who shortens the horizon learns that the warm-up is now the obstacle)."""
    h = check_positive(horizon_name, horizon)
    w = check_real(first_name, first, low=0.0)
    if not w < h:
        raise ParameterError(f"`{first_name}` must be shorter than `{horizon_name}`: {why} "
                             f"(got {first_name} = {w:g}, {horizon_name} = {h:g})")
    return w, h


def check_load(name: str, value, *, meaning: str = "lambda / lambda*, the fraction of the critical load") -> float:
    """A load whose stationary laws a page computes: a finite number in (0, 1); at or past 1 the
    system has no stationary regime, and the refusal (:class:`qtheory.errors.InstabilityError`)
    says so, with what the load means."""
    from .errors import InstabilityError

    x = check_real(name, value)
    if not 0.0 < x < 1.0:
        raise InstabilityError(f"`{name}` must lie in (0, 1) (got {value!r}): it is {meaning}, and the stationary "
                               "laws this page computes exist only below 1")
    return x


def check_real(name: str, value, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """Return `value` as a finite float inside the given bounds.

    Bounds are closed unless `low_open` / `high_open` is set.
    """
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ParameterError(f"`{name}` must be a real number (got {value!r})")
    x = float(value)
    if not math.isfinite(x):
        raise ParameterError(f"`{name}` must be finite (got {x!r})")
    if low is not None and (x < low or (low_open and x == low)):
        raise ParameterError(f"`{name}` must be {'>' if low_open else '>='} {low} (got {x!r})")
    if high is not None and (x > high or (high_open and x == high)):
        raise ParameterError(f"`{name}` must be {'<' if high_open else '<='} {high} (got {x!r})")
    return x


def check_positive(name: str, value) -> float:
    """Return `value` as a finite float > 0."""
    return check_real(name, value, low=0.0, low_open=True)


def check_probability(name: str, value) -> float:
    """Return `value` as a float in [0, 1]."""
    x = check_real(name, value)
    if not 0.0 <= x <= 1.0:
        raise ParameterError(f"`{name}` = {x!r} is not a probability (must be in [0, 1])")
    return x


def check_integer(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return `value` as an int inside [low, high]; floats such as 2.0 are rejected."""
    if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)):
        raise ParameterError(f"`{name}` must be an integer (got {value!r})")
    k = int(value)
    if low is not None and k < low:
        raise ParameterError(f"`{name}` must be >= {low} (got {k})")
    if high is not None and k > high:
        raise ParameterError(f"`{name}` must be <= {high} (got {k})")
    return k


def check_array(name: str, value, *, ndim: int | None = None, shape: tuple | None = None,
                low: float | None = None, high: float | None = None, low_open: bool = False,
                dtype=float) -> np.ndarray:
    """Return `value` as a finite array of the given dimension / shape and range.

    In `shape`, ``None`` matches any length along that axis. The message of a
    range violation names the first offending entry, e.g. ``p[1, 0] = 1.2``.
    """
    try:  # NumPy would turn "1" into 1.0
        kind = np.asarray(value).dtype.kind
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be an array of numbers (got {value!r})") from None
    if kind in "US":
        raise ParameterError(f"`{name}` must be an array of numbers (got {value!r})")
    try:
        arr = np.array(value, dtype=dtype)
        if arr.dtype.kind in "iu":  # a cast to int would truncate 0.5 to 0 silently
            as_float = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be an array of numbers (got {value!r})") from None
    if arr.dtype.kind in "iu" and np.any(as_float != arr):
        idx = tuple(int(i) for i in np.argwhere(as_float != arr)[0]) if arr.ndim else ()
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        raise ParameterError(f"`{name}{where}` = {as_float[idx].item()!r} is not a whole number")
    if ndim is not None and arr.ndim != ndim:
        raise ParameterError(f"`{name}` must be {ndim}-dimensional (got shape {arr.shape})")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ParameterError(f"`{name}` must have shape {want} (got {arr.shape})")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ParameterError(f"`{name}`{list(idx)} = {arr[idx].item()!r} is not finite")
    bad = np.zeros(arr.shape, dtype=bool)
    cond = []
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
        cond.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        bad |= arr > high
        cond.append(f"<= {high}")
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = ", ".join(map(str, idx))
        raise ParameterError(f"`{name}[{where}]` = {arr[idx].item()!r} violates the condition "
                             f"{' and '.join(cond)}")
    return arr


def check_probability_vector(name: str, value, *, atol: float = 1e-9) -> np.ndarray:
    """Return `value` as a 1-d array of probabilities summing to 1 (within `atol`)."""
    arr = check_array(name, value, ndim=1, low=0.0, high=1.0)
    if arr.size == 0:
        raise ParameterError(f"`{name}` must not be empty")
    total = float(arr.sum())
    if abs(total - 1.0) > atol:
        raise ParameterError(f"`{name}` must sum to 1 (sums to {total!r})")
    return arr


def check_seed(name: str, value) -> int:
    """Return `value` as a non-negative integer seed."""
    return check_integer(name, value, low=0)
