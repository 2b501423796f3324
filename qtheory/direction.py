"""Statements of direction judged with their noise: "this falls", "that comes closer than the other".

A paper's qualitative statement that one quantity exceeds another (the distance to the limit falls
as N grows; the fractional case comes closer to the bound than the integral one; one approximation
is closer to the simulation than another) is judged like a number (:mod:`qtheory.verdicts`), not by
the sign of two noisy means. The statement is a conjunction of stated signs, "difference
:math:`D_i > 0`" for :math:`i = 1, \\dots, k`, each difference estimated from independent run means
(a paired difference per run, or two independent samples: the larger side minus the smaller) or
known exactly (an ODE's value).

Two independent samples of equal size may be *paired by index* (``by_index``): the k-th run of one
and the k-th of the other form one pair, the pairs are independent and alike, and the statement is
tested on the per-pair differences by the one-sample t test. Its standard error estimates the same
spread as Welch's for equal sizes (the variance of a difference is the sum of the two variances);
what changes is which skewness is checked: that of the differences, the one that reaches the
statistic. A side whose spread is small against the other's (a gap of 10⁻⁴ known to 1% beside one
of 4 × 10⁻³ known to 2%) adds almost nothing to it, while checking each side alone would refuse the
test for that side's skew.

The test of the statement (:func:`direction_test`)
    *Against* it: each estimated difference's one-sided t test of :math:`D_i \\ge 0` (Student t
    with Welch's degrees of freedom and Hall's correction for the skewness of the run means, as
    :func:`qtheory.verdicts.compare` computes them), combined by Bonferroni over the :math:`k'`
    estimated differences: :math:`p = \\min(1, k' \\min_i p_i)`. An exact difference at or below 0
    contradicts the statement with certainty (:math:`p = 0`); an exact difference above 0 adds
    nothing to test. This p-value joins the page's Holm family as a *tested* record
    (:meth:`DirectionTest.record`): rejected, the record *differs* (a check *fails*).

    *For* it (``resolved``): every difference's 95% interval lies above 0 (an exact difference
    above 0). That is an intersection-union test (Berger 1982): the statement is shown only if each
    of its parts is, each at its own level, with no division by :math:`k`. A record that is neither
    rejected nor resolved is *not resolved*.

    *Assumptions*: every sample of run means passes :func:`qtheory.verdicts.check_runs` (at least
    :data:`~qtheory.verdicts.MIN_RUNS` runs, no evidence of skew, D'Agostino's test at
    :data:`~qtheory.verdicts.SKEW_LEVEL` divided by the number of samples the statement checks:
    Bonferroni, as :mod:`qtheory.verdicts` checks the samples of one record, so that a correct
    statement of many parts is not refused for one part's chance skew); otherwise the record is not
    resolved and leaves the page's family (its ``assumption_failure`` says why), unless an exact
    part already contradicts the statement.

Positive quantities on a log scale
    Run values of a positive quantity (a distance, a gap to a bound) are often right-skewed: most
    runs a little below their mean, a few far above. Their logarithms are much less skewed, so
    :func:`difference` with ``log=True`` compares the means of the logarithms: the statement
    "`larger` exceeds `smaller`" is then read on geometric means, and the difference is the log of
    their ratio (shown as the ratio, stated to be above 1).

The label is still decided by :func:`qtheory.verdicts.judge`: this module computes the tested
record's p-value and whether the data resolve the statement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
from scipy import special as _special

from .errors import ParameterError
from .verdicts import CANTELLI_K, SKEW_LEVEL, Comparison, cantelli, cantelli_p, check_runs, compare, p_equation

__all__ = ["Difference", "DirectionTest", "difference", "exact_difference", "direction_test"]


@dataclass(frozen=True)
class Difference:
    """One stated sign, "``name`` > 0" (or, on a log scale, "ratio > 1"), and its estimate's statistics.

    Attributes
    ----------
    name : str
        The difference in words (prose with ``$...$`` math), e.g. "distance at $N = 100$ over $N = 500$".
    comparison : qtheory.verdicts.Comparison
        Its value (``difference``: of the logarithms when `log`), standard error, degrees of
        freedom, Hall-corrected statistic ``t``, 95% interval (``low``, ``high``) and the checks of
        its run means; ``se = 0`` for an exact difference.
    runs : tuple of int
        The numbers of run means behind it: one per sample, or the number of pairs (empty when exact).
    log : bool
        Whether the difference is of the means of the logarithms (a ratio of geometric means).
    samples : tuple of tuple of float
        The samples of run values whose law the test assumes (the per-pair differences, or each
        side of two independent samples; logarithms on a log scale), for :func:`direction_test`'s
        checks; empty when exact.
    """

    name: str
    comparison: Comparison
    runs: tuple[int, ...] = ()
    log: bool = False
    samples: tuple[tuple[float, ...], ...] = ()

    @property
    def exact(self) -> bool:
        return self.comparison.se == 0

    @property
    def p(self) -> float:
        """One-sided p-value against the stated sign (small when the difference is clearly below 0);
        1 when its run means fail their checks alone (:func:`direction_test` checks the samples of a
        whole statement together)."""
        c = self.comparison
        if self.exact:
            return 0.0 if c.difference <= 0 else 1.0
        return self._t_p() if c.testable else 1.0

    def _t_p(self) -> float:
        c = self.comparison
        if c.method == "Cantelli":
            return cantelli_p(-c.t, sides=1)
        return float(_special.stdtr(c.df, c.t)) if math.isfinite(c.df) else float(_special.ndtr(c.t))

    @property
    def shown(self) -> bool:
        """Whether the data show the stated sign: the 95% interval (or the exact value) above 0."""
        c = self.comparison
        return c.difference > 0 if self.exact else (c.testable and c.low > 0)

    def describe(self) -> str:
        """The difference, its standard error and interval in words (a ratio on a log scale)."""
        from .display import number

        c = self.comparison
        if self.log:
            if self.exact:
                return f"{self.name}: ratio {number(math.exp(c.difference))} (exact)"
            return (f"{self.name}: ratio {number(math.exp(c.difference))} (its logarithm "
                    f"{number(c.difference, c.se)}; 95% interval of the ratio [{number(math.exp(c.low))}, "
                    f"{number(math.exp(c.high))}]; {self._runs_text()})")
        if self.exact:
            return f"{self.name}: {number(c.difference)} (exact)"
        return (f"{self.name}: {number(c.difference, c.se)} (95% interval [{number(c.low)}, {number(c.high)}]; "
                f"{self._runs_text()})")

    def _runs_text(self) -> str:
        if len(self.runs) == 1:
            return f"{self.runs[0]} run means"
        return " and ".join(str(n) for n in self.runs) + " run means"


def _runs(values, what: str, log: bool) -> tuple[float, ...]:
    try:
        x = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be a sequence of numbers (got {values!r})") from None
    if x.size < 2 or not np.all(np.isfinite(x)):
        raise ParameterError(f"{what} must hold at least 2 finite run means (got {x.size})")
    if log:
        if not np.all(x > 0):
            raise ParameterError(f"{what} must be positive to be compared on a log scale (smallest "
                                 f"{float(x.min())!r})")
        x = np.log(x)
    return tuple(float(v) for v in x)


def _exact_comparison(value: float) -> Comparison:
    return Comparison(value, 0.0, math.inf, math.copysign(math.inf, value) if value else 0.0,
                      1.0 if value == 0 else 0.0, value, value, 0.0)


def difference(larger, smaller=None, *, name: str, log: bool = False, by_index: bool = False) -> Difference:
    """The stated sign "mean of `larger` > mean of `smaller`" from independent run means.

    `larger` alone: its run means are per-run differences (paired, e.g. two errors against the same
    run), stated to be positive on average (with `log`: per-run ratios, stated above 1 in geometric
    mean). With `smaller`: two independent samples (separate seeds), compared by Welch's t, or, with
    `by_index`, paired by index (equal sizes; see the module doc) and compared by the one-sample t
    test of the per-pair differences. Either way the run means are checked and the statistic is
    corrected for their skewness exactly as a record's (:func:`qtheory.verdicts.compare`). With `log`
    the logarithms of the (positive) run values are compared (see the module doc)."""
    from .claims import Claim

    if not isinstance(name, str) or not name.strip():
        raise ParameterError(f"`name` must say what the difference is (got {name!r})")
    a = _runs(larger, f"`larger` of {name!r}", log)
    if smaller is None and by_index:
        raise ParameterError(f"`by_index` pairs two samples: give `smaller` too ({name!r})")
    if smaller is None:
        samples = (a,)
        record = Claim(item="direction", text=name, category="check", ours_runs=a, reference=0.0, tolerance=0.0)
    elif by_index:
        b = _runs(smaller, f"`smaller` of {name!r}", log)
        if len(a) != len(b):
            raise ParameterError(f"`by_index` needs samples of equal size ({name!r}: {len(a)} and {len(b)} runs)")
        samples = (tuple(x - y for x, y in zip(a, b)),)
        record = Claim(item="direction", text=name, category="check", ours_runs=samples[0], reference=0.0,
                       tolerance=0.0)
    else:
        b = _runs(smaller, f"`smaller` of {name!r}", log)
        samples = (a, b)
        record = Claim(item="direction", text=name, category="check", ours_runs=a, reference_runs=b, tolerance=0.0)
    c = compare(record, fallback=False)     # direction_test checks the samples and may fall back
    if c is None:        # every run mean the same on both sides: the difference is known exactly
        return Difference(name, _exact_comparison(record.ours - record.reference), (), bool(log))
    # a side whose run means are all equal has no spread to check (compare leaves it out too)
    samples = tuple(x for x in samples if max(x) > min(x))
    return Difference(name, c, tuple(len(x) for x in samples) if len(samples) > 1 else (len(samples[0]),),
                      bool(log), samples)


def exact_difference(value: float, *, name: str, log: bool = False) -> Difference:
    """A stated sign whose difference is known exactly (an ODE's value, a solver's root); with `log`,
    `value` is a positive ratio stated to be above 1."""
    value = float(value)
    if not math.isfinite(value) or (log and not value > 0):
        raise ParameterError(f"the exact {'ratio' if log else 'difference'} {name!r} must be "
                             f"{'positive and finite' if log else 'finite'} (got {value!r})")
    return Difference(name, _exact_comparison(math.log(value) if log else value), (), bool(log))


@dataclass(frozen=True)
class DirectionTest:
    """The outcome of :func:`direction_test` (see the module doc).

    Attributes
    ----------
    parts : tuple of Difference
        The stated signs, in the statement's order.
    p : float
        Bonferroni's combination of the one-sided p-values of the estimated parts against their
        stated signs (0 when an exact part contradicts the statement, 1 when nothing is estimated).
    resolved : bool
        Whether the data show every stated sign (every 95% interval above 0).
    why_not : str
        Why the test cannot judge the data: too few run means ("" when every sample has enough).
    skewed : str
        Why some parts are judged by Cantelli's inequality instead of the t test: their run means
        are skewed ("" when none is).
    """

    parts: tuple[Difference, ...]
    p: float
    resolved: bool
    why_not: str = ""
    skewed: str = ""

    @property
    def outcome(self) -> str:
        """What the data say of the statement, in words: ``"shown"`` (every part's 95% interval on
        its stated side), ``"contradicted"`` (an exact part at or below 0, or a part's interval
        wholly on the other side), ``"not judged"`` (run means that fail their checks) or
        ``"not shown"``. The label comes from the page's family (:func:`qtheory.verdicts.judge`)."""
        if any(d.exact and not d.shown for d in self.parts) or (
                not self.why_not and any(not d.exact and d.comparison.high < 0 for d in self.parts)):
            return "contradicted"
        if self.why_not:
            return "not judged"
        return "shown" if self.resolved else "not shown"

    def describe(self) -> str:
        """The outcome, every part with its standard error and interval, and the test, for a record's
        evidence. Its first sentence, up to the first full stop, says what the data show and by how
        much: "The statement is shown by the runs: ...", "... is not shown ...", "... is
        contradicted ..." or "... is not judged ..."."""
        k = len(self.parts)
        estimated = sum(not d.exact for d in self.parts)
        parts = [d.describe() for d in self.parts]
        signs = parts[0] if k == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        stated = "above 1 (a ratio) or 0 (a difference)" if any(d.log for d in self.parts) and not all(
            d.log for d in self.parts) else ("above 1" if self.parts[0].log else "above 0")
        exactly = any(d.exact and not d.shown for d in self.parts)
        head = {"shown": "is shown by the runs", "not shown": "is not shown by the runs",
                "contradicted": "is contradicted exactly" if exactly else "is contradicted by the runs",
                "not judged": "is not judged, its runs fail their checks"}[self.outcome]
        text = f"The statement {head}: {signs}. "
        text += (f"It is read as one stated sign, {stated}" if k == 1 else f"It is read as {k} stated signs, each {stated}")
        text += ", shown when the 95% interval of each lies on the stated side"
        if estimated:
            how = ("a one-sided $t$ test" + (f" of each estimated part, Bonferroni over the {estimated}" if estimated > 1
                                              else "")
                   + " (Welch's degrees of freedom, Hall's correction for the skew of the run means)")
            text += f"; against it, {how}: ${p_equation(self.p)}$"
        text += "."
        if self.skewed:
            text += (f" Judged by Cantelli's inequality instead of the $t$ test (one-sided $p \\le 1/(1 + t^2)$, "
                     f"95% interval $\\pm {CANTELLI_K:.2f}$ standard errors, which needs no symmetry): {self.skewed}.")
        if self.why_not:
            text += f" Not judged: {self.why_not}."
        return text

    def record(self, **fields):
        """A tested :class:`qtheory.claims.Claim` carrying this test (``evidence`` is prefixed by
        :meth:`describe`)."""
        from .claims import Claim

        extra = fields.pop("evidence", "")
        return Claim(p_value=float(self.p), resolved=bool(self.resolved), assumption_failure=self.why_not,
                     evidence=self.describe() + (f" {extra.strip()}" if extra else ""), **fields)


