"""What the papers state, what we reconstructed, what we checked ourselves, beside our values.

A notebook records every number it wants a reader to judge through
:meth:`qtheory.results.ResultWriter.claim`; the record is stored in the result's JSON
sidecar. At book build time :func:`write_pages` collects the records of the results
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
With standard errors the difference is measured in units of the combined standard
error (``paper_se``/``reference_se`` with ``ours_se``) and passes when it is at most
``z_max`` (default 4). Without standard errors it passes when the absolute difference
is at most ``tolerance``. A qualitative claim or check (no numbers) carries ``holds``,
the outcome of the notebook's test of the statement.
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

__all__ = ["Claim", "CATEGORIES", "Finding", "FINDING_LABELS", "collect_findings", "verdict_box", "Noted", "NOTED", "collect", "describe", "noted_evidence",
           "render_claims", "render_reconstructions", "render_errata", "summary_counts", "write_pages"]

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
    tolerance : float or None
        Absolute tolerance for deterministic comparisons, justified in ``evidence``.
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
    z_max: float = 4.0
    extra: dict = field(default_factory=dict)
    source: str = ""
    reference: float | None = None
    reference_se: float | None = None
    holds: bool | None = None
    alternatives: str = ""
    finding: str = ""

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ParameterError(f"`category` must be one of {', '.join(CATEGORIES)} (got {self.category!r})")
        for name in ("paper", "ours", "reference", "paper_se", "ours_se", "reference_se", "tolerance"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                          and math.isfinite(value)):
                raise ParameterError(f"`{name}` must be a finite number or None (got {value!r})")
            if name.endswith("_se") or name == "tolerance":
                if value is not None and value < 0:
                    raise ParameterError(f"`{name}` must be >= 0 (got {value!r})")
        if self.holds is not None and not isinstance(self.holds, bool):
            raise ParameterError(f"`holds` must be True, False or None (got {self.holds!r})")
        if self.category in ("check", "reconstruction") and (self.paper is not None or self.paper_se is not None):
            raise ParameterError(f"only a paper claim or erratum has a `paper` value; a {self.category} "
                                 "compares `ours` with `reference` or its evidence")
        if self.category != "check" and (self.reference is not None or self.reference_se is not None):
            raise ParameterError("only an internal check has a `reference` value")
        if self.category in ("claim", "check"):
            self._check_judgeable()

    def _check_judgeable(self) -> None:
        target = "paper" if self.category == "claim" else "reference"
        if self.holds is not None:
            if getattr(self, target) is not None:
                raise ParameterError(f"a qualitative {self.category} carries `holds` and no `{target}` value")
            return
        if getattr(self, target) is None or self.ours is None:
            raise ParameterError(f"a {self.category} needs both `{target}` and `ours` values "
                                 "(or `holds` for a qualitative statement)")
        if getattr(self, f"{target}_se") is None and self.ours_se is None and self.tolerance is None:
            raise ParameterError(f"a {self.category} needs standard errors or a `tolerance` to be judged")

    @property
    def target(self) -> float | None:
        """The value ours is compared with: the paper's (claims) or the reference (checks)."""
        return self.reference if self.category == "check" else self.paper

    @property
    def target_se(self) -> float | None:
        return self.reference_se if self.category == "check" else self.paper_se

    @property
    def difference(self) -> float | None:
        if self.target is None or self.ours is None:
            return None
        return self.ours - self.target

    @property
    def z(self) -> float | None:
        """Difference in combined standard errors (None without standard errors)."""
        se2 = (self.target_se or 0.0) ** 2 + (self.ours_se or 0.0) ** 2
        if self.difference is None or (self.target_se is None and self.ours_se is None):
            return None
        if se2 == 0.0:
            return 0.0 if self.difference == 0.0 else math.inf
        return abs(self.difference) / math.sqrt(se2)

    @property
    def passes(self) -> bool | None:
        """Whether a claim agrees / a check holds (None for reconstructions and errata)."""
        if self.category not in ("claim", "check"):
            return None
        if self.holds is not None:
            return self.holds
        z = self.z
        if z is not None:
            return z <= self.z_max
        return abs(self.difference) <= self.tolerance

    def judge(self) -> str:
        """``agrees``/``differs`` for claims, ``holds``/``fails`` for checks, else the verdict."""
        if self.category == "claim":
            return "agrees" if self.passes else "differs"
        if self.category == "check":
            return "holds" if self.passes else "fails"
        return self.verdict or "see evidence"

    @property
    def label(self) -> str:
        """The verdict box's label: agrees / differs (claims), internal check (holds or fails),
        reconstruction, erratum."""
        if self.category == "claim":
            return self.judge()
        if self.category == "check":
            return "internal check" if self.passes else "internal check fails"
        return self.category

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}


