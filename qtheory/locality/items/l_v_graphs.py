"""L-V-graphs: irg(p) graphs, Condition 1 and clustered proportional sparsity (Definitions 2-3,
Theorem 8, Sec. 3.5).

:func:`compute` builds one :math:`\\mathrm{irg}(p^1)` graph of the Sec. 6 system per N and returns
one :class:`~qtheory.results.ItemResult` per manifest item (:class:`Results`): L-P-irg (the edge
densities (2.2) and degree ratios of Condition 1) and L-V-thm8 (the fraction of
:math:`\\varepsilon`-bad dispatchers of (3.8) over a family of test sets, against the window graph
with the same densities). The judgements are the small functions below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...claims import Claim
from ...display import Table, listing
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed
from ..graphs import condition1_statistics, default_test_sets, irg, sparsity_statistic, window_graph
from ..model import LocalitySystem, paper_system, system_sizes
from ..stability import lemma2_criterion

__all__ = ["Results", "compute", "density_tolerance", "ratio_text", "density_claim", "degree_ratio_claim",
           "bad_fraction", "sparsity_claims", "summary_text", "coinciding", "draw_bad_fractions"]


class Results(NamedTuple):
    """The two items of the page, in page order."""

    irg: ItemResult
    thm8: ItemResult


def density_tolerance(system: LocalitySystem, n_servers: int) -> float:
    """Five binomial standard errors of the sparsest cluster/type pair's edge density (2.2) in an
    :math:`\\mathrm{irg}(p)` graph with `n_servers` servers: the largest of
    :math:`5 \\sqrt{p_{k,m}(1 - p_{k,m}) / (\\text{dispatchers}_k \\cdot \\text{servers}_m)}`."""
    sz = system_sizes(system, n_servers)
    pairs = sz.dispatchers_per_cluster[:, None] * sz.servers_per_type[None, :]
    return float(np.max(5 * np.sqrt(system.p * (1 - system.p) / pairs)))


def ratio_text(x: float) -> str:
    """A degree ratio; infinite when some vertex has degree 0 (shown as the symbol)."""
    return f"{x:.3f}" if np.isfinite(x) else "∞"


def density_claim(rows, tolerances, n_list) -> Claim:
    """The check that every ``max_density_error`` is within its tolerance (:func:`density_tolerance`)."""
    within = all(r["max_density_error"] <= tol for r, tol in zip(rows, tolerances))
    return Claim(item="L-P-irg", text="$\\mathrm{irg}(p)$: the edge density of every cluster/type pair is $p$ "
                                      "(Condition 1, (2.2)), within 5 binomial standard errors at every $N$",
                 category="check", holds=bool(within),
                 evidence="largest density errors " + ", ".join(f"{r['max_density_error']:.4f}" for r in rows)
                          + " against 5 SE " + ", ".join(f"{tol:.4f}" for tol in tolerances)
                          + f" at $N$ = {listing(n_list, conjunction='and')}")


def degree_ratio_claim(rows) -> Claim:
    """The check that the largest/smallest degree ratios of dispatchers and of servers do not
    increase from one N to the next (rows in increasing N)."""
    falls = all(b["max_dispatcher_degree_ratio"] <= a["max_dispatcher_degree_ratio"]
                and b["max_server_degree_ratio"] <= a["max_server_degree_ratio"] for a, b in zip(rows, rows[1:]))
    return Claim(item="L-P-irg", text="$\\mathrm{irg}(p)$: the largest/smallest degree ratios of Condition 1 "
                                      "decrease with $N$", category="check", holds=bool(falls),
                 evidence="dispatcher ratios " + ", ".join(ratio_text(r['max_dispatcher_degree_ratio']) for r in rows)
                          + "; server ratios " + ", ".join(ratio_text(r['max_server_degree_ratio']) for r in rows)
                          + " (∞: a vertex of degree 0)")


def bad_fraction(rows, kind: str, eps: float, n: int) -> float:
    """The ``bad_fraction`` of graph `kind` at `eps` and `n` in the L-V-thm8 rows."""
    return next(r["bad_fraction"] for r in rows if r["graph"] == kind and r["eps"] == eps and r["N"] == n)


def _bad_sentence(rows, eps_list, n0, n1) -> str:
    bad = bad_fraction
    return "; ".join(f"$\\varepsilon = {e}$: irg {bad(rows, 'irg', e, n0):.3f} → {bad(rows, 'irg', e, n1):.3f}, "
                     f"window {bad(rows, 'window', e, n0):.3f} → {bad(rows, 'window', e, n1):.3f}" for e in eps_list)


def sparsity_claims(rows, eps_list, n0: int, n1: int, criterion_31: bool) -> tuple[Claim, Claim]:
    """Theorem 8 and the window-graph check from the L-V-thm8 rows, between the smallest N `n0`
    and the largest `n1`.

    Theorem 8 agrees when (3.1) holds (`criterion_31`) and, for every :math:`\\varepsilon`, irg's
    bad fraction falls from `n0` to `n1` (or is 0 at `n1`). The window graph is *not*
    proportionally sparse when for some :math:`\\varepsilon` its bad fraction at `n1` stays at least
    half of a positive value at `n0`, and at `n1` it is more than ten times irg's for every
    :math:`\\varepsilon`.
    """
    bad = bad_fraction
    irg_falls = all(bad(rows, "irg", e, n1) < bad(rows, "irg", e, n0) or bad(rows, "irg", e, n1) == 0
                    for e in eps_list)
    # proportional sparsity needs the fraction to vanish for every eps: one eps at which it stays suffices
    window_stays = [e for e in eps_list if bad(rows, "window", e, n1) >= 0.5 * bad(rows, "window", e, n0) > 0]
    window_above = all(bad(rows, "window", e, n1) > 10 * bad(rows, "irg", e, n1) for e in eps_list)
    sentence = _bad_sentence(rows, eps_list, n0, n1)
    return (
        Claim(item="L-V-thm8", text="Theorem 8: $\\mathrm{irg}(p)$ is clustered proportionally sparse when (3.1) holds "
                                    "(fraction of $\\varepsilon$-bad dispatchers over our test sets falls with $N$)",
              source="Theorem 8 (Sec. 3.5)", holds=bool(irg_falls and criterion_31),
              evidence=f"$N = {n0} \\to {n1}$: " + sentence + "; a lower bound of the left side of (3.8) (a family of "
                                                              "test sets)"),
        Claim(item="L-V-thm8", text="the window graph with the same densities is not proportionally sparse: for "
                                    "some $\\varepsilon$ its $\\varepsilon$-bad fraction stays at least half its value "
                                    "at the smallest $N$, and at the largest $N$ it is ten times irg's for every "
                                    "$\\varepsilon$",
              category="check", holds=bool(window_stays and window_above),
              evidence=sentence + "; $\\varepsilon$ at which the window graph's fraction stays: "
                                  + (listing(window_stays, conjunction="and") if window_stays else "none")))


def summary_text(irg_rows, density_ok: bool, ratios_fall: bool, sentence: str, n0: int, n1: int) -> str:
    """The closing paragraph of the page, from this run's numbers."""
    first, last = irg_rows[0], irg_rows[-1]
    return (f"Density errors within 5 standard errors at every N: {'yes' if density_ok else 'no'}; degree ratios "
            f"(dispatchers) {ratio_text(first['max_dispatcher_degree_ratio'])} at N = {first['N']} and "
            f"{ratio_text(last['max_dispatcher_degree_ratio'])} at N = {last['N']}, "
            f"{'decreasing' if ratios_fall else 'not monotone'}. Fractions of $\\varepsilon$-bad dispatchers, "
            f"$N = {n0} \\to {n1}$: "
            f"{sentence}. The irg graph with N = {last['N']} takes {last['megabytes']:.1f} MB.")


