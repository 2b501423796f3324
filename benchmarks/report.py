"""Write the book's performance page (book/performance.md) from benchmarks/latest/*.json.

Run by ``benchmarks/run.py`` after its sections, or alone:
``.venv/bin/python benchmarks/report.py``. The page shows the plots the run saved and
tables of the measured numbers; nothing on it is typed by hand. The development diary that
explains the numbers is in CHANGELOG.md ("Performance diary"), not on the page.
"""

from __future__ import annotations

import json
from pathlib import Path

from qtheory.display import number

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "latest"
PAGE = ROOT / "book" / "performance.md"
IMPL_SHORT = {"numba": "numba", "c": "C", "c_mt": "C, MT", "plain": "Python", "simpy": "SimPy", "ciw": "Ciw"}
IMPL_LABEL = {"numba": "qtheory (numba)", "c": "C, same algorithm (port), gcc -O2",
              "c_mt": "C, same algorithm (port), gcc -O2, Mersenne Twister", "plain": "plain Python", "simpy": "SimPy",
              "ciw": "Ciw"}

INTRO = """# Performance

What was measured, against what, and the ratios: the summary below; each measurement's
tables and plots are folded under it. Rerun them with `python benchmarks/run.py` (all
sections, or `--only independent|c|scaling|book|...`; see `benchmarks/README.md`), which rewrites this
page from `benchmarks/latest/*.json`. The machine is shared, so ratios are taken within one
run, between interleaved runs. How the numbers got here (the development diary) is in
`CHANGELOG.md`.
"""


def folded_together(title: str, sections) -> str:
    """Several sections in one collapsed dropdown, each titled by a rubric (a heading may not
    stand inside a directive): one closed line on the page however many measurements there are."""
    parts = []
    for section in sections:
        head, _, body = section.strip().partition("\n")
        parts.append(f"```{{rubric}} {head.lstrip('# ').strip()}\n```\n\n{body.strip()}\n")
    return f"````{{admonition}} {title}\n:class: dropdown\n\n" + "\n".join(parts) + "````\n"

#: issue 18's goals
C_GOAL = 1.25
SCALE_GOAL = 0.5
BOOK_GOAL_MIN = 5.0
#: issue 33: each notebook rerun at the paper preset within this many seconds (wall, 2 cores)
RERUN_GOAL_S = 30.0
C_KEYS = ("supermarket", "coc", "cos", "jlmu", "slta")
#: the models of the independent C loops (benchmarks/independent, issue 33)
INDEPENDENT_KEYS = ("supermarket", "local_jsqd", "coc", "cos", "jlmu", "slta")
INDEPENDENT_LABEL = {"supermarket": "L JSQ(2) supermarket, N = 1000", "local_jsqd": "L local JSQ(2), irg(p¹), N = 1000",
                     "coc": "R c.o.c., circular-2, N = 20", "cos": "R c.o.s.-ALIS, circular-2, N = 20",
                     "jlmu": "U JLMU, n = 100", "slta": "U SLTA, n = 100"}
C_LABEL = {"supermarket": "L JSQ(2) supermarket, N = 100 (port of the kernel's earlier loop)", "coc": "R c.o.c., circular-2, N = 20",
           "cos": "R c.o.s.-ALIS, circular-2, N = 20", "jlmu": "U JLMU, n = 100", "slta": "U SLTA, n = 100"}


def _c_ratio(data, key):
    """C / numba events per processor second (median of the interleaved pairs) of case `key`,
    or None."""
    case = (data or {}).get("cases", {}).get(key)
    return case.get("ratio_c_over_numba_cpu_median", case["ratio_c_over_numba_median"]) if case else None


def _scale_ratio(data, policy, graph="irg"):
    """(largest N, its events/s over those at N = 1000, how it was measured) of an L policy on
    `graph`, or None: the median of the interleaved pairs where the run made them, else the
    ratio of the sweep's two rows."""
    pair = next((r for r in (data or {}).get("interleaved", [])
                 if r["policy"] == policy and r["graph"] == graph and r["ratios"]), None)
    if pair:
        k = len(pair["ratios"])
        how = (f"median of {k} pairs, {min(pair['ratios']):.2f}-{max(pair['ratios']):.2f}" if k > 1
               else "one interleaved pair")
        return pair["n_large"], pair["median_ratio"], how
    rows = [r for r in (data or {}).get("locality", [])
            if r["policy"] == policy and r.get("graph", "irg") == graph]
    base = next((r for r in rows if r["n"] == 1000), None)
    if not rows or base is None:
        return None
    top = max(rows, key=lambda r: r["n"])
    return top["n"], top["events_per_second"] / base["events_per_second"], "sweep"