#: labels of a finding, as of a claim's :attr:`Claim.label`
FINDING_LABELS = ("agrees", "differs", "reconstruction", "internal check", "erratum")


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


def _compact(value: Any) -> str:
    """A recorded value as prose: numbers through :func:`qtheory.display.number`, a mapping as
    ``key: value; ...``, a sequence as ``a, b, c`` (no Python reprs on the page)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return _num(float(value))
    if isinstance(value, dict):
        return "; ".join(f"{_words(str(k))}: {_compact(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_compact(v) for v in value)
    return str(value)


def _words(key: str) -> str:
    """A result key as words: ``at_largest_N`` -> ``at largest N``."""
    return key.replace("_", " ")


def noted_evidence(root: str | os.PathLike, noted: Noted) -> list[str]:
    """The recorded values behind a :class:`Noted` entry, one line each, from the results `root`."""
    out = []
    for item_id, key in noted.evidence:
        meta_path = Path(root) / item_id / f"{item_id}.json"
        if not meta_path.exists():
            out.append(f"{item_id}: not recorded in this build")
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if key.startswith("claim:"):
            words = key[len("claim:"):]
            found = [Claim(**r) for r in meta.get("claims", []) if words in r.get("text", "")]
            out += [f"{describe(c)} {c.judge()}" for c in found] or [f"{item_id}: no claim about {words!r}"]
        elif key in meta:
            out.append(f"{item_id}, {_words(key)}: {_compact(meta[key])}")
        else:
            out.append(f"{item_id}: {key} not recorded")
    return out


def _num(x: float | None) -> str:
    from .display import number

    return number(x)


def _size(c: Claim) -> str:
    if c.holds is not None:
        return "—"
    if c.z is not None:
        return f"{c.z:.1f} SE"
    if c.difference is not None:
        return f"{_num(abs(c.difference))} (tol. {_num(c.tolerance)})"
    return "qualitative" if c.holds is not None else "—"


def _value(x: float | None, se: float | None) -> str:
    from .display import number

    return number(x, se)


def describe(c: Claim) -> str:
    """One line for a record: its text, the compared values and the size of the difference.

    The verdict (:meth:`Claim.judge`) is left to the caller, which may typeset it.
    """
    parts = [c.text]
    if c.source:
        parts[0] += f" ({c.source})"
    if c.paper is not None:
        parts.append("paper " + _value(c.paper, c.paper_se))
    if c.reference is not None:
        parts.append("reference " + _value(c.reference, c.reference_se))
    if c.ours is not None:
        parts.append("companion " + _value(c.ours, c.ours_se))
    if c.holds is not None:
        parts.append("qualitative" + (f", {c.evidence}" if c.evidence else ""))
    elif c.category in ("claim", "check"):
        parts.append("difference " + _size(c))
    elif c.evidence:
        parts.append(c.evidence)
    return "; ".join(parts) + ":"


#: a long identifier (a result key, a test name): set as code, which may break anywhere,
#: instead of a word that no table column can hold
_IDENTIFIER = re.compile(r"(?<![\w`])([A-Za-z][\w.:/-]*_[\w.:/-]{12,})")


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: a bare ``|`` would split the cell, a ``*`` or
    ``_`` outside ``$...$`` math (``q*_(m,1)``) would start emphasis, and a long identifier is set
    as code (it may then break at the column's edge)."""
    parts = re.split(r"(\$[^$]*\$|`[^`]*`)", text.replace("|", "\\|").replace("\n", " "))
    return "".join(part if part[:1] in ("$", "`") else
                   _escape_emphasis(_IDENTIFIER.sub(r"`\1`", part)) for part in parts)


