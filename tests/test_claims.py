import math
import re

import pytest

from scipy import stats

from qtheory import claimpages, claims, results, verdicts
from qtheory.errors import ParameterError


def test_statistical_claim_is_judged_by_student_t_with_welch_degrees_of_freedom():
    # both sides from 10 runs: Welch's df is 18 for equal standard errors; alone, Holm is the plain t test
    cut = stats.t.isf(verdicts.FAMILY_LEVEL / 2, 18) * math.sqrt(0.02)
    near = claims.Claim("R-T1", "mean queue", paper=10.0, ours=10.0 + 0.99 * cut, paper_se=0.1, ours_se=0.1,
                        paper_df=9, ours_df=9, tolerance=1.0)
    assert math.isclose(near.z, 0.99 * cut / math.sqrt(0.02))
    assert near.judge() == "agrees"
    far = claims.Claim("R-T1", "mean queue", paper=10.0, ours=10.0 + 1.01 * cut, paper_se=0.1, ours_se=0.1,
                       paper_df=9, ours_df=9, tolerance=1.0)
    assert far.judge() == "differs"
    # the normal quantile would have rejected the near one: the t distribution matters
    assert near.z > stats.norm.isf(verdicts.FAMILY_LEVEL / 2)


def test_a_standard_error_needs_its_degrees_of_freedom():
    with pytest.raises(ParameterError, match="ours_df"):
        claims.Claim("R-T1", "x", paper=1.0, ours=1.0, ours_se=0.1)
    with pytest.raises(ParameterError, match="paper_df"):
        claims.Claim("R-T1", "x", paper=1.0, ours=1.0, paper_se=0.1, paper_df=0.5)


def test_an_interval_wider_than_the_margin_is_not_resolved():
    wide = claims.Claim("R-T1", "x", paper=10.0, ours=10.0, ours_se=1.0, ours_df=9)
    assert wide.judge() == "not resolved" and wide.passes is None
    tight = claims.Claim("R-T1", "x", paper=10.0, ours=10.0, ours_se=0.01, ours_df=9)
    assert tight.judge() == "agrees"


def test_deterministic_claim_uses_the_tolerance():
    c = claims.Claim("R-X-tail", "P(Q > 15)", paper=4.7e-4, ours=4.74e-4, tolerance=5e-6)
    assert c.judge() == "agrees"
    c = claims.Claim("R-X-tail", "P(Q > 15)", paper=4.7e-4, ours=4.9e-4, tolerance=5e-6)
    assert c.judge() == "differs"


def test_a_claim_that_cannot_be_judged_is_rejected():
    with pytest.raises(ParameterError, match="tolerance"):
        claims.Claim("R-X-tail", "x", paper=1.0, ours=1.0)
    with pytest.raises(ParameterError, match="category"):
        claims.Claim("R-X-tail", "x", category="rumour")
    with pytest.raises(ParameterError, match="ours_se"):
        claims.Claim("R-X-tail", "x", paper=1.0, ours=1.0, ours_se=-1.0)


def summary(page: str) -> dict[str, list[str]]:
    """The claims page's summary table: per paper, its column (claims, agree, differ, not resolved,
    reconstructions, internal checks, errata), read from the table of one column per paper."""
    lines = page.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("| | [L]") or line.startswith("| | [R]")
                or line.startswith("| | [U]"))
    papers = re.findall(r"\[(\w)\]\(#claims-\w\)", lines[head])
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[head + 2:head + 9]]
    assert [r[0] for r in rows] == [label for label, _ in claimpages.SUMMARY_ROWS]
    return {paper: [r[k + 1] for r in rows] for k, paper in enumerate(papers)}


def test_the_summary_has_one_column_per_paper_so_that_it_fits_a_phone():
    """Seven counts side by side, one row per paper, ran off a phone's screen (issue 50): the summary
    is one column per paper (at most four columns), one row per count."""
    rows = [claims.Claim("L-F1", "a", paper=1.0, ours=1.0, tolerance=0.1),
            claims.Claim("U-T1", "b", paper=1.0, ours=2.0, tolerance=0.1)]
    table = [line for line in claimpages.render_claims(rows).splitlines() if line.startswith("| ")][:8]
    assert table[0] == "| | [L](#claims-l) | [U](#claims-u) |" and all(line.count("|") == 4 for line in table)
    assert summary(claimpages.render_claims(rows)) == {"L": ["1", "1", "0", "0", "0", "0", "0"],
                                                       "U": ["1", "0", "1", "0", "0", "0", "0"]}