def _book_minutes(data):
    if not data or not data.get("notebooks"):
        return None
    return (data.get("wall_seconds") or data["total_seconds"]) / 60, data.get("finished", False)


def _date(data):
    return (data or {}).get("environment", {}).get("date") or (data or {}).get("date") or "?"


def _run_label(data) -> str:
    if not data:
        return "none"
    commit = data.get("environment", {}).get("commit")
    note = data.get("note")
    return _date(data) + (f" (qtheory {commit})" if commit else "") + (f": {note}" if note else "")


#: one row per model of the summary's C table: (label, N of the independent loop, N of the port)
C_ROWS = {"supermarket": ("L JSQ(2) supermarket", "N = 1000", "N = 100"),
          "local_jsqd": ("L local JSQ(2), irg(p¹)", "N = 1000", None),
          "coc": ("R c.o.c., circular-2", "N = 20", "N = 20"), "cos": ("R c.o.s.-ALIS, circular-2", "N = 20", "N = 20"),
          "jlmu": ("U JLMU", "n = 100", "n = 100"), "slta": ("U SLTA", "n = 100", "n = 100")}


def _c_table(c, indep, prev) -> list:
    """The goal C / numba <= C_GOAL as one row per model: the independent loop and the port side by side."""
    def cell(now, before, size):
        if now is None and before is None:
            return "-"
        met = "" if now is None else (" ✓" if now <= C_GOAL else " ✗")
        return (f"{f'{now:.2f}' if now else 'not run'}{met}{f' (before: {before:.2f})' if before else ''}, "
                f"{size}")

    rows, met, tried = [], {"independent": 0, "port": 0}, {"independent": 0, "port": 0}
    for key, (label, n_indep, n_port) in C_ROWS.items():
        ind = (_c_ratio(indep, key), _c_ratio(prev["independent"], key))
        port = (_c_ratio(c, key), _c_ratio(prev["c"], key)) if n_port else (None, None)
        if all(x is None for x in (*ind, *port)):
            continue
        for kind, now in (("independent", ind[0]), ("port", port[0])):
            if now is not None:
                tried[kind] += 1
                met[kind] += now <= C_GOAL
        rows.append(f"| {label} | {cell(*ind, n_indep)} | {cell(*port, n_port)} |")
    if not rows:
        return []
    return [f"Goal: C / numba ≤ {C_GOAL} in events per second of processor time (✓ met, ✗ not met). Met by the independent C loops in {met['independent']} of "
            f"{tried['independent']} models, by the ports of the kernels in {met['port']} of {tried['port']}.\n",
            "| model | independent C / numba | C of the same algorithm (port) / numba |", "|---|---|---|", *rows, ""]


