"""One statistical procedure for every judged number of the book.

A record (:class:`qtheory.claims.Claim`) compares the companion's value with the paper's
printed value (a *claim*) or with an independently computed reference (an internal
*check*). This module decides its label, and it is the only place that does.

The procedure
-------------
Deterministic comparisons (no standard error on either side)
    agree when ``|ours - target| <= tolerance``; the tolerance is justified in the record's
    evidence (a printed digit, a solver's accuracy). A record with no standard error and no
    tolerance is refused when it is made.

Statistical comparisons (a standard error on at least one side)
    Every standard error carries its degrees of freedom (runs − 1, batches − 1). The
    difference :math:`D = \\text{ours} - \\text{target}` has the standard error
    :math:`s = \\sqrt{s_1^2 + s_2^2}` and, where both sides are estimated, the
    Welch–Satterthwaite degrees of freedom
    :math:`\\nu = s^4 / (s_1^4/\\nu_1 + s_2^4/\\nu_2)`; the statistic :math:`T = D/s` is
    compared with Student's t with :math:`\\nu` degrees of freedom (two-sided p-value).

    The records of one page form a *family*: their p-values (and those of the joint tests
    below) are adjusted by Holm's step-down procedure at the familywise level
    :data:`FAMILY_LEVEL`, so that the chance of a false "differs" anywhere on a page is at
    most that level, whatever the number of records. A rejected record *differs* (a check
    *fails*). A record that is not rejected *agrees* (a check *holds*) only when its 95 %
    interval of the difference lies within ``± margin``: the record's ``tolerance`` if it
    gives one, else :data:`RELATIVE_MARGIN` of the target's size (a record whose target is 0
    must state its tolerance, or it can never agree). Otherwise the data cannot tell agreement
    from a difference that matters, and the record is *not resolved*. A rejected joint test
    (below) is shown as a line of its own; it does not change the labels of its rows.

When the t test may judge run means
    Student's t is exact for normal run means. The run means of a simulation are only near
    normal: a short run of a small system is mostly a little below its mean and now and then far
    above it (a rare long excursion), and a right-skewed law makes the t statistic's *lower* tail
    heavy (a sample without the excursion has a low mean *and* a small spread), so a t test on a
    few skewed run means rejects a true value far more often than its level: eight exponential
    run means reject at nominal 1% about 5% of the time. No test of a mean holds its level over
    every law (Bahadur and Savage, 1956), so the book checks the law on the data it judges. Every
    estimate the book computes itself carries its run means (``ours_runs``, ``reference_runs``),
    and the t test judges them only when

    * there are at least :data:`MIN_RUNS` of them (with fewer, a sample cannot show its law's
      skew: ten exponential means look no more skewed than ten normal ones half of the time), and
    * D'Agostino's (1970) test does not find them skewed at level :data:`SKEW_LEVEL`;

    and the statistic is Hall's (1992) cubic transform of T for the skewness left in the run
    means (:func:`hall`: T's law is off from Student's by a term proportional to the skewness of
    the estimate; the transform removes it, and it is inverted for the interval). A record whose
    run means are too few is *not resolved*, never "differs" or "fails", and leaves the page's
    Holm family (it cannot be rejected).

    Run means that are enough but skewed are judged instead by Cantelli's inequality (the
    one-sided Chebyshev bound, :func:`cantelli_p`): for any law with a variance,
    :math:`P(\\bar X - \\mu \\ge k\\,\\sigma_{\\bar X}) \\le 1/(1 + k^2)`, so
    :math:`p = \\min(1, 2/(1 + t^2))` with the plain :math:`t = d/\\mathrm{se}`, and the 95%
    interval is the difference :math:`\\pm\\sqrt{39} \\approx 6.24` standard errors. Its p-value joins
    the page's family like any other. The bound needs no symmetry, only the standard error; with
    the standard error estimated from 30 skewed run means it held its level in the measurements
    of ``tests/test_level_on_skewed_runs.py`` (exponential, lognormal up to :math:`\\sigma = 1.5`,
    Pareto with shape 2.2, whose skewness is infinite) and fails only for laws as extreme as a
    lognormal with :math:`\\sigma = 2` (a run mean whose spread is dominated by one run in
    hundreds). It resolves what a large difference or a tight interval makes plain (a t of 100
    on skewed run means *differs*) and leaves the rest *not resolved*. No test on n run means
    can see a law whose mean rests on events rarer than about one run in n: none happened.

    The level on skewed null data (exponential, lognormal with :math:`\\sigma` 0.5 to 1.5, Pareto,
    5 to 50 runs; one quantity and sixty) is measured by ``tests/test_level_on_skewed_runs.py``
    against the nominal levels 5% and 1%: with 30 runs, the checks and the fallback, at most the
    nominal level where a plain t test on the same data reaches 1.2 to 2.3 times it; below 30 runs
    nothing is rejected. A side without run means (a paper's printed interval) is taken as stated.

Joint tests of a family of rows
    Records that share a ``family`` name (R-T1's Var(Q) over twelve settings, the policies
    of U-X-poisson) are also judged together: each :math:`T_i` is mapped to a standard
    normal score :math:`z_i = \\Phi^{-1}(F_{\\nu_i}(T_i))`, and two tests join the page's
    family: Stouffer's :math:`Z = \\sum z_i / \\sqrt{k}` (a difference of one sign in most
    rows) and :math:`\\sum z_i^2 \\sim \\chi^2_k` (more large deviations than chance allows).

Statements about many quantities at once
    A statement such as "the simulated laws are the product form (4)" is judged by one test of
    all its quantities (a *tested* record, :attr:`qtheory.claims.Claim.p_value`), whose p-value
    joins the page's Holm family like any record's. Quantities estimated from the same runs are
    correlated (the ``P(Q = q)`` of one run move together), so their t statistics cannot be
    combined as if independent; :func:`sign_flip_test` instead flips the sign of each run's
    whole vector of deviations, which keeps the correlation. It is exact for run means symmetric
    about the hypothesised values and wrong for skewed ones (flipping a skewed law's deviations
    makes another law), so :func:`symmetry_check` requires :data:`MIN_RUNS` runs per group
    (else the record is *not resolved*) and no evidence of skew in any quantity or in the runs'
    summary scores; skewed run means are judged instead by Cantelli's bound for each quantity,
    Bonferroni over them (:func:`cantelli_many`: valid whatever their correlation, and
    conservative). :func:`independent_test` combines t statistics of independent estimates
    (separate seeds), with the same fallback. Either reports whether the data resolve the margins
    (every quantity's 95% interval of the difference within its margin): a record that is not
    rejected agrees only then.

Qualitative statements carry the outcome of the notebook's own test (``holds``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from scipy import special as _special
from scipy import stats as _st

from .errors import ParameterError

__all__ = ["FAMILY_LEVEL", "INTERVAL_LEVEL", "RELATIVE_MARGIN", "MIN_RUNS", "SKEW_LEVEL", "RunCheck", "check_runs",
           "hall", "cantelli", "cantelli_p", "cantelli_many", "CANTELLI_K", "skewness_test", "symmetry_check", "normal_score", "Comparison", "Verdict", "JointTest",
           "Judgement", "welch", "compare", "holm", "holm_thresholds", "joint_tests", "judge", "judge_one", "CLAIM_LABELS",
           "CHECK_LABELS", "p_text", "p_equation", "MultipleTest", "sign_flip_test", "independent_test"]

#: familywise level of a page: the chance of any false "differs" (or "fails") among its records
FAMILY_LEVEL = 0.01
#: level of the interval that must lie within the margin for "agrees"
INTERVAL_LEVEL = 0.95
#: the margin of a statistical record that states no tolerance, relative to its target's size
RELATIVE_MARGIN = 0.05
#: the fewest run means a t test (or the sign-flip test) may judge: with 30, the checked and
#: corrected test holds the nominal levels 5% and 1% on exponential and lognormal run means
#: (tests/test_level_on_skewed_runs.py); with 20 it does not at 1% (lognormal, 1.4 to 2 times)
MIN_RUNS = 30
#: level of D'Agostino's test of skewness that run means must pass to be judged by a t test
SKEW_LEVEL = 0.05
#: half-width, in standard errors, of the 95% interval by Cantelli's inequality (skewed run means):
#: each tail at most 1/(1 + k²) = 0.025
CANTELLI_K = math.sqrt(2.0 / (1.0 - 0.95) - 1.0)

#: labels of a paper claim and of an internal check
CLAIM_LABELS = ("agrees", "differs", "not resolved")
CHECK_LABELS = ("holds", "fails", "not resolved")


def welch(se_a: float | None, df_a: float | None, se_b: float | None, df_b: float | None) -> tuple[float, float]:
    """Standard error and Welch–Satterthwaite degrees of freedom of the difference of two
    independent estimates; a side without a standard error (or with 0) is exact.

    Returns ``(se, df)``; ``df`` is ``inf`` when both sides are exact. The degrees of freedom are
    computed from the standard errors divided by the larger one, so that no fourth power
    underflows or overflows (``se = 1e-82`` has ``se**4 = 0`` in double precision).
    """
    parts = [(se, df) for se, df in ((se_a, df_a), (se_b, df_b)) if se]
    if not parts:
        return 0.0, math.inf
    for se, df in parts:
        if df is None or not df >= 1:
            raise ParameterError(f"a standard error needs its degrees of freedom >= 1 (got se = {se!r}, df = {df!r})")
    scale = max(se for se, _ in parts)
    shares = [((se / scale) ** 2, df) for se, df in parts]
    total = sum(w for w, _ in shares)
    denominator = sum(w * w / df for w, df in shares)
    return scale * math.sqrt(total), (total * total / denominator if denominator > 0 else math.inf)


# -- the assumptions of a t test on run means ---------------------------------------------------------------------

@dataclass(frozen=True)
class RunCheck:
    """Whether a t test may judge the mean of these run means (see the module doc).

    Attributes
    ----------
    runs : int
        The number of run means.
    skewness : float
        Their sample skewness :math:`\\hat\\gamma = m_3 / s^3` (third central moment over the cube
        of the standard deviation with ``runs - 1`` in its denominator), the input of Hall's
        correction.
    skew_p : float
        The two-sided p-value of D'Agostino's test of zero skewness (nan below 8 runs).
    why : str
        Why the t test cannot judge them ("" when it can).
    """

    runs: int
    skewness: float
    skew_p: float
    why: str = ""

    @property
    def holds(self) -> bool:
        return not self.why

    @property
    def too_few(self) -> bool:
        """Fewer than :data:`MIN_RUNS` run means: nothing may judge them."""
        return self.runs < MIN_RUNS

    @property
    def skewed(self) -> bool:
        """Enough run means, but skewed: Cantelli's inequality judges them instead of the t test."""
        return bool(self.why) and not self.too_few