def compute(*, seed: int, n_list, eps_list) -> Results:
    """L-P-irg and L-V-thm8 at the notebook's parameters: one :math:`\\mathrm{irg}(p^1)` graph per N
    in `n_list` (seed ``child_seed(seed, "graph", N)``), and the :math:`\\varepsilon`-bad fractions for
    each :math:`\\varepsilon` in `eps_list` over :func:`~qtheory.locality.graphs.default_test_sets`
    (seed ``child_seed(seed, "test-sets", kind, N)``) of it and of the window graph."""
    n_list, eps_list = list(n_list), list(eps_list)
    if len(n_list) < 2:
        raise ParameterError(f"`n_list` needs at least two sizes to show a trend (got {n_list!r})")
    if not eps_list:
        raise ParameterError("`eps_list` must name at least one epsilon")
    parameters = dict(seed=seed, n_list=n_list, eps_list=eps_list)
    system = paper_system("design")
    rows, bad_rows = [], []
    for n in n_list:
        g = irg(system, n, child_seed(seed, "graph", n))
        st = condition1_statistics(g)
        rows.append(dict(N=n, edges=g.n_edges, megabytes=g.neighbors.nbytes / 1e6,
                         max_density_error=float(np.nanmax(np.abs(st.density - system.p))),
                         max_dispatcher_degree_ratio=float(np.nanmax(st.dispatcher_degree_ratio)),
                         max_server_degree_ratio=float(np.nanmax(st.server_degree_ratio)),
                         min_degree=st.min_dispatcher_degree,
                         **{f"density_{k + 1}{m + 1}": st.density[k, m] for k in range(2) for m in range(3)}))
        for kind in ("irg", "window"):
            graph = g if kind == "irg" else window_graph(system, n)
            sets = default_test_sets(graph, child_seed(seed, "test-sets", kind, n))
            fractions = sparsity_statistic(graph, eps_list, sets)   # one count of N(i) & U for all eps
            for eps, fraction in zip(eps_list, fractions):
                bad_rows.append(dict(N=n, graph=kind, eps=eps, bad_fraction=fraction, test_sets=len(sets)))
        del g
    tolerances = [density_tolerance(system, n) for n in n_list]
    density, ratios = density_claim(rows, tolerances, n_list), degree_ratio_claim(rows)
    irg_table = Table(tuple(rows), {
        "$N$": lambda r: r["N"], "edges": lambda r: f"{r['edges']:,}", "MB": lambda r: f"{r['megabytes']:.1f}",
        "largest density error": lambda r: f"{r['max_density_error']:.4f}",
        "degree ratio, dispatchers / servers": lambda r: f"{ratio_text(r['max_dispatcher_degree_ratio'])} / "
                                                         f"{ratio_text(r['max_server_degree_ratio'])}"},
        caption=r"The $\mathrm{irg}(p^1)$ graphs (neighbour lists of the dispatchers); a degree ratio is $\infty$ "
                r"when some dispatcher or server has no edge (small $N$), and such points are left out of the figure")
    irg_result = ItemResult(
        "L-P-irg", parameters, seed, rows, claims=(density, ratios),
        summary=dict(largest_graph_megabytes=rows[-1]["megabytes"], largest_graph_edges=rows[-1]["edges"]),
        displays=(irg_table,),
        figure={"caption": rf"one $\mathrm{{irg}}(p^1)$ graph of the Sec. 6 system for each $N$ of "
                           f"{listing(n_list, conjunction='and')}: largest error "
                           r"of the cluster/type edge densities against 5 binomial standard errors (left), "
                           r"largest/smallest degree ratios of dispatchers and servers (right)",
                "five_se": tolerances})

    n0, n1 = n_list[0], n_list[-1]
    criterion = lemma2_criterion(system)
    final = {f"{r['graph']} eps={r['eps']}": r["bad_fraction"] for r in bad_rows if r["N"] == n1}
    values = {"(3.1) holds for $p^1$": "yes" if criterion else "no",
              **{k.replace("eps=", "$\\varepsilon = $ "): f"{v:.4f}" for k, v in final.items()}}
    thm8_table = Table(tuple(values.items()), {"quantity": lambda kv: kv[0], "value": lambda kv: kv[1]},
                       caption=f"Fractions of $\\varepsilon$-bad dispatchers at $N = {n1}$")
    sentence = _bad_sentence(bad_rows, eps_list, n0, n1)
    thm8_result = ItemResult(
        "L-V-thm8", parameters, seed, bad_rows, claims=sparsity_claims(bad_rows, eps_list, n0, n1, criterion),
        summary=dict(at_largest_N=final, criterion_31_holds=criterion), displays=(thm8_table,),
        text=summary_text(rows, density.holds, ratios.holds, sentence, n0, n1),
        figure={"eps_list": eps_list,
                "caption": rf"largest fraction of $\varepsilon$-bad dispatchers over our test sets, a lower bound of "
                           rf"the left side of (3.8), for $\varepsilon$ = "
                           f"{listing(eps_list, conjunction='and')}: "
                           r"$\mathrm{irg}(p^1)$ (open circles on solid lines, the larger $\varepsilon$ the smaller "
                           "circle and the thinner line, on top) and the window graph with the same densities (filled "
                           "squares, dashed)" + _coinciding_text(bad_rows, eps_list)})
    return Results(irg=irg_result, thm8=thm8_result)


