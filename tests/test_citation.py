"""Citation metadata: CITATION.cff is valid, .zenodo.json agrees with it, and the BibTeX
of the book, of a page and of each paper comes from its one source.

The schema check is the one ``cffconvert --validate`` makes: CITATION.cff against the JSON
schema of the Citation File Format 1.2.0 (``tests/fixtures/cff-1.2.0.schema.json``, the
file cffconvert 2.0.0 ships, from the citation-file-format project, CC-BY-4.0), with the
jsonschema the environment already has (cffconvert itself pins jsonschema < 4, which the
book's packages cannot share).
"""

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from pybtex.database import parse_string

import qtheory
from qtheory import citation, manifest
from qtheory.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = Path(__file__).parent / "fixtures" / "cff-1.2.0.schema.json"


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def _one_entry(text: str):
    data = parse_string(text, "bibtex")
    assert len(data.entries) == 1, text
    return next(iter(data.entries.items()))


def test_citation_cff_is_valid_citation_file_format_1_2_0():
    schema = json.loads(SCHEMA.read_text())
    data = json.loads(json.dumps(_cff(), default=str))  # dates as text, as the schema expects
    errors = sorted(jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
                    .iter_errors(data), key=str)
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors)


def test_the_schema_check_rejects_a_record_without_authors():
    schema = json.loads(SCHEMA.read_text())
    data = json.loads(json.dumps(_cff(), default=str))
    del data["authors"]
    assert not jsonschema.Draft7Validator(schema).is_valid(data)


def test_citation_cff_names_this_version():
    assert str(_cff()["version"]) == qtheory.__version__


def test_zenodo_json_is_generated_from_citation_cff():
    written = (ROOT / ".zenodo.json").read_text()
    assert written == citation.zenodo_json(), \
        ".zenodo.json is out of date: python -m qtheory.citation zenodo > .zenodo.json"


def test_zenodo_json_carries_what_citation_cff_says():
    cff, zenodo = _cff(), json.loads((ROOT / ".zenodo.json").read_text())
    assert zenodo["title"] == cff["title"] and zenodo["version"] == str(cff["version"])
    assert zenodo["publication_date"] == str(cff["date-released"])
    assert zenodo["license"] == {"id": cff["license"]} and zenodo["keywords"] == cff["keywords"]
    assert [c["name"] for c in zenodo["creators"]] == [a["name"] for a in cff["authors"]]
    assert zenodo["upload_type"] == "software"
    assert {r["identifier"] for r in zenodo["related_identifiers"]} == {str(r["doi"]) for r in cff["references"]}


def test_zenodo_creators_follow_cffconvert_for_people():
    cff = {"title": "t", "authors": [
        {"family-names": "Leeuwaarden", "name-particle": "van", "given-names": "Johan S. H.",
         "affiliation": "Tilburg University", "orcid": "https://orcid.org/0000-0002-1825-0097"},
        {"name": "The qtheory developers"}]}
    assert citation.zenodo_metadata(cff)["creators"] == [
        {"name": "van Leeuwaarden, Johan S. H.", "affiliation": "Tilburg University", "orcid": "0000-0002-1825-0097"},
        {"name": "The qtheory developers"}]


def test_the_book_entry_is_citation_cff():
    cff = _cff()
    key, entry = _one_entry(citation.bibtex())
    assert key == citation.BOOK_KEY and entry.type == "software"
    assert entry.fields["title"].strip("{}") == cff["title"]
    assert entry.fields["version"] == str(cff["version"]) == qtheory.__version__
    assert entry.fields["year"] == str(cff["date-released"])[:4]
    # an entity is one braced name, which no style splits into first and last names
    assert [(p.first_names, p.last_names) for p in entry.persons["author"]] == [
        ([], ["{" + a["name"] + "}"]) for a in cff["authors"]]


@pytest.mark.parametrize("item_id", list(manifest.ITEMS))
def test_every_page_entry_is_the_book_with_the_page_title_and_id(item_id):
    key, entry = _one_entry(citation.bibtex(item=item_id))
    assert key == f"{citation.BOOK_KEY}:{item_id}"
    # plain text, braced against a style's change of case (the manifest's titles may carry TeX)
    assert entry.fields["title"] == "{" + citation.bibtex_text(f"{item_id}: {manifest.get(item_id).title}") + "}"
    assert entry.fields["note"].startswith(f"manifest item {item_id}; version {qtheory.__version__}")
    assert entry.fields["version"] == qtheory.__version__ and _cff()["title"] in entry.fields["howpublished"]