def check_runs(values, *, what: str = "run means", level: float = SKEW_LEVEL) -> RunCheck:
    """The :class:`RunCheck` of one estimate's independent run (or batch) means `values`: at least
    :data:`MIN_RUNS` of them, and D'Agostino's test of skewness not rejected at `level`
    (:data:`SKEW_LEVEL`; a caller checking k estimates of one record passes ``SKEW_LEVEL / k``,
    Bonferroni, so that correct symmetric runs pass all k checks with probability at least
    ``1 - SKEW_LEVEL``)."""
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`level` must lie in (0, 1) (got {level!r})")
    x = np.asarray(values, dtype=float).ravel()
    n = x.size
    if n < 2 or not np.all(np.isfinite(x)):
        raise ParameterError(f"{what} must be at least 2 finite numbers (got {n} values)")
    s = float(x.std(ddof=1))
    g = float(np.mean((x - x.mean()) ** 3) / s ** 3) if s > 0 else 0.0
    p = float(skewness_test(x)) if n >= 8 and s > 0 else math.nan
    if n < MIN_RUNS:
        why = (f"{n} {what}: a t test needs at least {MIN_RUNS}, fewer cannot show whether their law is "
               f"skewed (a skewed law makes the t statistic's tail heavy on one side)")
    elif p < level:
        # enough digits that the p-value reads below the level (0.0497, not 0.05 < 0.05)
        shown = f"p = {p:.3g}" if p >= 0.01 and float(f"{p:.2f}") >= level else p_equation(p)
        why = (f"the {n} {what} are skewed (sample skewness {g:.2f}, D'Agostino's test ${shown} < {level:.3g}$): "
               f"a t test on them does not hold its level")
    else:
        why = ""
    return RunCheck(n, g, p, why)