def test_pages_are_generated_from_the_result_files(results_dir, tmp_path):
    with results.ResultWriter("R-X-tail", parameters={}, seed=None) as rec:
        rec.write_table([{"a": 1}])
        rec.claim("P(Q > 15) at load 0.6", paper=4.7e-4, ours=4.6e-4, tolerance=5e-5)
        rec.claim("weights in the flow balance", category="erratum", verdict="confirmed",
                  evidence="fixed point of the ODE", ours=1.0)
    book = tmp_path / "book"
    book.mkdir()
    claimpages.write_pages(results_dir, book)
    text = (book / "claims.md").read_text()
    # one claim that agrees; the erratum counts with R's errata noted while reading
    n_noted = sum(n.category == "erratum" and n.item.startswith("R-") for n in claims.NOTED)
    assert summary(text)["R"] == ["1", "1", "0", "0", "0", "0", str(1 + n_noted)] and "P(Q > 15) at load 0.6" in text
    assert "[R-X-tail](redundancy/R-V.ipynb)" in text
    errata = (book / "errata.md").read_text()
    assert "weights in the flow balance" in errata and "confirmed" in errata


def test_bars_in_claim_text_do_not_split_table_cells():
    c = claims.Claim("L-F1", "largest |z| over 18 entries", paper=0.0, ours=2.0, tolerance=4.0)
    row = [line for line in claimpages.render_claims([c]).splitlines() if "largest" in line][0]
    # three cells need four unescaped bars; the bars of |z| must not add cells
    assert len(re.findall(r"(?<!\\)\|", row)) == 4


def test_noted_errata_take_their_values_from_the_recorded_results(results_dir):
    with results.ResultWriter("L-V-thm4", parameters={}, seed=None) as rec:
        rec.write_table([{"a": 1}])
        rec.claim("Theorem 4: every start converges", paper=0.0, ours=2e-11, tolerance=1e-6)
        rec.finish(root_residual=1.5e-15)
    noted = claims.Noted("L-V-thm4", "reconstruction", "(5.1) is (3.7) set to zero",
                         (("L-V-thm4", "root_residual"), ("L-V-thm4", "claim:every start"),
                          ("L-V-thm4", "not_there"), ("L-F1", "anything")), "consistent")
    lines = claimpages.noted_evidence(results_dir, noted)
    assert lines[0] == "L-V-thm4, root residual: 1.5 × 10⁻¹⁵"
    assert "2 × 10⁻¹¹" in lines[1] and lines[1].endswith("agrees.")
    assert "degrees of freedom" not in lines[1]          # one short line: the statistics are on the claims page
    assert lines[2] == "L-V-thm4: not_there not recorded"
    assert lines[3] == "L-F1: not recorded in this build"
    page = claimpages.render_reconstructions(claims.collect(results_dir) + [claims.Claim(
        "R-X-tail", "a recorded erratum", category="erratum", verdict="likely")], noted=[(noted, lines)])
    assert "(5.1) is (3.7) set to zero" in page and "L-V-thm4, root residual: 1.5 × 10⁻¹⁵<br>" in page
    assert "a recorded erratum" not in page


def test_every_noted_entry_names_manifest_items():
    from qtheory import manifest

    for n in claims.NOTED:
        manifest.get(n.item)
        for item_id, _ in n.evidence:
            manifest.get(item_id)
    with pytest.raises(ParameterError, match="category"):
        claims.Noted("L-F1", "claim", "x", (("L-F1", "k"),), "v")
    with pytest.raises(ParameterError, match="evidence"):
        claims.Noted("L-F1", "erratum", "x", (), "v")


def test_claims_page_counts_agreement_per_paper():
    rows = [claims.Claim("L-F1", "a", paper=1.0, ours=1.0, tolerance=0.1),
            claims.Claim("R-T1", "b", paper=1.0, ours=2.0, tolerance=0.1),
            claims.Claim("R-T1", "c", paper=1.0, ours=1.05, tolerance=0.1)]
    text = claimpages.render_claims(rows)
    assert summary(text) == {"L": ["1", "1", "0", "0", "0", "0", "0"], "R": ["2", "1", "1", "0", "0", "0", "0"]}
    assert "(claims-u)=" not in text  # no section for a paper without claims
    # the differences come first, before the per-paper sections
    differences = text.index("## Differences")
    assert differences < text.index("(claims-l)=")
    assert "): b |" in text[differences:text.index("(claims-l)=")]
    assert "| c |" not in text[differences:text.index("(claims-l)=")]


def test_only_paper_claims_count_towards_agreement():
    rows = [claims.Claim("L-F1", "a printed value", paper=1.0, ours=1.0, tolerance=0.1, source="Sec. 6.1"),
            claims.Claim("L-F1", "exact vs simulation", reference=1.0, ours=3.0, ours_se=0.1, ours_df=99,
                         category="check"),
            claims.Claim("L-F1", "sim vs ODE", reference=1.0, ours=1.01, ours_se=0.01, ours_df=99, category="check"),
            claims.Claim("L-F1", "our reading of (5.2)", category="reconstruction", verdict="consistent"),
            claims.Claim("L-F1", "a misprint", category="erratum", verdict="confirmed")]
    counts = claimpages.summary_counts(rows)["L"]
    assert counts == {"claims": 1, "agree": 1, "differ": 0, "not_resolved": 0, "reconstructions": 1, "checks": 2,
                      "checks_failing": 1, "errata": 1}
    assert [c.judge() for c in rows[:3]] == ["agrees", "fails", "holds"]
    text = claimpages.render_claims(rows)
    assert summary(text)["L"] == ["1", "1", "0", "0", "1", "2 (1 failing)", "1"]
    assert "No claim of the papers recorded in this build differs." in text
    assert "Internal checks that fail in this build" in text


