"""Speed of the second-order stationary expansion (qtheory.locality.second_order) on one core.

Target (issue 30): q* + V/N + A/N^2 for the Sec. 6 system in under a second. Prints, per load
of the Sec. 6 system (p^1, GWSQ(2)) and for the homogeneous JSQ(2) without replacement, the
truncation level, the number of unknowns n = M L and the time of the whole computation (fixed
point, W, V, C, B, A and the truncation check with two more levels), best of `--repeats`, wall
and processor time (the machine is shared; processor time does not count the waits for a core).
BLAS is limited to one thread: at n of about 40 threads only add contention.
Run from the project root:  .venv/bin/python benchmarks/bench_second_order.py [--json FILE]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

if str(Path(__file__).resolve().parents[1]) not in sys.path:   # run as a script from the project root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best, write_rows  # noqa: E402
from benchmarks._common import parser as _common_parser  # noqa: E402

from qtheory.locality import second_order  # noqa: E402
from qtheory.locality.model import LocalitySystem, paper_system  # noqa: E402
from qtheory.locality.policies import LocalJSQ  # noqa: E402


def sec6_at(load: float) -> LocalitySystem:
    base = paper_system("design")
    return LocalitySystem(load * base.capacity / base.zeta, base.zeta, base.cluster_weights, base.type_fractions,
                          base.service_rates, base.compatibility, base.d)


def main() -> None:
    parser = _common_parser(__doc__)
    parser.add_argument("--loads", type=float, nargs="+", default=[0.7, 0.75, 0.8, 0.9, 0.95])
    args = parser.parse_args()
    cases = [(f"Sec. 6 (p1), GWSQ(2), load {x:g}", sec6_at(x), "gwsq") for x in args.loads]
    cases += [(f"JSQ(2) without replacement, load {x:g}", LocalitySystem.homogeneous(x), LocalJSQ())
              for x in (0.9, 0.95)]
    second_order.second_order_stationary(cases[0][1])                  # warm the imports
    rows = []
    print(f"second-order stationary expansion, best of {args.repeats}, one BLAS thread")
    for name, system, policy in cases:
        res, wall, cpu = best(lambda: second_order.second_order_stationary(system, policy=policy), args.repeats)
        row = dict(case=name, levels=res.levels, unknowns=res.q.size, wall=wall, cpu=cpu,
                   truncation_change=res.truncation_change)
        rows.append(row)
        print(f"{name:42s} L = {res.levels:2d}, n = {res.q.size:3d}: {wall:6.3f} s wall / {cpu:6.3f} s cpu")
    write_rows(args.json, rows)


if __name__ == "__main__":
    main()
