"""On a built book: every main statement of the claim map is judged, every verdict box and claims
row is a whole sentence, and every label agrees with the page's family judgement.

These read the results the build published (``results/``, or ``$QTHEORY_RESULTS_DIR``) beside
the HTML given by ``--book-html``.
"""

import json

import pytest

from qtheory import claimmap, manifest
from qtheory.claimpages import judge_pages, render_claims, verdict_box
from qtheory.claims import Claim, collect, collect_findings
from qtheory.results import results_root

from .._box_checks import box_lines, label_problems, sentence_problems


@pytest.fixture(scope="module")
def metas(book_html):
    root = results_root()
    found = {}
    for path in sorted(root.glob("*/*.json")):
        if path.stem == path.parent.name:
            meta = json.loads(path.read_text(encoding="utf-8"))
            found.setdefault(meta["notebook"], []).append(meta)
    if not found:
        pytest.fail(f"no results under {root}: the book was built without them")
    return found


def test_every_main_statement_of_the_papers_is_judged_in_the_build(metas):
    records = [Claim(**r) for page in metas.values() for m in page for r in m.get("claims", [])]
    findings = collect_findings(results_root())
    missing = []
    for st in claimmap.main_statements():
        if manifest.get(st.item).notebook not in metas:
            continue                                     # a partial build (--only) judges its own pages
        judging = [c for c in records if st.judges(c) and c.category == "claim"]
        explained = [f for f in findings if any(c.finding == f.id for c in records if st.judges(c))]
        if not judging and not explained:
            missing.append(st.key)
    assert not missing, f"main statements with no judged record: {missing}"


def test_every_paper_page_opens_its_box_with_a_main_statement(metas):
    for page, page_metas in metas.items():
        items = [m["id"] for m in page_metas]
        mains = [s for s in claimmap.main_statements() if s.item in items]
        if not mains:
            continue                                     # a page beyond the papers
        # a failed internal check, if any, is said above the headline; the headline follows it
        first = [x for x in box_lines(verdict_box(page_metas)) if "of this page fail" not in x][0]
        assert any(f"**{s.says.rstrip('.')}**"[:40] in first.replace("\\*", "*") or s.says[:30] in first
                   for s in mains), (page, first[:200])


def test_every_verdict_box_line_is_a_whole_sentence_with_a_true_label(metas):
    problems = []
    for page, page_metas in metas.items():
        box = verdict_box(page_metas)
        for line in box_lines(box):
            problems += [f"{page}: {p}" for p in sentence_problems(line.split("\n")[0])]
        problems += [f"{page}: {p}" for p in label_problems(box)]
    assert not problems, "\n".join(problems)


def test_every_claims_row_is_a_whole_sentence(metas):
    records = collect(results_root())
    page = render_claims(records)
    problems = []
    for row in page.splitlines():
        if row.startswith("| <span"):
            for cell in row.split(" | ")[1:]:
                for part in cell.replace("<small>", "").replace("</small>", "").split("<br>"):
                    problems += sentence_problems(part.strip(" |"))
    assert not problems, "\n".join(problems)


def test_exact_values_are_printed_with_their_digits(metas):
    from qtheory.claimpages import _record_values

    for page_metas in metas.values():
        for m in page_metas:
            for r in m.get("claims", []):
                c = Claim(**r)
                if c.ours is not None and not c.ours_se and c.category in ("claim", "check") and c.holds is None:
                    if c.ours != round(c.ours) and abs(c.ours) >= 1e-3 and c.target != 0:
                        text = _record_values(c)
                        digits = text.rsplit("ours ", 1)[-1].replace("−", "-").split()[0]
                        assert abs(float(digits) - c.ours) <= 5e-5 * abs(c.ours) + 1e-12, (c.text, text)


def test_the_page_labels_are_the_family_judgement(metas):
    records = collect(results_root())
    verdicts, judgements = judge_pages(records)
    for page, j in judgements.items():
        assert len(j.verdicts) == sum(manifest.get(c.item).notebook == page for c in records)
        assert all(0 < t.p <= 1 for t in j.joint)


def test_every_estimate_the_book_computes_carries_its_run_means(metas):
    """A value the book estimates itself (a standard error on our side, or on a simulated reference)
    carries the run means it averages, so the judgement checks that the t test may judge them
    (enough runs, no skew; :func:`qtheory.verdicts.check_runs`), and none is left out of its page's
    family for having too few runs."""
    from qtheory.verdicts import MIN_RUNS

    bare, few = [], []
    for page_metas in metas.values():
        for m in page_metas:
            for r in m.get("claims", []):
                c = Claim(**r)
                if c.tested and f"at least {MIN_RUNS}" in c.assumption_failure:
                    few.append(f"{c.item}: {c.text[:60]} (test of many quantities)")
                for side in ("ours", "reference"):
                    if getattr(c, f"{side}_se"):
                        runs = getattr(c, f"{side}_runs")
                        if runs is None:
                            bare.append(f"{c.item}: {c.text[:60]} ({side})")
                        elif len(runs) < MIN_RUNS:
                            few.append(f"{c.item}: {c.text[:60]} ({side}, {len(runs)} runs)")
    assert not bare, f"estimates without their run means: {bare}"
    assert not few, f"estimates with fewer than {MIN_RUNS} runs: {few}"
