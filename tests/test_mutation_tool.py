"""tools/mutation.py on a toy module and a toy test: one mutant killed, one surviving."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location("qtheory_mutation_tool",
                                                  ROOT / "tools" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


TOY = '''"""A toy rule."""


def positive(x: int) -> bool:
    """True for x > 0."""
    return x > 0 and not x == 7
'''

TOY_TEST = '''from toy import positive


def test_positive():
    assert positive(1)
    assert not positive(-1)
'''


def _ids(found):
    return [m.id for m, _ in found]


def test_mutants_are_listed_by_operator_in_source_order(mutation):
    found = mutation.mutants(TOY)
    by_id = {m.id: (m.before, m.after) for m, _ in found}
    assert by_id["6:11:cmp:0"] == ("x > 0", "x >= 0")
    assert by_id["6:15:const:0"] == ("0", "1")
    assert by_id["6:11:bool:0"][1] == "x > 0 or not x == 7"
    assert by_id["6:11:drop:1"][1] == "x > 0"
    assert by_id["6:21:not:0"][1] == "x == 7"
    assert by_id["6:25:cmp:0"][1] == "x != 7"
    # docstrings and annotations are never mutated; the order is deterministic
    assert all(m.line == 6 for m, _ in found)
    assert _ids(found) == _ids(mutation.mutants(TOY))
    assert [(m.line, m.col) for m, _ in found] == sorted((m.line, m.col) for m, _ in found)
    # every mutant is valid Python that differs from the original
    for m, text in found:
        compile(text, "toy.py", "exec")
        assert m.before != m.after


def test_nested_nodes_at_one_place_get_distinct_ids(mutation):
    found = mutation.mutants("def f(a, b, c):\n    return a * b * c\n")
    ids = [m.id for m, _ in found]
    assert len(ids) == len(set(ids))
    by_id = {m.id: m.after for m, _ in found}
    assert by_id["2:11:arith:0"] == "a * b / c" and by_id["2:11:arith:0.2"] == "a / b"


def test_sampling_is_seeded_and_keeps_source_order(mutation):
    found = mutation.mutants(TOY)
    a = mutation.select(found, 3, seed=1)
    assert _ids(a) == _ids(mutation.select(found, 3, seed=1))
    assert len(a) == 3 and _ids(a) == [i for i in _ids(found) if i in set(_ids(a))]
    assert len(mutation.select(found, None, seed=1)) == len(found)


def test_harness_kills_one_mutant_and_reports_the_survivor(mutation, tmp_path):
    (tmp_path / "toy.py").write_text(TOY)
    (tmp_path / "test_toy.py").write_text(TOY_TEST)
    report = mutation.run("toy.py", ["test_toy.py"], root=tmp_path, timeout=60,
                          only=["6:15:const:0", "6:11:cmp:0"],
                          equivalent={"6:11:cmp:0": "not equivalent, but nothing tests x = 0"},
                          log=lambda *a: None)
    status = {m["id"]: m["status"] for m in report["mutants"]}
    # x > 1 makes positive(1) False: killed; x >= 0 differs only at 0, never tested: survives
    assert status == {"6:15:const:0": "killed", "6:11:cmp:0": "survived"}
    assert report["killed"] == 1 and report["survived"] == 1 and report["equivalent"] == 1
    assert report["score"] == 1.0
    assert report["timeout"] == 0 and report["timeout_seconds"] == 60  # count, and the limit
    table = mutation.summary([report])
    assert "| `toy.py` | `test_toy.py` | 2/8 | 1 | 0 | 1 | 1 | 0 | 1.00 |" in table
    assert "`6:11:cmp:0`: `x > 0` -> `x >= 0` (equivalent:" in table
    # the original file is untouched
    assert (tmp_path / "toy.py").read_text() == TOY


def test_equivalent_ids_moved_by_an_edit_are_reported_stale(mutation, tmp_path):
    found = mutation.mutants(TOY)
    assert mutation.stale_equivalents(found, {"6:11:cmp:0": "x", "5:11:cmp:0": "y"}) == ["5:11:cmp:0"]
    moved = mutation.mutants(TOY.replace('"""A toy rule."""', '"""A toy rule."""\nimport os'))
    assert mutation.stale_equivalents(moved, {"6:11:cmp:0": "x"}) == ["6:11:cmp:0"]
    (tmp_path / "toy.py").write_text(TOY)
    (tmp_path / "test_toy.py").write_text(TOY_TEST)
    logged = []
    # one mutant is enough to reach the report (the warning is written before any runs)
    report = mutation.run("toy.py", ["test_toy.py"], root=tmp_path, timeout=60, only=["6:11:cmp:0"],
                          equivalent={"9:1:cmp:0": "gone"}, log=logged.append)
    assert report["equivalent_stale"] == ["9:1:cmp:0"]
    assert any("9:1:cmp:0" in line and "warning" in line for line in logged)


def test_harness_refuses_a_failing_baseline(mutation, tmp_path):
    (tmp_path / "toy.py").write_text(TOY.replace("x > 0", "x < 0"))
    (tmp_path / "test_toy.py").write_text(TOY_TEST)
    with pytest.raises(RuntimeError, match="unmutated"):
        mutation.run("toy.py", ["test_toy.py"], root=tmp_path, timeout=60, only=[],
                     log=lambda *a: None)


def test_summary_skips_files_that_are_not_reports(mutation, tmp_path, capsys):
    import json

    report = dict(module="m.py", tests=["t.py"], mutants_run=1, mutants_total=1, killed=1, timeout=0,
                  survived=0, equivalent=0, error=0, score=1.0, mutants=[])
    (tmp_path / "r.json").write_text(json.dumps(report))
    (tmp_path / "equivalent.json").write_text(json.dumps({"m.py": {}}))
    assert mutation.main(["summary", str(tmp_path / "equivalent.json"), str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr()
    assert "| `m.py` |" in out.out and "1.00" in out.out
    assert "skipping" in out.err and "equivalent.json" in out.err


def test_every_test_the_mutation_reports_ran_is_part_of_make_test():
    """A mutant a report lists as killed stays killed by `make test` only if the tests that killed it
    still run there (issue 51 moved tests/sweep out of it): every test file a report names exists,
    and none is in a folder `make test` leaves out (tests/sweep, tests/book without a built book)."""
    import json

    named = set()
    for report in (ROOT / "benchmarks" / "mutation").glob("*.json"):
        data = json.loads(report.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "tests" in data:
            named.update(t.split("::")[0] for t in data["tests"])
    assert len(named) > 20
    missing = sorted(t for t in named if not (ROOT / t).is_file())
    assert not missing, f"test files named by a mutation report are gone: {missing}"
    left_out = sorted(t for t in named if t.startswith(("tests/sweep/", "tests/book/")))
    assert not left_out, f"mutation reports rely on tests make test does not run: {left_out}"
