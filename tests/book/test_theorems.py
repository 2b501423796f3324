"""The theorem pages: every verified result is stated once, labelled, and linked to a real check.

Static checks of the sources ``book/<part>/<P>-theorems.md`` (no build needed): each
manifest item of kind V or X has exactly one ``prf`` environment labelled with its ID,
followed by a link to the page of the notebook that checks it, the ``checks`` directive
of the same ID and at least one test named as ``tests/<path>::<function>``, and every
test so named exists.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from qtheory import manifest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^:::\{prf:(\w+)\}(?P<title>[^\n]*)\n(?P<options>(?::\w+:[^\n]*\n)*)", re.M)
LABEL = re.compile(r"^:label:\s*(\S+)\s*$", re.M)
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
VERIFIED_KINDS = ("V", "X")


def theorem_page(paper: str) -> Path:
    return ROOT / "book" / manifest.PARTS[paper] / f"{paper}-theorems.md"


def sections(paper: str) -> dict[str, tuple[str, str]]:
    """label -> (title, text from the block to the next block) of a theorem page."""
    text = theorem_page(paper).read_text(encoding="utf-8")
    blocks = list(BLOCK.finditer(text))
    out = {}
    for k, m in enumerate(blocks):
        label = LABEL.search(m.group("options"))
        assert label, f"{theorem_page(paper).name}: a prf block without a label: {m.group(0)!r}"
        end = blocks[k + 1].start() if k + 1 < len(blocks) else len(text)
        assert label.group(1) not in out, f"label {label.group(1)} used twice"
        out[label.group(1)] = (m.group("title"), text[m.start():end])
    return out


@functools.lru_cache(maxsize=None)
def functions_of(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(node.name for node in tree.body
                     if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))


@pytest.mark.parametrize("paper", sorted(manifest.PARTS))
def test_every_verified_item_has_one_labelled_statement(paper):
    wanted = {i.id for i in manifest.ITEMS.values() if i.paper == paper and i.kind in VERIFIED_KINDS}
    found = sections(paper)
    assert not wanted - set(found), f"verified items without a statement: {sorted(wanted - set(found))}"
    unknown = [label for label in found if label not in manifest.ITEMS]
    assert not unknown, f"labels that are not manifest IDs: {unknown}"
    for label, (title, _) in found.items():
        assert label in title, f"{label}: the title should show the manifest ID (got {title!r})"


@pytest.mark.parametrize("paper", sorted(manifest.PARTS))
def test_every_statement_links_its_check_page_records_and_tests(paper):
    problems = []
    for label, (_, body) in sections(paper).items():
        notebook = manifest.get(label).notebook
        if not re.search(r"\{ref\}`[^`]*<" + re.escape(notebook) + r">`|\{ref\}`" + re.escape(notebook) + "`", body):
            problems.append(f"{label}: no link to its notebook page {notebook}")
        if not re.search(r"```\{checks\} " + re.escape(label) + r"\s*\n```", body):
            problems.append(f"{label}: no ``checks`` directive for its recorded numbers")
        refs = TEST_REF.findall(body)
        if not refs:
            problems.append(f"{label}: names no test")
        for path, name in refs:
            if not (ROOT / path).exists():
                problems.append(f"{label}: {path} does not exist")
            elif name not in functions_of(path):
                problems.append(f"{label}: {path} has no test {name}")
    assert not problems, "\n".join(problems)


def test_theorem_pages_are_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    for paper, part in manifest.PARTS.items():
        assert f"file: book/{part}/{paper}-theorems" in toc


def test_recorded_checks_typeset_their_math():
    """The ``checks`` directive sets a record's ``$...$`` as math nodes (MathJax), the rest as text."""
    from docutils import nodes

    from qtheory._sphinx import _with_math

    parts = _with_math(r"growth of $\rho^N$ at $N = 10$ holds")
    assert [type(p) for p in parts] == [nodes.Text, nodes.math, nodes.Text, nodes.math, nodes.Text]
    assert [p.astext() for p in parts] == ["growth of ", r"\rho^N", " at ", "N = 10", " holds"]
    assert [p.astext() for p in _with_math("no math, 5 $")] == ["no math, 5 $"]
