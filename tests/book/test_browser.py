"""The built book, opened in headless Chromium: pages, figures, math and links.

Runs after the book build (``.ci/run`` does it):
``pytest tests/book --book-html _build/html``. Pages are served from a loopback
HTTP server, as a reader's browser would get them. Checked: every page of the table
of contents was built and loads without failed requests; every image loads; math is
typeset without MathJax errors; no internal link or anchor is broken; every result
page ends with its run record (seed, run time, parameters, links to the data and to
the source notebook); figures have an opaque background and a readable size, so they
stay legible in the dark theme; the theorem environments render.
"""

from __future__ import annotations

import functools
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
import yaml

from qtheory import manifest

ROOT = Path(__file__).resolve().parents[2]


def toc_documents() -> list[str]:
    """Docnames listed in _toc.yml, globs expanded against the book sources."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    docs = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                docs.append(entry["file"])
            if "glob" in entry:
                docs.extend(sorted({p.relative_to(ROOT).with_suffix("").as_posix()
                                    for p in ROOT.glob(entry["glob"] + ".*") if p.suffix in (".md", ".ipynb")}))
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return docs


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.ids, self.chunks = [], set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])

    def handle_data(self, data):
        self.chunks.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.chunks))


@functools.lru_cache(maxsize=None)
def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def test_every_toc_document_was_built(book_html):
    missing = [d for d in toc_documents() if not (book_html / f"{d}.html").exists()]
    assert not missing, f"pages in _toc.yml missing from the build: {missing}"


def test_no_internal_link_is_broken(book_html):
    broken = []
    for page in sorted(book_html.rglob("*.html")):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        for href in parse(page).hrefs:
            url, frag = urldefrag(href)
            if urlparse(href).scheme or href.startswith(("mailto:", "javascript:", "//")):
                continue
            target = (page.parent / unquote(url)).resolve() if url else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(book_html)} -> {href}")
            elif frag and target.suffix == ".html" and frag not in parse(target).ids:
                broken.append(f"{page.relative_to(book_html)} -> {href} (no anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken[:40])


@pytest.mark.parametrize("doc", toc_documents())
def test_page_loads_with_figures_and_math(doc, pages):
    opened = pages.opened(doc, "desktop")
    page, failed = opened.page, opened.failed
    assert opened.status is not None and 200 <= opened.status < 400, f"{doc}: HTTP {opened.status}"
    n_math = page.evaluate("() => document.querySelectorAll('.math').length")
    if n_math:
        assert page.evaluate("() => typeof window.MathJax !== 'undefined'"), f"{doc}: MathJax did not load"
        page.wait_for_function("() => window.MathJax.startup && window.MathJax.startup.promise", timeout=20000)
        page.evaluate("() => window.MathJax.startup.promise")
        errors = page.evaluate("() => Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent)")
        assert not errors, f"{doc}: MathJax errors {errors}"
        raw = page.evaluate("() => Array.from(document.querySelectorAll('.math')).filter("
                            "e => !e.querySelector('mjx-container')).length")
        assert raw == 0, f"{doc}: {raw} math element(s) left unrendered"
    images = page.evaluate("() => Array.from(document.images).map(i => [i.currentSrc || i.src, i.naturalWidth])")
    empty = [src for src, width in images if width == 0]
    assert not empty, f"{doc}: images that did not load: {empty}"
    assert not failed, f"{doc}: failed requests {failed}"


def published_figures(book_html: Path, items) -> int:
    """How many PNG figures the page's items published in this build (their sidecars' ``files``);
    an item without a sidecar (not computed) counts one, as a page is expected to draw each item."""
    count = 0
    for item in items:
        sidecar = book_html.resolve().parents[1] / "results" / item / f"{item}.json"
        if not sidecar.exists():
            count += 1
            continue
        count += sum(f.endswith(".png") for f in json.loads(sidecar.read_text(encoding="utf-8"))["files"])
    return count


def result_pages() -> list[tuple[str, list[str]]]:
    """(docname, manifest IDs) of every notebook page."""
    return [(f"book/{items[0].part}/{name}", [i.id for i in items])
            for name, items in sorted(manifest.notebooks().items())]


@pytest.mark.parametrize("doc, items", result_pages(), ids=[d for d, _ in result_pages()])
def test_result_page_has_its_run_record(doc, items, book_html):
    page = book_html / f"{doc}.html"
    assert page.exists(), f"{doc} was not built"
    parsed = parse(page)
    text = parsed.text
    assert "Run record" in text, f"{doc}: no run record"
    for word in ("seed", "run time", "Parameters:", "Source notebook"):
        assert word in text, f"{doc}: the run record does not show {word!r}"
    notebook = Path(doc).name
    assert any(h.endswith(f"/{notebook}.ipynb") and "_downloads" in h for h in parsed.hrefs), \
        f"{doc}: no download link to the source notebook"
    for item in items:
        assert any(h.endswith(f"/{item}.csv") for h in parsed.hrefs), f"{doc}: no link to the data of {item}"


_FIGURE_PIXELS = """() => Array.from(document.querySelectorAll('.cell_output img, figure img')).map(img => {
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const w = c.width, h = c.height;
    const alpha = [[1, 1], [w - 2, 1], [1, h - 2], [w - 2, h - 2], [w >> 1, 1]].map(
        ([x, y]) => g.getImageData(x, y, 1, 1).data[3]);
    return {src: img.currentSrc || img.src, width: w, height: h, shown: img.clientWidth, alpha: alpha};
})"""


@pytest.mark.parametrize("doc", [d for d, _ in result_pages()])
def test_figures_are_opaque_and_legible_in_the_dark_theme(doc, book_html, pages):
    page = pages(doc, "dark")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark", \
        f"{doc}: the page did not follow the reader's dark colour scheme"
    figures = page.evaluate(_FIGURE_PIXELS)
    # every figure the page's items published is shown (an item may publish none: U-V-thm2's gap
    # is the one U-T1's figure draws)
    expected = published_figures(book_html, dict(result_pages())[doc])
    assert expected and len(figures) >= expected, f"{doc}: {len(figures)} figure(s) shown, {expected} published"
    for fig in figures:
        assert fig["width"] > 0, f"{doc}: {fig['src']} did not load"
        # a transparent figure would put dark axis labels on the dark page background
        assert min(fig["alpha"]) == 255, f"{doc}: {fig['src']} has a transparent background"
        assert fig["width"] >= 400 and fig["shown"] >= 300, f"{doc}: {fig['src']} is too small to read"


def test_theorem_environments_render(book_html):
    for paper, part in manifest.PARTS.items():
        parsed = parse(book_html / "book" / part / f"{paper}-theorems.html")
        wanted = {i.id for i in manifest.ITEMS.values() if i.paper == paper and i.kind in ("V", "X")}
        assert wanted <= parsed.ids, f"{paper}: theorem anchors missing {sorted(wanted - parsed.ids)}"
        assert "Recorded in this build" in parsed.text or "records no single number" in parsed.text


_FIGURE_CAPTIONS = """() => Array.from(document.querySelectorAll('.cell_output img')).map(img => {
    const fig = img.closest('figure');
    const cap = fig ? fig.querySelector('figcaption') : null;
    return {alt: img.alt || '', caption: cap ? cap.innerText : ''};
})"""


@pytest.mark.parametrize("doc", [d for d, _ in result_pages()])
def test_every_result_figure_has_a_caption_and_alt_text(doc, book_html, pages):
    figures = pages(doc).evaluate(_FIGURE_CAPTIONS)
    items = dict(result_pages())[doc]
    for fig in figures:
        # alt text names the item and what is drawn (not a hashed file name), and the
        # caption says where the numbers come from: preset and seed
        assert re.match(r"[LRU]-[A-Za-z0-9-]+", fig["alt"]), f"{doc}: figure without alt text ({fig['alt']!r})"
        # numbered by item ("Figure L-F2.1"), never a bare "Figure 1" that collides with the
        # papers' own numbering, and only with an item of this page
        m = re.match(r"Figure ([LRU]-[A-Za-z0-9-]+)\.(\d+)\.", fig["caption"])
        assert m, f"{doc}: figure without a caption numbered by item ({fig['caption'][:40]!r})"
        assert m.group(1) in items, f"{doc}: figure numbered by {m.group(1)}, not an item of this page"
        assert "preset" in fig["caption"] and ("seed" in fig["caption"] or "no random numbers" in fig["caption"])
    assert len(figures) >= published_figures(book_html, items)


# --- readability: what a reader sees at 1280 px ------------------------------------------

#: elements whose right edge must stay inside the text column: cell outputs (printed text,
#: HTML tables, figures) and every table of a page
_TOO_WIDE = """() => {
    const article = document.querySelector('.bd-article') || document.querySelector('main');
    if (!article) return ['no article element'];
    const col = article.getBoundingClientRect();
    const out = [];
    const sel = '.cell_output pre, .cell_output table, .cell_output img, .cell_output figure, table, .table-wrapper';
    for (const el of article.querySelectorAll(sel)) {
        if (el.closest('.cell_input, .mermaid')) continue;
        const r = el.getBoundingClientRect();
        const clipped = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible';
        if (r.right > col.right + 1 || clipped) {
            out.push(`${el.tagName.toLowerCase()}.${el.className || ''} ${Math.round(Math.max(r.width, el.scrollWidth))}px `
                     + `(column ${Math.round(col.width)}px): ${(el.innerText || el.alt || '').slice(0, 60)}`);
        }
    }
    return out;
}"""


@pytest.mark.parametrize("doc", toc_documents())
def test_no_output_or_table_is_wider_than_the_column(doc, pages):
    wide = pages(doc).evaluate(_TOO_WIDE)
    assert not wide, f"{doc}: wider than the text column at 1280 px (cut off or scrolled):\n" + "\n".join(wide[:10])


#: rendered height (CSS px) of the smallest text of each result figure: its size in points
#: (data-font-pt, recorded by ResultWriter.save_figure) at the PNG's dpi, times the scale the
#: page shows the PNG at
_FIGURE_TEXT = """() => Array.from(document.querySelectorAll('.cell_output img')).map(img => ({
    alt: img.alt, pt: parseFloat(img.dataset.fontPt), dpi: parseFloat(img.dataset.dpi),
    natural: img.naturalWidth, shown: img.getBoundingClientRect().width}))"""

MIN_TEXT_PX = 9.0


@pytest.mark.parametrize("doc", [d for d, _ in result_pages()])
def test_result_figure_text_is_at_least_9_px(doc, pages):
    figures = pages(doc).evaluate(_FIGURE_TEXT)
    assert figures, f"{doc}: no figure"
    small = []
    for f in figures:
        assert f["pt"] == f["pt"] and f["dpi"] == f["dpi"], \
            f"{doc}: figure {f['alt']!r} does not record its font size (shown without ResultWriter.save_figure?)"
        px = f["pt"] / 72 * f["dpi"] * f["shown"] / f["natural"]
        if px < MIN_TEXT_PX:
            small.append(f"{f['alt'][:60]!r}: {f['pt']:g} pt text renders at {px:.1f} px "
                         f"({f['natural']} px PNG shown at {f['shown']:.0f} px)")
    assert not small, f"{doc}: figure text below {MIN_TEXT_PX:g} px:\n" + "\n".join(small)


#: text a reader sees outside code and typeset math
_PROSE = """() => {
    const article = document.querySelector('.bd-article') || document.querySelector('main');
    const skip = 'pre, code, kbd, samp, script, style, .math, mjx-container, .highlight, .cell_input, .MathJax';
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    const out = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement.closest(skip)) continue;
        if (/\\^|_\\{/.test(n.textContent)) out.push(n.textContent.trim().slice(0, 100));
    }
    return out;
}"""


#: pages whose prose still writes math as plain text, left for issue 16: the API pages
#: (docstrings rendered as text) and the pages that list claim texts recorded by the
#: notebooks (L-V-limits and L-V-graphs, and the noted readings kept in the package).
#: Shrink this set as they are fixed; an expected failure that passes is reported (XPASS).
PLAIN_MATH_LEFT: set[str] = set()  # every page passed on the quick build of 3452d02 (issue 16)


@pytest.mark.parametrize("doc", [pytest.param(d, marks=pytest.mark.xfail(reason="plain-text math left (issue 16)",
                                                                       strict=False))
                                 if d in PLAIN_MATH_LEFT else d for d in toc_documents()])
def test_no_plain_text_math_in_prose(doc, pages):
    raw = pages(doc).evaluate(_PROSE)
    assert not raw, f"{doc}: '^' or '_{{' in prose outside code and math (write $...$):\n" + "\n".join(raw[:15])


@pytest.mark.parametrize("item", [i for i in manifest.ITEMS.values() if i.kind == "T"], ids=lambda i: i.id)
def test_every_paper_table_is_an_html_table(item, book_html):
    """A table of a paper is shown as an HTML <table> on its page, not as printed text."""
    page = book_html / "book" / item.part / f"{item.notebook}.html"
    html = page.read_text(encoding="utf-8")
    # the outputs of the page's code cells (each cell's HTML runs to the start of the next)
    outputs = [chunk[chunk.index("cell_output"):] for chunk in re.split(r'<div class="cell(?:\s|")', html)
               if "cell_output" in chunk]
    tables = [t for o in outputs for t in re.findall(r"<table.*?</table>", o, flags=re.S)]
    assert any(len(re.findall(r"<tr", t)) >= 4 for t in tables), f"{item.id}: no HTML table of the paper's table"
    printed = [line for o in outputs for pre in re.findall(r"<pre.*?</pre>", o, flags=re.S)
               for line in pre.splitlines() if line.count("|") >= 3]
    assert not printed, f"{item.id}: a table printed as text: {printed[:3]}"


def test_intro_index_links_every_figure_and_table_of_the_papers(book_html):
    parsed = _Anchors()
    parsed.feed((book_html / "book" / "intro.html").read_text(encoding="utf-8", errors="replace"))
    missing = []
    for item in manifest.ITEMS.values():
        if item.kind not in ("F", "T"):
            continue
        target = f"{item.part}/{item.notebook}.html"
        if not any(href.split("#")[0].endswith(target) for href in parsed.rows.get(item.id, [])):
            missing.append(item.id)
    assert not missing, f"the intro's index does not link the page of {missing}"


class _Anchors(HTMLParser):
    """Table rows of a page: the first cell's text -> the links of the row."""

    def __init__(self):
        super().__init__()
        self.rows, self._cells, self._links, self._in_row = {}, [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._in_row, self._cells, self._links = True, [], []
        elif tag in ("td", "th") and self._in_row:
            self._cells.append("")
        elif tag == "a" and self._in_row:
            self._links.append(dict(attrs).get("href", ""))

    def handle_data(self, data):
        if self._in_row and self._cells:
            self._cells[-1] += data

    def handle_endtag(self, tag):
        if tag == "tr" and self._in_row:
            if self._cells:
                self.rows.setdefault(self._cells[0].strip(), []).extend(self._links)
            self._in_row = False


def test_notebook_links_download_the_ipynb_and_the_favicon_loads(book_html, pages):
    """The header's download menu and the run record save the .ipynb (a browser would show
    its JSON), and the page has a favicon that loads."""
    doc = result_pages()[0][0]
    page = pages(doc)
    links = page.evaluate("() => Array.from(document.querySelectorAll('a[href$=\".ipynb\"]')).map("
                          "a => [a.getAttribute('href'), a.getAttribute('download')])")
    icon = page.evaluate("() => { const l = document.querySelector('link[rel~=\"icon\"]'); return l ? l.href : null; }")
    status = page.request.get(icon).status if icon else None
    assert links, f"{doc}: no link to the notebook"
    assert all(d is not None for _, d in links), f"{doc}: .ipynb links without the download attribute: {links}"
    assert status == 200, f"{doc}: favicon {icon!r} answers {status}"


#: the verdict box of a result page: its top and bottom, and the top of the parameters cell
_VERDICT = """() => {
    const box = document.querySelector('.admonition.qtheory-verdict');
    const params = document.querySelector('.cell.tag_parameters');
    if (!box) { return null; }
    const b = box.getBoundingClientRect();
    return {top: b.top + window.scrollY, bottom: b.bottom + window.scrollY, items: box.querySelectorAll('li').length,
            params: params ? params.getBoundingClientRect().top + window.scrollY : null,
            viewport: window.innerHeight};
}"""


@pytest.mark.parametrize("doc", [d for d, _ in result_pages()])
def test_result_page_opens_with_its_verdict_box_in_the_first_screen(doc, pages):
    """Issue 28: a reader sees what the paper states, what we get and the verdict first."""
    box = pages(doc).evaluate(_VERDICT)
    assert box is not None, f"{doc}: no verdict box"
    assert box["items"] >= 1, f"{doc}: the verdict box lists nothing"
    assert box["top"] < box["viewport"], f"{doc}: the verdict box starts below the first screen ({box['top']:.0f} px)"
    assert box["params"] is None or box["top"] < box["params"], f"{doc}: the parameters come before the verdict box"
