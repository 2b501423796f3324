"""Every published figure is legible (issue 29): tick labels of at least 10 px at the column
width, no overlapping text, every labelled series visible, and the caption's interval wording
equal to what the figure draws. :meth:`qtheory.results.ResultWriter.save_figure` runs
:func:`qtheory.plotting.figure_problems` on each figure as it is saved and records what it finds
in the result's sidecar; this reads the sidecars of the build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qtheory import manifest

#: figures still to redraw (issue 29), found by the marker check of plotting.series_visibility
#: at the quick preset. Strict: a fixed one must leave.
FIGURES_LEFT: set[str] = set()


@pytest.mark.parametrize("item", [pytest.param(i, marks=pytest.mark.xfail(reason="figure to redraw (issue 29)",
                                                                        strict=True))
                                  if i in FIGURES_LEFT else i for i in sorted(manifest.ITEMS)])
def test_every_figure_of_the_build_is_legible(item, book_html):
    path = book_html.resolve().parents[1] / "results" / item / f"{item}.json"
    if not path.exists():
        pytest.skip(f"{item} was not computed in this build")
    problems = json.loads(path.read_text(encoding="utf-8")).get("figure_problems", {})
    assert not problems, f"{item}: " + "; ".join(f"{png}: {', '.join(p)}" for png, p in problems.items())