def _escape_emphasis(text: str) -> str:
    """``*`` and ``_`` of plain text escaped (``q*_(m,1) ... q*_(m,1)`` would set emphasis), code left alone."""
    return "".join(p if p.startswith("`") else p.replace("*", "\\*").replace("_", "\\_")
                   for p in re.split(r"(`[^`]*`)", text))


def _link(item_id: str) -> str:
    from . import manifest

    item = manifest.get(item_id)
    return f"[{item.id}]({item.part}/{item.notebook}.ipynb)"


def _paper_of(item_id: str) -> str:
    return item_id.split("-", 1)[0]


def _verdict_cell(c: Claim) -> str:
    verdict = c.judge()
    return f"**{verdict}**" if c.passes is False else verdict


def claim_anchors(claims: list[Claim]) -> dict[int, str]:
    """``{id(record): anchor}``: ``claim-<item>-<k>``, the k-th record (1-based, all kinds) of its item."""
    count: dict[str, int] = {}
    out = {}
    for c in claims:
        count[c.item] = count.get(c.item, 0) + 1
        out[id(c)] = f"claim-{c.item.lower()}-{count[c.item]}"
    return out


def finding_anchor(finding_id: str) -> str:
    return f"finding-{finding_id.lower()}"


def _record_table(group: list[Claim], target: str, anchors: dict[int, str] | None = None) -> list[str]:
    """Records as a three-column table (what, values, verdict) that fits the text column."""
    head = "paper" if target == "paper" else "reference"
    lines = [f"| statement | {head} and companion | verdict |", "|---|---|---|"]
    for c in group:
        if c.holds is not None:
            # a statement, not a number: no paper value, the verdict is the item's test;
            # the companion's measured value (if any) and how it was tested are shown
            measured = _value(c.ours, c.ours_se) if c.ours is not None else ""
            values = "; ".join(x for x in (f"qualitative{': ' + measured if measured else ''}",
                                           _cell(c.evidence)) if x)
        else:
            values = (f"{head} {_value(c.target, c.target_se)}<br>companion {_value(c.ours, c.ours_se)}"
                      f"<br>difference {_size(c)}")
        anchor = f'<span id="{anchors[id(c)]}"></span>' if anchors and id(c) in anchors else ""
        where = f" ({_cell(c.source)})" if c.source else ""
        lines.append(f"| {anchor}{_link(c.item)}: {_cell(c.text)}{where} | {values} | {_verdict_cell(c)} |")
    return lines + [""]


def _finding_section(f: Finding, rows: list[Claim], anchors: dict[int, str]) -> list[str]:
    """A finding on the claims page: its label, title and text, the rows it explains folded under it."""
    lines = [f'<span id="{finding_anchor(f.id)}"></span>', "",
             f"**{f.label}** ({_link(f.item)}{', ' + _cell(f.source) if f.source else ''}): **{f.title}** {f.text}", ""]
    if rows:
        lines += [f"````{{admonition}} The {len(rows)} record{'s' if len(rows) != 1 else ''} it explains",
                  ":class: dropdown", ""]
        lines += _record_table(rows, "paper" if rows[0].category == "claim" else "reference", anchors)
        lines += ["````", ""]
    return lines


