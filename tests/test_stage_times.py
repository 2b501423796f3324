"""The record of CI's stage times (benchmarks/stages.py, issue 51): stages read from a .ci/run output,
per-directory test seconds written by the suite's own hook, notebook times from run records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import stages  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_each_stage_lasts_from_the_end_of_the_one_before():
    log = "\n".join(["ci: installing ...", "ci: tests finished after 240 s", "noise: after 9 s",
                     "ci: quick book built after 600 s", "ci: notebook sweep finished after 800 s",
                     "ci: browser check finished after 1100 s"])
    got = stages.stages_from_log(log)
    assert [s["stage"] for s in got] == ["tests", "quick book", "notebook sweep", "browser check"]
    assert [s["seconds"] for s in got] == [240, 360, 200, 300]
    assert got[-1]["ended_after"] == 1100


def test_the_ci_script_prints_a_line_the_report_reads_after_every_stage():
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    echoed = [line for line in text.splitlines() if line.startswith('echo "ci: ') and "after" in line]
    fake = "\n".join(line.split('"')[1].replace("$((SECONDS - start))", str(10 * (n + 1)))
                     for n, line in enumerate(echoed))
    assert len(stages.stages_from_log(fake)) == len(echoed) >= 4


def test_notebook_times_come_from_the_run_records_longest_first(tmp_path):
    for name, seconds in (("L-F1", 12.5), ("R-V", 80.0)):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.json").write_text(json.dumps({"notebook": name, "wall_time_s": seconds,
                                                                  "preset": "quick"}))
    (tmp_path / "R-V" / "other.json").write_text("[1, 2]")
    assert [(r["notebook"], r["seconds"]) for r in stages.notebook_times(tmp_path)] == [("R-V", 80.0), ("L-F1", 12.5)]


def test_the_suite_writes_its_seconds_per_directory_when_asked(tmp_path):
    env = dict(os.environ, QTHEORY_TEST_TIMES=str(tmp_path))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    "tests/test_rng.py", "tests/locality/test_locality_model.py"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    data = json.loads((tmp_path / "tests.json").read_text())
    assert set(data["directories"]) == {"tests", "tests/locality"}
    assert all(v["tests"] > 0 and v["seconds"] > 0 for v in data["directories"].values())
