"""How to cite the companion, one of its result pages, and the papers it reproduces.

Every record comes from one source and is never typed twice:

- the book (the software): ``CITATION.cff`` at the top of the repository;
- a result page: the book's record plus the page's title and manifest ID(s);
- a paper: its entry in ``book/references.bib`` whose DOI is the link of the paper's
  ``PAPER`` record (``qtheory/<part>/items/__init__.py``), i.e. the published version.

:func:`bibtex` returns any of them as BibTeX, :func:`cite_box` the MyST Markdown of a
"Cite this" box for a page, and :func:`zenodo_metadata` the content of ``.zenodo.json``
(written by ``python -m qtheory.citation zenodo``; ``tests/test_citation.py`` checks that
the file agrees with ``CITATION.cff``). Outside a checkout (an installed wheel) the copies
of ``CITATION.cff`` and ``references.bib`` that the wheel ships are read.
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

from . import manifest
from .errors import ParameterError
from .results import project_root

__all__ = ["bibtex", "cite_box", "citation_record", "paper_entries", "zenodo_metadata"]

#: the distribution name on the package index (``qtheory`` there is another project)
DISTRIBUTION = "qtheory-companion"
#: the BibTeX key of the book; a page's key is ``<BOOK_KEY>:<ID>``
BOOK_KEY = "qtheory-companion"

_SHIPPED = Path(__file__).resolve().parent / "_data"


def _source(relative: str, shipped: str) -> Path:
    """`relative` under the project folder, else in the package's own checkout, else the copy the
    wheel ships as `shipped`."""
    own = project_root() / relative
    if own.exists():
        return own
    # the package's own checkout (a results project elsewhere, QTHEORY_PROJECT, cites the companion)
    checkout = Path(__file__).resolve().parents[1] / relative
    if checkout.exists():
        return checkout
    copy = _SHIPPED / shipped
    if copy.exists():
        return copy
    raise ParameterError(f"{relative} not found in {project_root()} (nor shipped with the package): run from "
                         f"the repository or set QTHEORY_PROJECT to it")


@lru_cache(maxsize=None)
def _cff(path: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML reads an unquoted date as a date: keep the text, as CFF means it
    if "date-released" in data:
        data["date-released"] = str(data["date-released"])
    return data


def citation_record() -> dict[str, Any]:
    """``CITATION.cff`` as a dict (dates as ``YYYY-MM-DD`` strings)."""
    return dict(_cff(_source("CITATION.cff", "CITATION.cff")))


# --- BibTeX ---------------------------------------------------------------------------

def _bib_person(person: dict[str, Any]) -> str:
    if "family-names" in person:
        particle = f"{person['name-particle']} " if person.get("name-particle") else ""
        given = f", {person['given-names']}" if person.get("given-names") else ""
        return f"{particle}{person['family-names']}{given}"
    return "{" + person["name"] + "}"  # an entity: braced, so no style splits it into names


def _entry(kind: str, key: str, fields: Sequence[tuple[str, Any]]) -> str:
    width = max(len(name) for name, value in fields if value not in (None, ""))
    lines = [f"  {name.ljust(width)} = {{{value}}}" for name, value in fields if value not in (None, "")]
    return f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}\n"


def _book_fields(cff: dict[str, Any]) -> dict[str, Any]:
    return {"author": " and ".join(_bib_person(a) for a in cff["authors"]),
            "year": str(cff.get("date-released", ""))[:4] or None,
            "version": cff.get("version"),
            "doi": cff.get("doi"),
            "url": cff.get("repository-code") or cff.get("url")}


def _book_bibtex(cff: dict[str, Any]) -> str:
    f = _book_fields(cff)
    return _entry("software", BOOK_KEY, [
        ("title", "{" + cff["title"] + "}"), ("author", f["author"]), ("year", f["year"]),
        ("version", f["version"]), ("license", cff.get("license")), ("doi", f["doi"]), ("url", f["url"]),
        ("note", f"Python package {DISTRIBUTION}, imported as qtheory")])


def _page_bibtex(cff: dict[str, Any], item_ids: Sequence[str], title: str | None, url: str | None,
                 page: str | None = None) -> str:
    from .display import plain_math

    items = [manifest.get(i) for i in item_ids]
    first = items[0]
    title = plain_math(title or f"{first.id}: {first.title}")
    f = _book_fields(cff)
    what = "manifest item" if len(items) == 1 else "manifest items"
    return _entry("misc", f"{BOOK_KEY}:{page or first.id}", [
        ("title", title), ("author", f["author"]), ("year", f["year"]),
        ("howpublished", "In: {" + cff["title"] + "}" + (f", version {f['version']}" if f["version"] else "")),
        ("version", f["version"]), ("url", url or f["url"]), ("doi", f["doi"]),
        ("note", f"{what} {', '.join(i.id for i in items)}")])


def _split_entries(text: str) -> list[str]:
    """The raw entries of a BibTeX file (comments and text between entries dropped)."""
    out, pos = [], 0
    while (at := text.find("@", pos)) >= 0:
        open_ = text.find("{", at)
        if open_ < 0 or not re.fullmatch(r"@\w+\s*", text[at:open_]):
            pos = at + 1
            continue
        depth, end = 0, open_
        for end in range(open_, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        if depth:
            raise ParameterError(f"references.bib: unbalanced braces in the entry at offset {at}")
        out.append(text[at:end + 1])
        pos = end + 1
    return out


def _field(entry: str, name: str) -> str | None:
    found = re.search(rf"^\s*{name}\s*=\s*\{{(.*)\}}\s*,?\s*$", entry, re.M | re.I)
    return found.group(1).strip() if found else None


def paper_entries() -> dict[str, str]:
    """The BibTeX entry of each paper by its key (``"L"``): the entry of
    ``book/references.bib`` whose DOI is the link of the paper's record."""
    text = _source("book/references.bib", "references.bib").read_text(encoding="utf-8")
    by_doi = {}
    for entry in _split_entries(text):
        doi = _field(entry, "doi")
        if doi:
            by_doi[doi.lower()] = entry.strip() + "\n"
    out = {}
    for key, paper in manifest.papers().items():
        doi = re.sub(r"^https?://(dx\.)?doi\.org/", "", paper.link).lower()
        if doi not in by_doi:
            raise ParameterError(f"paper {key}: no entry of references.bib has the DOI {doi} of its record")
        out[key] = _for_readers(by_doi[doi])
    return out


