"""Benchmark suite of qtheory: peers, scaling, book run times, Dask replications.

Run from the project root:

    .venv/bin/python benchmarks/run.py            # full suite (about 15 minutes on 2 shared cores)
    .venv/bin/python benchmarks/run.py --quick    # smaller runs (about 5 minutes)
    .venv/bin/python benchmarks/run.py --only peers scaling

It prints the ratio table and writes ``benchmarks/latest/<section>.json`` and the
plots ``benchmarks/latest/*.png`` shown on the book's performance page. Throughputs
of different implementations are measured in the same run, interleaved, best of
``--repeats`` runs (the machine is shared, so the best run is the least disturbed one);
the statistics are averaged over the same runs and compared in standard errors.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.peers import models  # noqa: E402

RESULTS = ROOT / "benchmarks" / "latest"
SECTIONS = ("peers", "c", "independent", "limit", "scaling", "book", "rerun", "dask")

#: per-implementation run sizes (events scale with the horizon); Ciw is ~1000x slower
SCALES = {
    "full": {"numba": {"horizon": 2000.0, "r_events": 2_000_000, "u_horizon": 2000.0},
             "c": {"horizon": 2000.0, "r_events": 2_000_000, "u_horizon": 2000.0},
             "plain": {"horizon": 400.0, "r_events": 200_000, "u_horizon": 200.0},
             "simpy": {"horizon": 200.0, "r_events": 100_000, "u_horizon": 100.0},
             "ciw": {"horizon": 80.0}},
    "quick": {"numba": {"horizon": 500.0, "r_events": 500_000, "u_horizon": 500.0},
              "c": {"horizon": 500.0, "r_events": 500_000, "u_horizon": 500.0},
              "plain": {"horizon": 130.0, "r_events": 50_000, "u_horizon": 50.0},
              "simpy": {"horizon": 80.0, "r_events": 25_000, "u_horizon": 25.0},
              "ciw": {"horizon": 40.0}},
}


def _environment() -> dict:
    import numba

    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown"
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        if subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", "qtheory"]).returncode:
            commit += " (qtheory modified)"
    except (OSError, subprocess.CalledProcessError):
        commit = None
    try:       # e.g. "always [madvise] never": qtheory._memory asks for huge pages by madvise
        thp = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        thp = None
    if os.environ.get("QTHEORY_HUGE_PAGES") == "0":
        thp = f"{thp} (not requested: QTHEORY_HUGE_PAGES=0)"
    return {"commit": commit, "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "machine": platform.machine(), "cpu": cpu, "cpus": os.cpu_count(), "transparent_huge_pages": thp,
            "nice": os.nice(0), "load_average_at_start": os.getloadavg()[0], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def _save(name: str, data: dict) -> None:
    """Write ``<name>.json``; the run it replaces is kept under ``"previous"`` (one level), so
    that the performance page can show the last run and the run before."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    if path.exists() and "previous" not in data:
        try:
            old = json.loads(path.read_text())
        except ValueError:
            old = None
        if old:
            data = {**data, "previous": {k: v for k, v in old.items() if k != "previous"}}
    path.write_text(json.dumps(data, indent=1, default=float) + "\n")


# -- peers --------------------------------------------------------------------------------
def _summary(runs):
    rates = [r.events_per_second for r in runs]
    cpu = [r.events_per_cpu_second for r in runs]
    stats = np.array([r.statistic for r in runs])
    se = float(stats.std(ddof=1) / np.sqrt(stats.size)) if stats.size > 1 else float("nan")
    return {"best_events_per_second": max(rates), "median_events_per_second": float(np.median(rates)),
            "best_events_per_cpu_second": float(np.nanmax(cpu)) if np.isfinite(cpu).any() else float("nan"),
            "events_per_run": int(np.mean([r.events for r in runs])), "statistic": float(stats.mean()),
            "statistic_se": se, "runs": len(runs)}


def _compare(key: str, impls, repeats: int, first_seed: int, scale_of) -> dict:
    """Run each implementation of case `key` `repeats` times, interleaved (so that a change
    of load hits every implementation), with seeds first_seed, first_seed + 1, ...; return
    each one's summary with the speed-up of numba over it and the z-score of its statistic."""
    runs = {impl: [] for impl in impls}
    for rep in range(repeats):
        for impl in impls:
            runs[impl].append(models.run(key, impl, first_seed + rep, scale_of(impl)))
    res = {impl: _summary(r) for impl, r in runs.items()}
    ref = res["numba"]
    for s in res.values():
        s["ratio_numba_over"] = ref["best_events_per_second"] / s["best_events_per_second"]
        comb = np.hypot(ref["statistic_se"], s["statistic_se"])
        s["z_vs_numba"] = (s["statistic"] - ref["statistic"]) / comb if comb > 0 else 0.0
    return res


