"""The performance page's tables (benchmarks/report.py) write numbers as the book does."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import report  # noqa: E402


def test_a_z_score_that_rounds_to_zero_is_never_negative_zero():
    assert report._z(-0.04) == "0.0" and report._z(0.04) == "0.0"
    assert report._z(-1.04) == "\u22121.0" and report._z(1.5) == "1.5"


def test_the_peers_table_gives_each_statistic_with_its_standard_error_and_no_negative_zero():
    result = dict(ratio_numba_over=5338.0, best_events_per_second=2980.0, statistic=1.29012,
                  statistic_se=0.0189, z_vs_numba=-0.03, z_vs_exact=-0.02)
    data = {"environment": {}, "repeats": 4,
            "cases": {"gwsq": {"name": "GWSQ(2)", "statistic": "mean queue length", "results": {"ciw": result},
                               "exact": 1.29}}}
    table = report.peers_section(data)
    assert "| `gwsq` | Ciw | 2.98 k | 5338x | 1.290 ± 0.019 | 0.0 |" in table
    assert "vs exact: Ciw 0.0" in table
    assert not re.search(r"(?<![\w.])[-\u2212]0\.0(?!\d)", table)


def test_the_summary_puts_each_model_on_one_row_and_counts_the_goals_met():
    def run(ratios):
        return {"cases": {k: {"ratio_c_over_numba_cpu_median": r, "ratio_c_over_numba_median": r}
                          for k, r in ratios.items()}}

    indep = run({"supermarket": 2.0, "jlmu": 1.25})           # 1.25 itself meets "<= 1.25"
    port = run({"supermarket": 0.9, "jlmu": 1.3})
    lines = report._c_table(port, indep, {"independent": None, "c": run({"supermarket": 1.1})})
    text = "\n".join(lines)
    assert "independent C loops in 1 of 2 models, by the ports of the kernels in 1 of 2" in text
    assert "| L JSQ(2) supermarket | 2.00 ✗, N = 1000 | 0.90 ✓ (before: 1.10), N = 100 |" in lines
    assert "| U JLMU | 1.25 ✓, n = 100 | 1.30 ✗, n = 100 |" in lines
    assert not any(line.startswith("| R ") for line in lines)  # models without a run are left out


def test_the_rerun_goal_names_every_notebook_over_30_s_and_is_met_only_without_one():
    def rerun(seconds):
        return {"environment": {}, "notebooks": [{"notebook": k, "seconds": s, "processor_seconds": 2 * s}
                                                 for k, s in seconds.items()]}

    def goal_row(data):
        return next(line for line in report.summary_section(None, None, None, None, data).splitlines()
                    if "any figure rerun" in line)

    over = goal_row(rerun({"U-T1": 31.0, "L-F1": 9.0, "R-T1": 30.0}))   # 30 s itself meets "<= 30 s"
    assert "| 2 of 3 notebooks; longest U-T1 31 s | - | no: U-T1 31 s |" in over
    assert goal_row(rerun({"R-T1": 30.0, "L-F1": 9.0})).endswith("| yes |")
    section = report.rerun_section(rerun({"L-F1": 9.0, "U-T1": 31.0}))
    assert section.index("| U-T1 | 31.0 | 62.0 |") < section.index("| L-F1 | 9.0 | 18.0 |")   # longest first
    assert report.rerun_section(None) == ""
