import subprocess
import sys

import pytest

from qtheory import cli, manifest


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
