"""A notebook is a recipe: parameters, one call per item, the figure drawn from the returned
rows, the result published. Verdicts and comparisons live in tested package functions
(``qtheory/<paper>/items/``), never only in a notebook (issue 28)."""

import io
import json
import tokenize

import pytest

from qtheory import reproduce

NOTEBOOKS = sorted(p for p in reproduce.notebooks_dir().glob("*.ipynb"))

#: most non-comment code lines a notebook may hold, and all notebooks together
MAX_LINES = 60
MAX_TOTAL = 1000
#: tokens of a judgement: comparison operators and the names of verdicts and claims
COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}
VERDICT_NAMES = {"holds", "verdict", "claim", "passes", "judge"}

def code_lines(path) -> list[str]:
    """The non-blank, non-comment lines of a notebook's code cells."""
    nb = json.loads(path.read_text())
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            if line.strip() and not line.strip().startswith("#"):
                out.append(line)
    return out


def judgement_tokens(source: str) -> list[str]:
    """Comparison operators and verdict names in Python `source` (strings and comments excluded)."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.OP and tok.string in COMPARISONS:
            found.append(f"{tok.string!r} at line {tok.start[0]}")
        elif tok.type == tokenize.NAME and tok.string in VERDICT_NAMES:
            found.append(f"{tok.string!r} at line {tok.start[0]}")
    return found


def problems(path) -> list[str]:
    out = []
    lines = code_lines(path)
    if len(lines) > MAX_LINES:
        out.append(f"{len(lines)} code lines (at most {MAX_LINES})")
    nb = json.loads(path.read_text())
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            out += [f"cell {k}: {t}" for t in judgement_tokens("".join(cell["source"]))]
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_a_recipe_without_judgements(path):
    found = problems(path)
    assert not found, f"{path.stem}: " + "; ".join(found)


def test_all_notebooks_together_stay_short():
    total = sum(len(code_lines(p)) for p in NOTEBOOKS)
    assert total < MAX_TOTAL, f"{total} code lines in the notebooks (fewer than {MAX_TOTAL})"


def test_the_judgement_scan_finds_comparisons_and_verdicts_but_not_strings():
    assert judgement_tokens("x = a < b\n") == ["'<' at line 1"]
    assert judgement_tokens("rec.claim('t', holds=True)\n") == ["'claim' at line 1", "'holds' at line 1"]
    assert judgement_tokens("s = 'a <= b == c'  # x > y\n") == []
    assert judgement_tokens("f(n=3, k=(1, 2))\n") == []
