"""`python -m qtheory pdf` without a browser: the table of contents it prints, its titles and
its message when the book is not built (tests/book/test_pdf.py prints a built book)."""

import pytest

from qtheory import cli, pdf
from qtheory.errors import QTheoryError

TOC = """\
format: jb-book
root: book/intro
parts:
  - caption: "L: a part"
    chapters:
      - file: book/locality/index
        sections:
          - glob: book/locality/L-[FV]*
          - file: book/locality/L-api
  - caption: Appendix
    chapters:
      - file: book/claims
"""


def _book(tmp_path, pages):
    html = tmp_path / "html"
    for page in pages:
        (html / f"{page}.html").parent.mkdir(parents=True, exist_ok=True)
        (html / f"{page}.html").write_text("<html></html>")
    (tmp_path / "_toc.yml").write_text(TOC)
    return html


def test_the_pages_follow_the_table_of_contents_with_globs_expanded_against_the_build(tmp_path):
    html = _book(tmp_path, ["index", "book/intro", "book/locality/index", "book/locality/L-V-b", "book/locality/L-F2",
                            "book/locality/L-R-x", "book/locality/L-api", "book/claims"])
    chapters = pdf.toc_chapters(html, tmp_path / "_toc.yml")
    assert chapters == [pdf.Chapter("", ("book/intro",)),
                        pdf.Chapter("L: a part", ("book/locality/index", "book/locality/L-F2", "book/locality/L-V-b",
                                                  "book/locality/L-api")),
                        pdf.Chapter("Appendix", ("book/claims",))]


def test_a_page_listed_but_not_built_is_named(tmp_path):
    html = _book(tmp_path, ["index", "book/intro", "book/locality/index", "book/claims"])
    with pytest.raises(QTheoryError, match="lacks pages of _toc.yml.*book/locality/L-api"):
        pdf.toc_chapters(html, tmp_path / "_toc.yml")


def test_without_a_built_book_it_says_to_build_it(tmp_path, capsys):
    with pytest.raises(QTheoryError, match=r"the book is not built: .*index.html does not exist; build it first"):
        pdf.build_pdf(tmp_path / "nothing", tmp_path / "out.pdf")
    assert cli.main(["pdf", "--html", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qtheory: error: the book is not built") and "make book" in err
    assert not (tmp_path / "out.pdf").exists()


def test_the_print_stylesheet_hides_navigation_code_and_cite_boxes():
    for selector in (".bd-sidebar-primary", ".bd-sidebar-secondary", ".bd-header", ".cell_input", "button",
                     ".admonition.cite-this", ".prev-next-area"):
        assert selector in pdf.PRINT_CSS