def summary_section(c, scaling, book, indep=None, rerun=None) -> str:
    """One screen: each goal of issues 18 and 33, the last run, the run before, and the machine."""
    prev = {name: (d or {}).get("previous") for name, d in (("c", c), ("scaling", scaling), ("book", book),
                                                             ("independent", indep))}
    lines = ["## Summary\n"]
    if indep:
        lines.append(f"Kernels against independent C (loops written from the papers for speed): last run "
                     f"{_run_label(indep)}; run before {_run_label(prev['independent'])}. Against C of the "
                     f"same algorithm (ports of the kernels): last run {_run_label(c)}.")
    else:
        lines.append(f"Kernels against C: last run {_run_label(c)}; run before {_run_label(prev['c'])}.\n")
    lines += _c_table(c, indep, prev)
    lines += ["| goal | last run | before | met |", "|---|---|---|---|"]
    for policy, graph in (("jsqd", "irg"), ("gwsq", "irg"), ("jsqd", "complete")):
        now, before = _scale_ratio(scaling, policy, graph), _scale_ratio(prev["scaling"], policy, graph)
        label = ("local JSQ(2)" if policy == "jsqd" else "GWSQ(2)") + (", complete" if graph == "complete"
                                                                        else ", irg")
        if now is None:
            continue
        met = "yes" if now[0] >= 10**6 and now[1] >= SCALE_GOAL else ("no" if now[0] >= 10**6 else
                                                                      f"not measured at 10⁶")
        bound = _irg_bound(scaling) if (policy, graph) == ("jsqd", "irg") else None
        if met == "no" and bound is not None:
            met += (f": about {bound:.2f} at most if each arrival waited for one memory read; the lookahead "
                    f"hides part of it (see Scaling)")
        lines.append(f"| L {label}: events/s at N = 10⁶ / 10³ ≥ {SCALE_GOAL} | "
                     f"{now[1]:.2f} ({now[2]}) | {f'{before[1]:.2f} ({before[2]})' if before else '-'} | "
                     f"{met} |")
    now, before = _book_minutes(book), _book_minutes(prev["book"])
    if now and book.get("processor_seconds") is not None:
        def cell(d):
            if not d or d.get("processor_seconds") is None:
                return f"{_book_minutes(d)[0]:.1f} min" if _book_minutes(d) else "-"
            return (f"{d['processor_seconds'] / 60:.1f} min of processor time "
                    f"({d['total_seconds'] / 60:.1f} min wall, notebooks one at a time, loaded machine)")
        lines.append(f"| paper book (`make book`) < {BOOK_GOAL_MIN:g} min on 2 cores | {cell(book)} | "
                     f"{cell(prev['book'])} | "
                     f"processor time / 2 = {book['processor_seconds'] / 120:.1f} min"
                     f"{'' if book.get('finished') else ' (run not finished)'}; the wall time of `make book` "
                     f"was not measured on an idle machine |")
    elif now:
        # `make env` of the same clone, timed alone (benchmarks/latest/book.json,
        # environment_setup_seconds): the goal is about the notebooks and the HTML, not pip
        setup = (book or {}).get("environment_setup_seconds")
        run = now[0] - setup / 60 if setup else now[0]
        detail = (f" ({setup / 60:.1f} min of it `pip install`; notebooks and HTML {run:.1f} min)" if setup else "")
        if book and not book.get("empty_cache"):
            detail += "; kernels compiled and exact values cached by an earlier run of the same sources"
        lines.append(f"| paper notebooks and HTML (`make book`, fresh clone, JOBS default) < {BOOK_GOAL_MIN:g} min | "
                     f"{now[0]:.1f} min{detail}"
                     f"{'' if now[1] else ' (unfinished)'} | {f'{before[0]:.1f} min' if before else '-'} | "
                     f"{'yes' if now[1] and run < BOOK_GOAL_MIN else 'no'} |")
    if rerun and rerun.get("notebooks"):
        rows = rerun["notebooks"]
        worst = max(rows, key=lambda r: r["seconds"])
        over = [r for r in rows if r["seconds"] > RERUN_GOAL_S]
        before = (rerun.get("previous") or {}).get("notebooks")
        prev_cell = (f"longest {max(r['seconds'] for r in before):.0f} s" if before else "-")
        lines.append(f"| any figure rerun at the paper preset (`reproduce --only ID`, 2 cores) ≤ {RERUN_GOAL_S:g} s | "
                     f"{len(rows) - len(over)} of {len(rows)} notebooks; longest {worst['notebook']} "
                     f"{worst['seconds']:.0f} s | {prev_cell} | "
                     + ("yes" if not over else "no: " + ", ".join(f"{r['notebook']} {r['seconds']:.0f} s" for r in over))
                     + " |")
    env = (indep or c or scaling or {}).get("environment", {})
    if env:
        lines.append(f"\nMachine: {env.get('cpu', '?')}, {env.get('cpus', '?')} cores, Linux "
                     f"{env.get('machine', '').replace('_', '-')}; Python {env.get('python', '?')}, NumPy {env.get('numpy', '?')}, "
                     f"numba {env.get('numba', '?')}; load average {env.get('load_average_at_start', float('nan')):.1f} "
                     f"at the start of the kernel runs. C / numba is the ratio of events per second of processor "
                     f"time (time spent waiting for a core on the shared machine left out), median over "
                     f"{(indep or c or {}).get('rounds', '?')} pairs of runs made one after the other.")
    lines.append("")
    return "\n".join(lines)


def _run_events(c) -> str:
    """The range of events per run of the C comparison, in millions ("15-18 million")."""
    sizes = [row["results"][impl]["events_per_run"] / 1e6 for row in (c or {}).get("cases", {}).values()
             for impl in ("numba", "c") if "events_per_run" in row["results"].get(impl, {})]
    if not sizes:
        return "several million"
    lo, hi = min(sizes), max(sizes)
    return f"about {lo:.0f} million" if round(lo) == round(hi) else f"{lo:.0f}-{hi:.0f} million"


