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

Statements about many quantities at once
    A statement such as "the simulated laws are the product form (4)" is judged by one test of
    all its quantities (a *tested* record, :attr:`qtheory.claims.Claim.p_value`), whose p-value
    joins the page's Holm family like any record's. Quantities estimated from the same runs are
    correlated (the ``P(Q = q)`` of one run move together), so their t statistics cannot be
    combined as if independent; :func:`sign_flip_test` instead flips the sign of each run's
    whole vector of deviations, which keeps the correlation (exact for run means symmetric
    about the hypothesised values, such as the near-normal means of long runs).
    :func:`independent_test` combines t statistics of independent estimates (separate seeds).
    Either reports whether the data resolve the margins (every quantity's 95% t-interval of
    the difference within its margin): a record that is not rejected agrees only then.

Qualitative statements carry the outcome of the notebook's own test (``holds``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from scipy import stats as _st

from .errors import ParameterError

__all__ = ["FAMILY_LEVEL", "INTERVAL_LEVEL", "RELATIVE_MARGIN", "Comparison", "Verdict", "JointTest",
           "Judgement", "welch", "compare", "holm", "holm_thresholds", "joint_tests", "judge", "judge_one", "CLAIM_LABELS",
           "CHECK_LABELS", "MultipleTest", "sign_flip_test", "independent_test"]

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
            return f"Stouffer $Z = {self.statistic:.2f}$ over {self.size} rows, $p = {p_text(self.p)}$"
        return f"$\\sum z_i^2 = {self.statistic:.1f}$ against $\\chi^2_{{{self.size}}}$, $p = {p_text(self.p)}$"


def p_text(p: float) -> str:
    """A p-value as the pages print it: two decimals, or TeX scientific notation below 0.01."""
    if p >= 0.01:
        return f"{p:.2f}"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def _score(t: float, df: float) -> float:
    """The standard normal score of a t statistic `t` with `df` degrees of freedom (same tail probability)."""
    if math.isinf(df):
        return t
    # from the upper tail of |T| (t.sf(T) rounds to 1 for T << 0, and isf(1) = -inf), with T's sign;
    # capped where the tail underflows (|T| about 1e5 at 99 degrees of freedom), far beyond any threshold
    z = float(_st.norm.isf(_st.t.sf(abs(t), df)))
    return math.copysign(min(z, _Z_MAX), t)


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
        z = [_score(c.t, c.df) for c in group]
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
        family = "one hypothesis" if self.size == 1 else f"{self.size} hypotheses"
        return (f"Statistical records are judged as one family of {family} "
                f"(Student t, Welch degrees of freedom, Holm at familywise level {self.level:g}); "
                f"agreement needs the 95% interval of the difference within the stated margin "
                f"({RELATIVE_MARGIN:.0%} of the value when none is stated), else *not resolved*.")


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
    tested = [r for r in records if getattr(r, "p_value", None) is not None and r.category in ("claim", "check")
              or comparisons[id(r)] is not None and comparisons[id(r)].se > 0]
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
        ``"sign-flip"`` (:func:`sign_flip_test`) or ``"independent"`` (:func:`independent_test`).
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

    def describe(self, margins: bool = True) -> str:
        """The test as a sentence (plain text and ``$...$`` math) for the record's evidence; with
        `margins` False, without the sentence on the margins (a test used for its p-value alone)."""
        df = f"{self.df:.0f}" if math.isfinite(self.df) else "infinitely many"
        if self.method == "sign-flip":
            how = ("every sign pattern enumerated" if self.patterns == 0
                   else f"{self.patterns:,} random sign patterns")
            head = (f"sign-flip test of {self.size} quantities ($t$ with {df} degrees of freedom; each run's "
                    f"deviations flipped together, which keeps their correlation; {how}) on the smaller of the "
                    f"p-values of the largest $|t|$ and of $\\sum t^2$: largest $|t| = {self.largest:.2f}$, "
                    f"$\\sum t^2 = {self.statistic:.1f}$, $p = {p_text(self.p)}$")
        else:
            head = (f"joint test of {self.size} independent estimates (normal scores of their $t$ statistics, "
                    f"$\\sum z^2 = {self.statistic:.1f}$ against $\\chi^2_{{{self.size}}}$): $p = {p_text(self.p)}$")
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
        return Claim(p_value=float(self.p), resolved=bool(self.resolved), evidence=evidence, **fields)


def _margins(exact: np.ndarray, margins) -> np.ndarray:
    if margins is None:
        return RELATIVE_MARGIN * np.abs(exact)
    out = np.broadcast_to(np.asarray(margins, dtype=float), exact.shape).astype(float)
    if not np.all(out >= 0):
        raise ParameterError(f"`margins` must be >= 0 (got {margins!r})")
    return out


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
    widest = _reach(np.concatenate(diffs), np.concatenate(ses), np.concatenate(dfs), np.concatenate(marg))
    return MultipleTest("sign-flip", float(total[0]), float(min(p, 1.0)), int(sum(e.size for e in exact)),
                        widest <= 1.0, widest, 0 if enumerate_all else patterns, float(min(np.concatenate(dfs))),
                        float(math.sqrt(largest[0])))


def _upper_shares(x: np.ndarray) -> np.ndarray:
    """For each entry, the share of entries at least as large (ties, to a relative 1e-12, count)."""
    order = np.sort(x)
    return (x.size - np.searchsorted(order, x * (1 - 1e-12), side="left")) / x.size


def independent_test(difference, se, df, *, exact=None, margins=None) -> MultipleTest:
    """Test that independent estimates (separate seeds) all equal their hypothesised values:
    each ``t = difference / se`` (Student t with `df`) mapped to its normal score, the sum of
    squares against chi-square with as many degrees of freedom. Margins as in
    :func:`sign_flip_test` (relative to `exact`, or given)."""
    difference, se, df = (np.asarray(x, dtype=float).ravel() for x in (difference, se, df))
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
    z = [_score(float(d / s), float(v)) for d, s, v in zip(difference, se, df)]
    chi2 = float(sum(x * x for x in z))
    widest = _reach(difference, se, df, marg)
    return MultipleTest("independent", chi2, float(_st.chi2.sf(chi2, len(z))), len(z), widest <= 1.0, widest,
                        0, float(df.min()))