def test_a_page_of_several_items_names_them_all_and_takes_its_own_title_and_url():
    text = citation.bibtex(item=["R-F3ab", "R-F3cd"], title="R-F3: joint pmf", url="https://example.org/R-F3.html")
    key, entry = _one_entry(text)
    assert key == f"{citation.BOOK_KEY}:R-F3ab" and entry.fields["title"] == "{R-F3: joint pmf}"
    assert entry.fields["note"].startswith("manifest items R-F3ab, R-F3cd; ")
    assert entry.fields["url"] == "https://example.org/R-F3.html"


@pytest.mark.parametrize("key", list(manifest.papers()))
def test_each_paper_entry_is_the_published_version_its_record_links(key):
    paper = manifest.papers()[key]
    bibkey, entry = _one_entry(citation.bibtex(paper=key))
    assert paper.link.endswith(entry.fields["doi"])
    assert int(entry.fields["year"]) == paper.year
    first = entry.persons["author"][0]
    assert " ".join(first.last_names) in paper.authors and bibkey == re.sub(r"[^a-z]", "", "".join(
        first.last_names).lower()) + str(paper.year)
    assert "note" not in entry.fields  # the book's own remarks stay in the book


def test_the_paper_of_an_item_is_its_paper():
    assert citation.bibtex(paper="L-F2") == citation.bibtex(paper="L")
    assert "10.1287/opre.2022.2385" in citation.bibtex(paper="R-T1")


@pytest.mark.parametrize("kwargs, message", [
    ({"paper": "Q"}, "`paper` must be one of L, R, U"),
    ({"paper": "L-F9"}, "unknown manifest ID 'L-F9'"),
    ({"item": "L-F9"}, "unknown manifest ID 'L-F9'"),
    ({"item": []}, "`item` must name at least one manifest ID"),
    ({"item": "L-F2", "paper": "L"}, "cannot be given together"),
    ({"title": "x"}, "give `item` too"),
])
def test_bad_requests_name_the_argument(kwargs, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        citation.bibtex(**kwargs)


def _bibtex_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```bibtex\n(.*?)^```$", markdown, re.M | re.S)


def test_the_cite_box_holds_the_book_the_page_and_the_paper():
    box = citation.cite_box(["L-F2"])
    assert box.startswith(":::{admonition} Cite this\n:class: dropdown") and box.rstrip().endswith(":::")
    blocks = _bibtex_blocks(box)
    assert blocks == [citation.bibtex(), citation.bibtex(item="L-F2"), citation.bibtex(paper="L")]
    for block in blocks:
        _one_entry(block)


def test_a_cite_box_of_two_papers_cites_each_once():
    blocks = _bibtex_blocks(citation.cite_box(["L-F2", "U-T1", "L-F1"]))
    assert blocks[2:] == [citation.bibtex(paper="L"), citation.bibtex(paper="U")]


def test_the_command_line_prints_zenodo_and_bibtex(capsys):
    assert citation.main(["zenodo"]) == 0 and capsys.readouterr().out == citation.zenodo_json()
    assert citation.main(["bibtex", "R"]) == 0 and capsys.readouterr().out == citation.bibtex(paper="R")
    assert citation.main(["bibtex", "R-T1"]) == 0 and capsys.readouterr().out == citation.bibtex(item="R-T1")
    assert citation.main(["nonsense"]) == 2 and "usage:" in capsys.readouterr().err


def test_the_cite_box_is_myst_that_parses_without_warnings_to_one_collapsed_admonition():
    from docutils.core import publish_string
    from myst_parser.parsers.docutils_ import Parser

    html = publish_string("# A page\n\n" + citation.cite_box(["R-F3ab", "R-F3cd"]), parser=Parser(),
                          writer_name="html5", settings_overrides={
                              "myst_enable_extensions": ["colon_fence", "dollarmath"], "halt_level": 2,
                              "report_level": 2, "output_encoding": "unicode"})
    body = html[html.index("<body"):]
    assert re.findall(r'<aside class="admonition[^"]*"', body) == ['<aside class="admonition dropdown cite-this"']
    # the book, the page, paper R as published and the arXiv version its numbering follows
    assert body.count("<pre") == 4 and "Cite this" in body


def test_a_page_is_keyed_by_its_own_name_and_its_title_carries_no_tex():
    """R-T1's page was keyed by its first item (R-P-coc) and its title carried TeX (issue 41)."""
    text = citation.bibtex(item=["R-P-coc", "R-T1"], page="R-T1",
                           title=r"R-T1: Table 1 (c.o.s.-ALIS, 12 settings, $\lambda = 0.9$)")
    key, entry = _one_entry(text)
    assert key == f"{citation.BOOK_KEY}:R-T1"
    # ASCII words (issue 50): pdfLaTeX stops at a λ its fonts do not have
    assert entry.fields["title"] == "{R-T1: Table 1 (c.o.s.-ALIS, 12 settings, lambda = 0.9)}"
    with pytest.raises(ParameterError, match="`page`"):
        citation.bibtex(page="R-T1")


def test_a_result_page_carries_the_online_address_when_the_book_has_one(monkeypatch, tmp_path):
    from qtheory import runrecord

    monkeypatch.setenv("QTHEORY_PROJECT", str(tmp_path))
    monkeypatch.setenv("QTHEORY_BOOK_URL", "https://books.example.org/qtheory/")
    page = tmp_path / "book" / "redundancy" / "R-T1.ipynb"
    assert runrecord._page_url(page) == "https://books.example.org/qtheory/book/redundancy/R-T1.html"
    monkeypatch.delenv("QTHEORY_BOOK_URL")
    assert runrecord._page_url(page) is None


# --- the exact code (issue 50) -----------------------------------------------------------

COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO = "https://github.com/someone/qtheory"
#: the tests of the checkout's commit run in a git clone (not in an unpacked archive)
needs_git = pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                               reason="not a git checkout, or no git program")


