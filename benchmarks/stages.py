"""How long each stage of CI takes, recorded so that the next change that slows one shows it (issue 51).

    python benchmarks/stages.py                       # CI from a fresh clone of HEAD, its stages timed
    python benchmarks/stages.py --paper-book          # ... and then `make book` (paper) from a fresh clone
    python benchmarks/stages.py --from-log LOG --times DIR   # re-read an earlier run's log

Runs ``bash .ci/run`` in a fresh clone of the committed tree (the check every change must pass
before it lands), with ``QTHEORY_TEST_TIMES`` set so that each pytest session writes its seconds
per test directory (``tests/conftest.py``), and reads from its output the time at which each stage
ended (the ``ci: ... after N s`` lines). The quick book's per-notebook times are the run records of
the clone's results (``wall_time_s``). With ``--paper-book``, ``benchmarks/book_fresh.sh`` then builds
the paper book from another fresh clone with an empty kernel cache (environment included), and its
per-notebook times are read the same way. Written: ``benchmarks/latest/stages.json`` and
``stages.md`` (``--out`` changes the stem). Meaningful on an idle machine: the load average at the
start and end is recorded beside the times. Budgets (issue 51): ``make test`` under 5 minutes,
``.ci/run`` under 20, the paper book under 5.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: seconds each stage may take (issue 51); the report marks a stage over its budget
BUDGETS = {"tests": 300, "ci": 1200, "paper book": 300}
STAGE_LINE = re.compile(r"^ci: (?P<what>.+?) (?:finished|built) after (?P<s>\d+) s$")


def stages_from_log(text: str) -> list[dict]:
    """The stages of a ``.ci/run`` output: each ``ci: X finished after N s`` line ends stage X,
    which began when the previous one ended."""
    out, previous = [], 0
    for line in text.splitlines():
        m = STAGE_LINE.match(line.strip())
        if m:
            end = int(m["s"])
            out.append({"stage": m["what"], "seconds": end - previous, "ended_after": end})
            previous = end
    return out


def notebook_times(results: Path) -> list[dict]:
    """Per-notebook wall times of a build, from the run records of its results folder."""
    rows = {}
    for sidecar in sorted(results.glob("*/*.json")):
        try:
            record = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and "wall_time_s" in record and record.get("notebook"):
            rows[record["notebook"]] = {"notebook": record["notebook"], "seconds": record["wall_time_s"],
                                        "preset": record.get("preset")}
    return sorted(rows.values(), key=lambda r: -r["seconds"])


def test_times(directory: Path) -> dict:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _clone(into: Path) -> str:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(into)], check=True)
    return subprocess.run(["git", "-C", str(into), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def run_ci(work: Path) -> dict:
    clone, times = work / "clone", work / "times"
    commit = _clone(clone)
    env = dict(os.environ, QTHEORY_TEST_TIMES=str(times))
    log = work / "ci.log"
    load_before, start = _load(), time.monotonic()
    with log.open("w", encoding="utf-8") as f:
        proc = subprocess.Popen(["bash", ".ci/run"], cwd=clone, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            f.write(line)
            if line.startswith("ci: "):
                print(line.rstrip(), flush=True)
        status = proc.wait()
    wall = time.monotonic() - start
    text = log.read_text(encoding="utf-8")
    return {"commit": commit, "exit_status": status, "wall_seconds": round(wall, 1), "log": str(log),
            "load_before": load_before, "load_after": _load(), "stages": stages_from_log(text),
            "tests": test_times(times), "quick_book": notebook_times(clone / "results")}


def run_paper_book(work: Path) -> dict:
    log = work / "paper_book.log"
    load_before, start = _load(), time.monotonic()
    status = subprocess.run(["bash", str(ROOT / "benchmarks" / "book_fresh.sh"), str(log), str(ROOT)]).returncode
    wall = time.monotonic() - start
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    m = re.search(r"clone: (\S+)", text)
    results = Path(m[1]) / "results" if m else None
    return {"exit_status": status, "wall_seconds": round(wall, 1), "log": str(log), "load_before": load_before,
            "load_after": _load(), "notebooks": notebook_times(results) if results else []}


def markdown(report: dict) -> str:
    lines = [f"# CI stages, {report['date']} (commit {report['ci'].get('commit', '?')})", "",
             f"Machine: {report['cpus']} cores; load average (1, 5, 15 min) {report['ci'].get('load_before')} "
             f"at the start, {report['ci'].get('load_after')} at the end. Written by `python benchmarks/stages.py`.", ""]
    ci = report["ci"]
    budget = BUDGETS["ci"]
    lines += ["| stage | seconds | ended after |", "|---|---:|---:|"]
    lines += [f"| {s['stage']} | {s['seconds']} | {s['ended_after']} |" for s in ci["stages"]]
    lines += ["", f"Whole `.ci/run`: {ci['wall_seconds']:.0f} s (budget {budget} s: "
              f"{'within' if ci['wall_seconds'] <= budget else 'OVER'}); exit status {ci['exit_status']}.", ""]
    for session, data in ci["tests"].items():
        total = sum(d["seconds"] for d in data["directories"].values())
        lines += [f"## pytest session `{session}` ({data.get('workers') or 1} worker(s))", "",
                  "Seconds summed over tests (set-up, call, tear-down); with two workers the wall time is about half.", "",
                  "| directory | tests | seconds |", "|---|---:|---:|"]
        for d, v in sorted(data["directories"].items(), key=lambda kv: -kv[1]["seconds"]):
            lines.append(f"| {d} | {v['tests']} | {v['seconds']:.1f} |")
        lines += [f"| all | {sum(v['tests'] for v in data['directories'].values())} | {total:.1f} |", ""]
    if ci.get("quick_book"):
        lines += ["## Quick book (CI), seconds per notebook", "", "| notebook | seconds |", "|---|---:|"]
        lines += [f"| {r['notebook']} | {r['seconds']:.1f} |" for r in ci["quick_book"]] + [""]
    paper = report.get("paper_book")
    if paper:
        lines += ["## Paper book from a fresh clone (`make env` and `make book`, empty kernel cache)", "",
                  f"{paper['wall_seconds']:.0f} s in all (budget {BUDGETS['paper book']} s: "
                  f"{'within' if paper['wall_seconds'] <= BUDGETS['paper book'] else 'OVER'}); "
                  f"load {paper['load_before']} to {paper['load_after']}.", "",
                  "| notebook | seconds |", "|---|---:|"]
        lines += [f"| {r['notebook']} | {r['seconds']:.1f} |" for r in paper["notebooks"]] + [""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "latest" / "stages",
                    help="report path without suffix (.json and .md are written)")
    ap.add_argument("--paper-book", action="store_true", help="also time `make book` (paper) from a fresh clone")
    ap.add_argument("--from-log", type=Path, default=None, help="an earlier .ci/run output to read instead of running CI")
    ap.add_argument("--times", type=Path, default=None, help="with --from-log: its QTHEORY_TEST_TIMES folder")
    args = ap.parse_args(argv)
    if args.times is not None and args.from_log is None:
        ap.error("--times goes with --from-log")
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
              "budgets_seconds": BUDGETS}
    with tempfile.TemporaryDirectory(prefix="qtheory-stages-") as tmp:
        if args.from_log is not None:
            if not args.from_log.exists():
                ap.error(f"--from-log {args.from_log}: no such file")
            stages = stages_from_log(args.from_log.read_text(encoding="utf-8"))
            report["ci"] = {"commit": None, "exit_status": None, "log": str(args.from_log),
                            "wall_seconds": float(stages[-1]["ended_after"]) if stages else 0.0,
                            "load_before": None, "load_after": None, "stages": stages,
                            "tests": test_times(args.times) if args.times else {}, "quick_book": []}
        else:
            report["ci"] = run_ci(Path(tmp))
        if args.paper_book:
            report["paper_book"] = run_paper_book(Path(tmp))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        for key, suffix in (("ci", ".ci.log"), ("paper_book", ".paper_book.log")):
            log = Path(report.get(key, {}).get("log") or "")
            if log.is_file() and log.parent == Path(tmp):      # the temporary folder goes: keep its log
                kept = args.out.with_name(args.out.name + suffix)
                kept.write_text(log.read_text(encoding="utf-8"), encoding="utf-8")
                report[key]["log"] = str(kept)
        for suffix, text in ((".json", json.dumps(report, indent=1) + "\n"), (".md", markdown(report) + "\n")):
            partial = args.out.with_name(args.out.name + suffix + ".part")
            partial.write_text(text, encoding="utf-8")
            partial.replace(args.out.with_name(args.out.name + suffix))
    print(f"stages: {args.out}.md")
    return 0 if report["ci"].get("exit_status") in (0, None) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("stages: interrupted; no report written", file=sys.stderr)
        sys.exit(130)
