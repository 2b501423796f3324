"""The claim map names, for every manifest item that states something, what the paper says and
which records judge it."""

import pytest

from qtheory import claimmap, manifest
from qtheory.claims import Claim
from qtheory.errors import ParameterError


def test_every_judged_manifest_item_has_a_main_statement():
    judged = [i.id for i in manifest.ITEMS.values() if i.kind in claimmap.JUDGED_KINDS]
    mains = {s.item for s in claimmap.main_statements()}
    assert judged and not [i for i in judged if i not in mains]


def test_statements_cite_a_source_and_name_their_records():
    for s in claimmap.statements():
        assert s.source and s.says
        # a statement matched by words needs words; one matched by key is named by its records
        assert s.judged_by or s.key == s.item, s.key


def test_a_record_judges_a_statement_by_its_key_or_by_words_of_its_item():
    s = claimmap.by_key()["L-F3"]
    assert s.judges(Claim("L-F3", "Fig. 3: $q_{m,1}(t)$ from Q, Q1, Q2 reach the same limit", holds=True, source="x"))
    assert not s.judges(Claim("L-F2", "reach the same limit", holds=True, source="x"))   # another item
    assert not s.judges(Claim("L-F3", "something else", holds=True, source="x"))
    assert s.judges(Claim("L-F3", "anything", holds=True, source="x", key="L-F3"))
    assert not s.judges(Claim("L-F3", "reach the same limit", holds=True, source="x", key="L-F3:other"))


def test_a_statement_refuses_a_malformed_key_or_empty_words():
    with pytest.raises(ParameterError, match="key"):
        claimmap.Statement("L F3", "x", "Sec. 1")
    with pytest.raises(ParameterError, match="says"):
        claimmap.Statement("L-F3", " ", "Sec. 1")


def test_a_paper_refuses_a_statement_about_an_item_it_does_not_have():
    paper = manifest.papers()["L"]
    import dataclasses

    with pytest.raises(ParameterError, match="names no item"):
        dataclasses.replace(paper, statements=(claimmap.Statement("L-F9", "x", "Sec. 1"),))
    with pytest.raises(ParameterError, match="repeated key"):
        dataclasses.replace(paper, statements=paper.statements[:1] * 2)