def c_section(c, instr) -> str:
    """Each kernel against the C loop of its model: throughput and instructions per event."""
    if not c and not instr:
        return ""
    out = ["## Kernels against C of the same algorithm (ports)\n",
           "Each numba kernel against a C loop of the same model written statement for statement "
           "(`benchmarks/peers/*.c`, gcc -O2, the same xoshiro256+ draws; fed the same stream, each C loop "
           "takes the numba kernel's path to the last bit, `tests/test_benchmark_peers.py`), except the "
           "supermarket's: it ports the loop the L kernel ran before its rewrite of December 2026 (a holding time per event, a busy "
           "list), so its row compares two algorithms of the same model (its statistic agrees in law). The "
           "redundancy ports follow the R kernel's data structures before its rewrite of December 2026 (a FIFO of job ids per server "
           "with lazy deletion); the kernel now keeps a FIFO per job type and takes the same path faster. "
           "The headline comparison is against the independent C above. Throughput: "
           f"pairs of runs of {_run_events(c)} events, numba and C one after the other, in events per "
           "second of processor time (best run); the ratio C / numba is taken per pair (median, range; "
           "*wall*: the median of the same ratio in wall-clock time). Instructions per event: callgrind, "
           "the difference of two run lengths (`benchmarks/instructions.py`).\n",
           "| model | numba M ev/s | C M ev/s | C / numba | range | wall | instr./event numba, C |",
           "|---|---|---|---|---|---|---|"]
    for key in C_KEYS:
        row = (c or {}).get("cases", {}).get(key)
        ins = (instr or {}).get("cases", {}).get(key)
        if not row and not ins:
            continue
        cells = [C_LABEL[key]]
        if row:
            pair = row["ratio_c_over_numba_cpu_pairs"]
            cells += [f"{row['results']['numba']['best_events_per_cpu_second'] / 1e6:.1f}",
                      f"{row['results']['c']['best_events_per_cpu_second'] / 1e6:.1f}",
                      f"{row['ratio_c_over_numba_cpu_median']:.2f}", f"{min(pair):.2f}-{max(pair):.2f}",
                      f"{row['ratio_c_over_numba_median']:.2f}"]
        else:
            cells += ["-"] * 5
        cells.append(f"{ins['numba']['instructions_per_event']:.0f}, {ins['c']['instructions_per_event']:.0f}"
                     if ins else "-")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)

def independent_section(data) -> str:
    """Each kernel against the independent C loop of its model: one table."""
    if not data:
        return ""
    sizes = [r["results"][i]["events_per_run"] / 1e6 for r in data["cases"].values() for i in ("numba", "c")]
    out = ["## Kernels against independent C\n",
           "Each numba kernel against a C loop written from the paper's model as one would write it for speed "
           f"(`benchmarks/independent/*.c`, gcc {data.get('compiler_flags', '-O3 -march=native')}; each file's "
           "first comment lists its design choices: no exponential draws, since time averages weight each state by "
           "its holding time's conditional mean; one uniform per event; tables of 1 / rate; the generator in local "
           "variables; int32 data; only the statistic read). Its statistic agrees with the kernel's and with the "
           "exact values where known (`tests/test_independent_peers.py`). Pairs of runs of "
           f"{min(sizes):.0f}-{max(sizes):.0f} million events, numba and C one right after the other, in events per "
           "second of processor time (best run); C / numba per pair (median, range; *wall*: the median in wall-clock "
           "time); the statistic (mean queue length, mean jobs, utility per pool) of each, with its standard error "
           "over the runs.\n",
           "| model | numba M ev/s | C M ev/s | C / numba | range | wall | statistic numba, C (z) |",
           "|---|---|---|---|---|---|---|"]
    for key in INDEPENDENT_KEYS:
        row = data["cases"].get(key)
        if not row:
            continue
        n, c = row["results"]["numba"], row["results"]["c"]
        pair = row["ratio_c_over_numba_cpu_pairs"]
        out.append(f"| {INDEPENDENT_LABEL[key]} | {n['best_events_per_cpu_second'] / 1e6:.1f} | "
                   f"{c['best_events_per_cpu_second'] / 1e6:.1f} | {row['ratio_c_over_numba_cpu_median']:.2f} | "
                   f"{min(pair):.2f}-{max(pair):.2f} | {row['ratio_c_over_numba_median']:.2f} | "
                   f"{number(n['statistic'], n['statistic_se'])}, {number(c['statistic'], c['statistic_se'])} "
                   f"({_z(row['z_statistic'])}) |")
    out.append("")
    return "\n".join(out)


PEERS_TEXT = """## Simulators against peers

Each simulator of the package is written again, as the same model, in plain Python (an
event loop with the `random` module), in SimPy (a process per job, a `Resource` per
server) and in Ciw (a zero-time dispatcher node whose custom routing object runs JSQ(d)
or GWSQ(d) over the server nodes); the JSQ(2) supermarket loop (one server type, complete
graph) is also ported to C (the same algorithm, statement for statement) and compiled with
`gcc -O2` at benchmark time. Ciw cannot express redundancy (replicas cancelled on completion or on start) or
infinite-server pools with state-dependent dispatching without rewriting its node logic,
so those models have no Ciw version. An event is an arrival or a departure. The compared
statistic is the same stationary quantity for every implementation, averaged over the
runs; *z* is its difference from the numba value in combined standard errors (|z| < 4:
same statistic). Runs of the slow peers are shorter, so their standard errors are larger.
"""


