"""Live code (Thebe) and launch buttons only where a launch target is configured (issue 41).

The build CI checks sets no repository (``qtheory_repository`` empty, no ``QTHEORY_REPOSITORY``):
no page may carry sphinx-thebe's Binder configuration, whose default is a placeholder repository
(``binder-examples/jupyter-stacks-datascience``), nor its script.
"""

from __future__ import annotations

import os

import pytest


def test_no_page_configures_thebe_without_a_launch_target(book_html):
    if os.environ.get("QTHEORY_REPOSITORY"):
        pytest.skip("a build with a repository: Thebe points at it (tests/test_sphinx_launch.py)")
    pages = sorted(book_html.rglob("*.html"))
    assert pages
    carrying = [str(p.relative_to(book_html)) for p in pages
                if any(mark in p.read_text(encoding="utf-8", errors="replace")
                       for mark in ("x-thebe-config", "binder-examples", "sphinx-thebe.js", "THEBE_JS_URL"))]
    assert not carrying, f"{len(carrying)} pages load Thebe with no launch target: {carrying[:5]}"



def test_every_page_is_cited_by_its_own_key_with_a_plain_title(book_html):
    """Each page's BibTeX entry is keyed by the page (``qtheory-companion:R-T1``), not by its first
    manifest item, and its title carries no TeX (issue 41) but the escapes LaTeX needs (issue 50)."""
    import html
    import re

    wrong = []
    for page in sorted(book_html.glob("book/*/*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        if "cite-this" not in text:
            continue
        # the cite box's second block is the page's entry (the book's is first)
        entries = re.findall(r"@misc\{qtheory-companion:([^,]+),(.*?)\n\}", html.unescape(re.sub(r"<[^>]+>", "", text)),
                             re.S)
        if not entries:
            wrong.append((page.name, "no page entry"))
            continue
        key, body = entries[0]
        slug = page.stem if (page.parent.parent == book_html / "book") else None
        title = re.search(r"title\s*=\s*\{(.*)\},?\n", body)
        if key not in (slug, f"{page.parent.name}-{page.stem}"):
            wrong.append((page.name, f"key {key}"))
        # the LaTeX escapes of qtheory.citation.bibtex_text (issue 50: Q\_(1,2)) are plain text to BibTeX
        bare = re.sub(r"\\_|\\\^\{\}|\\&|\\%|\\#|\\\$|\\~\{\}", "", title.group(1)) if title else ""
        if title and ("$" in bare or "\\" in bare):
            wrong.append((page.name, f"title {title.group(1)}"))
    assert not wrong, wrong


def test_tab_titles_and_search_titles_carry_no_tex(book_html):
    import re

    tex = re.compile(r"\\\(|\\[A-Za-z]+|\$")
    bad = []
    for page in sorted(book_html.glob("book/*/*.html")):
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8", errors="replace"), re.S)
        if title and tex.search(title.group(1)):
            bad.append((page.name, title.group(1)))
    import json

    index = (book_html / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(index[index.index("(") + 1:index.rindex(")")])
    assert data["titles"] and data["alltitles"]
    bad += [("search: page", t) for t in data["titles"] if tex.search(t) or "<span" in t]
    bad += [("search: section", t) for t in data["alltitles"] if tex.search(t)]
    assert not bad, bad[:10]


def test_no_tracker_words_in_the_book(book_html):
    """Readers do not know the project's issue numbers ("issue 30", "before issue 33"): the book says
    what changed, not where it was discussed (issue 41)."""
    import re

    found = []
    for page in sorted(book_html.rglob("*.html")):
        if page.name == "genindex.html":
            continue
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8", errors="replace"))
        found += [(str(page.relative_to(book_html)), m.group(0)) for m in re.finditer(r"\bissues? \d+\b", text)]
    assert not found, found[:10]