def summary_counts(claims: list[Claim], noted: list[Noted] | None = None,
                   findings: list[Finding] | None = None) -> dict[str, dict[str, int]]:
    """Per paper: claims, agree, differ, reconstructions, internal checks (and failing), errata.

    A finding counts once: the paper claims it explains are replaced by the finding (under its
    label), so that one cause is one "differs", not one per table row.
    """
    from . import manifest

    noted = list(noted or [])
    findings = list(findings or [])
    explained = {f.id for f in findings}
    out = {}
    for paper in manifest.PAPERS:
        mine = [c for c in claims if _paper_of(c.item) == paper]
        own = [f for f in findings if _paper_of(f.item) == paper
               and any(c.finding == f.id and c.category == "claim" for c in mine)]
        paper_claims = [c for c in mine if c.category == "claim" and c.finding not in explained]
        checks = [c for c in mine if c.category == "check"]
        out[paper] = {
            "claims": len(paper_claims) + len(own),
            "agree": sum(bool(c.passes) for c in paper_claims) + sum(f.label == "agrees" for f in own),
            "differ": sum(c.passes is False for c in paper_claims) + sum(f.label != "agrees" for f in own),
            "reconstructions": sum(c.category == "reconstruction" for c in mine)
            + sum(n.category == "reconstruction" and _paper_of(n.item) == paper for n in noted),
            "checks": len(checks),
            "checks_failing": sum(c.passes is False for c in checks),
            "errata": sum(c.category == "erratum" for c in mine)
            + sum(n.category == "erratum" and _paper_of(n.item) == paper for n in noted),
        }
    return out


