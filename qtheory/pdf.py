"""The whole book as one PDF: every built page printed by Chromium, merged with pypdf.

``python -m qtheory pdf`` (``make pdf``) reads the built HTML book (``_build/html``, made
by ``make book`` or ``python -m qtheory book``), serves it on a loopback address, and
prints each page of the table of contents (``_toc.yml``, in its order) with the system's
Chromium through Playwright:

- a print stylesheet (:data:`PRINT_CSS`) hides the navigation (sidebars, header, buttons,
  the previous/next links), the code inputs and the "Cite this" boxes, and keeps the text,
  the figures, the tables and the typeset mathematics; each page is printed only once
  MathJax's ``startup.promise`` has resolved, its fonts are loaded and every image has
  loaded, in the light theme;
- links between pages of the book point to the online book when ``--base-url`` (or
  ``html_baseurl``) is given, and are plain text otherwise (the loopback address would
  mean nothing in the file);
- a title page (the book's title, authors, version and how to cite it, from
  ``CITATION.cff``) and a contents page (every part and page with its page number) open
  the PDF; the PDF's outline (bookmarks) has one entry per part and, under it, one per
  page.

Jupyter Book 1's own PDF builders need either a browser download at build time or a LaTeX
installation; this one needs only Debian's ``chromium`` (as the browser checks of
``tests/book`` do) and the pure-Python ``pypdf``.
"""

from __future__ import annotations

import functools
import html as html_lib
import http.server
import os
import re
import shutil
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .display import plain_math
from .errors import QTheoryError
from .results import project_root

__all__ = ["PRINT_CSS", "BookPdf", "Chapter", "build_pdf", "chromium_path", "toc_chapters"]

#: Chromium's command-line flags, as for the browser checks of tests/book
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: where `python -m qtheory pdf` writes by default (under the project folder)
DEFAULT_OUTPUT = Path("_build") / "pdf" / "qtheory-companion.pdf"

#: the address under which the title and contents pages are served to Chromium
FRONT_PAGE = "_qtheory_pdf_front_matter.html"

#: the print stylesheet added to every page before it is printed
PRINT_CSS = """\
@page { size: A4; margin: 16mm 14mm 16mm 14mm; }
html, body { background: #fff !important; }
.bd-header, .bd-header-announcement, .bd-sidebar-primary, .bd-sidebar-secondary,
.bd-header-article, .header-article-main, .bd-footer, .bd-footer-article, .bd-footer-content,
.prev-next-area, .prev-next-footer, footer, #pst-back-to-top, .skip-link, #pst-skip-link,
.search-button-field, .sidebar-toggle, .headerlink, .copybtn, button, .toggle-details__summary,
.cell_input, details.above-input, details.hide.above-input, .cell.tag_remove-input .cell_input,
.admonition.cite-this, .bd-search, .theme-switch-button, .article-header-buttons,
.dropdown-download-buttons, #jb-print-docs-body { display: none !important; }
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; font-size: 1.9em; margin-top: 0; }
.bd-container, .bd-container__inner, .bd-page-width, .bd-main, .bd-content, .bd-article-container,
.bd-article { max-width: none !important; width: 100% !important; margin: 0 !important;
  padding: 0 !important; }
.bd-main .bd-content { justify-content: flex-start !important; }
body { font-size: 10.5pt; }
a { color: inherit; text-decoration: none; }
h1, h2, h3 { break-after: avoid; }
figure, img, table, .math, mjx-container, .admonition-title { break-inside: avoid; }
.admonition-title { break-after: avoid; }
.qtheory-rerun td:first-child code, .qtheory-rerun td:first-child code span.pre {
  white-space: nowrap !important; overflow-wrap: normal !important; }
img { max-width: 100% !important; height: auto !important; }
.cell_output { margin-top: 0.4em; }
"""

