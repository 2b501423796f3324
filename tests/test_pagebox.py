"""The "Rerun this page" box of the result pages and the "Cite this" box of the other pages."""

import re
import shlex

import pytest

from qtheory import citation, manifest, pagebox, reproduce

NOTEBOOKS = sorted(manifest.notebooks())
REPO = "https://github.com/someone/qtheory"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _meta(preset="quick", overrides=None, commit=COMMIT):
    return {"preset": preset + ("+overrides" if overrides else ""), "overrides": overrides or {},
            "git_commit": commit}


def _rows(box: str) -> dict[str, list[str]]:
    """The parameter table of a box: ``{name: [meaning, paper, quick, type]}``."""
    rows = {}
    for line in box.splitlines():
        found = re.match(r"^\| `(\w+)` \| (.*) \|$", line)
        if found:
            rows[found.group(1)] = [c.strip() for c in re.split(r"(?<!\\)\|", found.group(2))]
    return rows


def _myst_html(text: str) -> str:
    from docutils.core import publish_string
    from myst_parser.parsers.docutils_ import Parser

    html = publish_string("# A page\n\n" + text, parser=Parser(), writer_name="html5", settings_overrides={
        "myst_enable_extensions": ["colon_fence", "dollarmath"], "halt_level": 2, "report_level": 2,
        "output_encoding": "unicode"})
    return html[html.index("<body"):]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_parameter_of_every_notebook_has_a_meaning(notebook):
    meanings = pagebox.parameter_meanings(notebook)
    assert set(meanings) == set(reproduce.notebook_parameters(reproduce.notebook_path(notebook)))
    missing = [name for name, text in meanings.items() if len(text) < 8]
    assert not missing, (f"{notebook}: parameters without a meaning (write one in "
                         f"notebooks/presets/meanings.toml): {missing}")


def test_the_meanings_table_names_only_notebooks_and_parameters_that_exist():
    for notebook, table in pagebox.load_meanings().items():
        assert notebook in manifest.notebooks(), f"meanings.toml: [{notebook}] is no notebook"
        unknown = set(table) - set(reproduce.notebook_parameters(reproduce.notebook_path(notebook)))
        assert not unknown, f"meanings.toml: [{notebook}] names parameters it does not have: {sorted(unknown)}"


def test_the_meanings_table_is_not_a_preset():
    assert "meanings" not in str(reproduce.load_presets())


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_box_lists_every_parameter_with_its_paper_and_quick_values(notebook):
    presets = reproduce.load_presets()
    defaults = reproduce.notebook_parameters(reproduce.notebook_path(notebook))
    from qtheory.presets import literal, parse_value

    meanings = pagebox.parameter_meanings(notebook)
    box = pagebox.rerun_box(notebook, _meta(), presets, meanings, repository="")
    rows = _rows(box)
    assert list(rows) == list(defaults)
    for name, default in defaults.items():
        quick = presets["quick"].get(notebook, {}).get(name, default)
        meaning, paper, shown_quick, kind = rows[name]
        assert meaning == meanings[name].replace("|", "\\|")
        # each as the reader types it after -p: read back, the same value
        assert (paper, shown_quick) == (f"`{literal(default)}`", f"`{literal(quick)}`")
        assert parse_value(paper.strip("`")) == default and parse_value(shown_quick.strip("`")) == quick
        assert kind == pagebox.type_name(default)
    assert "| parameter | meaning | paper | quick (this page) | type |" in box


@pytest.mark.parametrize("notebook", ["R-F2c", "R-F3ab", "R-F3cd"])
def test_no_parameter_shows_a_long_float_where_it_is_a_simple_fraction(notebook):
    """R-F2c, R-F3ab and R-F3cd showed p12 = 0.5833333333333334 (issue 50); R-F2c's list of
    directions still did after the scalars were mended: 7/12 everywhere, and -p reads it back."""
    from qtheory.presets import parse_value

    box = pagebox.rerun_box(notebook, _meta("quick", {"examples": [7 / 12, 0.25]} if notebook == "R-F2c" else
                                             {"p12": 7 / 12}), reproduce.load_presets(),
                            pagebox.parameter_meanings(notebook), repository="")
    assert "0.58333" not in box and "7/12" in box
    for command in re.findall(r"^```bash\n(.*?)\n```$", box, re.M)[:1]:
        value = re.search(r"-p (?:examples|p12) ('\[[^']*\]'|\S+)", command).group(1).strip("'")
        assert parse_value(value) in ([7 / 12, 0.25], 7 / 12)


