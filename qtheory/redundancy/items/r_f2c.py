"""R-F2c: the capacity region of the M-model (Fig. 2(c), Sec. 3.3).

:func:`compute` traces the boundary of the stability region (1) of the M-model (three
servers, types :math:`\\{1,2\\}` and :math:`\\{2,3\\}`) in the plane of the two types' arrival
rates: for each direction :math:`p_{\\{1,2\\}}` it finds the critical load :math:`\\lambda^*` and
the critical subset :math:`\\mathcal T^*` (:func:`~qtheory.redundancy.stability.critical_subset`),
and marks the directions with :math:`\\mathcal T^* = \\mathcal S` (local stability (7)/(8)).
The caption of Fig. 2(c) states :math:`\\lambda^*` inside the cone (:func:`inside_cone_claim`)
and outside it (:func:`outside_cone_claim`); Sec. 3.3 states the cone's edges
(:func:`cone_edge_claim`).
"""

from __future__ import annotations

import numpy as np

from ...claims import Claim
from ...display import Table, parameter_number
from ...errors import ParameterError
from ...results import ItemResult, select
from ...validation import check_integer, check_real
from ..model import m_model
from ..stability import critical_subset

__all__ = ["ITEM", "compute", "direction_row", "cone", "inside_cone_claim", "outside_cone_claim", "cone_edge_claim"]

ITEM = "R-F2c"
CAPTION_SOURCE = "Fig. 2(c) caption"
#: exact values: the critical load is computed, not estimated
EXACT = 1e-12


def direction_row(p12: float, speeds, example: int) -> dict:
    """One direction :math:`(p_{\\{1,2\\}}, 1 - p_{\\{1,2\\}})`: its :math:`\\lambda^*`, :math:`\\mathcal T^*`
    and the boundary point :math:`3\\lambda^*(p_{\\{1,2\\}}, p_{\\{2,3\\}})` of the region (1)."""
    system = m_model(p12, speeds)
    crit = critical_subset(system)
    rate = 3 * crit.critical_load
    return dict(p12=float(p12), p23=1 - float(p12), lambda_star=crit.critical_load,
                critical_types=" ".join(system.labels[k] for k in crit.types),
                locally_stable=int(crit.maximally_stable), unique=int(crit.unique),
                boundary_rate_12=rate * p12, boundary_rate_23=rate * (1 - p12), example=example)


def cone(rows: list[dict]) -> list[float]:
    """The smallest and largest :math:`p_{\\{1,2\\}}` of the locally stable grid directions
    (the examples left out)."""
    inside = [r["p12"] for r in select(rows, example=0, locally_stable=1)]
    if not inside:
        raise ParameterError("no direction of the grid is locally stable: increase `n_directions`")
    return [min(inside), max(inside)]


def inside_cone_claim(row: dict, speeds) -> Claim:
    """Fig. 2(c): :math:`\\lambda^* = \\mu` (the mean speed) in a direction inside the cone."""
    return Claim(item=ITEM, text=r"Fig. 2(c): $\lambda^* = \mu$ for a direction inside the cone ($p_{\{1,2\}} = 7/12$)",
                 paper=float(np.mean(speeds)), ours=float(row["lambda_star"]), tolerance=EXACT,
                 source=CAPTION_SOURCE)


def outside_cone_claim(row: dict, speeds) -> Claim:
    """Fig. 2(c): :math:`\\lambda^* = (\\mu_2 + \\mu_3)/(3 p_{\\{2,3\\}})` in a direction outside the cone
    on the side of type :math:`\\{2,3\\}` (the face :math:`\\lambda_{\\{2,3\\}} = \\mu_2 + \\mu_3`)."""
    return Claim(item=ITEM, text=r"Fig. 2(c): $\lambda^* = (\mu_2 + \mu_3) / (3 p_{\{2,3\}})$ outside the cone ($p_{\{1,2\}} = 1/4$)",
                 paper=(speeds[1] + speeds[2]) / (3 * row["p23"]), ours=float(row["lambda_star"]), tolerance=EXACT,
                 source=CAPTION_SOURCE)