def render_claims(claims: list[Claim], noted: list[Noted] | None = None,
                  findings: list[Finding] | None = None) -> str:
    """The claims page: per-paper counts, the differences first, then every claim and check.

    The records a :class:`Finding` explains are shown once, folded under the finding.
    """
    from . import manifest

    findings = list(findings or [])
    known = {f.id: f for f in findings}
    anchors = claim_anchors(claims)
    rows = [c for c in claims if c.category == "claim"]
    checks = [c for c in claims if c.category == "check"]
    lines = ["# Claims of the papers, checked", "",
             "Every row below is collected from the result files of this build. Only values and "
             "statements printed in a paper are counted as *claims*: each cites where the paper "
             "makes it and is judged *agrees* or *differs* (within 4 combined standard errors for "
             "statistical values, otherwise within the stated tolerance). Where one cause explains "
             "several rows, it is stated once as a *finding*, with its rows folded under it, and "
             "counted once. Our own cross-checks "
             "(exact values against simulation, two algorithms, a theorem against a computation) "
             "are listed separately as *internal checks*: they show the code is consistent, not "
             "that a paper is right. Our readings of ambiguous displays are on the "
             "[reconstructions](reconstructions.md) page, suspected errors of the papers on the "
             "[errata](errata.md) page. Nothing here is typed by hand; each item links to the page "
             "that computed it.", ""]
    if not rows and not checks:
        lines.append("Nothing has been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    counts = summary_counts(claims, noted, findings)
    lines += ["| paper | claims | agree | differ | reconstructions | internal checks | errata |",
              "|---|---|---|---|---|---|---|"]
    for paper, k in counts.items():
        if any(k.values()):
            failing = f" ({k['checks_failing']} failing)" if k["checks_failing"] else ""
            lines.append(f"| [{paper}](#claims-{paper.lower()}) | {k['claims']} | {k['agree']} | {k['differ']} | "
                         f"{k['reconstructions']} | {k['checks']}{failing} | {k['errata']} |")
    lines.append("")

    def folded(c: Claim) -> bool:
        return c.finding in known

    differing = [c for c in rows if c.passes is False and not folded(c)]
    failing = [c for c in checks if c.passes is False and not folded(c)]
    differing_findings = [f for f in findings if f.label != "agrees"
                          and any(c.finding == f.id and c.category in ("claim", "check") for c in claims)]
    lines += ["(claims-differences)=", "## Differences", ""]
    if differing or differing_findings:
        lines += ["Claims of the papers that this build does not reproduce; the linked pages discuss each.", ""]
        for f in differing_findings:
            lines += _finding_section(f, [c for c in claims if c.finding == f.id and c.category in ("claim", "check")],
                                      anchors)
        if differing:
            lines += _record_table(differing, "paper", anchors)
    else:
        lines += ["Every claim of the papers recorded in this build agrees.", ""]
    if failing:
        lines += ["Internal checks that fail in this build:", ""] + _record_table(failing, "reference", anchors)
    for paper in manifest.PAPERS:
        group = [c for c in rows if _paper_of(c.item) == paper and not folded(c)]
        group_checks = [c for c in checks if _paper_of(c.item) == paper and not folded(c)]
        agreeing_findings = [f for f in findings if _paper_of(f.item) == paper and f.label == "agrees"
                             and any(c.finding == f.id for c in claims)]
        if not group and not group_checks and not agreeing_findings:
            continue
        lines += [f"(claims-{paper.lower()})=", f"## {paper}: {manifest.PAPERS[paper]}", ""]
        for f in agreeing_findings:
            lines += _finding_section(f, [c for c in claims if c.finding == f.id], anchors)
        if group:
            lines += ["### Claims of the paper", ""] + _record_table(group, "paper", anchors)
        if group_checks:
            lines += ["### Internal checks", "",
                      "Cross-checks of the companion's own computations (not agreement with the paper).", ""]
            lines += _record_table(group_checks, "reference", anchors)
    return "\n".join(lines) + "\n"


def noted_anchor(noted: Noted) -> str:
    """Anchor of a :class:`Noted` entry on its page: ``noted-<item>-<8 hex digits of its text's hash>``."""
    import hashlib

    return f"noted-{noted.item.lower()}-{hashlib.sha1(noted.text.encode()).hexdigest()[:8]}"


def _noted_section(records: list[Claim], noted: list[tuple[Noted, list[str]]], with_alternatives: bool,
                   anchors: dict[int, str] | None = None, findings: dict[str, Finding] | None = None) -> list[str]:
    lines = []
    anchors, findings = anchors or {}, findings or {}
    if records:
        head = "| item | what | source |" + (" readings considered |" if with_alternatives else "") + \
            " evidence | value | verdict |"
        lines += ["Checked by a notebook of their own:", "", head, "|" + "---|" * (head.count("|") - 1)]
        for c in records:
            value = _num(c.ours) if c.ours is not None else "—"
            alt = f" {_cell(c.alternatives) or '—'} |" if with_alternatives else ""
            anchor = f'<span id="{anchors[id(c)]}"></span>' if id(c) in anchors else ""
            verdict = _cell(c.judge())
            if c.finding in findings:  # worded once: the finding's title, linked to its full text
                f = findings[c.finding]
                verdict = f'{_cell(f.title)} (<a href="claims.html#{finding_anchor(f.id)}">finding</a>)'
            lines.append(f"| {anchor}{_link(c.item)} | {_cell(c.text)} | {_cell(c.source) or '—'} |{alt} "
                         f"{_cell(c.evidence) or '—'} | {value} | {verdict} |")
        lines.append("")
    if noted:
        head = "| item | what | source |" + (" readings considered |" if with_alternatives else "") + \
            " values recorded in this build | verdict |"
        lines += ["Found while reading the text, with the values recorded by related checks:", "",
                  head, "|" + "---|" * (head.count("|") - 1)]
        for n, ev in noted:
            alt = f" {_cell(n.alternatives) or '—'} |" if with_alternatives else ""
            lines.append(f'| <span id="{noted_anchor(n)}"></span>{_link(n.item)} | {_cell(n.text)} | '
                         f"{_cell(n.source) or '—'} |{alt} "
                         f"{'<br>'.join(_cell(e) for e in ev)} | {_cell(n.verdict)} |")
        lines.append("")
    return lines


def _render_category(category: str, title: str, intro: str, claims: list[Claim],
                     noted: list[tuple[Noted, list[str]]] | None, findings: list[Finding] | None = None) -> str:
    from . import manifest

    anchors = claim_anchors(claims)
    known = {f.id: f for f in findings or []}
    records = [c for c in claims if c.category == category]
    noted = [(n, ev) for n, ev in (noted or []) if n.category == category]
    lines = [f"# {title}", "", intro, ""]
    if not records and not noted:
        lines.append("Nothing has been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    for paper in manifest.PAPERS:
        mine = [c for c in records if _paper_of(c.item) == paper]
        mine_noted = [(n, ev) for n, ev in noted if _paper_of(n.item) == paper]
        if mine or mine_noted:
            lines += [f"## {paper}: {manifest.PAPERS[paper]}", ""]
            lines += _noted_section(mine, mine_noted, category == "reconstruction", anchors, known)
    return "\n".join(lines) + "\n"


def render_reconstructions(claims: list[Claim], noted: list[tuple[Noted, list[str]]] | None = None,
                           findings: list[Finding] | None = None) -> str:
    """The reconstructions page: our readings of displays and settings, with the alternatives."""
    return _render_category(
        "reconstruction", "Reconstructions",
        "Where a paper's text leaves a display or a setting open to more than one reading, the "
        "companion had to choose. Each row gives our reading, where in the paper it applies, the "
        "other readings we considered, and the numerical check that supports ours. These are our "
        "choices, not statements of the papers.", claims, noted, findings)


def render_errata(claims: list[Claim], intro: str = "",
                  noted: list[tuple[Noted, list[str]]] | None = None, findings: list[Finding] | None = None) -> str:
    """The errata page: suspected errors of the papers, each with its numerical evidence."""
    return _render_category(
        "erratum", "Errata in the papers", intro or (
            "Statements of the papers that, we believe, contain an error (a misprint, a missing "
            "factor, a value that does not follow from the stated setting). Each row gives the "
            "evidence this build computed and our verdict; the linked pages discuss each one."),
        claims, noted, findings)


def write_pages(results: str | os.PathLike, book: str | os.PathLike, errata_intro: str = "") -> None:
    """Write ``claims.md``, ``reconstructions.md`` and ``errata.md`` into `book` from `results`."""
    claims = collect(results)
    findings = collect_findings(results)
    noted = [(n, noted_evidence(results, n)) for n in _noted()]
    book = Path(book)
    for name, text in (("claims.md", render_claims(claims, [n for n, _ in noted], findings)),
                       ("reconstructions.md", render_reconstructions(claims, noted, findings)),
                       ("errata.md", render_errata(claims, errata_intro, noted, findings))):
        path = book / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


#: how many records of one item the verdict box lists one by one before it groups them by label
_BOX_LIST_MAX = 4


def _label_html(label: str) -> str:
    css = label.replace(" ", "-")
    return f'<span class="qtheory-label qtheory-label-{css}">{label}</span>'


def _statement(c: Claim) -> str:
    """The record's text without a leading ``"<source>: "`` that repeats its source."""
    head, sep, rest = c.text.partition(": ")
    if sep and c.source and head and head in c.source:
        return rest
    return c.text


def first_sentence(text: str) -> str:
    """The first sentence of `text` (a full stop followed by a space, outside ``$...$`` math)."""
    parts = re.split(r"(\$[^$]*\$)", text)
    out = ""
    for part in parts:
        if part.startswith("$"):
            out += part
            continue
        m = re.search(r"[.;](\s|$)", part)
        if m:
            return out + part[:m.start() + 1]
        out += part
    return out


def _record_page(c: Claim) -> str:
    """The generated page that lists a record: claims (and checks), reconstructions or errata."""
    return {"reconstruction": "reconstructions", "erratum": "errata"}.get(c.category, "claims")


def _box_record(c: Claim, anchor: str, prefix: str) -> str:
    page = _record_page(c)
    where = f"{'Paper' if c.category in ('claim', 'erratum') else 'Ours'}" + (f" ({c.source})" if c.source else "")
    values = []
    if c.holds is None and c.category in ("claim", "check"):
        values.append(f"{'paper' if c.category == 'claim' else 'reference'} {_value(c.target, c.target_se)}, "
                      f"ours {_value(c.ours, c.ours_se)}")
    elif c.holds is not None and c.evidence:
        values.append("We find: " + first_sentence(c.evidence).rstrip(".;"))
    elif c.ours is not None and c.category == "claim":
        values.append(f"ours {_value(c.ours, c.ours_se)}")
    if c.category in ("reconstruction", "erratum") and c.verdict:
        values.append(c.verdict)
    text = f"{where}: {_statement(c).rstrip('.')}" + (f". {'; '.join(values)}." if values else ".")
    return f'- {_label_html(c.label)} {_box_text(text)} <a href="{prefix}{page}.html#{anchor}">record</a>'


def _box_text(text: str) -> str:
    """Prose for a list item of the box: line breaks folded, a bare ``*`` or ``_`` escaped outside math."""
    parts = re.split(r"(\$[^$]*\$|`[^`]*`)", text.replace("\n", " "))
    return "".join(p if p[:1] in ("$", "`") else _escape_emphasis(p) for p in parts)


def verdict_box(metas: list[dict], *, prefix: str = "../") -> str:
    """The verdict box of a result page (MyST Markdown), from the sidecars `metas` of its items.

    For each finding of the page: its label, title and text, with a link to the claims page where
    the records it explains are folded; then every other record (claim, internal check,
    reconstruction, erratum) of the page's items with its label and a link to its row, grouped by
    label when an item has more than a few; then the reconstructions and errata noted for the
    items (:data:`NOTED`). `prefix` leads from the page to the book's root (``"../"`` from a part).
    Nothing in it is typed by hand: everything comes from the item functions' results.
    """
    items = [m["id"] for m in metas]
    claims = [Claim(**r) for m in metas for r in m.get("claims", [])]
    findings = [Finding(**r) for m in metas for r in m.get("findings", [])]
    anchors = claim_anchors(claims)
    known = {f.id for f in findings}
    lines = []
    for f in findings:
        n = sum(c.finding == f.id for c in claims)
        rows = f" ({n} record{'s' if n != 1 else ''} folded under it)" if n else ""
        lines.append(f"- {_label_html(f.label)} **{_box_text(f.title)}**"
                     + (f" ({_box_text(f.source)})" if f.source else "")
                     + f" {_box_text(f.text)} <a href=\"{prefix}claims.html#{finding_anchor(f.id)}\">finding{rows}</a>")
    for item in items:
        mine = [c for c in claims if c.item == item and c.finding not in known]
        if len(mine) <= _BOX_LIST_MAX:
            lines += [_box_record(c, anchors[id(c)], prefix) for c in mine]
            continue
        for label in dict.fromkeys(c.label for c in mine):
            group = [c for c in mine if c.label == label]
            if label in ("differs", "internal check fails", "erratum", "reconstruction") and len(group) <= 3:
                lines += [_box_record(c, anchors[id(c)], prefix) for c in group]
                continue
            sources = ", ".join(dict.fromkeys(c.source for c in group if c.source))
            kind = {"agrees": "claims of the paper agree", "differs": "claims of the paper differ",
                    "internal check": "internal checks hold", "internal check fails": "internal checks fail",
                    "reconstruction": "reconstructions", "erratum": "suspected errata"}[label]
            page = _record_page(group[0])
            lines.append(f"- {_label_html(label)} {item}: {len(group)} {kind}"
                         + (f" ({_box_text(sources)})" if sources else "")
                         + f' <a href="{prefix}{page}.html#{anchors[id(group[0])]}">records</a>')
    for n in _noted():
        if n.item in items:
            page = "reconstructions" if n.category == "reconstruction" else "errata"
            lines.append(f"- {_label_html(n.category)} {_box_text(n.text)}"
                         + (f" ({_box_text(n.source)})" if n.source else "")
                         + f': {_box_text(n.verdict)} <a href="{prefix}{page}.html#{noted_anchor(n)}">record</a>')
    if not lines:
        lines.append(f"- The paper prints no value for "
                     f"{', '.join(items)} to compare with; the figures and tables below are regenerated "
                     "from this build's data.")
    return "\n".join(["````{admonition} Verdict", ":class: qtheory-verdict", ""] + lines + ["````", ""])
