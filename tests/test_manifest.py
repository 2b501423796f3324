import re
from pathlib import Path

import pytest

from qtheory import claims, manifest

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "MANIFEST.md"


def spec_ids():
    return re.findall(r"^\| ([LRU]-[A-Za-z0-9-]+) \| ([PFTVX]) \|", SPEC.read_text(), flags=re.M)


@pytest.mark.skipif(not SPEC.exists(), reason="the shared spec is not beside this checkout")
def test_registry_has_exactly_the_ids_and_kinds_of_the_spec():
    # kind "R" marks our own results beyond the papers, which the spec does not list
    assert [(i.id, i.kind) for i in manifest.ITEMS.values() if i.kind != "R"] == spec_ids()
    assert not {i.id for i in manifest.ITEMS.values() if i.kind == "R"} & {s for s, _ in spec_ids()}


def test_every_item_maps_to_a_notebook_of_its_own_paper():
    for item in manifest.ITEMS.values():
        assert item.notebook.split("-")[0] == item.paper
        assert item.kind in manifest.KINDS


def test_unknown_id_suggests_close_matches():
    with pytest.raises(ValueError, match="did you mean L-F1"):
        manifest.get("L-F11")


def test_index_links_every_item_whose_page_exists_and_names_the_others(tmp_path):
    from qtheory import manifest

    (tmp_path / "locality").mkdir()
    (tmp_path / "locality" / "L-F1.ipynb").write_text("{}")
    text = manifest.index_markdown(tmp_path)
    for item in manifest.ITEMS.values():
        line = next(x for x in text.splitlines() if x.startswith(f"| {item.id} |"))
        if item.notebook == "L-F1":
            assert "[L-F1](locality/L-F1.ipynb)" in line
        else:
            assert "not computed in this build" in line
    for paper, rec in manifest.RECORDS.items():
        assert rec["link"] in text and str(rec["year"]) in text
    manifest.write_index(tmp_path)
    assert (tmp_path / "paper_index.md").read_text() == text


def test_each_paper_declares_its_items_and_notes_in_its_own_subpackage():
    import importlib

    from qtheory import claims

    papers = manifest.papers()
    assert list(papers) == list(manifest.PAPERS) == ["L", "R", "U"]
    for name in manifest.PAPER_MODULES:
        paper = importlib.import_module(name).PAPER
        # the book part is the subpackage's name; the gathered tables are built from the papers
        assert name == f"qtheory.{paper.part}.items"
        assert manifest.PARTS[paper.key] == paper.part and manifest.RECORDS[paper.key] == paper.record
        assert [i for i in manifest.ITEMS.values() if i.paper == paper.key] == list(paper.items)
        assert [n for n in claims.NOTED if n.item.startswith(paper.key + "-")] == list(paper.noted)
    assert len(manifest.ITEMS) == sum(len(p.items) for p in papers.values())


def test_a_fourth_paper_is_its_module_and_one_line_of_the_gathering_list(monkeypatch):
    import sys
    import types

    from qtheory import claims

    fake = types.ModuleType("qtheory_fake_paper_q")
    fake.PAPER = manifest.Paper(
        key="Q", title="A fourth paper", part="queue", authors="A. Author", year=2026, venue="Somewhere",
        link="https://example.org", version="equation numbers as in the journal version",
        items=(manifest.Item("Q-F1", "F", "a figure", "Q-F1"),),
        noted=(claims.Noted("Q-F1", "erratum", "a misprint", (("Q-F1", "x"),), "confirmed"),))
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    monkeypatch.setattr(manifest, "PAPER_MODULES", manifest.PAPER_MODULES + (fake.__name__,))
    monkeypatch.setattr(manifest, "_PAPERS", None)
    for name in ("ITEMS", "PAPERS", "RECORDS", "PARTS"):
        monkeypatch.delattr(manifest, name, raising=False)
    monkeypatch.delattr(claims, "NOTED", raising=False)
    assert manifest.get("Q-F1").part == "queue" and manifest.PAPERS["Q"] == "A fourth paper"
    assert "Q-F1" in manifest.notebooks() and claims.NOTED[-1].text == "a misprint"
    assert "### Q: *A fourth paper*" in manifest.index_markdown("/nonexistent")
    # a paper declared twice is refused
    monkeypatch.setattr(manifest, "PAPER_MODULES", manifest.PAPER_MODULES + (fake.__name__,))
    monkeypatch.setattr(manifest, "_PAPERS", None)
    with pytest.raises(ValueError, match="declared twice"):
        manifest.papers()
    # the gathered tables are restored for the other tests
    monkeypatch.undo()
    for name in ("ITEMS", "PAPERS", "RECORDS", "PARTS"):
        vars(manifest).pop(name, None)
    vars(claims).pop("NOTED", None)
    assert "Q-F1" not in manifest.ITEMS


@pytest.mark.parametrize("change, message", [
    (dict(key="LL"), "`key`"),
    (dict(items=()), "`items`"),
    (dict(items=(manifest.Item("L-F1", "F", "x", "L-F1"), manifest.Item("L-F1", "F", "y", "L-F1"))), "repeated"),
    (dict(items=(manifest.Item("R-F1", "F", "x", "R-F1"),)), "another paper"),
    (dict(noted=(claims.Noted("R-T1", "erratum", "x", (("R-T1", "k"),), "v"),)), "another paper"),
])
def test_a_paper_refuses_items_that_are_not_its_own(change, message):
    fields = dict(key="L", title="t", part="locality", authors="a", year=2024, venue="v", link="l", version="v",
                  items=(manifest.Item("L-F1", "F", "x", "L-F1"),))
    manifest.Paper(**fields)
    with pytest.raises(ValueError, match=message):
        manifest.Paper(**{**fields, **change})


@pytest.mark.parametrize("row, message", [
    (("L_F1", "F", "x", "L-F1"), "`id`"),
    (("L-F1", "Z", "x", "L-F1"), "`kind`"),
    (("L-F1", "F", "x", "R-T1"), "`notebook`"),
])
def test_an_item_refuses_a_malformed_row(row, message):
    with pytest.raises(ValueError, match=message):
        manifest.Item(*row)


def test_a_suggestion_is_not_repeated_when_an_item_names_its_notebook():
    # L-F3 is both an item ID and its notebook's name: it must be suggested once
    with pytest.raises(ValueError) as err:
        manifest.get("L-F9")
    hint = str(err.value).split("did you mean ")[1].rstrip("?").split(", ")
    assert len(hint) == len(set(hint)) and "L-F3" in hint
