"""L-V-stability: Lemma 1, Lemma 2, Proposition 1 and Lemma 10 (Secs. 3.1, 5.2 and 6.1).

:func:`compute` runs the four checks of the notebook and returns one
:class:`~qtheory.results.ItemResult` per manifest item (:class:`Results`): L-V-lemma1 (the exact
load :math:`\\rho^N` of Lemma 1 against simulated queue growth), L-V-lemma2 (criterion (3.1) as
the random-routing load, against simulation), L-V-prop1 (the design of Proposition 1 on random
systems) and L-V-lemma10 (the asymptotic load (5.2) and the unstable complete bipartite system).
The tables come from :mod:`qtheory.locality.experiments`; each judgement is a small function
below that takes those rows.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...claims import Claim
from ...display import Table
from ...errors import ParameterError
from ...validation import check_integer, check_runs, check_times
from ...results import ItemResult
from ..experiments import (lemma1_rows, lemma2_rows, lemma10_rows, proposition1_rows,
                           proposition1_summary, t_statistic)
from ..model import paper_system, system_sizes
from ..stability import asymptotic_load

__all__ = ["Results", "compute", "lemma1", "lemma2", "proposition1", "lemma10", "lemma1_reading_claim",
           "criterion_31_claim", "busy_fraction_claims", "proposition1_claims", "lemma10_claims",
           "draw_lemma2", "draw_lemma10"]

P1 = "p1 (Sec. 6.1)"


class Results(NamedTuple):
    """The four items of the page, in page order."""

    lemma1: ItemResult
    lemma2: ItemResult
    prop1: ItemResult
    lemma10: ItemResult


# -- L-V-lemma1 --------------------------------------------------------------------------------------------

def _null_recurrent(row) -> bool:
    r"""Whether `row`'s :math:`\rho^N` is 1: the total queue is then null recurrent, it grows like
    :math:`\sqrt t`, so its growth rate over :math:`[H/2, H]` is positive, of order
    :math:`H^{-1/2}`, where the fluid prediction says 0."""
    return abs(row["rho_N"] - 1.0) <= 1e-12


def _growth_test(rows, runs, predicted: str):
    r"""One joint test (:func:`qtheory.verdicts.independent_test`; each arrival rate has its own
    seeds) of the simulated growth rates against the column `predicted` of `rows`, on the run
    growth rates `runs` (one tuple per row, checked by the test); a rate with :math:`\rho^N = 1`
    is left out (:func:`_null_recurrent`: its prediction holds only as the horizon grows). None
    when every rate has :math:`\rho^N = 1`."""
    from ...verdicts import independent_test

    keep = [i for i, r in enumerate(rows) if not _null_recurrent(r)]
    if not keep:
        return None
    return independent_test([rows[i]["growth_sim"] - rows[i][predicted] for i in keep], [rows[i]["se"] for i in keep],
                            [rows[i]["runs"] - 1 for i in keep], margins=np.ones(len(keep)),
                            runs=[runs[i] for i in keep])


def lemma1_reading_claim(rows, runs, n_runs: int, horizon: float) -> tuple[Claim, dict]:
    r"""Judge the reading of Lemma 1's :math:`\rho^N` (Foss and Chernova's form, distinct picks).

    `rows` are :func:`~qtheory.locality.experiments.lemma1_rows` and `runs` their run growth rates
    (one tuple per row). The reading is *consistent* when one joint test of the simulated growth
    rates against its predictions (independent rates, Student t with ``runs - 1`` degrees of
    freedom, the rates with :math:`\rho^N = 1` left out) is not rejected at
    :data:`qtheory.verdicts.FAMILY_LEVEL`, and *not judged* when the run growth rates are too few
    (:func:`qtheory.verdicts.check_runs`; skewed ones are judged by Cantelli's bound,
    :func:`qtheory.verdicts.cantelli_many`); the same test of the reading
    with picks drawn with replacement is reported beside it. Returns the reconstruction and the
    numbers behind it (``reading_p``, ``reading_p_with_replacement``, ``max_t_growth``,
    ``max_t_growth_with_replacement``).
    """
    from ...verdicts import FAMILY_LEVEL, p_equation

    ours, alt = _growth_test(rows, runs, "growth_predicted"), _growth_test(rows, runs, "growth_predicted_with_replacement")
    tested = [r for r in rows if not _null_recurrent(r)]
    z = max((t_statistic(r["growth_sim"], r["growth_predicted"], r["se"]) for r in tested), default=math.nan)
    z_alt = max((t_statistic(r["growth_sim"], r["growth_predicted_with_replacement"], r["se"]) for r in tested),
                default=math.nan)
    left_out = len(rows) - len(tested)
    rates = f"the {len(tested)} rates" + (f" with $\\rho^N \\ne 1$" if left_out else "")
    if ours is None:
        claim = Claim(item="L-V-lemma1", text=r"Lemma 1: $\rho^N$ = max over server sets $U$ of (rate of tasks whose "
                      "$d$ distinct picks all fall in $U$) / (service rate of $U$), in the form of Foss and Chernova "
                      "(1998, Thm 2.5)", category="reconstruction", source="Lemma 1 (Sec. 3.1)",
                      alternatives="picks with replacement", verdict="not judged: every arrival rate has $\\rho^N = 1$",
                      evidence=f"4-server complete graph, {n_runs} runs of length {horizon:g} per arrival rate; at "
                               "$\\rho^N = 1$ the queue is null recurrent and its growth rate is not the fluid rate 0")
        return claim, dict(reading_p=math.nan, reading_p_with_replacement=math.nan, max_t_growth=z,
                           max_t_growth_with_replacement=z_alt)
    if ours.why_not:
        verdict = f"not judged: {ours.why_not}"
    elif ours.p > FAMILY_LEVEL:
        verdict = (f"consistent: the growth rates match $(\\rho^N - 1)$ x (rate of the worst set), also 0 below 1 "
                   f"(one joint test of {rates}, ${p_equation(ours.p)}$, largest $|t|$ {z:.2f})")
    else:
        verdict = f"not supported: one joint test of {rates} rejects it, ${p_equation(ours.p)}$ (largest $|t|$ {z:.2f})"
    claim = Claim(item="L-V-lemma1",
                  text=r"Lemma 1: $\rho^N$ = max over server sets $U$ of (rate of tasks whose $d$ distinct picks all "
                       "fall in $U$) / (service rate of $U$), in the form of Foss and Chernova (1998, Thm 2.5)",
                  category="reconstruction", source="Lemma 1 (Sec. 3.1)",
                  alternatives=r"picks with replacement, $P_i(U) = x^d$ with $x = |N(i) \cap U| / \delta_i$ (the same "
                               f"joint test of its predictions: ${p_equation(alt.p)}$, largest $|t|$ {z_alt:.1f})",
                  verdict=verdict,
                  evidence=f"4-server complete graph, {n_runs} runs of length {horizon:g} per arrival rate; "
                           f"{ours.describe(margins=False)} (level {FAMILY_LEVEL:g})"
                           + ("; a rate with $\\rho^N = 1$ is left out: its queue is null recurrent and grows like "
                              "$\\sqrt{t}$, not at the fluid rate 0" if left_out else ""))
    return claim, dict(reading_p=ours.p, reading_p_with_replacement=alt.p, max_t_growth=z,
                       max_t_growth_with_replacement=z_alt)


def _rates(k: int) -> str:
    return f"{k} rate{'s' if k != 1 else ''}"


def _upward(run_rates, skewed: bool = False):
    """The one-sided test that a growth rate is positive, on its run growth rates (Student t with
    Hall's correction, as :func:`qtheory.verdicts.compare` computes it; for `skewed` run growth rates
    Cantelli's one-sided bound :math:`1/(1 + t^2)` instead): ``(p, comparison)``."""
    from scipy import special

    from ...verdicts import cantelli, cantelli_p, compare

    c = compare(Claim(item="L-V-lemma1", text="growth rate above 0", category="check", ours_runs=tuple(run_rates),
                      reference=0.0, tolerance=0.0), fallback=False)
    if skewed:
        c = cantelli(c)
        return cantelli_p(c.t, sides=1), c
    return float(special.stdtr(c.df, -c.t)), c


def lemma1_claim(rows, runs) -> Claim:
    r"""Lemma 1 itself: the total queue stays bounded where :math:`\rho^N < 1` and grows where
    :math:`\rho^N > 1`; rates with :math:`\rho^N = 1` (null recurrent) are not judged. A tested
    record (its p-value joins the page's Holm family), on the run growth rates `runs` (one tuple
    per row of `rows`).

    Against it: one joint test that the growth rates below 1 are 0
    (:func:`qtheory.verdicts.independent_test`); rejected, the record differs. For it (resolved):
    that test's 95% intervals lie within one task per unit time of 0, and every rate above 1 is
    positive by a one-sided t test at :data:`qtheory.verdicts.FAMILY_LEVEL`. "All grow" is shown
    only if every test rejects its "this one does not", an intersection-union test (Berger 1982),
    whose level is the tests' own: no division by their number (a Bonferroni division would only
    lose power); a rate whose growth is not shown leaves the record not resolved. Run growth rates
    that fail their checks (:func:`qtheory.verdicts.check_runs`, every judged rate's at
    :data:`~qtheory.verdicts.SKEW_LEVEL` over their number: Bonferroni over the record's samples)
    leave it not resolved too."""
    import dataclasses

    from ...verdicts import FAMILY_LEVEL, SKEW_LEVEL, check_runs, independent_test, p_equation

    below = [i for i, r in enumerate(rows) if r["rho_N"] < 1 - 1e-12]
    above = [i for i, r in enumerate(rows) if r["rho_N"] > 1 + 1e-12]
    judged = below + above
    checks = [check_runs(runs[i], what=f"run growth rates at $\\rho^N = {rows[i]['rho_N']:.2f}$",
                         level=SKEW_LEVEL / len(judged)) for i in judged]
    why = "; ".join(c.why for c in checks if c.too_few)
    skewed = {i: c.skewed for i, c in zip(judged, checks)}
    # the joint test checks the rates below 1 at the record's level per sample (SKEW_LEVEL over all
    # the judged rates) and falls back on Cantelli's bound for skewed ones; too few runs anywhere
    # refuse the whole record (above), so the joint test's own refusal is dropped here
    calm = dataclasses.replace(independent_test([rows[i]["growth_sim"] for i in below], [rows[i]["se"] for i in below],
                                                [rows[i]["runs"] - 1 for i in below], margins=np.ones(len(below)),
                                                runs=[runs[i] for i in below],
                                                level=SKEW_LEVEL * len(below) / len(judged)),
                               why_not="") if below else None
    ups = [_upward(runs[i], skewed[i]) for i in above]
    cantelli_up = [f"$\\rho^N = {rows[i]['rho_N']:.2f}$" for i in above if skewed[i]]
    up_p = [p for p, _ in ups]
    grows = bool(above) and all(p <= FAMILY_LEVEL for p in up_p)
    words = ", ".join(f"{rows[i]['growth_sim']:.4f} at $\\rho^N = {rows[i]['rho_N']:.2f}$" for i in below + above)
    bounded = (f"Bounded: one joint test that the {_rates(len(below))} below 1 {'are' if len(below) != 1 else 'is'} 0 "
               f"({calm.describe(margins=False)}; each 95% interval {'within' if calm.resolved else 'not within'} "
               "one task per unit time of 0)." if calm else "Bounded: not tested (no rate below 1).")
    growing = (f"Growing: a one-sided $t$ test of each of the {_rates(len(above))} above 1 at level "
               f"{FAMILY_LEVEL:g}, all needed (largest ${p_equation(max(up_p))}$"
               + (f"; Cantelli's one-sided bound $1/(1 + t^2)$ instead for the skewed run growth rates at "
                  f"{', '.join(cantelli_up)}" if cantelli_up else "") + ")"
               + ("." if grows else ", not met: growth not shown.") if above else "Growing: not tested (no rate above 1).")
    return Claim(item="L-V-lemma1", source="Lemma 1 (Sec. 3.1)", p_value=float(calm.p) if calm else 1.0,
                 resolved=bool(calm is not None and calm.resolved and grows), assumption_failure=why,
                 text=r"Lemma 1: the total queue stays bounded where $\rho^N < 1$ and grows where $\rho^N > 1$",
                 evidence=f"Simulated growth rates per unit time: {words}. {bounded} {growing}")


def lemma1(*, seed: int, lambdas, n_runs: int, horizon: float, parameters: dict) -> ItemResult:
    """L-V-lemma1: exact :math:`\\rho^N` of a four-server complete graph against simulated growth."""
    rows, runs = lemma1_rows(seed, lambdas, n_runs, horizon, return_runs=True)
    reading, numbers = lemma1_reading_claim(rows, runs, n_runs, horizon)
    closed = max(abs(r["rho_N"] - r["closed_form_rho_N"]) for r in rows)
    check = Claim(item="L-V-lemma1", text=r"Lemma 1's $\rho^N$: enumeration of the 15 server sets against the "
                                          "complete-graph closed form", category="check",
                  ours=float(closed), reference=0.0, tolerance=1e-12,
                  evidence="largest absolute difference over the arrival rates")
    table = Table(tuple(rows), {
        r"$\lambda$": lambda r: f"{r['arrival_rate']:.1f}", r"$\rho^N$": lambda r: f"{r['rho_N']:.3f}",
        "simulated growth (95% CI)": lambda r: f"{r['growth_sim']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
        "predicted": lambda r: f"{r['growth_predicted']:.4f}",
        "with replacement": lambda r: f"{r['growth_predicted_with_replacement']:.4f}"},
        caption="Growth rate of the total queue length, simulated and predicted")
    caption = (
        r"growth rate of the total queue length against the exact $\rho^N$ of Lemma 1: four servers "
        r"($u = 0.5, 0.5, 10, 10$), "
        rf"four dispatchers, complete graph, $d = 2$, arrival rates "
        rf"$\lambda = {', '.join(f'{x:g}' for x in lambdas)}$; "
        f"{n_runs} runs of length {horizon:g} each (95% CI), beside the fluid prediction and the "
        "prediction with picks drawn with replacement")
    return ItemResult("L-V-lemma1", parameters, seed, rows,
                      claims=(lemma1_claim(rows, runs), reading, check),
                      summary={**numbers, "enumeration_vs_closed_form": closed}, displays=(table,),
                      figure={"caption": caption})


# -- L-V-lemma2 --------------------------------------------------------------------------------------------

def criterion_31_claim(rows) -> Claim:
    """Sec. 6.1's statement that :math:`p^1` satisfies (3.1): every type's random-routing load
    (``load_31`` of the :math:`p^1` rows of :func:`~qtheory.locality.experiments.lemma2_rows`) is below 1."""
    p1 = [r["load_31"] for r in rows if r["matrix"] == P1]
    return Claim(item="L-V-lemma2", text="Sec. 6.1: $p^1$ lies in the feasible region of Lemma 2, i.e. satisfies (3.1)",
                 holds=bool(np.all(np.array(p1) < 1)), source="Sec. 6.1, eq. (3.1)",
                 evidence=f"left side of (3.1) for $p^1$: {', '.join(f'{x:.3f}' for x in p1)}")


def busy_fraction_claims(simulated, runs, n_servers: int, horizon: float) -> list[Claim]:
    """One check per type: the simulated busy fraction (d = 1) against its (3.1) load, carrying the
    run busy fractions `runs` (one tuple per type, as :func:`~qtheory.locality.experiments.lemma2_rows`
    returns them), judged by the book's t test where they allow it, with the page's family
    (:mod:`qtheory.verdicts`)."""
    if len(runs) != len(simulated):
        raise ParameterError(f"`runs` must hold the run busy fractions of each of the {len(simulated)} types "
                             f"(got {len(runs)})")
    return [Claim(item="L-V-lemma2",
                  text=f"(3.1) as the random-routing load: busy fraction of type-{r['server_type']} servers, $d = 1$ "
                       "on irg($p^1$)",
                  category="check", ours_runs=tuple(x), reference=float(r["load_31"]),
                  family="busy fractions of the three types",
                  evidence=f"{len(x)} runs with $N = {n_servers}$, time average over [{horizon / 10:g}, {horizon:g}]")
            for r, x in zip(simulated, runs)]


def lemma2_claim(simulated, n_runs: int) -> Claim:
    """Lemma 2 itself: under (3.1) the system is stable. Tested with random routing (the least
    balancing local JSQ(d)) on irg(:math:`p^1`): a stable type keeps its busy fraction below 1 (an
    unstable one is busy all the time), read as every type's 95% interval below 1."""
    ok = all(r["ci_high"] < 1 for r in simulated)
    return Claim(item="L-V-lemma2", source="Lemma 2, eq. (3.1)", holds=bool(ok and simulated),
                 text="Lemma 2: under (3.1) the system is stable (random routing on irg($p^1$))",
                 evidence="Busy fractions per type " + ", ".join(
                     f"{r['busy_sim']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" for r in simulated)
                 + f" ({n_runs} runs; stable read as every 95% interval below 1).")


def lemma2(*, seed: int, n_servers: int, n_runs: int, horizon: float, parameters: dict) -> ItemResult:
    """L-V-lemma2: the left side of (3.1) for :math:`p^0`, :math:`p^1` and the Proposition 1 design,
    and for :math:`p^1` the busy fractions of a random-routing simulation."""
    rows, runs = lemma2_rows(seed, n_servers, n_runs, horizon, return_runs=True)
    names = list(dict.fromkeys(r["matrix"] for r in rows))
    loads = {name: np.array([r["load_31"] for r in rows if r["matrix"] == name]) for name in names}
    simulated = [r for r in rows if "busy_sim" in r]
    z = max(t_statistic(r["busy_sim"], r["load_31"], r["se"]) for r in simulated)
    claims = (lemma2_claim(simulated, n_runs), criterion_31_claim(rows),
              *busy_fraction_claims(simulated, runs, n_servers, horizon))
    tables = (
        Table(tuple(loads.items()), {
            "routing matrix": lambda kv: kv[0].replace("p0", "$p^0$").replace("p1", "$p^1$"),
            **{f"type {m + 1}": (lambda kv, m=m: f"{kv[1][m]:.4f}") for m in range(3)},
            "(3.1) holds": lambda kv: "yes" if np.all(kv[1] < 1) else "no"},
            caption="Left side of (3.1), the load of each server type under random routing"),
        Table(tuple(simulated), {
            "server type": lambda r: r["server_type"], "load (3.1)": lambda r: f"{r['load_31']:.4f}",
            "busy fraction, $d = 1$ simulation (95% CI)":
                lambda r: f"{r['busy_sim']:.4f} ± {r['ci_high'] - r['busy_sim']:.4f}"},
            caption=f"Busy fractions on irg($p^1$), $N = {n_servers}$ (largest $|t|$ {z:.2f}; each type is a record of "
                    "the page's family, judged also jointly)"))
    caption = (
        r"load of each server type under random routing (left side of (3.1)) for $p^0$, $p^1$ and the design of "
        rf"Proposition 1; stars: time-averaged busy fraction in a $d = 1$ simulation on irg($p^1$) with "
        rf"$N = {n_servers}$, {n_runs} runs of length {horizon:g} (95% CI)")
    return ItemResult("L-V-lemma2", parameters, seed, rows, claims=claims,
                      summary=dict(max_t_busy_vs_load=z, loads=loads), displays=tables,
                      figure={"caption": caption, "matrices": names, "simulated": P1})


def draw_lemma2(result: ItemResult):
    """The L-V-lemma2 figure: bars of the (3.1) loads per matrix, stars of the simulated busy fractions."""
    from ...plotting import PALETTE, new_figure
    from ...results import column, select

    fig, axes = new_figure(1, 1)
    ax = axes[0][0]
    width = 0.25
    for c, name in enumerate(result.figure["matrices"]):
        ax.bar(np.arange(3) + (c - 1) * width, column(select(result.rows, matrix=name), "load_31"), width,
               label=name, color=PALETTE[c])
    sel = select(result.rows, matrix=result.figure["simulated"])
    ax.errorbar(np.arange(3), column(sel, "busy_sim"),
                yerr=np.array(column(sel, "ci_high")) - np.array(column(sel, "busy_sim")),
                fmt="k*", label=r"busy fraction, $d = 1$ simulation on irg($p^1$)")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(3), ["type 1", "type 2", "type 3"])
    ax.set_ylabel("load under random routing, left side of (3.1)")
    ax.legend()
    return fig


