"""Events per processor second of the simulators of an older source tree against this one,
both loaded in one process and run alternately (the fairest A/B on a shared machine).

    git worktree add --detach /tmp/base <old commit>
    .venv/bin/python benchmarks/ab_kernels.py /tmp/base --paper U --rounds 8

The older tree's ``qtheory`` is copied to a temporary folder as the package
``qtheory_before`` (the package imports itself relatively), so both versions' kernels are
compiled in the same process. Each round runs every case once per version, the order
alternating between rounds; times are processor seconds of this process (not wall time,
which counts the time other processes hold the core). Prints the best and the median
ratio new / old per case. Issue 15 used it to keep every kernel within 5 % of its
events/s across the policy-object refactoring (``benchmarks/compare_revisions.py`` does
the same across processes, in wall time).
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _cases(paper: str, mod, n: int, horizon: float):
    if paper == "U":
        system = mod.utility.table1_system(10.0)
        # the keyword of the horizon: `horizon` (older revisions: `t_end`)
        key = "horizon" if "horizon" in inspect.signature(mod.utility.simulate).parameters else "t_end"
        for pol in ("jlmu", "slta", "random", "jsq", "conservative"):
            mod.utility.simulate(system, 10, pol, seed=0, **{key: 1.0})
            yield pol, lambda k, pol=pol: mod.utility.simulate(system, n, pol, seed=k, **{key: horizon}).events
    else:
        from importlib import import_module
        graphs = import_module(mod.__name__ + ".locality.graphs")
        model = import_module(mod.__name__ + ".locality.model")
        sim = import_module(mod.__name__ + ".locality.simulation")
        system = model.paper_system("design", d=2)
        q0 = model.paper_initial_occupancy("Q")
        g = graphs.irg(system, n, seed=1)
        for name, f in (("local JSQ(2)", sim.simulate_jsqd), ("GWSQ(2)", sim.simulate_gwsq)):
            f(system, g, sim.iid_initial_state(g, q0, 0), [0.0, 1.0], 0)
            yield name, lambda k, f=f: f(system, g, sim.iid_initial_state(g, q0, k), [0.0, horizon], k).events


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="checkout of the older tree (holding qtheory/)")
    ap.add_argument("--paper", choices=("U", "L"), default="U")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--n", type=int, default=1000, help="pools (U) or servers (L)")
    ap.add_argument("--horizon", type=float, default=50.0)
    args = ap.parse_args()
    if not (args.before / "qtheory" / "__init__.py").is_file():
        ap.error(f"`before` must be a checkout holding qtheory/ (got {args.before})")
    tmp = Path(tempfile.mkdtemp(prefix="qtheory_before_"))
    shutil.copytree(args.before / "qtheory", tmp / "qtheory_before")
    sys.path.insert(0, str(tmp))
    sys.path.insert(0, str(ROOT))
    import qtheory
    import qtheory.utility  # noqa: F401
    import qtheory_before
    import qtheory_before.utility  # noqa: F401

    old = dict(_cases(args.paper, qtheory_before, args.n, args.horizon))
    new = dict(_cases(args.paper, qtheory, args.n, args.horizon))
    rates: dict[tuple[str, str], list[float]] = {}
    for k in range(args.rounds):
        for case in new:
            order = (("old", old), ("new", new)) if k % 2 == 0 else (("new", new), ("old", old))
            for label, table in order:
                c0 = time.process_time()
                events = table[case](k)
                rates.setdefault((case, label), []).append(events / (time.process_time() - c0) / 1e6)
    print(f"{args.paper}: n = {args.n}, horizon = {args.horizon:g}, {args.rounds} alternating rounds, "
          "M events per processor second")
    print("| case | old best | new best | new/old best | new/old median |")
    print("|---|---|---|---|---|")
    for case in new:
        o, nw = rates[(case, "old")], rates[(case, "new")]
        print(f"| {case} | {max(o):.2f} | {max(nw):.2f} | {max(nw) / max(o):.3f} | "
              f"{np.median(nw) / np.median(o):.3f} |")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