def test_the_box_gives_the_exact_command_of_the_page_and_the_paper_command():
    overrides = {"n_runs": 20, "n_list": [100, 500], "reading": "lengths-0-2"}
    box = pagebox.rerun_box("L-F2", _meta("quick", overrides), reproduce.load_presets(),
                            pagebox.parameter_meanings("L-F2"), repository="")
    commands = re.findall(r"^```bash\n(.*?)\n```$", box, re.M)
    assert commands == ["python -m qtheory reproduce --preset quick --only L-F2 -p n_runs 20 "
                        "-p n_list '[100, 500]' -p reading lengths-0-2",
                        "python -m qtheory reproduce --only L-F2"]
    assert "Overridden for this page: `n_runs = 20`, `n_list = [100, 500]`" in box
    # a paper-preset page without overrides: one command
    box = pagebox.rerun_box("L-F2", _meta("paper"), reproduce.load_presets(), {}, repository="")
    assert re.findall(r"^```bash\n(.*?)\n```$", box, re.M) == ["python -m qtheory reproduce --only L-F2"]
    assert "| parameter | meaning | paper (this page) | quick | type |" in box


@pytest.mark.parametrize("overrides", [
    {"seed": 7, "rate": 4.0, "fail": True},
    {"n_list": [100, 500], "loads": [0.5, 0.9]},
    {"reading": "lengths-0-2", "word": "true", "number_text": "12", "spaced": "two words", "quote": "it's"},
    {"exact_buffers": {"0.7": {"2": 30}}, "pairs": [[0.1, 0.5], [0.3, 3.0]]},
])
def test_the_command_reads_back_as_the_overrides_it_shows(overrides):
    """What the shell passes to `-p NAME VALUE` is parsed back by reproduce.parse_value."""
    words = shlex.split(pagebox.rerun_command("L-F2", "quick", overrides))
    assert words[:6] == ["python", "-m", "qtheory", "reproduce", "--preset", "quick"]
    pairs = words[8:]
    assert pairs[::3] == ["-p"] * len(overrides)
    assert {pairs[k + 1]: reproduce.parse_value(pairs[k + 2]) for k in range(0, len(pairs), 3)} == overrides


def test_the_command_line_accepts_the_command_of_the_box():
    """The command of the box, given to the parser of `python -m qtheory`, plans the same run."""
    from qtheory import cli

    overrides = {"n_runs": 20, "n_list": [100, 500]}
    words = shlex.split(pagebox.rerun_command("L-F2", "quick", overrides))[3:]
    args = cli.build_parser().parse_args(words)
    (run,) = reproduce.plan(args.preset, args.only, cli._overrides(args.param))
    assert run.notebook == "L-F2" and run.overrides == overrides and run.preset == "quick"


def test_the_box_links_the_source_at_the_run_commit_only_with_a_repository():
    presets = reproduce.load_presets()
    box = pagebox.rerun_box("R-F2c", _meta(), presets, {}, repository=REPO + "/")
    assert f"[the notebook]({REPO}/blob/{COMMIT}/notebooks/R-F2c.ipynb)" in box
    assert f"[its presets]({REPO}/blob/{COMMIT}/notebooks/presets/R.toml)" in box
    assert f"[the package]({REPO}/tree/{COMMIT}/qtheory/redundancy)" in box
    assert "Source at the commit of this run (`0123456789`)" in box
    assert REPO not in pagebox.rerun_box("R-F2c", _meta(), presets, {}, repository="")
    assert REPO not in pagebox.rerun_box("R-F2c", _meta(commit=None), presets, {}, repository=REPO)


def test_the_box_links_the_data_files_of_the_run():
    box = pagebox.rerun_box("R-F2c", _meta(), reproduce.load_presets(), {}, repository="",
                            data_links={"R-F2c.csv": "../../results/R-F2c/R-F2c.csv"})
    assert "Data files of this run (commit `0123456789`): {download}`R-F2c.csv <../../results/R-F2c/R-F2c.csv>`." in box


def test_the_repository_is_the_one_the_book_buttons_use(monkeypatch):
    monkeypatch.setenv("QTHEORY_REPOSITORY", REPO + "/")
    assert pagebox.repository_url() == REPO
    monkeypatch.delenv("QTHEORY_REPOSITORY")
    assert pagebox.repository_url() == ""  # _config.yml leaves it empty


