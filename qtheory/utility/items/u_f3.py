"""U-F3: the optimal task assignment :math:`q_*` against the load (Sec. 2.3.1, Fig. 3).

:func:`compute` solves eqs. (10)-(11) on a grid of loads for the two utility families of
Fig. 3 as we reconstructed them (:mod:`qtheory.utility.examples`) and returns each class's
tasks per pool, the paper's column form at a few loads, and the records: the breakpoints of
the right panel from the ranking of coordinates checked against an independent route
(the linear segments sorted by slope, :func:`segment_breakpoints`, judged by
:func:`breakpoint_checks`), and the reconstruction of the utilities (:func:`reconstruction_claim`).
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim
from ...display import Table
from ...errors import ParameterError
from ...results import ItemResult
from ...validation import check_integer, check_positive
from ..examples import FIG3_BREAKPOINTS, figure3_left_system, figure3_right_system
from ..experiments import assignment_rows, pool_columns
from ..model import PoolSystem
from ..optimal import class_change_loads

__all__ = ["ITEM", "compute", "segment_breakpoints", "breakpoint_checks", "reconstruction_claim",
           "growing_classes", "left_ratios", "class_edges"]

ITEM = "U-F3"
SOURCE = "Sec. 2.3.1, Fig. 3"
#: the resources r_i of the left panel's utilities x log(1 + r_i / x)
LEFT_RESOURCES = (2.0, 4.0, 6.0)
#: absolute tolerance of the breakpoint check: both routes add the same few binary fractions
BREAKPOINT_TOLERANCE = 1e-12
#: loads within this distance of a breakpoint are left out when telling which class grows
EDGE_MARGIN = 0.05
#: an increase of tasks per pool smaller than this between grid loads is rounding, not growth
GROWTH_FLOOR = 1e-12


def segment_breakpoints(system: PoolSystem, rho_max: float) -> list[float]:
    """The loads up to `rho_max` where the growing class changes, for piecewise-linear utilities.

    An independent route to :func:`~qtheory.utility.optimal.class_change_loads`: the linear
    segments of all utilities, sorted by decreasing slope (ties to the smaller class), absorb
    the load in that order, each a mass :math:`\\alpha(i)` times its length (Sec. 2.3.1); a
    breakpoint is the accumulated mass where the class of the next segment differs.
    """
    segments = []
    for i, u in enumerate(system.utilities):
        ends = list(u.breakpoints) + [np.inf]
        starts = [0.0] + list(u.breakpoints)
        for slope, a0, b0 in zip(u.slopes, starts, ends):
            segments.append((-slope, i, a0, (b0 - a0) * system.alpha[i]))
    segments.sort()
    mass, out = 0.0, []
    for k, (_, i, _, m) in enumerate(segments):
        if mass >= rho_max:
            break
        if k and i != segments[k - 1][1]:
            out.append(mass)
        mass += m
    return out


def breakpoint_checks(by_segments: list[float], by_ranking: list[float]) -> list[Claim]:
    """One internal check per breakpoint of the segment route: the ranking of coordinates
    (:func:`~qtheory.utility.optimal.class_change_loads`) must give the same load (a missing one
    counts as NaN and fails)."""
    claims = []
    for k, reference in enumerate(by_segments):
        text = (f"Fig. 3 right (our utilities): breakpoint {k + 1} from the ranking of coordinates vs from the sorted "
                "segments")
        evidence = ("the loads at which the optimal assignment changes class, by enumeration of coordinates, "
                    "against the segment masses sorted by slope")
        if k < len(by_ranking):
            claims.append(Claim(item=ITEM, category="check", text=text, reference=float(reference),
                                ours=float(by_ranking[k]), tolerance=BREAKPOINT_TOLERANCE, evidence=evidence))
        else:
            claims.append(Claim(item=ITEM, category="check", text=text, holds=False,
                                evidence=evidence + f"; the ranking gives no breakpoint near {reference:g}"))
    return claims


def reconstruction_claim(by_ranking: list[float], stated=FIG3_BREAKPOINTS) -> Claim:
    """The reconstruction of Fig. 3's utilities: it reproduces Sec. 2.3.1 when the ranking of
    coordinates gives exactly the stated breakpoints (1.25, 6.25, 7.5)."""
    same_count = len(by_ranking) == len(stated)
    worst = max(abs(a - b) for a, b in zip(stated, by_ranking)) if same_count else None
    reproduces = same_count and worst <= BREAKPOINT_TOLERANCE
    return Claim(
        item=ITEM, category="reconstruction", source=SOURCE,
        text=r"Fig. 3 utilities, our reconstruction: $x \log(1 + r/x)$, $r = (2, 4, 6)$ on the left; piecewise-linear "
             r"marginal utilities (class 1: 2; class 2: 10, 4, $-1$; class 3: 6, $-1$), $\alpha = (1/4, 1/4, 1/2)$ on the right",
        verdict="reproduces every property stated in Sec. 2.3.1, by construction" if reproduces
        else f"does not reproduce the breakpoints stated in Sec. 2.3.1 (found {by_ranking})",
        alternatives=r"left: any $g$ concave increasing ($\log(1 + y)$ is one choice; the ratios $r_i / c(r, \rho)$ do not "
                     r"depend on $g$); right: any piecewise-linear utilities whose segment masses $\alpha(i) \times$ length "
                     r"accumulate to 1.25, 6.25 and 7.5 in the order of their slopes, e.g. $\alpha = (1/3, 1/3, 1/3)$ "
                     "with class-2 segments of 3.75 tasks",
        ours=worst,
        evidence="exact breakpoints from the ranking of coordinates equal 1.25, 6.25, 7.5; "
                 "left-panel occupancy / $r_i$ equal up to rounding")


def proportional_claim(rows: list[dict], system) -> Claim:
    r"""Sec. 2.3.1 on Fig. 3 (left): with :math:`u_i(x) = x g(r(i)/x)`, :math:`g` concave increasing, the
    pools hold roughly :math:`r(i)/c(r, \rho)` tasks, some rounded. Whatever :math:`g`, the
    normalisation that places :math:`\rho` tasks per pool on average is
    :math:`c = \sum_i \alpha(i) r(i) / \rho`; "roughly" is read as: every class's mean tasks per pool
    within one task of :math:`r(i)/c` at every load of the grid (not a reconstruction: it holds for
    any concave increasing :math:`g`)."""
    resources = np.array([u.r for u in system.utilities], dtype=float)
    mean_r = float(np.dot(system.alpha, resources))
    worst, at = 0.0, None
    for r in rows:
        if r["panel"] != "left":
            continue
        target = resources[r["cls"] - 1] * r["rho"] / mean_r
        gap = abs(r["tasks_per_pool"] - target)
        if gap >= worst:
            worst, at = gap, r
    return Claim(item=ITEM, source="Sec. 2.3.1, Fig. 3 (left)", holds=bool(worst < 1.0),
                 text=r"Fig. 3 (left): pools hold roughly $r(i)/c(r, \rho)$ tasks, in fixed ratios as $\rho$ grows",
                 evidence=f"Largest distance between a class's mean tasks per pool and $r(i)/c$: {worst:.3f} tasks "
                          f"(class {at['cls']} at $\\rho = {at['rho']:.3g}$; read as: below one task everywhere).")


def growing_classes(rows: list[dict], panel: str, lo: float, hi: float) -> list[int]:
    """The classes whose tasks per pool increase somewhere strictly inside ``(lo, hi)`` (away
    from its ends by :data:`EDGE_MARGIN`), in the assignment rows of `panel`."""
    out = []
    for c in sorted({r["cls"] for r in rows if r["panel"] == panel}):
        sel = [r["tasks_per_pool"] for r in rows if r["panel"] == panel and r["cls"] == c
               and lo + EDGE_MARGIN < r["rho"] < hi - EDGE_MARGIN]
        if np.any(np.diff(sel) > GROWTH_FLOOR):
            out.append(c)
    return out


def left_ratios(rows: list[dict]) -> list[float]:
    """Tasks per pool over :math:`r_i` of each class of the left panel at the largest load."""
    return [float([r["tasks_per_pool"] for r in rows if r["panel"] == "left" and r["cls"] == c][-1] / res)
            for c, res in enumerate(LEFT_RESOURCES, start=1)]


def class_edges(columns: list[dict]) -> list[float]:
    """Positions between consecutive pools of different classes in one column panel (the
    thick lines of the paper's drawing)."""
    return [k - 0.5 for k in range(1, len(columns)) if columns[k]["cls"] != columns[k - 1]["cls"]]


def compute(*, seed: int = 0, rho_max: float, n_points: int, column_rhos, column_pools: int) -> ItemResult:
    """U-F3 at the notebook's parameters (see the notebook for their meaning).

    Rows (``U-F3.csv``): ``panel, rho, cls, tasks_per_pool, sigma_cls, sigma_j, utility`` for
    `n_points` loads up to `rho_max`; table ``columns``: ``panel, rho, pool, cls, tasks``, the
    paper's column form for `column_pools` pools at each of `column_rhos`. Deterministic (the
    `seed` is kept for the runner).
    """
    params = dict(seed=seed, rho_max=rho_max, n_points=n_points, column_rhos=column_rhos, column_pools=column_pools)
    rho_max = check_positive("rho_max", rho_max)
    n_points = check_integer("n_points", n_points, low=2)
    column_pools = check_integer("column_pools", column_pools, low=1)
    if not list(column_rhos):
        raise ParameterError("`column_rhos` must name at least one load")
    systems = {"left": figure3_left_system(), "right": figure3_right_system()}
    for system in systems.values():
        system.pool_counts(column_pools, name="column_pools")
    for k, rho in enumerate(column_rhos):
        check_positive(f"column_rhos[{k}]", rho)
    rhos = np.linspace(rho_max / n_points, rho_max, n_points)
    rows = [{"panel": panel, **row} for panel, system in systems.items() for row in assignment_rows(system, rhos)]
    columns = [{"panel": panel, "rho": rho, **pool} for panel, system in systems.items() for rho in column_rhos
               for pool in pool_columns(system, column_pools, rho)]
    change = class_change_loads(systems["right"], rho_max)
    ratios = left_ratios(rows)
    claims = (proportional_claim(rows, systems["left"]), *breakpoint_checks(segment_breakpoints(systems["right"], rho_max), change), reconstruction_claim(change))
    shown = Table(((r"right panel: loads $\rho$ where the growing class changes",
                    ", ".join(f"{x:g}" for x in change) + " (paper: 1.25, 6.25, 7.5)"),
                   (rf"left panel: tasks per pool / $r_i$ at $\rho = {rho_max:g}$", ", ".join(f"{x:.3f}" for x in ratios))),
                  {"quantity": lambda kv: kv[0], "value": lambda kv: kv[1]})
    edges = [0.0] + change + [rho_max]
    lines = [f"- right panel, $\\rho \\in ({lo:g}, {hi:g})$: growing class(es) "
             + (", ".join(str(c) for c in growing_classes(rows, "right", lo, hi)) or "none")
             for lo, hi in zip(edges[:-1], edges[1:])]
    lines.append(f"- breakpoints found: {', '.join(f'{x:g}' for x in change)}; stated in Sec. 2.3.1: "
                 f"{', '.join(f'{x:g}' for x in FIG3_BREAKPOINTS)}.")
    if len(change) >= 2:
        right = {c: np.array([r["tasks_per_pool"] for r in rows if r["panel"] == "right" and r["cls"] == c])
                 for c in (1, 2, 3)}

        def at(rho, c):
            return float(np.interp(rho, rhos, right[c]))

        lines.append(f"- class 3 against class 2 (tasks per pool): {at(change[0], 3):.2f} vs {at(change[0], 2):.2f} at "
                     f"rho = {change[0]:g}, {at(change[1], 3):.2f} vs {at(change[1], 2):.2f} at rho = {change[1]:g}.")
    lines.append(f"- left panel, tasks per pool / $r_i$ at rho = {rho_max:g}: " + ", ".join(f"{x:.3f}" for x in ratios) + ".")
    caption = (rf"tasks per pool of each class under the optimal assignment $q_*$ against the offered load $\rho$ "
               rf"({n_points} loads up to {rho_max:g}). Left: $u_i(x) = x\log(1 + r_i/x)$, $r = (2, 4, 6)$. Right: our "
               "piecewise-linear utilities (dotted: the breakpoints 1.25, 6.25, 7.5)")
    columns_caption = (rf"the optimal assignment as the paper draws it: tasks of each of {column_pools} pools, grouped by "
                       rf"class, at $\rho = {', '.join(f'{x:g}' for x in column_rhos)}$, for the utilities of the left "
                       "(top) and right (bottom) panels")
    edges_by_panel = {p: class_edges([c for c in columns if c["panel"] == p and c["rho"] == column_rhos[0]])
                      for p in systems}
    return ItemResult(ITEM, params, None, rows, claims=claims, tables={"columns": columns},
                      summary=dict(breakpoints_found=change, breakpoints_paper=list(FIG3_BREAKPOINTS),
                                   left_ratios_at_rho_max=ratios),
                      displays=(shown,), text="\n".join(lines),
                      figure={"caption": caption, "columns_caption": columns_caption, "breakpoints": FIG3_BREAKPOINTS,
                              "class_edges": edges_by_panel,
                              "titles": {"left": r"$x\,\log(1 + r_i/x)$, $r=(2,4,6)$", "right": "piecewise linear"}})
