"""Sphinx extension of the book: offline MathJax, generated claims and errata pages.

Before the sources are read, ``book/claims.md`` and ``book/errata.md`` are written
from the claims recorded in the results folder (:mod:`qtheory.claims`).

The book must render its mathematics offline (and in CI, which has no internet), so
the MathJax 3 files shipped by the ``django-static-mathjax`` wheel are copied into the
HTML output (only the combined TeX/CHTML script and its web fonts, a few MB).
Enabled in ``_config.yml`` under ``sphinx.extra_extensions``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

SCRIPT = "tex-chtml-full.js"
FONTS = Path("output") / "chtml" / "fonts" / "woff-v2"


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
    config.html_static_path = list(config.html_static_path) + [str(static)]
    config.mathjax_path = f"mathjax/{SCRIPT}"


def _claims_pages(app, config) -> None:
    """Regenerate book/claims.md and book/errata.md from the results of this build."""
    from .claims import write_pages
    from .results import results_root

    write_pages(results_root(), Path(app.srcdir) / "book")


def setup(app):
    # MathJax on every page: titles with math appear in the navigation of pages that
    # have no math of their own, and would otherwise show raw TeX there
    app.set_html_assets_policy("always")
    app.connect("config-inited", _prepare)
    app.connect("config-inited", _claims_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