def _head() -> str:
    import subprocess

    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def _swhid_field(text: str) -> str | None:
    return _one_entry(text)[1].fields.get("swhid")


@needs_git
def test_the_swhid_is_the_commit_that_git_rev_parse_gives():
    before = _head()
    book = citation.bibtex()
    after = _head()  # another engineer may commit in between: either HEAD is the checkout's
    assert re.fullmatch(r"[0-9a-f]{40}", before)
    assert _swhid_field(book) in {f"swh:1:rev:{before}", f"swh:1:rev:{after}"}
    assert citation.software_commit() in {before, after, _head()}
    assert citation.swhid(COMMIT) == f"swh:1:rev:{COMMIT}"


@pytest.mark.parametrize("commit", [COMMIT[:12], COMMIT.upper(), COMMIT + "0", None])
def test_a_swhid_takes_only_a_full_commit_hash(commit):
    with pytest.raises(ParameterError, match="`commit` must be a full git commit hash"):
        citation.swhid(commit)


@needs_git
def test_the_book_and_a_page_name_version_and_commit():
    head = citation.software_commit()
    _, book = _one_entry(citation.bibtex())
    assert book.fields["version"] == qtheory.__version__
    assert book.fields["note"].endswith(f"; version {qtheory.__version__}, git commit {head}")
    # a page at the commit its results were computed from
    _, page = _one_entry(citation.bibtex(item="R-T1", commit=COMMIT))
    assert page.fields["note"] == f"manifest item R-T1; version {qtheory.__version__}, git commit {COMMIT}"
    assert page.fields["swhid"] == f"swh:1:rev:{COMMIT}"
    with pytest.raises(ParameterError, match="`commit`"):
        citation.bibtex(paper="R", commit=COMMIT)


@needs_git
def test_the_cite_box_names_the_book_at_the_checkout_and_the_page_at_its_results_commit():
    head = citation.software_commit()
    box = citation.cite_box(["R-T1"], commit=COMMIT, page="R-T1")
    book, page = _bibtex_blocks(box)[:2]
    assert book == citation.bibtex() and _swhid_field(book) == f"swh:1:rev:{head}"
    assert page == citation.bibtex(item="R-T1", page="R-T1", commit=COMMIT)
    assert f"(the software and its results, version {qtheory.__version__}, commit `{head[:12]}`)" in box
    assert f"This page (its results computed at commit `{COMMIT[:12]}`):" in box


