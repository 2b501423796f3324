"""Fixtures of the browser checks: the built book served on loopback, one headless Chromium, and
each page opened once per view.

A view is what a reader's screen is: ``desktop`` (1280 × 900, light), ``dark`` (the same with the
system's dark colour scheme) and ``phone`` (390 × 844, a touch screen at twice the pixel density).
:class:`Pages` keeps the page of each view open for the document last asked for, so the checks of
one document (its loads, layout, prose, contrast, figures) read the same loaded page instead of
loading it a dozen times; the items are sorted by document so that they run one document after
another, and under ``pytest-xdist`` (``-n 2 --dist loadgroup``) a document's checks stay on one
worker. A check that changes its page (a click) restores it before it ends.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: the reader's screens every page is checked on
VIEWS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"},
    "dark": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"},
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
              "has_touch": True, "color_scheme": "light"},
}


def pytest_addoption(parser):
    parser.addoption("--book-html", default=os.environ.get("QTHEORY_BOOK_HTML"),
                     help="built book folder (_build/html) to check in a browser")


def _document(item) -> str:
    callspec = getattr(item, "callspec", None)
    doc = callspec.params.get("doc") if callspec else None
    return doc if isinstance(doc, str) else ""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The checks of one document run one after another (a stable sort: within a document, in the
    order of collection), on one worker under xdist's ``loadgroup`` distribution; a check of no
    single document goes with the other checks of its module (the PDF's, which print the whole
    book, on one worker while the other loads pages).

    xdist 3.8 groups a test by appending ``@group`` to its node id through ``item._nodeid``, which
    pytest 9.2 no longer reads (a node's id is ``item._id``): every check was a group of its own,
    and the PDF was printed once on each worker (170 s each). Last among the hooks, this one
    appends the group where xdist's rewrite did not take."""
    here = Path(__file__).parent
    book, rest = [], []
    for item in items:
        (book if Path(str(item.fspath)).parent == here else rest).append(item)
    if not book:
        return
    book.sort(key=_document)                 # stable: within a document, the order of collection
    items[:] = rest + book
    if config.getoption("dist", "no") == "loadgroup" or getattr(config.option, "loadgroup", False):
        for item in book:
            group = _document(item) or item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(group))
            if "@" not in item.nodeid:
                _set_node_id(item, f"{item.nodeid}@{group}")


def _set_node_id(item, nodeid: str) -> None:
    if hasattr(item, "_id"):                 # pytest >= 9.2: a structured NodeId
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(nodeid)
    else:
        item._nodeid = nodeid


@pytest.fixture(scope="session")
def book_html(request) -> Path:
    value = request.config.getoption("--book-html")
    if not value:
        pytest.skip("the browser checks run on a built book: pytest tests/book --book-html _build/html")
    path = Path(value).resolve()
    if not (path / "index.html").exists():
        pytest.fail(f"--book-html {path} holds no index.html: build the book first")
    return path


@pytest.fixture(scope="session")
def server(book_html):
    """The built book on a loopback HTTP server, as a reader's browser gets it (the server
    ``make pdf`` prints from)."""
    from qtheory.pdf import _serve

    with _serve(book_html) as origin:
        yield origin


@pytest.fixture(scope="session")
def browser():
    if CHROMIUM is None:
        pytest.fail("headless Chromium is not installed (apt-get install chromium); .ci/run installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Opened:
    """A document loaded in one view: the page, its HTTP status and every request of the server
    that failed or answered with an error while it loaded and since."""

    doc: str
    page: object
    status: int | None
    failed: list[str] = field(default_factory=list)


def wait_for_math(page) -> None:
    """Return once MathJax (if the page loads it) has typeset the page."""
    if page.evaluate("() => typeof window.MathJax !== 'undefined' && !!window.MathJax.startup"):
        page.wait_for_function("() => window.MathJax.startup.promise", timeout=20000)
        page.evaluate("() => window.MathJax.startup.promise")


class Pages:
    """The page of each view for the document last asked for (see the module's doc)."""

    def __init__(self, browser, server: str):
        self._browser, self._server = browser, server
        self._contexts: dict[str, object] = {}
        self._open: dict[str, Opened] = {}
        self.loads = 0

    def opened(self, doc: str, view: str = "desktop") -> Opened:
        if view not in VIEWS:
            raise ValueError(f"view must be one of {sorted(VIEWS)}, got {view!r}")
        current = self._open.get(view)
        if current is not None and current.doc == doc:
            return current
        if current is not None:
            current.page.close()
        if view not in self._contexts:
            self._contexts[view] = self._browser.new_context(**VIEWS[view])
        page = self._contexts[view].new_page()
        failed: list[str] = []
        page.on("requestfailed", lambda r: failed.append(r.url) if r.url.startswith(self._server) else None)
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}")
                if r.url.startswith(self._server) and r.status >= 400 else None)
        response = page.goto(urljoin(self._server, f"{doc}.html"), wait_until="load")
        wait_for_math(page)
        self.loads += 1
        self._open[view] = Opened(doc, page, response.status if response is not None else None, failed)
        return self._open[view]

    def __call__(self, doc: str, view: str = "desktop"):
        """The loaded page of ``doc`` in ``view``."""
        return self.opened(doc, view).page

    def close(self) -> None:
        for ctx in self._contexts.values():
            ctx.close()
        self._contexts.clear()
        self._open.clear()


@pytest.fixture(scope="session")
def pages(browser, server):
    """``pages(doc, view)``: the page of ``doc`` loaded in ``view`` (``desktop``, ``dark`` or
    ``phone``), shared by every check of that document. Checks read it; one that clicks or scrolls
    puts it back as it found it."""
    cache = Pages(browser, server)
    yield cache
    cache.close()
