"""The boxes every page of the book carries: "Rerun this page" and "Cite this".

A result page (an executed notebook, written by :mod:`qtheory.execution`) closes with

- its run record (:func:`qtheory.runrecord.run_record`);
- :func:`rerun_box`: the exact command that computes the page again with the values it
  shows, the command at the papers' own scale, a table of every parameter (name, meaning,
  paper value, quick value, type) and, when a repository is configured
  (:func:`repository_url`), links to the notebook source and the presets at the run's
  commit, beside the data files of the run;
- :func:`qtheory.citation.cite_box`: the book, the page and the paper it reproduces.

Every other page of the book gets :func:`page_cite_box` (the book, the page, and the paper
of its part) from the Sphinx extension (:mod:`qtheory._sphinx`) when it is read.

The meaning of each parameter is written once, in ``notebooks/presets/meanings.toml``
(:func:`load_meanings`); a parameter missing there takes the comment beside or above it
in the notebook's parameters cell (:func:`cell_comments`).
"""

from __future__ import annotations

import ast
import io
import os
import re
import shlex
import tokenize
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

from . import manifest
from .errors import ParameterError
from .results import project_root

__all__ = ["cell_comments", "load_meanings", "page_cite_box", "page_title", "parameter_meanings",
           "repository_url", "rerun_box", "rerun_command", "type_name"]

MEANINGS = "meanings.toml"
#: the class of the rerun box (qtheory.css styles it; tests find it by it)
RERUN_CLASS = "qtheory-rerun"


# --- meanings ---------------------------------------------------------------------------

def load_meanings(directory: Path | None = None) -> dict[str, dict[str, str]]:
    """``notebooks/presets/meanings.toml`` as ``{notebook: {parameter: meaning}}`` ({} if absent)."""
    from .notebooks import notebooks_dir

    path = (directory or notebooks_dir() / "presets") / MEANINGS
    if not path.is_file():
        return {}
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    out = {}
    for nb, table in data.items():
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise ParameterError(f"{MEANINGS}: [{nb}] must map parameter names to one-line texts")
        out[nb] = {k: " ".join(v.split()) for k, v in table.items()}
    return out


def cell_comments(source: str) -> dict[str, str]:
    """The comment of each assignment of a parameters cell: the one at the end of its line,
    else the comment lines right above it (a blank line or another assignment ends them)."""
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    lines = source.splitlines()
    out = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        text = comments.get(node.end_lineno)  # at the end of the assignment's (last) line
        if not text:
            above, k = [], node.lineno - 1
            while k >= 1 and lines[k - 1].lstrip().startswith("#"):
                above.insert(0, comments.get(k, ""))
                k -= 1
            text = " ".join(above)
        if text:
            out[node.targets[0].id] = text
    return out


def parameter_meanings(notebook: str, source: Path | None = None,
                       table: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, str]:
    """``{parameter: meaning}`` for every parameter of `notebook` ("" where none is written).

    `source` is the notebook file (default: the project's), `table` the meanings of
    :func:`load_meanings` (default: read them).
    """
    import nbformat

    from .notebooks import notebook_parameters, notebook_path

    source = source or notebook_path(notebook)
    table = load_meanings() if table is None else table
    nb = nbformat.read(source, as_version=4)
    cell = next((c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])), None)
    comments = cell_comments(cell.source) if cell is not None else {}
    written = table.get(notebook, {})
    return {name: written.get(name) or comments.get(name, "") for name in notebook_parameters(source)}


# --- the rerun box ----------------------------------------------------------------------

def _cli_value(value: Any) -> str:
    """`value` as ``-p NAME VALUE`` takes it (:func:`qtheory.presets.parse_value` reads it back),
    quoted for a POSIX shell."""
    from .presets import literal, parse_value

    if isinstance(value, str):
        text = value if parse_value(value) == value else repr(value)
    elif isinstance(value, (float, list, tuple)) and "/" in (fraction := literal(value)):
        text = fraction  # 7/12, [7/12, 0.25]: parse_value reads fractions back
    else:
        text = repr(value)
    return shlex.quote(text)


