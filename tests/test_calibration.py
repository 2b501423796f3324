"""benchmarks/verdicts/calibrate.py: which labels of a results folder are false (an identity labelled
"fails" / "differs"), how the page-runs with one are counted against the familywise level, and the
report and exit status of the command (no notebook runs: results folders and runs are built here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from qtheory.claims import Claim

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "verdicts" / "calibrate.py"


@pytest.fixture(scope="module")
def calibrate():
    spec = importlib.util.spec_from_file_location("qtheory_calibrate_tool", PATH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def write_results(root: Path, records: list[Claim]) -> Path:
    """A results folder as a notebook leaves it: one JSON sidecar per item with its records."""
    items: dict[str, list] = {}
    for c in records:
        items.setdefault(c.item, []).append(c.to_json())
    for item, claims in items.items():
        (root / item).mkdir(parents=True, exist_ok=True)
        (root / item / f"{item}.json").write_text(json.dumps({"id": item, "claims": claims}), encoding="utf-8")
    return root


def poisson_mean(policy: str, ours: float) -> Claim:
    return Claim(item="U-X-poisson", text=f"$E[n s_n] = n\\rho$ under {policy}", paper=195.0, ours=ours, ours_se=0.3,
                 ours_df=9, source="Sec. 2.1")


#: U-V's records: an identity that holds, an identity designed to fail (the paper claim
#: E[n s_n] = n rho, true by construction, 150 standard errors off), an internal check that holds,
#: a paper theorem that "differs" (not an identity: not counted) and a check no list names
U_V_RECORDS = [
    poisson_mean("jsq", 195.1),
    poisson_mean("random", 150.0),
    Claim(item="U-V-thm1", category="check", text=r"random assignment: $E[u(q_n)] = \sum_i \alpha(i) E[u_i]$",
          ours=8.47, ours_se=0.005, ours_df=9, reference=8.472),
    Claim(item="U-V-thm3", text="Theorem 3: two solvers of the fluid model (12) converge to one trajectory",
          holds=False, source="Theorem 3"),
    Claim(item="U-V-thm4", category="check", text="a check of our own that no table names", holds=True),
]


def test_an_identity_labelled_differs_is_false_and_a_paper_theorem_labelled_differs_is_not(calibrate, tmp_path):
    pages = calibrate.judge_folder(write_results(tmp_path, U_V_RECORDS))
    assert list(pages) == ["U-V"]
    page = pages["U-V"]
    labels = {r.text: r for r in page.records}
    assert labels["$E[n s_n] = n\\rho$ under random"].label == "differs"
    assert [r.text for r in page.false] == ["$E[n s_n] = n\\rho$ under random"]
    assert labels["Theorem 3: two solvers of the fluid model (12) converge to one trajectory"].label == "differs"
    assert not labels["Theorem 3: two solvers of the fluid model (12) converge to one trajectory"].false
    assert sorted(r.item for r in page.identities) == ["U-V-thm1", "U-X-poisson", "U-X-poisson"]
    assert page.unclassified == ("U-V-thm4: a check of our own that no table names",)


def test_a_check_named_as_not_an_identity_is_neither_counted_nor_unclassified(calibrate, tmp_path):
    records = [Claim(item="U-R-jlmud", category="check", holds=False, evidence="25 (n, policy) pairs",
                     text="every estimate of $E[u(q_n)]$ is below $u(q_n^*)$ up to its 95% CI (Theorem 1 holds for any "
                          "policy)"),
               Claim(item="U-R-jlmud", category="check", holds=False,
                     text="the mean utility of JLMU($d$) does not decrease in $d$ (up to the 95% CIs)")]
    page = calibrate.judge_folder(write_results(tmp_path, records))["U-R-jlmud"]
    assert [r.label for r in page.records] == ["fails", "fails"]
    assert [r.text for r in page.false] == [records[0].text]
    assert page.unclassified == ()


def test_a_statement_judged_by_one_test_keeps_its_p_value_and_a_qualitative_one_has_none(calibrate, tmp_path):
    records = [Claim(item="L-P-jsqd", category="check", p_value=0.3, resolved=True, evidence="Sign-flip test.",
                     text=r"local JSQ($d$) simulator vs exact Markov chain of a tiny graph (18 stationary $q_{m,\ell}$)"),
               Claim(item="L-P-jsqd", category="check", holds=True, evidence="off by 23 standard errors",
                     text="the simulator samples $d$ distinct neighbours (Sec. 2.2): the chain with picks drawn with "
                          "replacement is rejected")]
    page = calibrate.judge_folder(write_results(tmp_path, records))["L-F1"]
    assert [(r.label, r.p, bool(r.identity)) for r in page.records] == [("holds", 0.3, True), ("holds", None, True)]


def test_identities_that_hold_give_no_false_label(calibrate, tmp_path):
    records = [c for c in U_V_RECORDS if "random" not in c.text or c.category == "check"]
    page = calibrate.judge_folder(write_results(tmp_path, records))["U-V"]
    assert page.false == [] and len(page.identities) == 2


def test_a_failing_check_of_an_exact_chain_and_its_familys_joint_tests_are_false(calibrate, tmp_path):
    family = "tiny graph: simulation against the exact chain"

    def tiny(m: int, ours: float) -> Claim:
        return Claim(item="L-R-memory", category="check", ours=ours, ours_se=0.002, ours_df=5, reference=0.40,
                     text=f"tiny graph, JSQ(2) with memory: mean queue length of type {m}, simulated against the exact "
                          "chain of the policy's own reading", family=family)

    page = calibrate.judge_folder(write_results(tmp_path, [tiny(1, 0.401), tiny(2, 0.30)]))["L-R-memory"]
    assert [r.label for r in page.records] == ["holds", "fails", "differs", "differs"]
    assert [r.key for r in page.false] == [
        "L-R-memory: tiny graph, JSQ(#) with memory: mean queue length of type #, simulated against the exact chain "
        "of the policy's own reading [2]", f"joint Stouffer: {family}", f"joint chi-square: {family}"]


def test_a_joint_test_of_a_family_with_a_row_of_unknown_truth_is_not_an_identity(calibrate, tmp_path):
    family = "a family with a paper's printed value"
    records = [Claim(item="U-X-poisson", text="$E[n s_n] = n\\rho$ under jsq", paper=195.0, ours=150.0, ours_se=0.3,
                     ours_df=9, family=family, source="Sec. 2.1"),
               Claim(item="U-V-thm5", text="a printed value", paper=1.0, ours=0.5, ours_se=0.001, ours_df=9,
                     family=family, source="Sec. 5")]
    page = calibrate.judge_folder(write_results(tmp_path, records))["U-V"]
    joint = [r for r in page.records if r.category == "joint"]
    assert [r.label for r in joint] == ["differs", "differs"] and not any(r.false for r in joint)
    assert [r.item for r in page.false] == ["U-X-poisson"]


def test_the_count_of_page_runs_with_a_false_label_is_judged_against_the_familywise_level(calibrate):
    none = calibrate.consistency(0, 140, level=0.01)
    assert none["allowed"] == 4 and none["expected"] == 1.4 and not none["exceeds"] and none["p_value"] == 1.0
    one = calibrate.consistency(1, 100, level=0.01)
    assert one["p_value"] == pytest.approx(1 - 0.99 ** 100, abs=1e-5) and not one["exceeds"]
    many = calibrate.consistency(5, 140, level=0.01)
    assert many["exceeds"] and many["p_value"] < 0.05 and many["rate_upper"] > 5 / 140


def test_seeds_read_default_and_ranges(calibrate):
    assert calibrate.parse_seeds("default,1-3,7") == ["default", 1, 2, 3, 7]


def fake_run(calibrate, false_at: set, tmp_path: Path):
    """A stand-in for :func:`run_page`: U-V's records, the identity off at the seeds `false_at`."""
    calls = []

    def run_page(page, preset, seed, *, timeout, workers=None):
        calls.append((page, preset, seed))
        folder = tmp_path / f"{page}-{preset}-{seed}"
        off = seed in false_at   # two identities off at once: still one page-run with a false label
        records = [poisson_mean("jsq", 150.0 if off else 195.1), poisson_mean("random", 150.0 if off else 195.0)]
        labels = calibrate.judge_folder(write_results(folder, records))["U-V"]
        return dict(outcome="ran", seconds=1.0, message="", labels=labels)

    return run_page, calls


