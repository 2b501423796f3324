"""Numeric claims of the papers, set beside the companion's values.

A notebook records each number a paper states, together with the value it computed
and its uncertainty, through :meth:`qtheory.results.ResultWriter.claim`; the claim
is stored in the result's JSON sidecar. At book build time :func:`write_pages`
collects every recorded claim from the results folder into the pages
``book/claims.md`` (claims of the text, figures and tables) and
``book/errata.md`` (reconstructed equations and suspected errata, each with the
numerical evidence of this build), so that no verdict is typed by hand.

Verdicts
--------
With standard errors (``paper_se`` and/or ``ours_se``) the difference is measured in
units of the combined standard error ``sqrt(paper_se**2 + ours_se**2)`` and the claim
*agrees* when it is at most ``z_max`` (default 4). Without standard errors, the claim
agrees when ``|ours - paper| <= tolerance`` (for instance the rounding of the printed
value). Reconstructions and errata carry a verdict of their own (``"confirmed"``,
``"refuted"`` ...) decided by the notebook's check.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import ParameterError

__all__ = ["Claim", "CATEGORIES", "collect", "describe", "render_claims", "render_errata", "write_pages"]

#: kinds of records: a number stated by a paper; an equation we had to reconstruct;
#: a suspected erratum of a paper
CATEGORIES = ("claim", "reconstruction", "erratum")


@dataclass(frozen=True)
class Claim:
    """One claim with the companion's value.

    Attributes
    ----------
    item : str
        Manifest ID of the result that checks it.
    text : str
        The claim in a line, in our words (e.g. "P(Q > 15) at load 0.6").
    paper : float or None
        The paper's value (None for a reconstruction with no printed number).
    ours : float or None
        The companion's value.
    paper_se, ours_se : float or None
        Standard errors, when the values are statistical.
    tolerance : float or None
        Absolute tolerance for deterministic comparisons.
    category : str
        One of :data:`CATEGORIES`.
    verdict : str or None
        For reconstructions / errata, the outcome of the notebook's check.
    evidence : str
        A sentence on how the value was obtained (method, sizes, seed).
    """

    item: str
    text: str
    paper: float | None = None
    ours: float | None = None
    paper_se: float | None = None
    ours_se: float | None = None
    tolerance: float | None = None
    category: str = "claim"
    verdict: str | None = None
    evidence: str = ""
    z_max: float = 4.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ParameterError(f"`category` must be one of {', '.join(CATEGORIES)} (got {self.category!r})")
        for name in ("paper", "ours", "paper_se", "ours_se", "tolerance"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
                raise ParameterError(f"`{name}` must be a finite number or None (got {value!r})")
            if name in ("paper_se", "ours_se", "tolerance") and value is not None and value < 0:
                raise ParameterError(f"`{name}` must be >= 0 (got {value!r})")
        if self.category == "claim":
            if self.paper is None or self.ours is None:
                raise ParameterError("a claim needs both `paper` and `ours` values")
            if self.paper_se is None and self.ours_se is None and self.tolerance is None:
                raise ParameterError("a claim needs standard errors or a `tolerance` to be judged")

    @property
    def difference(self) -> float | None:
        if self.paper is None or self.ours is None:
            return None
        return self.ours - self.paper

    @property
    def z(self) -> float | None:
        """Difference in combined standard errors (None without standard errors)."""
        se2 = (self.paper_se or 0.0) ** 2 + (self.ours_se or 0.0) ** 2
        if self.difference is None or (self.paper_se is None and self.ours_se is None):
            return None
        if se2 == 0.0:
            return 0.0 if self.difference == 0.0 else math.inf
        return abs(self.difference) / math.sqrt(se2)

    def judge(self) -> str:
        """``agrees`` / ``differs`` for claims; the recorded verdict otherwise."""
        if self.category != "claim":
            return self.verdict or "see evidence"
        z = self.z
        if z is not None:
            return "agrees" if z <= self.z_max else "differs"
        return "agrees" if abs(self.difference) <= self.tolerance else "differs"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}


def collect(root: str | os.PathLike) -> list[Claim]:
    """Every claim recorded in the JSON sidecars under the results folder `root`."""
    out = []
    for meta_path in sorted(Path(root).glob("*/*.json")):
        if meta_path.stem != meta_path.parent.name:
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        for record in meta.get("claims", []):
            out.append(Claim(**record))
    return out


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.4g}"
    return f"{x:.3e}"


def _size(c: Claim) -> str:
    if c.z is not None:
        return f"{c.z:.1f} SE"
    if c.difference is not None:
        return f"{_num(abs(c.difference))} (tol. {_num(c.tolerance)})"
    return "—"


def describe(c: Claim) -> str:
    """One line for a claim: its text, the paper's value, ours and the size of the difference.

    The verdict (:meth:`Claim.judge`) is left to the caller, which may typeset it.
    """
    parts = [c.text]
    if c.paper is not None:
        parts.append("paper " + _num(c.paper) + (f" ± {_num(c.paper_se)}" if c.paper_se is not None else ""))
    if c.ours is not None:
        parts.append("companion " + _num(c.ours) + (f" ± {_num(c.ours_se)}" if c.ours_se is not None else ""))
    if c.category == "claim":
        parts.append("difference " + _size(c))
    elif c.evidence:
        parts.append(c.evidence)
    return "; ".join(parts) + ":"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (a bare ``|`` would split the cell)."""
    return text.replace("|", "\\|").replace("\n", " ")