def rerun_command(notebook: str, preset: str = "paper", overrides: Mapping[str, Any] | None = None) -> str:
    """``python -m qtheory reproduce [--preset P] --only NOTEBOOK [-p NAME VALUE ...]``."""
    parts = ["python -m qtheory reproduce"]
    if preset != "paper":
        parts.append(f"--preset {preset}")
    parts.append(f"--only {notebook}")
    parts += [f"-p {name} {_cli_value(value)}" for name, value in (overrides or {}).items()]
    return " ".join(parts)


def type_name(default: Any) -> str:
    """What a value of a parameter with this paper `default` must be, as ``-p`` checks it
    (:func:`qtheory.presets.check_parameter`): ``integer``, ``list of numbers`` ..."""
    from .presets import _expected

    if default is None:
        return "any literal"
    return re.sub(r"^(a|an) ", "", _expected(default)[0]).replace("finite number", "number")


def _literal(value: Any) -> str:
    from .presets import literal

    return literal(value)


def _shown(value: Any) -> str:
    return "`" + _literal(value) + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rerun_box(notebook: str, meta: Mapping[str, Any], presets: Mapping[str, Mapping[str, Mapping[str, Any]]],
              meanings: Mapping[str, str], *, defaults: Mapping[str, Any] | None = None,
              repository: str | None = None, data_links: Mapping[str, str] | None = None) -> str:
    """MyST Markdown of the "Rerun this page" box of a result page.

    Parameters
    ----------
    notebook : str
        The notebook's name (``"L-F2"``), as ``--only`` takes it.
    meta : mapping
        The sidecar of the page's (first) result: ``preset``, ``overrides``, ``git_commit``.
    presets : mapping
        :func:`qtheory.presets.load_presets`: ``{preset: {notebook: {parameter: value}}}``.
    meanings : mapping
        ``{parameter: meaning}`` (:func:`parameter_meanings`).
    defaults : mapping, optional
        The notebook's defaults, i.e. the paper preset (default: read from its parameters cell).
    repository : str, optional
        The repository's URL (default: :func:`repository_url`); "" for none. With a commit in
        `meta`, the box links the notebook source and its presets at that commit.
    data_links : mapping, optional
        ``{file name: path relative to the page}`` of the run's data files.

    Returns
    -------
    str
        An admonition: the command for this page's values (its preset and overrides), the
        command for the paper preset, and one table row per parameter.
    """
    from .notebooks import notebook_parameters, notebook_path
    from .presets import PRESETS

    if defaults is None:
        defaults = notebook_parameters(notebook_path(notebook))
    preset = str(meta.get("preset") or "paper").removesuffix("+overrides")
    overrides = dict(meta.get("overrides") or {})
    this_run = rerun_command(notebook, preset, overrides)
    paper_run = rerun_command(notebook)
    if preset == "paper" and not overrides:
        lead = "This page was computed with the **paper** preset (the papers' own settings). To compute it again:"
    else:
        what = f"the **{preset}** preset" + (" with the values overridden below" if overrides else "")
        lead = f"This page was computed with {what}. To compute it again with the same values:"
    lines = [f"````{{admonition}} Rerun this page", f":class: {RERUN_CLASS}", "", lead, "",
             "```bash", this_run, "```", ""]
    if this_run != paper_run:
        lines += ["At the papers' own scale (the paper preset):", "", "```bash", paper_run, "```", ""]
    lines += ["Give any parameter below another value with `-p NAME VALUE` (repeatable; a Python literal "
              "of the parameter's type, e.g. `-p seed 7`); `--force` recomputes results that are up to "
              "date; `python -m qtheory book --no-run` then rebuilds the HTML.", ""]
    if overrides:
        lines += ["Overridden for this page: " + ", ".join(f"`{k} = {_literal(v)}`" for k, v in overrides.items())
                  + ".", ""]
    others = [p for p in PRESETS if p != "paper"]
    header = ["parameter", "meaning", "paper"] + others + ["type"]
    header = [f"{h} (this page)" if h == preset and not overrides else h for h in header]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, default in defaults.items():
        values = [_shown(presets.get(p, {}).get(notebook, {}).get(name, default)) for p in others]
        lines.append(f"| `{name}` | {_cell(meanings.get(name) or '')} | {_shown(default)} | "
                     + " | ".join(values) + f" | {type_name(default)} |")
    lines.append("")
    repository = repository_url() if repository is None else repository.strip().rstrip("/")
    commit = meta.get("git_commit")
    links = []
    if repository and commit:
        links.append(f"[the notebook]({repository}/blob/{commit}/notebooks/{notebook}.ipynb)")
        items = manifest.notebooks().get(notebook)
        if items:
            links.append(f"[its presets]({repository}/blob/{commit}/notebooks/presets/{items[0].paper}.toml)")
            links.append(f"[the package]({repository}/tree/{commit}/qtheory/{items[0].part})")
        lines += [f"Source at the commit of this run (`{commit[:10]}`): " + ", ".join(links) + ".", ""]
    if data_links:
        where = f" (commit `{commit[:10]}`)" if commit else ""
        lines += [f"Data files of this run{where}: "
                  + ", ".join(f"{{download}}`{name} <{path}>`" for name, path in data_links.items()) + ".", ""]
    lines.append("````")
    return "\n".join(lines) + "\n"