def _for_readers(entry: str) -> str:
    """The entry as a reader cites it: keyed ``<first author's family name><year>``
    (``zhao2024``) instead of the book's own key, without the book's ``note``."""
    first = (_field(entry, "author") or "").split(" and ")[0].split(",")[0]
    key = re.sub(r"[^a-z]", "", first.lower()) + (_field(entry, "year") or "")
    entry = re.sub(r"^(@\w+\{)[^,]+,", lambda m: m.group(1) + key + ",", entry, count=1)
    lines = [line for line in entry.splitlines() if not re.match(r"\s*note\s*=", line, re.I)]
    if lines[-2].endswith(","):
        lines[-2] = lines[-2][:-1]
    return "\n".join(lines) + "\n"


def bibtex(*, item: str | Sequence[str] | None = None, paper: str | None = None,
           title: str | None = None, url: str | None = None, page: str | None = None) -> str:
    """BibTeX for the book, a result page, or a paper.

    Parameters
    ----------
    item : str or sequence of str, optional
        A manifest ID (``"L-F2"``), or the IDs a page shows: the entry of that page
        (``@misc``, key ``qtheory-companion:<first ID>``), the book's record with the
        page's title and its manifest ID(s).
    paper : str, optional
        A paper's key (``"L"``) or any manifest ID of it: the paper's entry from
        ``book/references.bib`` (its published version, as its ``PAPER`` record links).
    title : str, optional
        The page's title for `item` (default: ``"<ID>: <manifest title>"``).
    url : str, optional
        The page's address for `item` (default: the repository's, if CITATION.cff has one).
    page : str, optional
        The page's name (its notebook, ``"R-T1"``), the key's tail: ``qtheory-companion:R-T1``
        (default: the first manifest ID, for a page of one item).

    Returns
    -------
    str
        With neither `item` nor `paper`: the book (``@software``, from CITATION.cff).
    """
    if item is not None and paper is not None:
        raise ParameterError("`item` and `paper` cannot be given together")
    if paper is not None:
        key = paper.split("-", 1)[0]
        entries = paper_entries()
        if key not in entries:
            raise ParameterError(f"`paper` must be one of {', '.join(entries)} or a manifest ID (got {paper!r})")
        if "-" in paper:
            manifest.get(paper)
        return entries[key]
    cff = citation_record()
    if item is None:
        if title is not None or url is not None or page is not None:
            raise ParameterError("`title`, `url` and `page` describe a page: give `item` too")
        return _book_bibtex(cff)
    ids = [item] if isinstance(item, str) else list(item)
    if not ids:
        raise ParameterError("`item` must name at least one manifest ID")
    return _page_bibtex(cff, ids, title, url, page)


