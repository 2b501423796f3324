"""Speed of the redundancy simulators and of the exact dynamic programme.

Run: ``.venv/bin/python benchmarks/bench_redundancy.py``. Target: >= 5 million events
per second on one core for setting 10 of Table 1 (circular-2, N = 20, lambda = 0.9,
c.o.s.-ALIS); and circular-2 with N = 20 exact in well under a minute.
"""

import time

from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF
from qtheory.redundancy import simulation as SIM


def main() -> None:
    system = M.circular_d(20, 2)
    SIM.simulate(system, 0.9, n_events=1000, mechanism="cos", seed=0)  # compile
    SIM.simulate(system, 0.9, n_events=1000, mechanism="coc", seed=0)
    for mech in ("cos", "coc"):
        n = 5_000_000
        best = 0.0
        for rep in range(3):
            t0 = time.perf_counter()
            SIM.simulate(system, 0.9, n_events=n, mechanism=mech, seed=rep, initial_scale=10.0)
            best = max(best, n / (time.perf_counter() - t0))
        print(f"setting 10 ({mech}): {best / 1e6:.1f} million events/s (best of 3, one core)")
    PF.total_jobs_moments(M.circular_d(6, 2), 0.9, "cos")  # compile
    for n in (10, 16, 20):
        t0 = time.perf_counter()
        mo = PF.total_jobs_moments(M.circular_d(n, 2), 0.9, "cos")
        print(f"exact circular-2, N = {n}: E[Q] = {mo.mean:.4f}, Var = {mo.variance:.3f} "
              f"in {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
