"""The verdict box and the claims page say whole sentences and show each record with its true label.

The checks (``tests/_box_checks.py``) run here on synthetic records covering every branch of the
box (a main statement with one record or many, a finding, records listed one by one and grouped by
label, joint tests, reconstructions and errata), and on every page of a built book in
``tests/book/test_verdicts_in_build.py``.
"""

import pytest

from qtheory import claimpages as P
from qtheory import claims as C
from qtheory.verdicts import judge

from ._box_checks import box_lines, label_problems, labels_outside_the_scheme, sentence_problems


def _meta(item, records, findings=()):
    return {"id": item, "claims": [c.to_json() for c in records], "findings": [f.to_json() for f in findings]}


def _u_v_page(shift=0.0):
    poisson = [C.Claim("U-X-poisson", f"$E[n s_n] = n\\rho$ under policy {k}", paper=100.0,
                       ours=100.0 + (shift if k == 0 else 0.01 * k), ours_se=0.1, ours_df=9, source="Sec. 2.1",
                       family="policies", key="U-X-poisson") for k in range(5)]
    thm1 = [C.Claim("U-V-thm1", "Theorem 1: every policy below the bound", holds=True, source="Theorem 1",
                    evidence="All 4 exact values lie below $u(q_n^*)$. More."),
            C.Claim("U-V-thm1", "random assignment against its closed form", category="check", ours=1.0,
                    ours_se=0.001, ours_df=9, reference=1.0)]
    return [_meta("U-V-thm1", thm1), _meta("U-X-poisson", poisson)]


@pytest.mark.parametrize("shift", [0.0, 2.0, 0.25])
def test_every_line_of_the_box_is_a_whole_sentence_with_a_true_label(shift):
    box = P.verdict_box(_u_v_page(shift))
    assert box_lines(box)
    for line in box_lines(box):
        assert not sentence_problems(line.split("\n")[0]), line
    assert not label_problems(box)


def test_a_differing_record_makes_its_statement_line_differ():
    box = P.verdict_box(_u_v_page(shift=2.0))      # 20 SE off: differs
    line = next(x for x in box_lines(box) if "Poisson" in x)
    assert 'qtheory-label-differs">differs' in line and "1 differs" in line
    # a box that showed it as agreeing is caught
    assert label_problems(line.replace('qtheory-label-differs">differs', 'qtheory-label-agrees">agrees'))


def test_the_box_labels_follow_the_page_family_not_each_record_alone():
    metas = _u_v_page(shift=0.34)                 # t = 3.4 with 9 df: p = 0.008
    records = [C.Claim(**r) for m in metas for r in m["claims"]]
    alone = records[2].judge()
    family = judge(records).verdicts[2].label
    assert (alone, family) == ("differs", "agrees")
    box = P.verdict_box(metas)
    line = next(x for x in box_lines(box) if "Poisson" in x)
    assert 'qtheory-label-agrees">agrees' in line


def test_the_main_statement_opens_the_box():
    box = P.verdict_box(_u_v_page())
    first = box_lines(box)[0]
    assert "E[u(q_n)] \\le u(q_n^*)" in first and "(Theorem 1 (Sec. 3.4))" in first


@pytest.mark.parametrize("text", [
    "Paper: Fig. 1 (0.0011 against 0.0096.",
    "Theorem 1 (types 1-3, N = 20.",
    "Sec. 8.3: JLMU is suboptimal where it loses. confirmed.",
    "R-V-local: We find: .",
    "Ours: enumeration: reference 0, ours 0.",
    "worse at no load:",
])
def test_the_sentence_check_catches_each_broken_sentence_of_the_issue(text):
    assert sentence_problems(text)


def test_exact_values_keep_their_digits_on_the_page():
    c = C.Claim("R-T1", "Table 1, setting 1: E[Q]", paper=12.945, paper_se=0.099, paper_df=9,
                ours=12.008024869866986, source="App. E.2, Table 1")
    assert "ours 12.008" in P._record_values(c)
    row = P.render_claims([c])
    assert "ours 12.008" in row and "companion 12<" not in row


def test_every_claims_row_is_a_whole_sentence():
    metas = _u_v_page(shift=2.0)
    records = [C.Claim(**r) for m in metas for r in m["claims"]]
    page = P.render_claims(records)
    for row in page.splitlines():
        if row.startswith("| <span"):
            for cell in row.split(" | ")[1:]:
                for part in cell.replace("<small>", "").replace("</small>", "").split("<br>"):
                    assert not sentence_problems(part.strip(" |")), row


@pytest.mark.parametrize("shift, se, label", [(0.0, 0.1, "agrees"), (2.0, 0.1, "differs"), (0.0, 3.0, "not resolved")])
def test_a_family_judged_jointly_carries_a_label_of_the_scheme(shift, se, label):
    """The joint tests of a family of rows were labelled "no joint difference" when not rejected, a
    label of no scheme (issue 50): now differs when rejected, else agrees when every row agrees, else
    (an interval wider than its margin) not resolved, in the verdict box and on the claims page alike."""
    rows = [C.Claim("U-X-poisson", f"$E[n s_n] = n\\rho$ under policy {k}", paper=100.0,
                    ours=100.0 + (shift if k == 0 else 0.01 * k), ours_se=se, ours_df=9, source="Sec. 2.1",
                    family="policies", key="U-X-poisson") for k in range(5)]
    box = P.verdict_box([_meta("U-X-poisson", rows)])
    joint = next(x for x in box_lines(box) if "Jointly" in x)
    assert f'qtheory-label-{label.replace(" ", "-")}">{label}</span> Jointly' in joint, joint
    page = P.render_claims(rows)
    assert f"| {'**' + label + '**' if label == 'differs' else label} |" in page.split("jointly")[1]
    assert not labels_outside_the_scheme(box) and not labels_outside_the_scheme(page)


@pytest.mark.parametrize("text", [
    '- <span class="qtheory-label qtheory-label-no-joint-difference">no joint difference</span> Jointly, x: y.',
    "| [R-T1](redundancy/R-T1.ipynb) | Var(Q) | Stouffer $Z = 0.5$ | no joint difference |",
    '- <span class="qtheory-label qtheory-label-erratum">erratum</span> Paper (Sec. 5): a sum. Ours 1; confirmed: the '
    "unweighted sum is 3.2.",
    "| [L-V-limits](x) | the sign of x | Algorithm 1 | — | not confirmed: the sum is 1 |",
])
def test_the_scheme_check_catches_the_labels_of_the_issue(text):
    assert labels_outside_the_scheme(text)