def test_records_keep_their_categories_apart():
    with pytest.raises(ParameterError, match="only a paper claim or erratum"):
        claims.Claim("L-F1", "x", paper=1.0, reference=1.0, ours=1.0, tolerance=0.1, category="check")
    with pytest.raises(ParameterError, match="only an internal check"):
        claims.Claim("L-F1", "x", paper=1.0, reference=1.0, ours=1.0, tolerance=0.1)
    with pytest.raises(ParameterError, match="reference"):
        claims.Claim("L-F1", "x", ours=1.0, tolerance=0.1, category="check")
    with pytest.raises(ParameterError, match="holds"):
        claims.Claim("L-F1", "x", holds="yes")


def test_qualitative_claims_are_judged_by_their_test_not_coded_as_numbers():
    c = claims.Claim("L-F2", "type-1 occupancies fall fastest", holds=False, source="Sec. 6.2",
                     evidence="q_{3,1}(0.1) = 0.72 while q_{1,1}(0.1) = 0.98")
    assert c.judge() == "differs" and c.difference is None
    row = [line for line in claimpages.render_claims([c]).splitlines() if "fall fastest" in line][0]
    assert "qualitative" in row and "**differs**" in row and "Sec. 6.2" in row
    with pytest.raises(ParameterError, match="qualitative"):
        claims.Claim("L-F2", "x", paper=1.0, ours=1.0, holds=True)
    # a measured value behind a qualitative claim is shown as ours, never as a paper value
    c = claims.Claim("R-F3cd", "(14) is nearly exact at load 0.99", ours=0.012, holds=True, source="Sec. 3.3")
    row = [line for line in claimpages.render_claims([c]).splitlines() if "nearly exact" in line][0]
    cells = [x.strip() for x in row.split("|")]
    assert cells[2] == "qualitative; ours 0.012" and cells[3].startswith("agrees<br>"), cells
    assert "paper" not in claimpages.describe(c) and "Qualitative" in claimpages.describe(c)


def test_errata_and_reconstructions_have_pages_of_their_own(results_dir, tmp_path):
    with results.ResultWriter("R-X-tail", parameters={}, seed=None) as rec:
        rec.write_table([{"a": 1}])
        rec.claim("our reading", category="reconstruction", verdict="consistent", source="eq. (5.2)",
                  alternatives="the other reading")
        rec.claim("a misprint", category="erratum", verdict="confirmed", source="Sec. 4")
    book = tmp_path / "book"
    book.mkdir()
    claimpages.write_pages(results_dir, book)
    recon = (book / "reconstructions.md").read_text()
    errata = (book / "errata.md").read_text()
    assert "our reading" in recon and "the other reading" in recon and "a misprint" not in recon
    assert "a misprint" in errata and "our reading" not in errata
    # every column means one thing on every row: no "value" column (a sum on one row, a mean on the next)
    heads = [line for line in (errata + recon).splitlines() if line.startswith("| item |")]
    assert heads and all("| value |" not in h for h in heads)


def test_table_cells_escape_pipes_and_emphasis_outside_math():
    from qtheory.claimpages import _cell

    # q*_(m,1) ... q*_(m,1) would render as emphasis in a Markdown table; math keeps its * and _
    assert _cell("sum_m q*_(m,1) = a | b; $q^*_{m,1}$") == "sum\\_m q\\*\\_(m,1) = a \\| b; $q^*_{m,1}$"


def test_long_identifiers_in_table_cells_are_set_as_code():
    from qtheory.claimpages import _cell

    assert _cell("holds (test_table1_settings_are_stable) in type1_growth_second_half_S1 runs") == \
        "holds (`test_table1_settings_are_stable`) in `type1_growth_second_half_S1` runs"
    # code and math keep their underscores
    assert _cell("sum_m and `already_set_as_code_here` and $q_{m,\\ell}$") == \
        "sum\\_m and `already_set_as_code_here` and $q_{m,\\ell}$"


def test_checks_directive_typesets_dollar_math_of_claim_texts():
    from docutils import nodes

    from qtheory._sphinx import text_with_math

    parts = text_with_math(r"$P(Q > 15)$ at $\lambda = 0.6$ costs \$5 (a lone $ sign)")
    assert [type(p) for p in parts] == [nodes.math, nodes.Text, nodes.math, nodes.Text]
    assert parts[0].astext() == "P(Q > 15)" and parts[2].astext() == r"\lambda = 0.6"
    assert parts[3].astext() == r" costs \$5 (a lone $ sign)"


def test_prose_of_the_box_and_the_tables_writes_minus_signs_but_leaves_code_and_math():
    from qtheory.claimpages import _box_text, _cell

    text = "difference -0.6 (sums to -1); rerun with `-p seed -3`; $-x$"
    want = "difference \u22120.6 (sums to \u22121); rerun with `-p seed -3`; $-x$"
    assert _box_text(text) == want and _cell(text) == want
