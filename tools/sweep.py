"""Run every notebook over many seeds and over boundary values of its parameters, and report
what happened to each run: ran, refused by name, or failed.

    python tools/sweep.py --preset quick --seeds 1-20            # every notebook, seeds 1..20
    python tools/sweep.py --preset quick --boundaries            # boundary values of each parameter
    python tools/sweep.py --preset paper --seeds 1-5 --only U-V  # some notebooks
    python tools/sweep.py ... --out benchmarks/sweep/quick-seeds  # report: .json and .md
    python tools/sweep.py ... --out benchmarks/sweep/quick-seeds --resume  # continue an interrupted one

Each run imports the qtheory of the tree the sweep runs from (its kernels get ``PYTHONPATH``), so
a sweep of a fixed commit can run from a ``git worktree`` while the main checkout is edited.

Each run is ``python -m qtheory reproduce --preset P --only NOTEBOOK -p NAME VALUE --results-dir
TMP --force`` in a process of its own (a temporary results folder: the book is never touched),
with a time limit. Its outcome is

``ran``
    the notebook finished and published its results;
``refused``
    it stopped with one of qtheory's named errors (``ParameterError``, ``InstabilityError``,
    ``MemoryBudgetError``, or the command line's check of a value) whose message names the
    parameter the run set, in backticks, as a reader's bad value must;
``refused, other name``
    the same, but the message names only other parameters (a derived value the reader never
    typed: to be reworded);
``failed``
    anything else: another exception, an error that names nothing, a process killed by a signal
    (out of memory: the operating system's killer), or the time limit.

Boundary values are derived from each parameter's value at the preset (the sweep does not know
the notebooks' rules; a refusal is an acceptable outcome, a failure is not): for an integer, 0, 1,
2 and ten times the value (sizes: the largest a reader may plausibly try); for a real number, 0,
a hundredth of the value and, for loads (names ``rho``, ``lam``, ``load``...), values near and past
1; for a list, its first element alone and the empty list; for a string, an unknown word. The
report lists every run with its parameters, outcome, seconds and the last line of its message.
The command exits 1 when any run failed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qtheory import manifest  # noqa: E402
from qtheory.notebooks import notebook_parameters, notebook_path  # noqa: E402
from qtheory.presets import plan  # noqa: E402

NAMED_ERRORS = ("ParameterError", "InstabilityError", "MemoryBudgetError")
#: parameter names read as loads (a fraction of capacity): boundary values near and past 1 are tried
LOAD_NAMES = re.compile(r"^(rho|lam|lam_\w+|load|loads|\w*_load|\w*_loads|load_fraction\w*|\w*_rho)$")


def boundary_values(name: str, value):
    """Values to try for parameter `name` whose preset value is `value` (see the module doc)."""
    if name == "seed":
        return [0, 2 ** 32 - 1]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return sorted({0, 1, 2, max(10 * value, 3)} - {value})
    if isinstance(value, float):
        out = [0.0, value / 100]
        if LOAD_NAMES.match(name):
            out += [0.99, 1.0, 1.2]
        return out
    if isinstance(value, (list, tuple)):
        out = [[]]
        if value:
            out.append([value[0]])
            if LOAD_NAMES.match(name) and all(isinstance(v, (int, float)) for v in value):
                out.append([0.99, 1.0])
        return out
    if isinstance(value, str):
        return ["no-such-value"]
    return []


def classify(rc: int, stderr: str, timed_out: bool, params: dict | None = None) -> tuple[str, str]:
    """``(outcome, message)`` of one run from its exit code and standard error.

    A refusal is one of qtheory's named errors, or the command line's own check of a value
    (``qtheory: error: parameter `NAME` ...``); it is ``refused`` when its message (before the
    runner's "set on the command line" note) names a parameter the run set, in backticks, and
    ``refused, other name`` when it names only others (a derived value the reader never typed)."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if timed_out:
        return "failed", "time limit reached"
    if rc == 0:
        return "ran", ""
    if rc < 0:
        return "failed", f"killed by signal {-rc}"
    error = next((ln for ln in reversed(lines) if "qtheory: error:" in ln), last)
    own = error.split("; set on the command line")[0]
    named = re.findall(r"`(\w+)(?:\[\d+\])?`", own)
    if not named or not (any(f"{e}:" in own for e in NAMED_ERRORS) or "qtheory: error: parameter `" in own):
        return "failed", error[-400:]
    if params is None or set(named) & set(params):
        return "refused", error[-400:]
    return "refused, other name", error[-400:]


def run_one(notebook: str, preset: str, params: dict, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "qtheory", "reproduce", "--preset", preset, "--only", notebook,
               "--results-dir", tmp, "--force"]
        for k, v in params.items():
            cmd += ["-p", k, repr(v)]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "PYTHONWARNINGS": "ignore",
                                       # the kernels import this tree's qtheory, not the one installed
                                       # editable elsewhere (a sweep from a worktree tests its commit)
                                       "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT),
                                                                                   os.environ.get("PYTHONPATH"))))})
            outcome, message = classify(proc.returncode, proc.stderr, False, params)
        except subprocess.TimeoutExpired:
            outcome, message = classify(-1, "", True)
    return dict(notebook=notebook, preset=preset, parameters=params, outcome=outcome,
                seconds=round(time.perf_counter() - t0, 1), message=message)


