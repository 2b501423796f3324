"""Sphinx extension of the book: offline MathJax, generated claims and errata pages.

Before the sources are read, ``book/claims.md`` and ``book/errata.md`` are written
from the claims recorded in the results folder (:mod:`qtheory.claims`).

The directive ``checks`` (used on the theorem pages) lists, at build time, the
numbers that the results of this build record for a manifest item: each claim with
the paper's value, ours and the verdict, or, when the item records no claim, a line
saying where its evidence is. Written in MyST as

.. code-block:: markdown

   ```{checks} L-V-thm4
   ```

The book must render its mathematics offline (and in CI, which has no internet), so
the MathJax 3 files shipped by the ``django-static-mathjax`` wheel are copied into the
HTML output (only the combined TeX/CHTML script and its web fonts, a few MB).
Enabled in ``_config.yml`` under ``sphinx.extra_extensions``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.domains import Domain

SCRIPT = "tex-chtml-full.js"
CSS = "qtheory.css"
# long test names (tests/<part>/test_x.py::test_...) wrap instead of overflowing the
# column; the recorded checks under a theorem sit closer to it than ordinary text; table
# cells break words (not links or numbers) only where they hold code (a long test name),
# a notebook table's caption stands above the box in which the table scrolls (so it wraps),
# and tables of six columns or more are set smaller, so that no table is wider than the column;
# printed output wraps at the column's edge instead of hiding behind a scroll bar
_CSS_TEXT = """\
.bd-article p > code.literal, .bd-article p > code.literal span.pre { white-space: normal; overflow-wrap: anywhere; }
.qtheory-badge { display: inline-block; font-size: 0.9em; padding: 0.15em 0.6em; border-radius: 0.3em; background: var(--pst-color-surface); border: 1px solid var(--pst-color-border); }
.qtheory-checks { font-size: 0.92em; border-left: 3px solid var(--pst-color-border); padding-left: 0.8em; }
table.qtheory-table { font-size: 0.88em; border-collapse: collapse; margin: 0.8em 0 1.4em; }
figure.qtheory-table-figure { margin: 0.8em 0 1.4em; }
figure.qtheory-table-figure > figcaption { font-size: 0.88em; text-align: left; padding: 0 0 0.4em; margin: 0; color: var(--pst-color-text-base); }
.qtheory-table-scroll { overflow-x: auto; max-width: 100%; }
figure.qtheory-table-figure table.qtheory-table { margin: 0; }
table.qtheory-table th, table.qtheory-table td { padding: 0.2em 0.55em; border-bottom: 1px solid var(--pst-color-border); vertical-align: top; }
table.qtheory-table thead th { border-bottom: 2px solid var(--pst-color-primary); }
figure.qtheory-figure { margin: 0.8em 0 1.4em; }
figure.qtheory-figure figcaption { font-size: 0.92em; margin-top: 0.4em; color: var(--pst-color-text-base); }
table.qtheory-table tbody tr:nth-child(odd) { background: var(--pst-color-surface); }
.bd-article table { max-width: 100%; }
.bd-article table td { overflow-wrap: break-word; }
.bd-article table td code.literal, .bd-article table td code.literal span.pre { white-space: normal; overflow-wrap: anywhere; }
.bd-article table th { overflow-wrap: normal; }
.bd-article table td:has(code.literal) { overflow-wrap: anywhere; }
.bd-article .cell_output table.qtheory-table { width: auto; }
.bd-article table.qtheory-table td { overflow-wrap: normal; }
.bd-article .cell_output pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.bd-article table:has(th:nth-child(6)):not(.qtheory-cards-wide) { font-size: 0.8em; }
.bd-article table:has(th:nth-child(6)):not(.qtheory-cards-wide) th, .bd-article table:has(th:nth-child(6)):not(.qtheory-cards-wide) td { padding-left: 0.3em; padding-right: 0.3em; }
.bd-article a code.xref, .bd-article a code.xref span.pre { white-space: normal; overflow-wrap: anywhere; }
.bd-article dt.sig, .bd-article dt.sig span.pre { overflow-wrap: anywhere; white-space: normal; }
.bd-article h1, .bd-article h2, .bd-article h3 { overflow-wrap: anywhere; }
.bd-article div.highlight pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.bd-article mjx-container[display="true"] { overflow-x: auto; overflow-y: hidden; max-width: 100%; }
.bd-article mjx-container[data-qtheory-wrap], .bd-article mjx-container[data-qtheory-wrap] > mjx-math { display: inline; white-space: normal; }
html[data-theme="dark"] .bd-content div.cell_output .text_html, html[data-theme="dark"] .bd-content div.cell_output .text_markdown { background: transparent !important; color: var(--pst-color-text-base) !important; padding: 0; }
.admonition.qtheory-verdict { margin-top: 0.6em; }
.qtheory-rerun td:first-child code, .qtheory-rerun td:first-child code span.pre { white-space: nowrap; overflow-wrap: normal; }
.admonition.qtheory-verdict ul { margin-bottom: 0.2em; padding-left: 1.1em; }
.admonition.qtheory-verdict li { margin-bottom: 0.25em; }
.qtheory-label { display: inline-block; font-size: 0.8em; font-weight: 600; padding: 0 0.45em; border-radius: 0.25em; border: 1px solid currentColor; white-space: nowrap; }
.qtheory-label-agrees, .qtheory-label-internal-check { color: var(--pst-color-success); }
.qtheory-label-differs, .qtheory-label-internal-check-fails, .qtheory-label-erratum { color: var(--pst-color-danger); }
.qtheory-label-reconstruction, .qtheory-label-beyond-the-papers { color: var(--pst-color-info); }
.qtheory-label-not-resolved, .qtheory-label-internal-check-not-resolved { color: #8a5300; }
html[data-theme="dark"] .qtheory-label-not-resolved, html[data-theme="dark"] .qtheory-label-internal-check-not-resolved { color: #f5b461; }
details.qtheory-stats { margin: 0.1em 0 0.3em; font-size: 0.9em; }
details.qtheory-stats > summary { cursor: pointer; color: var(--pst-color-text-muted); }
details.qtheory-stats > p { margin: 0.3em 0 0.3em 1em; }
[data-qtheory-scrolls="right"] { box-shadow: inset -14px 0 12px -12px rgba(0, 0, 0, 0.55) !important; }
[data-qtheory-scrolls="left"] { box-shadow: inset 14px 0 12px -12px rgba(0, 0, 0, 0.55) !important; }
[data-qtheory-scrolls="both"] { box-shadow: inset -14px 0 12px -12px rgba(0, 0, 0, 0.55), inset 14px 0 12px -12px rgba(0, 0, 0, 0.55) !important; }
html[data-theme="dark"] [data-qtheory-scrolls="right"] { box-shadow: inset -14px 0 12px -12px rgba(255, 255, 255, 0.5) !important; }
html[data-theme="dark"] [data-qtheory-scrolls="left"] { box-shadow: inset 14px 0 12px -12px rgba(255, 255, 255, 0.5) !important; }
html[data-theme="dark"] [data-qtheory-scrolls="both"] { box-shadow: inset -14px 0 12px -12px rgba(255, 255, 255, 0.5), inset 14px 0 12px -12px rgba(255, 255, 255, 0.5) !important; }
@media (max-width: 700px) {
  .bd-article table.qtheory-cards, .bd-article table.qtheory-cards tbody, .bd-article table.qtheory-cards tr, .bd-article table.qtheory-cards td { display: block; width: 100%; }
  .bd-article table.qtheory-cards thead { display: none; }
  .bd-article table.qtheory-cards tr { border-bottom: 1px solid var(--pst-color-border); padding: 0.4em 0; }
  .bd-article table.qtheory-cards td { border: none; padding: 0.15em 0.3em; text-align: left; }
  .bd-article table.qtheory-cards td[data-label]::before { content: attr(data-label); display: block; font-size: 0.8em; font-weight: 600; color: var(--pst-color-text-muted); }
}
.bd-article table.qtheory-cards-wide, .bd-article table.qtheory-cards-wide tbody, .bd-article table.qtheory-cards-wide tr, .bd-article table.qtheory-cards-wide td { display: block; width: 100%; }
.bd-article table.qtheory-cards-wide thead { display: none; }
.bd-article table.qtheory-cards-wide tr { border-bottom: 1px solid var(--pst-color-border); padding: 0.5em 0; }
.bd-article table.qtheory-cards-wide td { border: none; padding: 0.15em 0.3em 0.15em 8em; display: flow-root; text-align: left; }
.bd-article table.qtheory-cards-wide td[data-label]::before { content: attr(data-label); float: left; width: 8.2em; margin-left: -9.2em; font-size: 0.85em; line-height: 1.4; font-weight: 600; color: var(--pst-color-text-muted); padding-top: 0.2em; }
figure.qtheory-figure img { cursor: zoom-in; }
.qtheory-figure-links { font-size: 0.85em; margin-top: 0.2em; }
.qtheory-figure-links a + a::before { content: " \\00b7  "; color: var(--pst-color-text-muted); }
.qtheory-zoom { position: fixed; inset: 0; z-index: 2000; background: rgba(0, 0, 0, 0.85); overflow: auto; cursor: zoom-out; display: flex; flex-direction: column; align-items: flex-start; }
.qtheory-zoom img { max-width: none; width: auto; height: auto; margin: auto; background: #fff; }
.qtheory-zoom .qtheory-zoom-bar { position: sticky; top: 0; left: 0; width: 100%; padding: 0.4em 0.8em; background: rgba(0, 0, 0, 0.7); color: #fff; font-size: 0.9em; }
.qtheory-zoom .qtheory-zoom-bar a { color: #9cd2ff; margin-left: 1em; }
"""
FONTS = Path("output") / "chtml" / "fonts" / "woff-v2"
JS = "qtheory.js"
#: classes of the HTML that notebooks output (figures, tables) whose math MathJax typesets
MATH_CLASSES = ("qtheory-figure", "qtheory-table", "qtheory-table-figure")
# the header's download menu and the run record link the notebooks (.ipynb): a browser
# would show their JSON; the download attribute makes it save the file instead
# MathJax 3 sets inline math as one unbreakable box: a formula wider than its line (on a phone)
# would run past the text column, where the page or an admonition cuts it off. Such formulas
# (and only those: a formula that fits moves to the next line whole) are marked after each
# typesetting and at every resize, and the style sheet lets them break between their parts.
_JS_TEXT = """\
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll('a[href$=".ipynb"]').forEach(function (a) {
    if (!a.hasAttribute("download")) { a.setAttribute("download", a.pathname.split("/").pop()); }
  });
});
// run `fn` once the page is laid out, again when MathJax has typeset it, and after each resize
function qtheoryOnLayout(fn) {
  var timer = null;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(fn, 150); });
  function start() {
    fn();
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { MathJax.startup.promise.then(fn); }
  }
  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
}
// a box that scrolls sideways (a wide table, equation or code block on a phone) shows that it does:
// a shadow on each side where more content lies, updated as it scrolls and at every resize
(function () {
  function side(el) {
    var more = el.scrollWidth > el.clientWidth + 1;
    if (!more) { el.removeAttribute("data-qtheory-scrolls"); return; }
    var left = el.scrollLeft > 1, right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    el.setAttribute("data-qtheory-scrolls", left && right ? "both" : (left ? "left" : "right"));
  }
  function mark() {
    var article = document.querySelector(".bd-article");
    if (!article) { return; }
    article.querySelectorAll("*").forEach(function (el) {
      var o = getComputedStyle(el).overflowX;
      if (o !== "auto" && o !== "scroll") { return; }
      side(el);
      if (!el.hasAttribute("data-qtheory-scroll-watch")) {
        el.setAttribute("data-qtheory-scroll-watch", "");
        el.addEventListener("scroll", function () { side(el); }, {passive: true});
      }
    });
  }
  window.qtheoryMarkScrolls = mark;
  qtheoryOnLayout(mark);
})();
// a table of sentences (errata, reconstructions) too wide for a phone is read row by row: each row
// a card, each cell under its column's name (the style sheet lays them out below 700 px). On a wider
// screen the page's tables of sentences are read the same way, each cell beside its column's name,
// when that makes them, together, at least 15% shorter in lines of text (sentences squeezed into
// narrow columns) or when one of them is wider than the column (it would scroll sideways); all of
// them or none, so that a page reads one way. Tables of numbers keep their
// columns (and scroll sideways on a phone, with the shadow above)
(function () {
  function cards() {
    var narrow = window.matchMedia("(max-width: 700px)").matches, wordy = [];
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
      var cells = table.querySelectorAll("tbody td");
      table.classList.remove("qtheory-cards", "qtheory-cards-wide");
      if (!heads.length || !cells.length) { return; }
      var chars = 0;
      cells.forEach(function (td) { chars += td.textContent.trim().length; });
      if (chars / cells.length <= 30) { return; }   // a table of numbers
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, k) { if (heads[k]) { td.setAttribute("data-label", heads[k]); } });
      });
      wordy.push(table);
    });
    if (narrow) {
      wordy.forEach(function (table) {
        if (table.scrollWidth > table.parentElement.clientWidth + 1) { table.classList.add("qtheory-cards"); }
      });
    } else if (wordy.length) {
      // heights in lines of the table's own text: a table of six columns is set smaller than its cards
      var height = function () {
        return wordy.reduce(function (h, t) { return h + t.offsetHeight / parseFloat(getComputedStyle(t).fontSize); }, 0);
      };
      var tall = height();
      var scrolls = wordy.some(function (t) { return t.scrollWidth > t.parentElement.clientWidth + 1; });
      wordy.forEach(function (table) { table.classList.add("qtheory-cards-wide"); });
      if (!scrolls && height() > 0.85 * tall) { wordy.forEach(function (table) { table.classList.remove("qtheory-cards-wide"); }); }
    }
    if (window.qtheoryMarkScrolls) { window.qtheoryMarkScrolls(); }   // the cards no longer scroll
  }
  qtheoryOnLayout(cards);
})();
// figures: a click (or tap) opens the figure at its full size over the page, a link under each
// figure does the same and another fetches its SVG (the run record's download of the same name)
(function () {
  function svgOf(img) {
    var name = (img.getAttribute("data-file") || "") + ".svg";
    var found = null;
    document.querySelectorAll("a.download, a[download]").forEach(function (a) {
      if (!found && a.textContent.trim() === name) { found = a.getAttribute("href"); }
    });
    return found;
  }
  function open(img) {
    var box = document.createElement("div");
    box.className = "qtheory-zoom";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "figure at full size");
    var bar = document.createElement("div");
    bar.className = "qtheory-zoom-bar";
    bar.textContent = "Full size (click, tap or Escape to close)";
    var svg = svgOf(img);
    if (svg) {
      var a = document.createElement("a");
      a.href = svg; a.textContent = "SVG"; a.setAttribute("download", "");
      a.addEventListener("click", function (e) { e.stopPropagation(); });
      bar.appendChild(a);
    }
    var big = document.createElement("img");
    big.src = img.src; big.alt = img.alt;
    box.appendChild(bar); box.appendChild(big);
    function close() { box.remove(); document.removeEventListener("keydown", key); }
    function key(e) { if (e.key === "Escape") { close(); } }
    box.addEventListener("click", close);
    document.addEventListener("keydown", key);
    document.body.appendChild(box);
  }
  function links() {
    document.querySelectorAll("figure.qtheory-figure").forEach(function (fig) {
      var img = fig.querySelector("img");
      if (!img || fig.querySelector(".qtheory-figure-links")) { return; }
      img.addEventListener("click", function () { open(img); });
      var row = document.createElement("div");
      row.className = "qtheory-figure-links";
      var full = document.createElement("a");
      full.href = "#"; full.textContent = "full size";
      full.addEventListener("click", function (e) { e.preventDefault(); open(img); });
      row.appendChild(full);
      var svg = svgOf(img);
      if (svg) {
        var a = document.createElement("a");
        a.href = svg; a.textContent = "SVG"; a.setAttribute("download", "");
        row.appendChild(a);
      }
      fig.insertBefore(row, fig.querySelector("figcaption"));
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", links); } else { links(); }
})();
(function () {
  var INLINE = '.bd-article mjx-container[jax="CHTML"]:not([display="true"])';
  function room(el) {
    var box = el.parentElement;
    while (box && getComputedStyle(box).display.indexOf("inline") === 0) { box = box.parentElement; }
    if (!box) { return Infinity; }
    var s = getComputedStyle(box);
    return box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  }
  function mark() {
    var all = Array.prototype.slice.call(document.querySelectorAll(INLINE));
    all.forEach(function (m) { m.removeAttribute("data-qtheory-wrap"); });
    var wide = all.filter(function (m) { return m.getBoundingClientRect().width > room(m) + 1; });
    wide.forEach(function (m) { m.setAttribute("data-qtheory-wrap", ""); });
  }
  function start() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { MathJax.startup.promise.then(mark); }
  }
  var timer = null;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(mark, 150); });
  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
"""
#: launch services offered when the repository is set (see _repository)
LAUNCH = {"binderhub_url": "https://mybinder.org", "colab_url": "https://colab.research.google.com"}


def _mathjax_es5() -> Path:
    try:
        import mathjax  # provided by the django-static-mathjax wheel
    except ImportError as err:  # pragma: no cover - an install problem, said clearly
        raise RuntimeError("the book needs the package django-static-mathjax "
                           "(pip install -r requirements.txt)") from err
    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"


def _prepare(app, config) -> None:
    src = _mathjax_es5()
    static = Path(app.outdir).parent / ".mathjax-static"
    dest = static / "mathjax"
    if not (dest / SCRIPT).exists():
        (dest / FONTS).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / SCRIPT, dest / SCRIPT)
        shutil.copytree(src / FONTS, dest / FONTS, dirs_exist_ok=True)
    for name, text in ((CSS, _CSS_TEXT), (JS, _JS_TEXT)):
        for path in (static / name, Path(app.outdir) / "_static" / name):
            # the second: an incremental build with no page to rewrite copies no static file,
            # so a changed style would not reach an existing build without it
            if path.parent.exists() and (not path.exists() or path.read_text(encoding="utf-8") != text):
                path.write_text(text, encoding="utf-8")
    config.html_static_path = list(config.html_static_path) + [str(static)]
    config.mathjax_path = f"mathjax/{SCRIPT}"
    # myst-nb marks notebook pages "mathjax_ignore" and typesets only its own .math nodes;
    # the figures' captions and the HTML tables of the notebooks (qtheory.display) carry
    # \\(...\\) math of their own, so MathJax also processes those two classes
    mj = dict(config.mathjax3_config or {})
    options = dict(mj.get("options") or {})
    classes = options.get("processHtmlClass") or "tex2jax_process|mathjax_process|math|output_area"
    options["processHtmlClass"] = classes + "|" + "|".join(MATH_CLASSES)
    mj["options"] = options
    config.mathjax3_config = mj
    # myst-parser would reset processHtmlClass to its own list (which the one above extends)
    config.myst_update_mathjax = False


def repository(config) -> str:
    """The book's public repository: ``$QTHEORY_REPOSITORY``, else ``qtheory_repository`` of _config.yml."""
    return (os.environ.get("QTHEORY_REPOSITORY") or config.qtheory_repository or "").strip().rstrip("/")


def _repository(app, config) -> None:
    """The repository button and the launch buttons (Binder, Colab), only when a repository is set.

    One setting drives them: ``sphinx.config.qtheory_repository`` in ``_config.yml`` (empty
    by default) or the environment variable ``QTHEORY_REPOSITORY``. When it is empty, no
    repository link and no launch button is rendered (nothing points at a placeholder).
    """
    options = dict(config.html_theme_options or {})
    url = repository(config)
    if not url:
        options.update(repository_url="", use_repository_button=False, use_issues_button=False,
                       use_edit_page_button=False)
        options["launch_buttons"] = {k: "" for k in ("binderhub_url", "jupyterhub_url", "colab_url",
                                                     "deepnote_url", "jupyterlite_url")}
    else:
        launch = {k: v for k, v in dict(options.get("launch_buttons") or {}).items() if v}
        options.update(repository_url=url, use_repository_button=True, path_to_docs="")
        options["launch_buttons"] = {**LAUNCH, "notebook_interface": "jupyterlab", **launch}
    config.html_theme_options = options


def _thebe(app, config) -> None:
    """Live code (Thebe) only where a launch target is set, and pointing at it.

    sphinx-thebe writes a Binder configuration into every page with code, with a placeholder
    repository (``binder-examples/jupyter-stacks-datascience``) when none is given. Without
    :func:`repository` its handlers are disconnected (no configuration, no script on any page);
    with it, Thebe's Binder target is that repository and branch.
    """
    url = repository(config)
    if url:
        branch = dict(config.html_theme_options or {}).get("repository_branch") or "main"
        thebe = config.thebe_config if isinstance(config.thebe_config, dict) else {}
        config.thebe_config = {**thebe, "repository_url": url, "repository_branch": branch}
        return
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(app.events.listeners.get(event, [])):
            if getattr(listener.handler, "__module__", "") == "sphinx_thebe":
                app.disconnect(listener.id)


def _plain_title(title: str) -> str:
    """A page title rendered as HTML (math spans included) as plain text: tags dropped, entities
    read, TeX written in Unicode (:func:`qtheory.display.plain_math`)."""
    import html

    from .display import plain_math

    return plain_math(html.unescape(re.sub(r"<[^>]+>", "", title or "")))


def _plain_tab_title(app, pagename, templatename, context, doctree) -> None:
    """The browser tab and the breadcrumb show the title as plain text (``λ = 0.9``, not TeX)."""
    if context.get("title"):
        context["title"] = _plain_title(context["title"])


def _plain_search_titles(app) -> None:
    """The search index holds plain-text titles: its results list them without typesetting."""
    builder = app.builder
    if not hasattr(builder, "index_page"):
        return
    index_page = builder.index_page

    from .display import plain_tex

    def plain(pagename, doctree, title):
        index_page(pagename, doctree, _plain_title(title) if title else title)
        # the section titles (read from the doctree, math as bare TeX) the results list under a page
        indexer = getattr(builder, "indexer", None)
        sections = getattr(indexer, "_all_titles", {}).get(pagename)
        if sections:
            indexer._all_titles[pagename] = [(plain_tex(t), anchor) for t, anchor in sections]

    builder.index_page = plain


def _launch_source_notebook(app, pagename, templatename, context, doctree) -> None:
    """Launch buttons open the source notebook (notebooks/<name>.ipynb), not the executed copy.

    The pages are executed copies written into book/<part>/ by ``reproduce``; they are not
    in the repository, so Binder and Colab open the notebook they were made from.
    """
    executed = f"{pagename}.ipynb"
    source = f"notebooks/{Path(pagename).name}.ipynb"
    for button in context.get("header_buttons") or []:
        if button.get("label") == "launch-buttons":
            for b in button.get("buttons", []):
                if b.get("url"):
                    b["url"] = b["url"].replace(executed, source)


def _claims_pages(app, config) -> None:
    """Regenerate book/claims.md, reconstructions.md and errata.md from the results of this
    build, and the intro's index (book/paper_index.md) from the manifest."""
    from .claimpages import write_pages
    from .results import results_root

    write_pages(results_root(), Path(app.srcdir) / "book")
    from .manifest import write_index

    write_index(Path(app.srcdir) / "book")


def text_with_math(text: str) -> list:
    """Docutils nodes for `text`: its ``$...$`` spans as inline math, the rest as text.

    Claim texts are written with ``$...$`` math (as the Markdown pages are); the checks
    directive builds its nodes itself, so it typesets them here. An unmatched ``$`` (a
    price, a lone sign) stays text.
    """
    out = []
    for i, part in enumerate(re.split(r"(?<!\\)\$([^$]+)\$", text)):
        if i % 2:
            out.append(nodes.math(part, part))
        elif part:
            out.append(nodes.Text(part))
    return out


_with_math = text_with_math  # the name tests/book/test_theorems.py imports


class ChecksDirective(Directive):
    """The recorded claims of one manifest item, as a bullet list (see the module doc)."""

    required_arguments = 1
    has_content = False

    def run(self):
        from . import manifest
        from .claimpages import describe, judge_pages
        from .claims import collect
        from .errors import ParameterError
        from .results import results_root

        item_id = self.arguments[0]
        try:
            manifest.get(item_id)
        except ParameterError as err:
            return [self.state.document.reporter.warning(str(err), line=self.lineno)]
        env = self.state.document.settings.env
        root = results_root()
        # every page that lists checks is rebuilt when the results change
        metas = sorted(Path(root).glob(f"{item_id}/{item_id}.json"))
        for meta in metas:
            env.note_dependency(str(meta.resolve()))
        page = manifest.get(item_id).notebook
        everything = collect(root)
        verdicts, _ = judge_pages([c for c in everything if manifest.get(c.item).notebook == page])
        records = [c for c in everything if c.item == item_id]
        container = nodes.container(classes=["qtheory-checks"])
        missing = (f"{item_id} was not computed for this build (python -m qtheory reproduce computes it)."
                   if not metas else
                   f"{item_id} records no single number in this build; its evidence is the table and figure "
                   "of its page." if not records else None)
        if missing:
            para = nodes.paragraph()
            para += nodes.emphasis(text=missing)
            container += para
            return [container]
        lead = nodes.paragraph()
        lead += nodes.strong(text="Recorded in this build:")
        container += lead
        items = nodes.bullet_list()
        for c in records:
            para = nodes.paragraph()
            v = verdicts[id(c)]
            para.extend(text_with_math(describe(c, v) + " "))
            verdict = nodes.strong()
            verdict.extend(text_with_math(v.label + "."))
            para += verdict
            items += nodes.list_item("", para)
        container += items
        return [container]


class FindingDirective(Directive):
    """One finding's text, as the item that computed it worded it (``{finding} R-T1-mean-offset``).

    A narrative page (a part's overview, the errata intro) quotes a finding through this
    directive instead of retyping it, so that it is worded once.
    """

    required_arguments = 1
    has_content = False

    def run(self):
        from .claimpages import finding_anchor
        from .claims import collect_findings
        from .results import results_root

        finding_id = self.arguments[0]
        env = self.state.document.settings.env
        root = Path(results_root())
        for meta in root.glob("*/*.json"):  # the finding's item is not known before it is found
            if meta.stem == meta.parent.name:
                env.note_dependency(str(meta.resolve()))
        found = [f for f in collect_findings(root) if f.id == finding_id]
        container = nodes.container(classes=["qtheory-checks"])
        para = nodes.paragraph()
        if not found:
            para += nodes.emphasis(text=f"Finding {finding_id} was not computed for this build "
                                        "(python -m qtheory reproduce computes it).")
            container += para
            return [container]
        f = found[0]
        label = nodes.strong(text=f"{f.label}: ")
        para += label
        title = nodes.strong()
        title.extend(text_with_math(f.title))
        para += title
        para += nodes.Text(" ")
        para.extend(text_with_math(f.text.replace("**", "").replace("*", "") + " "))
        claims_page = env.app.builder.get_relative_uri(env.docname, "book/claims")
        ref = nodes.reference("", "", internal=True, refuri=f"{claims_page}#{finding_anchor(f.id)}")
        ref += nodes.Text("(the records it explains)")
        para += ref
        container += para
        return [container]


def measured_commits_note(page: str, built: str | None) -> str | None:
    """The note that opens the performance page when its measurements come from other commits than
    the build's: which commits they come from (as each section names them) and which one the book
    was built from. None when every measurement is of the build's commit, or the build's is unknown."""
    measured = list(dict.fromkeys(re.findall(r"\(qtheory ([0-9a-f]{7,40})\)", page)))
    if not built or not measured:
        return None
    built = built[:7]
    if all(m[:7] == built for m in measured):
        return None
    return (":::{note}\nThe measurements on this page were taken at commits " + ", ".join(f"`{m[:7]}`" for m in measured)
            + f" (each section says which); this book was built from commit `{built}`. The kernels may have "
            "changed since: `python benchmarks/run.py` measures the current code.\n:::\n")


def _performance_commits(app, docname, source) -> None:
    if docname != "book/performance":
        return
    from .results import _git_commit

    note = measured_commits_note(source[0], _git_commit())
    if note:
        title, _, rest = source[0].partition("\n")
        source[0] = f"{title}\n\n{note}{rest}"


#: the measurements the overview pages quote: (substitution prefix, case of
#: ``benchmarks/latest/independent.json``), one kernel per paper
SPEED_CASES = (("speed_l", "local_jsqd"), ("speed_r", "cos"), ("speed_u", "jlmu"))


def measured_speeds(path: Path) -> dict[str, str]:
    """MyST substitutions for the speeds the overview pages quote, read from the measurement file
    `path` (``benchmarks/latest/independent.json``, written by ``benchmarks/run.py``): for each of
    :data:`SPEED_CASES`, ``{{ speed_l }}`` (millions of events per second of processor time, best
    run of the numba kernel), ``{{ speed_l_case }}`` (what was simulated) and, for all of them,
    ``{{ speed_commit }}`` and ``{{ speed_date }}``. Prose typed by hand would go stale when the
    kernels change; a missing or incomplete file is an error naming it."""
    from .display import number

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        out = {}
        for key, case in SPEED_CASES:
            found = data["cases"][case]
            out[key] = number(found["results"]["numba"]["best_events_per_cpu_second"] / 1e6)
            name = str(found["name"])
            out[f"{key}_case"] = name[2:] if name[:2] in ("L ", "R ", "U ") else name   # the page names the paper
        out["speed_commit"] = str(data["environment"]["commit"])[:7]
        out["speed_date"] = str(data["environment"]["date"])[:10]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RuntimeError(f"the speeds the overview pages quote come from {path}, which cannot be read "
                           f"({type(exc).__name__}: {exc}); run `python benchmarks/run.py --only independent`") from exc
    return out


def _speeds(app, config) -> None:
    root = Path(app.srcdir)
    config.myst_substitutions = {**dict(getattr(config, "myst_substitutions", None) or {}),
                                 **measured_speeds(root / "benchmarks" / "latest" / "independent.json")}


def _cite_this_page(app, docname, source) -> None:
    """Close every Markdown page with a "Cite this" box: the book, the page, and the paper of
    its part (:func:`qtheory.pagebox.page_cite_box`). Result pages (executed notebooks) carry
    their own, written with their run record by ``reproduce``."""
    from .pagebox import page_cite_box, page_title, paper_of_page

    if Path(app.env.doc2path(docname)).suffix != ".md" or ":class: dropdown cite-this" in source[0]:
        return
    base = (getattr(app.config, "html_baseurl", "") or "").rstrip("/")
    url = f"{base}/{docname}.html" if base else None
    box = page_cite_box(docname, page_title(source[0]) or app.config.project, paper=paper_of_page(docname), url=url)
    source[0] = source[0].rstrip("\n") + "\n\n" + box


def _parallel_reading(app) -> None:
    """Let Sphinx read the pages on several processes (``qtheory book --jobs N``,
    :mod:`qtheory._jupyterbook`), where two extensions the book loads would stop it:

    - ``sphinx_multitoc_numbering`` (loaded by ``sphinx_external_toc``) does not declare whether
      it is safe, so Sphinx reads serially. Its whole effect is to replace
      ``TocTreeCollector.assign_section_numbers``, which Sphinx calls in the main process once
      every page is read (and which numbers nothing here: no toctree is numbered); it keeps no
      state in the build environment. Declared safe here.
    - ``sphinx_proof`` declares itself safe, but its domain has no ``merge_domaindata``, which a
      parallel read calls for every domain (a ``NotImplementedError``). The domain keeps no data
      of its own (its theorems live in ``env.proof_list``, which sphinx_proof merges itself on
      ``env-merge-info``), so there is nothing to merge.
    """
    ext = app.extensions.get("sphinx_multitoc_numbering")
    if ext is not None and ext.parallel_read_safe is None:
        ext.parallel_read_safe = True
    domain = app.registry.domains.get("prf")
    if domain is not None and domain.merge_domaindata is Domain.merge_domaindata and not domain.initial_data:
        domain.merge_domaindata = _nothing_to_merge


def _nothing_to_merge(self, docnames, otherdata) -> None:
    return None


def setup(app):
    app.add_directive("checks", ChecksDirective)
    app.add_directive("finding", FindingDirective)
    app.add_css_file(CSS)
    app.add_js_file(JS)
    app.add_config_value("qtheory_repository", "", "html")
    # MathJax on every page: titles with math appear in the navigation of pages that
    # have no math of their own, and would otherwise show raw TeX there
    app.set_html_assets_policy("always")
    app.connect("config-inited", _prepare)
    app.connect("config-inited", _claims_pages)
    app.connect("config-inited", _repository)
    app.connect("config-inited", _speeds)
    app.connect("config-inited", _thebe, priority=600)
    app.connect("html-page-context", _launch_source_notebook, priority=502)
    app.connect("html-page-context", _plain_tab_title)
    app.connect("builder-inited", _plain_search_titles)
    app.connect("builder-inited", _parallel_reading)
    app.connect("source-read", _cite_this_page)
    app.connect("source-read", _performance_commits)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
