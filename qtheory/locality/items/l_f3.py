"""L-F3: the ODE (3.7) from the three initial matrices of Sec. 6 reaches one limit (Sec. 6.3, Fig. 3).

:func:`compute` integrates (3.7) for the Sec. 6 system on irg(:math:`p^1`) from the matrices Q,
Q1 and Q2 of Sec. 6, each under both readings of the initial condition (lengths 1, 2, 3 as
written, or 0, 1, 2), and compares every path's end with the fixed point of an independent root
solve of (5.1). The paper's claim (Fig. 3: one limit from every start) is judged by
:func:`same_limit_claim`; the reading of the initial matrices is recorded by
:func:`reading_reconstruction`.
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim
from ...display import Table, number
from ...errors import ParameterError
from ...results import ItemResult
from ..meanfield import fixed_point, solve_meanfield
from ..model import paper_initial_occupancy, paper_system

__all__ = ["ITEM", "INITIALS", "READINGS", "LIMIT_TOLERANCE", "compute", "final_distance", "same_limit_claim",
           "reading_reconstruction"]

ITEM = "L-F3"
#: the initial matrices of Sec. 6 and the two readings of their columns
INITIALS = ("Q", "Q1", "Q2")
READINGS = ("lengths-1-3", "lengths-0-2")
#: "the same limit": every path ends this close (sup norm over the types) to the root-solved q*
LIMIT_TOLERANCE = 1e-4
SOURCE = "Sec. 6.3, Fig. 3"


def final_distance(rows, t_final: float) -> float:
    """Largest :math:`|q_{m,1}(t_{final}) - q^*_{m,1}|` over the rows at time `t_final`."""
    ends = [abs(r["q1"] - r["fixed_point"]) for r in rows if r["t"] == t_final]
    if not ends:
        raise ParameterError(f"no row at `t_final` = {t_final!r}")
    return max(ends)


def same_limit_claim(final: float, horizon: float) -> Claim:
    """Fig. 3's claim: the paths from Q, Q1 and Q2 reach the same limit.

    Holds when every path (both readings) ends within :data:`LIMIT_TOLERANCE` of the root-solved
    fixed point at `horizon` (`final`, from :func:`final_distance`).
    """
    return Claim(item=ITEM, text="Fig. 3: $q_{m,1}(t)$ from Q, Q1, Q2 reach the same limit", source=SOURCE,
                 holds=bool(final < LIMIT_TOLERANCE),
                 evidence=f"ODE (3.7) to $t = {horizon:g}$, both readings of the initial matrices: largest distance to "
                          f"the root-solved $q^*$ at the end {number(final, digits=2)} (criterion $10^{{-4}}$)")


def reading_reconstruction(final: float) -> Claim:
    """Our reading of the initial matrices of Sec. 6 (columns = lengths 1, 2, 3), with the outcome
    of the check that the shifted reading reaches the same fixed point."""
    return Claim(item=ITEM, category="reconstruction", source="Sec. 6 (initial matrix Q)",
                 text=r"Sec. 6 initial condition read literally: entry $(m, \ell)$ is the probability that the initial "
                      r"length is $\ell$, $\ell = 1, 2, 3$ (no server starts empty); the shifted reading "
                      r"$\ell = 0, 1, 2$ reaches the same fixed point",
                 alternatives=r"entry $(m, \ell)$ is the probability that the initial length is $\ell - 1$, "
                              "lengths 0, 1, 2",
                 ours=float(final),
                 verdict=("the limit does not depend on the reading" if final < LIMIT_TOLERANCE else
                          f"the starts end {number(final, digits=2)} apart from the fixed point at horizon"),
                 evidence="six ODE runs (three matrices x two readings) against the root-solved fixed point")


#: the two readings of the initial matrices, in words (the figure's legend)
READING_WORDS = {"lengths-1-3": "queue lengths 1, 2, 3", "lengths-0-2": "queue lengths 0, 1, 2"}


def series_label(initial: str, reading: str) -> str:
    """The legend entry of a path: ``start $Q_{1}$, queue lengths 0, 1, 2`` for ``("Q1", "lengths-0-2")``."""
    math = f"{initial[0]}_{{{initial[1:]}}}" if len(initial) > 1 else initial
    return f"start ${math}$, {READING_WORDS[reading]}"


def time_ticks(horizon: float) -> list[float]:
    """Ticks of the figure's time axis (linear up to 1, logarithmic beyond) up to `horizon`."""
    return [t for t in (0, 1, 3, 10, 30, 100, 300, 1000) if t <= horizon]


def compute(*, seed: int = 0, horizon: float, n_times: int) -> ItemResult:
    """L-F3 at the notebook's parameters (`seed` is recorded only: nothing random is drawn).

    Rows: ``initial, reading, server_type, t, q1, fixed_point, truncation_error``, one per
    initial matrix, reading, server type and grid time.
    """
    if not n_times >= 2:
        raise ParameterError(f"`n_times` must be at least 2 (got {n_times!r})")
    if not horizon > 0:
        raise ParameterError(f"`horizon` must be positive (got {horizon!r})")
    params = dict(seed=seed, horizon=horizon, n_times=n_times)
    system = paper_system("design")
    t_grid = np.linspace(0.0, horizon, n_times)
    fp = fixed_point(system)
    rows = []
    for name in INITIALS:
        for reading in READINGS:
            sol = solve_meanfield(system, paper_initial_occupancy(name, reading), t_grid)
            for m in range(3):
                for g, t in enumerate(t_grid):
                    rows.append(dict(initial=name, reading=reading, server_type=m + 1, t=t, q1=sol.q[g, m, 0],
                                     fixed_point=fp.q[m, 0], truncation_error=sol.truncation_error))
    final = final_distance(rows, t_grid[-1])
    claims = (same_limit_claim(final, horizon), reading_reconstruction(final))
    shown = [(f"$q^*_{{{m + 1},1}}$", f"{fp.q[m, 0]:.6f}") for m in range(3)] + \
        [(rf"largest $|q_{{m,1}}({horizon:g}) - q^*_{{m,1}}|$ over the 6 starts", f"{number(final, digits=3)}")]
    table = Table(tuple(shown), {"quantity": lambda r: r[0], "value": lambda r: r[1]})
    caption = (rf"fraction of busy servers $q_{{m,1}}(t)$ of each type $m$ for the Sec. 6 system on irg($p^1$) (JSQ(2), "
               rf"$\lambda = 3$), ODE (3.7) up to $t = {horizon:g}$ from the initial matrices Q, Q1, Q2, each in both "
               "readings (solid: queue lengths 1, 2, 3; dotted: 0, 1, 2), and the fixed point from a root solve "
               "(dashed); time runs linearly up to 1 and on a log scale beyond, where the paths settle")
    return ItemResult(ITEM, params, None, rows, claims=claims,
                      summary=dict(max_final_distance=final, fixed_point_q1=fp.q[:, 0], root_residual=fp.residual),
                      displays=(table,),
                      figure={"caption": caption, "fixed_point_q1": [float(x) for x in fp.q[:, 0]],
                              "initials": INITIALS, "line_styles": {"lengths-1-3": "-", "lengths-0-2": ":"}})
