"""Speed of the graph mean field (qtheory.locality.graphmf) on one core.

Target (issue 30): the fixed point of an irg(p^1) graph of the Sec. 6 system at N = 1000 in
under 2 s. Prints, per N: edges, truncation level, best-response sweeps, the time of one
evaluation of the arrival intensity and of the whole fixed point (best of `--repeats`, wall
and processor time: the machine is shared, and processor time does not count the waits for a
core), after a first call that compiles (or loads) the numba kernel.
Run from the project root:  .venv/bin/python benchmarks/bench_graphmf.py [--json FILE]
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:   # run as a script from the project root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best, write_rows  # noqa: E402
from benchmarks._common import parser as _common_parser  # noqa: E402
from qtheory.locality import graphmf  # noqa: E402
from qtheory.locality.graphs import irg  # noqa: E402
from qtheory.locality.model import paper_system  # noqa: E402


def main() -> None:
    args = _common_parser(__doc__, [100, 300, 1000, 3000]).parse_args()
    system = paper_system("design")
    small = irg(system, 20, args.seed)
    graphmf.fixed_point(system, small)                       # compile / load the kernel
    rows = []
    print(f"Sec. 6 system, irg(p1), local JSQ(2); best of {args.repeats}")
    for n in args.n:
        graph = irg(system, n, args.seed)
        fp, wall, cpu = best(lambda: graphmf.fixed_point(system, graph), args.repeats)
        x = fp.x
        _, eval_wall, eval_cpu = best(lambda: graphmf.arrival_intensity(system, graph, x), args.repeats)
        row = dict(N=n, edges=graph.n_edges, levels=fp.levels, sweeps=fp.iterations, residual=fp.residual,
                   fixed_point_wall=wall, fixed_point_cpu=cpu, evaluation_wall=eval_wall, evaluation_cpu=eval_cpu,
                   ns_per_edge_level=1e9 * eval_cpu / (graph.n_edges * fp.levels))
        rows.append(row)
        print(f"N = {n:5d}: {graph.n_edges:9d} edges, L = {fp.levels:2d}, {fp.iterations:3d} sweeps, "
              f"fixed point {wall:6.3f} s wall / {cpu:6.3f} s cpu, one evaluation {1e3 * eval_cpu:7.2f} ms cpu "
              f"({row['ns_per_edge_level']:.1f} ns per edge and level), residual {fp.residual:.1e}")
    write_rows(args.json, rows)


if __name__ == "__main__":
    main()