def cone_edge_claim(rows: list[dict], n_directions: int) -> Claim:
    """Sec. 3.3: the M-model is locally stable iff :math:`p_{\\{1,2\\}}, p_{\\{2,3\\}} < 2/3`.

    Compared: the largest locally stable :math:`p_{\\{1,2\\}}` of the grid with the edge 2/3, within
    the grid's spacing :math:`1/(n_{\\rm directions} + 1)` plus rounding (when 2/3 is a grid point,
    as for 59 directions, the edge is not locally stable and the largest stable direction is one
    full step away).
    """
    return Claim(item=ITEM, text=r"local stability of the M-model: $p_{\{1,2\}}, p_{\{2,3\}} < 2/3$ (cone edge $p_{\{1,2\}} = 1/3 \ldots 2/3$)",
                 paper=2 / 3, ours=cone(rows)[1], tolerance=1.0 / (n_directions + 1) + EXACT,
                 source="Sec. 3.3 (conditions (7), (8) for the M-model)")


def compute(*, seed: int, speeds, n_directions: int, examples) -> ItemResult:
    """R-F2c at the notebook's parameters.

    Rows: ``p12, p23, lambda_star, critical_types, locally_stable, unique, boundary_rate_12,
    boundary_rate_23, example`` (the grid first, ``example = 0``, then the examples).


    Parameters
    ----------
    seed : int
        Recorded only (nothing here is random).
    speeds : sequence of 3 floats
        :math:`(\\mu_1, \\mu_2, \\mu_3)`.
    n_directions : int
        Directions :math:`p_{\\{1,2\\}}` on an even grid of :math:`(0, 1)`, ends excluded.
    examples : two floats
        The directions of Fig. 2(c)'s rays: one inside the cone, one outside it on the side of
        type :math:`\\{2,3\\}` (the paper gives the first, 7/12; the second is our choice).

    """
    n_directions = check_integer("n_directions", n_directions, low=1)
    if len(examples) != 2:
        raise ParameterError(f"`examples` must hold two directions p12, one inside the cone and one outside "
                             f"(got {list(examples)!r})")
    for k, p in enumerate(examples):
        check_real(f"examples[{k}]", p, low=0.0, high=1.0, low_open=True, high_open=True)
    params = dict(seed=seed, speeds=speeds, n_directions=n_directions, examples=examples)
    grid = [(float(p), 0) for p in np.linspace(0, 1, n_directions + 2)[1:-1]]
    rows = [direction_row(p12, speeds, example) for p12, example in grid + [(float(p), 1) for p in examples]]
    edges = cone(rows)
    ex = select(rows, example=1)
    claims = (inside_cone_claim(ex[0], speeds), outside_cone_claim(ex[1], speeds), cone_edge_claim(rows, n_directions))
    table = Table(tuple(ex), {r"$p_{\{1,2\}}$": lambda r: parameter_number(r["p12"]), r"$\lambda^*$": lambda r: f"{r['lambda_star']:.4f}",
                              r"critical types $\mathcal{T}^*$": lambda r: r["critical_types"],
                              "locally stable": lambda r: "yes" if r["locally_stable"] else "no"},
                  caption=(f"The two example directions; locally stable directions on the grid of {n_directions}: "
                           f"$p_{{\\{{1,2\\}}}} \\in [{edges[0]:.4f}, {edges[1]:.4f}]$"))
    caption = (
        rf"capacity region of the M-model with speeds $\mu = ({', '.join(f'{x:g}' for x in speeds)})$ in the arrival rates "
        rf"of the two types, boundary computed in {n_directions} directions; grey: the cone of locally stable directions; "
        rf"dashed rays: the examples $p_{{\{{1,2\}}}} = {', '.join(parameter_number(x) for x in examples)}$ up to $\lambda^*$ (stars)")
    return ItemResult(ITEM, params, seed, rows, claims=claims, summary=dict(cone=edges, examples=ex),
                      displays=(table,), figure={"caption": caption})
