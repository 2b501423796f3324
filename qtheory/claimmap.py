"""The claim map: what each paper states about each manifest item, and which record judges it.

Each paper declares its statements beside its items (``qtheory/<paper>/items/__init__.py``,
the ``statements`` of its :class:`qtheory.manifest.Paper`): every theorem, lemma, proposition,
corollary, figure, table and other claim of the manifest has at least one *main* statement
(what the item is about, in the paper's own terms), and further statements the paper makes
about it (a number printed in the text, a qualitative remark on a figure).

A record (:class:`qtheory.claims.Claim`) that judges a statement carries its ``key``. The
verdict box of a result page opens with its items' main statements, then the paper's other
statements, then internal checks, reconstructions and errata; a test fails when a main
statement has no judged record in a build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ParameterError

__all__ = ["Statement", "statements", "main_statements", "by_key", "JUDGED_KINDS"]

#: manifest kinds whose items state something a record must judge (not P: policies are implemented)
JUDGED_KINDS = ("F", "T", "V", "X")


@dataclass(frozen=True)
class Statement:
    """One statement of a paper about a manifest item.

    Attributes
    ----------
    key : str
        Its ID: the item's ID for the item's main statement (``"L-F2"``), else
        ``<item>:<words>`` (``"L-F2:fast-decay"``); records that judge it carry it.
    says : str
        The statement in our words (Markdown, ``$...$`` math).
    source : str
        Where the paper makes it: "Sec. 6.2, Fig. 2", "Theorem 4".
    main : bool
        Whether it is the item's main statement (a verdict box opens with those).
    judged_by : tuple of str
        Words of the text of the item's records that judge it (a record may also name the
        statement by its ``key``).
    """

    key: str
    says: str
    source: str
    main: bool = True
    judged_by: tuple[str, ...] = ()

    def __post_init__(self):
        if not re.fullmatch(r"[LRU]-[A-Za-z0-9-]+(:[a-z0-9-]+)?", self.key):
            raise ParameterError(f"`key` must be an item ID, optionally followed by ':<words>' (got {self.key!r})")
        if not self.says.strip() or not self.source.strip():
            raise ParameterError(f"statement {self.key}: `says` and `source` must not be empty")

    @property
    def item(self) -> str:
        return self.key.split(":", 1)[0]

    def judges(self, record) -> bool:
        """Whether `record` (a :class:`qtheory.claims.Claim`) judges this statement."""
        if record.key:
            return record.key == self.key
        return record.item == self.item and any(words in record.text for words in self.judged_by)


def statements(paper: str | None = None) -> tuple[Statement, ...]:
    """Every statement of the claim map (of one paper), in declaration order."""
    from . import manifest

    papers = manifest.papers()
    chosen = [papers[paper]] if paper is not None else list(papers.values())
    return tuple(s for p in chosen for s in p.statements)


def main_statements() -> tuple[Statement, ...]:
    """The main statements of every judged manifest item."""
    return tuple(s for s in statements() if s.main)


def by_key() -> dict[str, Statement]:
    """The statements by key."""
    return {s.key: s for s in statements()}