def skewness_test(x, axis: int = 0) -> np.ndarray:
    """Two-sided p-values of D'Agostino's (1970) test of zero skewness along `axis` (at least 8
    values; the normal approximation of the transformed sample skewness, as
    :func:`scipy.stats.skewtest` computes it, written out here because the book calls it for
    every record and scipy's wrapper costs a millisecond a call)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[axis]
    if n < 8:
        raise ParameterError(f"D'Agostino's skewness test needs at least 8 values (got {n})")
    d = x - x.mean(axis=axis, keepdims=True)
    m2 = (d ** 2).mean(axis=axis)
    m3 = (d ** 3).mean(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        b2 = np.where(m2 > 0, m3 / m2 ** 1.5, 0.0)
    y = b2 * math.sqrt((n + 1) * (n + 3) / (6.0 * (n - 2)))
    beta2 = 3.0 * (n * n + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2.0) * (n + 5) * (n + 7) * (n + 9))
    w2 = -1.0 + math.sqrt(2.0 * (beta2 - 1.0))
    delta = 1.0 / math.sqrt(0.5 * math.log(w2))
    alpha = math.sqrt(2.0 / (w2 - 1.0))
    z = delta * np.arcsinh(y / alpha)
    return _special.erfc(np.abs(z) / math.sqrt(2.0))


def hall(t: float, kappa: float) -> float:
    """Hall's (1992) cubic transformation of a t statistic whose estimate has skewness `kappa`
    (the skewness of a mean of n runs is :math:`\\gamma/\\sqrt n`):
    :math:`T + \\kappa T^2/3 + \\kappa^2 T^3/27 + \\kappa/6`, increasing in T; Student's t
    approximates its law to second order, where T's own law is off by a term proportional to
    :math:`\\kappa`. With ``kappa = 0`` it is T."""
    if kappa == 0.0:
        return t
    return t + kappa * t * t / 3.0 + kappa * kappa * t ** 3 / 27.0 + kappa / 6.0


def cantelli_p(t: float, sides: int = 2) -> float:
    """A p-value from Cantelli's inequality (the one-sided Chebyshev bound) for a statistic
    :math:`t = d/\\mathrm{se}`: :math:`P(\\bar X - \\mu \\ge t\\,\\sigma) \\le 1/(1 + t^2)` for
    :math:`t \\ge 0` and any law with a variance. Two-sided (``sides=2``): :math:`\\min(1, 2/(1 + t^2))`;
    one-sided (``sides=1``, against ``t`` large): :math:`1/(1 + t^2)` for :math:`t > 0`, else 1."""
    if sides not in (1, 2):
        raise ParameterError(f"`sides` must be 1 or 2 (got {sides!r})")
    if sides == 1:
        return 1.0 / (1.0 + t * t) if t > 0 else 1.0
    return min(1.0, 2.0 / (1.0 + t * t))


def _hall_inverse(h: float, kappa: float) -> float:
    r"""The t statistic whose :func:`hall` transform is `h`.

    :func:`hall` is :math:`(3/\kappa)\,((1 + \kappa T/3)^3 - 1)/3 + \kappa/6`, so
    :math:`T = (3/\kappa)(c - 1)` with :math:`c = \sqrt[3]{1 + \kappa (h - \kappa/6)}`; written as
    :math:`3 (h - \kappa/6) / (c^2 + c + 1)` (since :math:`c^3 - 1 = (c - 1)(c^2 + c + 1)`), which
    has no cancellation: for :math:`|\kappa|` near round-off (nearly symmetric run means,
    :math:`\kappa \approx 10^{-17}`) the first form gave 0 and an interval of width 0."""
    y = h - kappa / 6.0
    c = float(np.cbrt(1.0 + kappa * y))
    return 3.0 * y / (c * c + c + 1.0)


@dataclass(frozen=True)
class Comparison:
    """The statistics of one statistical record.

    Attributes
    ----------
    difference, se, df : float
        ``ours - target``, its standard error and degrees of freedom.
    t, p : float
        The test statistic (Hall's transform of ``difference / se`` for the skewness of the run
        means the record carries, else ``difference / se``) and its two-sided Student-t p-value.
    low, high : float
        The :data:`INTERVAL_LEVEL` interval of the difference (the t-interval, corrected by the
        same transform).
    margin : float
        The difference that matters (the record's tolerance, or the relative default).
    kappa : float
        The estimated skewness of ``difference`` (0 without run means).
    checks : tuple of RunCheck
        The checks of the run means of each estimated side that carries them.
    method : str
        ``"t"`` (Student's t with Hall's correction) or ``"Cantelli"`` (skewed run means: ``t`` is
        ``difference / se``, ``p`` Cantelli's bound :func:`cantelli_p`, the interval
        ``difference`` :math:`\\pm` :data:`CANTELLI_K` ``se``).
    """

    difference: float
    se: float
    df: float
    t: float
    p: float
    low: float
    high: float
    margin: float
    kappa: float = 0.0
    checks: tuple = ()
    method: str = "t"

    @property
    def within_margin(self) -> bool:
        return -self.margin <= self.low and self.high <= self.margin

    @property
    def why_not(self) -> str:
        """Why nothing can judge the record: too few run means ("" when there are enough)."""
        return "; ".join(c.why for c in self.checks if c.why and c.too_few)

    @property
    def why_cantelli(self) -> str:
        """Why Cantelli's inequality judges the record instead of the t test ("" when it does not)."""
        return "; ".join(c.why for c in self.checks if c.skewed) if self.method == "Cantelli" else ""

    @property
    def testable(self) -> bool:
        return not self.why_not


def _two_sided_p(t: float, df: float) -> float:
    """Two-sided Student-t p-value of `t` (normal for infinite `df`; scipy's special functions,
    not the distribution objects, whose call costs a tenth of a millisecond)."""
    if math.isinf(df):
        return float(math.erfc(abs(t) / math.sqrt(2.0)))
    return float(2.0 * _special.stdtr(df, -abs(t)))


def _t_quantile(q: float, df: float) -> float:
    if math.isinf(df):
        return float(_special.ndtri(q))
    return float(_special.stdtrit(df, q))


def _side_checks(record) -> list[tuple[int, float, RunCheck]]:
    """``(sign, se, check)`` of each estimated side of `record` that carries its run means (ours:
    +1, the reference: -1, as they enter ``ours - target``)."""
    sides = [(sign, side) for sign, side in ((1, "ours"), (-1, "reference"))
             if getattr(record, f"{side}_runs", None) is not None and getattr(record, f"{side}_se", None)]
    # both sides estimated: each checked at SKEW_LEVEL / 2 (Bonferroni over the record's samples)
    level = SKEW_LEVEL / max(len(sides), 1)
    return [(sign, float(getattr(record, f"{side}_se")),
             check_runs(getattr(record, f"{side}_runs"), what=f"run means of {side}", level=level))
            for sign, side in sides]


def compare(record, *, fallback: bool = True) -> Comparison | None:
    """The :class:`Comparison` of a statistical claim or check; None for any other record.

    A side that carries its run means (``ours_runs``, ``reference_runs``) is checked
    (:func:`check_runs`) and its skewness corrects the statistic (:func:`hall`, with the skewness
    of the difference :math:`\\kappa = \\sum_i \\pm (\\hat\\gamma_i/\\sqrt{n_i})(s_i/s)^3` over the
    sides); a side without them (a paper's printed interval) is taken as stated. When a side's
    run means are enough but skewed, Cantelli's inequality judges the record instead
    (``method="Cantelli"``, see the module doc); ``fallback=False`` keeps the t test whatever the
    checks say (for a caller that checks the run means itself, :func:`qtheory.direction.direction_test`)."""
    if record.category not in ("claim", "check") or record.holds is not None:
        return None
    target_se, target_df = record.target_se, record.target_df
    if not target_se and not record.ours_se:
        return None
    se, df = welch(record.ours_se, record.ours_df, target_se, target_df)
    d = record.ours - record.target
    sides = _side_checks(record)
    kappa = sum(sign * c.skewness / math.sqrt(c.runs) * (s / se) ** 3 for sign, s, c in sides)
    checks = tuple(c for _, _, c in sides)
    if fallback and any(c.skewed for c in checks) and not any(c.too_few for c in checks):
        return cantelli(Comparison(d, se, df, d / se, 1.0, d, d, _margin(record), kappa, checks))
    t = hall(d / se, kappa)
    p = _two_sided_p(t, df)
    q = _t_quantile(0.5 + INTERVAL_LEVEL / 2, df)
    # the true difference delta has (d - delta) / se = T with hall(T) within +-q
    low, high = d - se * _hall_inverse(q, kappa), d - se * _hall_inverse(-q, kappa)
    return Comparison(d, se, df, t, p, low, high, _margin(record), kappa, checks)


def cantelli(comparison: Comparison) -> Comparison:
    """`comparison` judged by Cantelli's inequality instead of the t test: ``t`` the plain
    ``difference / se``, ``p`` :func:`cantelli_p`, the interval ``difference`` :math:`\\pm`
    :data:`CANTELLI_K` ``se`` (see the module doc)."""
    d, se = comparison.difference, comparison.se
    if not se > 0:
        raise ParameterError(f"Cantelli's inequality needs a positive standard error (got {se!r})")
    t = d / se
    return Comparison(d, se, comparison.df, t, cantelli_p(t), d - CANTELLI_K * se, d + CANTELLI_K * se,
                      comparison.margin, comparison.kappa, comparison.checks, "Cantelli")


def _margin(record) -> float:
    if record.tolerance is not None:
        return float(record.tolerance)
    return RELATIVE_MARGIN * abs(record.target)


def holm_thresholds(pvalues: Sequence[float], level: float = FAMILY_LEVEL) -> list[float]:
    """The threshold Holm's procedure compares each p-value with: ``level / (m - rank)``, rank 0
    for the smallest p-value."""
    if any(p != p for p in pvalues):
        raise ParameterError(f"p-values must not be nan (got {list(pvalues)!r})")
    m = len(pvalues)
    thresholds = [0.0] * m
    for rank, i in enumerate(sorted(range(m), key=lambda i: pvalues[i])):
        thresholds[i] = level / (m - rank)
    return thresholds


def holm(pvalues: Sequence[float], level: float = FAMILY_LEVEL) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at familywise `level`."""
    return _step_down(pvalues, holm_thresholds(pvalues, level))


def _step_down(pvalues: Sequence[float], thresholds: Sequence[float]) -> list[bool]:
    """Reject in order of increasing p-value while each is at most its threshold."""
    rejected = [False] * len(pvalues)
    for i in sorted(range(len(pvalues)), key=lambda i: pvalues[i]):
        if pvalues[i] > thresholds[i]:
            break
        rejected[i] = True
    return rejected


@dataclass(frozen=True)
class JointTest:
    """A joint test of the rows of one family (see the module doc).

    Attributes
    ----------
    family : str
        The family's name (shared by its records).
    kind : str
        ``"Stouffer"`` or ``"chi-square"``.
    statistic, p : float
        Stouffer's Z (or the sum of squared scores) and its p-value.
    size : int
        The number of rows.
    rejected : bool
        Whether Holm's procedure over the page rejects it.
    """

    family: str
    kind: str
    statistic: float
    p: float
    size: int
    rejected: bool = False

    def describe(self) -> str:
        if self.kind == "Stouffer":
            return f"Stouffer $Z = {self.statistic:.2f}$ over {self.size} rows, ${p_equation(self.p)}$"
        return f"$\\sum z_i^2 = {self.statistic:.1f}$ against $\\chi^2_{{{self.size}}}$, ${p_equation(self.p)}$"


def p_text(p: float) -> str:
    """A p-value's digits as the pages print them: two decimals, or TeX scientific notation below
    0.01 (:func:`p_equation` writes the whole relation, with a bound for round-off tails)."""
    if p >= 0.01:
        return f"{p:.2f}"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def p_equation(p: float) -> str:
    """``p = 0.23``, ``p = 1.1 \\times 10^{-3}`` (TeX), or ``p < 10^{-15}`` below 10⁻¹⁵: double
    precision cannot tell such tails apart (the digits of p = 1.1e-168 would be round-off)."""
    return "p < 10^{-15}" if p < 1e-15 else f"p = {p_text(p)}"


def normal_score(t: float, df: float) -> float:
    """The standard normal score of a t statistic `t` with `df` degrees of freedom (same tail probability)."""
    if math.isinf(df):
        return t
    # from the upper tail of |T| (t.sf(T) rounds to 1 for T << 0, and isf(1) = -inf), with T's sign;
    # capped where the tail underflows (|T| about 1e5 at 99 degrees of freedom), far beyond any threshold
    z = -float(_special.ndtri(_special.stdtr(df, -abs(t))))
    return math.copysign(min(z, _Z_MAX), t)


#: the largest finite normal score (the tail of the smallest positive double)
_Z_MAX = float(_st.norm.isf(5e-324))


def joint_tests(records: Iterable, comparisons: dict[int, Comparison] | None = None) -> list[JointTest]:
    """Stouffer and chi-square tests of each family (records sharing a ``family``) of two or more
    statistical records whose run means pass their checks (unadjusted; :func:`judge` adds them to
    the page's Holm family)."""
    records = list(records)
    comparisons = comparisons if comparisons is not None else {id(r): compare(r) for r in records}
    families: dict[str, list[Comparison]] = {}
    for r in records:
        c = comparisons.get(id(r))
        if r.family and c is not None and c.se > 0 and c.testable:
            families.setdefault(r.family, []).append(c)
    out = []
    for name, group in families.items():
        if len(group) < 2:
            continue
        z = [normal_score(c.t, c.df) for c in group]
        stouffer = sum(z) / math.sqrt(len(z))
        chi2 = sum(x * x for x in z)
        out.append(JointTest(name, "Stouffer", stouffer, float(2.0 * _st.norm.sf(abs(stouffer))), len(z)))
        out.append(JointTest(name, "chi-square", chi2, float(_st.chi2.sf(chi2, len(z))), len(z)))
    return out


@dataclass(frozen=True)
class Verdict:
    """The label of one record and what decided it.

    Attributes
    ----------
    label : str
        One of :data:`CLAIM_LABELS` (claims), :data:`CHECK_LABELS` (checks), or the record's
        category (reconstruction, erratum).
    comparison : Comparison or None
        The statistics of a statistical record.
    rejected : bool
        Whether the family's Holm procedure rejected it.
    threshold : float or None
        The Holm threshold its p-value was compared with.
    family_size : int
        The number of hypotheses of the page (records and joint tests).
    reason : str
        One sentence: why this label.
    """

    label: str
    comparison: Comparison | None = None
    rejected: bool = False
    threshold: float | None = None
    family_size: int = 0
    reason: str = ""

    @property
    def passes(self) -> bool | None:
        """True for agrees / holds, False for differs / fails, None otherwise."""
        if self.label in ("agrees", "holds"):
            return True
        if self.label in ("differs", "fails"):
            return False
        return None


@dataclass(frozen=True)
class Judgement:
    """The verdicts of a page's records (in their order) and its joint tests."""

    verdicts: tuple[Verdict, ...]
    joint: tuple[JointTest, ...]
    level: float
    size: int

    def summary(self) -> str:
        """The procedure as a sentence for the page."""
        if not self.size:
            return ""
        family = ("its only statistical hypothesis is tested at level "
                  f"{self.level:g}" if self.size == 1 else
                  f"its {self.size} statistical hypotheses are tested as one family (Holm's procedure at "
                  f"familywise level {self.level:g})")
        return (f"On this page {family}, by Student's t with Welch's degrees of freedom, corrected for "
                f"the skewness of the run means; a record needs at least {MIN_RUNS} runs, else it is "
                f"*not resolved*, and run means skewed at level {SKEW_LEVEL:g} are judged by Cantelli's "
                f"inequality instead, which holds without symmetry. Agreement needs "
                f"the 95% interval of the difference within the stated margin ({RELATIVE_MARGIN:.0%} "
                f"of the value when none is stated), else *not resolved*.")


def _words(category: str, outcome: str) -> str:
    pairs = {"agree": ("agrees", "holds"), "differ": ("differs", "fails")}
    if outcome in pairs:
        return pairs[outcome][0 if category == "claim" else 1]
    return outcome


#: why a record judged in the page's family got its label: rejected, agreeing, not resolved
_REASONS = ("rejected by Holm's procedure at the page's familywise level",
            "not rejected, and the 95% interval lies within the margin",
            "not rejected, but the 95% interval reaches beyond the margin")
_JOINT_REASONS = ("the joint test is rejected by Holm's procedure at the page's familywise level",
                  "the joint test is not rejected, and every quantity's 95% interval lies within its margin",
                  "the joint test is not rejected, but some quantity's 95% interval reaches beyond its margin")


def _holm_verdict(category: str, comparison, rejected: bool, resolved: bool, threshold: float, size: int,
                  reasons: tuple[str, str, str]) -> Verdict:
    """The verdict of a record in the page's Holm family: differs if rejected, agrees if resolved,
    else not resolved."""
    if rejected:
        return Verdict(_words(category, "differ"), comparison, True, threshold, size, reasons[0])
    if resolved:
        return Verdict(_words(category, "agree"), comparison, False, threshold, size, reasons[1])
    return Verdict("not resolved", comparison, False, threshold, size, reasons[2])


def judge(records: Sequence, level: float = FAMILY_LEVEL) -> Judgement:
    """Judge the records of one page as one family (see the module doc).

    Returns a :class:`Judgement` whose verdicts follow `records`' order.
    """
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`level` must lie in (0, 1) (got {level!r})")
    records = list(records)
    comparisons = {id(r): compare(r) for r in records}
    refused = {id(r): _why_not(r, comparisons[id(r)]) for r in records}
    tested = [r for r in records if not refused[id(r)] and (
              getattr(r, "p_value", None) is not None and r.category in ("claim", "check")
              or comparisons[id(r)] is not None and comparisons[id(r)].se > 0)]
    joint = joint_tests(records, comparisons)
    pvalues = [r.p_value if comparisons[id(r)] is None else comparisons[id(r)].p for r in tested] + [j.p for j in joint]
    thresholds = holm_thresholds(pvalues, level)
    rejected = _step_down(pvalues, thresholds)
    m = len(pvalues)
    position = {id(r): k for k, r in enumerate(tested)}
    joint = tuple(JointTest(j.family, j.kind, j.statistic, j.p, j.size, rejected[len(tested) + k])
                  for k, j in enumerate(joint))
    verdicts = []
    for r in records:
        c = comparisons[id(r)]
        if r.category not in ("claim", "check"):
            verdicts.append(Verdict(r.verdict or r.category, reason="see the record's evidence"))
        elif refused[id(r)]:
            verdicts.append(Verdict("not resolved", c, False, None, m, refused[id(r)]))
        elif getattr(r, "p_value", None) is not None:
            k = position[id(r)]
            verdicts.append(_holm_verdict(r.category, None, rejected[k], bool(r.resolved), thresholds[k], m,
                                          _JOINT_REASONS))
        elif r.holds is not None:
            outcome = "agree" if r.holds else "differ"
            verdicts.append(Verdict(_words(r.category, outcome), reason="the notebook's test of the statement"))
        elif c is None or c.se == 0:
            d = r.ours - r.target
            ok = abs(d) <= (r.tolerance or 0.0)
            verdicts.append(Verdict(_words(r.category, "agree" if ok else "differ"), comparison=c,
                                    reason=f"|difference| {'≤' if ok else '>'} tolerance"))
        else:
            k = position[id(r)]
            verdicts.append(_holm_verdict(r.category, c, rejected[k], c.within_margin, thresholds[k], m, _REASONS))
    return Judgement(tuple(verdicts), joint, level, m)


def _why_not(record, comparison: Comparison | None) -> str:
    """Why a claim or check cannot be judged by its test on its data ("" when it can): its run
    means fail their checks (:func:`check_runs`), or its test of many quantities says so."""
    if record.category not in ("claim", "check"):
        return ""
    if getattr(record, "p_value", None) is not None:
        return getattr(record, "assumption_failure", "") or ""
    return comparison.why_not if comparison is not None else ""


def judge_one(record, level: float = FAMILY_LEVEL) -> Verdict:
    """The verdict of a record judged alone (a family of one)."""
    return judge([record], level).verdicts[0]


# -- tests of many quantities at once (tested records) ------------------------------------------------------------

@dataclass(frozen=True)
class MultipleTest:
    """The outcome of one test of many quantities against their hypothesised values.

    Attributes
    ----------
    method : str
        ``"sign-flip"`` (:func:`sign_flip_test`), ``"independent"`` (:func:`independent_test`), or
        ``"Cantelli"`` when either found the run means skewed (:func:`cantelli_many`: Cantelli's
        bound for each quantity, Bonferroni over them; :attr:`skewed` says why).
    statistic, p : float
        The statistic (sum of squared t statistics, or of normal scores) and the test's p-value.
    largest : float
        The sign-flip test's largest :math:`|t|` (its second statistic).
    size : int
        The number of quantities.
    resolved : bool
        Whether every quantity's 95% t-interval of the difference lies within its margin.
    widest : float
        The largest ratio of a 95% interval's reach (largest absolute end) to its margin
        (at most 1 when resolved).
    patterns : int
        Sign patterns drawn (0: every pattern enumerated; the independent test: 0).
    df : float
        The degrees of freedom of the t statistics (the smallest, when they differ).
    why_not : str
        Why the test cannot judge these data ("" when it can): too few runs.
    skewed : str
        Why Cantelli's bound judged the quantities instead ("" when it did not): run means whose
        skew breaks the symmetry the sign-flip test rests on, or the t tests' level.
    """

    method: str
    statistic: float
    p: float
    size: int
    resolved: bool
    widest: float
    patterns: int = 0
    df: float = math.inf
    largest: float = math.nan
    why_not: str = ""
    skewed: str = ""

    def describe(self, margins: bool = True) -> str:
        """The test as a sentence (plain text and ``$...$`` math) for the record's evidence; with
        `margins` False, without the sentence on the margins (a test used for its p-value alone)."""
        df = f"{self.df:.0f}" if math.isfinite(self.df) else "infinitely many"
        if self.method == "Cantelli":
            head = (f"joint test of {self.size} quantities by Cantelli's inequality, Bonferroni over them "
                    f"(the $t$ test's level fails on skewed run means; Cantelli's bound needs no symmetry): "
                    f"largest $|t| = {self.largest:.2f}$, ${p_equation(self.p)}$; {self.skewed}")
        elif self.method == "sign-flip":
            how = ("every sign pattern enumerated" if self.patterns == 0
                   else f"{self.patterns:,} random sign patterns")
            head = (f"sign-flip test of {self.size} quantities ($t$ with {df} degrees of freedom; each run's "
                    f"deviations flipped together, which keeps their correlation; {how}) on the smaller of the "
                    f"p-values of the largest $|t|$ and of $\\sum t^2$: largest $|t| = {self.largest:.2f}$, "
                    f"$\\sum t^2 = {self.statistic:.1f}$, ${p_equation(self.p)}$")
        else:
            head = (f"joint test of {self.size} independent estimates (normal scores of their $t$ statistics, "
                    f"$\\sum z^2 = {self.statistic:.1f}$ against $\\chi^2_{{{self.size}}}$): ${p_equation(self.p)}$")
        if self.why_not:
            head += f"; not judged: {self.why_not}"
        if not margins:
            return head
        reach = (f"every quantity's 95% interval within its margin (widest at {self.widest:.2f} of it)" if self.resolved
                 else f"some quantity's 95% interval reaches {self.widest:.2f} times its margin")
        return f"{head}; {reach}"

    def record(self, **fields):
        """A tested :class:`qtheory.claims.Claim` carrying this test (``evidence`` is prefixed by
        :meth:`describe`)."""
        from .claims import Claim

        extra = fields.pop("evidence", "")
        text = self.describe()
        evidence = text[:1].upper() + text[1:] + "." + (f" {extra.strip()}" if extra else "")
        return Claim(p_value=float(self.p), resolved=bool(self.resolved), evidence=evidence,
                     assumption_failure=self.why_not, **fields)


def _margins(exact: np.ndarray, margins) -> np.ndarray:
    if margins is None:
        return RELATIVE_MARGIN * np.abs(exact)
    out = np.broadcast_to(np.asarray(margins, dtype=float), exact.shape).astype(float)
    if not np.all(out >= 0):
        raise ParameterError(f"`margins` must be >= 0 (got {margins!r})")
    return out


def cantelli_many(difference, se, margins, df, skewed: str) -> MultipleTest:
    """Quantities whose run means are skewed, judged by Cantelli's inequality (:func:`cantelli_p`)
    for each ``t = difference / se``, Bonferroni over them: ``p = min(1, k min_i p_i)``; each
    interval is ``difference`` :math:`\\pm` :data:`CANTELLI_K` ``se`` (valid whatever the
    quantities' correlation). `skewed` says why (a :class:`MultipleTest`'s ``skewed``)."""
    difference, se, margins, df = (np.asarray(x, dtype=float).ravel() for x in (difference, se, margins, df))
    live = se > 0
    t = np.where(live, difference / np.where(live, se, 1.0), 0.0)
    if np.any(~live & (difference != 0)):
        p = 0.0                                 # a quantity with no spread off its value: exact
    else:
        p = min(1.0, int(live.sum()) * min((cantelli_p(float(x)) for x in t[live]), default=1.0))
    reach = np.abs(difference) + CANTELLI_K * se
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(margins > 0, reach / np.where(margins > 0, margins, 1.0), np.where(reach > 0, np.inf, 0.0))
    widest = float(ratio.max()) if ratio.size else 0.0
    return MultipleTest("Cantelli", float(np.sum(t * t)), float(p), int(difference.size), widest <= 1.0, widest,
                        0, float(df.min()) if df.size else math.inf, float(np.abs(t).max()) if t.size else 0.0,
                        "", skewed)


def _reach(diff: np.ndarray, se: np.ndarray, df: np.ndarray, margin: np.ndarray) -> float:
    half = _st.t.ppf(0.5 + INTERVAL_LEVEL / 2, df) * se
    reach = np.abs(diff) + half
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(margin > 0, reach / np.where(margin > 0, margin, 1.0), np.where(reach > 0, np.inf, 0.0))
    return float(ratio.max()) if ratio.size else 0.0


#: runs of a sign-flip test up to which every sign pattern is enumerated (2**14 patterns)
EXACT_SIGN_RUNS = 14


def sign_flip_test(groups, exact, *, seed: int, margins=None, patterns: int = 9999) -> MultipleTest:
    """Test that the mean of each quantity equals its hypothesised value, all at once.

    Parameters
    ----------
    groups : sequence of arrays (runs x quantities)
        Per-run estimates; the runs of one group are independent of each other and of the
        other groups' runs, the quantities of one run may be correlated in any way.
    exact : sequence of arrays (quantities)
        The hypothesised values, one array per group.
    seed : int
        Seed of the random sign patterns (through :func:`qtheory.runtime.child_seed`).
    margins : sequence of arrays, optional
        The difference that matters per quantity (default :data:`RELATIVE_MARGIN` of the value).
    patterns : int
        Random sign patterns when there are more than :data:`EXACT_SIGN_RUNS` runs in all.

    Two statistics of the t statistics (mean deviation over its standard error, ``runs - 1``
    degrees of freedom): the largest :math:`|t|` (power against one quantity off) and
    :math:`\\sum t^2` (against many a little off). Under the hypothesis each run's vector of
    deviations is symmetric about 0 (the means of long runs are near normal), so flipping the
    sign of a whole run leaves the law unchanged. Each pattern gets the smaller of its two
    statistics' p-values over all patterns; the test's p-value is the share of patterns whose
    smaller p-value is at most the observed one (min-p, exact over every pattern, or
    ``(1 + count) / (1 + patterns)`` over random ones: valid at any level).
    """
    from .runtime import child_seed

    groups = [np.atleast_2d(np.asarray(g, dtype=float)) for g in groups]
    exact = [np.asarray(e, dtype=float).ravel() for e in exact]
    if not groups or len(groups) != len(exact):
        raise ParameterError(f"`groups` and `exact` must be non-empty and of equal length (got {len(groups)} "
                             f"and {len(exact)})")
    devs, marg = [], []
    for i, (g, e) in enumerate(zip(groups, exact)):
        if g.shape[1] != e.size or g.shape[0] < 2:
            raise ParameterError(f"`groups[{i}]` must be runs (>= 2) x {e.size} quantities (got shape {g.shape})")
        if not np.all(np.isfinite(g)) or not np.all(np.isfinite(e)):
            raise ParameterError(f"`groups[{i}]` and `exact[{i}]` must be finite")
        devs.append(g - e)
        marg.append(_margins(e, None if margins is None else margins[i]))
    patterns = int(patterns)
    if patterns < 99:
        raise ParameterError(f"`patterns` must be >= 99 (got {patterns!r})")
    n_runs = sum(d.shape[0] for d in devs)
    enumerate_all = n_runs <= EXACT_SIGN_RUNS
    if enumerate_all:
        codes = np.arange(2 ** n_runs)
        signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(n_runs)) & 1)
    else:
        rng = np.random.default_rng(child_seed(seed, "sign flip"))
        signs = np.vstack([np.ones(n_runs), rng.choice((-1.0, 1.0), size=(patterns, n_runs))])
    total = np.zeros(signs.shape[0])
    largest = np.zeros(signs.shape[0])
    start = 0
    diffs, ses, dfs = [], [], []
    for d in devs:
        n = d.shape[0]
        s = signs[:, start:start + n]
        start += n
        square = (d ** 2).sum(axis=0)  # unchanged by flipping signs
        mean = s @ d / n
        var = np.maximum(square - n * mean ** 2, 0.0) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t2 = np.where(var > 0, mean ** 2 / (var / n), np.where(mean == 0, 0.0, np.inf))
        total += t2.sum(axis=1)
        largest = np.maximum(largest, t2.max(axis=1))
        diffs.append(d.mean(axis=0))
        ses.append(d.std(axis=0, ddof=1) / math.sqrt(n))
        dfs.append(np.full(d.shape[1], n - 1.0))
    # each pattern's p-values of the two statistics over all patterns, their minimum, and the
    # share of patterns whose minimum is at most the observed one (min-p, calibrated on the patterns)
    p_sum, p_max = _upper_shares(total), _upper_shares(largest)
    smaller = np.minimum(p_sum, p_max)
    count = int(np.sum(smaller <= smaller[0] * (1 + 1e-12)))
    p = count / total.size if enumerate_all else count / (patterns + 1)
    few, skew = _symmetry(groups)
    if skew and not few:
        return cantelli_many(np.concatenate(diffs), np.concatenate(ses), np.concatenate(marg), np.concatenate(dfs),
                             skew)
    widest = _reach(np.concatenate(diffs), np.concatenate(ses), np.concatenate(dfs), np.concatenate(marg))
    return MultipleTest("sign-flip", float(total[0]), float(min(p, 1.0)), int(sum(e.size for e in exact)),
                        widest <= 1.0, widest, 0 if enumerate_all else patterns, float(min(np.concatenate(dfs))),
                        float(math.sqrt(largest[0])), few)