def book_url() -> str:
    """The online book's address, for the URLs of the pages' BibTeX: ``$QTHEORY_BOOK_URL``, else
    ``sphinx.config.html_baseurl`` of ``_config.yml``; "" when neither is set (the entries then
    carry the repository's address, if any)."""
    return (os.environ.get("QTHEORY_BOOK_URL") or str(_sphinx_config().get("html_baseurl") or "")).strip().rstrip("/")


def _sphinx_config() -> dict:
    """``sphinx.config`` of the project's ``_config.yml`` ({} without one or when it does not parse)."""
    path = project_root() / "_config.yml"
    if not path.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError:
        return {}
    return dict((data.get("sphinx") or {}).get("config") or {})


def repository_url() -> str:
    """The book's repository, as the book's buttons use it (:func:`qtheory._sphinx.repository`):
    ``$QTHEORY_REPOSITORY``, else ``sphinx.config.qtheory_repository`` of ``_config.yml``; ""
    when neither is set."""
    configured = str(_sphinx_config().get("qtheory_repository") or "")
    try:
        from ._sphinx import repository
    except ImportError:  # docutils is a book dependency, not the package's: same rule, inline
        return (os.environ.get("QTHEORY_REPOSITORY") or configured).strip().rstrip("/")
    return repository(SimpleNamespace(qtheory_repository=configured))


# --- the cite box of the other pages ----------------------------------------------------

def page_title(source: str) -> str | None:
    """The text of the first level-one heading (a line starting with a hash and a space) of a Markdown page (None if it has none)."""
    fence = None
    for line in source.splitlines():
        marker = re.match(r"^\s*(`{3,}|:{3,})", line)
        if marker:
            fence = None if fence and marker.group(1).startswith(fence) else (fence or marker.group(1))
            continue
        if fence is None and line.startswith("# "):
            return line[2:].strip()
    return None


def page_cite_box(docname: str, title: str, *, paper: str | None = None, url: str | None = None) -> str:
    """MyST Markdown of the "Cite this" box of a page that shows no result: the book
    (CITATION.cff, at the checkout's commit), the page (key ``qtheory-companion:<docname>``)
    and, on a page of a paper's part, that paper (:func:`qtheory.citation.page_box`)."""
    from .citation import page_box

    return page_box(docname, title, paper=paper, url=url)


def paper_of_page(docname: str) -> str | None:
    """The paper whose part holds the page `docname` (``book/locality/...`` -> ``"L"``)."""
    folder = docname.split("/")[1] if docname.startswith("book/") and docname.count("/") >= 2 else None
    return next((key for key, part in manifest.PARTS.items() if part == folder), None) if folder else None
