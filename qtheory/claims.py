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

__all__ = ["Claim", "CATEGORIES", "Noted", "NOTED", "collect", "describe", "noted_evidence",
           "render_claims", "render_errata", "write_pages"]

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


@dataclass(frozen=True)
class Noted:
    """A reconstruction or erratum of the text that no notebook records as a claim of its own.

    Its evidence is read at build time from the results of related items: ``evidence``
    lists ``(item, key)`` pairs, where ``key`` is a summary entry of the item's JSON
    sidecar or ``"claim:<words>"`` for the recorded claim of that item whose text
    contains the words.
    """

    item: str
    category: str
    text: str
    evidence: tuple[tuple[str, str], ...]
    verdict: str

    def __post_init__(self):
        if self.category not in CATEGORIES[1:]:
            raise ParameterError(f"`category` must be 'reconstruction' or 'erratum' (got {self.category!r})")
        if not self.evidence:
            raise ParameterError("`evidence` must name at least one recorded value")


#: reconstructions and errata found while reading the papers (and in the reading notes)
#: that are checked by results recorded under other headings
NOTED: tuple[Noted, ...] = (
    Noted("L-V-lemma10", "reconstruction",
          "(5.2), the asymptotic load: the supremum over alpha in [0,1]^M of lambda zeta sum_k w_k "
          "(sum_m alpha_m r_(k,m))^d / sum_m alpha_m v_m u_m, attained at a set of server types",
          (("L-V-lemma10", "claim:unstable"), ("L-V-lemma10", "claim:fluid rate"), ("L-V-lemma10", "rho_design")),
          "consistent: predicts the instability of the complete graph and its growth rate"),
    Noted("L-V-thm4", "reconstruction",
          "(5.1), the fixed-point equations: the right side of (3.7) set to zero",
          (("L-V-thm4", "root_residual"), ("L-V-thm4", "max_final_distance")),
          "consistent: the root of (5.1) is the limit of every integration of (3.7)"),
    Noted("L-V-thm8", "reconstruction",
          "Condition 1: deg_w(i, m) = number of type-m neighbours of dispatcher i, deg_v(k, j) = number "
          "of cluster-k neighbours of server j (definitions lost)",
          (("L-V-thm8", "at_largest_N"),),
          "consistent: irg(p) meets the condition and proportional sparsity, the window graph does not"),
    Noted("L-F1", "reconstruction",
          "Fig. 1 plots the mean queue length of each type, sum over l >= 1 of q_(m,l)(t), on t in "
          "[0, 2.5] (the horizon is not stated)",
          (("L-F1", "claim:95% CIs"), ("L-F1", "type1_growth_second_half_S1")),
          "consistent with the figure's description"),
    Noted("L-F1", "erratum",
          "Sec. 6 notation: mu = (1, 5, 10) stands for the rates u of Secs. 2-5, and Sec. 6.1 writes "
          "p_(m,k) for p_(k,m)",
          (("L-F1", "claim:capacity sufficiency"),),
          "notation only: with u = mu the example has the capacity the text states"),
    Noted("R-V-local", "erratum",
          "Appendix E.1 calls the local stability conditions (1) and (2); they are (7) and (8)",
          (("R-V-local", "claim:local stability"), ("R-V-local", "all_equivalent")),
          "confirmed: (7) and (8) are equivalent to maximal stability in every system checked; the twelve "
          "settings meet them (test_table1_settings_are_maximally_stable_at_load_09)"),
    Noted("U-T1", "reconstruction",
          "Table 1's numbers are lost from the text: the experiment is rerun for n from 50 to 1000 "
          "and compared with the statements that survived",
          (("U-T1", "claim:exceeds the empirical bound"), ("U-T1", "every_run_below_empirical_bound")),
          "the surviving statements are reproduced"),
)


