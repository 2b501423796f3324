"""Findings are worded once and fold the records they explain; each result page opens with a
verdict box rendered from its items' records; item functions return one frozen result."""

import pytest

from qtheory import claimpages as P
from qtheory import claims as C
from qtheory.errors import ParameterError
from qtheory.reproduce import split_title
from qtheory.results import ItemResult, column, select


def _offset_records():
    finding = C.Finding(id="R-T1-mean-offset", item="R-T1", title="E[Q] fit arrival averages",
                        text="the paper is within 0.25 of exact + 1 in 8 of 12 settings", label="differs",
                        source="App. E.2, Table 1")
    rows = [C.Claim(item="R-T1", text=f"setting {k}: E[Q]", paper=10.0 + k, paper_se=0.1, paper_df=9, ours=9.0 + k,
                    source="App. E.2, Table 1", finding=finding.id) for k in range(3)]
    other = C.Claim(item="R-T1", text="setting 1: share", paper=0.5, paper_se=0.001, paper_df=9, ours=0.5,
                    source="Table 1")
    return finding, rows, other


def test_a_finding_counts_once_and_its_rows_fold_under_it():
    finding, rows, other = _offset_records()
    counts = P.summary_counts([*rows, other], [], [finding])["R"]
    assert counts["claims"] == 2 and counts["differ"] == 1 and counts["agree"] == 1
    # without the finding the three rows count one by one
    assert P.summary_counts([*rows, other], [], [])["R"]["differ"] == 3
    page = P.render_claims([*rows, other], [], [finding])
    assert page.count("the paper is within 0.25 of exact + 1") == 1
    assert 'id="finding-r-t1-mean-offset"' in page and "The 3 records it explains" in page
    # each row once (folded), with its anchor
    assert page.count("setting 1: E[Q]") == 1 and 'id="claim-r-t1-1"' in page


def test_a_finding_needs_a_known_label_and_an_id_under_its_item():
    with pytest.raises(ParameterError, match="label"):
        C.Finding(id="R-T1-x", item="R-T1", title="t", text="x", label="refuted")
    with pytest.raises(ParameterError, match="id"):
        C.Finding(id="R-V-x", item="R-T1", title="t", text="x", label="differs")


def test_verdict_box_states_the_finding_once_and_links_each_record():
    finding, rows, other = _offset_records()
    meta = {"id": "R-T1", "claims": [c.to_json() for c in [*rows, other]], "findings": [finding.to_json()]}
    box = P.verdict_box([meta])
    assert box.startswith("````{admonition} Verdict") and box.rstrip().endswith("````")
    assert box.count("the paper is within 0.25") == 1 and "3 records folded under it" in box
    assert 'href="../claims.html#finding-r-t1-mean-offset"' in box
    # the unexplained claim is listed with its label, values and link; folded rows are not
    assert "qtheory-label-agrees" in box and 'href="../claims.html#claim-r-t1-4"' in box
    assert "setting 2: E[Q]" not in box


def test_verdict_box_groups_many_records_by_label():
    many = [C.Claim(item="R-T1", text=f"share {k}", paper=0.5, paper_se=0.001, paper_df=9,
                    ours=0.5 + (0.2 if k == 0 else 0), source="Table 1") for k in range(10)]
    box = P.verdict_box([{"id": "R-T1", "claims": [c.to_json() for c in many]}])
    assert "R-T1: 9 claims of the paper agree" in box
    assert "share 0" in box           # the one that differs is named
    # Table 1's main statement first (no record here judges it), then the two groups
    assert box.count("<li") == 0 and box.count("\n- ") == 3
    assert box.index("Table 1:") < box.index("R-T1: 9 claims") and "No record of this build judges it." in box


def test_verdict_box_of_an_item_without_records_says_so():
    box = P.verdict_box([{"id": "L-F3", "claims": []}])
    assert "prints no value for L-F3" in box


def test_split_title_keeps_label_and_heading_apart_from_the_introduction():
    assert split_title("(L-F2)=\n# L-F2: title\n\nSome text.\n") == ("(L-F2)=\n# L-F2: title", "Some text.")
    assert split_title("# Only a title") == ("# Only a title", None)
    assert split_title("No heading here") == ("", None)


def test_item_result_refuses_records_of_another_item_or_unknown_findings():
    finding, rows, other = _offset_records()
    ok = ItemResult("R-T1", {"seed": 1}, 1, rows=[{"a": 1}], claims=rows, findings=[finding])
    assert ok.claim("setting 2") is rows[2] and isinstance(ok.rows, tuple)
    with pytest.raises(ParameterError, match="names finding"):
        ItemResult("R-T1", {}, 1, rows=[{"a": 1}], claims=rows)
    with pytest.raises(ParameterError, match="belongs to that item"):
        ItemResult("R-F4", {}, 1, rows=[{"a": 1}], claims=[other])
    with pytest.raises(ParameterError, match="3 claims contain"):
        ok.claim("E[Q]")


def test_item_result_publishes_tables_claims_and_findings(tmp_path):
    import json

    finding, rows, other = _offset_records()
    res = ItemResult("R-T1", {"seed": 1}, 1, rows=[{"x": 1.0, "y": 2.0}], claims=[*rows, other],
                     findings=[finding], tables={"extra": ({"k": 1},)}, summary={"gap": 0.5})
    res.publish(root=tmp_path)
    meta = json.loads((tmp_path / "R-T1" / "R-T1.json").read_text())
    assert meta["gap"] == 0.5 and meta["findings"][0]["id"] == "R-T1-mean-offset"
    assert len(meta["claims"]) == 4 and (tmp_path / "R-T1" / "R-T1_extra.csv").exists()
    assert C.collect_findings(tmp_path) == [finding]


def test_select_and_column_pick_rows_without_comparisons_in_notebooks():
    rows = [{"N": 10, "m": "sim", "v": 1}, {"N": 10, "m": "ode", "v": 2}, {"N": 20, "m": "sim", "v": 3}]
    assert column(select(rows, m="sim"), "v") == [1, 3]
    assert select(rows, N=10, m="ode") == [rows[1]]


def test_verdict_box_line_drops_a_repeated_source_and_folds_the_evidence_under_it():
    c = C.Claim("L-F2", "Sec. 6.2: type 1 falls fastest", holds=False, source="Sec. 6.2, Fig. 2",
                evidence="At $N = 1.5$, type 3 falls fastest. More detail.")
    box = P.verdict_box([{"id": "L-F2", "claims": [c.to_json()]}])
    line = next(x for x in box.splitlines() if "type 1 falls fastest" in x)
    assert "Paper (Sec. 6.2, Fig. 2): type 1 falls fastest. At $N = 1.5$, type 3 falls fastest." in line
    assert "More detail" not in line and "We find" not in box
    folded = box.splitlines()[box.splitlines().index(line) + 2]
    assert folded.startswith("  <details") and "More detail" in folded
