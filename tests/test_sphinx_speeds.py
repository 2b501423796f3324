"""The speeds the overview pages quote are read from the measurement file at build time
(issue 41): no page but the performance page types a speed by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qtheory import _sphinx
from qtheory.display import number

ROOT = Path(__file__).resolve().parents[1]


def _measurements(tmp_path, numba_speed=12_345_678.0):
    cases = {case: {"name": f"X case {case}", "results": {"numba": {"best_events_per_cpu_second": numba_speed},
                                                         "c": {"best_events_per_cpu_second": 1.0}}}
             for _, case in _sphinx.SPEED_CASES}
    cases["local_jsqd"]["name"] = "L local JSQ(2), irg(p¹), N = 1000"
    path = tmp_path / "independent.json"
    path.write_text(json.dumps({"environment": {"commit": "0123456789abcdef", "date": "2026-12-05 15:31 UTC"},
                                "cases": cases}), encoding="utf-8")
    return path


def test_the_speeds_are_the_numba_kernels_best_runs_in_millions_with_their_commit(tmp_path):
    subs = _sphinx.measured_speeds(_measurements(tmp_path))
    for key, _ in _sphinx.SPEED_CASES:
        assert subs[key] == "12.3"
    assert subs["speed_l_case"] == "local JSQ(2), irg(p¹), N = 1000"     # the paper's letter dropped
    assert subs["speed_commit"] == "0123456" and subs["speed_date"] == "2026-12-05"


def test_a_missing_or_incomplete_measurement_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(RuntimeError, match="independent.json"):
        _sphinx.measured_speeds(tmp_path / "independent.json")
    path = _measurements(tmp_path)
    data = json.loads(path.read_text())
    del data["cases"]["jlmu"]
    path.write_text(json.dumps(data))
    with pytest.raises(RuntimeError, match="KeyError: 'jlmu'"):
        _sphinx.measured_speeds(path)


def test_the_committed_measurements_give_every_speed():
    subs = _sphinx.measured_speeds(ROOT / "benchmarks" / "latest" / "independent.json")
    data = json.loads((ROOT / "benchmarks" / "latest" / "independent.json").read_text())
    speed = data["cases"]["local_jsqd"]["results"]["numba"]["best_events_per_cpu_second"]
    assert subs["speed_l"] == number(speed / 1e6)


#: a speed typed in prose: a number before "events per second" or "events/s"
TYPED_SPEED = re.compile(r"\d[\d.,]*(?:\s*(?:to|-|–)\s*[\d.,]+)?\s*(?:million\s+)?events(?:\s+per\s+second|/s)")


def test_no_page_but_the_performance_page_types_a_speed():
    assert TYPED_SPEED.search("at 11 to 12 million events per second") and TYPED_SPEED.search("5.9-7.1 events/s")
    typed = {str(p.relative_to(ROOT)): m.group(0) for p in (ROOT / "book").rglob("*.md")
             if p.name != "performance.md" for m in [TYPED_SPEED.search(p.read_text(encoding="utf-8"))] if m}
    assert typed == {}
    pages = [ROOT / "book" / part / "index.md" for part in ("locality", "redundancy", "utility")]
    assert all(f"{{{{ {key} }}}}" in page.read_text(encoding="utf-8") for page, (key, _) in zip(pages, _sphinx.SPEED_CASES))
