"""Write the book's performance page (book/performance.md) from benchmarks/latest/*.json.

Run by ``benchmarks/run.py`` after its sections, or alone:
``.venv/bin/python benchmarks/report.py``. The page shows the plots the run saved and
tables of the measured numbers; nothing on it is typed by hand except the notes below.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "latest"
PAGE = ROOT / "book" / "performance.md"
IMPL_LABEL = {"numba": "qtheory (numba)", "c": "C, gcc -O2", "c_mt": "C, gcc -O2, Mersenne Twister", "plain": "plain Python", "simpy": "SimPy",
              "ciw": "Ciw"}

INTRO = """# Performance

How fast the companion's computations are, measured side by side in one run of
`python benchmarks/run.py` (see `benchmarks/README.md`). Every number and plot on this
page is read from `benchmarks/latest/*.json`, written by the last run. The machine has 2
cores, sometimes shared with other work (the load average at the start of each section is
recorded), so each throughput is the best of several interleaved runs (the median is in
the JSON files) and ratios are taken within the same run.
"""

PEERS_TEXT = """## Simulators against peers

Each simulator of the package is written again, as the same model, in plain Python (an
event loop with the `random` module), in SimPy (a process per job, a `Resource` per
server) and in Ciw (a zero-time dispatcher node whose custom routing object runs JSQ(d)
or GWSQ(d) over the server nodes); the JSQ(2) supermarket loop (one server type, complete
graph) is also written in C and compiled with `gcc -O2` at benchmark time, as the speed
limit. Ciw cannot express redundancy (replicas cancelled on completion or on start) or
infinite-server pools with state-dependent dispatching without rewriting its node logic,
so those models have no Ciw version. An event is an arrival or a departure. The compared
statistic is the same stationary quantity for every implementation, averaged over the
runs; *z* is its difference from the numba value in combined standard errors (|z| < 4:
same statistic). Runs of the slow peers are shorter, so their standard errors are larger.
"""


def _load(name):
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _fmt_rate(x):
    return f"{x / 1e6:.3g} M" if x >= 1e5 else f"{x / 1e3:.3g} k"


def peers_section(data) -> str:
    out = [PEERS_TEXT, "![event throughput of every implementation](../benchmarks/latest/peers.png)\n"]
    env = data.get("environment", {})
    out.append(f"Measured {env.get('date', '?')}, {data['repeats']} runs per implementation "
               f"(load average at start {env.get('load_average_at_start', float('nan')):.1f} on "
               f"{env.get('cpus', '?')} cores).\n")
    out.append("| model | implementation | events/s (best) | events/s (median) | events per run | "
               "numba speed-up | statistic | SE | z |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for key, case in data["cases"].items():
        if key == "supermarket_1000":       # superseded by the `limit` section
            continue
        for impl, r in case["results"].items():
            ratio = r["ratio_numba_over"]
            ratio_s = "1" if impl == "numba" else (f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2f}x")
            out.append(f"| {case['name']} ({case['statistic']}) | {IMPL_LABEL[impl]} | "
                       f"{_fmt_rate(r['best_events_per_second'])} | {_fmt_rate(r['median_events_per_second'])} | "
                       f"{r['events_per_run']:,} | {ratio_s} | {r['statistic']:.4g} | {r['statistic_se']:.2g} | "
                       f"{r['z_vs_numba']:.1f} |")
        if "exact" in case:
            zs = ", ".join(f"{IMPL_LABEL[i]} {r['z_vs_exact']:.1f}" for i, r in case["results"].items())
            out.append(f"| {case['name']} ({case['statistic']}) | exact (product form, DP) | | | | | "
                       f"{case['exact']:.4g} | | z vs exact: {zs} |")
    out.append("")
    return "\n".join(out)


def limit_section(data) -> str:
    case = data["case"]
    out = ["## The speed limit: C\n",
           "The JSQ(2) supermarket loop at N = 1000 (lambda = 0.9), the package's local JSQ(d) "
           "simulator on the complete graph with one server type against `benchmarks/peers/supermarket.c` "
           "(the same event loop and recording, gcc -O2). The package's kernels draw from xoshiro256+ "
           "(`qtheory/_rng.py`), and so does the C program; fed the same stream, the two follow the same "
           "path event for event (`tests/test_benchmark_peers.py`). C is also built with the Mersenne "
           "Twister of numba's `np.random` (checked bit for bit against NumPy's `RandomState`), the "
           "generator the kernels used before, to show what the generator costs. "
           f"Best of {data['repeats']} interleaved runs.\n",
           "| implementation | events/s (best) | events/s (median) | C / numba speed | mean queue length | SE | z |",
           "|---|---|---|---|---|---|---|"]
    for impl, r in case["results"].items():
        out.append(f"| {IMPL_LABEL[impl]} | {_fmt_rate(r['best_events_per_second'])} | "
                   f"{_fmt_rate(r['median_events_per_second'])} | {1 / r['ratio_numba_over']:.2f} | "
                   f"{r['statistic']:.4f} | {r['statistic_se']:.2g} | {r['z_vs_numba']:.1f} |")
    out.append("")
    return "\n".join(out)


def scaling_section(data) -> str:
    out = ["## Scaling\n",
           "![scaling of the simulators and solvers](../benchmarks/latest/scaling.png)\n",
           "L simulators on the system of Sec. 6 of paper L (irg with the design p^1 at N = 100; above "
           "N = 300 the densities are scaled by 300/N, so that the mean degree stays about 300 delta_k and "
           "the graph of N = 10^5 fits in memory), each N in its own process: events per second (best of 3 runs of about "
           "3 million events) and the resident memory the process gained from building the graph and running "
           "the simulations (measured after the kernels were compiled; GWSQ uses the graph only for the types "
           "and clusters, but the same graph is built).\n",
           "| policy | N | edges | events/s | graph arrays | resident memory added |", "|---|---|---|---|---|---|"]
    for r in data["locality"]:
        out.append(f"| {'local JSQ(2)' if r['policy'] == 'jsqd' else 'GWSQ(2)'} | {r['n']:,} | {r['edges']:,} | "
                   f"{_fmt_rate(r['events_per_second'])} | {r['graph_bytes'] / 2**20:.1f} MiB | "
                   f"{r['resident_increase_bytes'] / 2**20:.1f} MiB |")
    out += ["", "| L fixed point of (3.7): truncation L | seconds |", "|---|---|"]
    out += [f"| {r['levels']} | {r['seconds']:.3g} |" for r in data["fixed_point"]]
    out += ["", "Solver times are the best of 3 runs (2 for the fluid model).\n", "| R exact DP, circular-2, lambda = 0.9: N | c.o.c. seconds | c.o.s. seconds | E[Q] c.o.c. | "
            "E[Q] c.o.s. |", "|---|---|---|---|---|"]
    ns = sorted({r["n"] for r in data["exact_dp"]})
    for n in ns:
        a = next(r for r in data["exact_dp"] if r["n"] == n and r["mechanism"] == "coc")
        b = next(r for r in data["exact_dp"] if r["n"] == n and r["mechanism"] == "cos")
        out.append(f"| {n} | {a['seconds']:.3g} | {b['seconds']:.3g} | {a['mean']:.4f} | {b['mean']:.4f} |")
    out += ["", "| U fluid model (12), Table 1 system from empty pools, t in [0, 15]: rho | seconds |", "|---|---|"]
    out += [f"| {r['rho']:g} | {r['seconds']:.3g} |" for r in data["fluid"]]
    out.append("")
    return "\n".join(out)


def book_section(data) -> str:
    out = ["## The whole book at paper scale\n"]
    if not data or not data.get("notebooks"):
        return "\n".join(out + ["No paper-preset run log was available at the last benchmark run.\n"])
    status = "complete" if data["finished"] else f"{len(data['notebooks'])} of {data['expected']} notebooks finished"
    wall = data.get("wall_seconds")
    setup = (" in a fresh clone: creating the virtual environment, installing the pins, compiling every "
             "numba kernel into an empty cache, running the notebooks one at a time (each with 2 worker "
             "processes) and building the HTML") if data.get("includes_environment_setup") else ""
    out.append(f"Per-notebook run times of a paper-preset `make book` run on 2 cores{setup} "
               f"(from its log; {status}). Sum of notebook times: **{data['total_seconds'] / 60:.1f} minutes**"
               + (f"; whole command: **{wall / 60:.1f} minutes** of wall time." if wall else ".") + "\n")
    out.append("![notebook run times at paper scale](../benchmarks/latest/book.png)\n")
    out += ["| notebook | seconds |", "|---|---|"]
    out += [f"| {r['notebook']} | {r['seconds']:.1f} |" for r in sorted(data["notebooks"], key=lambda r: -r["seconds"])]
    out.append("")
    return "\n".join(out)


def dask_section(data) -> str:
    if not data:
        return ""
    verdict = "identical" if data["identical"] else "NOT identical"
    return "\n".join([
        "## Replications on a Dask cluster\n",
        f"{data['replications']} replications of c.o.s.-ALIS on setting 10 of Table 1 (paper R), "
        f"{data['events_per_replication']:,} events each, run by `qtheory.runtime.replicate` once in "
        f"this process and once through `Client(LocalCluster(n_workers=2)).get_executor()`: the results "
        f"are **{verdict}** (every mean, variance and histogram compared exactly), because replication k "
        f"always receives child k of the root seed. Wall time: {data['local_one_process_seconds']:.1f} s "
        f"in one process, {data['dask_two_workers_seconds']:.1f} s on the 2-worker cluster.\n",
        "| replication | mean Q, local | mean Q, Dask |", "|---|---|---|",
        *[f"| {k} | {a:.6f} | {b:.6f} |" for k, (a, b) in enumerate(zip(data["mean_q_local"], data["mean_q_dask"]))],
        ""])


def notes_section(peers, limit, book) -> str:
    lines = ["## Goals\n", "| goal | measured | met |", "|---|---|---|"]
    if peers:
        sp = []
        for key, case in peers["cases"].items():
            for impl in ("simpy", "ciw"):
                if impl in case["results"]:
                    sp.append((case["results"][impl]["ratio_numba_over"], key, impl))
        if sp:
            low = min(sp)
            lines.append(f"| >= 100x SimPy / Ciw | smallest speed-up {low[0]:.0f}x ({low[2]}, {low[1]}); "
                         f"Ciw {min(r for r, _, i in sp if i == 'ciw'):.0f}x or more | "
                         f"{'yes' if low[0] >= 100 else 'not for every model, see the notes'} |")
    if limit:
        big = limit["case"]
        ratio = big["results"]["c"]["ratio_numba_over"]
        ratio_mt = big["results"]["c_mt"]["ratio_numba_over"]
        lines.append(f"| within 2x of C (JSQ(2) supermarket, N = 1000) | C with the package's generator "
                     f"(xoshiro256+) runs {1 / ratio:.2f} times as fast as the package; C with numba's "
                     f"`np.random` generator (MT19937) {1 / ratio_mt:.2f} times | "
                     f"{'yes' if 1 / ratio <= 2 else 'no, see the notes'} |")
    if book and book.get("notebooks"):
        tot = (book.get("wall_seconds") or book["total_seconds"]) / 60
        lines.append(f"| whole book at paper scale < 15 min (2 cores) | {tot:.1f} min for `make book` "
                     f"({book['total_seconds'] / 60:.1f} min of notebooks)"
                     f"{'' if book['finished'] else ' (run not finished)'} | "
                     f"{'yes' if tot < 15 and book['finished'] else 'see below'} |")
    lines.append("")
    return "\n".join(lines)


def write_page(extra_notes: str = "") -> str:
    peers, limit, scaling, book, dask = (_load(n) for n in ("peers", "limit", "scaling", "book", "dask"))
    parts = [INTRO, notes_section(peers, limit, book)]
    notes = RESULTS / "notes.md"
    if notes.exists():
        parts.append(notes.read_text())
    if peers:
        parts.append(peers_section(peers))
    if limit:
        parts.append(limit_section(limit))
    if scaling:
        parts.append(scaling_section(scaling))
    parts.append(book_section(book))
    if dask:
        parts.append(dask_section(dask))
    text = "\n".join(parts).rstrip() + "\n"
    PAGE.write_text(text)
    return text


if __name__ == "__main__":
    write_page()
    print(f"wrote {PAGE}")
