"""The overview pages quote the speeds of the measurement file, substituted at build time
(issue 41): every substitution is filled in, inside code spans too none is left literal."""

from __future__ import annotations

import json
import re
from pathlib import Path

from qtheory import _sphinx

ROOT = Path(__file__).resolve().parents[2]


def test_the_overview_pages_show_the_measured_speeds_and_no_literal_substitution(book_html):
    subs = _sphinx.measured_speeds(ROOT / "benchmarks" / "latest" / "independent.json")
    def words(page):   # the text a reader sees: tags (a code span splits "{{", the name, "}}") removed
        return " ".join(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8", errors="replace")).split())

    leftover = [str(p.relative_to(book_html)) for p in sorted(book_html.rglob("*.html")) if "{{ speed" in words(p)]
    assert leftover == []
    for part, key in (("locality", "speed_l"), ("redundancy", "speed_r"), ("utility", "speed_u")):
        text = (book_html / "book" / part / "index.html").read_text(encoding="utf-8")
        assert f"{subs[key]} million events per second" in " ".join(text.split())
        assert subs["speed_commit"] in text
    data = json.loads((ROOT / "benchmarks" / "latest" / "independent.json").read_text())
    assert subs["speed_commit"] == str(data["environment"]["commit"])[:7]
