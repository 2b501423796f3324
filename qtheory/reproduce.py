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
import os
import shutil
import sys
import tempfile
import time
import tomllib
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from . import manifest
from .errors import NotebookError, ParameterError
from .results import _git_commit, project_root, replace_dir, results_root

PRESETS = ("quick", "paper")
KERNEL = "python3"


def notebooks_dir() -> Path:
    return project_root() / "notebooks"


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
    """Read ``notebooks/presets/*.toml`` into ``{preset: {notebook: {parameter: value}}}``."""
    directory = directory or notebooks_dir() / "presets"
    out: dict[str, dict[str, dict[str, Any]]] = {p: {} for p in PRESETS}
    for path in sorted(directory.glob("*.toml")):
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


def plan(preset: str = "quick", only: Iterable[str] | None = None,
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
        mine = {k: v for k, v in overrides.items() if k in defaults}
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

    `source`, `executed` and `items` default to the manifest's notebook, its book
    location and its manifest items; tests pass their own.
    """
    import papermill as pm

    source = source or notebook_path(run.notebook)
    executed = executed or executed_path(run.notebook, results)
    items = list(items if items is not None else run.items)
    results.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".run-{run.notebook}-", dir=results))
    staging = work / "results"
    output = work / f"{run.notebook}.ipynb"
    env = _env_for(run, staging, workers, source)
    saved_env = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    start = time.time()
    try:
        try:
            pm.execute_notebook(str(source), str(output), parameters=run.parameters, kernel_name=KERNEL,
                                progress_bar=progress_bar, cwd=str(source.parent), log_output=False)
        except pm.PapermillExecutionError as err:
            failed = _keep_failed(output, run.notebook)
            raise NotebookError(
                f"notebook {run.notebook} failed in cell {err.exec_count}: {err.ename}: {err.evalue}"
                f" (executed copy: {failed}); no results were published") from None
        except Exception as err:  # kernel died, bad notebook file, ...
            raise NotebookError(f"notebook {run.notebook} could not run: {type(err).__name__}: {err}; "
                                f"no results were published") from None
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
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(work, ignore_errors=True)
    return Report(run.notebook, run.preset, items, round(time.time() - start, 2), str(executed))


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
    # readers see parameters, text and figures first; the code is one click away
    for code in nb.cells:
        tags = code.get("metadata", {}).get("tags", [])
        if code.cell_type == "code" and not {"parameters", "injected-parameters", "remove-input"} & set(tags):
            code.setdefault("metadata", {})["tags"] = [*tags, "hide-input"]
    # the executed copy says which inputs produced it (see up_to_date)
    nb.metadata["qtheory"] = {"items": list(items), "input_hash": metas[0].get("input_hash"),
                              "preset": metas[0].get("preset")}
    nbformat.write(nb, output)


def _keep_failed(output: Path, name: str) -> Path | None:
    if not output.exists():
        return None
    dest = project_root() / "_build" / "failed" / f"{name}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(output, dest)
    return dest


def _execute_in_worker(run: Run, results: str, workers: int) -> Report:
    return execute(run, results=Path(results), workers=workers)


def reproduce(preset: str = "quick", only: Iterable[str] | None = None,
              overrides: dict[str, Any] | None = None, *, jobs: int = 1,
              results_dir: str | os.PathLike | None = None, workers: int | None = None,
              force: bool = False, echo=None) -> list[Report]:
    """Plan and execute the selected notebooks; stops at the first failure.

    Parameters
    ----------
    preset : {"quick", "paper"}
        Parameter preset.
    only : iterable of str, optional
        Manifest IDs or notebook names; default all notebooks.
    overrides : dict, optional
        Parameter values applied to every selected notebook that has the parameter.
    jobs : int
        Notebooks executed at the same time.
    results_dir : path, optional
        Results root (default ``results/``).
    workers : int, optional
        Worker processes per notebook for replications (default: CPUs / jobs).
    force : bool
        Rerun notebooks whose results are up to date (same notebook, parameters and
        package sources, see :func:`input_hash`); by default they are skipped, so an
        interrupted run picks up where it stopped.
    echo : callable, optional
        Receives one progress line per event (default: print to stderr).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"`jobs` must be a positive integer (got {jobs!r})")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"`workers` must be a positive integer (got {workers!r})")
    echo = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = plan(preset, only, overrides)
    results = Path(results_dir) if results_dir is not None else results_root()
    if not force:
        todo = []
        for run in runs:
            if up_to_date(run, results):
                echo(f"{run.notebook}: up to date ({', '.join(run.items)}), skipped; --force reruns it")
            else:
                todo.append(run)
        runs = todo
    if workers is None:
        workers = max(1, (os.cpu_count() or 1) // jobs)
    total = len(runs)
    echo(f"reproducing {total} notebook(s) with preset {preset!r}, {jobs} at a time, "
         f"{workers} worker(s) each; results in {results}")
    reports: list[Report] = []

    def done(rep: Report) -> None:
        reports.append(rep)
        echo(f"[{len(reports)}/{total}] {rep.notebook}: {', '.join(rep.items)} done in {rep.seconds:.1f} s")

    if jobs == 1:
        for k, run in enumerate(runs, 1):
            echo(f"[{k}/{total}] {run.notebook} running ...")
            done(execute(run, results=results, workers=workers,
                         progress_bar=sys.stderr.isatty()))
        return reports
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        pending = {pool.submit(_execute_in_worker, run, str(results), workers): run for run in runs}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in finished:
                pending.pop(fut)
                err = fut.exception()
                if err is not None:
                    for other in pending:
                        other.cancel()
                    raise err
                done(fut.result())
    return reports