def test_the_box_is_myst_that_parses_without_warnings_to_one_admonition_with_the_table():
    box = pagebox.rerun_box("L-V-limits", _meta("quick", {"n_runs": 3}), reproduce.load_presets(),
                            pagebox.parameter_meanings("L-V-limits"), repository=REPO)
    body = _myst_html(box)
    assert re.findall(r'<aside class="admonition[^"]*"', body) == ['<aside class="admonition qtheory-rerun"']
    assert body.count("<pre") == 2 and body.count("<tr") == 1 + len(_rows(box))
    assert "Rerun this page" in body and f'href="{REPO}/blob/{COMMIT}/notebooks/L-V-limits.ipynb"' in body


def test_type_names_follow_the_check_of_the_command_line():
    assert [pagebox.type_name(v) for v in (7, 2.5, True, "one", [1, 2], [0.5, 1], None)] == [
        "integer", "number", "true or false", "string", "non-empty list of integers",
        "non-empty list of numbers", "any literal"]
    # a list of lists: the head noun takes the plural ("numberss" on U-V-sub's page)
    assert pagebox.type_name([[0.1, 0.5]]) == "non-empty list of non-empty lists of numbers"
    assert pagebox.type_name([True]) == "non-empty list of booleans"


def test_cell_comments_are_the_end_of_line_comment_else_the_lines_above():
    source = "a = 1  # one\n# two,\n# continued\nb = 2\n\nc = 3\n# alone\n\nd = [1,\n     2]  # four\n"
    assert pagebox.cell_comments(source) == {"a": "one", "b": "two, continued", "d": "four"}


@pytest.mark.parametrize("docname, paper", [("book/locality/L-theorems", "L"), ("book/utility/index", "U"),
                                            ("book/reproducing", None), ("book/intro", None)])
def test_a_page_of_a_part_cites_its_paper(docname, paper):
    assert pagebox.paper_of_page(docname) == paper


def test_the_cite_box_of_a_page_holds_the_book_the_page_and_its_paper():
    box = pagebox.page_cite_box("book/locality/L-theorems", "L: the theorems, checked", paper="L")
    blocks = re.findall(r"^```bibtex\n(.*?)^```$", box, re.M | re.S)
    assert blocks[0] == citation.bibtex() and blocks[2] == citation.bibtex(paper="L")
    assert blocks[1].startswith("@misc{qtheory-companion:locality-L-theorems,\n")
    assert "L: the theorems, checked" in blocks[1]
    body = _myst_html(box)
    assert re.findall(r'<aside class="admonition[^"]*"', body) == ['<aside class="admonition dropdown cite-this"']
    assert body.count("<pre") == 3
    assert len(re.findall(r"^```bibtex", pagebox.page_cite_box("book/intro", "Intro"), re.M)) == 2


def test_the_title_of_a_page_is_its_first_heading_outside_code():
    assert pagebox.page_title("(label)=\n# The title\n\ntext\n# Another\n") == "The title"
    assert pagebox.page_title("```python\n# a comment\n```\n\n# Real\n") == "Real"
    assert pagebox.page_title("no heading") is None


def test_a_simple_fraction_is_shown_and_typed_as_a_fraction():
    """R-F2c's and R-F3's p12 = 7/12 read 0.5833333333333334 in the parameter tables (issue 41)."""
    from qtheory.presets import literal, parse_value

    assert literal(7 / 12) == "7/12" and parse_value("7/12") == 7 / 12 and parse_value(" -7 / 12 ") == -7 / 12
    assert pagebox._shown(7 / 12) == "`7/12`" and pagebox._cli_value(7 / 12) == "7/12"
    assert pagebox.rerun_command("R-F3ab", overrides={"p12": 7 / 12}).endswith("-p p12 7/12")
    # short numbers and non-fractions as they are, fractions inside lists too (issue 50); "7/0" is no number
    assert [literal(v) for v in (0.5, 0.1, 1e-3, 0.005833333333333334, [7 / 12])] == [
        "0.5", "0.1", "0.001", "0.005833333333333334", "[7/12]"]
    assert parse_value("[7/12, 0.25]") == [7 / 12, 0.25] and parse_value("[[1/3], -2/3]") == [[1 / 3], -2 / 3]
    assert parse_value("7/0") == "7/0"