def symmetry_check(groups) -> str:
    """Why the sign-flip test cannot judge `groups` (runs x quantities arrays; "" when it can):
    too few runs (nothing judges them) or skewed run means (:func:`sign_flip_test` then falls back
    on Cantelli's bound, :func:`cantelli_many`)."""
    few, skew = _symmetry(groups)
    return few or skew


def _symmetry(groups) -> tuple[str, str]:
    """``(too few runs, skewed run means)``: the two reasons :func:`symmetry_check` gives, apart.

    Flipping a run's deviations leaves their law unchanged only when that law is symmetric, so
    each group needs at least :data:`MIN_RUNS` runs and no evidence of skew: D'Agostino's test of
    each quantity's run means (Bonferroni over all quantities, level :data:`SKEW_LEVEL` in all)
    and of each run's summary score, the sum over the quantities of its standardised run means
    (skew common to correlated quantities; Bonferroni over the groups). Quantities constant
    over the runs carry no skew and are left out."""
    groups = [np.atleast_2d(np.asarray(g, dtype=float)) for g in groups]
    few = [(i, g.shape[0]) for i, g in enumerate(groups) if g.shape[0] < MIN_RUNS]
    if few:
        where = ", ".join(f"{n} in group {i + 1}" if len(groups) > 1 else f"{n}" for i, n in few)
        return (f"runs: {where}; the sign-flip test needs at least {MIN_RUNS} per group to show that the run "
                f"means are symmetric, as flipping their signs assumes", "")
    k = sum(int(np.sum(g.std(axis=0, ddof=1) > 0)) for g in groups)
    worst = []
    for i, g in enumerate(groups):
        sd = g.std(axis=0, ddof=1)
        live = g[:, sd > 0]
        if live.shape[1] == 0:
            continue
        p_each = skewness_test(live, axis=0)
        j = int(np.argmin(p_each))
        if p_each[j] < SKEW_LEVEL / k:
            worst.append(f"quantity {int(np.flatnonzero(sd > 0)[j]) + 1}"
                         + (f" of group {i + 1}" if len(groups) > 1 else "")
                         + f" (skewness test ${p_equation(float(p_each[j]))} < {SKEW_LEVEL:g}/{k}$)")
        score = ((live - live.mean(axis=0)) / sd[sd > 0]).sum(axis=1)
        if np.ptp(score) > 0:
            p_score = float(skewness_test(score))
            if p_score < SKEW_LEVEL / len(groups):
                worst.append("the runs' summary scores" + (f" of group {i + 1}" if len(groups) > 1 else "")
                             + f" (skewness test ${p_equation(p_score)}$)")
    if worst:
        return "", "skewed run means, which break the symmetry the sign-flip test assumes: " + "; ".join(worst)
    return "", ""


