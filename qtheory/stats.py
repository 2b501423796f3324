"""Small statistics shared by the notebooks and tests: means with confidence intervals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from .errors import ParameterError
from .validation import check_real

__all__ = ["MeanCI", "mean_ci"]


@dataclass(frozen=True)
class MeanCI:
    """Sample mean with its standard error and a Student-t confidence interval.

    Attributes
    ----------
    mean, se, low, high : ndarray
        Mean, standard error of the mean, and interval bounds (same shape).
    n : int
        Number of replications.
    level : float
        Confidence level.
    """

    mean: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: int
    level: float

    @property
    def half_width(self) -> np.ndarray:
        return self.high - self.mean


def mean_ci(samples, axis: int = 0, level: float = 0.95) -> MeanCI:
    """Mean of independent replications along `axis` with a t-based `level` interval.

    With a single replication the standard error is undefined and reported as NaN; a
    NaN among the samples (a quantity a replication does not define) gives NaN results.
    """
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    try:  # NaN entries are allowed (an undefined replication gives a NaN mean), strings are not
        x = np.asarray(samples, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`samples` must be an array of numbers (got {samples!r})") from None
    if x.ndim == 0 or x.shape[axis] == 0:
        raise ParameterError("`samples` must contain at least one replication along `axis`")
    n = x.shape[axis]
    mean = x.mean(axis=axis)
    if n == 1:
        se = np.full_like(mean, np.nan)
        half = se
    else:
        se = x.std(axis=axis, ddof=1) / np.sqrt(n)
        half = _st.t.ppf(0.5 + level / 2, df=n - 1) * se
    return MeanCI(mean=mean, se=se, low=mean - half, high=mean + half, n=n, level=level)
