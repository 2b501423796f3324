"""Checks of rendered verdict boxes and claims rows: complete sentences and true labels.

Used by the unit tests (synthetic records, ``tests/test_verdict_box_sentences.py``) and by the
build check (every page of a built book, ``tests/book/test_verdicts_in_build.py``).
"""

from __future__ import annotations

import html
import re

LABEL = re.compile(r'<span class="qtheory-label qtheory-label-[\w-]+">([^<]+)</span>')
DETAILS = re.compile(r"<details.*?</details>", re.S)
TAGS = re.compile(r"<[^>]+>")
MATH = re.compile(r"\$[^$]*\$|\\\(.*?\\\)")


def visible(line: str) -> str:
    """The text a reader sees on a line of the box: no tags, no folded details, no math."""
    text = DETAILS.sub("", line)
    text = MATH.sub("M", text)            # before the tags: math may hold a "<"
    return html.unescape(TAGS.sub("", text))


def sentence_problems(text: str) -> list[str]:
    """What is wrong with a line of prose: an unclosed parenthesis, a dangling verdict word after a
    full stop, an empty "We find:", a sentence that ends on a colon or comma, an empty
    parenthesis, a doubled full stop, or a value that says nothing ("reference 0, ours 0")."""
    out = []
    t = visible(text).strip()
    if t.count("(") != t.count(")"):
        out.append(f"unbalanced parentheses: {t!r}")
    if re.search(r"\.\s+(confirmed|refuted|consistent|likely)\.?\s*$", t):
        out.append(f"a dangling verdict word: {t!r}")
    if "We find:" in t:
        out.append(f"'We find:' with nothing said: {t!r}")
    if re.search(r"[:,;]\s*\.?\s*$", t):
        out.append(f"ends on a colon, comma or semicolon: {t!r}")
    if re.search(r"\(\s*\)", t):
        out.append(f"an empty parenthesis: {t!r}")
    if re.search(r"(?<!\.)\.\.(?!\.)", t):
        out.append(f"a doubled full stop: {t!r}")
    if re.search(r"reference 0, ours 0\b", t):
        out.append(f"a comparison of two zeros: {t!r}")
    return out


def box_lines(box: str) -> list[str]:
    """The top-level list items of a verdict box, each with its folded statistics (if any)."""
    lines, current = [], None
    for raw in box.splitlines():
        if raw.startswith("- "):
            if current is not None:
                lines.append(current)
            current = raw
        elif current is not None and raw.startswith("  <details"):
            current += "\n" + raw
        elif raw.startswith("````") and current is not None:
            lines.append(current)
            current = None
    if current is not None:
        lines.append(current)
    return lines


def label_problems(box: str) -> list[str]:
    """Lines whose label disagrees with the labels of the records folded under them.

    A line that folds records ("differs: ..." paragraphs in its details) must carry "differs" if
    any of them differs, else "not resolved" if any is not resolved, else "agrees"; a line that
    folds one record must carry that record's label (internal checks: "internal check" for holds,
    "internal check fails" for fails)."""
    out = []
    for line in box_lines(box):
        shown = LABEL.findall(line.split("\n")[0])
        if not shown:
            continue
        label = shown[0]
        folded = re.findall(r"<p>(agrees|differs|not resolved|holds|fails): ", line)
        statistics = re.search(r"<p>(Difference|Deterministic comparison|Qualitative statement)", line)
        if folded:
            if "differs" in folded or "fails" in folded:
                want = {"differs", "internal check fails"}
            elif "not resolved" in folded:
                want = {"not resolved", "internal check not resolved"}
            else:
                want = {"agrees", "internal check"}
            if label not in want:
                out.append(f"label {label!r} over records {folded}: {visible(line)[:120]!r}")
        elif statistics and label not in ("agrees", "differs", "not resolved", "internal check",
                                          "internal check fails", "internal check not resolved"):
            out.append(f"label {label!r} on a judged record: {visible(line)[:120]!r}")
    return out


#: every label a page may show: a claim's (agrees, differs, not resolved), an internal check's, and the
#: categories reconstruction, erratum and beyond the papers (the claims page's own words)
SCHEME = ("agrees", "differs", "not resolved", "internal check", "internal check fails",
          "internal check not resolved", "reconstruction", "erratum", "beyond the papers")
#: a verdict word standing where a label stands ("confirmed: ...", "likely: ..."): a second scheme
LABEL_WORD = re.compile(r"(?:^|[;:.]\s|\|\s)((?:not )?(?:confirmed|refuted|consistent|likely)(?=\s*:)|no joint difference)",
                        re.I)


def labels_outside_the_scheme(text: str) -> list[str]:
    """Labels of a verdict box or a claims page (the label spans, the claims page's verdict column)
    that are not in :data:`SCHEME`, and verdict words used as labels ("confirmed: the sum is ...")."""
    out = [f"label {label!r} is outside the scheme" for label in LABEL.findall(text) if label not in SCHEME]
    for line in text.splitlines():
        for m in LABEL_WORD.finditer(visible(line)):
            out.append(f"the verdict word {m.group(1)!r} stands as a label: ...{visible(line)[max(0, m.start() - 40):m.end() + 40]}...")
    return out