# -- L-V-prop1 ---------------------------------------------------------------------------------------------

def proposition1_claims(summary: dict) -> tuple[Claim, Claim]:
    """Proposition 1 from :func:`~qtheory.locality.experiments.proposition1_summary`: the design
    stabilises every random system below capacity (and there is at least one), and every random
    :math:`p` of a system at or above capacity violates (3.1) (at least one such system)."""
    s = summary
    return (
        Claim(item="L-V-prop1", text="Proposition 1: a $p$ satisfying (3.1) (hence stable for large N) exists whenever "
                                     "(2.1) holds",
              source="Proposition 1 (Sec. 3.1)", holds=bool(s["design_stable"] == s["n_below_capacity"] > 0),
              evidence=f"$p_{{k,m}} = u_m / \\max u$ stabilises {s['design_stable']} of the {s['n_below_capacity']} "
                       r"random systems below capacity ((3.1) holds and $\rho$ of (5.2) $< 1$)"),
        Claim(item="L-V-prop1", text=r"without (2.1) no $p$ satisfies (3.1): the $v_m u_m$-weighted mean of the (3.1) "
                                     r"loads is $\lambda \zeta / \sum_m v_m u_m$",
              category="check", holds=bool(s["random_p_violating"] == s["n_above_capacity"] > 0),
              evidence=f"{s['random_p_violating']} of the {s['n_above_capacity']} random systems at or above "
                       "capacity violate (3.1) with their random p"))