def _link(item_id: str) -> str:
    from . import manifest

    item = manifest.get(item_id)
    return f"[{item.id}]({item.part}/{item.notebook}.ipynb)"


def render_claims(claims: list[Claim]) -> str:
    rows = [c for c in claims if c.category == "claim"]
    lines = ["# Claims of the papers, checked", "",
             "Every number below is collected from the result files of this build: the paper's "
             "value, the companion's, the size of the difference (in combined standard errors "
             "for statistical values, otherwise against the stated tolerance) and the verdict "
             "(agrees within 4 standard errors or the tolerance). Nothing here is typed by hand.", ""]
    if not rows:
        lines.append("No claims have been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    n_ok = sum(c.judge() == "agrees" for c in rows)
    lines += [f"{n_ok} of {len(rows)} claims agree.", "",
              "| item | claim | paper | companion | difference | verdict |", "|---|---|---|---|---|---|"]
    for c in rows:
        paper = _num(c.paper) + (f" ± {_num(c.paper_se)}" if c.paper_se is not None else "")
        ours = _num(c.ours) + (f" ± {_num(c.ours_se)}" if c.ours_se is not None else "")
        verdict = c.judge()
        lines.append(f"| {_link(c.item)} | {_cell(c.text)} | {paper} | {ours} | {_size(c)} | "
                     f"{'**differs**' if verdict == 'differs' else verdict} |")
    return "\n".join(lines) + "\n"


def render_errata(claims: list[Claim], intro: str = "") -> str:
    rows = [c for c in claims if c.category != "claim"]
    lines = ["# Reconstructions and errata", "", intro or (
        "Equations lost in the papers' text, as we reconstructed them, and suspected errata, "
        "each with the numerical evidence computed in this build."), ""]
    if not rows:
        lines.append("No reconstructions or errata have been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    for category, title in (("reconstruction", "Reconstructions"), ("erratum", "Suspected errata")):
        group = [c for c in rows if c.category == category]
        if not group:
            continue
        lines += [f"## {title}", "", "| item | what | evidence | value | verdict |", "|---|---|---|---|---|"]
        for c in group:
            value = _num(c.ours) if c.ours is not None else "—"
            lines.append(f"| {_link(c.item)} | {_cell(c.text)} | {_cell(c.evidence) or '—'} | {value} | "
                         f"{_cell(c.judge())} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_pages(results: str | os.PathLike, book: str | os.PathLike, errata_intro: str = "") -> None:
    """Write ``claims.md`` and ``errata.md`` into the folder `book` from `results`."""
    claims = collect(results)
    book = Path(book)
    for name, text in (("claims.md", render_claims(claims)), ("errata.md", render_errata(claims, errata_intro))):
        path = book / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
