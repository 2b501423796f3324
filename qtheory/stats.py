"""General statistics shared by the papers, notebooks and tests.

Every reported statistic is an :class:`Estimate` (mean, standard error, interval, count).
Means with confidence intervals (`mean_ci`, `band`), the standard error of a time
average of one long run by batch means (`batch_means`), a log-log slope (`loglog_slope`) and the
correlation of two exchangeable units estimated from whole-group sums (`pair_correlation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
from scipy import stats as _st

from .errors import ParameterError
from .validation import check_array, check_integer, check_real, check_seed

__all__ = ["Estimate", "StationaryStatistics", "mean_ci", "batch_estimate", "band", "batch_means", "sample_batch_means",
           "sample_batch_values",
           "loglog_slope", "pair_correlation", "familywise_t_bound", "se_from_interval"]


@dataclass(frozen=True)
class Estimate:
    """A reported statistic: its mean, standard error and confidence interval.

    The one record of an estimated value in all three papers (replication means, batch
    means of one long run, bootstrap estimates): fields may be scalars or arrays of one
    shape.

    Attributes
    ----------
    mean, se, ci_low, ci_high : float or ndarray
        Estimate, its standard error, and the interval bounds (same shape).
    n : int
        Number of replications (or batches) behind it.
    level : float
        Confidence level of the interval.
    """

    mean: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n: int
    level: float = 0.95

    @property
    def half_width(self) -> np.ndarray:
        return self.ci_high - self.mean

    def __getitem__(self, index) -> "Estimate":
        """The estimate of one entry (or a slice) of an array-valued estimate."""
        return Estimate(self.mean[index], self.se[index], self.ci_low[index], self.ci_high[index],
                        self.n, self.level)

    def as_row(self, prefix: str = "") -> dict[str, float]:
        """``{mean, se, ci_low, ci_high, n}`` (keys prefixed by `prefix`) for a tidy row of a scalar estimate."""
        return {f"{prefix}mean": float(self.mean), f"{prefix}se": float(self.se),
                f"{prefix}ci_low": float(self.ci_low), f"{prefix}ci_high": float(self.ci_high),
                f"{prefix}n": int(self.n)}


@dataclass(frozen=True)
class StationaryStatistics:
    """Time averages of one long run with their batch-means standard errors (L and U alike).

    Returned by :func:`qtheory.locality.experiments.stationary_statistics` and
    :func:`qtheory.utility.experiments.stationary_statistics`. Each named statistic is an
    :class:`Estimate` (batch means: ``n`` is the number of batches) reached as an attribute:
    ``st.mean_queue_length.mean``, ``st.mean_utility.se``.

    Attributes
    ----------
    estimates : mapping of str to Estimate
        The statistics by name (L: ``mean_queue_length`` per type,
        ``overall_mean_queue_length``, ``occupancy``; U: ``mean_utility``, ``mean_tasks``,
        ``mean_occupancy``).
    n_samples, n_batches : int
        Equally spaced sampling times in ``[warmup, horizon]``, and the batches of
        consecutive samples behind the standard errors.
    events : int
        Events of the whole run (warm-up included).
    wall_time : float
        Seconds spent in the kernel.
    warmup, horizon : float
        Start of the averaging window and end of the run, in time units.
    """

    estimates: Mapping[str, Estimate]
    n_samples: int
    n_batches: int
    events: int
    wall_time: float
    warmup: float
    horizon: float

    def __getattr__(self, name: str) -> Estimate:
        estimates = self.__dict__.get("estimates")  # absent while unpickling
        if estimates is not None and name in estimates:
            return estimates[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.__dict__.get("estimates", ())))


def familywise_t_bound(df: float, comparisons: int = 1, *, alpha: float) -> float:
    r"""The bound :math:`c` that the largest of `comparisons` statistics :math:`|T_i|`, each
    Student :math:`t` with `df` degrees of freedom under its null, exceeds with probability at
    most `alpha` (two-sided, Bonferroni: :math:`c = t_{1 - \alpha / (2k)}`). The one familywise
    bound of the book (L-P-jsqd's distinct-picks check, U-V's random-assignment check, tests)."""
    df = check_real("df", df, low=0.0, low_open=True)
    comparisons = check_integer("comparisons", comparisons, low=1)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(_st.t.isf(alpha / (2 * comparisons), df))


def se_from_interval(low, high, df: float | None = None, level: float = 0.95):
    """The standard error behind a two-sided `level` interval ``[low, high]`` (scalars or arrays):
    half its width over the Student :math:`t` quantile with `df` degrees of freedom, or over the
    normal quantile when `df` is None (a bootstrap percentile interval). The inverse of
    :func:`mean_ci`'s interval, for tables that keep the interval and not the error."""
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    if df is None:
        q = _st.norm.isf((1 - level) / 2)
    else:
        q = _st.t.isf((1 - level) / 2, check_real("df", df, low=0.0, low_open=True))
    half = (np.asarray(high, dtype=float) - np.asarray(low, dtype=float)) / 2
    out = half / float(q)
    return float(out) if out.ndim == 0 else out