def proposition1(*, seed: int, n_designs: int, parameters: dict) -> ItemResult:
    """L-V-prop1: the design :math:`p_{k,m} = u_m / \\max u` on `n_designs` random systems."""
    rows = proposition1_rows(seed, n_designs)
    summary = proposition1_summary(rows)
    table = Table.from_values({"random systems below capacity": summary["n_below_capacity"],
                     "... of which the design of Proposition 1 stabilises": summary["design_stable"],
                     "random systems at or above capacity": summary["n_above_capacity"],
                     "... of which the random $p$ violates (3.1)": summary["random_p_violating"]},
                    caption=f"Proposition 1 on {n_designs} random systems")
    caption = (
        rf"largest load of (3.1) over the server types against $\lambda\zeta / \sum_m v_m u_m$ for {n_designs} "
        rf"random systems ($K$, $M \le 4$, drawn with seed {seed}): the design $p_{{k,m}} = u_m / \max u$ of "
        "Proposition 1 (below capacity) and a random $p$")
    return ItemResult("L-V-prop1", parameters, seed, rows, claims=proposition1_claims(summary), summary=summary,
                      displays=(table,), figure={"caption": caption, "designed": "u_m / max u"})


# -- L-V-lemma10 -------------------------------------------------------------------------------------------

def lemma10_claims(rows, runs, rho_complete: float, u1: float) -> tuple[Claim, ...]:
    """The four records of L-V-lemma10 from :func:`~qtheory.locality.experiments.lemma10_rows` and
    its run growth rates `runs` (``runs[N]``, one tuple per simulated size).

    The supremum of (5.2) for :math:`p^0` (a reconstruction of Sec. 6.1's display), Lemma 1's
    exact :math:`\\rho^N` tending to it (within :math:`2/N`), the instability claim of Sec. 6.1
    (:math:`\\rho > 1` and the type-1 growth rate's interval above 0 at the largest N) and the
    growth rate against the ODE (3.7) (on its run growth rates, judged by the book's t test where
    they allow it).
    """
    by_set = [r for r in rows if r["part"] == "rho by set of types" and r["matrix"] == "p0 (complete)"]
    crit = next(r for r in by_set if r["critical"])
    whole = next(r for r in by_set if r["types"] == "[1, 2, 3]")
    exact = [r for r in rows if r["part"] == "rho^N complete graph"]
    g_big = [r for r in rows if r["part"] == "type-1 growth rate"][-1]
    return (
        Claim(item="L-V-lemma10",
              text=r"Sec. 6.1's display after 'By Lemma 10, for the complete bipartite case': the supremum over "
                   r"$\alpha$ of the left side of (5.2) at $p^0$",
              category="reconstruction", source="Sec. 6.1; Lemma 10, eq. (5.2)", ours=float(rho_complete),
              alternatives=f"(5.2) at $\\alpha = (1, 1, 1)$, the whole system: {whole['value']:.3g}, below 1, so it "
                           "could not show instability; the limit of Lemma 1's $\\rho^N$ for the complete graph: "
                           f"{exact[-1]['value']:.6f} at $N = {exact[-1]['N']}$, tending to the same value",
              verdict=f"{crit['value']:g} at the set {{type {crit['types'].strip('[]')}}} "
                      r"($3 \times 0.5^2 / 0.5$); greater than 1, as Sec. 6.1's conclusion needs",
              evidence="(5.2) evaluated at the 7 nonempty sets of types (quasi-convex ratio: the supremum is at one)"),
        Claim(item="L-V-lemma10",
              text=r"Lemma 1's $\rho^N$ of the complete graph tends to the supremum of (5.2) "
                   r"(difference $1.5 / (N - 1)$)",
              category="check", ours=float(exact[-1]["value"]), reference=float(rho_complete),
              tolerance=2.0 / exact[-1]["N"],
              evidence=f"closed form at $N = {exact[-1]['N']}$; tolerance $2 / N$ bounds the exact gap "
                       "$1.5 / (N - 1)$"),
        Claim(item="L-V-lemma10",
              text="Sec. 6.1: for large $N$ the complete bipartite system under JSQ(2) is unstable "
                   "(type-1 queues grow)",
              source="Sec. 6.1", holds=bool(rho_complete > 1 and g_big["ci_low"] > 0),
              evidence=f"$\\rho$ of (5.2) = {rho_complete:g} > 1; mean type-1 queue grows at {g_big['value']:.3f} "
                       f"[{g_big['ci_low']:.3f}, {g_big['ci_high']:.3f}] per unit time at $N = {g_big['N']}$"),
        Claim(item="L-V-lemma10",
              text=f"complete bipartite, $N = {g_big['N']}$: growth rate of the mean type-1 queue over "
                   f"[{g_big['t_from']:g}, {g_big['t_to']:g}] against the ODE (3.7)", category="check",
              ours_runs=tuple(runs[g_big["N"]]), reference=float(g_big["ode"]),
              evidence=f"{len(runs[g_big['N']])} runs; the ODE's rate tends to $(\\rho - 1) u_1$ = {(rho_complete - 1) * u1:g} "
                       f"as the window moves out (at $N = {g_big['N']}$ the long-run rate is $(\\rho^N - 1) u_1$ = "
                       f"{g_big['long_run']:.4f})"))


