"""What the papers state, what we reconstructed, what we checked ourselves, beside our values.

A notebook records every number it wants a reader to judge through
:meth:`qtheory.results.ResultWriter.claim`; the record is stored in the result's JSON
sidecar. At book build time :func:`qtheory.claimpages.write_pages` collects the records of the results
folder into the generated pages ``book/claims.md`` (the papers' claims and our internal
checks), ``book/reconstructions.md`` and ``book/errata.md``, so that no verdict is typed
by hand.

Categories
----------
Each record is of one of four kinds (:data:`CATEGORIES`), and only the first counts as
agreement or disagreement with a paper:

``claim``
    A value (or a qualitative statement) printed in a paper. ``source`` cites where
    (section, equation, table or figure). Judged *agrees* / *differs*.
``reconstruction``
    Our reading of a display or a setting that the text does not give unambiguously;
    ``alternatives`` names the other readings considered, ``verdict`` the outcome of the
    check that supports ours.
``check``
    An identity or cross-check of our own (exact value vs simulation, two algorithms,
    theorem vs computation): ``reference`` is the independently computed value. Judged
    *holds* / *fails*. Valuable, but not agreement with a paper.
``erratum``
    A suspected error in a paper, with the numerical ``evidence`` and a ``verdict``.

Judging numbers
---------------
:mod:`qtheory.verdicts` holds the one procedure: every standard error carries its degrees
of freedom (``ours_df``, ``paper_df``, ``reference_df``), differences are compared with
Student's t (Welch where both sides are estimated), a page's records are judged as one
family (Holm), and a record whose interval cannot tell agreement from its margin is *not
resolved*. Without standard errors a record agrees when the absolute difference is at most
``tolerance``. A qualitative claim or check (no numbers) carries ``holds``, the outcome of
the notebook's test of the statement. The properties of a :class:`Claim` judge it alone;
the verdict box and the claims page judge each page's records together.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import ParameterError

__all__ = ["Claim", "CATEGORIES", "Finding", "FINDING_LABELS", "collect_findings", "Noted", "NOTED", "collect",
           "label_of"]

#: kinds of records: a value printed in a paper; our reading of an ambiguous display or
#: setting; a cross-check of our own; a suspected erratum of a paper
CATEGORIES = ("claim", "reconstruction", "check", "erratum")


@dataclass(frozen=True)
class Claim:
    """One record with the companion's value (see the module doc for the categories).

    Attributes
    ----------
    item : str
        Manifest ID of the result that checks it.
    text : str
        The statement in a line, in our words (e.g. "P(Q > 15) at load 0.6").
    paper : float or None
        The paper's printed value (claims, and errata that dispute a printed value).
    ours : float or None
        The companion's value.
    reference : float or None
        The independently computed value an internal ``check`` compares with.
    paper_se, reference_se, ours_se : float or None
        Standard errors, when the values are statistical.
    paper_df, reference_df, ours_df : float or None
        Degrees of freedom of each standard error (runs − 1, batches − 1): required with it.
    tolerance : float or None
        Absolute tolerance for deterministic comparisons, and the margin that matters for
        statistical ones (default: :data:`qtheory.verdicts.RELATIVE_MARGIN` of the target);
        justified in ``evidence``.
    category : str
        One of :data:`CATEGORIES`.
    source : str
        Where the paper says it: "Sec. 6.2", "Table 1", "eq. (5.2)", "Fig. 3". Required
        for claims, reconstructions and errata.
    holds : bool or None
        Outcome of the test of a qualitative claim or check.
    alternatives : str
        For reconstructions, the other readings considered.
    finding : str
        ID of the :class:`Finding` that explains this record together with others (its rows
        are folded under the finding on the claims page and in the verdict box).
    family : str
        Name of a family of rows judged also jointly (:func:`qtheory.verdicts.joint_tests`).
    key : str
        ID of the paper statement of the claim map (:mod:`qtheory.claimmap`) this record judges.
    p_value : float or None
        For a statement judged by a test of many quantities at once (a *tested* record: no
        values, see :func:`qtheory.verdicts.sign_flip_test` and
        :func:`qtheory.verdicts.independent_test`), the test's p-value; it joins the page's
        Holm family like any other record's. ``evidence`` names the test and its statistic.
    resolved : bool or None
        For a tested record: whether the data resolve the margin that matters (every
        quantity's 95% interval within its margin), required for "agrees".
    ours_runs, reference_runs : tuple of float or None
        The independent run (or batch) means an estimated value averages. Given, they fix the
        value, its standard error and degrees of freedom (``mean``, ``sd / sqrt(n)``, ``n - 1``;
        values given beside them must match), and :func:`qtheory.verdicts.compare` checks on them
        that a t test may judge the record (enough runs, no evidence of skew) and corrects the
        statistic for their skewness. Every estimate the book computes itself carries them.
    assumption_failure : str
        For a tested record: why its test cannot judge its data ("" when its assumptions hold,
        :attr:`qtheory.verdicts.MultipleTest.why_not`); such a record is "not resolved".
    cause : str
        The best-supported cause of a difference, in plain words ("the paper's means count the jobs
        just after an arrival, the arriving job included"): shown right after the difference's size
        when the record does not agree (or agrees with a significant difference inside its margin).
        A record explained by a :class:`Finding` takes the finding's title when it has none.
    reading : str
        When several records judge one sentence of a paper under different readings of it: this
        record's reading, in a few words ("in the paper's own words"). The first record of the
        sentence carries the reading its verdict rests on; the verdict box shows the other
        readings' outcomes beside it, never as separate verdicts of the same sentence.
    verdict : str or None
        For reconstructions / errata, the outcome of the notebook's check.
    evidence : str
        A sentence on how the value was obtained (method, sizes, seed).
    """

    item: str
    text: str
    paper: float | None = None
    ours: float | None = None
    paper_se: float | None = None
    ours_se: float | None = None
    tolerance: float | None = None
    category: str = "claim"
    verdict: str | None = None
    evidence: str = ""
    extra: dict = field(default_factory=dict)
    source: str = ""
    reference: float | None = None
    reference_se: float | None = None
    holds: bool | None = None
    alternatives: str = ""
    finding: str = ""
    ours_df: float | None = None
    paper_df: float | None = None
    reference_df: float | None = None
    family: str = ""
    key: str = ""
    p_value: float | None = None
    resolved: bool | None = None
    ours_runs: tuple[float, ...] | None = None
    reference_runs: tuple[float, ...] | None = None
    assumption_failure: str = ""
    cause: str = ""
    reading: str = ""

    def __post_init__(self):
        for side in ("ours", "reference"):
            if getattr(self, f"{side}_runs") is not None:
                self._take_runs(side)
        if self.category not in CATEGORIES:
            raise ParameterError(f"`category` must be one of {', '.join(CATEGORIES)} (got {self.category!r})")
        for name in ("paper", "ours", "reference", "paper_se", "ours_se", "reference_se", "tolerance",
                     "ours_df", "paper_df", "reference_df"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                          and math.isfinite(value)):
                raise ParameterError(f"`{name}` must be a finite number or None (got {value!r})")
            if name.endswith("_se") or name == "tolerance":
                if value is not None and value < 0:
                    raise ParameterError(f"`{name}` must be >= 0 (got {value!r})")
            if name.endswith("_df") and value is not None and value < 1:
                raise ParameterError(f"`{name}` must be >= 1 (got {value!r})")
        for side in ("paper", "ours", "reference"):
            se, df = getattr(self, f"{side}_se"), getattr(self, f"{side}_df")
            if se and df is None:
                raise ParameterError(f"`{side}_se` = {se!r} needs its degrees of freedom `{side}_df` "
                                     "(runs - 1, batches - 1)")
        if self.p_value is not None or self.resolved is not None:
            self._check_tested()
        elif self.assumption_failure:
            raise ParameterError("only a tested record (with `p_value`) carries `assumption_failure`")
        if self.holds is not None and not isinstance(self.holds, bool):
            raise ParameterError(f"`holds` must be True, False or None (got {self.holds!r})")
        if self.category in ("check", "reconstruction") and (self.paper is not None or self.paper_se is not None):
            raise ParameterError(f"only a paper claim or erratum has a `paper` value; a {self.category} "
                                 "compares `ours` with `reference` or its evidence")
        if self.category != "check" and (self.reference is not None or self.reference_se is not None):
            raise ParameterError("only an internal check has a `reference` value")
        if self.category in ("claim", "check"):
            self._check_judgeable()

    def _take_runs(self, side: str) -> None:
        """Freeze `side`'s run means as a tuple and derive (or check) its value, standard error and
        degrees of freedom from them."""
        name = f"{side}_runs"
        raw = getattr(self, name)
        try:
            runs = tuple(float(x) for x in raw)
        except (TypeError, ValueError):
            raise ParameterError(f"`{name}` must be a sequence of numbers (got {raw!r})") from None
        if len(runs) < 2 or not all(math.isfinite(x) for x in runs):
            raise ParameterError(f"`{name}` must hold at least 2 finite run means (got {len(runs)})")
        n = len(runs)
        mean = math.fsum(runs) / n
        se = math.sqrt(math.fsum((x - mean) ** 2 for x in runs) / (n - 1) / n)
        object.__setattr__(self, name, runs)
        for field_name, value in ((side, mean), (f"{side}_se", se), (f"{side}_df", float(n - 1))):
            given = getattr(self, field_name)
            if given is None:
                object.__setattr__(self, field_name, value)
            elif not (isinstance(given, (int, float)) and math.isclose(given, value, rel_tol=1e-9,
                                                                      abs_tol=1e-12 * max(1.0, abs(mean)))):
                raise ParameterError(f"`{field_name}` = {given!r} does not match its run means `{name}` "
                                     f"(which give {value!r})")

    def _check_tested(self) -> None:
        p = self.p_value
        if not (isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 <= p <= 1.0):
            raise ParameterError(f"`p_value` must be a number in [0, 1] (got {p!r})")
        if not isinstance(self.resolved, bool):
            raise ParameterError(f"a tested record needs `resolved` True or False (got {self.resolved!r})")
        if self.category not in ("claim", "check"):
            raise ParameterError(f"only a claim or a check is judged by a test (got category {self.category!r})")
        if self.holds is not None or self.target is not None or self.ours is not None:
            raise ParameterError("a tested record carries `p_value` and `resolved` and no `holds`, target or "
                                 "`ours` value (its evidence gives the statistic)")
        if not self.evidence:
            raise ParameterError("a tested record's `evidence` must name its test and statistic")

    @property
    def tested(self) -> bool:
        """Whether the record is judged by the p-value of a test of its own (:attr:`p_value`)."""
        return self.p_value is not None

    def _check_judgeable(self) -> None:
        target = "paper" if self.category == "claim" else "reference"
        if self.p_value is not None:
            return
        if self.holds is not None:
            if getattr(self, target) is not None:
                raise ParameterError(f"a qualitative {self.category} carries `holds` and no `{target}` value")
            return
        if getattr(self, target) is None or self.ours is None:
            raise ParameterError(f"a {self.category} needs both `{target}` and `ours` values "
                                 "(or `holds` for a qualitative statement)")
        if not getattr(self, f"{target}_se") and not self.ours_se and self.tolerance is None:
            raise ParameterError(f"a {self.category} needs a standard error > 0 on one side or a `tolerance` to be "
                                 "judged (an exact comparison states the tolerance its evidence justifies)")

    @property
    def target(self) -> float | None:
        """The value ours is compared with: the paper's (claims) or the reference (checks)."""
        return self.reference if self.category == "check" else self.paper

    @property
    def target_se(self) -> float | None:
        return self.reference_se if self.category == "check" else self.paper_se

    @property
    def target_df(self) -> float | None:
        return self.reference_df if self.category == "check" else self.paper_df

    @property
    def difference(self) -> float | None:
        if self.target is None or self.ours is None:
            return None
        return self.ours - self.target

    @property
    def z(self) -> float | None:
        """The absolute difference in combined standard errors, the t statistic of
        :func:`qtheory.verdicts.compare` (None without standard errors)."""
        from .verdicts import compare

        c = compare(self)
        return None if c is None else abs(c.t)

    def verdict_alone(self):
        """The :class:`qtheory.verdicts.Verdict` of this record judged alone (a family of one)."""
        from .verdicts import judge_one

        return judge_one(self)

    @property
    def passes(self) -> bool | None:
        """Whether a claim agrees / a check holds judged alone (None: not resolved, or a
        reconstruction or erratum)."""
        if self.category not in ("claim", "check"):
            return None
        return self.verdict_alone().passes

    def judge(self) -> str:
        """``agrees``/``differs``/``not resolved`` for claims, ``holds``/``fails``/``not resolved``
        for checks (judged alone), else the verdict."""
        if self.category in ("claim", "check"):
            return self.verdict_alone().label
        return self.verdict or "see evidence"

    @property
    def label(self) -> str:
        """The verdict box's label, judged alone (:func:`label_of` for a page's family)."""
        return label_of(self, self.judge() if self.category in ("claim", "check") else None)

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}
        for name in ("ours_runs", "reference_runs"):
            if name in out:
                out[name] = list(out[name])
        return out


def label_of(c: Claim, verdict: str | None) -> str:
    """The label a record is shown with, from its verdict (agrees / differs / not resolved for
    claims; internal check, internal check fails, internal check not resolved for checks)."""
    if c.category == "claim":
        return verdict
    if c.category == "check":
        return {"holds": "internal check", "fails": "internal check fails"}.get(verdict, "internal check not resolved")
    return c.category


#: labels of a finding, as of a claim's :attr:`Claim.label`
FINDING_LABELS = ("agrees", "differs", "not resolved", "reconstruction", "internal check", "erratum",
                  "beyond the papers")


@dataclass(frozen=True)
class Finding:
    """One conclusion that explains several records, computed once and worded once.

    An item function builds it from its data (e.g. "Table 1's E[Q] fit averages taken just
    after arrivals, not time averages", with the sign test); the records it explains carry
    its `id` in :attr:`Claim.finding`. The result page's verdict box, the claims page (the rows
    folded under it), the errata page and any narrative page (the ``finding`` directive) show
    this one text.

    Attributes
    ----------
    id : str
        A stable name, ``<item>-<words>`` (e.g. ``"R-T1-mean-offset"``), used as the anchor.
    item : str
        Manifest ID of the result that computes it.
    title : str
        The finding in one line (prose with ``$...$`` math).
    text : str
        The statement with its numbers (Markdown, ``$...$`` math), computed from the data.
    label : str
        One of :data:`FINDING_LABELS`.
    source : str
        Where in the paper the values it explains are printed.
    """

    id: str
    item: str
    title: str
    text: str
    label: str
    source: str = ""

    def __post_init__(self):
        if self.label not in FINDING_LABELS:
            raise ParameterError(f"`label` must be one of {', '.join(FINDING_LABELS)} (got {self.label!r})")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*", self.id) or not self.id.startswith(self.item + "-"):
            raise ParameterError(f"`id` must be '<item>-<words>' of letters, digits and hyphens "
                                 f"starting with {self.item + '-'!r} (got {self.id!r})")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def collect(root: str | os.PathLike) -> list[Claim]:
    """Every claim recorded in the JSON sidecars under the results folder `root`."""
    out = []
    for meta_path in sorted(Path(root).glob("*/*.json")):
        if meta_path.stem != meta_path.parent.name:
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        for record in meta.get("claims", []):
            out.append(Claim(**record))
    return out


def collect_findings(root: str | os.PathLike) -> list[Finding]:
    """Every finding recorded in the JSON sidecars under the results folder `root`."""
    out = []
    for meta_path in sorted(Path(root).glob("*/*.json")):
        if meta_path.stem != meta_path.parent.name:
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out += [Finding(**record) for record in meta.get("findings", [])]
    return out


@dataclass(frozen=True)
class Noted:
    """A reconstruction or erratum of the text that no notebook records as a claim of its own.

    Each paper declares its own in its subpackage's ``items`` module (the ``noted`` of its
    :class:`qtheory.manifest.Paper`); :data:`NOTED` gathers them.

    Its evidence is read at build time from the results of related items: ``evidence``
    lists ``(item, key)`` pairs, where ``key`` is a summary entry of the item's JSON
    sidecar or ``"claim:<words>"`` for the recorded claim of that item whose text
    contains the words.
    """

    item: str
    category: str
    text: str
    evidence: tuple[tuple[str, str], ...]
    verdict: str
    source: str = ""
    alternatives: str = ""

    def __post_init__(self):
        if self.category not in ("reconstruction", "erratum"):
            raise ParameterError(f"`category` must be 'reconstruction' or 'erratum' (got {self.category!r})")
        if not self.evidence:
            raise ParameterError("`evidence` must name at least one recorded value")


#: reconstructions and errata found while reading the papers (and in the reading notes)
#: that are checked by results recorded under other headings; each paper declares its own
#: in ``qtheory/<paper>/items/__init__.py`` (:class:`qtheory.manifest.Paper`), gathered on first use
NOTED: tuple[Noted, ...]


def _noted() -> tuple[Noted, ...]:
    from . import manifest

    return tuple(n for p in manifest.papers().values() for n in p.noted)


def __getattr__(name: str):
    if name == "NOTED":
        globals()["NOTED"] = _noted()
        return globals()["NOTED"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"NOTED"})
