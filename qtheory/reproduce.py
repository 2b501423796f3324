"""Run the notebooks through papermill and publish their results.

A notebook's cell tagged ``parameters`` holds its defaults, which are the paper's
own settings (the ``paper`` preset). Presets override some of them; they live in
``notebooks/presets/<paper>.toml`` as ``[<preset>.<notebook>]`` tables. Users add
their own overrides with ``-p NAME VALUE``.

For every notebook the runner

1. executes it with papermill into a temporary file, with ``$QTHEORY_RESULTS_DIR``
   pointing to a private staging folder, so nothing is published while it runs;
2. on success moves each result folder into ``results/<ID>/`` and the executed
   notebook to ``book/<part>/<notebook>.ipynb``, where the book renders it
   (the book itself never executes code);
3. on failure publishes nothing, keeps the failed copy under ``_build/failed/`` for
   debugging, and raises :class:`~qtheory.errors.NotebookError` naming the notebook,
   the cell and the error.
"""

from __future__ import annotations

import ast
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from . import manifest
from .errors import NotebookError, ParameterError, QTheoryError
from .results import _git_commit, project_root, replace_dir, results_root

PRESETS = ("quick", "paper")
KERNEL = "python3"


def notebooks_dir() -> Path:
    """``<project>/notebooks``; in an installed wheel without one, the copy it ships.

    The wheel carries the notebooks and presets as ``qtheory/_data/notebooks`` (see
    ``setup.py``); a checkout, the editable install, or a folder named by
    ``$QTHEORY_PROJECT`` uses its own ``notebooks/``.
    """
    own = project_root() / "notebooks"
    shipped = Path(__file__).resolve().parent / "_data" / "notebooks"
    return shipped if not own.is_dir() and shipped.is_dir() else own


def notebook_path(name: str) -> Path:
    return notebooks_dir() / f"{name}.ipynb"


def executed_path(name: str, results: Path | None = None) -> Path:
    """Where the executed copy of notebook `name` goes.

    For the project's own results folder that is the book (``book/<part>/``); for any
    other results folder (``--results-dir``) it is ``<results>/_executed/<part>/``, so
    that a side run never replaces what the book shows.
    """
    items = manifest.notebooks().get(name)
    if not items:
        raise ParameterError(f"notebook {name!r} produces no manifest item")
    default = project_root() / "results"
    if results is not None and Path(results).resolve() != default.resolve():
        return Path(results) / "_executed" / items[0].part / f"{name}.ipynb"
    return project_root() / "book" / items[0].part / f"{name}.ipynb"


