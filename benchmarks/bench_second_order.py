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

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from qtheory.locality import second_order  # noqa: E402
from qtheory.locality.model import LocalitySystem, paper_system  # noqa: E402
from qtheory.locality.policies import LocalJSQ  # noqa: E402


def _best(func, repeats):
    wall, cpu = np.inf, np.inf
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = func()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return out, wall, cpu


def sec6_at(load: float) -> LocalitySystem:
    base = paper_system("design")
    return LocalitySystem(load * base.capacity / base.zeta, base.zeta, base.cluster_weights, base.type_fractions,
                          base.service_rates, base.compatibility, base.d)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--loads", type=float, nargs="+", default=[0.7, 0.75, 0.8, 0.9, 0.95])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args()
    cases = [(f"Sec. 6 (p1), GWSQ(2), load {x:g}", sec6_at(x), "gwsq") for x in args.loads]
    cases += [(f"JSQ(2) without replacement, load {x:g}", LocalitySystem.homogeneous(x), LocalJSQ())
              for x in (0.9, 0.95)]
    second_order.second_order_stationary(cases[0][1])                  # warm the imports
    rows = []
    print(f"second-order stationary expansion, best of {args.repeats}, one BLAS thread")
    for name, system, policy in cases:
        res, wall, cpu = _best(lambda: second_order.second_order_stationary(system, policy=policy), args.repeats)
        row = dict(case=name, levels=res.levels, unknowns=res.q.size, wall=wall, cpu=cpu,
                   truncation_change=res.truncation_change)
        rows.append(row)
        print(f"{name:42s} L = {res.levels:2d}, n = {res.q.size:3d}: {wall:6.3f} s wall / {cpu:6.3f} s cpu")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