def coinciding(rows: list[dict], eps_list, kind: str = "irg") -> list[tuple]:
    """Pairs of neighbouring values of `eps_list` whose fractions of :math:`\\varepsilon`-bad dispatchers
    of graph `kind` are equal at every N of the rows (their curves coincide)."""
    def curve(eps):
        return [r["bad_fraction"] for r in sorted(rows, key=lambda r: r["N"]) if r["graph"] == kind and r["eps"] == eps]
    return [(a, b) for a, b in zip(eps_list, eps_list[1:]) if curve(a) == curve(b)]


def _coinciding_text(rows, eps_list) -> str:
    pairs = coinciding(rows, eps_list)
    if not pairs:
        return ""
    return ("; the irg curves for $\\varepsilon$ = " + listing([f"{a} and {b}" for a, b in pairs], conjunction="and")
            + " coincide at every $N$: the ring and wider line of the smaller "
              "$\\varepsilon$ show around the other")


def draw_bad_fractions(result: ItemResult):
    """L-V-thm8: the largest fraction of :math:`\\varepsilon`-bad dispatchers against N, per graph and
    :math:`\\varepsilon`. Curves of the irg graph may coincide (equal fractions): each larger
    :math:`\\varepsilon` is drawn on top with a smaller open circle and a thinner line, so that every
    curve stays visible."""
    from ...plotting import PALETTE, figure_legend, new_figure

    fig, axes = new_figure(1, 1)
    ax = axes[0][0]
    eps_list = result.figure["eps_list"]
    for c, eps in enumerate(eps_list):
        for kind in ("irg", "window"):
            sel = sorted((r for r in result.rows if r["graph"] == kind and r["eps"] == eps), key=lambda r: r["N"])
            if kind == "irg":
                size = 1 - c / max(len(eps_list) - 1, 1)  # 1 for the smallest eps, 0 for the largest
                style = dict(marker="o", ms=5 + 6 * size, mfc="none", mew=1.3, ls="-", lw=1.4 + 2.2 * size,
                             zorder=3 + c)
            else:
                style = dict(marker="s", ms=5, ls="--", lw=1.4, zorder=2)
            ax.semilogx([r["N"] for r in sel], [r["bad_fraction"] for r in sel], color=PALETTE[c % 8],
                        label=rf"{kind}, $\varepsilon = {eps}$", **style)
    ax.set_xlabel("$N$"); ax.set_ylabel(r"max fraction of $\varepsilon$-bad dispatchers (3.8)")
    figure_legend(fig, ncol=3)
    return fig