def bench_peers(preset: str, repeats: int, skip: set) -> dict:
    scales = SCALES[preset]
    out = {"preset": preset, "repeats": repeats, "cases": {}, "environment": _environment()}
    for key, case in models.CASES.items():
        impls = [i for i in case.implementations if i not in skip]
        models.run(key, "numba", 0, {**scales["plain"], "horizon": 5.0, "r_events": 1000, "u_horizon": 2.0})
        res = _compare(key, impls, repeats, 1000, lambda impl: scales[impl])
        out["cases"][key] = {"name": case.name, "paper": case.paper, "statistic": case.statistic, "results": res}
        if case.paper == "R":
            from qtheory.redundancy import model as M
            from qtheory.redundancy import productform as PF

            exact = PF.total_jobs_moments(M.circular_d(20, 2), 0.9, case.params["mechanism"]).mean
            out["cases"][key]["exact"] = exact
            for s in res.values():
                s["z_vs_exact"] = (s["statistic"] - exact) / s["statistic_se"]
        _print_case(key, out["cases"][key])
    _save("peers", out)
    _plot_peers(out)
    return out


def _print_case(key, case):
    print(f"\n{case['name']}  [{case['statistic']}]")
    if "exact" in case:
        print(f"  exact value (product form): {case['exact']:.4f}")
    print(f"  {'impl':6s} {'best M ev/s':>12s} {'numba / impl':>13s} {'statistic':>10s} {'se':>8s} {'z':>6s}")
    for impl, s in case["results"].items():
        print(f"  {impl:6s} {s['best_events_per_second'] / 1e6:12.3f} {s['ratio_numba_over']:13.1f} "
              f"{s['statistic']:10.4f} {s['statistic_se']:8.4f} {s['z_vs_numba']:6.2f}", flush=True)


#: figures are drawn 6.8 inches wide and shown in the book's 688 px column, where a point of
#: text is 688 / (6.8 * 72) = 1.4 px: every font is >= 8 pt (>= 11 px)
FIG_WIDTH = 6.8
FIG_DPI = 150
FONT = 8


def _style():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "xtick.labelsize": FONT,
                         "ytick.labelsize": FONT, "legend.fontsize": FONT})
    return plt