def lemma10(*, seed: int, n_list, n_runs: int, horizon: float, parameters: dict) -> ItemResult:
    """L-V-lemma10: the supremum of (5.2) at :math:`p^0` and :math:`p^1`, Lemma 1's exact
    :math:`\\rho^N` of the complete graph, and the simulated growth of its type-1 queues."""
    rows, runs = lemma10_rows(seed, n_list, n_runs, horizon, return_runs=True)
    complete = paper_system("complete")
    rho = asymptotic_load(complete).rho
    rho_p1 = asymptotic_load(paper_system("design")).rho
    growth = [r for r in rows if r["part"] == "type-1 growth rate"]
    tables = (
        Table.from_values({r"$\rho$ of (5.2), complete bipartite ($p^0$)": f"{rho:g}",
                 r"$\rho$ of (5.2), design ($p^1$)": f"{rho_p1:g}"}),
        Table(tuple(growth), {"$N$": lambda r: r["N"], "type-1 growth rate (95% CI)":
                              lambda r: f"{r['value']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                              "ODE (3.7), same window": lambda r: f"{r['ode']:.3f}",
                              "long run": lambda r: f"{r['long_run']:.3f}"},
              caption="Growth rate of the mean type-1 queue, complete bipartite system"))
    caption = (
        r"complete bipartite system of Sec. 6.1 under JSQ(2). Left: exact $\rho^N$ of Lemma 1 against $N$ and the "
        rf"supremum of (5.2). Right: mean type-1 queue length for $N = {', '.join(str(n) for n in n_list)}$, "
        f"{n_runs} runs each up to $t = {horizon:g}$ (95% CI), and the ODE (3.7)")
    return ItemResult("L-V-lemma10", parameters, seed, rows,
                      claims=lemma10_claims(rows, runs, rho, float(complete.u[0])),
                      summary=dict(rho_complete=rho, rho_design=rho_p1,
                                   type1_growth={str(r["N"]): r["value"] for r in growth},
                                   ode_growth=growth[-1]["ode"]),
                      displays=tables, figure={"caption": caption, "n_list": list(n_list), "rho": rho})


