"""Command line: ``python -m qtheory {list,params,reproduce,book,pdf}``.

Errors in the user's input (an unknown ID, a bad parameter value, a failing notebook)
end with a one-line message on stderr and exit status 2, not a traceback
(set ``QTHEORY_DEBUG=1`` to see the traceback). Ctrl-C (SIGINT) or SIGTERM while
notebooks run stops them, says in one line which notebook was interrupted (nothing of
it is published) and exits with status 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from . import _runner, manifest, reproduce
from .errors import ParameterError, QTheoryError
from .results import project_root, results_root


def _status(item: manifest.Item, root: Path) -> str:
    if not reproduce.notebook_path(item.notebook).exists():
        return "no notebook yet"
    meta = root / item.id / f"{item.id}.json"
    if not meta.exists():
        return "not run"
    import json

    data = json.loads(meta.read_text())
    return f"done ({data.get('preset')}, {data.get('finished_utc')}, {data.get('wall_time_s')} s)"


def cmd_list(args) -> int:
    root = Path(args.results_dir) if args.results_dir else results_root()
    rows = [("ID", "kind", "notebook", "status", "what")]
    for item in manifest.ITEMS.values():
        if args.paper and item.paper not in args.paper:
            continue
        rows.append((item.id, item.kind, item.notebook, _status(item, root), item.title))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4])
    return 0


def cmd_params(args) -> int:
    name = reproduce.select([args.notebook])[0]
    defaults = reproduce.notebook_parameters(reproduce.notebook_path(name))
    presets = reproduce.load_presets()
    print(f"notebook {name} (items: {', '.join(i.id for i in manifest.notebooks()[name])})")
    rows = [("parameter", "paper (default)", *[p for p in reproduce.PRESETS if p != "paper"])]
    for key, value in defaults.items():
        rows.append((key, repr(value), *[repr(presets[p].get(name, {}).get(key, value))
                                          for p in reproduce.PRESETS if p != "paper"]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    return 0


def _overrides(pairs) -> dict:
    return {name: reproduce.parse_value(value) for name, value in (pairs or [])}


def cmd_reproduce(args) -> int:
    if getattr(args, "scheduler", None):
        from qtheory import runtime
        runtime.dask_executor(args.scheduler)  # fail early, naming --scheduler
        os.environ["QTHEORY_SCHEDULER"] = args.scheduler  # inherited by the notebook processes
    reproduce.reproduce(args.preset, args.only, _overrides(args.param), jobs=args.jobs,
                        results_dir=args.results_dir, workers=args.workers, force=args.force,
                        wait=args.wait)
    return 0


def cmd_book(args) -> int:
    if args.results_dir is not None and Path(args.results_dir).resolve() != (project_root() / "results").resolve():
        # a side run writes its executed notebooks to <dir>/_executed: the book, built from
        # results/ and book/<part>/, would show the older ones under the new run's name
        raise ParameterError(f"`--results-dir` {args.results_dir!r} is for side runs of `reproduce`; the book is "
                             f"built from {project_root() / 'results'} (leave --results-dir out)")
    from .pagebox import repository_url

    if not repository_url():
        # before the run: the result pages' cite boxes are written with their results
        print("qtheory: warning: no repository URL is set (qtheory_repository in _config.yml, or "
              "QTHEORY_REPOSITORY): the pages cite the code by version, commit and SWHID, with no link to it",
              file=sys.stderr, flush=True)
    if not args.no_run:
        cmd_reproduce(args)
    for line in reproduce.preset_warnings():
        print(f"qtheory: warning: {line}", file=sys.stderr, flush=True)
    # -q: Sphinx's status lines (and myst's and myst-nb's full configuration dumps) are
    # left out; its warnings and errors still go to stderr. jupyter-book's own banner
    # lines (stdout) are shown only when the build fails.
    # Sphinx reads and writes the pages on as many processes as notebooks run at a time
    # (qtheory/_jupyterbook.py: jupyter-book build with Sphinx's -j)
    cmd = [sys.executable, "-m", "qtheory._jupyterbook", "--jobs", str(max(1, min(args.jobs, os.cpu_count() or 1))),
           "build", "-q", str(project_root())]
    if args.strict:
        cmd += ["-W", "--keep-going"]
    print("building the book:", " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        raise QTheoryError(f"jupyter-book build failed (exit {proc.returncode})")
    print(f"book: {project_root() / '_build' / 'html' / 'index.html'}", file=sys.stderr)
    return 0


def cmd_pdf(args) -> int:
    from . import pdf

    result = pdf.build_pdf(args.html, args.output, base_url=args.base_url,
                           echo=lambda line: print(line, file=sys.stderr, flush=True))
    for doc, problems in result.problems.items():
        print(f"qtheory: warning: {doc}: {'; '.join(problems)}", file=sys.stderr, flush=True)
    print(f"pdf: {result.path} ({result.pages} pages)", file=sys.stderr)
    return 0


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", choices=reproduce.PRESETS, default="paper",
                   help="parameter preset (default: paper, the papers' own scale, as `make book`; "
                        "quick = small runs)")
    p.add_argument("--only", nargs="+", metavar="ID",
                   help="manifest IDs or notebook names to run (default: all)")
    p.add_argument("-p", "--param", nargs=2, action="append", metavar=("NAME", "VALUE"),
                   help="override a notebook parameter (a Python literal), repeatable")
    p.add_argument("--jobs", type=int, default=1, help="notebooks run at the same time (default 1)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes per notebook for replications (default: CPUs / jobs, at least 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="send every notebook's replications to the Dask scheduler at ADDRESS "
                        "(e.g. tcp://10.0.0.1:8786); same numbers as a local run")
    p.add_argument("--results-dir", default=None, help="results root (default: results/)")
    p.add_argument("--force", action="store_true",
                   help="rerun notebooks whose results are up to date (default: skip them)")
    p.add_argument("--wait", action="store_true",
                   help="if another run uses the results folder, wait for it (default: stop)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m qtheory", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="manifest IDs with their notebooks and status")
    p.add_argument("--paper", nargs="+", choices=sorted(manifest.PAPERS), help="only these papers")
    p.add_argument("--results-dir", default=None)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("params", help="parameters of a notebook and their preset values")
    p.add_argument("notebook", help="notebook name or manifest ID")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("reproduce", help="run notebooks through papermill, publish results")
    _add_run_options(p)
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser("book", help="reproduce, then build the HTML book in _build/html")
    _add_run_options(p)
    p.add_argument("--no-run", action="store_true", help="only build, reuse executed notebooks")
    p.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    p.set_defaults(func=cmd_book)

    p = sub.add_parser("pdf", help="print the built book (_build/html) into one PDF with Chromium")
    p.add_argument("--html", default=None, metavar="DIR", help="the built book (default: _build/html)")
    p.add_argument("--output", "-o", default=None, metavar="FILE",
                   help="the PDF to write (default: _build/pdf/qtheory-companion.pdf)")
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="the online book's address: links between pages point there (default: plain text)")
    p.set_defaults(func=cmd_pdf)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {}
    if args.command in ("reproduce", "book") and threading.current_thread() is threading.main_thread():
        # SIGTERM stops a run as Ctrl-C does (kernels killed, nothing partial published)
        handlers = {sig: signal.signal(sig, _runner.raise_interrupted) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
        return code
    except (QTheoryError, ValueError, FileNotFoundError) as err:
        if os.environ.get("QTHEORY_DEBUG"):
            raise
        print(f"qtheory: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        if not isinstance(exc, _runner.Interrupted):
            exc = _runner.Interrupted(signal.SIGINT)
        print(exc.message(), file=sys.stderr, flush=True)
        return exc.exit_status
    except BrokenPipeError:
        # the reader of our output went away (`python -m qtheory list | head -1`): stop
        # quietly; pointing stdout at /dev/null keeps Python's exit flush from complaining
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
