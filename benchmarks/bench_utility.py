"""Events per second of the U simulators (target: >= 5 million on one core, n = 1000, rho = 10).

Run:  .venv/bin/python benchmarks/bench_utility.py [--n 1000] [--horizon 200] [--repeat 3]

Uses the system of Table 1 (r = (20, 30), alpha = (1/2, 1/2)); the first call compiles
(or loads from the numba cache) and is not timed.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from qtheory.utility import POLICIES, simulate, table1_system  # noqa: E402

TARGET = 5e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rho", type=float, default=10.0)
    ap.add_argument("--horizon", type=float, default=200.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    system = table1_system(args.rho)
    print(f"n = {args.n}, rho = {args.rho}, horizon = {args.horizon}; best of {args.repeat} runs")
    ok = True
    for policy in POLICIES:
        simulate(system, 10, policy, horizon=1.0, seed=0)  # compile / load cache
        best = 0.0
        for k in range(args.repeat):
            res = simulate(system, args.n, policy, horizon=args.horizon, seed=k)
            best = max(best, res.events_per_second)
        flag = "ok" if best >= TARGET else "BELOW TARGET"
        ok &= best >= TARGET
        print(f"{policy:>13}: {res.events:>10d} events, {best / 1e6:6.2f} M events/s  [{flag}]")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