def draw_lemma10(result: ItemResult):
    """The L-V-lemma10 figure: Lemma 1's exact :math:`\\rho^N` against N beside the supremum of
    (5.2) (left), the mean type-1 queue of the complete graph beside the ODE (right)."""
    from ...plotting import PALETTE, ci_band, new_figure
    from ...results import column, select

    fig, axes = new_figure(2, 1)
    exact = select(result.rows, part="rho^N complete graph")
    axes[0][0].plot(column(exact, "N"), column(exact, "value"), "o-", label=r"exact $\rho^N$ (Lemma 1)")
    axes[0][0].axhline(result.figure["rho"], color="k", ls="--", label=f"sup of (5.2) = {result.figure['rho']:g}")
    axes[0][0].set_xscale("log")
    axes[0][0].set_xlabel("$N$")
    axes[0][0].set_ylabel("load of the worst set")
    axes[0][0].legend()
    for c, n in enumerate(result.figure["n_list"]):
        sel = select(result.rows, part="type-1 mean queue", N=n)
        ci_band(axes[0][1], column(sel, "t"), column(sel, "value"), column(sel, "ci_low"), column(sel, "ci_high"),
                label=f"$N = {n}$", color=PALETTE[c])
    axes[0][1].plot(column(sel, "t"), column(sel, "ode"), "k--", label="ODE (3.7)")
    axes[0][1].set_xlabel("time $t$")
    axes[0][1].set_ylabel("mean type-1 queue length, complete graph")
    axes[0][1].legend()
    return fig