def _compact(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return _num(float(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    return str(value)


def noted_evidence(root: str | os.PathLike, noted: Noted) -> list[str]:
    """The recorded values behind a :class:`Noted` entry, one line each, from the results `root`."""
    out = []
    for item_id, key in noted.evidence:
        meta_path = Path(root) / item_id / f"{item_id}.json"
        if not meta_path.exists():
            out.append(f"{item_id}: not recorded in this build")
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if key.startswith("claim:"):
            words = key[len("claim:"):]
            found = [Claim(**r) for r in meta.get("claims", []) if words in r.get("text", "")]
            out += [f"{describe(c)} {c.judge()}" for c in found] or [f"{item_id}: no claim about {words!r}"]
        elif key in meta:
            out.append(f"{item_id} {key} = {_compact(meta[key])}")
        else:
            out.append(f"{item_id}: {key} not recorded")
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
    from . import manifest

    rows = [c for c in claims if c.category == "claim"]
    lines = ["# Claims of the papers, checked", "",
             "Every number below is collected from the result files of this build: the paper's "
             "value, the companion's, the size of the difference (in combined standard errors "
             "for statistical values, otherwise against the stated tolerance) and the verdict "
             "(agrees within 4 standard errors or the tolerance). Nothing here is typed by hand; "
             "each item links to the page that computed it, where the differences are discussed.", ""]
    if not rows:
        lines.append("No claims have been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    n_ok = sum(c.judge() == "agrees" for c in rows)
    lines += [f"{n_ok} of {len(rows)} claims agree.", "",
              "| paper | claims | agree | differ |", "|---|---|---|---|"]
    by_paper = {p: [c for c in rows if c.item.split("-", 1)[0] == p] for p in manifest.PAPERS}
    for paper, group in by_paper.items():
        if group:
            ok = sum(c.judge() == "agrees" for c in group)
            lines.append(f"| [{paper}](#claims-{paper.lower()}) | {len(group)} | {ok} | {len(group) - ok} |")
    lines.append("")
    for paper, group in by_paper.items():
        if not group:
            continue
        lines += [f"(claims-{paper.lower()})=", f"## {paper}: {manifest.PAPERS[paper]}", "",
                  "| item | claim | paper | companion | difference | verdict |", "|---|---|---|---|---|---|"]
        for c in group:
            paper_value = _num(c.paper) + (f" ± {_num(c.paper_se)}" if c.paper_se is not None else "")
            ours = _num(c.ours) + (f" ± {_num(c.ours_se)}" if c.ours_se is not None else "")
            verdict = c.judge()
            lines.append(f"| {_link(c.item)} | {_cell(c.text)} | {paper_value} | {ours} | {_size(c)} | "
                         f"{'**differs**' if verdict == 'differs' else verdict} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def render_errata(claims: list[Claim], intro: str = "",
                  noted: list[tuple[Noted, list[str]]] | None = None) -> str:
    rows = sorted((c for c in claims if c.category != "claim"), key=lambda c: c.item[0])
    lines = ["# Reconstructions and errata", "", intro or (
        "The extracted texts of the papers lost several displayed equations, and a few of their "
        "statements do not survive a numerical check. Each row says what we reconstructed, or what "
        "we believe is wrong, how it was checked and the value this build computed; the verdict is "
        "the outcome of that check. In each section the first table lists items that a notebook "
        "checks directly, the second those found while reading, whose values come from related "
        "checks. The part overviews discuss each one in context."), ""]
    if not rows:
        lines.append("No reconstructions or errata have been recorded yet: run `python -m qtheory reproduce`.")
        return "\n".join(lines) + "\n"
    noted = sorted(noted or [], key=lambda pair: pair[0].item[0])
    for category, title in (("reconstruction", "Reconstructions"), ("erratum", "Suspected errata")):
        group = [c for c in rows if c.category == category]
        if group:
            lines += [f"## {title}", "", "Checked by a notebook of their own:", "",
                      "| item | what | evidence | value | verdict |", "|---|---|---|---|---|"]
            for c in group:
                value = _num(c.ours) if c.ours is not None else "—"
                lines.append(f"| {_link(c.item)} | {_cell(c.text)} | {_cell(c.evidence) or '—'} | {value} | "
                             f"{_cell(c.judge())} |")
            lines.append("")
        others = [(n, ev) for n, ev in noted if n.category == category]
        if others:
            if not group:
                lines += [f"## {title}", ""]
            lines += ["Found while reading the text, with the values recorded by related checks:", "",
                      "| item | what | values recorded in this build | verdict |", "|---|---|---|---|"]
            for n, ev in others:
                lines.append(f"| {_link(n.item)} | {_cell(n.text)} | {'<br>'.join(_cell(e) for e in ev)} | "
                             f"{_cell(n.verdict)} |")
            lines.append("")
    return "\n".join(lines) + "\n"


def write_pages(results: str | os.PathLike, book: str | os.PathLike, errata_intro: str = "") -> None:
    """Write ``claims.md`` and ``errata.md`` into the folder `book` from `results`."""
    claims = collect(results)
    noted = [(n, noted_evidence(results, n)) for n in NOTED]
    book = Path(book)
    for name, text in (("claims.md", render_claims(claims)),
                       ("errata.md", render_errata(claims, errata_intro, noted))):
        path = book / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
