"""Speed of the L simulators: events (arrivals + departures) per second on one core.

Target (issue 3): >= 10 million events/s for local JSQ(d), N = 1000, d = 2.
Run from the project root:  .venv/bin/python benchmarks/bench_locality.py
"""

from __future__ import annotations

import argparse

import numpy as np

from qtheory.locality.graphs import complete_bipartite, irg
from qtheory.locality.model import paper_initial_occupancy, paper_system
from qtheory.locality.simulation import iid_initial_state, simulate_gwsq, simulate_jsqd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="number of servers N")
    parser.add_argument("--horizon", type=float, default=2000.0, help="simulated time per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    system = paper_system("design", d=2)
    q0 = paper_initial_occupancy("Q")
    graphs = {"irg(p1)": irg(system, args.n, seed=1)}
    cases = [("local JSQ(2), irg(p1)", simulate_jsqd, system, graphs["irg(p1)"]),
             ("GWSQ(2)", simulate_gwsq, system, graphs["irg(p1)"])]
    cb = paper_system("complete", d=2)
    cases.append(("local JSQ(2), complete bipartite (unstable; short run)", simulate_jsqd, cb,
                  complete_bipartite(cb, args.n)))
    # compile once outside the timing
    simulate_jsqd(system, graphs["irg(p1)"], initial_state=iid_initial_state(graphs["irg(p1)"], q0, 0), t_grid=[0.0, 1.0], seed=0)
    simulate_gwsq(system, graphs["irg(p1)"], initial_state=iid_initial_state(graphs["irg(p1)"], q0, 0), t_grid=[0.0, 1.0], seed=0)
    print(f"N = {args.n}, d = 2, horizon {args.horizon:g}, best of {args.repeats} runs")
    for name, sim, sys_, graph in cases:
        horizon = args.horizon if "unstable" not in name else min(args.horizon, 200.0)
        best = 0.0
        for rep in range(args.repeats):
            x0 = iid_initial_state(graph, q0, rep)
            res = sim(sys_, graph, initial_state=x0, t_grid=np.linspace(0.0, horizon, 101), seed=rep)
            best = max(best, res.events / res.seconds)
        print(f"{name:58s} {best / 1e6:6.2f} million events/s ({res.events} events per run)")


if __name__ == "__main__":
    main()
