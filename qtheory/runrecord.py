"""The page an executed notebook becomes: run record, verdict box, badge, closing boxes.

:func:`append_run_record` closes an executed notebook with the run record of its results
(:func:`run_record`), puts the verdict box (:func:`qtheory.claimpages.verdict_box`) and the
preset badge (:func:`qtheory.badges.badge`) under its title, appends the "Rerun this
page" and "Cite this" boxes (:mod:`qtheory.pagebox`) and hides its code cells.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from .badges import badge
from .display import number
from .notebooks import notebook_parameters
from .presets import literal, load_presets
from .results import project_root


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


def run_record(metas: list[dict], *, links: dict[str, dict[str, str]] | None = None,
               notebook_link: str | None = None) -> str:
    """Markdown summary of published results: preset, seed, run time, parameters, data files.

    `links` maps an item ID to ``{file name: relative path}`` for download links.
    """
    lines = ["## Run record", "",
             "The numbers on this page were computed in this build; they are saved, with the "
             "parameters below, in the files linked here.", "",
             "| item | preset | seed | run time | finished (UTC) | data |", "|---|---|---|---|---|---|"]
    for meta in metas:
        files = links.get(meta["id"], {}) if links else {}
        data = ", ".join(f"{{download}}`{name} <{path}>`" for name, path in files.items()) or "—"
        # an item without random numbers has no seed: said so, not "None"
        seed = meta.get("seed")
        seed = "none (deterministic)" if seed is None else str(seed)
        lines.append(f"| {meta['id']} | {meta.get('preset')} | {seed} | "
                     f"{number(meta['wall_time_s'])} s | {meta.get('finished_utc')} | {data} |"
                     if meta.get("wall_time_s") is not None else
                     f"| {meta['id']} | {meta.get('preset')} | {seed} | — | {meta.get('finished_utc')} | {data} |")
    params = metas[0].get("parameters", {}) if metas else {}
    if params:
        lines += ["", "Parameters: " + ", ".join(f"`{k} = {literal(v)}`" for k, v in params.items()) + "."]
    versions = metas[0].get("versions", {}) if metas else {}
    if versions:
        lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
                  + (f"; commit `{metas[0]['git_commit'][:10]}`" if metas[0].get("git_commit") else "") + "."]
    if notebook_link:
        lines += ["", f"Source notebook: {{download}}`{Path(notebook_link).name} <{notebook_link}>`."]
    return "\n".join(lines)


def append_run_record(output: Path, source: Path, staging: Path, items: Sequence[str],
                       executed: Path, results: Path) -> None:
    """Close the executed notebook with the run record of its results (for the book page)."""
    import nbformat

    metas, links = [], {}
    for item in items:
        meta = json.loads((staging / item / f"{item}.json").read_text(encoding="utf-8"))
        metas.append(meta)
        links[item] = {name: _relative(results / item / name, executed.parent)
                       for name in meta.get("files", []) if name.endswith((".csv", ".json", ".svg"))}
    nb = nbformat.read(output, as_version=4)
    cell = nbformat.v4.new_markdown_cell(run_record(metas, links=links,
                                                    notebook_link=_relative(source, executed.parent)))
    cell["id"] = "qtheory-run-record"
    nb.cells.append(cell)
    # the verdict box and the badge go right under the page title (or first, when the page has
    # none), before the introduction and the parameters: the page answers its paper first
    from .claimpages import verdict_box

    top = nbformat.v4.new_markdown_cell(badge(metas[0].get("preset"), metas[0].get("overrides")))
    top["id"] = "qtheory-preset-badge"
    box = nbformat.v4.new_markdown_cell(verdict_box(metas))
    box["id"] = "qtheory-verdict"
    title, rest = split_title(nb.cells[0].source) if nb.cells and nb.cells[0].cell_type == "markdown" else ("", None)
    at = 0
    if title:
        nb.cells[0].source = title
        at = 1
        if rest:
            intro = nbformat.v4.new_markdown_cell(rest)
            intro["id"] = "qtheory-introduction"
            nb.cells.insert(1, intro)
    nb.cells[at:at] = [box, top]
    # after the run record: how to compute the page again (commands, every parameter with its
    # paper and quick values), then how to cite it
    from .pagebox import page_title

    data = {name: path for item in items for name, path in links.get(item, {}).items()}
    nb.cells += _closing_cells(source, metas, items, data, page_title(title) if title else None,
                               url=_page_url(executed))
    # readers see parameters, text and figures first; the code is one click away
    for code in nb.cells:
        tags = code.get("metadata", {}).get("tags", [])
        if code.cell_type == "code" and "injected-parameters" in tags and "remove-cell" not in tags:
            # the rerun box shows this run's values and overrides: papermill's cell says it twice
            code.setdefault("metadata", {})["tags"] = [*tags, "remove-cell"]
        elif code.cell_type == "code" and not {"parameters", "injected-parameters", "remove-input"} & set(tags):
            code.setdefault("metadata", {})["tags"] = [*tags, "hide-input"]
    # the executed copy says which inputs produced it (see up_to_date)
    nb.metadata["qtheory"] = {"items": list(items), "input_hash": metas[0].get("input_hash"),
                              "preset": metas[0].get("preset"), "overrides": metas[0].get("overrides") or {}}
    nbformat.write(nb, output)


def _page_url(executed: Path) -> str | None:
    """The online address of the page built from the executed notebook `executed`, when the book's
    address is configured (:func:`qtheory.pagebox.book_url`), else None."""
    from .pagebox import book_url

    base = book_url()
    if not base:
        return None
    try:
        page = executed.resolve().relative_to(project_root().resolve())
    except ValueError:  # a side run outside the book's folders has no page
        return None
    return f"{base}/{page.with_suffix('.html').as_posix()}"


def _closing_cells(source: Path, metas: list[dict], items: Sequence[str], data_links: dict[str, str],
                   title: str | None = None, url: str | None = None) -> list:
    """The "Rerun this page" and "Cite this" cells that close a result page (:mod:`qtheory.pagebox`)."""
    import nbformat

    from . import pagebox
    from .citation import cite_box

    notebook = source.stem
    rerun = nbformat.v4.new_markdown_cell(pagebox.rerun_box(
        notebook, metas[0], load_presets(), pagebox.parameter_meanings(notebook, source),
        defaults=notebook_parameters(source), data_links=data_links))
    rerun["id"] = "qtheory-rerun"
    # the page is cited at the commit its results were computed from (their record's)
    cite = nbformat.v4.new_markdown_cell(cite_box(items, title=title, url=url, page=notebook,
                                                  commit=metas[0].get("git_commit")))
    cite["id"] = "qtheory-cite"
    return [rerun, cite]


def split_title(source: str) -> tuple[str, str | None]:
    """``(title, rest)`` of a page's first Markdown cell: its label and heading lines (starting with a hash and a space), and
    what follows them (None when the cell has no heading)."""
    lines = source.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("# "):
            return "\n".join(lines[:k + 1]), "\n".join(lines[k + 1:]).strip() or None
    return "", None
