"""Every notebook is thin, parameterised and stored without outputs."""

import json

import pytest

from qtheory import manifest, reproduce

NOTEBOOKS = sorted(p for p in reproduce.notebooks_dir().glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_has_parameters_cell_seed_and_no_outputs(path):
    nb = json.loads(path.read_text())
    params = reproduce.notebook_parameters(path)
    assert path.stem in manifest.notebooks(), "a notebook must produce manifest items"
    assert "seed" in params, "every notebook records a seed parameter"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None, "stored outputs"


def test_every_item_whose_notebook_exists_is_written_by_it():
    for path in NOTEBOOKS:
        text = path.read_text()
        for item in manifest.notebooks()[path.stem]:
            assert item.id in text, f"{path.name} never mentions {item.id}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_name_a_notebook_imports_from_qtheory_exists(path):
    """A moved or renamed function fails here, not after minutes of a book build."""
    import ast
    import importlib

    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:         # IPython magics: not used by our notebooks
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("qtheory"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):     # a submodule: `from pkg import mod`
                        importlib.import_module(f"{node.module}.{alias.name}")


# The parameters cell is shown open on the page: at the book's column width (688 px of
# 14 px monospace) about 76 characters fit before the cell scrolls sideways.
PARAMETER_LINE_CHARS = 76


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_parameters_cell_fits_the_text_column(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            long = [line for line in "".join(cell["source"]).splitlines() if len(line) > PARAMETER_LINE_CHARS]
            assert not long, f"{path.name}: parameter lines wider than the column: {long}"