def _plot_peers(data):
    plt = _style()
    keys = list(data["cases"])
    impls = ["numba", "c", "plain", "simpy", "ciw"]
    colors = dict(zip(impls, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    fig, (ax, ax_r) = plt.subplots(2, 1, figsize=(FIG_WIDTH, 6.4), sharex=True)
    width = 0.16
    for k, impl in enumerate(impls):
        xs, ys, xr, yr = [], [], [], []
        for c, key in enumerate(keys):
            r = data["cases"][key]["results"].get(impl)
            if r:
                xs.append(c + (k - 2) * width)
                ys.append(r["best_events_per_second"])
                if impl != "numba":
                    xr.append(c + (k - 2) * width)
                    yr.append(r["ratio_numba_over"])
        ax.bar(xs, ys, width, label=impl, color=colors[impl])
        if xr:
            ax_r.bar(xr, yr, width, label=impl, color=colors[impl])
    ax.set_yscale("log")
    ax.set_ylabel("events/s (best run, one core)")
    ax.set_title("event throughput, same run")
    ax.legend(ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.08), frameon=False)
    ax_r.set_yscale("log")
    goals = [ax_r.axhline(100, color="k", ls="--", lw=1, label="100x (SimPy, Ciw)"),
             ax_r.axhline(0.8, color="k", ls=":", lw=1, label="1 / 1.25 (C)")]
    ax_r.legend(handles=goals, loc="upper right")
    ax_r.set_xticks(range(len(keys)), keys, rotation=20)
    ax_r.set_xlim(-0.5, len(keys) - 0.5)
    ax_r.set_ylabel("numba events/s / peer's")
    ax_r.set_title("speed-up of the package over each peer")
    fig.tight_layout()
    fig.savefig(RESULTS / "peers.png", dpi=FIG_DPI)
    plt.close(fig)


# -- every kernel against its C loop --------------------------------------------------------
#: cases with a C peer and the size of one timed run (about 1-2 million events each)
# runs of about half a second each (0.05 s runs spread the ratio of single pairs over 0.8-1.4
# even on a quiet machine, 4 December)
C_CASES = {"supermarket": {"horizon": 100_000.0}, "cos": {"r_events": 15_000_000}, "coc": {"r_events": 15_000_000},
           "jlmu": {"u_horizon": 6000.0}, "slta": {"u_horizon": 6000.0}}
C_GOAL = 1.25


def _pairs(run_numba, run_c, rounds: int, first_seed: int):
    """`rounds` pairs of runs, numba and C one right after the other (numba first in even
    rounds, C first in odd ones), the pair's seed `first_seed` + round: the runs of each and
    the ratios C / numba per pair, of events per wall and per processor second, with their
    medians (the fields of a case's row)."""
    runs = {"numba": [], "c": []}
    for rnd in range(rounds):
        for impl in (("numba", "c") if rnd % 2 == 0 else ("c", "numba")):
            runs[impl].append((run_numba if impl == "numba" else run_c)(first_seed + rnd))
    pair = [c.events_per_second / n.events_per_second for n, c in zip(runs["numba"], runs["c"])]
    pair_cpu = [c.events_per_cpu_second / n.events_per_cpu_second for n, c in zip(runs["numba"], runs["c"])]
    return runs, {"ratio_c_over_numba_pairs": pair, "ratio_c_over_numba_median": float(np.median(pair)),
                  "ratio_c_over_numba_cpu_pairs": pair_cpu,
                  "ratio_c_over_numba_cpu_median": float(np.median(pair_cpu))}


def _spread(values) -> str:
    """The median of `values` and their range, as ``median [min, max]``."""
    return f"{np.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]"


def bench_c(preset: str, repeats: int) -> dict:
    """Each numba kernel against the C loop of its model, in short runs interleaved pair by
    pair (numba then C, then C then numba, ...), so that both see the same load; the ratio
    C / numba of events per second is taken per pair and of the best runs."""
    rounds = max(repeats, 7) if preset == "full" else max(repeats, 5)
    factor = 1.0 if preset == "full" else 0.5
    out = {"environment": _environment(), "rounds": rounds, "goal_ratio": C_GOAL, "cases": {}}
    for key, base in C_CASES.items():
        scale = {k: (v * factor if isinstance(v, float) else int(v * factor)) for k, v in base.items()}
        models.run(key, "numba", 0, {"horizon": 5.0, "r_events": 1000, "u_horizon": 2.0})
        models.run(key, "c", 0, {"horizon": 5.0, "r_events": 1000, "u_horizon": 2.0})
        runs, ratios = _pairs(lambda seed: models.run(key, "numba", seed, scale),
                              lambda seed: models.run(key, "c", seed, scale), rounds, 3000)
        res = {impl: _summary(r) for impl, r in runs.items()}
        row = {"name": models.CASES[key].name, "paper": models.CASES[key].paper, "results": res,
               "ratio_c_over_numba_best": res["c"]["best_events_per_second"] / res["numba"]["best_events_per_second"],
               **ratios}
        out["cases"][key] = row
        print(f"{key:12s} numba {res['numba']['best_events_per_second'] / 1e6:6.2f} M ev/s, "
              f"C {res['c']['best_events_per_second'] / 1e6:6.2f} M ev/s (best of {rounds}); C / numba: best "
              f"{row['ratio_c_over_numba_best']:.2f}, median of pairs {_spread(ratios['ratio_c_over_numba_pairs'])}; "
              f"processor time: median {_spread(ratios['ratio_c_over_numba_cpu_pairs'])}", flush=True)
    out["load_average_at_end"] = os.getloadavg()[0]
    _save("c", out)
    return out


# -- every kernel against an independent C loop -----------------------------------------------
#: the independent C loops (benchmarks/independent) and the size of one timed run: about 10^7
#: events each (L: N = 1000, about 1800 (supermarket) and 6000 (irg) events per unit time; U:
#: about 2000; R: events counted, warm-up included)
INDEPENDENT_CASES = {"supermarket": {"horizon": 5600.0, "n_factor": 10}, "local_jsqd": {"horizon": 1700.0, "n_factor": 10},
                     "coc": {"r_events": 10_000_000}, "cos": {"r_events": 10_000_000}, "jlmu": {"u_horizon": 5200.0},
                     "slta": {"u_horizon": 5200.0}}
INDEPENDENT_LABEL = {"supermarket": "L JSQ(2) supermarket, N = 1000", "local_jsqd": "L local JSQ(2), irg(p¹), N = 1000",
                     "coc": "R c.o.c., circular-2, N = 20", "cos": "R c.o.s.-ALIS, circular-2, N = 20",
                     "jlmu": "U JLMU, n = 100", "slta": "U SLTA, n = 100"}


def bench_independent(preset: str, repeats: int, cases=None) -> dict:
    """Each numba kernel against the independent C loop of its model (written from the paper
    for speed, ``benchmarks/independent``): pairs of runs of about 10^7 events, numba and C one
    right after the other (the order alternating), events per second of processor time; the
    ratio C / numba per pair, and its median (the headline of issue 33: <= 1.25). ``cases``: a
    subset of ``INDEPENDENT_CASES`` (all by default)."""
    from benchmarks import independent

    rounds = max(repeats, 5) if preset == "full" else max(repeats, 3)
    out = {"environment": _environment(), "rounds": rounds, "goal_ratio": C_GOAL, "cases": {},
           "compiler_flags": f"{independent.OPTIMISE} {' '.join(independent.FLAGS)}"}
    for key, scale in INDEPENDENT_CASES.items():
        if cases and key not in cases:
            continue
        small = {**scale, "horizon": 5.0, "r_events": 1000, "u_horizon": 2.0}
        models.run(key, "numba", 0, small)                      # compile or load the kernel
        independent.run(key, 0, small)                          # compile the loop
        runs, ratios = _pairs(lambda seed: models.run(key, "numba", seed, scale),
                              lambda seed: independent.run(key, seed, scale), rounds, 4000)
        res = {impl: _summary(r) for impl, r in runs.items()}
        comb = np.hypot(res["numba"]["statistic_se"], res["c"]["statistic_se"])
        row = {"name": INDEPENDENT_LABEL[key], "paper": models.CASES[key].paper, "statistic": models.CASES[key].statistic,
               "scale": scale, "results": res, **ratios,
               "z_statistic": float((res["c"]["statistic"] - res["numba"]["statistic"]) / comb) if comb > 0 else 0.0}
        out["cases"][key] = row
        print(f"{key:12s} numba {res['numba']['best_events_per_cpu_second'] / 1e6:6.2f}, independent C "
              f"{res['c']['best_events_per_cpu_second'] / 1e6:6.2f} M events per processor second (best of {rounds}); "
              f"C / numba: median of pairs {_spread(ratios['ratio_c_over_numba_cpu_pairs'])} "
              f"(wall {row['ratio_c_over_numba_median']:.2f}); statistic numba "
              f"{res['numba']['statistic']:.4f} +- {res['numba']['statistic_se']:.4f}, C {res['c']['statistic']:.4f} "
              f"+- {res['c']['statistic_se']:.4f} (z = {row['z_statistic']:.1f})", flush=True)
    out["load_average_at_end"] = os.getloadavg()[0]
    _save("independent", out)
    return out


# -- the speed limit ----------------------------------------------------------------------
def bench_limit(preset: str, repeats: int) -> dict:
    """numba against C on the JSQ(2) supermarket at N = 1000, C with two generators."""
    scales = SCALES[preset]
    impls = ("numba", "c", "c_mt")
    models.run("supermarket", "numba", 0, {"horizon": 5.0, "n_factor": 10})
    res = _compare("supermarket", impls, max(repeats, 5), 2000,
                   lambda impl: {**scales["c" if impl != "numba" else impl], "n_factor": 10})
    out = {"environment": _environment(), "repeats": max(repeats, 5),
           "case": {"name": "JSQ(2) supermarket, N = 1000, lambda = 0.9", "paper": "L",
                    "statistic": "mean queue length", "results": res}}
    _print_case("limit", out["case"])
    _save("limit", out)
    return out


# -- scaling ------------------------------------------------------------------------------
_WORKER = r"""
import os, sys, json, time
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
import numpy as np
from qtheory.locality.graphs import complete_bipartite, irg
from qtheory.locality.model import paper_system
from qtheory.locality.simulation import simulate_jsqd, simulate_gwsq

def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

n, events_target, policy, kind = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
system = paper_system("design", d=2)
sim = simulate_gwsq if policy == "gwsq" else simulate_jsqd
small = irg(system, 100, seed=1)
sim(system, small, initial_state=np.zeros(100, np.int64), t_grid=[0.0, 0.5], seed=0)        # compile / load the cache first
before = resident()
if kind == "complete":
    graph = complete_bipartite(system, n)     # one shared list arange(N): O(N + W) memory
else:
    scale = min(1.0, 300.0 / n)          # above N = 300 the densities shrink: mean degree stays ~ 300 delta_k
    graph = irg(system, n, seed=1, compatibility=system.p * scale)
lam = 2 * system.arrival_rate * graph.n_dispatchers        # about the event rate: arrivals and departures
# the timed runs start where a warm-up of about 3 N events from the empty state ended, near
# the stationary regime (the empty start is a transient that lasts about N events)
x0 = sim(system, graph, initial_state=np.zeros(n, np.int64), t_grid=[0.0, 3.0 * n / lam + 1.0], seed=99).final_state
horizon = events_target / lam
best = best_wall = 0.0
for rep in range(3):
    c0 = time.process_time()
    res = sim(system, graph, initial_state=x0, t_grid=np.linspace(0.0, horizon, 201), seed=rep)
    cpu = time.process_time() - c0
    best = max(best, res.events / cpu)
    best_wall = max(best_wall, res.events / res.seconds)
after = resident()
graph_bytes = sum(a.nbytes for a in (graph.neighbors, graph.offset, graph.degree, graph.server_type,
                                     graph.dispatcher_cluster))
print(json.dumps({"n": n, "policy": policy, "graph": kind, "events_per_second": best,
                  "events_per_wall_second": best_wall, "events": res.events, "edges": graph.n_edges,
                  "stored_edges": int(graph.neighbors.size), "dispatchers": graph.n_dispatchers,
                  "graph_bytes": graph_bytes, "resident_increase_bytes": after - before,
                  "busy_fraction": float(np.mean(res.final_state > 0))}))
"""

_LATENCY = r"""
import os, sys, json, time
import numpy as np
from numba import njit
from qtheory import _memory

@njit
def cycle(order):
    # Sattolo's algorithm: a uniformly random cyclic permutation, so the chain visits every entry
    n = order.size
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):
        j = np.random.randint(0, i)
        order[i], order[j] = order[j], order[i]

@njit
def chase(order, steps):
    k = 0
    for _ in range(steps):
        k = order[k]           # each read needs the one before: latency, not bandwidth
    return k

np.random.seed(1)
out = []
for size in [int(x) for x in sys.argv[1:]]:
    order = _memory.empty(size // 4, np.int32)
    cycle(order)
    chase(order, 1000)
    steps = 20_000_000
    best = float("inf")
    for _ in range(3):
        c0 = time.process_time()
        chase(order, steps)
        best = min(best, (time.process_time() - c0) / steps)
    out.append({"bytes": size, "ns_per_read": best * 1e9})
    del order
print(json.dumps(out))
"""

#: array sizes of the memory-latency probe: inside the first-level, second-level and shared caches,
#: and the size of the irg neighbour lists at N = 10^6
LATENCY_BYTES = (32 << 10, 512 << 10, 4 << 20, 16 << 20, 64 << 20, 512 << 20)

#: (policy, graph) pairs of the L scaling runs
SCALING_CASES = (("jsqd", "irg"), ("gwsq", "irg"), ("jsqd", "complete"))


def _scaling_worker(n: int, target: float, policy: str, kind: str) -> dict:
    events = max(target, 5 * n)     # the per-run O(N) set-up stays small against the events
    line = subprocess.run([sys.executable, "-c", _WORKER, str(n), str(events), policy, kind], check=True,
                          capture_output=True, text=True, cwd=ROOT).stdout.strip().splitlines()[-1]
    return json.loads(line)


def _scaling_pairs(target: float, rounds: int, small: int = 1000, large: int = 1_000_000) -> list:
    """The ratio of events per second at N = `large` over N = `small`, measured in `rounds`
    pairs of runs, one right after the other (each in its own process, best of 3 runs): the
    sweep runs each N minutes apart, and at N = 10^6 what the other processes do to the
    memory system moves a single run by 10-20 %, so the page takes the median of the pairs."""
    out = []
    for policy, kind in SCALING_CASES:
        pairs = []
        for _ in range(rounds):
            a = _scaling_worker(small, target, policy, kind)["events_per_second"]
            b = _scaling_worker(large, target, policy, kind)["events_per_second"]
            pairs.append((a, b))
        ratios = [b / a for a, b in pairs]
        out.append({"policy": policy, "graph": kind, "n_small": small, "n_large": large,
                    "events_per_second": [list(p) for p in pairs], "ratios": ratios,
                    "median_ratio": float(np.median(ratios))})
        print(f"L {policy:5s} {kind:8s} N = {large:,} / {small:,}, {rounds} interleaved pairs: ratios "
              f"{', '.join(f'{r:.2f}' for r in ratios)} (median {np.median(ratios):.2f})", flush=True)
    return out


def bench_scaling(preset: str) -> dict:
    """L events per second of processor time and memory against N (each N in its own
    process), then the exact and fluid solvers' times."""
    out = {"environment": _environment()}
    target = 3e6 if preset == "full" else 1e6
    ns = [100, 1000, 10_000, 100_000, 1_000_000]
    rows = []
    for policy, kind in SCALING_CASES:
        for n in ns:
            rows.append(_scaling_worker(n, target, policy, kind))
            r = rows[-1]
            print(f"L {policy:5s} {kind:8s} N = {n:>7d}: {r['events_per_second'] / 1e6:6.2f} M events/s "
                  f"(processor), {r['stored_edges']:>10d} stored edges, graph {r['graph_bytes'] / n:6.1f} B/server, "
                  f"resident memory +{r['resident_increase_bytes'] / 2**20:7.1f} MiB", flush=True)
    out["locality"] = rows
    out["interleaved"] = _scaling_pairs(target, rounds=3 if preset == "full" else 1)
    line = subprocess.run([sys.executable, "-c", _LATENCY, *map(str, LATENCY_BYTES)], check=True, capture_output=True,
                          text=True, cwd=ROOT).stdout.strip().splitlines()[-1]
    out["memory_latency"] = json.loads(line)
    for r in out["memory_latency"]:
        print(f"dependent random read in {r['bytes'] / 2**20:8.3f} MiB: {r['ns_per_read']:6.1f} ns", flush=True)

    from qtheory.locality.meanfield import fixed_point
    from qtheory.locality.model import paper_system

    system = paper_system("design", d=2)
    fixed_point(system, levels=10)
    fp_rows = []
    for levels in (10, 20, 40, 80, 160):
        best = min(_timed(lambda: fixed_point(system, levels=levels)) for _ in range(3))
        fp_rows.append({"levels": levels, "seconds": best})
        print(f"L fixed point of (3.7), L = {levels:>3d}: {best * 1e3:8.1f} ms", flush=True)
    out["fixed_point"] = fp_rows

    from qtheory.redundancy import model as M
    from qtheory.redundancy import productform as PF

    for mech in ("coc", "cos"):
        PF.total_jobs_moments(M.circular_d(6, 2), 0.9, mech)      # compile / load the cache
    dp_rows = []
    for n in (8, 10, 12, 14, 16, 18, 20):
        for mech in ("coc", "cos"):
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                mo = PF.total_jobs_moments(M.circular_d(n, 2), 0.9, mech)
                times.append(time.perf_counter() - t0)
            dp_rows.append({"n": n, "mechanism": mech, "seconds": min(times), "mean": mo.mean})
        print(f"R exact DP circular-2, N = {n:>2d}: c.o.c. {dp_rows[-2]['seconds']:7.3f} s, "
              f"c.o.s. {dp_rows[-1]['seconds']:7.3f} s", flush=True)
    out["exact_dp"] = dp_rows

    from qtheory.utility import table1_system
    from qtheory.utility.fluid import solve_fluid

    fl_rows = []
    for rho in (2.0, 5.0, 10.0, 20.0, 40.0):
        system_u = table1_system(rho)
        empty = np.zeros((2, 3))
        empty[:, 0] = 0.5
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            solve_fluid(system_u, empty, np.linspace(0.0, 15.0, 151))
            times.append(time.perf_counter() - t0)
        fl_rows.append({"rho": rho, "seconds": min(times)})
        print(f"U fluid model (12), rho = {rho:>4g}, t in [0, 15]: {fl_rows[-1]['seconds']:7.3f} s", flush=True)
    out["fluid"] = fl_rows
    _save("scaling", out)
    _plot_scaling(out)
    return out


def _timed(func) -> float:
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


def _plot_scaling(data):
    plt = _style()
    fig, axes = plt.subplots(2, 2, figsize=(FIG_WIDTH, 5.8))
    axes = axes.ravel()
    ax = axes[0]
    for policy, kind in SCALING_CASES:
        rows = [r for r in data["locality"] if r["policy"] == policy and r.get("graph", "irg") == kind]
        label = ("local JSQ(2)" if policy == "jsqd" else "GWSQ(2)") + f", {kind}"
        ax.plot([r["n"] for r in rows], [r["events_per_second"] / 1e6 for r in rows], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("servers N")
    ax.set_ylabel("million events per second")
    ax.set_title("L simulators")
    ax.legend()
    ax = axes[1]
    for policy, kind in SCALING_CASES:
        rows = [r for r in data["locality"] if r["policy"] == policy and r.get("graph", "irg") == kind]
        label = ("local JSQ(2)" if policy == "jsqd" else "GWSQ(2)") + f", {kind}"
        ax.plot([r["n"] for r in rows], [max(r["resident_increase_bytes"], 1) / 2**20 for r in rows], marker="o",
                label=f"{label}: memory added")
    rows = [r for r in data["locality"] if r["policy"] == "jsqd" and r.get("graph", "irg") == "irg"]
    ax.plot([r["n"] for r in rows], [r["graph_bytes"] / 2**20 for r in rows], ls=":", color="grey",
            label="graph arrays")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("servers N")
    ax.set_ylabel("MiB")
    ax.set_title("L memory")
    ax.legend(loc="upper left", fontsize="small")
    ax = axes[2]
    fp = data["fixed_point"]
    ax.plot([r["levels"] for r in fp], [r["seconds"] for r in fp], marker="o", label="L fixed point (3.7)")
    fl = data["fluid"]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("truncation length L")
    ax.set_ylabel("seconds")
    ax.set_title("ODE fixed point")
    ax = axes[3]
    for mech in ("coc", "cos"):
        rows = [r for r in data["exact_dp"] if r["mechanism"] == mech]
        ax.plot([r["n"] for r in rows], [r["seconds"] for r in rows], marker="o", label=f"R exact DP, {mech}")
    ax.plot([r["rho"] for r in fl], [r["seconds"] for r in fl], marker="s", label="U fluid, x = rho")
    ax.set_yscale("log")
    ax.set_xlabel("servers N (R), load rho (U)")
    ax.set_ylabel("seconds")
    ax.set_title("exact and fluid solvers")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "scaling.png", dpi=FIG_DPI)
    plt.close(fig)


# -- book ---------------------------------------------------------------------------------
_LINE = re.compile(r"\[(\d+)/(\d+)\] ([\w-]+): .*done in ([\d.]+) s")


def bench_book(log: Path) -> dict:
    """Per-notebook paper-preset run times, read from the log of a ``make book`` run."""
    if not log.exists():
        print(f"book: no log at {log}; skipped")
        return {}
    if "\t" in log.read_text():
        return _book_from_tsv(log)
    rows = [{"notebook": m.group(3), "seconds": float(m.group(4))} for m in map(_LINE.search, log.read_text().splitlines())
            if m]
    total_expected = max((int(m.group(2)) for m in map(_LINE.search, log.read_text().splitlines()) if m), default=0)
    real = re.search(r"^real\s+(\d+)m([\d.]+)s", log.read_text(), re.M)
    wall = 60 * int(real.group(1)) + float(real.group(2)) if real else None
    fresh = "python3 -m venv" in log.read_text()
    # benchmarks/book_fresh.sh times `make env` apart and logs it on a line of its own
    setup = re.search(r"^environment set-up \(make env\): ([\d.]+) s", log.read_text(), re.M)
    out = {"log": str(log), "notebooks": rows, "finished": len(rows) == total_expected and total_expected > 0,
           "expected": total_expected, "total_seconds": sum(r["seconds"] for r in rows),
           "wall_seconds": wall, "includes_environment_setup": fresh, "environment": _environment()}
    out["empty_cache"] = "kernel and value cache: empty" in log.read_text()
    if setup:
        out["environment_setup_seconds"] = float(setup.group(1))
        out["includes_environment_setup"] = True
        out["wall_seconds"] = wall + float(setup.group(1)) if wall is not None else None
    print(f"book (paper preset, from {log}): {len(rows)}/{total_expected} notebooks, "
          f"{out['total_seconds'] / 60:.1f} min of notebook time")
    for r in sorted(rows, key=lambda r: -r["seconds"]):
        print(f"  {r['notebook']:18s} {r['seconds']:8.1f} s")
    _save("book", out)
    if rows:
        _plot_book(out)
    return out


def _tsv_rows(path: Path) -> list[dict]:
    """The notebook rows of a ``benchmarks/book_each.sh`` TSV (notebook, wall, user, system seconds)."""
    rows = []
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            rows.append({"notebook": parts[0], "seconds": float(parts[1]),
                         "processor_seconds": round(float(parts[2]) + float(parts[3]), 2)})
    return rows


def _book_from_tsv(path: Path) -> dict:
    """Per-notebook wall and processor seconds from ``benchmarks/book_each.sh`` (each notebook
    run alone, one after the other)."""
    rows = _tsv_rows(path)
    finished = path.read_text().rstrip().endswith("DONE") and not re.search(r"exited with non-zero", path.read_text())
    out = {"log": str(path), "notebooks": rows, "finished": finished, "expected": len(rows),
           "total_seconds": sum(r["seconds"] for r in rows),
           "processor_seconds": sum(r["processor_seconds"] for r in rows), "wall_seconds": None,
           "includes_environment_setup": False, "one_at_a_time": True, "environment": _environment()}
    print(f"book (paper preset, each notebook alone, from {path}): {len(rows)} notebooks, "
          f"{out['total_seconds'] / 60:.1f} min wall, {out['processor_seconds'] / 60:.1f} min of processor time")
    _save("book", out)
    if rows:
        _plot_book(out)
    return out


#: issue 33: any figure rerun at the paper preset within this many seconds on 2 cores
RERUN_GOAL_S = 30.0


def bench_rerun(log: Path) -> dict:
    """Per-notebook rerun times at the paper preset (issue 33's goal: each <= RERUN_GOAL_S s of wall
    time), from ``benchmarks/book_each.sh``'s TSV: each notebook alone (`reproduce --only ID
    --force`, its worker processes on both cores), the kernels already compiled (a second pass)."""
    if not log.exists():
        print(f"rerun: no log at {log}; skipped")
        return {}
    rows = _tsv_rows(log)
    finished = log.read_text().rstrip().endswith("DONE")
    out = {"log": str(log), "notebooks": rows, "finished": finished, "goal_seconds": RERUN_GOAL_S,
           "within_goal": sum(r["seconds"] <= RERUN_GOAL_S for r in rows), "environment": _environment()}
    print(f"rerun (paper preset, each notebook alone, from {log}): {out['within_goal']} of {len(rows)} "
          f"within {RERUN_GOAL_S:g} s; longest "
          + ", ".join(f"{r['notebook']} {r['seconds']:.1f} s" for r in sorted(rows, key=lambda r: -r["seconds"])[:3]))
    _save("rerun", out)
    if finished and rows:
        _write_expected_seconds(rows)
    return out


def _write_expected_seconds(rows) -> None:
    """``notebooks/presets/seconds.json`` from a finished rerun log: the processor seconds that
    order a parallel run (longest first) and the wall seconds beside them that tell which notebooks
    keep both cores busy alone (``qtheory.reproduce.fills_the_cores``)."""
    path = ROOT / "notebooks" / "presets" / "seconds.json"
    order = sorted(rows, key=lambda r: -r["processor_seconds"])
    data = {"about": ("processor seconds (user + system, notebook process and its workers) and wall seconds of each "
                      "notebook at the paper preset, each notebook run alone on the 2-core development machine "
                      f"(benchmarks/book_each.sh, second pass; written by benchmarks/run.py --only rerun on "
                      f"{time.strftime('%Y-%m-%d')}); `python -m qtheory reproduce --jobs N` (N > 1) starts the "
                      "longest first, and runs alone those whose processor time is at least 1.4 times their wall time"),
            "paper": {r["notebook"]: r["processor_seconds"] for r in order},
            "wall": {"paper": {r["notebook"]: r["seconds"] for r in order}}}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
    print(f"wrote {path.relative_to(ROOT)}")


def _plot_book(data):
    plt = _style()
    rows = data["notebooks"]
    fig, ax = plt.subplots(figsize=(FIG_WIDTH, 0.5 + 0.2 * len(rows)))
    order = sorted(rows, key=lambda r: -r["seconds"])
    ax.barh([r["notebook"] for r in order][::-1], [r["seconds"] / 60 for r in order][::-1])
    ax.set_xlabel("minutes (paper preset)")
    wall = data.get("wall_seconds")
    # the notebooks run side by side (JOBS): their times add up to more than the build's wall time
    ax.set_title(f"notebook run times (sum {data['total_seconds'] / 60:.1f} min"
                 + (f"; make book {wall / 60:.1f} min wall"
                    + (", pip install included)" if data.get("includes_environment_setup") else ")") if wall else ")"))
    fig.tight_layout()
    fig.savefig(RESULTS / "book.png", dpi=FIG_DPI)
    plt.close(fig)


def replot() -> None:
    """Draw the figures again from the JSON files (no measurement)."""
    for name, func in (("peers", _plot_peers), ("scaling", _plot_scaling), ("book", _plot_book)):
        path = RESULTS / f"{name}.json"
        if path.exists():
            data = json.loads(path.read_text())
            if name != "book" or data.get("notebooks"):
                func(data)


# -- dask ---------------------------------------------------------------------------------
def bench_dask(preset: str) -> dict:
    from dask.distributed import Client, LocalCluster

    from qtheory.redundancy import model as M
    from qtheory.redundancy.simulation import simulate_replication
    from qtheory.runtime import replicate

    system = M.circular_d(20, 2)
    n_events = 4_000_000 if preset == "full" else 200_000
    args = (system, 0.9, n_events, "cos", n_events // 10)
    n_rep = 8
    t0 = time.perf_counter()
    local = replicate(simulate_replication, n_rep, 2026, args=args, workers=1, progress=False)
    t_local = time.perf_counter() - t0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        replicate(simulate_replication, 2, 1, args=(system, 0.9, 1000, "cos", 0),
                  executor=client.get_executor(), progress=False)     # compile in the workers
        t0 = time.perf_counter()
        remote = replicate(simulate_replication, n_rep, 2026, args=args, executor=client.get_executor(),
                           progress=False)
        t_dask = time.perf_counter() - t0
    same = all(a.mean_jobs == b.mean_jobs and a.var_jobs == b.var_jobs and np.array_equal(a.count_distribution, b.count_distribution)
               for a, b in zip(local, remote))
    out = {"replications": n_rep, "events_per_replication": n_events + n_events // 10, "identical": bool(same),
           "local_one_process_seconds": t_local, "dask_two_workers_seconds": t_dask,
           "mean_jobs_local": [a.mean_jobs for a in local], "mean_jobs_dask": [b.mean_jobs for b in remote]}
    print(f"dask: {n_rep} replications of c.o.s. setting 10, identical to the local run: {same}; "
          f"local (1 process) {t_local:.1f} s, LocalCluster (2 workers) {t_dask:.1f} s")
    _save("dask", out)
    return out


def main(argv=None) -> int:
    global RESULTS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs")
    ap.add_argument("--repeats", type=int, default=3, help="runs per implementation (best is reported)")
    ap.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--cases", nargs="+", choices=list(INDEPENDENT_CASES), default=None,
                    help="with --only independent: only these models (write elsewhere with --results-dir, "
                         "or the page loses the others)")
    ap.add_argument("--skip", nargs="*", default=[], help="implementations to skip, e.g. ciw")
    ap.add_argument("--book-log", type=Path, default=Path("/tmp/paper_book.log"),
                    help="log of a paper-preset `make book` run")
    ap.add_argument("--rerun-log", type=Path, default=Path("/tmp/paper_each.tsv"),
                    help="TSV of `bash benchmarks/book_each.sh` (each notebook alone at the paper preset; run it "
                         "twice and give the second, whose kernels are compiled)")
    ap.add_argument("--results-dir", type=Path, default=RESULTS,
                    help="where the JSON files and plots go (default benchmarks/latest, which the book "
                         "page shows; elsewhere the page is not rewritten)")
    ap.add_argument("--replot", action="store_true", help="only draw the figures again from the JSON files "
                                                          "and rewrite the page")
    args = ap.parse_args(argv)
    default_dir = args.results_dir.resolve() == RESULTS.resolve()
    if args.cases and default_dir:
        ap.error("--cases: a subset of the models would replace benchmarks/latest/independent.json; "
                 "give --results-dir")
    RESULTS = args.results_dir
    preset = "quick" if args.quick else "full"
    if args.replot:
        args.only = []
        replot()
    if "peers" in args.only:
        bench_peers(preset, args.repeats, set(args.skip))
    if "c" in args.only:
        bench_c(preset, args.repeats)
    if "independent" in args.only:
        bench_independent(preset, args.repeats, args.cases)
    if "limit" in args.only:
        bench_limit(preset, args.repeats)
    if "scaling" in args.only:
        bench_scaling(preset)
    if "book" in args.only:
        bench_book(args.book_log)
    if "rerun" in args.only:
        bench_rerun(args.rerun_log)
    if "dask" in args.only:
        bench_dask(preset)
    if default_dir:
        from benchmarks.report import write_page

        write_page()
        print("wrote book/performance.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
