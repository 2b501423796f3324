"""A small mutation-testing harness that reaches numba kernels.

mutmut and cosmic-ray patch modules in memory or through import hooks, which a numba
``@njit(cache=True)`` kernel compiled from the file on disk does not see reliably. This
harness instead edits the file itself, in a private copy of the project under the
system's temporary folder, one mutant at a time, and runs a chosen test subset there:

    python tools/mutation.py --module qtheory/utility/rules.py --tests tests/utility \\
        -j 1 --max 60 --seed 0 --report benchmarks/mutation/utility_rules.json

``python tools/mutation.py summary benchmarks/mutation/*.json`` prints a markdown table
of the reports; ``python tools/mutation.py check benchmarks/mutation/equivalent.json``
lists the documented ids that no longer name a mutant (ids carry line numbers, so an
edit above a mutant moves it; a run warns about them too).

Mutation operators (``op`` in the report):

* ``cmp``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``;
* ``arith``: ``+`` <-> ``-``, ``*`` <-> ``/``;
* ``const``: an integer constant ``k`` -> ``k + 1``;
* ``bool``: ``and`` <-> ``or``;
* ``not``: ``not x`` -> ``x``;
* ``drop``: one operand of an ``and``/``or`` removed (drops a condition of an ``if``).

The mutants of a module are listed in source order (line, column, operator), so their ids
(``<line>:<col>:<op>:<k>``, with ``.2``, ``.3`` for nested nodes starting at the same
place) are stable while the module is unchanged; when there are more
than ``--max``, a sample drawn with ``--seed`` is run, again in source order. Each mutant is
run as ``python -m pytest -x -q`` on the test paths with a timeout and classified:

* ``killed``: some test failed (exit code 1) or the tests could not even be collected (2);
* ``survived``: every test passed;
* ``timeout``: the run exceeded ``--timeout`` seconds (counted as killed in the score, as
  mutmut does: an infinite loop is a detected fault);
* ``error``: any other exit code (internal error, no tests collected): not counted.

Numba: qtheory keys each compiled kernel on its file and every package file it imports
(:mod:`qtheory._kernelcache`), so a kernel that reads a mutated file is recompiled from the
mutated source. Every run additionally gets its own empty ``QTHEORY_CACHE_DIR`` and
``NUMBA_CACHE_DIR`` (``--shared-cache`` turns that off to save compile time; the dependency
hash still separates mutants). The original checkout is never
edited; the copy is deleted at the end.

Mutants shown to be equivalent (no test can kill them) are listed with a reason in a JSON
file given by ``--equivalent`` (``{"<id>": "reason", ...}``, or such a mapping per module
path, as in ``benchmarks/mutation/equivalent.json``); they are reported but left out
of the score's denominator.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
        ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
_IGNORE = shutil.ignore_patterns(".git", ".venv", "_build", "__pycache__", "*.egg-info",
                                 ".pytest_cache", ".ipynb_checkpoints", "latest")


@dataclass
class Mutant:
    id: str
    op: str
    line: int
    col: int
    before: str
    after: str
    status: str = "pending"
    seconds: float = 0.0
    detail: str = ""
    equivalent: str = ""


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _skip_nodes(tree: ast.AST) -> set[int]:
    """Nodes never mutated: docstrings, annotations, ``__all__``."""
    skip = _docstring_nodes(tree)
    for node in ast.walk(tree):
        ann = []
        if isinstance(node, ast.AnnAssign):
            ann.append(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ann.append(node.returns)
            args = node.args
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if a is not None:
                    ann.append(a.annotation)
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            ann.append(node.value)
        for a in ann:
            if a is not None:
                skip.update(id(n) for n in ast.walk(a))
    return skip


def _candidates(tree: ast.AST):
    """(node path index, op, k) for every mutation site, in ``ast.walk`` order."""
    skip = _skip_nodes(tree)
    out = []
    for idx, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _CMP:
                    out.append((idx, "cmp", k))
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            out.append((idx, "arith", 0))
        elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITH:
            out.append((idx, "arith", 0))
        elif (isinstance(node, ast.Constant) and type(node.value) is int):
            out.append((idx, "const", 0))
        elif isinstance(node, ast.BoolOp):
            out.append((idx, "bool", 0))
            for k in range(len(node.values)):
                out.append((idx, "drop", k))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((idx, "not", 0))
    return out


def _apply(node: ast.AST, op: str, k: int) -> ast.AST:
    """A mutated copy of `node`."""
    new = copy.deepcopy(node)
    if op == "cmp":
        new.ops[k] = _CMP[type(new.ops[k])]()
    elif op == "arith":
        new.op = _ARITH[type(new.op)]()
    elif op == "const":
        new.value = new.value + 1
    elif op == "bool":
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
    elif op == "drop":
        del new.values[k]
        if len(new.values) == 1:
            new = new.values[0]
    elif op == "not":
        new = new.operand
    return new


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST):
        self.target, self.replacement = target, replacement

    def visit(self, node):
        if node is self.target:
            return self.replacement
        return super().visit(node)


def mutants(source: str) -> list[tuple[Mutant, str]]:
    """Every mutant of `source` as (description, mutated source), in source order."""
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    found = []
    for idx, op, k in _candidates(tree):
        node = nodes[idx]
        tree2 = ast.parse(source)
        node2 = list(ast.walk(tree2))[idx]
        repl = _apply(node2, op, k)
        tree2 = _Replace(node2, repl).visit(tree2)
        ast.fix_missing_locations(tree2)
        before = ast.get_source_segment(source, node) or ast.unparse(node)
        text = ast.unparse(tree2)
        m = Mutant(id=f"{node.lineno}:{node.col_offset}:{op}:{k}", op=op, line=node.lineno,
                   col=node.col_offset, before=" ".join(before.split()),
                   after=ast.unparse(repl))
        found.append((m, text))
    found.sort(key=lambda t: (t[0].line, t[0].col, t[0].op, t[0].id))
    # nested nodes can start at the same place (``a * b * c``: both products at one column):
    # the outer one (first in ast.walk order) keeps the id, the others get ``.2``, ``.3``
    seen: dict[str, int] = {}
    for m, _ in found:
        seen[m.id] = seen.get(m.id, 0) + 1
        if seen[m.id] > 1:
            m.id = f"{m.id}.{seen[m.id]}"
    return found


def stale_equivalents(found: list, equivalent: dict) -> list[str]:
    """Ids in `equivalent` that are no mutant of the module as it is now.

    Ids carry line numbers, so an edit above a documented mutant moves it: its entry then
    names another mutant or none. Re-key such entries (match ``before``/``after``).
    """
    ids = {m.id for m, _ in found}
    return sorted((i for i in equivalent if i not in ids),
                  key=lambda i: tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in i.split(":")))


def select(found: list, max_n: int | None, seed: int) -> list:
    """All of `found`, or a seeded sample of `max_n` of them, kept in source order."""
    if max_n is None or len(found) <= max_n:
        return list(found)
    keep = set(random.Random(seed).sample(range(len(found)), max_n))
    return [t for i, t in enumerate(found) if i in keep]


def _run_tests(workdir: Path, tests: list[str], timeout: float, fresh_cache: bool,
               cache_base: Path, python: str) -> tuple[str, float, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(workdir) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if fresh_cache:
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=cache_base))
    else:
        cache = cache_base / "shared"
    env["QTHEORY_CACHE_DIR"] = str(cache)
    env["NUMBA_CACHE_DIR"] = str(cache / "numba-direct")
    cmd = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        rc = None
    seconds = time.monotonic() - start
    if fresh_cache:
        shutil.rmtree(cache, ignore_errors=True)
    if rc is None:
        return "timeout", seconds, ""
    lines = [ln for ln in out.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    detail = lines[0] if lines else out.strip().splitlines()[-1] if out.strip() else ""
    if rc == 0:
        return "survived", seconds, ""
    if rc in (1, 2):
        return "killed", seconds, detail[:300]
    return "error", seconds, f"exit {rc}: {detail[:300]}"


def score(results: list[Mutant]) -> dict:
    """Counts per status and the score (killed + timeout) / (counted - equivalent)."""
    counts = {s: 0 for s in ("killed", "survived", "timeout", "error")}
    for m in results:
        counts[m.status] = counts.get(m.status, 0) + 1
    equivalent = sum(1 for m in results if m.equivalent and m.status == "survived")
    detected = counts["killed"] + counts["timeout"]
    denom = detected + counts["survived"] - equivalent
    return {**counts, "equivalent": equivalent, "detected": detected,
            "score": (detected / denom) if denom else None}


def run(module: str, tests: list[str], *, max_n: int | None = None, seed: int = 0,
        timeout: float = 300.0, root: Path = ROOT, fresh_cache: bool = True,
        equivalent: dict | None = None, only: list[str] | None = None,
        python: str = sys.executable, log=print) -> dict:
    """Run the mutants of `module` (a path relative to `root`) against `tests`."""
    root = Path(root)
    source = (root / module).read_text()
    found = mutants(source)
    total = len(found)
    if only:
        chosen = [t for t in found if t[0].id in set(only)]
    else:
        chosen = select(found, max_n, seed)
    equivalent = equivalent or {}
    stale = stale_equivalents(found, equivalent)
    if stale:
        log(f"warning: equivalent ids that are no mutant of {module} now (re-key them): "
            f"{', '.join(stale)}")
    base = Path(tempfile.mkdtemp(prefix="qtheory-mutation-"))
    try:
        work = base / "project"
        shutil.copytree(root, work, ignore=_IGNORE, symlinks=True)
        target = work / module
        # baseline on the unparsed (unmutated) module: same formatting route as the mutants
        target.write_text(ast.unparse(ast.parse(source)))
        status, secs, detail = _run_tests(work, tests, timeout * 3, fresh_cache, base, python)
        log(f"baseline: {status} in {secs:.1f} s {detail}")
        if status != "survived":
            raise RuntimeError(f"the tests do not pass on the unmutated module: {status} {detail}")
        results = []
        for n, (m, text) in enumerate(chosen, 1):
            target.write_text(text)
            try:
                m.status, m.seconds, m.detail = _run_tests(work, tests, timeout, fresh_cache,
                                                           base, python)
            finally:
                target.write_text(source)
            m.equivalent = equivalent.get(m.id, "")
            log(f"[{n}/{len(chosen)}] {m.id} {m.before!r} -> {m.after!r}: {m.status} "
                f"({m.seconds:.1f} s)")
            results.append(m)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"module": module, "tests": tests, "seed": seed, "max": max_n,
            "mutants_total": total, "mutants_run": len(results), "timeout_seconds": timeout,
            **score(results), "equivalent_stale": stale, "mutants": [asdict(m) for m in results]}


def _git_commit(root: Path) -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def summary(reports: list[dict]) -> str:
    """A markdown table of JSON reports: one row per module, then the survivors."""
    rows = ["| module | tests | mutants (sampled/all) | killed | timeout | survived | "
            "equivalent | error | score |", "|---|---|---|---|---|---|---|---|---|"]
    surv = []
    for r in reports:
        s = r["score"]
        rows.append(f"| `{r['module']}` | {' '.join('`%s`' % t for t in r['tests'])} | "
                    f"{r['mutants_run']}/{r['mutants_total']} | {r['killed']} | {r['timeout']} | "
                    f"{r['survived']} | {r['equivalent']} | {r['error']} | "
                    f"{'-' if s is None else f'{s:.2f}'} |")
        for m in r["mutants"]:
            if m["status"] == "survived":
                why = f"equivalent: {m['equivalent']}" if m["equivalent"] else "open"
                surv.append(f"- `{r['module']}` `{m['id']}`: `{m['before']}` -> `{m['after']}` "
                            f"({why})")
    return "\n".join(rows) + "\n\nSurvivors:\n\n" + ("\n".join(surv) or "none") + "\n"


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "check":
        # every id of an equivalent file still names a mutant of its module
        eq = json.loads(Path(argv[1]).read_text())
        bad = 0
        for module, ids in eq.items():
            stale = stale_equivalents(mutants((ROOT / module).read_text()), ids)
            for i in stale:
                print(f"{module}: {i} is no mutant now")
            bad += len(stale)
        print(f"{bad} stale id(s)")
        return 1 if bad else 0
    if argv and argv[0] == "summary":
        loaded = [(f, json.loads(Path(f).read_text())) for f in argv[1:]]
        skipped = [f for f, r in loaded if not (isinstance(r, dict) and "mutants" in r)]
        for f in skipped:      # e.g. equivalent.json caught by a glob
            print(f"summary: skipping {f} (not a mutation report)", file=sys.stderr)
        print(summary([r for f, r in loaded if f not in skipped]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", required=True, help="file to mutate, relative to the project")
    p.add_argument("--tests", nargs="+", required=True, help="pytest paths or node ids")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="parallel runs (only 1 is supported: the CPU is shared)")
    p.add_argument("--max", type=int, default=None, help="sample at most this many mutants")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant")
    p.add_argument("--only", nargs="*", help="run only these mutant ids")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--equivalent", help="JSON file {mutant id: reason}")
    p.add_argument("--shared-cache", action="store_true",
                   help="one numba cache for all runs (the source hash still separates them)")
    p.add_argument("--report", help="write the JSON report here")
    args = p.parse_args(argv)
    if args.jobs != 1:
        p.error("only -j 1 is supported")
    if args.list:
        for m, _ in select(mutants((ROOT / args.module).read_text()), args.max, args.seed):
            print(m.id, repr(m.before), "->", repr(m.after))
        return 0
    equivalent = {}
    if args.equivalent:
        equivalent = json.loads(Path(args.equivalent).read_text())
        if any(k.endswith(".py") for k in equivalent):  # one section per module
            equivalent = equivalent.get(args.module, {})
    commit = _git_commit(ROOT)      # of the tree the run copies now, not of HEAD when it ends
    report = run(args.module, args.tests, max_n=args.max, seed=args.seed,
                 timeout=args.timeout, fresh_cache=not args.shared_cache,
                 equivalent=equivalent, only=args.only)
    report["commit"] = commit
    report["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    s = report["score"]
    print(f"{args.module}: {report['detected']}/{report['mutants_run']} detected, "
          f"{report['survived']} survived ({report['equivalent']} equivalent), "
          f"{report['error']} error; score {s if s is None else round(s, 3)}")
    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
