"""The built book, opened in headless Chromium: pages, figures, math and links.

Runs after the book build (``.ci/run`` does it):
``pytest tests/book --book-html _build/html``. Pages are served from a loopback
HTTP server, as a reader's browser would get them.
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


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
        self.hrefs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


@functools.lru_cache(maxsize=None)
def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


@pytest.fixture(scope="module")
def server(book_html):
    handler = functools.partial(_QuietHandler, directory=str(book_html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("headless Chromium is not installed (apt-get install chromium); .ci/run installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


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
def test_page_loads_with_figures_and_math(doc, book_html, server, browser):
    page = browser.new_page()
    failed = []
    page.on("requestfailed", lambda r: failed.append(r.url) if r.url.startswith(server) else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}")
            if r.url.startswith(server) and r.status >= 400 else None)
    response = page.goto(urljoin(server, f"{doc}.html"), wait_until="load")
    assert response is not None and response.ok, f"{doc}: HTTP {response and response.status}"
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
    page.close()
