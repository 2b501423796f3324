import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qtheory import cli, manifest, reproduce


def test_list_prints_every_manifest_id(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for item_id in manifest.ITEMS:
        assert item_id in out


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "--only", "L-F9"], "unknown manifest ID 'L-F9'"),
    (["reproduce", "--jobs", "0"], "`jobs` must be a positive integer"),
    (["params", "Q-F1"], "unknown manifest ID 'Q-F1'"),
    (["reproduce", "--workers", "0"], "`workers` must be a positive integer"),
    (["reproduce", "--preset", "quick", "--only", "L-F2", "-p", "bogus", "1"],
     "no selected notebook has parameter(s) bogus"),
])
def test_bad_input_gives_one_line_and_exit_status_2(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("qtheory: error:") and message in err[0]


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "qtheory", "list", "--paper", "R"],
                         capture_output=True, text=True, check=True).stdout
    assert "R-T1" in out and "L-F1" not in out


@pytest.mark.parametrize("value", ["nan", "inf", "'abc'", "[]", "None", "{'a': 1}", "NaN", "1e999", "true"])
def test_a_parameter_of_the_wrong_type_is_named_with_the_expected_type(value, capsys):
    # horizon of L-F2 is a float: everything above must stop before a kernel starts
    assert cli.main(["reproduce", "--preset", "quick", "--only", "L-F2", "-p", "horizon", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("qtheory: error: parameter `horizon` of notebook L-F2 must be "
                                              "a finite number"), err


@pytest.mark.parametrize("name, value, expected", [
    ("n_list", "[]", "a non-empty list of integers"),
    ("n_list", "[10, 2.5]", "a non-empty list of integers"),
    ("n_runs", "2.5", "an integer"),
    ("n_runs", "True", "an integer"),
    ("reading", "3", "a string"),
])
def test_lists_integers_and_strings_are_checked_against_the_default(name, value, expected, capsys):
    assert cli.main(["reproduce", "--preset", "quick", "--only", "L-F2", "-p", name, value]) == 2
    assert f"parameter `{name}` of notebook L-F2 must be {expected}" in capsys.readouterr().err


def test_a_closed_pipe_ends_list_quietly():
    # the reader is gone before the first line is written (as `| head -1` is, sooner or later)
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "qtheory", "list"], stdout=write, stderr=subprocess.PIPE,
                              text=True)
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_reproduce_book_and_make_book_default_to_the_same_preset():
    parser = cli.build_parser()
    assert parser.parse_args(["reproduce"]).preset == "paper"
    assert parser.parse_args(["book"]).preset == "paper"
    assert reproduce.plan.__defaults__[0] == "paper" and reproduce.reproduce.__defaults__[0] == "paper"
    root = Path(__file__).resolve().parents[1]
    assert re.search(r"^PRESET \?= paper$", (root / "Makefile").read_text(), re.M)
    # CI's quick book says so explicitly
    assert "make book PRESET=quick" in (root / ".ci" / "run").read_text()


def _executed(root: Path, name: str, part: str, preset: str, overrides: dict) -> None:
    path = root / "book" / part / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [], "nbformat": 4, "nbformat_minor": 5,
                                "metadata": {"qtheory": {"preset": preset, "overrides": overrides}}}))


def test_book_warns_naming_the_pages_when_presets_are_mixed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QTHEORY_PROJECT", str(tmp_path))
    monkeypatch.setenv("QTHEORY_REPOSITORY", "https://github.com/someone/qtheory")  # no warning of its own
    calls = []
    monkeypatch.setattr(cli.subprocess, "run",
                        lambda cmd, **kw: calls.append(cmd) or subprocess.CompletedProcess(cmd, 0, ""))
    _executed(tmp_path, "L-F1", "locality", "paper", {})
    _executed(tmp_path, "L-F3", "locality", "paper", {})
    assert cli.main(["book", "--no-run"]) == 0
    assert "warning" not in capsys.readouterr().err  # one preset: nothing to say
    _executed(tmp_path, "L-F2", "locality", "quick+overrides", {"horizon": 5.0})
    assert cli.main(["book", "--no-run"]) == 0
    err = capsys.readouterr().err
    assert "the book mixes results of different presets (paper: L-F1, L-F3; quick: L-F2)" in err, err
    assert "overridden parameters (shown in their badge): L-F2" in err, err
    # the build itself runs quietly (-q: no Sphinx status lines, no configuration dumps)
    assert all("-q" in cmd for cmd in calls) and len(calls) == 2


def test_book_refuses_a_side_results_folder(tmp_path, monkeypatch, capsys):
    """`book --results-dir X` would run the notebooks into X but build the pages from
    results/ and book/<part>/ (older runs, possibly of another preset): refused, naming the
    option, before anything runs; the project's own results folder is accepted."""
    monkeypatch.setenv("QTHEORY_PROJECT", str(tmp_path))
    calls = []
    monkeypatch.setattr(cli.subprocess, "run",
                        lambda cmd, **kw: calls.append(cmd) or subprocess.CompletedProcess(cmd, 0, ""))
    monkeypatch.setattr(cli, "cmd_reproduce", lambda args: calls.append("reproduce"))
    assert cli.main(["book", "--results-dir", str(tmp_path / "side")]) != 0
    assert "`--results-dir`" in capsys.readouterr().err and calls == []
    assert cli.main(["book", "--no-run", "--results-dir", str(tmp_path / "results")]) == 0
    assert len(calls) == 1


def test_book_warns_in_one_line_exactly_when_no_repository_is_set(tmp_path, monkeypatch, capsys):
    """Without a repository URL the cite boxes name the code by version, commit and SWHID only:
    `book` says so once, on stderr; set in the environment or in _config.yml, it says nothing."""
    monkeypatch.setenv("QTHEORY_PROJECT", str(tmp_path))
    monkeypatch.delenv("QTHEORY_REPOSITORY", raising=False)
    monkeypatch.setattr(cli.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 0, ""))
    _executed(tmp_path, "L-F1", "locality", "paper", {})

    def warnings() -> list[str]:
        assert cli.main(["book", "--no-run"]) == 0
        out = capsys.readouterr()
        assert "repository" not in out.out
        return [line for line in out.err.splitlines() if "repository" in line]

    assert warnings() == ["qtheory: warning: no repository URL is set (qtheory_repository in _config.yml, or "
                          "QTHEORY_REPOSITORY): the pages cite the code by version, commit and SWHID, with no link "
                          "to it"]
    monkeypatch.setenv("QTHEORY_REPOSITORY", "https://github.com/someone/qtheory")
    assert warnings() == []
    monkeypatch.delenv("QTHEORY_REPOSITORY")
    (tmp_path / "_config.yml").write_text("sphinx:\n  config:\n    qtheory_repository: https://github.com/a/b\n")
    assert warnings() == []
