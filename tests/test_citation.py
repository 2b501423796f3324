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
from pathlib import Path

import jsonschema
import pytest
import yaml
from pybtex.database import parse_string

import qtheory
from qtheory import citation, manifest
from qtheory.display import plain_math
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
    # plain text: BibTeX shows no mathematics (the manifest's titles may carry TeX)
    assert entry.fields["title"] == plain_math(f"{item_id}: {manifest.get(item_id).title}")
    assert "$" not in entry.fields["title"] and "\\" not in entry.fields["title"]
    assert entry.fields["note"] == f"manifest item {item_id}"
    assert entry.fields["version"] == qtheory.__version__ and _cff()["title"] in entry.fields["howpublished"]


def test_a_page_of_several_items_names_them_all_and_takes_its_own_title_and_url():
    text = citation.bibtex(item=["R-F3ab", "R-F3cd"], title="R-F3: joint pmf", url="https://example.org/R-F3.html")
    key, entry = _one_entry(text)
    assert key == f"{citation.BOOK_KEY}:R-F3ab" and entry.fields["title"] == "R-F3: joint pmf"
    assert entry.fields["note"] == "manifest items R-F3ab, R-F3cd"
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
    assert body.count("<pre") == 3 and "Cite this" in body


def test_a_page_is_keyed_by_its_own_name_and_its_title_carries_no_tex():
    """R-T1's page was keyed by its first item (R-P-coc) and its title carried TeX (issue 41)."""
    text = citation.bibtex(item=["R-P-coc", "R-T1"], page="R-T1",
                           title=r"R-T1: Table 1 (c.o.s.-ALIS, 12 settings, $\lambda = 0.9$)")
    key, entry = _one_entry(text)
    assert key == f"{citation.BOOK_KEY}:R-T1"
    assert entry.fields["title"] == "R-T1: Table 1 (c.o.s.-ALIS, 12 settings, λ = 0.9)"
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