def test_the_report_counts_false_labels_per_record_and_fails_on_one_at_the_default_seed(calibrate, tmp_path,
                                                                                        monkeypatch):
    default = calibrate.default_seed("U-V", "quick")
    run_page, calls = fake_run(calibrate, {default}, tmp_path)
    monkeypatch.setattr(calibrate, "run_page", run_page)
    out = tmp_path / "calibration"
    status = calibrate.main(["--only", "U-V", "--presets", "quick", "--seeds", "default,1-99", "--out", str(out)])
    # 1 of 100 page-runs is within what the level allows: the status is 1 for the default seed's
    assert status == 1 and calls == [("U-V", "quick", default)] + [("U-V", "quick", s) for s in range(1, 100)]
    report = json.loads(out.with_suffix(".json").read_text())
    s = report["summary"]
    assert s["default_false"] == [f"U-V quick seed {default}"] and not s["total"]["exceeds"]
    assert s["total"]["count"] == 1 and s["total"]["runs"] == 100
    assert s["pages"]["U-V quick"]["default_false"] == 1 and s["pages"]["U-V quick"]["with_false"] == 1
    records = s["pages"]["U-V quick"]["records"]
    assert sorted((r["text"], r["false"]) for r in records.values()) == [
        ("$E[n s_n] = n\\rho$ under jsq", 1), ("$E[n s_n] = n\\rho$ under random", 1)]
    md = out.with_suffix(".md").read_text()
    assert "**1 of 100 page-runs have a false label**" in md
    assert f"False labels at a page's default seed: U-V quick seed {default}." in md


def test_one_false_label_in_a_hundred_runs_passes_and_resume_runs_only_the_missing_seeds(calibrate, tmp_path,
                                                                                           monkeypatch):
    run_page, calls = fake_run(calibrate, {2}, tmp_path)
    monkeypatch.setattr(calibrate, "run_page", run_page)
    out = tmp_path / "calibration"
    argv = ["--only", "U-V", "--presets", "quick", "--seeds", "default,1-99", "--out", str(out), "--jobs", "2"]
    assert calibrate.main(argv) == 0          # 1 of 100 runs: within what the level allows at 95% (3)
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["summary"]["total"] == calibrate.consistency(1, 100) and report["summary"]["default_false"] == []
    assert report["summary"]["pages"]["U-V quick"]["default_false"] == 0
    report["runs"] = [r for r in report["runs"] if r["default"]]   # as if interrupted after the default seed's run
    out.with_suffix(".json").write_text(json.dumps(report))
    calls.clear()
    assert calibrate.main(argv + ["--resume"]) == 0
    assert sorted(calls) == [("U-V", "quick", s) for s in range(1, 100)]
    assert json.loads(out.with_suffix(".json").read_text())["summary"]["total"]["count"] == 1
