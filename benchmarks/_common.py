"""Pieces shared by the single-computation timing scripts (``bench_graphmf.py``,
``bench_graphrefined.py``, ``bench_second_order.py``): best-of-n timing, the common command
line options and the optional JSON output."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def best(func, repeats):
    """``func()``'s result and its best wall and processor times over `repeats` calls (the
    machine is shared: processor time does not count the waits for a core)."""
    wall, cpu = np.inf, np.inf
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = func()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return out, wall, cpu


def parser(description: str, graph_sizes: list[int] | None = None) -> argparse.ArgumentParser:
    """A command line with the options every timing script takes, ``--repeats`` and ``--json``;
    with `graph_sizes` (a script timing one computation per irg graph) also ``--n``, the
    graphs' sizes (default `graph_sizes`), and ``--seed``, the graphs' seed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    if graph_sizes is not None:
        parser.add_argument("--n", type=int, nargs="+", default=graph_sizes)
        parser.add_argument("--seed", type=int, default=1)
    return parser


def write_rows(path: str | None, rows: list[dict]) -> None:
    """Write `rows` to `path` as JSON, if a path is given."""
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
