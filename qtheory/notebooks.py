"""Where the notebooks are, where their executed copies go, and their parameter cells.

A notebook's cell tagged ``parameters`` holds its defaults, which are the paper's own
settings (the ``paper`` preset, :mod:`qtheory.presets`). The executed copy of a notebook
is the page the book renders (:func:`executed_path`).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from . import manifest
from .errors import ParameterError
from .results import project_root

KERNEL = "python3"


def notebooks_dir() -> Path:
    """``<project>/notebooks``; in an installed wheel without one, the copy it ships.

    The wheel carries the notebooks and presets as ``qtheory/_data/notebooks`` (see
    ``setup.py``); a checkout, the editable install, or a folder named by
    ``$QTHEORY_PROJECT`` uses its own ``notebooks/``.
    """
    own = project_root() / "notebooks"
    shipped = Path(__file__).resolve().parent / "_data" / "notebooks"
    return shipped if not own.is_dir() and shipped.is_dir() else own


def notebook_path(name: str) -> Path:
    return notebooks_dir() / f"{name}.ipynb"


def executed_path(name: str, results: Path | None = None) -> Path:
    """Where the executed copy of notebook `name` goes.

    For the project's own results folder that is the book (``book/<part>/``); for any
    other results folder (``--results-dir``) it is ``<results>/_executed/<part>/``, so
    that a side run never replaces what the book shows.
    """
    items = manifest.notebooks().get(name)
    if not items:
        raise ParameterError(f"notebook {name!r} produces no manifest item")
    default = project_root() / "results"
    if results is not None and Path(results).resolve() != default.resolve():
        return Path(results) / "_executed" / items[0].part / f"{name}.ipynb"
    return project_root() / "book" / items[0].part / f"{name}.ipynb"


def notebook_parameters(path: Path) -> dict[str, Any]:
    """Defaults of the cell tagged ``parameters`` of the notebook at `path`."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return _literal_assignments(cell.source, path)
    raise ParameterError(f"{path.name} has no cell tagged 'parameters'")


def _literal_assignments(source: str, path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise ParameterError(f"{path.name}: parameter {node.targets[0].id} must be a literal") from None
    return out
