"""Speed of the refined graph mean field (qtheory.locality.graphrefined) on one core.

Per N (irg(p^1) graph of the Sec. 6 system, local JSQ(2)): the state dimension N L, the time
of the whole refined fixed point (graph mean-field fixed point, Jacobian, dense Lyapunov
solve, contraction, linear solve), best of `--repeats`, wall and processor time (the machine
is shared: processor time does not count the waits for a core). The Lyapunov solve is
O((N L)^3): run with one BLAS thread (OMP_NUM_THREADS=1) to measure one core.
Run from the project root:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_graphrefined.py [--json FILE]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parents[1]) not in sys.path:   # run as a script from the project root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best, write_rows  # noqa: E402
from benchmarks._common import parser as _common_parser  # noqa: E402
from qtheory.locality import graphrefined  # noqa: E402
from qtheory.locality.graphs import irg  # noqa: E402
from qtheory.locality.model import paper_system  # noqa: E402


def main() -> None:
    args = _common_parser(__doc__, [10, 20, 50, 100]).parse_args()
    system = paper_system("design")
    graphrefined.refined_fixed_point(system, irg(system, 10, args.seed))      # compile / load the kernels
    rows = []
    print(f"Sec. 6 system, irg(p1), local JSQ(2); best of {args.repeats}")
    for n in args.n:
        graph = irg(system, n, args.seed)
        res, wall, cpu = best(lambda: graphrefined.refined_fixed_point(system, graph, max_dimension=10**5),
                               args.repeats)
        row = dict(N=n, levels=res.levels, dimension=n * res.levels, wall=wall, cpu=cpu,
                   largest_correction=float(np.abs(res.correction).max()))
        rows.append(row)
        print(f"N = {n:4d}: L = {res.levels:2d}, N L = {n * res.levels:5d}, refined fixed point {wall:7.3f} s wall / "
              f"{cpu:7.3f} s cpu, largest |v| {row['largest_correction']:.3g}")
    write_rows(args.json, rows)


if __name__ == "__main__":
    main()