def direction_test(parts: Sequence[Difference]) -> DirectionTest:
    """Test a statement that every difference of `parts` is positive (see the module doc).

    Returns a :class:`DirectionTest`: ``p`` against the statement (Bonferroni over the one-sided
    t tests of the estimated parts; an exact part at or below 0 gives 0), ``resolved`` when every 95%
    interval (or exact value) lies above 0, and ``why_not`` when a sample of run means fails
    :func:`qtheory.verdicts.check_runs` (fewer than :data:`~qtheory.verdicts.MIN_RUNS`, or skewed at
    :data:`~qtheory.verdicts.SKEW_LEVEL` over the number of samples checked).
    """
    parts = tuple(parts)
    if not parts or not all(isinstance(d, Difference) for d in parts):
        raise ParameterError("`parts` must be a non-empty sequence of Difference (from `difference` or "
                             "`exact_difference`)")
    if any(d.exact and d.comparison.difference <= 0 for d in parts):
        # an exact difference at or below 0 contradicts the statement whatever the simulated parts say
        return DirectionTest(parts, 0.0, False, "")
    estimated = [d for d in parts if not d.exact]
    # every sample the statement assumes a law of, checked at SKEW_LEVEL over their number (Bonferroni)
    level = SKEW_LEVEL / max(1, sum(len(d.samples) for d in estimated))
    checks = [[check_runs(x, level=level) for x in d.samples] for d in estimated]
    few = ["; ".join(c.why for c in cs if c.too_few) for cs in checks]
    skewed = ["" if f else "; ".join(c.why for c in cs if c.skewed) for f, cs in zip(few, checks)]
    why = "; ".join(f"{d.name}: {f}" for d, f in zip(estimated, few) if f)
    why_skewed = "; ".join(f"{d.name}: {k}" for d, k in zip(estimated, skewed) if k)
    # enough but skewed run means: the part is judged by Cantelli's inequality (needs no symmetry)
    estimated = [replace(d, comparison=cantelli(d.comparison)) if k else d for d, k in zip(estimated, skewed)]
    judged = iter(estimated)
    parts = tuple(d if d.exact else next(judged) for d in parts)
    # a part with too few run means rejects nothing (its p is 1) and shows nothing
    p = min(1.0, len(estimated) * min(1.0 if f else d._t_p() for d, f in zip(estimated, few))) if estimated else 1.0
    shown = (all(d.comparison.difference > 0 for d in parts if d.exact)
             and all(not f and d.comparison.low > 0 for d, f in zip(estimated, few)))
    return DirectionTest(parts, float(p), bool(shown), why, why_skewed)