def cite_box(item_ids: Iterable[str], *, title: str | None = None, url: str | None = None,
             page: str | None = None) -> str:
    """MyST Markdown of the "Cite this" box of a page showing `item_ids`.

    A collapsed admonition (``dropdown``) with three BibTeX blocks: the book, this page,
    and the paper(s) the items reproduce (each paper once, in manifest order).
    """
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        raise ParameterError("`item_ids` must name at least one manifest ID")
    keys = list(dict.fromkeys(manifest.get(i).paper for i in ids))
    parts = [":::{admonition} Cite this",
             ":class: dropdown cite-this",
             "",
             "The book (the software and its results, version "
             f"{citation_record().get('version', '')}):",
             "", "```bibtex", _book_bibtex(citation_record()).rstrip(), "```", "",
             "This page:", "", "```bibtex", bibtex(item=ids, title=title, url=url, page=page).rstrip(), "```", ""]
    for key in keys:
        parts += ["The paper it reproduces:" if len(keys) == 1 else f"Paper {key}, which it reproduces:",
                  "", "```bibtex", bibtex(paper=key).rstrip(), "```", ""]
    parts.append(":::")
    return "\n".join(parts) + "\n"


# --- Zenodo ---------------------------------------------------------------------------

def _zenodo_creator(person: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    if "family-names" in person:
        particle = f"{person['name-particle']} " if person.get("name-particle") else ""
        given = f", {person['given-names']}" if person.get("given-names") else ""
        out["name"] = f"{particle}{person['family-names']}{given}"
    else:
        out["name"] = person["name"]
    if person.get("affiliation"):
        out["affiliation"] = person["affiliation"]
    if person.get("orcid"):
        out["orcid"] = re.sub(r"^https?://orcid\.org/", "", person["orcid"])
    return out


def zenodo_metadata(cff: dict[str, Any] | None = None) -> dict[str, Any]:
    """``.zenodo.json`` from CITATION.cff.

    The fields and their mapping are those of ``cffconvert --format zenodo`` (2.0.0:
    creators, description from ``abstract``, keywords, license, publication_date, title,
    version), plus ``upload_type: software`` and, for each reference with a DOI (the
    three papers), a related identifier: this deposit ``isSupplementTo`` that paper.
    """
    cff = cff if cff is not None else citation_record()
    out: dict[str, Any] = {"creators": [_zenodo_creator(a) for a in cff["authors"]]}
    if "abstract" in cff:
        out["description"] = cff["abstract"].strip()
    if "keywords" in cff:
        out["keywords"] = list(cff["keywords"])
    if "license" in cff:
        out["license"] = {"id": cff["license"]}
    if "date-released" in cff:
        out["publication_date"] = str(cff["date-released"])
    related = [{"identifier": str(ref["doi"]), "relation": "isSupplementTo", "resource_type": "publication-article",
                "scheme": "doi"} for ref in cff.get("references", []) if ref.get("doi")]
    if related:
        out["related_identifiers"] = related
    out["title"] = cff["title"]
    out["upload_type"] = "software"
    if "version" in cff:
        out["version"] = str(cff["version"])
    return out


def zenodo_json(cff: dict[str, Any] | None = None) -> str:
    """The text of ``.zenodo.json`` (sorted keys, two-space indent, final newline)."""
    return json.dumps(zenodo_metadata(cff), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m qtheory.citation {bibtex [ID|KEY] | zenodo}``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["zenodo"] and len(args) == 1:
        sys.stdout.write(zenodo_json())
        return 0
    if args[:1] == ["bibtex"] and len(args) <= 2:
        if len(args) == 1:
            sys.stdout.write(bibtex())
        elif re.fullmatch(r"[A-Z]", args[1]):
            sys.stdout.write(bibtex(paper=args[1]))
        else:
            sys.stdout.write(bibtex(item=args[1]))
        return 0
    sys.stderr.write("usage: python -m qtheory.citation {bibtex [ID | PAPER] | zenodo}\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