def _upper_shares(x: np.ndarray) -> np.ndarray:
    """For each entry, the share of entries at least as large (ties, to a relative 1e-12, count)."""
    order = np.sort(x)
    return (x.size - np.searchsorted(order, x * (1 - 1e-12), side="left")) / x.size


def independent_test(difference, se, df, *, exact=None, margins=None, runs=None,
                     level: float = SKEW_LEVEL) -> MultipleTest:
    """Test that independent estimates (separate seeds) all equal their hypothesised values:
    each ``t = difference / se`` (Student t with `df`) mapped to its normal score, the sum of
    squares against chi-square with as many degrees of freedom. Margins as in
    :func:`sign_flip_test` (relative to `exact`, or given).

    `runs`, one array of run means per estimate, are checked (:func:`check_runs`): an estimate
    with too few runs makes the test "not judged" (:attr:`MultipleTest.why_not`), skewed ones make
    Cantelli's bound judge all of them (:func:`cantelli_many`), and their skewness corrects each t
    statistic (:func:`hall`). Each estimate's runs are checked at ``level / k`` (Bonferroni over the
    k estimates); a caller that checks more samples for one record passes its share of
    :data:`SKEW_LEVEL`."""
    difference, se, df = (np.asarray(x, dtype=float).ravel() for x in (difference, se, df))
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`level` must lie in (0, 1) (got {level!r})")
    if not (difference.size == se.size == df.size) or difference.size == 0:
        raise ParameterError("`difference`, `se` and `df` must be non-empty and of equal length")
    if not np.all(se > 0) or not np.all(df >= 1):
        raise ParameterError(f"every `se` must be > 0 and every `df` >= 1 (got se {se.tolist()}, df {df.tolist()})")
    if margins is None:
        if exact is None:
            raise ParameterError("`independent_test` needs `exact` values or `margins`")
        marg = _margins(np.asarray(exact, dtype=float).ravel(), None)
    else:
        marg = _margins(difference, margins)
    kappas = np.zeros(difference.size)
    why = ""
    if runs is not None:
        if len(runs) != difference.size:
            raise ParameterError(f"`runs` must hold one array of run means per estimate ({difference.size}; "
                                 f"got {len(runs)})")
        # every estimate's runs checked at SKEW_LEVEL / k (Bonferroni, as symmetry_check does): at
        # 5% each, 14 correct estimates were flagged together half the time
        checks = [check_runs(r, what=f"run means of estimate {i + 1}", level=level / len(runs))
                  for i, r in enumerate(runs)]
        kappas = np.array([c.skewness / math.sqrt(c.runs) for c in checks])
        why = "; ".join(c.why for c in checks if c.too_few)
        skew = "; ".join(c.why for c in checks if c.skewed)
        if skew and not why:
            return cantelli_many(difference, se, marg, df, skew)
    z = [normal_score(hall(float(d / s), float(k)), float(v)) for d, s, v, k in zip(difference, se, df, kappas)]
    chi2 = float(sum(x * x for x in z))
    widest = _reach(difference, se, df, marg)
    return MultipleTest("independent", chi2, float(_st.chi2.sf(chi2, len(z))), len(z), widest <= 1.0, widest,
                        0, float(df.min()), why_not=why)