def load_presets(directory: Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Read ``notebooks/presets/*.toml`` into ``{preset: {notebook: {parameter: value}}}``
    (except ``meanings.toml``, the parameters' meanings: :mod:`qtheory.pagebox`)."""
    directory = directory or notebooks_dir() / "presets"
    out: dict[str, dict[str, dict[str, Any]]] = {p: {} for p in PRESETS}
    for path in sorted(directory.glob("*.toml")):
        if path.name == "meanings.toml":
            continue
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        for preset, tables in data.items():
            if preset not in PRESETS:
                raise ParameterError(f"{path.name}: unknown preset {preset!r} (known: {', '.join(PRESETS)})")
            for nb, values in tables.items():
                if nb in out[preset]:
                    raise ParameterError(f"{path.name}: preset {preset}.{nb} is defined twice")
                out[preset][nb] = dict(values)
    return out


def notebook_parameters(path: Path) -> dict[str, Any]:
    """Defaults of the cell tagged ``parameters`` of the notebook at `path`."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return _literal_assignments(cell.source, path)
    raise ParameterError(f"{path.name} has no cell tagged 'parameters'")


def _literal_assignments(source: str, path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise ParameterError(f"{path.name}: parameter {node.targets[0].id} must be a literal") from None
    return out


def parse_value(text: str) -> Any:
    """Parse a ``-p NAME VALUE`` value: a Python/JSON literal, else the string itself."""
    for loader in (ast.literal_eval, json.loads):
        try:
            return loader(text)
        except (ValueError, SyntaxError, json.JSONDecodeError):
            pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def _expected(default: Any) -> tuple[str, Any]:
    """What a value replacing `default` must be: a description and a checker."""
    if isinstance(default, bool):
        return "true or false", lambda v: isinstance(v, bool)
    if isinstance(default, int):
        return "an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)
    if isinstance(default, float):
        return "a finite number", lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                                             and math.isfinite(v))
    if isinstance(default, str):
        return "a string", lambda v: isinstance(v, str)
    if isinstance(default, (list, tuple)):
        if not default:
            return "a list", lambda v: isinstance(v, (list, tuple))
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in default)
        proto = 0.0 if numbers and any(isinstance(x, float) for x in default) else default[0]
        what, ok = _expected(proto)
        return (f"a non-empty list of {what.removeprefix('a ').removeprefix('an ')}s".replace("trues or false", "booleans"),
                lambda v: isinstance(v, (list, tuple)) and len(v) > 0 and all(ok(x) for x in v))
    if isinstance(default, dict):
        return "a dict", lambda v: isinstance(v, dict)
    return f"a {type(default).__name__}", lambda v: isinstance(v, type(default))


def check_parameter(name: str, value: Any, default: Any, notebook: str | None = None) -> Any:
    """Return `value` if it may replace the notebook default `default` of parameter `name`.

    The expected type is the default's: an integer for an integer, a finite number for
    a float, a non-empty list of such for a list, and so on. Anything else raises a
    :class:`ParameterError` naming the parameter and the expected type (instead of a
    NumPy error deep inside the notebook). A default of ``None`` accepts anything.
    """
    if default is None:
        return value
    what, ok = _expected(default)
    if not ok(value):
        where = f" of notebook {notebook}" if notebook else ""
        raise ParameterError(f"parameter `{name}`{where} must be {what} (its default is {default!r}); "
                             f"got {value!r}")
    return value


def select(only: Iterable[str] | None) -> list[str]:
    """Notebook names selected by manifest IDs or notebook names, in manifest order."""
    all_nbs = list(manifest.notebooks())
    if not only:
        return all_nbs
    chosen = set()
    for token in only:
        if token in manifest.notebooks():
            chosen.add(token)
        else:
            chosen.add(manifest.get(token).notebook)
    return [nb for nb in all_nbs if nb in chosen]


@dataclass
class Run:
    """One planned notebook execution."""

    notebook: str
    preset: str
    parameters: dict[str, Any]
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def items(self) -> list[str]:
        return [item.id for item in manifest.notebooks()[self.notebook]]


def package_fingerprint() -> str:
    """SHA-256 of the qtheory version and every source file of the package."""
    import hashlib

    from . import __version__

    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def input_hash(run: Run, source: Path | None = None) -> str:
    """Content hash of what determines a run's results: notebook, parameters, package.

    A result whose sidecar carries the same hash is up to date and is not recomputed.
    """
    import hashlib

    source = source or notebook_path(run.notebook)
    digest = hashlib.sha256(source.read_bytes())
    digest.update(json.dumps(run.parameters, sort_keys=True, default=repr).encode())
    digest.update(package_fingerprint().encode())
    return digest.hexdigest()


def up_to_date(run: Run, results: Path, *, executed: Path | None = None, source: Path | None = None,
               items: Sequence[str] | None = None) -> bool:
    """Whether every result of `run` and its executed notebook exist with the run's input hash."""
    executed = executed or executed_path(run.notebook, results)
    if not executed.exists():
        return False
    want = input_hash(run, source)
    try:
        shown = json.loads(executed.read_text(encoding="utf-8")).get("metadata", {}).get("qtheory", {})
    except json.JSONDecodeError:
        return False
    if shown.get("input_hash") != want:
        return False
    for item in (items if items is not None else run.items):
        meta = results / item / f"{item}.json"
        if not meta.exists():
            return False
        try:
            if json.loads(meta.read_text(encoding="utf-8")).get("input_hash") != want:
                return False
        except json.JSONDecodeError:
            return False
    return True


def plan(preset: str = "paper", only: Iterable[str] | None = None,
         overrides: dict[str, Any] | None = None) -> list[Run]:
    """The runs for `preset`, restricted to `only`, with user `overrides` applied.

    Raises :class:`ParameterError` for an unknown preset, ID, missing notebook, or an
    override that no selected notebook accepts.
    """
    if preset not in PRESETS:
        raise ParameterError(f"`preset` must be one of {', '.join(PRESETS)} (got {preset!r})")
    overrides = dict(overrides or {})
    presets = load_presets()
    runs, used = [], set()
    for nb in select(only):
        path = notebook_path(nb)
        if not path.exists():
            raise ParameterError(f"notebook {path.relative_to(project_root())} does not exist yet "
                                 f"(items {', '.join(i.id for i in manifest.notebooks()[nb])})")
        defaults = notebook_parameters(path)
        values = dict(presets[preset].get(nb, {}))
        unknown = sorted(set(values) - set(defaults))
        if unknown:
            raise ParameterError(f"preset {preset}.{nb} sets unknown parameter(s) {', '.join(unknown)}")
        mine = {k: check_parameter(k, v, defaults[k], nb) for k, v in overrides.items() if k in defaults}
        used |= set(mine)
        values.update(mine)
        runs.append(Run(nb, preset, values, mine))
    unused = sorted(set(overrides) - used)
    if unused:
        raise ParameterError(f"no selected notebook has parameter(s) {', '.join(unused)}; "
                             f"see `python -m qtheory params NOTEBOOK`")
    return runs


@dataclass
class Report:
    notebook: str
    preset: str
    items: list[str]
    seconds: float
    executed: str


def _env_for(run: Run, staging: Path, workers: int, source: Path) -> dict[str, str]:
    return {
        "QTHEORY_INPUT_HASH": input_hash(run, source),
        "QTHEORY_RESULTS_DIR": str(staging),
        "QTHEORY_PRESET": run.preset if not run.overrides else f"{run.preset}+overrides",
        "QTHEORY_OVERRIDES": json.dumps(run.overrides),
        "QTHEORY_WORKERS": str(workers),
        "QTHEORY_PROGRESS": "0",
        "QTHEORY_GIT_COMMIT": _git_commit() or "",
        "QTHEORY_RUN_STARTED": repr(time.time()),
    }


def execute(run: Run, *, results: Path, workers: int = 1, progress_bar: bool = False,
            source: Path | None = None, executed: Path | None = None,
            items: Sequence[str] | None = None) -> Report:
    """Execute one notebook and publish its results (see the module docstring).

    Papermill and the kernel run in a child process (:mod:`qtheory._runner`) whose
    output goes to a log file; a failure is reported by :class:`NotebookError` in one
    line. An interrupt (KeyboardInterrupt, or :class:`qtheory._runner.Interrupted` from
    the command line's handlers) kills the child and its kernel and publishes nothing.
    `source`, `executed` and `items` default to the manifest's notebook, its book
    location and its manifest items; tests pass their own. `progress_bar` is ignored
    (kept for callers; the command line prints one line per notebook).
    """
    from . import _runner

    source = source or notebook_path(run.notebook)
    executed = executed or executed_path(run.notebook, results)
    items = list(items if items is not None else run.items)
    results.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".run-{run.notebook}-", dir=results))
    # Unix socket paths are limited to ~100 bytes: the kernel's sockets go to a short folder
    ipc_dir = tempfile.mkdtemp(prefix="qtk-")
    staging = work / "results"
    output = work / f"{run.notebook}.ipynb"
    log = work / "kernel.log"
    spec = {"source": str(source), "output": str(output), "parameters": run.parameters, "kernel": KERNEL,
            "cwd": str(source.parent), "ipc_dir": ipc_dir, "log": str(log), "outcome": str(work / "outcome.pickle")}
    env = {**os.environ, **_env_for(run, staging, workers, source)}
    start = time.time()
    try:
        proc = _runner.start(spec, work, env, run.notebook)
        try:
            proc.wait()
        except BaseException:
            with _runner.signals_ignored():
                _runner.kill_tree(proc)
                shutil.rmtree(work, ignore_errors=True)
                shutil.rmtree(ipc_dir, ignore_errors=True)
            raise
        finally:
            _runner.finish(proc)
        outcome = _read_outcome(Path(spec["outcome"]))
        if outcome is None:
            failed = _keep_failed(log, run.notebook, suffix=".log")
            raise NotebookError(f"notebook {run.notebook} could not run: its runner exited with status "
                                f"{proc.returncode} (log: {failed}); no results were published")
        if not outcome["ok"]:
            if outcome["cell"] is not None:
                failed = _keep_failed(output, run.notebook)
                # the package names its own argument (e.g. `n_replications`): say which
                # values came from the command line, so the user sees what to change
                mine = ", ".join(f"{k} = {v!r}" for k, v in run.overrides.items())
                set_here = f"; set on the command line: {mine}" if mine else ""
                raise NotebookError(
                    f"notebook {run.notebook} failed in cell {outcome['cell']}: {outcome['error']}{set_here}"
                    f" (executed copy: {failed}); no results were published")
            failed = _keep_failed(log, run.notebook, suffix=".log")
            raise NotebookError(f"notebook {run.notebook} could not run: {outcome['error']} "
                                f"(log: {failed}); no results were published")
        produced = {p.name for p in staging.iterdir() if p.is_dir() and not p.name.startswith(".")} \
            if staging.exists() else set()
        missing = [i for i in items if i not in produced]
        if missing:
            raise NotebookError(f"notebook {run.notebook} ran but wrote no result for {', '.join(missing)}; "
                                f"no results were published")
        extra = sorted(produced - set(items))
        if extra:
            raise NotebookError(f"notebook {run.notebook} wrote results for {', '.join(extra)}, "
                                f"which the manifest assigns to other notebooks; no results were published")
        _append_run_record(output, source, staging, items, executed, results)
        for item in items:
            replace_dir(staging / item, results / item)
        executed.parent.mkdir(parents=True, exist_ok=True)
        os.replace(output, executed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(ipc_dir, ignore_errors=True)
    return Report(run.notebook, run.preset, items, round(time.time() - start, 2), str(executed))


def _read_outcome(path: Path) -> dict | None:
    import pickle

    try:
        return pickle.loads(path.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError):
        return None


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


def run_record(metas: list[dict], *, links: dict[str, dict[str, str]] | None = None,
               notebook_link: str | None = None) -> str:
    """Markdown summary of published results: preset, seed, run time, parameters, data files.

    `links` maps an item ID to ``{file name: relative path}`` for download links.
    """
    lines = ["## Run record", "",
             "The numbers on this page were computed in this build; they are saved, with the "
             "parameters below, in the files linked here.", "",
             "| item | preset | seed | run time | finished (UTC) | data |", "|---|---|---|---|---|---|"]
    for meta in metas:
        files = links.get(meta["id"], {}) if links else {}
        data = ", ".join(f"{{download}}`{name} <{path}>`" for name, path in files.items()) or "—"
        lines.append(f"| {meta['id']} | {meta.get('preset')} | {meta.get('seed')} | "
                     f"{meta.get('wall_time_s')} s | {meta.get('finished_utc')} | {data} |")
    params = metas[0].get("parameters", {}) if metas else {}
    if params:
        lines += ["", "Parameters: " + ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in params.items()) + "."]
    versions = metas[0].get("versions", {}) if metas else {}
    if versions:
        lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
                  + (f"; commit `{metas[0]['git_commit'][:10]}`" if metas[0].get("git_commit") else "") + "."]
    if notebook_link:
        lines += ["", f"Source notebook: {{download}}`{Path(notebook_link).name} <{notebook_link}>`."]
    return "\n".join(lines)


def _append_run_record(output: Path, source: Path, staging: Path, items: Sequence[str],
                       executed: Path, results: Path) -> None:
    """Close the executed notebook with the run record of its results (for the book page)."""
    import nbformat

    metas, links = [], {}
    for item in items:
        meta = json.loads((staging / item / f"{item}.json").read_text(encoding="utf-8"))
        metas.append(meta)
        links[item] = {name: _relative(results / item / name, executed.parent)
                       for name in meta.get("files", []) if name.endswith((".csv", ".json"))}
    nb = nbformat.read(output, as_version=4)
    cell = nbformat.v4.new_markdown_cell(run_record(metas, links=links,
                                                    notebook_link=_relative(source, executed.parent)))
    cell["id"] = "qtheory-run-record"
    nb.cells.append(cell)
    # the verdict box and the badge go right under the page title (or first, when the page has
    # none), before the introduction and the parameters: the page answers its paper first
    from .claims import verdict_box

    top = nbformat.v4.new_markdown_cell(badge(metas[0].get("preset"), metas[0].get("overrides")))
    top["id"] = "qtheory-preset-badge"
    box = nbformat.v4.new_markdown_cell(verdict_box(metas))
    box["id"] = "qtheory-verdict"
    title, rest = split_title(nb.cells[0].source) if nb.cells and nb.cells[0].cell_type == "markdown" else ("", None)
    at = 0
    if title:
        nb.cells[0].source = title
        at = 1
        if rest:
            intro = nbformat.v4.new_markdown_cell(rest)
            intro["id"] = "qtheory-introduction"
            nb.cells.insert(1, intro)
    nb.cells[at:at] = [box, top]
    # after the run record: how to compute the page again (commands, every parameter with its
    # paper and quick values), then how to cite it
    from .pagebox import page_title

    data = {name: path for item in items for name, path in links.get(item, {}).items()}
    nb.cells += _closing_cells(source, metas, items, data, page_title(title) if title else None)
    # readers see parameters, text and figures first; the code is one click away
    for code in nb.cells:
        tags = code.get("metadata", {}).get("tags", [])
        if code.cell_type == "code" and "injected-parameters" in tags and "remove-cell" not in tags:
            # the rerun box shows this run's values and overrides: papermill's cell says it twice
            code.setdefault("metadata", {})["tags"] = [*tags, "remove-cell"]
        elif code.cell_type == "code" and not {"parameters", "injected-parameters", "remove-input"} & set(tags):
            code.setdefault("metadata", {})["tags"] = [*tags, "hide-input"]
    # the executed copy says which inputs produced it (see up_to_date)
    nb.metadata["qtheory"] = {"items": list(items), "input_hash": metas[0].get("input_hash"),
                              "preset": metas[0].get("preset"), "overrides": metas[0].get("overrides") or {}}
    nbformat.write(nb, output)


def _closing_cells(source: Path, metas: list[dict], items: Sequence[str], data_links: dict[str, str],
                   title: str | None = None) -> list:
    """The "Rerun this page" and "Cite this" cells that close a result page (:mod:`qtheory.pagebox`)."""
    import nbformat

    from . import pagebox
    from .citation import cite_box

    notebook = source.stem
    rerun = nbformat.v4.new_markdown_cell(pagebox.rerun_box(
        notebook, metas[0], load_presets(), pagebox.parameter_meanings(notebook, source),
        defaults=notebook_parameters(source), data_links=data_links))
    rerun["id"] = "qtheory-rerun"
    cite = nbformat.v4.new_markdown_cell(cite_box(items, title=title))
    cite["id"] = "qtheory-cite"
    return [rerun, cite]


def split_title(source: str) -> tuple[str, str | None]:
    """``(title, rest)`` of a page's first Markdown cell: its label and ``# `` heading lines, and
    what follows them (None when the cell has no heading)."""
    lines = source.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("# "):
            return "\n".join(lines[:k + 1]), "\n".join(lines[k + 1:]).strip() or None
    return "", None


def book_presets(results: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{notebook: {"preset": ..., "overrides": {...}}}`` of the executed notebooks the book shows."""
    out = {}
    for nb in manifest.notebooks():
        path = executed_path(nb, results)
        if not path.exists():
            continue
        try:
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("qtheory", {})
        except json.JSONDecodeError:
            continue
        preset = str(meta.get("preset") or "unknown").removesuffix("+overrides")
        out[nb] = {"preset": preset, "overrides": meta.get("overrides") or {}}
    return out


def preset_warnings(results: Path | None = None) -> list[str]:
    """Warnings for a book whose pages come from different presets or overridden parameters."""
    shown = book_presets(results)
    by_preset: dict[str, list[str]] = {}
    for nb, info in shown.items():
        by_preset.setdefault(info["preset"], []).append(nb)
    lines = []
    if len(by_preset) > 1:
        groups = "; ".join(f"{preset}: {', '.join(nbs)}" for preset, nbs in sorted(by_preset.items()))
        lines.append(f"the book mixes results of different presets ({groups}); rerun them with one "
                     f"preset (python -m qtheory reproduce --preset PRESET --only ...)")
    changed = [nb for nb, info in shown.items() if info["overrides"]]
    if changed:
        lines.append(f"pages computed with overridden parameters (shown in their badge): {', '.join(changed)}")
    return lines


def badge(preset: str | None, overrides: dict[str, Any] | None) -> str:
    """The line at the top of a result page: the preset of its numbers and any overrides."""
    preset = str(preset or "unknown").removesuffix("+overrides")
    text = f'<p class="qtheory-badge">Computed with the <strong>{preset}</strong> preset'
    if overrides:
        shown = ", ".join(f"<code>{k} = {json.dumps(v)}</code>" for k, v in overrides.items())
        text += f"; parameters overridden: {shown}"
    return text + ".</p>"


def _keep_failed(output: Path, name: str, suffix: str = ".ipynb") -> Path | None:
    if not output.exists():
        return None
    dest = project_root() / "_build" / "failed" / f"{name}{suffix}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(output, dest)
    return dest


class ResultsBusy(QTheoryError):
    """Another ``reproduce`` holds the lock of the results folder."""


LOCK_NAME = ".lock"


@contextmanager
def results_lock(results: Path, *, wait: bool = False, echo=None):
    """Hold the lock of the results folder `results` (``fcntl.flock`` on ``<results>/.lock``).

    Two ``reproduce`` runs on one folder would interleave their results; the second
    raises :class:`ResultsBusy` naming the holder's PID, or with `wait` blocks until the
    holder finishes. The lock file stays (removing it would let a waiter lock a file
    that no longer has a name); the kernel releases the lock when its holder exits,
    however it exits.
    """
    import fcntl

    results.mkdir(parents=True, exist_ok=True)
    path = results / LOCK_NAME
    with open(path, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            if not wait:
                raise ResultsBusy(f"results folder {results} is in use by another reproduce run (PID {holder}); "
                                  f"wait for it to finish or pass --wait") from None
            if echo:
                echo(f"results folder {results} is in use by PID {holder}; waiting for it to finish ...")
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _interrupted(exc: BaseException, notebooks: list[str]):
    from . import _runner

    with _runner.signals_ignored():
        _runner.stop_all()
    signum = exc.signum if isinstance(exc, _runner.Interrupted) else signal.SIGINT
    return _runner.Interrupted(signum, tuple(notebooks))


def reproduce(preset: str = "paper", only: Iterable[str] | None = None,
              overrides: dict[str, Any] | None = None, *, jobs: int = 1,
              results_dir: str | os.PathLike | None = None, workers: int | None = None,
              force: bool = False, echo=None, wait: bool = False) -> list[Report]:
    """Plan and execute the selected notebooks; stops at the first failure.

    Parameters
    ----------
    preset : {"paper", "quick"}
        Parameter preset (default ``paper``, the papers' own settings, as ``make book``).
    only : iterable of str, optional
        Manifest IDs or notebook names; default all notebooks.
    overrides : dict, optional
        Parameter values applied to every selected notebook that has the parameter.
    jobs : int
        Notebooks executed at the same time.
    results_dir : path, optional
        Results root (default ``results/``).
    workers : int, optional
        Worker processes per notebook for replications (default:
        :func:`default_notebook_workers`).
    force : bool
        Rerun notebooks whose results are up to date (same notebook, parameters and
        package sources, see :func:`input_hash`); by default they are skipped, so an
        interrupted run picks up where it stopped.
    echo : callable, optional
        Receives one progress line per event (default: print to stderr).
    wait : bool
        When another run holds the results folder (:func:`results_lock`), wait for it
        instead of raising :class:`ResultsBusy`.

    Notes
    -----
    An interrupt (Ctrl-C, or SIGTERM under the command line) kills the running
    notebooks' kernels, publishes nothing of them and raises
    :class:`qtheory._runner.Interrupted` naming them.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"`jobs` must be a positive integer (got {jobs!r})")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"`workers` must be a positive integer (got {workers!r})")
    echo = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = plan(preset, only, overrides)
    results = Path(results_dir) if results_dir is not None else results_root()
    with results_lock(results, wait=wait, echo=echo):
        return _reproduce_locked(runs, results, preset=preset, jobs=jobs, workers=workers, force=force,
                                 echo=echo)


def default_notebook_workers(jobs: int, cpus: int | None = None) -> int:
    """Replication workers per notebook when `jobs` notebooks run at once: CPUs / jobs, but at
    least 2 (and at most the CPUs).

    Up to twice as many processes as cores: while one notebook runs serial code (its
    kernel's start, exact solvers, figures) the other's workers keep every core busy, and
    the longest notebook still replicates on two cores once the short ones are done.
    """
    cpus = cpus or os.cpu_count() or 1
    return max(1, min(cpus, max(2, cpus // jobs)))


def expected_seconds(preset: str = "paper") -> dict[str, float]:
    """Processor seconds of each notebook's last measured run at `preset`
    (``notebooks/presets/seconds.json``, written from ``benchmarks/``); {} if unknown."""
    path = notebooks_dir() / "presets" / "seconds.json"
    if not path.is_file():
        return {}
    return {nb: float(v) for nb, v in json.loads(path.read_text()).get(preset, {}).items()}


def longest_first(runs: list[Run]) -> list[Run]:
    """`runs` ordered by :func:`expected_seconds`, longest first (stable; unknown ones last,
    in their given order)."""
    cost = {}
    for preset in {run.preset for run in runs}:
        for nb, sec in expected_seconds(preset).items():
            cost[(preset, nb)] = sec
    return sorted(runs, key=lambda run: -cost.get((run.preset, run.notebook), -1.0))


def _reproduce_locked(runs: list[Run], results: Path, *, preset: str, jobs: int, workers: int | None,
                      force: bool, echo) -> list[Report]:
    from . import _runner

    _runner.reset()
    if not force:
        todo = []
        for run in runs:
            if up_to_date(run, results):
                echo(f"{run.notebook}: up to date ({', '.join(run.items)}), skipped; --force reruns it")
            else:
                todo.append(run)
        runs = todo
    if workers is None:
        workers = default_notebook_workers(jobs)
    total = len(runs)
    echo(f"reproducing {total} notebook(s) with preset {preset!r}, {jobs} at a time, "
         f"{workers} worker(s) each; results in {results}")
    reports: list[Report] = []

    def done(rep: Report) -> None:
        reports.append(rep)
        echo(f"[{len(reports)}/{total}] {rep.notebook}: {', '.join(rep.items)} done in {rep.seconds:.1f} s")

    if jobs == 1:
        current = None
        try:
            for k, run in enumerate(runs, 1):
                current = run.notebook
                echo(f"[{k}/{total}] {run.notebook} running ...")
                done(execute(run, results=results, workers=workers))
                current = None
        except KeyboardInterrupt as exc:
            raise _interrupted(exc, [current] if current else []) from None
        return reports
    # each notebook runs in a child process of its own (qtheory._runner): threads suffice here;
    # the longest first, so that no long notebook starts last and runs alone at the end
    runs = longest_first(runs)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending = {pool.submit(execute, run, results=results, workers=workers): run for run in runs}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_EXCEPTION)
                for fut in finished:
                    pending.pop(fut)
                    err = fut.exception()
                    if err is not None:
                        raise err
                    done(fut.result())
        except KeyboardInterrupt as exc:
            names = [pending[f].notebook for f in pending if f.running()]
            for other in pending:
                other.cancel()
            raise _interrupted(exc, names) from None
        except BaseException:
            for other in pending:
                other.cancel()
            raise
    return reports
