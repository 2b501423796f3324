"""Speed of the refined graph mean field (qtheory.locality.graphrefined) on one core.

Per N (irg(p^1) graph of the Sec. 6 system, local JSQ(2)): the state dimension N L, the time
of the whole refined fixed point (graph mean-field fixed point, Jacobian, dense Lyapunov
solve, contraction, linear solve), best of `--repeats`, wall and processor time (the machine
is shared: processor time does not count the waits for a core). The Lyapunov solve is
O((N L)^3): run with one BLAS thread (OMP_NUM_THREADS=1) to measure one core.
Run from the project root:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_graphrefined.py [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from qtheory.locality import graphrefined
from qtheory.locality.graphs import irg
from qtheory.locality.model import paper_system


def _best(func, repeats):
    wall, cpu = np.inf, np.inf
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = func()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return out, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, nargs="+", default=[10, 20, 50, 100])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args()
    system = paper_system("design")
    graphrefined.refined_fixed_point(system, irg(system, 10, args.seed))      # compile / load the kernels
    rows = []
    print(f"Sec. 6 system, irg(p1), local JSQ(2); best of {args.repeats}")
    for n in args.n:
        graph = irg(system, n, args.seed)
        res, wall, cpu = _best(lambda: graphrefined.refined_fixed_point(system, graph, max_dimension=10**5),
                               args.repeats)
        row = dict(N=n, levels=res.levels, dimension=n * res.levels, wall=wall, cpu=cpu,
                   largest_correction=float(np.abs(res.correction).max()))
        rows.append(row)
        print(f"N = {n:4d}: L = {res.levels:2d}, N L = {n * res.levels:5d}, refined fixed point {wall:7.3f} s wall / "
              f"{cpu:7.3f} s cpu, largest |v| {row['largest_correction']:.3g}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
