"""Instructions per event of each numba kernel and of its C loop, counted by callgrind.

Wall-clock ratios on a shared 2-core machine move by tens of per cent between runs; the
number of instructions executed per event does not depend on the load. For each case of
``benchmarks/peers/models.py`` with a C peer, this script runs the numba simulator and the
C loop at two run lengths under ``valgrind --tool=callgrind`` and reports

    (instructions of the long run - instructions of the short run) / (events difference),

so that the per-run costs (argument checks, allocation, start-up) cancel and only the event
loop is counted. The numba runs are made twice at each length (short, long, short, long) and
the smaller count of each length is used: in the Python process a run now and then carries
a one-time cost of 10 to 30 million instructions outside the event loop (its cause not
found; it stays with the garbage collector switched off during the runs, as it now is),
which, landing in one short run, moved the result by up to 60 instructions per event
(4 December: two long runs of a case agreed within 0.05 %, two short runs of JLMU differed
by 30 million instructions). The C runs are single: each is a fresh process whose count
repeats. The numba runs share one Python process (imports under callgrind are
slow), whose counters are zeroed before and dumped after each run by callgrind's client
requests (a two-function C library compiled with ``valgrind/callgrind.h``); the C runs are
the C binaries alone under callgrind. Run from the project root (about 10 minutes of one
core):

    .venv/bin/python benchmarks/instructions.py [--cases cos jlmu]

It writes ``benchmarks/latest/instructions.json``, which the performance page shows.
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
RESULTS = ROOT / "benchmarks" / "latest"

#: case -> (short scale, long scale) of benchmarks/peers/models.run
SIZES = {
    "supermarket": ({"horizon": 40.0}, {"horizon": 2040.0}),
    "cos": ({"r_events": 10_000}, {"r_events": 510_000}),
    "coc": ({"r_events": 10_000}, {"r_events": 510_000}),
    "jlmu": ({"u_horizon": 20.0}, {"u_horizon": 270.0}),
    "slta": ({"u_horizon": 20.0}, {"u_horizon": 270.0}),
}

_WORKER = r"""
import ctypes, gc, json, os, subprocess, sys
sys.path.insert(0, {root!r})
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
from benchmarks.peers import models
cases, impl, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
result = {{}}
if impl == "numba":
    # this process runs under callgrind: zero the counters before each run, dump them after
    cg = ctypes.CDLL(sys.argv[4])
    cg.cg_dump.argtypes = [ctypes.c_char_p]
    for key, sizes in cases.items():
        models.run(key, impl, 0, {{"horizon": 5.0, "r_events": 1000, "u_horizon": 2.0}})    # load the kernel
        for rep in range(2):                    # short, long, short, long: the minimum of each
            for k, scale in enumerate(sizes):
                gc.collect()
                gc.disable()
                cg.cg_zero()
                ev = models.run(key, impl, 1, scale).events
                cg.cg_dump(f"{{key}} {{k}} {{rep}}".encode())
                gc.enable()
                result[f"{{key}} {{k}} {{rep}}"] = ev
else:
    # this process runs natively; the C binary, and only it, runs under callgrind
    real = subprocess.run
    target = [None]
    def run(args, *a, **kw):
        if "qtheory-bench-" in str(args[0]):
            args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + target[0], *map(str, args)]
        return real(args, *a, **kw)
    subprocess.run = run
    for key, sizes in cases.items():
        for k, scale in enumerate(sizes):
            target[0] = f"{{out}}.{{key}}.{{k}}"
            result[f"{{key}} {{k}}"] = models.run(key, impl, 1, scale).events
print(json.dumps(result))
"""

_CG = r"""
#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""


def _totals(text: str) -> int:
    m = re.search(r"^(?:totals|summary):\s*(\d+)", text, re.M)
    if not m:
        raise RuntimeError("no totals in a callgrind file")
    return int(m.group(1))


def count(cases: list, impl: str, tmp: Path) -> dict:
    """{"<case> <k>": (instructions, events)} of `impl` for every case at both sizes."""
    out = tmp / f"cg-{impl}"
    code = _WORKER.format(root=str(ROOT))
    spec = json.dumps({key: SIZES[key] for key in cases})
    cmd = [sys.executable, "-c", code, spec, impl, str(out)]
    if impl == "numba":
        lib = tmp / "libcg.so"
        (tmp / "cg.c").write_text(_CG)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(tmp / "cg.c")], check=True)
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd, str(lib)]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    events = json.loads(proc.stdout.strip().splitlines()[-1])
    found = {}
    for path in tmp.glob(f"cg-{impl}*"):
        text = path.read_text()
        if impl == "numba":
            m = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
            if m and m.group(1).strip() in events:
                found[m.group(1).strip()] = _totals(text)
        else:
            label = path.name.split(".", 1)[1].replace(".", " ")
            found[label] = _totals(text)
    missing = set(events) - set(found)
    if missing:
        raise RuntimeError(f"no callgrind counts for {sorted(missing)}")
    out = {}
    for label, ev in events.items():                # "<case> <k> <rep>" -> the least of the reps
        key = " ".join(label.split()[:2])
        if key in out and out[key][1] != ev:
            raise RuntimeError(f"{label}: {ev} events, another run of the same length {out[key][1]}")
        if key not in out or found[label] < out[key][0]:
            out[key] = (found[label], ev)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", choices=list(SIZES), default=list(SIZES))
    args = ap.parse_args(argv)
    from benchmarks.peers import models

    for key in args.cases:                          # compile / fill numba's cache outside callgrind
        models.run(key, "numba", 0, {"horizon": 5.0, "r_events": 1000, "u_horizon": 2.0})
    rows = {}
    with tempfile.TemporaryDirectory(prefix="qtheory-callgrind-") as tmp:
        counts = {impl: count(args.cases, impl, Path(tmp)) for impl in ("c", "numba")}
    for key in args.cases:
        row = {}
        for impl in ("numba", "c"):
            (i0, e0), (i1, e1) = counts[impl][f"{key} 0"], counts[impl][f"{key} 1"]
            row[impl] = {"instructions_per_event": (i1 - i0) / (e1 - e0), "events": [e0, e1],
                         "instructions": [i0, i1]}
        row["ratio_numba_over_c"] = row["numba"]["instructions_per_event"] / row["c"]["instructions_per_event"]
        rows[key] = row
        print(f"{key:12s} instructions per event: numba {row['numba']['instructions_per_event']:7.1f}, "
              f"C {row['c']['instructions_per_event']:7.1f}, ratio {row['ratio_numba_over_c']:.2f}", flush=True)
    import numba

    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "numba": numba.__version__,
           "valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip(),
           "cases": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "instructions.json"
    if path.exists():
        old = json.loads(path.read_text())
        out["previous"] = {k: v for k, v in old.items() if k != "previous"}
        for key, row in old.get("cases", {}).items():    # cases not rerun keep their last values
            out["cases"].setdefault(key, row)
    path.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
