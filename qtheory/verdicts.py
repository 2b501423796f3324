"""One statistical procedure for every judged number of the book.

A record (:class:`qtheory.claims.Claim`) compares the companion's value with the paper's
printed value (a *claim*) or with an independently computed reference (an internal
*check*). This module decides its label, and it is the only place that does.

The procedure
-------------
Deterministic comparisons (no standard error on either side)
    agree when ``|ours - target| <= tolerance``; the tolerance is justified in the record's
    evidence (a printed digit, a solver's accuracy).

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
    t-interval of the difference lies within ``± margin``: the record's ``tolerance`` if it
    gives one, else :data:`RELATIVE_MARGIN` of the target's size (a record whose target is 0
    must state its tolerance, or it can never agree). Otherwise the data cannot tell agreement
    from a difference that matters, and the record is *not resolved*. A rejected joint test
    (below) is shown as a line of its own; it does not change the labels of its rows.

Joint tests of a family of rows
    Records that share a ``family`` name (R-T1's Var(Q) over twelve settings, the policies
    of U-X-poisson) are also judged together: each :math:`T_i` is mapped to a standard
    normal score :math:`z_i = \\Phi^{-1}(F_{\\nu_i}(T_i))`, and two tests join the page's
    family: Stouffer's :math:`Z = \\sum z_i / \\sqrt{k}` (a difference of one sign in most
    rows) and :math:`\\sum z_i^2 \\sim \\chi^2_k` (more large deviations than chance allows).

Qualitative statements carry the outcome of the notebook's own test (``holds``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from scipy import stats as _st

from .errors import ParameterError

__all__ = ["FAMILY_LEVEL", "INTERVAL_LEVEL", "RELATIVE_MARGIN", "Comparison", "Verdict", "JointTest",
           "Judgement", "welch", "compare", "holm", "holm_thresholds", "joint_tests", "judge", "judge_one", "CLAIM_LABELS",
           "CHECK_LABELS"]

#: familywise level of a page: the chance of any false "differs" (or "fails") among its records
FAMILY_LEVEL = 0.01
#: level of the interval that must lie within the margin for "agrees"
INTERVAL_LEVEL = 0.95
#: the margin of a statistical record that states no tolerance, relative to its target's size
RELATIVE_MARGIN = 0.05

#: labels of a paper claim and of an internal check
CLAIM_LABELS = ("agrees", "differs", "not resolved")
CHECK_LABELS = ("holds", "fails", "not resolved")


def welch(se_a: float | None, df_a: float | None, se_b: float | None, df_b: float | None) -> tuple[float, float]:
    """Standard error and Welch–Satterthwaite degrees of freedom of the difference of two
    independent estimates; a side without a standard error (or with 0) is exact.

    Returns ``(se, df)``; ``df`` is ``inf`` when both sides are exact.
    """
    parts = [(se, df) for se, df in ((se_a, df_a), (se_b, df_b)) if se]
    if not parts:
        return 0.0, math.inf
    for se, df in parts:
        if df is None or not df >= 1:
            raise ParameterError(f"a standard error needs its degrees of freedom >= 1 (got se = {se!r}, df = {df!r})")
    se2 = sum(se ** 2 for se, _ in parts)
    denominator = sum(se ** 4 / df for se, df in parts)
    return math.sqrt(se2), (se2 ** 2 / denominator if denominator > 0 else math.inf)


@dataclass(frozen=True)
class Comparison:
    """The statistics of one statistical record.

    Attributes
    ----------
    difference, se, df : float
        ``ours - target``, its standard error and degrees of freedom.
    t, p : float
        ``difference / se`` and the two-sided Student-t p-value.
    low, high : float
        The :data:`INTERVAL_LEVEL` t-interval of the difference.
    margin : float
        The difference that matters (the record's tolerance, or the relative default).
    """

    difference: float
    se: float
    df: float
    t: float
    p: float
    low: float
    high: float
    margin: float

    @property
    def within_margin(self) -> bool:
        return -self.margin <= self.low and self.high <= self.margin


def compare(record) -> Comparison | None:
    """The :class:`Comparison` of a statistical claim or check; None for any other record."""
    if record.category not in ("claim", "check") or record.holds is not None:
        return None
    target_se, target_df = record.target_se, record.target_df
    if not target_se and not record.ours_se:
        return None
    se, df = welch(record.ours_se, record.ours_df, target_se, target_df)
    d = record.ours - record.target
    t = d / se
    p = float(2.0 * _st.t.sf(abs(t), df))
    half = float(_st.t.ppf(0.5 + INTERVAL_LEVEL / 2, df)) * se
    return Comparison(d, se, df, t, p, d - half, d + half, _margin(record))


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
    thresholds = holm_thresholds(pvalues, level)
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
            return f"Stouffer $Z = {self.statistic:.2f}$ over {self.size} rows, $p = {_p(self.p)}$"
        return f"$\\sum z_i^2 = {self.statistic:.1f}$ against $\\chi^2_{{{self.size}}}$, $p = {_p(self.p)}$"


def _p(p: float) -> str:
    if p >= 0.01:
        return f"{p:.2f}"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def _score(c: Comparison) -> float:
    """The standard normal score of a t statistic (same tail probability)."""
    if math.isinf(c.df):
        return c.t
    # from the upper tail of |T| (t.sf(T) rounds to 1 for T << 0, and isf(1) = -inf), with T's sign;
    # capped where the tail underflows (|T| about 1e5 at 99 degrees of freedom), far beyond any threshold
    z = float(_st.norm.isf(_st.t.sf(abs(c.t), c.df)))
    return math.copysign(min(z, _Z_MAX), c.t)


#: the largest finite normal score (the tail of the smallest positive double)
_Z_MAX = float(_st.norm.isf(5e-324))


def joint_tests(records: Iterable, comparisons: dict[int, Comparison] | None = None) -> list[JointTest]:
    """Stouffer and chi-square tests of each family (records sharing a ``family``) of two or more
    statistical records (unadjusted; :func:`judge` adds them to the page's Holm family)."""
    records = list(records)
    comparisons = comparisons if comparisons is not None else {id(r): compare(r) for r in records}
    families: dict[str, list[Comparison]] = {}
    for r in records:
        c = comparisons.get(id(r))
        if r.family and c is not None and c.se > 0:
            families.setdefault(r.family, []).append(c)
    out = []
    for name, group in families.items():
        if len(group) < 2:
            continue
        z = [_score(c) for c in group]
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
        return (f"Statistical records are judged as one family of {self.size} hypotheses "
                f"(Student t, Welch degrees of freedom, Holm at familywise level {self.level:g}); "
                f"agreement needs the 95% interval of the difference within the stated margin "
                f"({RELATIVE_MARGIN:.0%} of the value when none is stated), else *not resolved*.")


def _words(category: str, outcome: str) -> str:
    pairs = {"agree": ("agrees", "holds"), "differ": ("differs", "fails")}
    if outcome in pairs:
        return pairs[outcome][0 if category == "claim" else 1]
    return outcome


def judge(records: Sequence, level: float = FAMILY_LEVEL) -> Judgement:
    """Judge the records of one page as one family (see the module doc).

    Returns a :class:`Judgement` whose verdicts follow `records`' order.
    """
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`level` must lie in (0, 1) (got {level!r})")
    records = list(records)
    comparisons = {id(r): compare(r) for r in records}
    tested = [r for r in records if comparisons[id(r)] is not None and comparisons[id(r)].se > 0]
    joint = joint_tests(records, comparisons)
    pvalues = [comparisons[id(r)].p for r in tested] + [j.p for j in joint]
    rejected = holm(pvalues, level)
    thresholds = holm_thresholds(pvalues, level)
    m = len(pvalues)
    position = {id(r): k for k, r in enumerate(tested)}
    joint = tuple(JointTest(j.family, j.kind, j.statistic, j.p, j.size, rejected[len(tested) + k])
                  for k, j in enumerate(joint))
    verdicts = []
    for r in records:
        c = comparisons[id(r)]
        if r.category not in ("claim", "check"):
            verdicts.append(Verdict(r.verdict or r.category, reason="see the record's evidence"))
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
            if rejected[k]:
                verdicts.append(Verdict(_words(r.category, "differ"), c, True, thresholds[k], m,
                                        "rejected by Holm's procedure at the page's familywise level"))
            elif c.within_margin:
                verdicts.append(Verdict(_words(r.category, "agree"), c, False, thresholds[k], m,
                                        "not rejected, and the 95% interval lies within the margin"))
            else:
                verdicts.append(Verdict("not resolved", c, False, thresholds[k], m,
                                        "not rejected, but the 95% interval reaches beyond the margin"))
    return Judgement(tuple(verdicts), joint, level, m)


def judge_one(record, level: float = FAMILY_LEVEL) -> Verdict:
    """The verdict of a record judged alone (a family of one)."""
    return judge([record], level).verdicts[0]
