"""Events/s of the simulators of two (or more) source trees, interleaved in one run.

A change to a kernel (issue 15: one dispatch point per kernel) must not cost throughput.
This script measures the same runs on each tree, alternating trees run by run, each run in
a fresh Python process (its own numba cache, keyed by the tree's sources), and prints the
best events/s per tree and case and the ratio to the first tree:

    git worktree add /tmp/base <old commit>
    .venv/bin/python benchmarks/compare_revisions.py --tree before=/tmp/base --tree after=. \\
        --paper U --rounds 5

The best of the rounds is reported (the machine is shared; the least disturbed run is the
closest to the kernel's speed). ``--clock process`` divides by the processor time of the
``simulate`` call instead of the kernel's wall time: on a machine loaded beyond its cores
the wall time counts the time spent waiting for a core, and varies by tens of percent. Cases: U, every policy the tree registers, Table 1
system, n = 1000; L, local JSQ(2) and GWSQ(2) on irg(p^1), N = 1000; R, c.o.c. and
c.o.s.-ALIS on circular-2 with N = 20 servers at lambda = 0.9 (setting 10 of Table 1),
3 million recorded events after a tenth as many of warm-up (``--horizon`` is the number of
recorded events for R).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

_SNIPPETS = {
    "U": r'''
import json, sys, time
import inspect
CPU = sys.argv[3] == "process"
from qtheory.utility import POLICIES, simulate, table1_system
sysm = table1_system(10.0)
n, horizon = int(sys.argv[1]), float(sys.argv[2])
# the keyword of the horizon: `horizon` (older revisions: `t_end`)
key = "horizon" if "horizon" in inspect.signature(simulate).parameters else "t_end"
out = {}
for pol in POLICIES:
    simulate(sysm, 10, pol, seed=0, **{key: 1.0})
    c0 = time.process_time()
    r = simulate(sysm, n, pol, seed=1, **{key: horizon})
    out[pol] = r.events / (time.process_time() - c0 if CPU else r.wall_time)
print(json.dumps(out))
''',
    "L": r'''
import json, sys, time
CPU = sys.argv[3] == "process"
from qtheory.locality.graphs import irg
from qtheory.locality.model import paper_initial_occupancy, paper_system
from qtheory.locality.simulation import iid_initial_state, simulate_gwsq, simulate_jsqd
n, horizon = int(sys.argv[1]), float(sys.argv[2])
system = paper_system("design", d=2)
q0 = paper_initial_occupancy("Q")
g = irg(system, n, seed=1)
out = {}
for name, sim in (("local JSQ(2) irg", simulate_jsqd), ("GWSQ(2)", simulate_gwsq)):
    sim(system, g, initial_state=iid_initial_state(g, q0, 0), t_grid=[0.0, 1.0], seed=0)
    x0 = iid_initial_state(g, q0, 1)
    c0 = time.process_time()
    r = sim(system, g, initial_state=x0, t_grid=[0.0, horizon], seed=1)
    out[name] = r.events / (time.process_time() - c0 if CPU else getattr(r, "wall_time", getattr(r, "seconds", None)))
print(json.dumps(out))
''',
    "R": r'''
import json, sys, time
CPU = sys.argv[3] == "process"
from qtheory.redundancy import model as M
import inspect
from qtheory.redundancy.simulation import simulate
n, events = int(sys.argv[1]), int(float(sys.argv[2]))
system = M.circular_d(n, 2)
# the warm-up keyword as the tree measured names it (warmup before 2026-12-06)
warm = "warmup_events" if "warmup_events" in inspect.signature(simulate).parameters else "warmup"
out = {}
for mech in ("coc", "cos"):
    simulate(system, 0.9, n_events=1000, mechanism=mech, seed=0)
    c0 = time.process_time()
    r = simulate(system, 0.9, n_events=events, mechanism=mech, seed=1, **{warm: events // 10})
    out[mech] = (events + events // 10) / (time.process_time() - c0 if CPU else r.wall_time)
print(json.dumps(out))
''',
}
_SIZES = {"U": (1000, 200.0), "L": (1000, 500.0), "R": (20, 3e6)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=PATH",
                    help="a source tree to measure (repeat; the first is the reference)")
    ap.add_argument("--paper", choices=sorted(_SNIPPETS), default="U")
    ap.add_argument("--rounds", type=int, default=5, help="runs per tree, interleaved")
    ap.add_argument("--clock", choices=("wall", "process"), default="wall",
                    help="events per second of wall time (the kernel's own `wall_time`) or of processor "
                         "time (of the whole `simulate` call; far less disturbed on a loaded machine)")
    ap.add_argument("--n", type=int, default=None, help="pools/servers (default: per paper)")
    ap.add_argument("--horizon", type=float, default=None,
                    help="simulated time, for R recorded events (default: per paper)")
    args = ap.parse_args()
    trees = []
    for spec in args.tree:
        name, sep, path = spec.partition("=")
        if not sep or not (Path(path) / "qtheory" / "__init__.py").is_file():
            ap.error(f"--tree must be NAME=PATH of a checkout with qtheory/ (got {spec!r})")
        trees.append((name, str(Path(path).resolve())))
    n, horizon = _SIZES[args.paper]
    n = args.n or n
    horizon = args.horizon or horizon
    best: dict[str, dict[str, float]] = {name: {} for name, _ in trees}
    for k in range(args.rounds):
        for name, path in (trees if k % 2 == 0 else trees[::-1]):
            env = dict(os.environ, PYTHONPATH=path, NUMBA_NUM_THREADS="1")
            res = subprocess.run([sys.executable, "-c", _SNIPPETS[args.paper], str(n), str(horizon), args.clock],
                                 cwd=path, env=env, capture_output=True, text=True)
            if res.returncode:
                sys.stderr.write(res.stderr)
                return 1
            for case, eps in json.loads(res.stdout.strip().splitlines()[-1]).items():
                best[name][case] = max(best[name].get(case, 0.0), eps)
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)
    ref = trees[0][0]
    cases = list(best[ref])
    print(f"{args.paper}: n = {n}, horizon = {horizon:g}, best of {args.rounds} interleaved runs "
          f"(M events per {args.clock} second)")
    print("| case | " + " | ".join(name for name, _ in trees) + " | " +
          " | ".join(f"{name}/{ref}" for name, _ in trees[1:]) + " |")
    print("|---" * (2 * len(trees)) + "|")
    for case in cases:
        vals = [best[name].get(case, float("nan")) for name, _ in trees]
        print(f"| {case} | " + " | ".join(f"{v / 1e6:.2f}" for v in vals) + " | " +
              " | ".join(f"{v / vals[0]:.3f}" for v in vals[1:]) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