@needs_git
def test_outside_a_checkout_the_entries_name_the_version_only(monkeypatch, tmp_path):
    """An installed wheel: no .git above the package. Without a git program: the same."""
    monkeypatch.setattr(citation, "_CHECKOUT", tmp_path)
    assert citation.software_commit() is None
    for text in (citation.bibtex(), citation.bibtex(item="L-F2")):
        _, entry = _one_entry(text)
        assert "swhid" not in entry.fields and "git commit" not in entry.fields["note"]
        assert entry.fields["note"].endswith(f"version {qtheory.__version__}")
    box = citation.cite_box(["L-F2"])
    assert f"(the software and its results, version {qtheory.__version__}):" in box and "commit" not in box
    assert "commit" not in citation.page_box("book/intro", "Intro")
    # a wheel in an environment inside another project's repository: not that project's commit
    import subprocess

    other = tmp_path / "project"
    (other / ".venv" / "site-packages").mkdir(parents=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run([*git, "-C", str(other), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    monkeypatch.setattr(citation, "_CHECKOUT", other / ".venv" / "site-packages")
    assert citation.software_commit() is None
    monkeypatch.setattr(citation, "_CHECKOUT", ROOT)

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(citation.subprocess, "run", no_git)
    assert citation.software_commit() is None and "swhid" not in citation.bibtex()


def test_with_a_repository_every_entry_of_the_book_carries_its_url(monkeypatch):
    from qtheory import pagebox

    monkeypatch.delenv("QTHEORY_REPOSITORY", raising=False)
    assert "url" not in _one_entry(citation.bibtex())[1].fields  # _config.yml leaves it empty
    monkeypatch.setenv("QTHEORY_REPOSITORY", REPO + "/")
    assert _one_entry(citation.bibtex())[1].fields["url"] == REPO
    assert _one_entry(citation.bibtex(item="L-F2"))[1].fields["url"] == REPO
    # a page's own address, when the book has one, before the repository's
    assert _one_entry(citation.bibtex(item="L-F2", url="https://b.org/L-F2.html"))[1].fields["url"] == \
        "https://b.org/L-F2.html"
    for box in (citation.cite_box(["L-F2"]), pagebox.page_cite_box("book/intro", "Intro")):
        book, page = _bibtex_blocks(box)[:2]
        assert _one_entry(book)[1].fields["url"] == REPO and _one_entry(page)[1].fields["url"] == REPO


# --- the version of paper R (issue 50) ------------------------------------------------------

def test_paper_r_pages_say_their_numbering_follows_the_arxiv_version():
    from qtheory import pagebox

    arxiv = citation.numbering_entry("R")
    key, entry = _one_entry(arxiv)
    assert entry.fields["eprint"] == "2005.14566" and "doi" not in entry.fields and key == "cardinaels2020"
    assert "arXiv:2005.14566" in manifest.papers()["R"].version
    for box in (citation.cite_box(["R-T1"]), pagebox.page_cite_box("book/redundancy/R-theorems", "R", paper="R")):
        blocks = _bibtex_blocks(box)
        assert blocks[2:] == [citation.bibtex(paper="R"), arxiv]  # the journal version, then the arXiv one
        assert "Numbering: equation, section, theorem, table and figure numbers as in arXiv:2005.14566" in box
    overview = (ROOT / "book" / "redundancy" / "index.md").read_text()
    assert re.search(r"numbers \(.*?\) are those of this arXiv\s+version, arXiv:2005\.14566", overview, re.S)


def test_a_paper_whose_published_entry_holds_its_arxiv_number_gets_no_second_entry():
    # L: one entry with both the DOI and the eprint; U: the journal version's numbers
    assert citation.numbering_entry("L") is None and citation.numbering_entry("U") is None
    assert len(_bibtex_blocks(citation.cite_box(["L-F2"]))) == 3
    assert "Numbering: equation numbers as in the journal version." in citation.cite_box(["U-T1"])


# --- plain titles (issue 50) ----------------------------------------------------------------

#: the LaTeX escapes bibtex_text writes on purpose
_ESCAPES = re.compile(r"\\_|\\\^\{\}|\\&|\\%|\\#|\\\$|\\~\{\}")


def _assert_plain_title(field: str, source: str) -> None:
    """A title field that every BibTeX consumer shows as words: braced once against a change of
    case, ASCII, no TeX (no math, no unescaped _ or ^, no command but the escapes above), no
    Markdown emphasis or code, and pybtex (the book's own bibliography) renders it without a
    backslash or a brace."""
    from pybtex.richtext import Text

    assert field.startswith("{") and field.endswith("}"), (source, field)
    inner = field[1:-1]
    assert inner.isascii(), (source, inner)
    assert not re.search(r"(?<!\\)[_^$]", inner), (source, inner)
    bare = _ESCAPES.sub("", inner)
    assert not re.search(r"[\\{}`]", bare), (source, inner)
    assert not re.search(r"(?<![\w)*])\*+(?=\w)", bare), (source, inner)  # *this*, **this** (a star after T is T*)
    rendered = Text.from_latex(field).render_as("text")
    assert not re.search(r"[\\{}]", rendered), (source, rendered)


def _page_titles():
    """(page, title) of every page of the book that cites itself: each manifest item's default
    title, each result page (notebook) by its heading, each Markdown page by its heading."""
    import nbformat

    from qtheory.pagebox import page_title
    from qtheory.runrecord import split_title

    out = [(i, f"{i}: {item.title}") for i, item in manifest.ITEMS.items()]
    for name in manifest.notebooks():
        cells = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4).cells
        title = page_title(split_title(cells[0].source)[0]) if cells and cells[0].cell_type == "markdown" else None
        out.append((name, title or name))
    out += [(str(p.relative_to(ROOT)), page_title(p.read_text(encoding="utf-8")) or p.stem)
            for p in sorted((ROOT / "book").rglob("*.md"))]
    return out


@pytest.mark.parametrize("page, title", _page_titles())
def test_every_page_title_is_plain_text_in_its_bibtex(page, title):
    from qtheory import pagebox

    if page.startswith("book/"):
        docname = page.removesuffix(".md")
        block = _bibtex_blocks(pagebox.page_cite_box(docname, title, paper=pagebox.paper_of_page(docname)))[1]
    elif page in manifest.ITEMS:
        block = citation.bibtex(item=page)
    else:
        block = citation.bibtex(item=[i.id for i in manifest.notebooks()[page]], title=title, page=page)
    _assert_plain_title(_one_entry(block)[1].fields["title"], title)


def test_the_titles_checked_include_the_ones_that_carried_tex_and_markdown():
    titles = dict(_page_titles())
    assert "Q_{\\{1,2\\}}" in titles["R-F3ab"] and "*this*" in titles["L-R-graph"]


def test_the_book_and_the_papers_have_plain_titles_too():
    _assert_plain_title(_one_entry(citation.bibtex())[1].fields["title"], "the book")
    for key in manifest.papers():
        title = _one_entry(citation.bibtex(paper=key))[1].fields["title"]
        _assert_plain_title("{" + title + "}", key)


@pytest.mark.parametrize("source, plain", [
    (r"joint pmf of $(Q_{\{1,2\}}, Q_{\{2,3\}})$", r"joint pmf of (Q\_(1,2), Q\_(2,3))"),
    ("how far is *this* graph, **really**, from `the limit`?", "how far is this graph, really, from the limit?"),
    (r"Table 1 ($\lambda = 0.9$)", "Table 1 (lambda = 0.9)"),
    (r"$P(Q > 15)$ is about $4.7 \times 10^{-4}$", r"P(Q greater than 15) is about 4.7 x 10\^{}-4"),
    (r"$\mathcal{T}^* \neq \mathcal{S}$, $\lambda^*$", "T* not equal to S, lambda*"),
    (r"$\mathrm{Poisson}(n\rho)$ and $E[u(q_n)] \le u(q_n^*)$", r"Poisson(n rho) and E[u(q\_n)] at most u(q\_n*)"),
    (r"$q_{m,1}^N$ and $\lambda^{(d^\ell - 1)/(d - 1)}$", r"q\_(m,1)\^{}N and lambda\^{}((d\^{}l - 1)/(d - 1))"),
    (r"(1) $\Leftrightarrow$ (2); $10\,\mathrm{Exp}(1)$; \(\tau_{\mathrm{eq}}\)", r"(1) iff (2); 10 Exp(1); tau\_eq"),
    ("R&D: 50% of #1 is snake_case, see [the docs](https://x.org)", r"R\&D: 50\% of \#1 is snake\_case, see the docs"),
    # braces are LaTeX's groups (pybtex drops \{): a set or a brace of the text in parentheses
    (r"types $\{1,2\}$ and $\{2,3\}$ {sic}", "types (1,2) and (2,3) (sic)"),
])
def test_tex_and_markdown_become_plain_words(source, plain):
    assert citation.bibtex_text(source) == plain


def test_any_text_becomes_latex_safe_words():
    """Whatever a title holds (TeX, Markdown, unbalanced braces, stray backslashes), the result has
    no LaTeX special character but the escapes bibtex_text writes on purpose."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from(list("ab1 _^{}\\$*`&%#~<>|()[],.\n") + [
        r"\lambda", r"\mathrm{x}", r"\{", r"\}", r"\,", "$x_{1}$", r"\(", r"\)", "**", "_a_", r"$\mathrm{", "$x^{", "$a_\\$"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, max_size=30).map("".join))
    def check(text):
        out = citation.bibtex_text(text)
        assert out.isascii() and not re.search(r"(?<!\\)[_^$&%#]", out), (text, out)
        assert not re.search(r"[\\{}`]", _ESCAPES.sub("", out)), (text, out)

    check()
