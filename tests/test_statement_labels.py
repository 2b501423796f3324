"""The label a paper's statement takes from its several records, and every record shown in the verdict
box, over every mix of record labels (issue 50, item 8).

A statement of the claim map (:mod:`qtheory.claimmap`) judged by several records is one line of the
verdict box whose label is, in the words of :func:`qtheory.claimpages._aggregate`, "any difference,
else anything unresolved, else agreement": *differs* when a claim differs or an internal check fails,
else *not resolved* when a record is not resolved, else *agrees*; a statement that no record judges
is *not resolved* ("No record of this build judges it.", :func:`qtheory.claimpages._statement_line`).
The line counts its records by label and folds each under it; records of the item that judge no
statement are listed, or grouped by label, each with its own label. The records are those of the
statement ``U-X-poisson``, one of each kind the mix names, with labels that no family can change: a
qualitative claim or check carries the notebook's outcome (``holds``), and a tested record with
p = 1 and an unresolved margin is not resolved under any multiple-testing procedure.
"""

import itertools
import re
from collections import Counter

import pytest

from qtheory import claimpages as P
from qtheory.claims import Claim, label_of
from qtheory.verdicts import judge

from ._box_checks import LABEL, box_lines, label_problems, visible

ITEM = KEY = "U-X-poisson"
#: the kinds of record of a mix: (category, verdict label)
KINDS = {"agrees": ("claim", "agrees"), "differs": ("claim", "differs"), "claim not resolved": ("claim", "not resolved"),
         "holds": ("check", "holds"), "fails": ("check", "fails"), "check not resolved": ("check", "not resolved")}
MIXES = [mix for size in range(len(KINDS) + 1) for mix in itertools.combinations(KINDS, size)]


def _record(kind: str, k: int, key: str = KEY) -> Claim:
    category, verdict = KINDS[kind]
    text = f"quantity {k} of the run"
    if verdict == "not resolved":
        return Claim(ITEM, text, category=category, p_value=1.0, resolved=False, source="Sec. 2.1", key=key,
                     evidence="A sign-flip test of 3 quantities, statistic 0.")
    return Claim(ITEM, text, category=category, holds=verdict in ("agrees", "holds"), source="Sec. 2.1", key=key,
                 evidence=f"The notebook's test: {verdict}.")


def documented_label(verdicts: list[str]) -> str:
    """The statement's label by the documented rule (module docstring)."""
    if not verdicts:
        return "not resolved"
    if "differs" in verdicts or "fails" in verdicts:
        return "differs"
    if "not resolved" in verdicts:
        return "not resolved"
    return "agrees"


def _box(records):
    return P.verdict_box([{"id": ITEM, "claims": [c.to_json() for c in records]}])


def _statement_line(box: str) -> str:
    lines = [x for x in box_lines(box) if "Poisson" in x]
    assert len(lines) == 1, box
    return lines[0]


@pytest.mark.parametrize("mix", MIXES, ids=lambda mix: "+".join(mix) or "none")
def test_a_statement_takes_its_label_from_every_mix_of_its_records(mix):
    records = [_record(kind, k) for k, kind in enumerate(mix)]
    verdicts = [v.label for v in judge(records).verdicts]
    assert verdicts == [KINDS[kind][1] for kind in mix]          # the records carry the labels meant
    # a page without records has no statement lines: the empty mix has a record of another statement
    box = _box(records or [_record("agrees", 0, key=f"{KEY}:other")])
    assert not label_problems(box)                              # the build check's rule agrees
    line = _statement_line(box)
    head, _, folded = line.partition("\n")
    assert LABEL.findall(head)[0] == documented_label(verdicts)
    shown = visible(head)
    # a record that is not resolved shows on the statement's line, and nothing else reads so
    assert ("not resolved" in shown) == ("not resolved" in verdicts or not verdicts)
    if len(records) > 1:
        # every label counted: "5 records: 1 agrees, 1 differs, 2 not resolved, ..."
        assert f"{len(records)} records: " in shown
        for label, n in Counter(verdicts).items():
            assert re.search(rf"\b{n} {label}\b", shown), (label, shown)
    elif not records:
        assert "No record of this build judges it." in shown
    # each record folded under the line once, with its own label
    assert Counter(re.findall(r"<p>(agrees|differs|not resolved|holds|fails): ", folded)) == Counter(verdicts)


@pytest.mark.parametrize("mix", [mix for mix in MIXES if mix], ids="+".join)
def test_every_record_no_statement_judges_shows_with_its_label(mix):
    """Records of the item that judge no statement are listed one by one, or grouped by label when
    there are more than a few (two of each kind here): every label of the mix shows, each record
    once."""
    records = [_record(kind, k, key=f"{KEY}:other") for k, kind in enumerate(mix * 2)]
    verdicts = judge(records).verdicts
    want = Counter(label_of(c, v.label) for c, v in zip(records, verdicts))
    box = _box(records)
    assert "not resolved" in visible(box) or not any("not resolved" in w for w in want)
    shown = Counter()
    for line in box_lines(box):
        head = line.split("\n")[0]
        if "Poisson" in head:                                  # the statement itself: judged by none here
            assert "No record of this build judges it." in visible(head)
            continue
        if "of this page fail" in visible(head):               # the headline's warning, not a record
            assert want["internal check fails"], box
            continue
        label = LABEL.findall(head)[0]
        group = re.search(rf"{ITEM}: (\d+) ", visible(head))
        shown[label] += int(group.group(1)) if group else 1
    assert shown == want, box