def _load(name):
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _z(x) -> str:
    """A z-score to one decimal; one that rounds to zero is 0.0, never -0.0."""
    text = f"{x:.1f}"
    return "0.0" if float(text) == 0 else text.replace("-", "\u2212")


def _fmt_rate(x):
    return f"{x / 1e6:.3g} M" if x >= 1e5 else f"{x / 1e3:.3g} k"


def peers_section(data) -> str:
    out = [PEERS_TEXT, "![event throughput of every implementation](../benchmarks/latest/peers.png)\n"]
    env = data.get("environment", {})
    out.append(f"Measured {env.get('date', '?')}, {data['repeats']} runs per implementation "
               f"(load average at start {env.get('load_average_at_start', float('nan')):.1f} on "
               f"{env.get('cpus', '?')} cores).\n")
    out.append("Models: " + "; ".join(f"`{key}`: {case['name']} ({case['statistic']})"
                                       for key, case in data["cases"].items() if key != "supermarket_1000") + ".\n")
    out.append("| model | impl. | events/s | numba speed-up | statistic ± SE | z |")
    out.append("|---|---|---|---|---|---|")
    for key, case in data["cases"].items():
        if key == "supermarket_1000":       # superseded by the `limit` section
            continue
        for impl, r in case["results"].items():
            ratio = r["ratio_numba_over"]
            ratio_s = "1" if impl == "numba" else (f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2f}x")
            out.append(f"| `{key}` | {IMPL_SHORT[impl]} | {_fmt_rate(r['best_events_per_second'])} | {ratio_s} | "
                       f"{number(r['statistic'], r['statistic_se'])} | {_z(r['z_vs_numba'])} |")
        if "exact" in case:
            zs = ", ".join(f"{IMPL_SHORT[i]} {_z(r['z_vs_exact'])}" for i, r in case["results"].items())
            out.append(f"| `{key}` | exact | | | {number(case['exact'], digits=4)} | vs exact: {zs} |")
    out.append("")
    return "\n".join(out)


def limit_section(data) -> str:
    case = data["case"]
    out = ["## The supermarket at N = 1000: C of the same algorithm (port)\n",
           "The JSQ(2) supermarket loop at $N = 1000$ ($\\lambda = 0.9$), the package's local JSQ(d) "
           "simulator on the complete graph with one server type against `benchmarks/peers/supermarket.c` "
           "(the same event loop and recording, gcc -O2). The package's kernels draw from xoshiro256+ "
           "(`qtheory/_rng.py`), and so does the C program; fed the same stream, the two follow the same "
           "path event for event (`tests/test_benchmark_peers.py`). C is also built with the Mersenne "
           "Twister of numba's `np.random` (checked bit for bit against NumPy's `RandomState`), the "
           "generator the kernels used before, to show what the generator costs. "
           f"Best of {data['repeats']} interleaved runs.\n",
           "| implementation | events/s (best) | (median) | C / numba | mean queue ± SE | z |",
           "|---|---|---|---|---|---|"]
    for impl, r in case["results"].items():
        out.append(f"| {IMPL_LABEL[impl]} | {_fmt_rate(r['best_events_per_second'])} | "
                   f"{_fmt_rate(r['median_events_per_second'])} | {1 / r['ratio_numba_over']:.2f} | "
                   f"{number(r['statistic'], r['statistic_se'])} | {_z(r['z_vs_numba'])} |")
    out.append("")
    return "\n".join(out)