def mean_ci(samples, axis: int = 0, level: float = 0.95) -> Estimate:
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
    return Estimate(mean=mean, se=se, ci_low=mean - half, ci_high=mean + half, n=n, level=level)


def batch_means(numerator, denominator) -> tuple[np.ndarray, np.ndarray]:
    """A ratio of integrals of one run and its batch-means standard error.

    `numerator` and `denominator` are running integrals recorded at the end of each of
    B consecutive batches of the run (cumulative, shape (B,) or (B, ...) for the
    numerator), e.g. :math:`\\int_0^{t_b} Q` and :math:`t_b`. The estimate is
    :math:`m = N_B / D_B`; with the batch increments :math:`n_b, d_b` and
    :math:`\\bar d = D_B / B`, its standard error is the ratio estimator's

    .. math:: \\mathrm{se}(m) = \\frac{1}{\\bar d}\\sqrt{\\frac{\\sum_b (n_b - m d_b)^2}{B (B - 1)}},

    valid when the batches are long against the correlation time of the integrand
    (then the batch ratios are nearly independent). Needs B >= 2.
    """
    num = check_array("numerator", numerator)
    den = check_array("denominator", denominator, ndim=1)
    if den.size < 2:
        raise ParameterError(f"`denominator` needs at least 2 batches (got {den.size})")
    if num.shape[0] != den.size:
        raise ParameterError(f"`numerator` must have one row per batch ({den.size}), got shape {num.shape}")
    n_b = np.diff(num, axis=0, prepend=np.zeros((1,) + num.shape[1:]))
    d_b = np.diff(den, prepend=0.0)
    if not np.all(d_b > 0):
        raise ParameterError("`denominator` must increase strictly from batch to batch")
    b = den.size
    m = num[-1] / den[-1]
    d_shape = (b,) + (1,) * (num.ndim - 1)
    resid = n_b - m * d_b.reshape(d_shape)
    se = np.sqrt((resid ** 2).sum(axis=0) / (b * (b - 1))) / (den[-1] / b)
    return m, se


