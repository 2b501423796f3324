"""Every result figure says what it plots: each ``save_figure`` call of a notebook passes a
``caption`` (built from the notebook's parameters), so that no figure is captioned with the
bare manifest title. Static check of the notebook sources (no build needed)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: notebooks whose figures are still captioned with the manifest title (issue 16); shrink it
CAPTIONS_LEFT: set[str] = set()


def save_figure_calls(path: Path) -> list[ast.Call]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    tree = ast.parse(source)
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "save_figure"]


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(reason="captions left (issue 16)", strict=False))
                                  if p.stem in CAPTIONS_LEFT else p for p in NOTEBOOKS], ids=lambda p: p.stem)
def test_every_saved_figure_has_a_caption_of_its_own(path):
    calls = save_figure_calls(path)
    bare = [n.lineno for n in calls
            if not any(k.arg == "caption" for k in n.keywords)]
    assert not bare, f"{path.stem}: save_figure without caption= (code lines {bare} of the joined cells)"


def test_the_check_finds_a_call_without_caption(tmp_path):
    nb = {"cells": [{"cell_type": "code", "source": ["rec.save_figure(fig)\n", "rec.save_figure(fig, caption='x')"]}]}
    path = tmp_path / "X.ipynb"
    path.write_text(json.dumps(nb))
    calls = save_figure_calls(path)
    assert [any(k.arg == "caption" for k in c.keywords) for c in calls] == [False, True]