def scaling_section(data) -> str:
    out = ["## Scaling\n",
           "![scaling of the simulators and solvers](../benchmarks/latest/scaling.png)\n",
           "L simulators on the system of Sec. 6 of paper L (irg with the design p¹ at N = 100; above "
           "N = 300 the densities are scaled by 300/N, so that the mean degree stays about $300\\,\\delta_k$ and "
           "the graph of N = 10⁵ fits in memory), each N in its own process: events per second (best of 3 runs of about "
           "3 million events, each from the state a warm-up run of about 3N events from the empty system reached, "
           "so near the stationary regime; the busy fraction is that at the end of the last run) and the resident memory the process gained from building the graph and running "
           "the simulations (measured after the kernels were compiled; GWSQ uses the graph only for the types "
           "and clusters, but the same graph is built).\n",
           "Events per second are per second of processor time where the run recorded it "
           "(`events_per_wall_second` in the JSON file has the wall-clock rate). The complete graph stores one "
           "shared neighbour list, so its memory is O(N + W) whatever its N W edges; bytes per edge are those "
           "of the graph arrays over the stored edges. JSQ(2) is local JSQ(2); *busy* is the fraction of busy "
           "servers at the end of the last run.\n",
           "| policy | graph | N | stored edges | events/s | of N = 1000 | busy | graph bytes per server, per stored edge | "
           "memory added |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in data["locality"]:
        stored = r.get("stored_edges", r["edges"])
        base = next((b for b in data["locality"] if b["n"] == 1000 and b["policy"] == r["policy"]
                     and b.get("graph", "irg") == r.get("graph", "irg")), None)
        rel = f"{r['events_per_second'] / base['events_per_second']:.2f}" if base else "-"
        busy = f"{r['busy_fraction']:.2f}" if "busy_fraction" in r else "-"
        out.append(f"| {'JSQ(2)' if r['policy'] == 'jsqd' else 'GWSQ(2)'} | {r.get('graph', 'irg')} | "
                   f"{r['n']:,} | {stored:,} | {_fmt_rate(r['events_per_second'])} | {rel} | {busy} | "
                   f"{r['graph_bytes'] / r['n']:.0f} B, {r['graph_bytes'] / max(stored, 1):.2f} B | "
                   f"{r['resident_increase_bytes'] / 2**20:.1f} MiB |")
    if data.get("interleaved"):
        out += ["", "The rows above are run minutes apart; at N = 10⁶ a single run moves by 10-20 % with what "
                "the other processes on the machine do to the memory system. The ratios of the goals are "
                "therefore also measured in pairs of runs made one right after the other (N = 1000, then "
                "N = 10⁶, each in its own process, best of 3 runs), and the summary shows their median:\n",
                "| policy | graph | pairs: events/s at N = 10³ and 10⁶ | ratio of each pair | median |",
                "|---|---|---|---|---|"]
        for r in data["interleaved"]:
            runs = "; ".join(f"{_fmt_rate(a)}, {_fmt_rate(b)}" for a, b in r["events_per_second"])
            out.append(f"| {'JSQ(2)' if r['policy'] == 'jsqd' else 'GWSQ(2)'} | {r['graph']} | {runs} | "
                       f"{', '.join(f'{x:.2f}' for x in r['ratios'])} | {r['median_ratio']:.2f} |")
    out += _latency_lines(data)
    out += ["", "L fixed point of (3.7):\n", "| truncation L | seconds |", "|---|---|"]
    out += [f"| {r['levels']} | {r['seconds']:.3g} |" for r in data["fixed_point"]]
    out += ["", "Solver times are the best of 3 runs (2 for the fluid model).\n", "R exact DP on circular-2, $\\lambda = 0.9$:\n", "| N | c.o.c. s | c.o.s. s | E[Q] c.o.c. | E[Q] c.o.s. |", "|---|---|---|---|---|"]
    ns = sorted({r["n"] for r in data["exact_dp"]})
    for n in ns:
        a = next(r for r in data["exact_dp"] if r["n"] == n and r["mechanism"] == "coc")
        b = next(r for r in data["exact_dp"] if r["n"] == n and r["mechanism"] == "cos")
        out.append(f"| {n} | {a['seconds']:.3g} | {b['seconds']:.3g} | {a['mean']:.4f} | {b['mean']:.4f} |")
    out += ["", "U fluid model (12), Table 1 system from empty pools, t in [0, 15]:\n", "| rho | seconds |", "|---|---|"]
    out += [f"| {r['rho']:g} | {r['seconds']:.3g} |" for r in data["fluid"]]
    out.append("")
    return "\n".join(out)


def _irg_bound(data):
    """The largest ratio (events/s at N = 10^6 over N = 1000) local JSQ(2) on irg can reach if
    each arrival (half of the events) waits for one random read of the largest probed array
    and nothing else slows down, or None."""
    lat = (data or {}).get("memory_latency")
    rows = {(r["policy"], r.get("graph", "irg"), r["n"]): r for r in (data or {}).get("locality", [])}
    base = rows.get(("jsqd", "irg", 1000))
    if not lat or not base:
        return None
    per_event = 1e9 / base["events_per_second"]
    return per_event / (per_event + max(lat, key=lambda r: r["bytes"])["ns_per_read"] / 2)


def _size(nbytes) -> str:
    return f"{nbytes / 2**20:g} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:g} KiB"


def _latency_lines(data) -> list:
    """The memory-latency probe and what it implies for the L kernels at N = 10^6."""
    lat = data.get("memory_latency")
    if not lat:
        return []
    out = ["", "What bounds the large-N runs: the time of one random read, measured by following a random "
           "cycle through an array (each read needs the one before, so the time is the latency of the "
           "level of the memory hierarchy the array lives in; best of 3 chains of 20 million reads, "
           "processor time, arrays on huge pages where the system gives them):\n",
           "| array | ns per read |", "|---|---|"]
    out += [f"| {_size(r['bytes'])} | {r['ns_per_read']:.1f} |" for r in lat]
    rows = {(r["policy"], r.get("graph", "irg"), r["n"]): r for r in data["locality"]}
    base, top = rows.get(("jsqd", "irg", 1000)), rows.get(("jsqd", "irg", 1_000_000))
    if base and top:
        per_event = 1e9 / base["events_per_second"]
        big = max(lat, key=lambda r: r["bytes"])
        graph_mib = top["graph_bytes"] / 2**20
        bound = _irg_bound(data)
        out += ["", f"An event of local JSQ(2) on irg at N = 1000 takes {per_event:.0f} ns. At N = 10⁶ each arrival "
                f"(half of the events) reads its two candidates from its dispatcher's neighbour list, at a random "
                f"place of {graph_mib:.0f} MiB of lists, and a random read in {_size(big['bytes'])} takes "
                f"{big['ns_per_read']:.0f} ns: if an arrival waited for that read and everything else stayed in "
                f"the caches, the rate would be at most {bound:.2f} of that at N = 1000, whatever the layout of "
                f"the state. The kernel therefore draws the next 16 arrivals in advance (once the lists hold 1 MiB "
                f"or more), each as its dispatcher and the uniform its rule will use; it prefetches a new "
                f"arrival's offset and degree at once and, 8 arrivals later, the two list entries its rule will "
                f"pick (the policy's `lookahead` computes them from the dispatcher and that uniform), so that the "
                f"reads overlap other events' work (see the performance diary in CHANGELOG.md). "
                f"GWSQ(2) and "
                f"the complete graph read no per-dispatcher list, and from N = 2¹⁶ on keep one byte per server "
                f"(the queue lengths); a departure is the service slot of one server, drawn uniformly "
                f"(uniformisation: no list of busy servers), so their data stay "
                f"in the fast levels of the table."]
    return out


def book_section(data) -> str:
    out = ["## The whole book at paper scale\n"]
    if not data or not data.get("notebooks"):
        return "\n".join(out + ["No paper-preset run log was available at the last benchmark run.\n"])
    if data.get("processor_seconds") is not None:
        prev = data.get("previous") or {}
        before = {r["notebook"]: r for r in prev.get("notebooks", [])}
        out.append("![notebook run times at paper scale](../benchmarks/latest/book.png)\n")
        out.append(f"Each notebook ran alone (`benchmarks/book_each.sh`), one after the other, on the shared "
                   f"machine: **{data['total_seconds'] / 60:.1f} minutes** of wall time, **"
                   f"{data['processor_seconds'] / 60:.1f} minutes** of processor time (user + system of the "
                   f"notebook, its kernel and its workers); 2 cores give at best half that in wall time. "
                   f"Run before: {_run_label(prev)}.\n")
        out += ["| notebook | wall s | processor s | run before: wall s | processor s |", "|---|---|---|---|---|"]
        for r in sorted(data["notebooks"], key=lambda r: -r["processor_seconds"]):
            b = before.get(r["notebook"], {})
            out.append(f"| {r['notebook']} | {r['seconds']:.1f} | {r['processor_seconds']:.1f} | "
                       f"{b.get('seconds', float('nan')):.1f} | {b.get('processor_seconds', float('nan')):.1f} |")
        out.append("")
        return "\n".join(out)
    status = "complete" if data["finished"] else f"{len(data['notebooks'])} of {data['expected']} notebooks finished"
    wall = data.get("wall_seconds")
    compiled = ("compiling every numba kernel into an empty cache" if data.get("empty_cache")
                else "with the kernels compiled and the exact values cached by an earlier run of the same sources")
    setup = (" in a fresh clone: creating the virtual environment, installing the pins, " + compiled +
             ", running the notebooks (two at a time, those that keep both cores busy on their own alone; "
             "each with 2 worker processes) and building the HTML") if data.get("includes_environment_setup") else ""
    out.append(f"Per-notebook run times of a paper-preset `make book` run on 2 cores{setup} "
               f"(from its log; {status}). Sum of notebook times: **{data['total_seconds'] / 60:.1f} minutes**"
               + (f"; whole command: **{wall / 60:.1f} minutes** of wall time." if wall else ".") + "\n")
    out.append("![notebook run times at paper scale](../benchmarks/latest/book.png)\n")
    out += ["| notebook | seconds |", "|---|---|"]
    out += [f"| {r['notebook']} | {r['seconds']:.1f} |" for r in sorted(data["notebooks"], key=lambda r: -r["seconds"])]
    out.append("")
    return "\n".join(out)


def rerun_section(data) -> str:
    """Issue 33's table: each notebook rerun alone at the paper preset."""
    if not data or not data.get("notebooks"):
        return ""
    env = data.get("environment", {})
    out = ["## Rerunning one figure at the paper preset\n",
           f"Each notebook run alone by `python -m qtheory reproduce --preset paper --only ID --force` "
           f"(`benchmarks/book_each.sh`, second pass: kernels already compiled, parameter-independent "
           f"values cached), its replications on both cores; wall and processor seconds of the whole "
           f"command (start-up, notebook, figures and their checks). Run {_run_label(data)} (load average "
           f"{env.get('load_average_at_start', float('nan')):.1f} when the log was read). Goal: "
           f"≤ {RERUN_GOAL_S:g} s each.\n",
           "| notebook | wall s | processor s |", "|---|---|---|"]
    for r in sorted(data["notebooks"], key=lambda r: -r["seconds"]):
        out.append(f"| {r['notebook']} | {r['seconds']:.1f} | {r['processor_seconds']:.1f} |")
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
        *[f"| {k} | {a:.6f} | {b:.6f} |" for k, (a, b) in enumerate(zip(data["mean_jobs_local"], data["mean_jobs_dask"]))],
        ""])


