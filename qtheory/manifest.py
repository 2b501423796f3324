"""The reproduction manifest: every figure, table, policy and result the companion covers.

Each item has the ID used in ``../shared/spec/MANIFEST.md``; the same ID names the
result folder (``results/<ID>/``), the book label and the tests that back the item.
``notebook`` is the notebook (in ``notebooks/``, without ``.ipynb``) whose run
produces the item's results; several items can share one notebook (for instance
the verification notebook of a paper).

Each paper declares itself in the ``items`` module of its own subpackage: a
:class:`Paper` with its bibliographic record, its book part, its items and the
reconstructions and errata noted while reading it (:class:`qtheory.claims.Noted`).
This module only gathers them, from the modules named in :data:`PAPER_MODULES`; a
fourth paper is its subpackage and one more line there. The gathered tables
(:data:`ITEMS`, :data:`PAPERS`, :data:`RECORDS`, :data:`PARTS`) are built on first use,
so importing the manifest does not import the papers' subpackages.

The papers are

- **L** (:mod:`qtheory.locality.items`): data locality with heterogeneous servers,
  JSQ(:math:`d`) on bipartite compatibility graphs;
- **R** (:mod:`qtheory.redundancy.items`): redundancy (cancel-on-completion /
  cancel-on-start) with compatibility constraints, heavy-traffic limits;
- **U** (:mod:`qtheory.utility.items`): utility-maximizing assignment of tasks to
  infinite-server pools (JLMU, SLTA).
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ParameterError

__all__ = ["Item", "Paper", "KINDS", "PAPER_MODULES", "ITEMS", "PAPERS", "RECORDS", "PARTS",
           "papers", "notebooks", "get", "index_markdown", "write_index"]

#: the modules that declare the papers, in the order of the book: a new paper is one more line
PAPER_MODULES = (
    "qtheory.locality.items",
    "qtheory.redundancy.items",
    "qtheory.utility.items",
)

KINDS = {
    "P": "policy or model",
    "F": "figure",
    "T": "table",
    "V": "theorem or lemma, verified numerically",
    "X": "other claim of the text, checked",
    "R": "result beyond the papers (our own computation, not in the spec)",
}


@dataclass(frozen=True)
class Item:
    """One manifest item.

    Attributes
    ----------
    id : str
        Manifest ID, e.g. ``"L-F1"``.
    kind : str
        One letter of :data:`KINDS`.
    title : str
        What the item is, in a line (math in ``$...$``).
    notebook : str
        Name of the notebook that produces its results.
    """

    id: str
    kind: str
    title: str
    notebook: str

    def __post_init__(self):
        if not re.fullmatch(r"[A-Z]-[A-Za-z0-9-]+", self.id):
            raise ParameterError(f"`id` must look like 'L-F1' (got {self.id!r})")
        if self.kind not in KINDS:
            raise ParameterError(f"`kind` of {self.id} must be one of {', '.join(KINDS)} (got {self.kind!r})")
        if not self.notebook.startswith(self.paper + "-"):
            raise ParameterError(f"`notebook` of {self.id} must be a notebook of paper {self.paper} "
                                 f"(got {self.notebook!r})")

    @property
    def paper(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def part(self) -> str:
        return papers()[self.paper].part


@dataclass(frozen=True)
class Paper:
    """One paper of the companion, as its subpackage's ``items`` module declares it.

    Attributes
    ----------
    key : str
        The paper's letter, the prefix of its manifest IDs (``"L"``).
    title : str
        The title our equation numbers follow.
    part : str
        The book part (folder under ``book/``), by convention the subpackage's name.
    authors, venue, link, version : str
        The bibliographic record: authors, the published venue, a link (DOI), and which
        version our equation numbers follow.
    year : int
        Year of the published version.
    items : tuple of Item
        The paper's manifest items, in manifest order.
    noted : tuple of qtheory.claims.Noted
        Reconstructions and errata found while reading the paper that no notebook records
        as a claim of its own (:data:`qtheory.claims.NOTED` gathers them).
    statements : tuple of qtheory.claimmap.Statement
        The claim map: what the paper states about its items, each judged by the records that
        carry its key (:mod:`qtheory.claimmap`).
    """

    key: str
    title: str
    part: str
    authors: str
    year: int
    venue: str
    link: str
    version: str
    items: tuple[Item, ...]
    noted: tuple[Any, ...] = field(default=())
    statements: tuple[Any, ...] = field(default=())

    def __post_init__(self):
        if not re.fullmatch(r"[A-Z]", self.key):
            raise ParameterError(f"`key` must be one capital letter (got {self.key!r})")
        if not self.items:
            raise ParameterError(f"paper {self.key}: `items` must list at least one item")
        ids = [item.id for item in self.items]
        if len(set(ids)) != len(ids):
            raise ParameterError(f"paper {self.key}: `items` has a repeated ID")
        for item in self.items:
            if item.paper != self.key:
                raise ParameterError(f"paper {self.key}: `items` holds {item.id}, an ID of another paper")
        keys = [s.key for s in self.statements]
        if len(set(keys)) != len(keys):
            raise ParameterError(f"paper {self.key}: `statements` has a repeated key")
        for s in self.statements:
            if s.item not in ids:
                raise ParameterError(f"paper {self.key}: statement {s.key} names no item of the paper")
        for n in self.noted:
            if n.item.split("-", 1)[0] != self.key:
                raise ParameterError(f"paper {self.key}: `noted` holds an entry of {n.item}, an item of "
                                     "another paper")

    @property
    def record(self) -> dict[str, Any]:
        """The bibliographic record as a dict (authors, year, venue, link, version)."""
        return dict(authors=self.authors, year=self.year, venue=self.venue, link=self.link,
                    version=self.version)


_PAPERS: dict[str, Paper] | None = None


def papers() -> dict[str, Paper]:
    """Every paper, by key, in the order of :data:`PAPER_MODULES` (imported on first call)."""
    global _PAPERS
    if _PAPERS is None:
        out: dict[str, Paper] = {}
        for name in PAPER_MODULES:
            paper = importlib.import_module(name).PAPER
            if paper.key in out:
                raise ParameterError(f"paper {paper.key!r} is declared twice ({name})")
            out[paper.key] = paper
        _PAPERS = out
    return dict(_PAPERS)


#: every manifest item, by ID, in manifest order
ITEMS: dict[str, Item]
#: title of each paper, by key
PAPERS: dict[str, str]
#: bibliographic record of each paper (the version our equation numbers follow is named)
RECORDS: dict[str, dict[str, Any]]
#: book part (folder under ``book/``) of each paper
PARTS: dict[str, str]


def _gathered() -> dict[str, Any]:
    found = papers()
    return {"ITEMS": {item.id: item for p in found.values() for item in p.items},
            "PAPERS": {k: p.title for k, p in found.items()},
            "RECORDS": {k: p.record for k, p in found.items()},
            "PARTS": {k: p.part for k, p in found.items()}}


def __getattr__(name: str):
    # the gathered tables are built on first use and then kept as ordinary attributes
    if name in ("ITEMS", "PAPERS", "RECORDS", "PARTS"):
        if "ITEMS" not in globals():
            globals().update(_gathered())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"ITEMS", "PAPERS", "RECORDS", "PARTS"})


def _items() -> dict[str, Item]:
    return __getattr__("ITEMS")


def notebooks() -> dict[str, list[Item]]:
    """Map each notebook name to the manifest items it produces (manifest order)."""
    out: dict[str, list[Item]] = {}
    for item in _items().values():
        out.setdefault(item.notebook, []).append(item)
    return out


def get(item_id: str) -> Item:
    """Return the manifest item `item_id`, with a suggestion when the ID is unknown."""
    items = _items()
    try:
        return items[item_id]
    except KeyError:
        close = difflib.get_close_matches(item_id, list(dict.fromkeys([*items, *notebooks()])), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ParameterError(f"unknown manifest ID {item_id!r}{hint}") from None


#: what a kind letter is called in the papers' own terms (for the index)
_PAPER_TERMS = {"F": "Figure", "T": "Table", "V": "Result", "X": "Statement", "P": "Model", "R": "Beyond the paper"}


def index_markdown(book) -> str:
    """The intro page's index: per paper, its record and a table from each manifest item
    to the page that computes it (a link when the page exists in `book`)."""
    from pathlib import Path

    book = Path(book)
    out = []
    for paper, p in papers().items():
        rec = p.record
        out += [f"### {paper}: *{p.title}*", "",
                f"{rec['authors']} ({rec['year']}). {rec['venue']}. <{rec['link']}>; {rec['version']}.", "",
                "| manifest ID | kind | what | page |", "|---|---|---|---|"]
        for item in p.items:
            nb = book / item.part / f"{item.notebook}.ipynb"
            page = f"[{item.notebook}]({item.part}/{item.notebook}.ipynb)" if nb.exists() else \
                f"{item.notebook} (not computed in this build)"
            what = item.title.replace("|", "\\|")
            out.append(f"| {item.id} | {_PAPER_TERMS.get(item.kind, item.kind)} | {what} | {page} |")
        out.append("")
    return "\n".join(out)


def write_index(book) -> None:
    """Write ``paper_index.md`` (included by the intro page) into `book` if it changed."""
    from pathlib import Path

    path = Path(book) / "paper_index.md"
    text = index_markdown(book)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