def sample_batch_means(samples, n_batches: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of `samples` (shape (S, ...): one state per equally spaced time of one run) and
    its batch-means standard error over `n_batches` batches of consecutive samples.

    Batch b holds samples ``floor(b S / B)`` to ``floor((b + 1) S / B) - 1``; the result is
    :func:`batch_means` of the running sums at the batch ends against the sample counts.
    """
    x, ends = _batch_ends(samples, n_batches)
    return batch_means(np.cumsum(x, axis=0)[ends - 1], ends.astype(float))


def sample_batch_values(samples, n_batches: int) -> np.ndarray:
    """The mean of each of the `n_batches` batches of consecutive `samples` that
    :func:`sample_batch_means` uses (shape (B, ...)): the batch means a test over batches
    judges. With `n_batches` dividing the number of samples their average is the mean of
    `samples`; otherwise batches differ by one sample."""
    x, ends = _batch_ends(samples, n_batches)
    sums = np.diff(np.cumsum(x, axis=0)[ends - 1], axis=0, prepend=np.zeros((1,) + x.shape[1:]))
    sizes = np.diff(ends, prepend=0).astype(float)
    return sums / sizes.reshape((-1,) + (1,) * (x.ndim - 1))


def _batch_ends(samples, n_batches: int) -> tuple[np.ndarray, np.ndarray]:
    """`samples` as an array and the (exclusive) end of each batch: batch b holds samples
    ``floor(b S / B)`` to ``floor((b + 1) S / B) - 1``."""
    x = np.asarray(samples, dtype=float)
    n_samples = x.shape[0] if x.ndim else 0
    n_batches = check_integer("n_batches", n_batches, low=2, high=n_samples)
    return x, (np.arange(1, n_batches + 1) * n_samples) // n_batches


def batch_estimate(samples, n_batches: int, level: float = 0.95) -> Estimate:
    """:func:`sample_batch_means` as an :class:`Estimate`: the mean, its batch-means standard
    error and a t-interval with ``n_batches - 1`` degrees of freedom (``n = n_batches``)."""
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    mean, se = sample_batch_means(samples, n_batches)
    half = _st.t.ppf(0.5 + level / 2, df=n_batches - 1) * se
    if np.ndim(mean) == 0:
        mean, se, half = float(mean), float(se), float(half)
    return Estimate(mean=mean, se=se, ci_low=mean - half, ci_high=mean + half, n=int(n_batches), level=level)


def pair_correlation(mean, mean_square, n_servers: int, *, n_boot: int = 1000, seed: int = 0):
    """Correlation of two distinct tagged servers of one type, from whole-type sums.

    Servers of a type are exchangeable (random graph, i.i.d. start), so with
    ``S = sum_j X_j`` over the type's n servers, ``Var S = n Var X (1 + (n - 1) corr)``.
    `mean` and `mean_square` are, per replication, the type averages of :math:`X` and :math:`X^2` at
    one time. Returns the estimate and a bootstrap 95% interval (resampling replications).
    """
    mean = check_array("mean", mean, ndim=1, low=0.0)
    mean_square = check_array("mean_square", mean_square, shape=mean.shape, low=0.0)
    if mean.size < 2:
        raise ParameterError(f"`mean` needs at least 2 replications (got {mean.size})")
    n = check_integer("n_servers", n_servers, low=2)
    n_boot = check_integer("n_boot", n_boot, low=1)
    seed = check_seed("seed", seed)

    def estimate(idx):
        s = n * mean[idx]
        var_x = mean_square[idx].mean() - mean[idx].mean() ** 2
        return (s.var(ddof=1) / n - var_x) / ((n - 1) * var_x)

    rng = np.random.default_rng(seed)
    full = estimate(np.arange(mean.size))
    boots = np.array([estimate(rng.integers(0, mean.size, mean.size)) for _ in range(n_boot)])
    low, high = np.percentile(boots, [2.5, 97.5])
    return float(full), float(low), float(high)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    x = check_array("x", x, ndim=1, low=0.0, low_open=True)
    y = check_array("y", y, shape=x.shape, low=0.0, low_open=True)
    if x.size < 2 or np.unique(x).size < 2:
        raise ParameterError("`x` needs at least two distinct values")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def band(samples, axis: int = 0):
    """Mean and 95% t-interval of replications (thin wrapper of :func:`mean_ci`).

    Returns the tuple ``(mean, low, high, se)``.
    """
    ci = mean_ci(samples, axis=axis)
    return ci.mean, ci.ci_low, ci.ci_high, ci.se
