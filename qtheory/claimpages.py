"""The generated pages of records: the claims, reconstructions and errata pages, and the verdict box.

Everything here is rendering: the records come from :mod:`qtheory.claims`, their labels from
:mod:`qtheory.verdicts` (each page's records judged as one family), the order of a verdict box
from the claim map (:mod:`qtheory.claimmap`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from .claims import Claim, Finding, Noted, _noted, collect, collect_findings, label_of

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


def noted_evidence(root: str | os.PathLike, noted: Noted, judged: tuple[list[Claim], dict[int, Any]] | None = None
                   ) -> list[str]:
    """The recorded values behind a :class:`Noted` entry, one line each, from the results `root`
    (a record with the label of its page's family judgement). `judged` is ``(records, verdicts)``
    of the whole results folder (:func:`collect` and :func:`judge_pages`), computed once by the
    caller of several entries; it is computed here when not given."""
    if judged is None and any(key.startswith("claim:") for _, key in noted.evidence):
        records = collect(root)
        judged = (records, judge_pages(records)[0])
    out = []
    for item_id, key in noted.evidence:
        meta_path = Path(root) / item_id / f"{item_id}.json"
        if not meta_path.exists():
            out.append(f"{item_id}: not recorded in this build")
            continue
        if key.startswith("claim:"):
            words = key[len("claim:"):]
            records, verdicts = judged
            found = [c for c in records if c.item == item_id and words in c.text]
            out += [_noted_line(c, verdicts[id(c)]) for c in found] or [f"{item_id}: no claim about {words!r}"]
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if key in meta:
            out.append(f"{item_id}, {_words(key)}: {_compact(meta[key])}")
        else:
            out.append(f"{item_id}: {key} not recorded")
    return out


def _num(x: float | None) -> str:
    from .display import number

    return number(x)


#: significant digits of a value recorded without a standard error (an exact value): enough to
#: compare it with the other side's printed digits (an exact 12.008 is not "12")
EXACT_DIGITS = 5


def _value(x: float | None, se: float | None) -> str:
    from .display import number

    if se:
        return number(x, se)
    return number(x, digits=EXACT_DIGITS)


def page_of(item_id: str) -> str:
    """The notebook (book page) whose records judge `item_id`'s statements."""
    from . import manifest

    return manifest.get(item_id).notebook


def judge_pages(claims: list[Claim]) -> tuple[dict[int, Any], dict[str, Any]]:
    """Each page's records judged as one family (:func:`qtheory.verdicts.judge`).

    Returns ``({id(record): Verdict}, {page: Judgement})``.
    """
    from .verdicts import judge

    pages: dict[str, list[Claim]] = {}
    for c in claims:
        pages.setdefault(page_of(c.item), []).append(c)
    verdicts, judgements = {}, {}
    for page, records in pages.items():
        judgement = judge(records)
        judgements[page] = judgement
        verdicts.update({id(c): v for c, v in zip(records, judgement.verdicts)})
    return verdicts, judgements


#: below this a p-value computed in double precision is round-off (a tail far past any threshold):
#: it is written as a bound, never with digits (p = 1.1 × 10⁻¹⁶⁸ was printed)
P_FLOOR = 1e-15


def _p(p: float) -> str:
    return f"{p:.2f}" if p >= 0.01 else _num(p)


def _p_is(p: float) -> str:
    """``p = 0.77``, ``p = 1.1 × 10⁻³``, or ``p < 10⁻¹⁵`` below :data:`P_FLOOR`."""
    return "p < 10\u207b\u00b9\u2075" if p < P_FLOOR else f"p = {_p(p)}"


def _against(v) -> str:
    """What a record's p-value was compared with: the Holm threshold of the page's family, or, on a
    page of one hypothesis, the level itself ("the Holm threshold of the page's one hypothesis");
    nothing for a record left out of the family because its data cannot be judged (its reason says why)."""
    if v.threshold is None:
        return "not tested (outside the page's family)"
    if v.family_size == 1:
        return f"against the level {_p(v.threshold)} (the page's only hypothesis)"
    return f"against the Holm threshold {_p(v.threshold)} of the page's {v.family_size} hypotheses"


def statistics(c: Claim, v) -> str:
    """The statistics behind a record's label, as a sentence: its numbers in plain text, then the
    record's evidence (which may hold ``$...$`` math)."""
    comp = v.comparison
    if c.category not in ("claim", "check"):
        return ""
    if c.holds is not None:
        return ("Qualitative statement, judged by the notebook's test. " + c.evidence.strip()).strip()
    if c.tested:
        p = "no p-value" if c.p_value is None else _p_is(c.p_value)
        return (f"One test of many quantities: {p}, {_against(v)}: {v.reason}. "
                f"{c.evidence.strip()}")
    if comp is None or comp.se == 0:
        d = c.ours - c.target
        tol = c.tolerance or 0.0
        return (f"Deterministic comparison: difference {_num(d)}, "
                f"{'within' if abs(d) <= tol else 'beyond'} the tolerance {_num(tol)}."
                + (f" {c.evidence.strip()}" if c.evidence else ""))
    df = "infinitely many" if comp.df == float("inf") else f"{comp.df:.1f}".rstrip("0").rstrip(".")
    t = _t_text(comp.t)
    if getattr(comp, "method", "t") == "Cantelli":
        from .verdicts import CANTELLI_K

        return (f"Difference {_value(comp.difference, comp.se)}; {comp.why_cantelli.rstrip('.')}, so Cantelli's "
                f"inequality judges it instead (it needs no symmetry): t = {t}, p ≤ 2/(1 + t²) = {_num(comp.p)}, "
                f"{_against(v)}; 95% interval of the difference, ± {CANTELLI_K:.2f} standard errors, "
                f"[{_num(comp.low)}, {_num(comp.high)}] against the margin ± {_num(comp.margin)}: {v.reason}."
                + (f" {c.evidence.strip()}" if c.evidence else ""))
    return (f"Difference {_value(comp.difference, comp.se)}; t = {t} with {df} degrees of freedom, "
            f"{_p_is(comp.p)}, {_against(v)}; 95% interval of the difference [{_num(comp.low)}, {_num(comp.high)}] "
            f"against the margin ± {_num(comp.margin)}: {v.reason}."
            + (f" {c.evidence.strip()}" if c.evidence else ""))


def _noted_line(c: Claim, v) -> str:
    """A related record as one short line of a table of reconstructions or errata: its statement,
    what it found in one sentence (:func:`opening`, else its values, else its evidence's first
    sentence) and its label (the full statistics are on the claims page)."""
    judged = c.category in ("claim", "check")
    if c.tested:    # its test in a few words: the evidence's first sentence lists every quantity
        head = first_sentence(c.evidence)
        found = (head.split(": ", 1)[0] if head.startswith("The statement ")
                 else "one test of many quantities" + ("" if c.p_value is None else f" ({_p_is(c.p_value)})"))
    else:
        found = (opening(c, v) if judged else "") or _record_values(c) or first_sentence(c.evidence)
    label = v.label if judged else c.judge()
    return (f"{c.text.rstrip('.')}" + (f" ({c.source})" if c.source else "") + ": "
            + (f"{found.rstrip('.;')}; " if found else "") + f"{label}.")


def describe(c: Claim, v=None) -> str:
    """One line for a record: its text, the compared values and the statistics (the verdict `v`
    of its page, :func:`judge_pages`; judged alone when None). The label is left to the caller."""
    v = v or (c.verdict_alone() if c.category in ("claim", "check") else None)
    parts = [c.text + (f" ({c.source})" if c.source else "")]
    if c.paper is not None:
        parts.append("paper " + _value(c.paper, c.paper_se))
    if c.reference is not None:
        parts.append("reference " + _value(c.reference, c.reference_se))
    if c.ours is not None:
        parts.append("ours " + _value(c.ours, c.ours_se))
    if v is not None:
        parts.append(statistics(c, v).rstrip("."))
    elif c.evidence:
        parts.append(c.evidence.rstrip("."))
    return "; ".join(parts) + ":"


#: a long identifier (a result key, a test name): set as code, which may break anywhere,
#: instead of a word that no table column can hold
_IDENTIFIER = re.compile(r"(?<![\w`])([A-Za-z][\w.:/-]*_[\w.:/-]{12,})")


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: a bare ``|`` would split the cell, a ``*`` or
    ``_`` outside ``$...$`` math (``q*_(m,1)``) would start emphasis, and a long identifier is set
    as code (it may then break at the column's edge)."""
    from .display import true_minus

    parts = re.split(r"(\$[^$]*\$|`[^`]*`)", text.replace("|", "\\|").replace("\n", " "))
    return "".join(part if part[:1] in ("$", "`") else
                   _escape_emphasis(_IDENTIFIER.sub(r"`\1`", true_minus(part))) for part in parts)


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


def _verdict_cell(c: Claim, verdicts: dict[int, Any]) -> str:
    verdict = verdicts[id(c)].label
    return f"**{verdict}**" if verdicts[id(c)].passes is False else verdict


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


def _record_table(group: list[Claim], target: str, verdicts: dict[int, Any],
                  anchors: dict[int, str] | None = None) -> list[str]:
    """Records as a three-column table (what, values, verdict) that fits the text column."""
    head = "paper" if target == "paper" else "reference"
    lines = [f"| statement | {head} and companion | verdict |", "|---|---|---|"]
    for c in group:
        if c.holds is not None:
            measured = _value(c.ours, c.ours_se) if c.ours is not None else ""
            values = "qualitative" + (f"; ours {measured}" if measured else "")
        else:
            values = _record_values(c, sep="<br>")
        first = opening(c, verdicts[id(c)]) if c.category in ("claim", "check") else ""
        stats = _cell((first + " " if first else "") + statistics(c, verdicts[id(c)]))
        anchor = f'<span id="{anchors[id(c)]}"></span>' if anchors and id(c) in anchors else ""
        where = f" ({_cell(c.source)})" if c.source else ""
        lines.append(f"| {anchor}{_link(c.item)}: {_cell(c.text)}{where} | {values} | "
                     f"{_verdict_cell(c, verdicts)}<br><small>{stats}</small> |")
    return lines + [""]


def _finding_section(f: Finding, rows: list[Claim], anchors: dict[int, str], verdicts: dict[int, Any]) -> list[str]:
    """A finding on the claims page: its label, title and text, the rows it explains folded under it."""
    lines = [f'<span id="{finding_anchor(f.id)}"></span>', "",
             f"**{f.label}** ({_link(f.item)}{', ' + _cell(f.source) if f.source else ''}): "
             f"**{f.title.rstrip('.')}.** {f.text}", ""]
    if rows:
        lines += [f"````{{admonition}} The {len(rows)} record{'s' if len(rows) != 1 else ''} it explains",
                  ":class: dropdown", ""]
        lines += _record_table(rows, "paper" if rows[0].category == "claim" else "reference", verdicts, anchors)
        lines += ["````", ""]
    return lines


def joint_label(tests: list, rows: list[Claim], verdicts: dict[int, Any]) -> str:
    """The label of a family's joint tests (`tests`), in the scheme of its `rows`' labels: *differs*
    when a joint test is rejected; otherwise *agrees* when every row agrees, else *not resolved* (a
    joint test that is not rejected says nothing of the margins, which its rows' intervals judge);
    for a family of internal checks, the check's labels (:func:`qtheory.claims.label_of`)."""
    if any(t.rejected for t in tests):
        label = "differs"
    elif rows and all(verdicts[id(c)].passes for c in rows):
        label = "agrees"
    else:
        label = "not resolved"
    if rows and rows[0].category == "check":
        return {"differs": "internal check fails", "agrees": "internal check"}.get(label, "internal check not resolved")
    return label


def _family_rows(family: str, records: list[Claim]) -> list[Claim]:
    return [c for c in records if c.family == family and c.category in ("claim", "check")]


def _joint_lines(judgements: dict[str, Any], claims: list[Claim], verdicts: dict[int, Any]) -> list[str]:
    """The joint tests of families of rows, one table over the pages, each family's tests labelled
    by :func:`joint_label`."""
    from . import manifest

    rows = []
    for page, j in judgements.items():
        mine = [c for c in claims if page_of(c.item) == page]
        for t in j.joint:
            first = manifest.notebooks()[page][0]
            label = joint_label([t], _family_rows(t.family, mine), verdicts)
            shown = f"**{label}**" if label in ("differs", "internal check fails") else label
            rows.append(f"| [{page}]({first.part}/{page}.ipynb) | {_cell(t.family)} | {_cell(t.describe())} | "
                        f"{shown} |")
    if not rows:
        return []
    return ["Families of rows judged also jointly (Stouffer's Z of the rows' normal scores, and their "
            "sum of squares against chi-square; both in the page's Holm family):", "",
            "| page | family | joint test | verdict |", "|---|---|---|---|", *rows, ""]


def summary_counts(claims: list[Claim], noted: list[Noted] | None = None,
                   findings: list[Finding] | None = None,
                   verdicts: dict[int, Any] | None = None) -> dict[str, dict[str, int]]:
    """Per paper: claims, agree, differ, not resolved, reconstructions, internal checks (and
    failing), errata, with each page's records judged as one family.

    A finding counts once: the paper claims it explains are replaced by the finding (under its
    label), so that one cause is one "differs", not one per table row.
    """
    from . import manifest

    noted = list(noted or [])
    findings = list(findings or [])
    verdicts = verdicts if verdicts is not None else judge_pages(claims)[0]
    explained = {f.id for f in findings}
    out = {}
    for paper in manifest.PAPERS:
        mine = [c for c in claims if _paper_of(c.item) == paper]
        own = [f for f in findings if _paper_of(f.item) == paper
               and any(c.finding == f.id and c.category == "claim" for c in mine)]
        paper_claims = [c for c in mine if c.category == "claim" and c.finding not in explained]
        checks = [c for c in mine if c.category == "check"]
        labels = [verdicts[id(c)].label for c in paper_claims]
        out[paper] = {
            "claims": len(paper_claims) + len(own),
            "agree": labels.count("agrees") + sum(f.label == "agrees" for f in own),
            "differ": labels.count("differs") + sum(f.label == "differs" for f in own),
            "not_resolved": labels.count("not resolved") + sum(f.label == "not resolved" for f in own),
            "reconstructions": sum(c.category == "reconstruction" for c in mine)
            + sum(n.category == "reconstruction" and _paper_of(n.item) == paper for n in noted),
            "checks": len(checks),
            "checks_failing": sum(verdicts[id(c)].label == "fails" for c in checks),
            "errata": sum(c.category == "erratum" for c in mine)
            + sum(n.category == "erratum" and _paper_of(n.item) == paper for n in noted),
        }
    return out


#: the rows of the claims page's summary: (label, what it counts)
SUMMARY_ROWS = (("claims", "claims"), ("agree", "agree"), ("differ", "differ"),
                ("not resolved", "not_resolved"), ("reconstructions", "reconstructions"),
                ("internal checks", "checks"), ("errata", "errata"))


def summary_table(counts: dict[str, dict[str, int]]) -> list[str]:
    """The per-paper counts of :func:`summary_counts` as Markdown: one column per paper, one row per
    count (seven counts side by side, one row per paper, did not fit a phone's width: its last
    columns were off the screen)."""
    papers = [paper for paper, k in counts.items() if any(k.values())]
    if not papers:
        return []
    lines = ["| | " + " | ".join(f"[{paper}](#claims-{paper.lower()})" for paper in papers) + " |",
             "|---|" + "---|" * len(papers)]
    for label, key in SUMMARY_ROWS:
        cells = []
        for paper in papers:
            k = counts[paper]
            failing = f" ({k['checks_failing']} failing)" if key == "checks" and k["checks_failing"] else ""
            cells.append(f"{k[key]}{failing}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + [""]


def procedure_sentence() -> str:
    """How records are judged, in one paragraph (the claims page and the Reproducing page)."""
    from .verdicts import FAMILY_LEVEL, MIN_RUNS, RELATIVE_MARGIN, SKEW_LEVEL

    return ("Statistical values are judged by one procedure: every standard error carries its degrees "
            "of freedom (runs − 1 or batches − 1), a difference is compared with Student's t (Welch's "
            "degrees of freedom when both sides are estimated), and the records of one page form one "
            f"family judged by Holm's procedure at familywise level {FAMILY_LEVEL:g}, so that a false "
            "*differs* anywhere on a page has probability at most that level. The t test judges run "
            f"means only where its level holds: at least {MIN_RUNS} runs whose means show no skew "
            f"(D'Agostino's test at level {SKEW_LEVEL:g}), with Hall's correction for the skew that "
            "remains; a record with fewer runs is *not resolved* and says why, and skewed run means are "
            "judged instead by Cantelli's inequality (p ≤ 2/(1 + t²), a 95% interval of ± 6.24 standard "
            "errors), which needs no symmetry and resolves only what is plain. A record "
            "that is not rejected *agrees* only when the 95% interval of its difference lies within its "
            f"margin (the tolerance it states, else {RELATIVE_MARGIN:.0%} of the value); otherwise the "
            "data cannot tell, and it is *not resolved*. A statement about many quantities estimated "
            "from the same runs (a stationary law, a path) is one record judged by one test of them "
            "all: a sign-flip test that flips each run's whole vector of deviations, which keeps their "
            f"correlation (it needs {MIN_RUNS} runs per group and symmetric run means, both checked; "
            "skewed ones fall back on Cantelli's bound for each quantity, Bonferroni over them), "
            "and whose p-value joins the page's family (independent estimates are combined by a "
            "chi-square of the normal scores of their t statistics). Exact values are compared within a "
            "stated tolerance; qualitative statements carry the outcome of their notebook's test. A "
            "record that does not plainly agree opens with the size of the difference, its standard "
            "error and its cause.")


def render_claims(claims: list[Claim], noted: list[Noted] | None = None,
                  findings: list[Finding] | None = None) -> str:
    """The claims page: per-paper counts, the differences first, then every claim and check.

    The records a :class:`Finding` explains are shown once, folded under the finding.
    """
    from . import manifest

    findings = list(findings or [])
    known = {f.id: f for f in findings}
    anchors = claim_anchors(claims)
    verdicts, judgements = judge_pages(claims)
    rows = [c for c in claims if c.category == "claim"]
    checks = [c for c in claims if c.category == "check"]
    lines = ["# Claims of the papers, checked", "",
             "Every row below is collected from the result files of this build. Only values and "
             "statements printed in a paper are counted as *claims*: each cites where the paper "
             "makes it and is judged *agrees*, *differs* or *not resolved*. Where one cause explains "
             "several rows, it is stated once as a *finding*, with its rows folded under it, and "
             "counted once. Our own cross-checks "
             "(exact values against simulation, two algorithms, a theorem against a computation) "
             "are listed separately as *internal checks*: they show the code is consistent, not "
             "that a paper is right. Our readings of ambiguous displays are on the "
             "[reconstructions](reconstructions.md) page, suspected errors of the papers on the "
             "[errata](errata.md) page. Nothing here is typed by hand; each item links to the page "
             "that computed it.", "", procedure_sentence(), ""]
    if not rows and not checks:
        lines.append("Nothing has been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    lines += summary_table(summary_counts(claims, noted, findings, verdicts))

    def folded(c: Claim) -> bool:
        return c.finding in known

    differing = [c for c in rows if verdicts[id(c)].passes is False and not folded(c)]
    failing = [c for c in checks if verdicts[id(c)].passes is False and not folded(c)]
    differing_findings = [f for f in findings if f.label == "differs"
                          and any(c.finding == f.id and c.category in ("claim", "check") for c in claims)]
    lines += ["(claims-differences)=", "## Differences", ""]
    if differing or differing_findings:
        lines += ["Claims of the papers that this build does not reproduce; the linked pages discuss each.", ""]
        for f in differing_findings:
            lines += _finding_section(f, [c for c in claims if c.finding == f.id and c.category in ("claim", "check")],
                                      anchors, verdicts)
        if differing:
            lines += _record_table(differing, "paper", verdicts, anchors)
    else:
        lines += ["No claim of the papers recorded in this build differs.", ""]
    if failing:
        lines += ["Internal checks that fail in this build:", ""] + _record_table(failing, "reference", verdicts, anchors)
    lines += _joint_lines(judgements, claims, verdicts)
    for paper in manifest.PAPERS:
        group = [c for c in rows if _paper_of(c.item) == paper and not folded(c)]
        group_checks = [c for c in checks if _paper_of(c.item) == paper and not folded(c)]
        other_findings = [f for f in findings if _paper_of(f.item) == paper and f.label != "differs"
                          and any(c.finding == f.id for c in claims)]
        if not group and not group_checks and not other_findings:
            continue
        lines += [f"(claims-{paper.lower()})=", f"## {paper}: {manifest.PAPERS[paper]}", ""]
        for f in other_findings:
            lines += _finding_section(f, [c for c in claims if c.finding == f.id], anchors, verdicts)
        if group:
            lines += ["### Claims of the paper", ""] + _record_table(group, "paper", verdicts, anchors)
        if group_checks:
            lines += ["### Internal checks", "",
                      "Cross-checks of the companion's own computations (not agreement with the paper).", ""]
            lines += _record_table(group_checks, "reference", verdicts, anchors)
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
        # no "value" column: each record's number meant something else (a sum, a mean, a tail);
        # the evidence says what each number is
        head = "| item | what | source |" + (" readings considered |" if with_alternatives else "") + \
            " evidence | verdict |"
        lines += ["Checked by a notebook of their own:", "", head, "|" + "---|" * (head.count("|") - 1)]
        for c in records:
            alt = f" {_cell(c.alternatives) or '—'} |" if with_alternatives else ""
            anchor = f'<span id="{anchors[id(c)]}"></span>' if id(c) in anchors else ""
            verdict = _cell(c.judge())
            if c.finding in findings:  # worded once: the finding's title, linked to its full text
                f = findings[c.finding]
                verdict = f'{_cell(f.title)} (<a href="claims.html#{finding_anchor(f.id)}">finding</a>)'
            lines.append(f"| {anchor}{_link(c.item)} | {_cell(c.text)} | {_cell(c.source) or '—'} |{alt} "
                         f"{_cell(c.evidence) or '—'} | {verdict} |")
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
    judged = (claims, judge_pages(claims)[0])
    noted = [(n, noted_evidence(results, n, judged)) for n in _noted()]
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
    """The first sentence of `text`: up to the first full stop or semicolon followed by a space
    (or the end), outside ``$...$`` math and outside parentheses (a decimal point or a clause inside
    brackets does not end it)."""
    depth, k, n = 0, 0, len(text)
    while k < n:
        ch = text[k]
        if ch == "$":
            close = text.find("$", k + 1)
            if close < 0:
                return text
            k = close + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch in ".;" and depth == 0 and (k + 1 == n or text[k + 1].isspace()):
            return text[:k + 1]
        k += 1
    return text


def _t_words(comp) -> str:
    """``t = −7.62, 7 degrees of freedom``: the statistic behind a difference, in plain text (for
    skewed run means, the bound that judged it instead: ``t = −7.62, skewed run means, Cantelli's
    bound``)."""
    t = _t_text(comp.t)
    if getattr(comp, "method", "t") == "Cantelli":
        return f"t = {t}, skewed run means, Cantelli's bound"
    df = "infinitely many" if comp.df == float("inf") else f"{comp.df:.1f}".rstrip("0").rstrip(".")
    return f"t = {t}, {df} degrees of freedom"


def _t_text(t: float) -> str:
    """A t statistic to two decimals with a true minus, never "−0.00"."""
    return f"{t:.2f}".replace("-", "\u2212") if round(t, 2) != 0 else "0.00"


def _cause_text(c: Claim, findings: dict[str, Any] | None = None) -> str:
    """The best-supported cause of a record's difference: its own :attr:`Claim.cause`, else the
    title of the finding that explains it ("" when neither says)."""
    if c.cause:
        return c.cause.strip().rstrip(".")
    if c.finding and findings and c.finding in findings:
        return findings[c.finding].title.strip().rstrip(".")
    return ""


def significant_within_margin(v) -> bool:
    """Whether an agreeing record's difference is nevertheless significant: its 95% interval
    excludes 0 but lies inside the margin (said in words, never a bare "agrees")."""
    comp = v.comparison
    return (v.label in ("agrees", "holds") and comp is not None and comp.se > 0
            and (comp.low > 0 or comp.high < 0))


def opening(c: Claim, v, findings: dict[str, Any] | None = None) -> str:
    """The first sentence of a record that does not plainly agree: the size of the difference with
    its standard error (or the gap, for exact values), then the best-supported cause, in plain
    words ("" for a record that agrees with no significant difference, and for reconstructions and
    errata, whose verdicts say what they found).

    A record left out of the page's family (its data cannot be judged) says why; a significant
    difference inside its margin is named as such.
    """
    if c.category not in ("claim", "check") or v is None:
        return ""
    plain = v.label in ("agrees", "holds")
    if plain and not significant_within_margin(v):
        return ""
    target = "the paper" if c.category == "claim" else "the reference"
    cause = _cause_text(c, findings)
    comp = v.comparison
    if v.label == "not resolved" and v.threshold is None and c.holds is None:
        head = f"Not judged: {v.reason.rstrip('.')}"
    elif c.tested and _says_what_it_shows(c):
        head = f"{first_sentence(c.evidence).rstrip('.')} ({_p_is(c.p_value)})"
    elif c.tested:
        p = "no p-value" if c.p_value is None else _p_is(c.p_value)
        if v.rejected:
            head = f"The joint test of its quantities rejects agreement ({p})"
        else:
            head = (f"The joint test does not reject agreement ({p}), but some quantity's 95% interval "
                    "reaches beyond its margin, so agreement is not shown either")
    elif c.holds is not None:
        head = first_sentence(c.evidence).rstrip(".;") if c.evidence else \
            ("The statement does not hold in our data" if not c.holds else "")
    elif comp is None or comp.se == 0:
        d = c.ours - c.target
        head = (f"Ours is {_num(abs(d))} {'above' if d > 0 else 'below'} {target}'s {_value(c.target, None)} "
                f"(ours {_value(c.ours, None)}), beyond the tolerance {_num(c.tolerance or 0.0)}"
                if abs(d) > (c.tolerance or 0.0) else "")
    else:
        side = "above" if comp.difference > 0 else "below"
        size = f"{_value(abs(comp.difference), comp.se)} {side} {target}'s value (ours {_value(c.ours, c.ours_se)}, " \
               f"{'paper' if c.category == 'claim' else 'reference'} {_value(c.target, c.target_se)}; {_t_words(comp)})"
        interval = f"95% interval [{_num(comp.low)}, {_num(comp.high)}]"
        if v.rejected and comp.within_margin:
            head = (f"Ours is {size}: a significant difference, but inside the margin ± {_num(comp.margin)} "
                    "that matters")
        elif v.rejected:
            head = f"Ours is {size}"
        elif plain:
            head = (f"Ours is {size}: a significant difference ({interval} excludes 0) inside the margin "
                    f"± {_num(comp.margin)}")
        else:
            signed = _value(comp.difference, comp.se).replace("-", "\u2212")
            head = (f"The difference, ours minus {target}, is {signed} (ours {_value(c.ours, c.ours_se)}, "
                    f"{'paper' if c.category == 'claim' else 'reference'} {_value(c.target, c.target_se)}; "
                    f"{_t_words(comp)}): not significant, but the {interval} reaches beyond the margin "
                    f"± {_num(comp.margin)}, so agreement is not shown either")
    if not head:
        return ""
    return head + (f"; cause: {cause}" if cause else "") + "."


def _record_page(c: Claim) -> str:
    """The generated page that lists a record: claims (and checks), reconstructions or errata."""
    return {"reconstruction": "reconstructions", "erratum": "errata"}.get(c.category, "claims")


def _html_text(text: str) -> str:
    """Text for raw HTML (the folded statistics): escaped, ``$...$`` as MathJax's inline math spans."""
    import html

    parts = re.split(r"(\$[^$]*\$)", text.replace("\n", " "))
    out = []
    for part in parts:
        if part.startswith("$") and part.endswith("$") and len(part) > 1:
            out.append(f'<span class="math notranslate nohighlight">\\({html.escape(part[1:-1], quote=False)}\\)</span>')
        else:
            out.append(html.escape(part.replace("`", ""), quote=False))
    return "".join(out)


def _fold(lines: list[str]) -> str:
    """The statistics behind a line of the box, folded under it (a raw HTML block of the list item)."""
    body = "".join(f"<p>{_html_text(x)}</p>" for x in lines if x)
    return f'  <details class="qtheory-stats"><summary>statistics</summary>{body}</details>'


def _record_values(c: Claim, sep: str = ", ") -> str:
    """The compared values of a record in words: "paper 12.95 ± 0.10, ours 12.008" (the two sides
    joined by `sep`; the verdict box and the claims page share this one wording)."""
    if c.tested:
        if _says_what_it_shows(c):
            return f"{first_sentence(c.evidence).rstrip('.')} ({_p_is(c.p_value)})"
        return (f"one joint test, {_p_is(c.p_value)}; "
                + ("every 95% interval within its margin" if c.resolved else "some 95% interval beyond its margin"))
    if c.category in ("claim", "check") and c.holds is None:
        if c.target == 0 and not c.target_se and not c.ours_se and c.tolerance is not None:
            # a gap that must vanish: "reference 0, ours 0" says nothing; the gap and its tolerance do
            return f"largest gap {_value(c.ours, None)} within the tolerance {_num(c.tolerance)}" \
                if abs(c.ours) <= c.tolerance else f"largest gap {_value(c.ours, None)}, beyond the tolerance {_num(c.tolerance)}"
        return (f"{'paper' if c.category == 'claim' else 'reference'} {_value(c.target, c.target_se)}{sep}"
                f"ours {_value(c.ours, c.ours_se)}")
    if c.ours is not None and c.category in ("claim", "check"):
        return f"ours {_value(c.ours, c.ours_se)}"
    return ""


def _says_what_it_shows(c: Claim) -> bool:
    """Whether a tested record's evidence opens with what the data show of the statement ("The
    statement is shown by the runs: ...", :meth:`qtheory.direction.DirectionTest.describe`): that
    sentence, not "one joint test", is the record's value in the box."""
    return c.tested and c.evidence.startswith("The statement ")


def _record_detail(c: Claim, v) -> str:
    """One record under a folded line: its label, text, values and statistics."""
    values = _record_values(c)
    return f"{v.label}: {c.text.rstrip('.')}" + (f"; {values}" if values else "") + ". " + statistics(c, v)


def _aggregate(labels: list[str]) -> str:
    """The label of a statement judged by several records: any difference, else anything
    unresolved, else agreement."""
    for label in ("differs", "fails", "not resolved"):
        if label in labels:
            return "differs" if label == "fails" else label
    return "agrees"


def _box_record(c: Claim, v, anchor: str, prefix: str, findings: dict[str, Any] | None = None) -> str:
    """A record as one line of the verdict box: its label, where the paper (or we) say it, the
    statement, then (unless it plainly agrees) the size of the difference and its cause
    (:func:`opening`), else the compared values; the statistics folded under it."""
    page = _record_page(c)
    where = f"{'Paper' if c.category in ('claim', 'erratum') else 'Ours'}" + (f" ({c.source})" if c.source else "")
    values = opening(c, v, findings) if c.category in ("claim", "check") else ""
    if not values:
        values = _record_values(c)
        if c.holds is not None and c.evidence and c.category in ("claim", "check"):
            values = first_sentence(c.evidence).rstrip(".;")
        if c.category in ("reconstruction", "erratum") and c.verdict:
            values = "; ".join(x for x in (values, c.verdict.rstrip(".")) if x)
    values = values.rstrip(".")
    label = label_of(c, v.label if c.category in ("claim", "check") else None)
    text = f"{where}: {_statement(c).rstrip('.')}" + (f". {values[:1].upper() + values[1:]}." if values else ".")
    line = f'- {_label_html(label)} {_box_text(text)} <a href="{prefix}{page}.html#{anchor}">record</a>'
    if c.category in ("claim", "check"):
        line += "\n\n" + _fold([_record_detail(c, v)])
    return line


def _box_text(text: str) -> str:
    """Prose for a list item of the box: line breaks folded, a bare ``*`` or ``_`` escaped outside math."""
    from .display import true_minus

    parts = re.split(r"(\$[^$]*\$|`[^`]*`)", text.replace("\n", " "))
    return "".join(p if p[:1] in ("$", "`") else _escape_emphasis(true_minus(p)) for p in parts)


def _largest_difference(records: list[Claim], verdicts: dict[int, Any], findings: dict[str, Any]) -> str:
    """The most significant difference among several records, as "largest: <record>: <its
    opening>" ("" when none has a statistical comparison or an exact gap): a record that differs
    beyond its margin before one whose significant difference lies inside it, before one that is
    not resolved (what matters comes first), then the largest :math:`|t|` (rows of one statement
    may be different quantities, so no range across them)."""
    rank = {"differs": 3, "fails": 3, "not resolved": 1}

    def weight(c: Claim) -> tuple[int, float]:
        v = verdicts[id(c)]
        comp = v.comparison
        if comp is not None and comp.se > 0:
            inside = v.label in ("differs", "fails") and comp.within_margin
            return (2 if inside else rank.get(v.label, 0)), abs(comp.t)
        return rank.get(v.label, 0), (float("inf") if v.label in ("differs", "fails") else -1.0)

    ranked = sorted(records, key=weight, reverse=True)
    for c in ranked:
        text = opening(c, verdicts[id(c)], findings).rstrip(".")
        if text:
            return f"largest: {_statement(c).rstrip('.')}: {text[:1].lower() + text[1:]}"
    return ""


def _statement_line(st, records: list[Claim], findings: list[Finding], verdicts: dict[int, Any],
                    anchors: dict[int, str], prefix: str, all_findings: dict[str, Finding] | None = None) -> str:
    """A statement of the claim map as one line of the box: its label, the statement, then what
    differs and why (:func:`opening`) or paper against ours (or how many rows agree), the
    statistics folded under it.

    Records that judge the sentence under different readings (:attr:`Claim.reading`) give one
    verdict, the first record's (the reading it rests on), with the other readings' outcomes
    beside it."""
    fmap = dict(all_findings or {})
    fmap.update({f.id: f for f in findings})
    readings = [c for c in records if c.reading]
    labels = [verdicts[id(c)].label for c in records if not any(c.finding == f.id for f in findings)]
    labels += [f.label for f in findings]
    label = _aggregate(labels) if labels else "not resolved"
    if not records:
        return (f"- {_label_html(label)} **{_box_text(st.says.rstrip('.'))}** ({_box_text(st.source)}). "
                "No record of this build judges it.")

    def said(c: Claim) -> str:
        v = verdicts[id(c)]
        text = opening(c, v, fmap).rstrip(".")
        if not text:
            text = _record_values(c) if c.holds is None else first_sentence(c.evidence).rstrip(".;")
        return text or ("ours: " + ("holds" if v.passes else "does not hold"))

    by_reading = len(readings) > 1 and len(readings) == len(records) and not findings
    if by_reading:
        first, others = records[0], records[1:]
        label = _aggregate([verdicts[id(first)].label])
        values = (f"Read {first.reading.rstrip('.')}: {_after_colon(said(first))}. "
                  + " ".join(f"Read {c.reading.rstrip('.')} instead, it {_reading_outcome(verdicts[id(c)].label)}"
                             f": {_after_colon(said(c))}." for c in others)).rstrip(".")
    elif len(records) == 1 and not findings:
        values = said(records[0])
    else:
        counts = {}
        for c in records:
            counts[verdicts[id(c)].label] = counts.get(verdicts[id(c)].label, 0) + 1
        off = [c for c in records if verdicts[id(c)].label not in ("agrees", "holds")
               or significant_within_margin(verdicts[id(c)])]
        values = f"{len(records)} records: " + ", ".join(f"{n} {lab}" for lab, n in counts.items())
        if off:
            largest = _largest_difference(off, verdicts, fmap)
            if largest:
                values += f"; {largest}"
        if findings:
            values += "; " + "; ".join(f"finding: {f.title.rstrip('.')} ({f.label})" for f in findings)
    values = values[:1].upper() + values[1:]
    link = ""
    if records:
        link = f' <a href="{prefix}{_record_page(records[0])}.html#{anchors[id(records[0])]}">records</a>'
    line = (f"- {_label_html(label)} **{_box_text(st.says.rstrip('.'))}** ({_box_text(st.source)}). "
            f"{_box_text(values)}.{link}")
    details = [_record_detail(c, verdicts[id(c)]) for c in records]
    if by_reading:
        # the other readings do not judge the sentence: their outcomes are said as such, not as labels
        details = details[:1] + [f"Read {c.reading.rstrip('.')} instead, it {_reading_outcome(verdicts[id(c)].label)}: "
                                 + _record_detail(c, verdicts[id(c)]).split(": ", 1)[1] for c in records[1:]]
    details += [f"Finding ({f.label}): {f.title.rstrip('.')}. {f.text}" for f in findings]
    return line + ("\n\n" + _fold(details) if details else "")


def _after_colon(text: str) -> str:
    """`text` continuing a sentence after a colon: "At loads 0.95 ..." as "at loads 0.95 ..." (a
    word in capitals, a name or math keeps its case: "JSQ(2) ...", "Fig. 3 ...", "$q$ ...")."""
    word = text.split(" ", 1)[0]
    if len(word) > 1 and word[0].isupper() and word[1:].isalpha() and word[1:].islower() \
            and word not in ("Fig.", "Table", "Sec.", "Theorem", "Lemma"):
        return text[0].lower() + text[1:]
    return text


def _reading_outcome(label: str) -> str:
    """What another reading of a sentence gives, as a verb phrase: "would agree", "would differ"."""
    return {"agrees": "would agree", "holds": "would hold", "differs": "would differ", "fails": "would fail"
            }.get(label, "would not be resolved")


def _failed_checks(claims: list[Claim], verdicts: dict[int, Any], anchors: dict[int, str], prefix: str,
                   fmap: dict[str, Finding]) -> list[str]:
    """The box's first line when an internal check of the page fails: the page's headline must not
    stand above a failed check without a word. One line naming each failed check, its size and
    cause (:func:`opening`)."""
    failed = [c for c in claims if c.category == "check" and verdicts[id(c)].label == "fails"]
    if not failed:
        return []
    what = "; ".join(f"{_statement(c).rstrip('.')}: {opening(c, verdicts[id(c)], fmap).rstrip('.')}" for c in failed)
    n = len(failed)
    head = "An internal check of this page fails" if n == 1 else f"{n} internal checks of this page fail"
    return [f"- {_label_html('internal check fails')} **{head}**, so the results below rest on a computation "
            f"that is in doubt where it checks: {_box_text(what)}. "
            f'<a href="{prefix}claims.html#{anchors[id(failed[0])]}">record</a>']


def verdict_box(metas: list[dict], *, prefix: str = "../") -> str:
    """The verdict box of a result page (MyST Markdown), from the sidecars `metas` of its items.

    The page's records are judged as one family (:func:`qtheory.verdicts.judge`). The box opens
    with the main statements of its items (the claim map, :mod:`qtheory.claimmap`), each one line
    with its label, the statement, paper against ours and the statistics folded under it; then
    the paper's other statements; then the other records (claims, joint tests of families of
    rows, internal checks, reconstructions, errata), grouped by label when an item has more than a
    few; then the reconstructions and errata noted for the items (:data:`qtheory.claims.NOTED`).
    `prefix` leads from the page to the book's root (``"../"`` from a part). Nothing in it is typed
    by hand: everything comes from the item functions' results.
    """
    from . import claimmap
    from .verdicts import judge

    from . import manifest

    order = {item_id: k for k, item_id in enumerate(manifest.ITEMS)}
    metas = sorted(metas, key=lambda m: order.get(m["id"], len(order)))   # the paper's order, not the folders'
    items = [m["id"] for m in metas]
    claims = [Claim(**r) for m in metas for r in m.get("claims", [])]
    findings = [Finding(**r) for m in metas for r in m.get("findings", [])]
    judgement = judge(claims)
    verdicts = {id(c): v for c, v in zip(claims, judgement.verdicts)}
    anchors = claim_anchors(claims)
    known = {f.id for f in findings}
    fmap = {f.id: f for f in findings}
    mapped = [st for item in items for st in claimmap.statements(item.split("-", 1)[0]) if st.item == item]
    shown: set[int] = set()
    shown_findings: set[str] = set()
    main, other = [], []
    for st in mapped:
        records = [c for c in claims if st.judges(c) and id(c) not in shown]
        mine = [f for f in findings if any(c.finding == f.id for c in records)]
        if not records and not st.main:
            continue
        shown.update(id(c) for c in records)
        shown_findings.update(f.id for f in mine)
        if not st.main and len(records) > 1 and not mine and not any(c.reading for c in records):
            # several rows of one statement, each a claim of its own (no readings): one line each
            other += [_box_record(c, verdicts[id(c)], anchors[id(c)], prefix, fmap) for c in records]
            continue
        (main if st.main else other).append(_statement_line(st, records, mine, verdicts, anchors, prefix, fmap))
    lines = _failed_checks(claims, verdicts, anchors, prefix, fmap) + main + other if claims else []
    for f in findings:
        if f.id in shown_findings:
            continue
        n = sum(c.finding == f.id for c in claims)
        rows = f" ({n} record{'s' if n != 1 else ''} folded under it)" if n else ""
        # a finding that explains no record (a page beyond the papers) has no row on the claims page
        link = f' <a href="{prefix}claims.html#{finding_anchor(f.id)}">finding{rows}</a>' if n else ""
        lines.append(f"- {_label_html(f.label)} **{_box_text(f.title.rstrip('.'))}**"
                     + (f" ({_box_text(f.source)})." if f.source else ".")
                     + f" {_box_text(f.text)}{link}")
    rest = [c for c in claims if id(c) not in shown and c.finding not in known]
    rank = {"claim": 0, "check": 1, "reconstruction": 2, "erratum": 3}
    for item in items:
        mine = sorted((c for c in rest if c.item == item), key=lambda c: rank[c.category])
        labels = {id(c): label_of(c, verdicts[id(c)].label if c.category in ("claim", "check") else None)
                  for c in mine}
        if len(mine) <= _BOX_LIST_MAX:
            lines += [_box_record(c, verdicts[id(c)], anchors[id(c)], prefix, fmap) for c in mine]
            continue
        for label in dict.fromkeys(labels[id(c)] for c in mine):
            group = [c for c in mine if labels[id(c)] == label]
            if label in ("differs", "not resolved", "internal check fails", "internal check not resolved",
                         "erratum", "reconstruction") and len(group) <= 3:
                lines += [_box_record(c, verdicts[id(c)], anchors[id(c)], prefix, fmap) for c in group]
                continue
            sources = ", ".join(dict.fromkeys(c.source for c in group if c.source))
            kind = {"agrees": "claims of the paper agree", "differs": "claims of the paper differ",
                    "not resolved": "claims of the paper not resolved",
                    "internal check": "internal checks hold", "internal check fails": "internal checks fail",
                    "internal check not resolved": "internal checks not resolved",
                    "reconstruction": "reconstructions", "erratum": "suspected errata"}[label]
            page = _record_page(group[0])
            line = (f"- {_label_html(label)} {item}: {len(group)} {kind}"
                    + (f" ({_box_text(sources)})" if sources else "")
                    + f' <a href="{prefix}{page}.html#{anchors[id(group[0])]}">records</a>')
            if group[0].category in ("claim", "check"):
                line += "\n\n" + _fold([_record_detail(c, verdicts[id(c)]) for c in group])
            lines.append(line)
    families: dict[str, list] = {}
    for t in judgement.joint:
        families.setdefault(t.family, []).append(t)
    for family, tests in families.items():
        label = joint_label(tests, _family_rows(family, claims), verdicts)
        lines.append(f"- {_label_html(label)} Jointly, {_box_text(family)}: "
                     + "; ".join(_box_text(t.describe()) for t in tests) + ".")
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
    if judgement.size:
        lines += ["", judgement.summary()]
    return "\n".join(["````{admonition} Verdict", ":class: qtheory-verdict", ""] + lines + ["````", ""])