def compute(*, seed: int, lambdas, lemma1_runs: int, lemma1_horizon: float, rr_servers: int, rr_runs: int,
            rr_horizon: float, n_random_designs: int, growth_n_list, growth_runs: int,
            growth_horizon: float) -> Results:
    """The four items of L-V-stability at the notebook's parameters (see the notebook for their
    meaning); every item records all of them."""
    # the reader's parameters first, in the reader's words
    check_runs(lemma1_runs=lemma1_runs, rr_runs=rr_runs, growth_runs=growth_runs)
    check_times(lemma1_horizon=lemma1_horizon, rr_horizon=rr_horizon, growth_horizon=growth_horizon)
    system_sizes(paper_system("design"), rr_servers, name="rr_servers")
    check_integer("n_random_designs", n_random_designs, low=1)
    for k, n in enumerate(growth_n_list):
        system_sizes(paper_system(), n, name=f"growth_n_list[{k}]")
    parameters = dict(seed=seed, lambdas=list(lambdas), lemma1_runs=lemma1_runs, lemma1_horizon=lemma1_horizon,
                      rr_servers=rr_servers, rr_runs=rr_runs, rr_horizon=rr_horizon,
                      n_random_designs=n_random_designs, growth_n_list=list(growth_n_list),
                      growth_runs=growth_runs, growth_horizon=growth_horizon)
    return Results(
        lemma1=lemma1(seed=seed, lambdas=lambdas, n_runs=lemma1_runs, horizon=lemma1_horizon, parameters=parameters),
        lemma2=lemma2(seed=seed, n_servers=rr_servers, n_runs=rr_runs, horizon=rr_horizon, parameters=parameters),
        prop1=proposition1(seed=seed, n_designs=n_random_designs, parameters=parameters),
        lemma10=lemma10(seed=seed, n_list=growth_n_list, n_runs=growth_runs, horizon=growth_horizon,
                        parameters=parameters))
