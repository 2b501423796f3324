"""The distribution: version in one place, and a built wheel that works outside the repository.

The wheel test builds the sdist and the wheel from it (``python -m build``, no build
isolation: the environment's pinned setuptools, nothing downloaded), installs the wheel
into a fresh virtual environment and runs the command line from a folder that is not the
repository. The fresh environment sees its dependencies (numpy, papermill, ...) through
a ``.pth`` line naming this environment's site-packages, which Python appends to its
path after its own: the wheel's ``qtheory`` is the one imported, the dependencies are
not downloaded again.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import qtheory

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "qtheory-companion"


def test_the_distribution_name_is_not_the_unrelated_qtheory_of_the_package_index():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION


def test_the_version_is_written_once_in_the_package():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "qtheory.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", qtheory.__version__)


def test_the_changelog_has_an_entry_for_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[?{re.escape(qtheory.__version__)}\]?\b", text, re.M), qtheory.__version__


def _run(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _clean_env(**extra):
    """The environment without this run's PYTHONPATH and qtheory settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QTHEORY_", "PYTHON"))}
    return {**env, **extra}


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel built from it, from a copy of the sources (the build
    leaves its egg-info beside them)."""
    pytest.importorskip("build", reason="python -m build needs the `build` package (requirements.txt)")
    source = tmp_path_factory.mktemp("source") / "qtheory"
    skip = shutil.ignore_patterns(".git", ".venv", "_build", "results", "benchmarks", "tests", "*.egg-info",
                                  "__pycache__", "build", "dist", ".pytest_cache", ".hypothesis", "node_modules")

    def ignore(folder, names):
        if Path(folder) == ROOT / "book":  # of the book, the sdist takes the bibliography only
            return [n for n in names if n != "references.bib"]
        return skip(folder, names)

    shutil.copytree(ROOT, source, ignore=ignore)
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)])
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return wheels[0], sdists[0]


@pytest.mark.slow
def test_the_wheel_carries_every_notebook_and_preset(dist):
    wheel, sdist = dist
    assert wheel.name == f"qtheory_companion-{qtheory.__version__}-py3-none-any.whl"
    assert sdist.name == f"qtheory_companion-{qtheory.__version__}.tar.gz"
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n.removeprefix("qtheory/_data/notebooks/") for n in names if n.startswith("qtheory/_data/notebooks/")}
    source = ROOT / "notebooks"
    expected = {p.relative_to(source).as_posix() for p in source.glob("*.ipynb")}
    expected |= {p.relative_to(source).as_posix() for p in (source / "presets").iterdir() if p.is_file()}
    assert expected and shipped == expected
    assert {"qtheory/_data/CITATION.cff", "qtheory/_data/references.bib"} <= names


@pytest.mark.slow
def test_a_fresh_environment_with_the_wheel_lists_and_reproduces(dist, tmp_path):
    wheel, _ = dist
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip())
    # the dependencies from this environment, after the fresh one's own site-packages
    (purelib / "_qtheory_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    env = _clean_env(QTHEORY_CACHE_DIR=str(tmp_path / "cache"))
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
          "--no-index", str(wheel)], cwd=elsewhere, env=env)
    where = _run([str(python), "-c", "import qtheory, qtheory.reproduce as r; "
                  "print(qtheory.__file__); print(r.notebooks_dir()); print(qtheory.__version__)"],
                 cwd=elsewhere, env=env).split()
    assert Path(where[0]).is_relative_to(purelib), where
    assert Path(where[1]) == purelib / "qtheory" / "_data" / "notebooks", where
    assert where[2] == qtheory.__version__

    listing = _run([str(python), "-m", "qtheory", "list"], cwd=elsewhere, env=env)
    for item_id in ("L-F1", "R-F2c", "U-T1"):
        assert re.search(rf"^{item_id}\s.*\bnot run\b", listing, re.M), listing
    assert "no notebook yet" not in listing
    params = _run([str(python), "-m", "qtheory", "params", "R-F2c"], cwd=elsewhere, env=env)
    assert re.search(r"^n_directions\s+\d+\s+59\b", params, re.M), params  # the quick preset's value

    cite = _run([str(python), "-m", "qtheory.citation", "bibtex", "R-F2c"], cwd=elsewhere, env=env)
    assert cite.startswith("@misc{qtheory-companion:R-F2c,") and f"version      = {{{qtheory.__version__}}}" in cite
    assert "doi           = {10.1287/opre.2022.2385}" in _run([str(python), "-m", "qtheory.citation", "bibtex", "R"],
                                                              cwd=elsewhere, env=env)

    results = elsewhere / "results"
    _run([str(python), "-m", "qtheory", "reproduce", "--preset", "quick", "--only", "R-F2c",
          "--results-dir", str(results), "--jobs", "1"], cwd=elsewhere, env=env)
    meta = json.loads((results / "R-F2c" / "R-F2c.json").read_text())
    assert meta["preset"] == "quick" and meta["versions"]["qtheory"] == qtheory.__version__, meta
    assert (results / "R-F2c" / "R-F2c.csv").stat().st_size > 0