def notes_section(peers, limit, book) -> str:
    lines = ["## Earlier goals\n", "| goal | measured | met |", "|---|---|---|"]
    if peers:
        sp = []
        for key, case in peers["cases"].items():
            for impl in ("simpy", "ciw"):
                if impl in case["results"]:
                    sp.append((case["results"][impl]["ratio_numba_over"], key, impl))
        if sp:
            low = min(sp)
            lines.append(f"| ≥ 100x SimPy / Ciw | smallest speed-up {low[0]:.0f}x ({low[2]}, {low[1]}); "
                         f"Ciw {min(r for r, _, i in sp if i == 'ciw'):.0f}x or more | "
                         f"{'yes' if low[0] >= 100 else 'not for every model, see the performance diary in CHANGELOG.md'} |")
    if limit:
        big = limit["case"]
        ratio = big["results"]["c"]["ratio_numba_over"]
        ratio_mt = big["results"]["c_mt"]["ratio_numba_over"]
        lines.append(f"| within 2x of C (JSQ(2) supermarket, N = 1000) | C with the package's generator "
                     f"(xoshiro256+) runs {1 / ratio:.2f} times as fast as the package; C with numba's "
                     f"`np.random` generator (MT19937) {1 / ratio_mt:.2f} times | "
                     f"{'yes' if 1 / ratio <= 2 else 'no, see the performance diary in CHANGELOG.md'} |")
    if book and book.get("notebooks"):
        tot = (book.get("wall_seconds") or book["total_seconds"]) / 60
        lines.append(f"| whole book at paper scale < 15 min (2 cores) | {tot:.1f} min for `make book` "
                     f"({book['total_seconds'] / 60:.1f} min of notebooks)"
                     f"{'' if book['finished'] else ' (run not finished)'} | "
                     f"{'yes' if tot < 15 and book['finished'] else 'see below'} |")
    lines.append("")
    return "\n".join(lines)


def write_page(extra_notes: str = "") -> str:
    peers, limit, scaling, book, dask, c, instr, indep, rerun = (
        _load(n) for n in ("peers", "limit", "scaling", "book", "dask", "c", "instructions", "independent", "rerun"))
    details = [independent_section(indep), c_section(c, instr), notes_section(peers, limit, book)]
    if peers:
        details.append(peers_section(peers))
    if limit:
        details.append(limit_section(limit))
    if scaling:
        details.append(scaling_section(scaling))
    details.append(rerun_section(rerun))
    details.append(book_section(book))
    if dask:
        details.append(dask_section(dask))
    # about one screen for the reader: the summary open, every measurement in one closed dropdown
    details = [d for d in details if d]
    parts = [INTRO, summary_section(c, scaling, book, indep, rerun), "## Details\n",
             folded_together(f"The {len(details)} measurements behind the summary: tables, plots, earlier goals", details)]
    text = "\n".join(parts).rstrip() + "\n"
    PAGE.write_text(text)
    return text


if __name__ == "__main__":
    write_page()
    print(f"wrote {PAGE}")
