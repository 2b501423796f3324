import re
from pathlib import Path

import pytest

from qtheory import manifest

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
