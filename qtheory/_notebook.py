"""Write notebooks from plain cell sources (a developer helper, not used at run time).

>>> write_notebook("notebooks/X.ipynb", [
...     ("md", "# Title"),
...     ("parameters", "seed = 1\\nn_runs = 100"),
...     ("code", "import qtheory"),
... ])

Cells of kind ``"parameters"`` are code cells tagged ``parameters`` (papermill's
injection point); ``"hidden"`` cells are code cells tagged ``remove-input``.
Notebooks are written without outputs.
"""

from __future__ import annotations

from pathlib import Path

import nbformat


def write_notebook(path, cells, *, title_metadata: dict | None = None) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    if title_metadata:
        nb.metadata["qtheory"] = title_metadata
    for kind, source in cells:
        source = source.strip("\n")
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(source))
        elif kind == "code":
            nb.cells.append(nbformat.v4.new_code_cell(source))
        elif kind == "parameters":
            nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]}))
        elif kind == "hidden":
            nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-input"]}))
        else:
            raise ValueError(f"unknown cell kind {kind!r}")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path