def _seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def markdown(report: dict) -> str:
    counts = {}
    for r in report["runs"]:
        counts.setdefault(r["notebook"], {}).setdefault(r["outcome"], 0)
        counts[r["notebook"]][r["outcome"]] += 1
    done = len(report["runs"])
    lines = [f"# Parameter sweep: {report['what']}", "",
             f"{report['date']}, commit {report['commit']}, preset {report['preset']}; command "
             f"`{report['command']}`; {done} of {report.get('planned', done)} planned runs done."
             + "".join(f" Failed runs retried by `{c}`." for c in report.get("retried", [])), "",
             "| notebook | ran | refused by name | refused, naming another parameter | failed |",
             "|---|---|---|---|---|"]
    for nb, c in counts.items():
        lines.append(f"| {nb} | {c.get('ran', 0)} | {c.get('refused', 0)} | {c.get('refused, other name', 0)} | "
                     f"{c.get('failed', 0)} |")
    bad = [r for r in report["runs"] if r["outcome"] != "ran"]
    if bad:
        lines += ["", "| notebook | parameters | outcome | message |", "|---|---|---|---|"]
        for r in bad:
            msg = r["message"].replace("|", "\\|").replace("qtheory: error: ", "")
            lines.append(f"| {r['notebook']} | `{json.dumps(r['parameters'])}` | {r['outcome']} | {msg} |")
    return "\n".join(lines) + "\n"


def _write(out: Path, report: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    for suffix, text in ((".json", json.dumps(report, indent=1) + "\n"), (".md", markdown(report))):
        tmp = out.with_suffix(suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out.with_suffix(suffix))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=("quick", "paper"), default="quick")
    parser.add_argument("--seeds", default="", help="seeds to run, e.g. 1-20 or 1,5,9")
    parser.add_argument("--boundaries", action="store_true", help="also run boundary values of every parameter")
    parser.add_argument("--only", nargs="+", default=None, help="notebooks (default: all)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run (default 1800)")
    parser.add_argument("--out", default=None, help="report path without suffix (.json and .md are written)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the report --out of an interrupted sweep: same commit, preset and plan; "
                             "the runs it holds are kept, not rerun")
    parser.add_argument("--retry-failed", action="store_true",
                        help="with --resume: run again the report's failed runs (with this --timeout), each "
                             "replacing its entry; the report lists the command that retried them")
    args = parser.parse_args(argv)
    if args.retry_failed and not args.resume:
        parser.error("--retry-failed needs --resume (it reruns the failed runs of an earlier report)")
    runs = plan(args.preset, args.only)
    jobs = []
    # seed by seed over every notebook: a report cut short still covers every notebook
    for seed in _seeds(args.seeds) if args.seeds else []:
        jobs += [(run.notebook, {"seed": seed}) for run in runs]
    for run in runs:
        if args.boundaries:
            values = {**notebook_parameters(notebook_path(run.notebook)), **run.parameters}
            for name, value in values.items():
                for v in boundary_values(name, value):
                    jobs.append((run.notebook, {name: v}))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    what = " and ".join(x for x in ((f"seeds {args.seeds}" if args.seeds else ""),
                                    ("boundary values" if args.boundaries else "")) if x)
    results = []
    report = dict(what=what, preset=args.preset, date=datetime.date.today().isoformat(), commit=commit,
                  command="python tools/sweep.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                  planned=len(jobs), runs=results)
    done = set()
    if args.resume:
        if not args.out or not Path(args.out).with_suffix(".json").exists():
            parser.error("--resume needs the report of an earlier sweep as --out")
        old = json.loads(Path(args.out).with_suffix(".json").read_text(encoding="utf-8"))
        for key in ("commit", "preset", "what", "planned"):
            if old[key] != report[key]:
                parser.error(f"--resume: the report's {key} is {old[key]!r}, this sweep's {report[key]!r} "
                             "(a report holds one commit's runs of one plan)")
        results += old["runs"]
        report["command"] = old["command"]
        if args.retry_failed:
            results[:] = [r for r in results if r["outcome"] != "failed"]
            report["retried"] = old.get("retried", []) + [
                "python tools/sweep.py " + " ".join(argv if argv is not None else sys.argv[1:])]
        if old["date"] != report["date"]:
            report["date"] = f"{old['date'].split(' to ')[0]} to {report['date']}"
        done = {(r["notebook"], json.dumps(r["parameters"], sort_keys=True)) for r in results}
    for k, (nb, params) in enumerate(jobs, 1):
        if (nb, json.dumps(params, sort_keys=True)) in done:
            continue
        r = run_one(nb, args.preset, params, args.timeout)
        results.append(r)
        print(f"[{k}/{len(jobs)}] {nb} {params}: {r['outcome']} ({r['seconds']} s) {r['message'][-160:]}", flush=True)
        if args.out:  # after every run: an interrupted sweep leaves the report of what it did
            _write(Path(args.out), report)
    failed = [r for r in results if r["outcome"] == "failed"]
    print(f"{len(results)} runs: {sum(r['outcome'] == 'ran' for r in results)} ran, "
          f"{sum(r['outcome'] == 'refused' for r in results)} refused by name, "
          f"{sum(r['outcome'] == 'refused, other name' for r in results)} refused naming another parameter, "
          f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