#: resolves when the page is ready to print: MathJax typeset, web fonts and images loaded
_READY_JS = """async () => {
  document.querySelectorAll('img[loading="lazy"]').forEach(i => { i.loading = "eager"; });
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  await Promise.all(Array.from(document.images).map(i => (i.complete ? null :
    new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); }))));
  await document.fonts.ready;
  return {images: Array.from(document.images).filter(i => i.naturalWidth === 0).map(i => i.src),
          raw_math: Array.from(document.querySelectorAll('.math'))
            .filter(e => !e.querySelector('mjx-container')).length,
          mathjax_errors: document.querySelectorAll('mjx-merror').length};
}"""

#: internal links: to the online book (base given) or plain text; the loopback address means nothing in a file
_LINKS_JS = """([origin, base]) => {
  document.querySelectorAll('a[href]').forEach(a => {
    if (!a.href.startsWith(origin)) { return; }
    if (base) { a.href = base + a.href.slice(origin.length); } else { a.removeAttribute('href'); }
  });
}"""


@dataclass(frozen=True)
class Chapter:
    """A part of the book (a caption of ``_toc.yml``) and its pages' docnames, in order."""

    title: str
    documents: tuple[str, ...]


@dataclass
class BookPdf:
    """What :func:`build_pdf` wrote: the file, its page count, and where each document starts."""

    path: Path
    pages: int
    chapters: list[Chapter]
    #: ``{docname: first page (1-based)}``
    starts: dict[str, int] = field(default_factory=dict)
    #: ``{docname: [problem, ...]}`` for pages with an image that did not load or untypeset math
    problems: dict[str, list[str]] = field(default_factory=dict)


def toc_chapters(html_dir: Path, toc: Path | None = None) -> list[Chapter]:
    """The parts of ``_toc.yml`` with their built pages, in the book's order.

    The root page opens an unnamed first chapter; a ``glob`` entry is expanded against the
    built HTML (``book/locality/L-[FPTVXR]*`` -> the result pages that were built), sorted
    as Sphinx sorts it. Pages listed but not built raise :class:`QTheoryError`.
    """
    import yaml

    toc = toc or project_root() / "_toc.yml"
    if not toc.is_file():
        raise QTheoryError(f"no table of contents at {toc}: `python -m qtheory pdf` runs in the repository")
    data = yaml.safe_load(toc.read_text(encoding="utf-8"))

    def walk(entries, out):
        for entry in entries or []:
            if "file" in entry:
                out.append(entry["file"])
            if "glob" in entry:
                out.extend(sorted(p.relative_to(html_dir).with_suffix("").as_posix()
                                  for p in html_dir.glob(entry["glob"] + ".html")))
            walk(entry.get("sections"), out)
            walk(entry.get("chapters"), out)
        return out

    chapters = [Chapter("", (data["root"],))]
    if data.get("chapters"):
        chapters[0] = Chapter("", tuple(walk(data["chapters"], [data["root"]])))
    for part in data.get("parts", []):
        chapters.append(Chapter(str(part.get("caption", "")), tuple(walk(part.get("chapters"), []))))
    missing = [d for c in chapters for d in c.documents if not (html_dir / f"{d}.html").is_file()]
    if missing:
        raise QTheoryError(f"{html_dir} lacks pages of _toc.yml ({', '.join(missing[:5])}"
                           f"{' ...' if len(missing) > 5 else ''}): build the book again (make book)")
    return chapters


