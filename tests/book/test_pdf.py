"""`make pdf` on the built book: one PDF of every page, in the book's order.

Runs on a built book (``pytest tests/book --book-html _build/html``, as ``.ci/run`` does) and
prints it with headless Chromium, which takes a few minutes.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import yaml

from qtheory import pdf

from .conftest import CHROMIUM
from .test_browser import ROOT, toc_documents


@pytest.fixture(scope="module")
def printed(book_html, tmp_path_factory):
    if CHROMIUM is None:
        pytest.fail("headless Chromium is not installed (apt-get install chromium); .ci/run installs it")
    pytest.importorskip("pypdf", reason="make pdf merges the pages with pypdf (requirements.txt)")
    # in a thread of its own: Playwright's sync API refuses to start in a thread whose event loop
    # already runs one (the session's shared browser of the other checks, tests/book/conftest.py)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(pdf.build_pdf, book_html, tmp_path_factory.mktemp("pdf") / "book.pdf").result()


@pytest.fixture(scope="module")
def reader(printed):
    import pypdf

    return pypdf.PdfReader(printed.path)


def part_titles() -> list[str]:
    return [part["caption"] for part in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]]


def test_every_page_of_the_book_is_printed_in_the_order_of_the_table_of_contents(printed, reader):
    docs = toc_documents()
    assert list(printed.starts) == docs
    starts = [printed.starts[d] for d in docs]
    assert starts == sorted(starts) and len(set(starts)) == len(starts), "two pages start on one PDF page"
    # at least one PDF page per book page, behind the title and contents pages
    assert len(reader.pages) == printed.pages >= len(docs) + 2
    assert starts[0] >= 3


def test_figures_and_mathematics_render_on_every_printed_page(printed):
    assert printed.problems == {}, f"pages printed with missing images or untypeset math: {printed.problems}"


def test_the_pdf_holds_each_part_title_and_a_bookmark_per_part_and_page(reader):
    text = unicodedata.normalize("NFKC", " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages[:6]))
    for title in part_titles():
        assert title in text, f"the PDF's contents lack the part {title!r}"
    outline = reader.outline
    parts = [entry.title for entry in outline if not isinstance(entry, list)]
    assert parts[1:] == part_titles(), parts
    pages = sum(len(entry) if isinstance(entry, list) else 1 for entry in outline) - len(part_titles())
    assert pages == len(toc_documents())


def _tail_text(reader, printed, doc: str, until: str | None = None, least: int = 2) -> str:
    """The text of a document's last PDF pages: its last `least` pages, and further back up to the
    page that holds `until` (a result page's "Run record" heading). The end of a page is where
    its run record and its "Cite this" box are; reading all 600 pages' text took 50 s."""
    starts = sorted(printed.starts.values())
    start = printed.starts[doc]
    later = [s for s in starts if s > start]
    end = (later[0] - 1) if later else printed.pages
    texts = []
    for k in range(end, start - 1, -1):
        texts.insert(0, " ".join((reader.pages[k - 1].extract_text() or "").split()))
        if len(texts) >= least and (until is None or until in texts[0]):
            break
    return " ".join(texts)


def test_result_pages_print_their_rerun_box_and_no_page_prints_its_cite_box(reader, printed, book_html):
    results = [d for d in printed.starts if "To compute it again" in (Path(book_html) / f"{d}.html").read_text()]
    assert len(results) >= 15, results                 # every result page of the three papers
    for doc in printed.starts:
        text = _tail_text(reader, printed, doc, until="Run record" if doc in results else None)
        if doc in results:
            assert "Run record" in text and "To compute it again" in text, f"{doc}: its rerun box is not printed"
        # the book's BibTeX is on the title page only: the cite boxes are not printed
        assert "@software{qtheory-companion" not in text, f"{doc}: its cite box is printed"