def chromium_path() -> str:
    """The system's Chromium: ``$QTHEORY_CHROMIUM``, else ``chromium`` or ``chromium-browser`` on the PATH."""
    found = os.environ.get("QTHEORY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise QTheoryError("the PDF is printed by Chromium, which is not installed: apt-get install chromium "
                           "(or set QTHEORY_CHROMIUM to its executable)")
    return found


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def _serve(directory: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


#: TeX commands of the pages' titles written as their character in the outline and the footers
def _authors(cff: dict) -> str:
    """The authors of CITATION.cff in one line (an entity by its name, a person as given and family name)."""
    return ", ".join(a.get("name") or " ".join(filter(None, (a.get("given-names"), a.get("family-names"))))
                     for a in cff.get("authors", []))


def _front_matter(chapters: Sequence[Chapter], titles: dict[str, str], starts: dict[str, int],
                  offset: int) -> str:
    """HTML of the title page and the contents (page numbers shifted by `offset` front pages)."""
    from .citation import _book_bibtex, citation_record

    cff = citation_record()
    esc = html_lib.escape
    authors = _authors(cff)
    rows = []
    for chapter in chapters:
        if chapter.title:
            rows.append(f'<li class="part">{esc(chapter.title)}</li>')
        for doc in chapter.documents:
            if doc not in starts:
                continue
            rows.append(f'<li><span class="t">{esc(titles.get(doc, doc))}</span>'
                        f'<span class="n">{starts.get(doc, 0) + offset}</span></li>')
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
@page {{ size: A4; margin: 22mm 20mm; }}
body {{ font-family: "DejaVu Sans", "Liberation Sans", sans-serif; font-size: 10.5pt; color: #111; }}
.title {{ height: 230mm; display: flex; flex-direction: column; justify-content: center; break-after: page; }}
h1 {{ font-size: 24pt; margin: 0 0 0.6em; }} .sub {{ font-size: 12pt; margin: 0.3em 0; }}
pre {{ font-size: 7.5pt; white-space: pre-wrap; background: #f4f4f4; padding: 0.6em; margin-top: 2em; }}
ol {{ list-style: none; padding: 0; }} li {{ display: flex; margin: 0.15em 0; }}
li .t {{ flex: 1; }} li .n {{ min-width: 2.5em; text-align: right; }}
li.part {{ font-weight: bold; margin-top: 0.9em; }}
</style></head><body>
<section class="title"><h1>{esc(cff.get("title", "qtheory"))}</h1>
<p class="sub">{esc(authors)}</p>
<p class="sub">Version {esc(str(cff.get("version", "")))}, printed {time.strftime("%Y-%m-%d", time.gmtime())}
from the built HTML book.</p>
<p class="sub">{esc((cff.get("abstract") or "").strip())}</p>
<p>Cite as:</p><pre>{esc(_book_bibtex(cff))}</pre></section>
<section><h2>Contents</h2><ol>{"".join(rows)}</ol></section>
<script src="_static/mathjax/tex-chtml-full.js"></script>
</body></html>"""


def build_pdf(html_dir: str | os.PathLike | None = None, output: str | os.PathLike | None = None, *,
              base_url: str | None = None, toc: Path | None = None, only: Sequence[str] | None = None,
              echo: Callable[[str], None] | None = None) -> BookPdf:
    """Print the built book at `html_dir` (default ``_build/html``) into one PDF at `output`.

    Parameters
    ----------
    html_dir : path, optional
        The built HTML book (default ``<project>/_build/html``).
    output : path, optional
        The PDF to write (default ``<project>/_build/pdf/qtheory-companion.pdf``).
    base_url : str, optional
        The online book's address: links between pages point there (default: none, they
        become plain text).
    toc : path, optional
        The table of contents (default ``<project>/_toc.yml``).
    only : sequence of str, optional
        Print only these docnames (for a quick look; the contents still list every page).
    echo : callable, optional
        Receives one progress line per page.

    Returns
    -------
    BookPdf
        The file, its page count, each document's first page, and any page whose images or
        mathematics did not render.
    """
    import pypdf
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir) if html_dir is not None else project_root() / "_build" / "html"
    if not (html_dir / "index.html").is_file():
        raise QTheoryError(f"the book is not built: {html_dir / 'index.html'} does not exist; build it first "
                           f"(make book, or python -m qtheory book)")
    output = Path(output) if output is not None else project_root() / DEFAULT_OUTPUT
    echo = echo or (lambda line: None)
    chapters = toc_chapters(html_dir, toc)
    docs = [d for c in chapters for d in c.documents if only is None or d in only]
    base = (base_url or "").rstrip("/")
    writer = pypdf.PdfWriter()
    titles: dict[str, str] = {}
    starts: dict[str, int] = {}
    problems: dict[str, list[str]] = {}
    page_count = 0
    started = time.time()
    with _serve(html_dir) as origin, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(color_scheme="light", viewport={"width": 1000, "height": 1400})
            # the theme's own switch remembers a dark choice: start every page in the light theme
            context.add_init_script("try { localStorage.setItem('theme', 'light'); "
                                    "localStorage.setItem('mode', 'light'); } catch (e) {}")
            bodies = []
            for k, doc in enumerate(docs, 1):
                page = context.new_page()
                page.goto(origin + f"{doc}.html", wait_until="load")
                page.add_style_tag(content=PRINT_CSS)
                ready = page.evaluate(_READY_JS)
                page.evaluate(_LINKS_JS, [origin, base + "/" if base else ""])
                titles[doc] = page.title().split(" — ")[0].strip() or doc
                issues = [f"image did not load: {src}" for src in ready["images"]]
                if ready["raw_math"]:
                    issues.append(f"{ready['raw_math']} math element(s) not typeset")
                if ready["mathjax_errors"]:
                    issues.append(f"{ready['mathjax_errors']} MathJax error(s)")
                if issues:
                    problems[doc] = issues
                pdf = page.pdf(print_background=True, prefer_css_page_size=True, display_header_footer=True,
                               header_template="<span></span>",
                               footer_template=('<div style="font-size:7pt;width:100%;text-align:center;color:#666">'
                                                f'{html_lib.escape(plain_math(titles[doc]))}</div>'))
                page.close()
                reader = pypdf.PdfReader(_bytes_io(pdf))
                starts[doc] = page_count + 1
                page_count += len(reader.pages)
                bodies.append((doc, reader))
                echo(f"[{k}/{len(docs)}] {doc}: {len(reader.pages)} page(s)")
            # the front matter: its own length shifts the numbers it prints; settle it in two passes
            front, offset = None, 0
            for _ in range(3):
                page = context.new_page()
                # served beside the book's pages (never written into it): its MathJax is the book's
                front_html = _front_matter(chapters, titles, starts, offset)
                page.route(origin + FRONT_PAGE, functools.partial(_fulfill, front_html))
                page.goto(origin + FRONT_PAGE, wait_until="load")
                page.evaluate(_READY_JS)
                front = pypdf.PdfReader(_bytes_io(page.pdf(prefer_css_page_size=True)))
                page.close()
                if len(front.pages) == offset:
                    break
                offset = len(front.pages)
        finally:
            browser.close()
    writer.append(front)
    for doc, reader in bodies:
        writer.append(reader, import_outline=False)
    for chapter in chapters:
        present = [d for d in chapter.documents if d in starts]
        if not present:
            continue
        parent = None
        if chapter.title:
            parent = writer.add_outline_item(title=chapter.title, page_number=starts[present[0]] - 1 + offset)
        for doc in present:
            writer.add_outline_item(title=plain_math(titles[doc]), page_number=starts[doc] - 1 + offset,
                                    parent=parent)
    from .citation import citation_record

    cff = citation_record()
    writer.add_metadata({"/Title": str(cff.get("title", "qtheory")), "/Author": _authors(cff),
                         "/Subject": f"version {cff.get('version', '')}", "/Creator": "python -m qtheory pdf"})
    writer.page_mode = "/UseOutlines"
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".part")
    with partial.open("wb") as fh:
        writer.write(fh)
    os.replace(partial, output)
    echo(f"{output}: {offset + page_count} pages ({len(docs)} book pages) in {time.time() - started:.0f} s")
    return BookPdf(output, offset + page_count, chapters, {d: s + offset for d, s in starts.items()}, problems)


def _fulfill(body: str, route) -> None:
    route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body)


def _bytes_io(data: bytes):
    import io

    return io.BytesIO(data)
