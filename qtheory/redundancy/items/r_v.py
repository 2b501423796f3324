"""R-V: the verification items of paper R, one :class:`~qtheory.results.ItemResult` each.

:func:`compute` returns, keyed by manifest ID: the type families (R-P-types), the stability
conditions (1)-(3) and the critical subset (R-V-stab), local stability (7)-(11) (R-V-local), the
product forms against simulation (R-V-pf), Proposition 3.1 (R-V-prop31), Theorems 3.1 and 3.2
(R-V-thm31, R-V-thm32), Corollaries 3.1 and 3.2 (R-V-cor31, R-V-cor32), Appendix D (R-V-appD),
the M-model closed form (13) (R-X-13) and the tail number of Sec. 3.3 (R-X-tail). Every check
compares two independent routes (an enumeration, a closed form, a second algorithm, a
simulation); each judgement is a small function of plain numbers or rows (``*_claim``,
``*_erratum``), tested on values that must agree and values that must differ.
"""

from __future__ import annotations

import re
import time

import numpy as np

from ...claims import Claim
from ...display import Table, listing, number, parameter_number
from ...errors import ParameterError
from ...results import ItemResult
from ...validation import RELAXATIONS, check_integer, check_load
from .. import limits as L
from .. import model as M
from .. import productform as PF
from .. import stability as S
from ..experiments import (convergence_order, limit_rows, local_stability_agreement, local_stability_rows, pgf_rows,
                           product_form_samples, product_form_table, random_systems, replica_rows, shortest_run,
                           sojourn_rows, stability_agreement, stability_rows, truncated_pgf_rows)

__all__ = ["ITEMS", "compute", "types_claims", "critical_load_claim", "m_model_local_claim", "linear_order_claim",
           "limit_claim", "equivalence_claim", "printed_delay_claim",
           "delay_scale_erratum", "truncated_stable_claim", "closed_form_claim", "tail_claim", "tail_erratum",
           "ORDER_TOLERANCE", "equal_curves", "quantity_label", "draw_limits", "draw_replicas", "draw_sojourn", "draw_truncated", "draw_constant",
           "draw_tail", "MECHANISM_STYLE"]

ITEMS = ("R-P-types", "R-V-stab", "R-V-local", "R-V-pf", "R-V-prop31", "R-V-thm31", "R-V-thm32", "R-V-cor31",
         "R-V-cor32", "R-V-appD", "R-X-13", "R-X-tail")
#: a limit approached with an O(eps) error has observed order 1; accepted within this
ORDER_TOLERANCE = 0.1
#: Sec. 3.3: "at load 0.6 the probability of more than 15 jobs is about 4.7e-4"
TAIL_PRINTED, TAIL_LOAD, TAIL_Q = 4.7e-4, 0.6, 15
#: how the two mechanisms are drawn wherever both are: their curves often coincide (near the
#: heavy-traffic limit, or exactly when every job has one replica), so c.o.c. is small filled circles
#: on a solid line, on top, and c.o.s. large open squares on a dashed line, underneath: a c.o.c. circle
#: sits inside the c.o.s. square ring and neither covers the other
MECHANISM_STYLE = {"coc": dict(marker="o", ms=4.5, ls="-", zorder=3),
                   "cos": dict(marker="s", ms=9, mfc="none", mew=1.3, ls="--", zorder=2)}


# -- judgements (plain numbers in, a Claim out) -------------------------------------------

def types_claims(rows: list[dict]) -> list[Claim]:
    """R-P-types: the mean replication degree of the :math:`\\varepsilon` example (:math:`1 + \\varepsilon`,
    Sec. 3.3) and the number of power-of-:math:`d` types (:math:`\\binom{N}{d}`, Remark 2.1), from
    :func:`compute`'s family rows (``"eps example N=5 eps=0.5"``, ``"power-of-d N=10 d=3"``)."""
    by_name = {r["family"]: r for r in rows}
    return [Claim(item="R-P-types", text="$\\varepsilon$ example: mean replication degree $1 + \\varepsilon$ "
                                         "($\\varepsilon = 0.5$)", paper=1.5,
                  ours=float(by_name["eps example N=5 eps=0.5"]["replication_degree"]), tolerance=1e-12,
                  source="Sec. 3.3 (single servers plus one fully replicated type)"),
            Claim(item="R-P-types", text="power-of-$d$ has $\\binom{N}{d}$ types, each of probability $1/\\binom{N}{d}$ "
                                         "($N = 10$, $d = 3$)", paper=120.0,
                  ours=float(by_name["power-of-d N=10 d=3"]["n_types"]), tolerance=0.0, source="Remark 2.1")]


def critical_load_claim(critical_load: float) -> Claim:
    """R-V-stab: with identical speeds, (3) gives :math:`\\lambda^* = \\mu` for every :math:`d` (Sec. 2.1)."""
    return Claim(item="R-V-stab", text="identical speeds: (3) gives $\\lambda^* = \\mu$ for every $d$ ($N = 20$, $d = 2$)",
                 paper=1.0, ours=float(critical_load), tolerance=1e-12, source="Sec. 2.1, after eq. (3)")


def m_model_local_claim(stable_below: bool, stable_above: bool) -> Claim:
    """R-V-local: the M-model is locally stable iff :math:`p_{\\{1,2\\}}, p_{\\{2,3\\}} < 2/3` (Sec. 3.3): stable at
    :math:`p_{\\{1,2\\}} = 0.66` (`stable_below`) and not at 0.67 (`stable_above`)."""
    return Claim(item="R-V-local", text=r"M-model: local stability iff $p_{\{1,2\}}, p_{\{2,3\}} < 2/3$ (tested at "
                                        r"$p_{\{1,2\}} = 0.66$ and $0.67$)",
                 holds=bool(stable_below) and not bool(stable_above),
                 source="Sec. 3.3 (conditions (7), (8) for the M-model)",
                 evidence="conditions (7), (8) evaluated on the M-model on both sides of $2/3$")


def linear_order_claim(item: str, statement: str, rows: list[dict]) -> Claim:
    """An internal check that a limit is approached at rate :math:`O(\\varepsilon)`,
    :math:`\\varepsilon = 1 - \\lambda/\\lambda^*`: the observed order of the largest gap between the
    two highest loads (:func:`~qtheory.redundancy.experiments.convergence_order`) is 1 within
    :data:`ORDER_TOLERANCE`. `rows` carry ``load_fraction`` and ``distance``."""
    top = max(r["load_fraction"] for r in rows)
    worst = max(r["distance"] for r in rows if r["load_fraction"] == top)
    order = convergence_order(rows)
    return Claim(item=item, text=f"{statement} (observed order between the two highest loads; {number(worst, digits=3)} at "
                                 f"$\\varepsilon$ = {number(1 - top, digits=1)})",
                 category="check", reference=1.0, ours=float(order), tolerance=ORDER_TOLERANCE)


def limit_claim(item: str, statement: str, source: str, rows: list[dict]) -> Claim:
    r"""The paper's limit statement judged on the prelimit: the largest distance to the limit (over
    the quantities of `rows`) falls at every step towards :math:`\lambda^*` and, between the two
    highest loads, at least half as fast as :math:`\varepsilon = 1 - \lambda/\lambda^*` (so it tends to
    0; far from the limit the approach need not be linear yet). `rows` carry ``load_fraction`` and
    ``distance``."""
    loads = sorted({float(r["load_fraction"]) for r in rows})
    gaps = [max(float(r["distance"]) for r in rows if r["load_fraction"] == f) for f in loads]
    falls = all(b < a for a, b in zip(gaps, gaps[1:]))
    shrinks = len(gaps) >= 2 and gaps[-1] / gaps[-2] <= 2.0 * (1 - loads[-1]) / (1 - loads[-2])
    return Claim(item=item, text=statement, source=source, holds=bool(falls and shrinks),
                 evidence="Largest distance to the limit: " + ", ".join(
                     f"{number(g, digits=3)} at $\\varepsilon = {number(1 - f, digits=2)}$" for f, g in zip(loads, gaps))
                 + " (read as: falling at every step, and over the last step at least half as fast as "
                   "$\\varepsilon$).")


def equivalence_claim(item: str, statement: str, source: str, agree: bool, n_systems: int) -> Claim:
    """An equivalence of conditions stated by the paper, tested on `n_systems` random systems."""
    return Claim(item=item, text=statement, source=source, holds=bool(agree),
                 evidence=f"{'The same' if agree else 'Not the same'} verdict from every condition on all "
                          f"{n_systems} random systems.")


def printed_delay_claim(paper_scale: float, exact_scale: float) -> Claim:
    r"""R-V-cor32 as printed: the mean of the limit of :math:`(1 - \lambda/\lambda^*) V_S`, printed
    :math:`\rho_{\mathcal T^*}`, against the exact heavy-traffic value (both deterministic)."""
    return Claim(item="R-V-cor32", source="Corollary 3.2 (Sec. 3.2)", paper=float(paper_scale), ours=float(exact_scale),
                 tolerance=1e-9, text=r"Corollary 3.2 as printed: the mean of the limit of $(1 - \lambda/\lambda^*) V_S$, "
                                      r"$S \in \mathcal{T}^*$, is $\rho_{\mathcal{T}^*}$ (M-model, $p_{\{1,2\}} = 1/4$)",
                 evidence="ours: the exact heavy-traffic mean $1/\\mu_{\\mathcal{T}^*}$ (see the erratum)")


def delay_scale_erratum(top: dict, paper_scale: float, exact_scale: float) -> Claim:
    """R-V-cor32: Corollary 3.2 prints the mean of the limit of :math:`(1 - \\lambda/\\lambda^*) V_S` as
    :math:`\\rho_{\\mathcal T^*}`; the erratum is confirmed when the exact Laplace transform at the highest
    load (`top`: ``laplace``, ``limit_corrected``, ``limit_as_printed``) is closer to the corrected
    limit (mean :math:`1/\\mu_{\\mathcal T^*}`) than to the printed one."""
    closer = abs(top["laplace"] - top["limit_corrected"]) < abs(top["laplace"] - top["limit_as_printed"])
    return Claim(
        item="R-V-cor32", text=r"Corollary 3.2: scale of the limit of $(1 - \lambda/\lambda^*) V_S$, $S \in \mathcal{T}^*$; "
                               r"printed $\rho_{\mathcal{T}^*}$ vs. exact mean",
        category="erratum", source="Corollary 3.2 (Sec. 3.2)", paper=float(paper_scale), ours=float(exact_scale),
        verdict=(r"confirmed: the limit is exponential with mean $1/\mu_{\mathcal{T}^*} = \rho_{\mathcal{T}^*}/p_{\mathcal{T}^*}$; "
                 r"equal to $\rho_{\mathcal{T}^*}$ only if $\mathcal{T}^* = \mathcal{S}$"
                 if closer else "not confirmed: the exact transform is not closer to the corrected limit"),
        evidence=(f"M-model $p_{{\\{{1,2\\}}}} = 1/4$: exact Laplace transform at $s = 1$ is {top['laplace']:.5f} at "
                  f"$\\lambda = {top['load_fraction']}\\,\\lambda^*$, vs {top['limit_corrected']:.5f} (mean "
                  f"$1/\\mu_{{\\mathcal{{T}}^*}}$) and {top['limit_as_printed']:.5f} (mean $\\rho_{{\\mathcal{{T}}^*}}$)"))


def truncated_stable_claim(stable: bool, load: float, lambda_star: float) -> Claim:
    """R-V-appD: Lemma D.1, the truncated system is stable at :math:`\\lambda^*` (`stable`: its load
    is below its own critical load)."""
    return Claim(item="R-V-appD", text=r"Lemma D.1: the truncated system is stable at $\lambda^*$", holds=bool(stable),
                 source="App. D, Lemma D.1", evidence=f"its load {load:.4f} against its own critical load {lambda_star:.4f}")


def closed_form_claim(rows: list[dict]) -> Claim:
    """R-X-13: the M-model pmf (13) and its constant :math:`C` against the product form (4): the
    largest absolute gap over `rows` (``max_abs_pmf_gap``, ``C_formula``, ``C_dp``) is 0 within 1e-12."""
    gap = max(max(r["max_abs_pmf_gap"], abs(r["C_formula"] - r["C_dp"])) for r in rows)
    return Claim(item="R-X-13", text="(13) and C agree with the product form (4) (largest absolute gap)",
                 source="Sec. 3.3, eq. (13)", holds=bool(gap <= 1e-12), ours=float(gap),
                 evidence=f"Largest absolute gap {number(gap, digits=2)} over {len(rows)} loads and routings, within "
                          f"{number(1e-12)} (double-precision sums of at most a thousand terms).")


def tail_claim(exact_greater: float) -> Claim:
    """R-X-tail: Sec. 3.3's :math:`P(Q > 15) \\approx 4.7\\times10^{-4}` at load 0.6 against the M-model's
    exact value (within the printed precision, :math:`0.05\\times10^{-4}`)."""
    return Claim(item="R-X-tail", text=r"Sec. 3.3: $P(Q > 15)$ at load 0.6 is about $4.7\times10^{-4}$ (ours: exact, "
                                       r"M-model c.o.c.)",
                 paper=TAIL_PRINTED, ours=float(exact_greater), tolerance=0.05e-4, source="Sec. 3.3, after eq. (14)")


def tail_erratum(r15: dict, printed: float = TAIL_PRINTED) -> Claim:
    """R-X-tail: the printed number is :math:`0.6^{15}`, the M/M/1 tail :math:`P(Q \\geq 15)`, not the M-model's:
    "likely" when :math:`0.6^{15}` rounds to `printed` (five decimals), else "not confirmed".
    `r15` is the c.o.c. row at :math:`q = 15` (``exact_P_Q_greater_q``, ``exact_P_Q_at_least_q``,
    ``exponential_14``)."""
    mm1 = TAIL_LOAD ** TAIL_Q
    return Claim(
        item="R-X-tail", text=r"the quoted $4.7\times10^{-4}$ equals $0.6^{15}$, the M/M/1 (fully flexible) tail "
                              r"$P(Q \geq 15)$, not the M-model's",
        category="erratum", source="Sec. 3.3, after eq. (14)", paper=float(printed), ours=mm1,
        verdict=(("likely" if round(mm1, 5) == printed else "not confirmed")
                 + f": $0.6^{{15}}$ = {number(mm1, digits=3)} (printed: {number(printed, digits=2)}); the M-model gives "
                 f"{number(r15['exact_P_Q_greater_q'], digits=3)} ($P(Q>15)$) or {number(r15['exact_P_Q_at_least_q'], digits=3)} ($P(Q \\geq 15)$)"),
        evidence=(f"exact DP: $P(Q>15)$ = {number(r15['exact_P_Q_greater_q'], digits=5)}, $P(Q \\geq 15)$ = "
                  f"{number(r15['exact_P_Q_at_least_q'], digits=5)}; (14) gives {number(r15['exponential_14'], digits=4)}"))


# -- the items -------------------------------------------------------------------------------

def product_form_check(samples: list[dict], seed: int) -> Claim:
    """R-V-pf: do the simulations agree with the product forms (4) and (6) on every quantity at once?

    `samples` are :func:`~qtheory.redundancy.experiments.product_form_samples`. Quantities of
    the same runs are correlated (the ``P(Q = q)`` and ``E[Q]`` move together), so their t
    statistics are not combined as if independent: one sign-flip test
    (:func:`qtheory.verdicts.sign_flip_test`) flips each run's whole vector of deviations,
    its p-value joins the page's Holm family. Agreement also needs every quantity's 95%
    interval within 5% of its exact value.
    """
    from ...runtime import child_seed
    from ...verdicts import sign_flip_test

    test = sign_flip_test([g["runs"] for g in samples], [g["exact"] for g in samples],
                          seed=child_seed(seed, "pf sign flip"))
    runs = {g["runs"].shape[0] for g in samples}
    systems = sorted({g["system"] for g in samples}, key=[g["system"] for g in samples].index)
    return test.record(item="R-V-pf", source="Sec. 2.3, eqs. (4) and (6)",
                       text=f"simulation against the product forms (4) (c.o.c.) and (6) (c.o.s.), {test.size} "
                            "stationary quantities at once",
                       evidence=f"{len(systems)} systems ({', '.join(systems)}), both mechanisms, "
                                f"{'/'.join(str(n) for n in sorted(runs))} runs each; E[Q], Var(Q), P(Q = q) and the "
                                "c.o.c. type means.")


def _family_label(name: str) -> str:
    """A family's key (``"eps example N=5 eps=0.5"``) as a reader reads it in a figure or table:
    words and math, ``$\\epsilon$ example, $N = 5$, $\\epsilon = 0.5$``."""
    words = {"eps example": r"$\epsilon$ example", "power-of-d": r"power-of-$d$", "circular-d": r"circular-$d$",
             "heterogeneous pod": r"heterogeneous power-of-$d$"}
    symbols = {"eps": r"\epsilon", "p12": r"p_{\{1,2\}}", "N": "N", "d": "d"}
    head = re.split(r" (?=\w+=)", name, maxsplit=1)[0]
    parts = [words.get(head, head)]
    for key, value in re.findall(r"(\w+)=([\w./]+)", name):
        parts.append(f"${symbols.get(key, key)} = {value}$")
    return ", ".join(parts)


def _types(params, seed) -> ItemResult:
    families = [("power-of-d N=10 d=3", M.power_of_d(10, 3)), ("circular-d N=10 d=3", M.circular_d(10, 3)),
                ("M-model p12=7/12", M.m_model(7 / 12)), ("M-model p12=1/4", M.m_model(0.25)),
                ("eps example N=5 eps=0.5", M.single_plus_full(5, 0.5, [1, 2, 1, 0.5, 0.5])),
                ("eps example N=5 eps=0", M.single_plus_full(5, 0.0, [1, 2, 1, 0.5, 0.5])),
                ("fully flexible N=5", M.fully_flexible(5)),
                ("heterogeneous pod N=6 d=2", M.power_of_d(6, 2, [0.5, 0.5, 1, 1, 2, 2]))]
    rows = []
    for name, sy in families:
        crit = S.critical_subset(sy)
        rows.append(dict(family=name, label=_family_label(name), n_servers=sy.n_servers, n_types=sy.n_types,
                         replication_degree=sy.replication_degree, mean_speed=sy.mean_speed,
                         lambda_star=crit.critical_load, locally_stable=int(crit.maximally_stable),
                         critical_types=len(crit.types)))
    table = Table(tuple(rows), {"family": lambda r: r["label"], "$N$": lambda r: r["n_servers"],
                                "$K$": lambda r: r["n_types"],
                                "mean replication degree": lambda r: f"{r['replication_degree']:.2f}",
                                r"$\lambda^*/\mu$": lambda r: f"{r['lambda_star'] / r['mean_speed']:.3f}",
                                "locally stable": lambda r: "yes" if r["locally_stable"] else "no"},
                  caption="Type families: size, number of types $K$, critical load and local stability")
    return ItemResult("R-P-types", params, seed, rows, claims=types_claims(rows), displays=(table,), figure=dict(
        labels=[r["label"] for r in rows],
        load_over_speed=[r["lambda_star"] / r["mean_speed"] for r in rows],
        colour_index=[0 if r["locally_stable"] else 3 for r in rows],
        caption=r"critical load $\lambda^*/\mu$ of the eight type families of the table above "
                r"(blue: locally stable, $\mathcal{T}^* = \mathcal{S}$; orange: not)"))


def _stability(systems, params, seed, n_random) -> ItemResult:
    rows = stability_rows(systems, seed)
    rand = [r for r in rows if r["kind"] == "random"]
    agree, pod_gap = stability_agreement(rows)
    big = M.power_of_d(20, 2)
    t0 = time.perf_counter()
    a = S.critical_subset(big, "servers")
    t1 = time.perf_counter()
    b = S.critical_subset(big, "flow")
    t2 = time.perf_counter()
    shown = Table.from_values({
        f"{len(rand)} random systems: the three searches and (1) $\\Leftrightarrow$ (2) agree": "yes" if agree else "no",
        "(3) against the general search, largest relative gap": f"{number(pod_gap, digits=2)}",
        f"power-of-2, $N = 20$ ($K = {big.n_types}$, $2^{{{big.n_types}}}$ type sets): server-set search":
            f"{t1 - t0:.2f} s, $\\lambda^* = {number(a.critical_load, digits=12)}$",
        "the same, min-cut (flow) search": f"{t2 - t1:.2f} s, $\\lambda^* = {number(b.critical_load, digits=12)}$"})
    ratios = [r["ratio_types"] for r in rand]
    return ItemResult("R-V-stab", params, seed, rows,
                      claims=(equivalence_claim("R-V-stab", "Sec. 2.1: conditions (1) and (2) are equivalent, and (3) gives "
                                                "power-of-$d$'s critical load", "Sec. 2.1, eqs. (1)-(3)",
                                                bool(agree and pod_gap <= 1e-9), len(rand)),
                              critical_load_claim(S.power_of_d_critical_load(np.ones(20), 2))),
                      summary=dict(all_agree=agree, pod_reduction_max_rel_gap=pod_gap,
                                   pod20_seconds=dict(servers=t1 - t0, flow=t2 - t1)),
                      displays=(shown,), figure=dict(
                          diagonal=[min(ratios), max(ratios)],
                          caption=rf"largest type-set load $\max_{{\mathcal{{T}}}} \rho_{{\mathcal{{T}}}}$ of {len(rand)} "
                                  rf"random systems (of {n_random} drawn with seed {seed}): the two efficient searches "
                                  "against enumerating all $2^K$ type sets (line: equality)"))


def _local(systems, params, seed) -> ItemResult:
    rows = local_stability_rows(systems)
    same, n_loc, necessary = local_stability_agreement(rows)
    shown = Table.from_values({f"(7), (8), (9), (11) and the critical-subset test agree on all {len(rows)} systems":
                     "yes" if same else "no", "locally stable systems": f"{n_loc} of {len(rows)}",
                     "(10) holds whenever they do": "yes" if necessary else "no"})
    keys = ("cond_7", "cond_8", "cond_9", "cond_11", "efficient", "cond_10")
    claim = m_model_local_claim(S.is_locally_stable(M.m_model(0.66)), S.is_locally_stable(M.m_model(0.67)))
    main = equivalence_claim("R-V-local", "Sec. 3.1: the local stability conditions (7), (8), (9) and (11) are "
                             "equivalent", "Sec. 3.1, eqs. (7)-(11)", same, len(rows))
    return ItemResult("R-V-local", params, seed, rows, claims=(main, claim),
                      summary=dict(all_equivalent=same, n_locally_stable=n_loc, condition_10_necessary=necessary),
                      displays=(shown,), figure=dict(
                          labels=["(7)", "(8)", "(9)", "(11)", "T*=S", "(10)"],
                          counts=[sum(r[k] for r in rows) for k in keys], n_systems=len(rows),
                          caption=f"number of the {len(rows)} random systems (seed {seed}) that meet each local "
                                  r"stability condition; $\mathcal{T}^*=\mathcal{S}$ is the critical-subset test"))


#: loads (fractions of lambda*) of R-V-pf's three small systems: random A, random B, pod N=4 d=2
PF_LOADS = (0.8, 0.7, 0.9)


def _product_forms(systems, params, seed, pf_runs, pf_events) -> ItemResult:
    from scipy import stats as st

    small = [("random A", systems[1], PF_LOADS[0]), ("random B", systems[3], PF_LOADS[1]),
             ("pod N=4 d=2", M.power_of_d(4, 2), PF_LOADS[2])]
    samples = product_form_samples(small, pf_runs, pf_events, seed)
    rows = product_form_table(samples)
    zs = np.array([r["z"] for r in rows])
    check = product_form_check(samples, seed)
    shown = Table.from_values({"quantities compared": f"{len(rows)}", "largest $|z|$": f"{np.abs(zs).max():.2f}",
                     "share with $|z| > 2$": f"{100 * (np.abs(zs) > 2).mean():.1f} %",
                     f"expected under $t_{{{pf_runs - 1}}}$": f"{200 * st.t.sf(2.0, pf_runs - 1):.1f} %"})
    x = np.linspace(-4, 4, 200)
    return ItemResult("R-V-pf", params, seed, rows, claims=(check,),
                      summary=dict(max_abs_z=float(np.abs(zs).max()), n_quantities=len(rows)),
                      displays=(shown,), figure=dict(
                          z=x.tolist(), t_density=st.t.pdf(x, pf_runs - 1).tolist(), df=pf_runs - 1,
                          caption=f"simulated stationary quantities of {len(small)} small systems against the product "
                                  f"form (4): histogram of $z$ = (simulation - exact) / SE over {len(rows)} quantities, "
                                  f"{pf_runs} runs of {pf_events:,} events each, beside the $t_{{{pf_runs - 1}}}$ density"))


def _pgf(systems, params, seed) -> ItemResult:
    rows = pgf_rows(systems, seed)
    gap = max(r["abs_diff"] for r in rows)
    shown = Table.from_values({r"systems, each at $0.95\,\lambda^*$": f"{len(rows)}",
                     r"largest $|f(z)/f(1) - \mathrm{DP}|$": f"{number(gap, digits=2)}"})
    claim = Claim(item="R-V-prop31", source="Proposition 3.1", holds=bool(gap <= 1e-12), ours=float(gap),
                  text="Proposition 3.1: its probability generating function equals the dynamic programme's",
                  evidence=f"Largest absolute gap {number(gap, digits=2)} over {len(rows)} random systems at "
                           rf"$0.95\,\lambda^*$, within {number(1e-12)} (double-precision sums).")
    return ItemResult("R-V-prop31", params, seed, rows, claims=(claim,), summary=dict(max_abs_diff=gap),
                      displays=(shown,), figure=dict(
        caption=f"probability generating function of {len(rows)} random systems at $0.95\\,\\lambda^*$: Proposition 3.1 "
                "(summed over ordered type vectors) against the dynamic programme (line: equality)"))


def _limits(params, seed, limit_loads, loads_text) -> list[ItemResult]:
    sy31 = M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1])
    points31 = [np.array([1.0, 0.0, 0.5, 2.0]), np.array([0.3, 3.0, 0.0, 0.0])]
    rows31 = limit_rows(sy31, limit_loads, points31)
    sy32 = M.RedundancySystem([1, 1, 1, 1], [(0, 1), (1, 2), (2, 3), (3,)], [0.15, 0.4, 0.3, 0.15])
    crit32 = S.critical_subset(sy32)
    points32 = [np.ones(4), np.array([5.0, 0.2, 1.0, 0.0])]
    rows32 = limit_rows(sy32, limit_loads, points32)
    out = []
    for item, rows, title, points, why in (
            ("R-V-thm31", rows31, r"Theorem 3.1: circular-2, $N=4$, $p=(.4,.1,.4,.1)$", points31,
             " (turning the system round by two servers leaves it unchanged)"),
            ("R-V-thm32", rows32, "Theorem 3.2: critical types " + ", ".join(sy32.labels[k] for k in crit32.types)
             + rf", $\lambda^* = {crit32.critical_load:.3f}$", points32, "")):
        pairs = equal_curves(rows)
        equal = ("; the curves of " + ", and of ".join(_pair_text(a, b) for a, b in pairs)
                 + f"{',' if len(pairs) > 1 else ''} coincide{why}: the one drawn second is the wider line with open "
                   "circles beneath" if pairs else "")
        claim = linear_order_claim(item, f"{item}: distance to the limit shrinks linearly in "
                                         "$\\varepsilon = 1 - \\lambda/\\lambda^*$", rows)
        main = limit_claim(item, ("Theorem 3.1: the scaled counts approach the heavy-traffic limit "
                                  r"$\mathrm{Exp}(1)\, p_S$" if item == "R-V-thm31" else
                                  "Theorem 3.2: the critical types' scaled counts approach the heavy-traffic limit"),
                           "Theorem 3.1" if item == "R-V-thm31" else "Theorem 3.2", rows)
        worst = max(r["distance"] for r in rows if r["load_fraction"] == max(limit_loads))
        shown = Table.from_values({rf"largest distance to the limit at $\lambda = {max(limit_loads)}\,\lambda^*$": f"{number(worst, digits=3)}",
                         r"observed order of the gap in $\varepsilon = 1 - \lambda/\lambda^*$": f"{claim.ours:.3f}"}, item)
        out.append(ItemResult(item, params, seed, rows, claims=(main, claim), summary=dict(max_distance_at_highest_load=worst),
                              displays=(shown,), figure=dict(title=title, caption=(
                                  f"{title}: distance between the scaled prelimit quantities and their heavy-traffic "
                                  rf"limit against $1-\lambda/\lambda^*$ at $\lambda/\lambda^* = {loads_text}$. Left: "
                                  r"the joint Laplace transform of the scaled type counts at "
                                  + listing([f"$t^{{({j})}} = ({', '.join(f'{x:g}' for x in t)})$"
                                             for j, t in enumerate(points)], conjunction="and")
                                  + ", c.o.c. (filled circles) and c.o.s. (open squares and diamonds); right: the scaled mean "
                                  "number of jobs of each type, c.o.c." + equal))))
    return out


def _replicas(params, seed, limit_loads, loads_text) -> ItemResult:
    sy = M.RedundancySystem([1, 2, 1], [(0, 1), (1, 2), (0,)], [0.5, 0.3, 0.2])
    lim = L.heavy_traffic_limit(sy)
    rows = replica_rows(sy, limit_loads)
    claim = linear_order_claim("R-V-cor31", "Corollary 3.1: scaled mean replicas per server $\\to q_n$, the gap "
                                            "shrinking linearly in $\\varepsilon = 1 - \\lambda/\\lambda^*$", rows)
    worst = max(r["distance"] for r in rows if r["load_fraction"] == max(limit_loads))
    shown = Table.from_values({**{f"$q_{n + 1}$": f"{w:.4f}" for n, w in enumerate(lim.server_weights)},
                     "largest gap at the highest load": f"{number(worst, digits=3)}",
                     r"observed order of the gap in $\varepsilon = 1 - \lambda/\lambda^*$": f"{claim.ours:.3f}"})
    main = limit_claim("R-V-cor31", r"Corollary 3.1: the scaled replicas per server approach $\mathrm{Exp}(1)\, q_n$",
                       "Corollary 3.1", rows)
    return ItemResult("R-V-cor31", params, seed, rows, claims=(main, claim), summary=dict(q_n=lim.server_weights),
                      displays=(shown,), figure=dict(q_n=[float(w) for w in lim.server_weights], caption=(
                          r"scaled mean number of replicas $(1-\lambda/\lambda^*)\,E[R_n]$ at each server of a "
                          rf"three-server system against $1-\lambda/\lambda^*$ at $\lambda/\lambda^* = {loads_text}$ "
                          r"(c.o.c.: filled circles, c.o.s.: open squares); dotted: the limits $q_n$ of Corollary 3.1")))


def _sojourn(params, seed, limit_loads, loads_text) -> ItemResult:
    sy = M.m_model(0.25)  # T* = {{2,3}}: p_T* = 3/4, mu_T* = 2
    lim = L.heavy_traffic_limit(sy)
    rows = sojourn_rows(sy, limit_loads, (0.5, 1.0, 2.0))
    top = [r for r in rows if r["load_fraction"] == max(limit_loads) and r["type"] == "{2,3}" and r["s"] == 1.0
           and r["mechanism"] == "coc"][0]
    shown = Table.from_values({"exact": f"{top['laplace']:.5f}",
                     r"corrected limit $(1+s/\mu_{\mathcal{T}^*})^{-1}$": f"{top['limit_corrected']:.5f}",
                     r"limit as printed $(1+\rho_{\mathcal{T}^*}s)^{-1}$": f"{top['limit_as_printed']:.5f}"},
                    rf"Laplace transform at $s = 1$, load ${max(limit_loads)}\,\lambda^*$")
    return ItemResult("R-V-cor32", params, seed, rows,
                      claims=(printed_delay_claim(lim.paper_delay_scale, lim.delay_scale),
                              delay_scale_erratum(top, lim.paper_delay_scale, lim.delay_scale)),
                      summary=dict(delay_scale=lim.delay_scale, paper_delay_scale=lim.paper_delay_scale),
                      displays=(shown,), figure=dict(s_values=[0.5, 1.0, 2.0], caption=(
                          r"Laplace transform of the scaled sojourn time $(1-\lambda/\lambda^*)V_{\{2,3\}}$ of the M-model "
                          r"with $p_{\{1,2\}} = 1/4$ (c.o.c.) at $s = 0.5, 1, 2$ against $1-\lambda/\lambda^*$ "
                          rf"at $\lambda/\lambda^* = {loads_text}$; dashed: the corrected limit, dotted: the limit as "
                          "printed")))


def _truncated(params, seed, limit_loads, loads_text) -> ItemResult:
    sy = M.RedundancySystem([1, 1, 1, 1], [(0, 1), (1, 2), (2, 3), (3,)], [0.15, 0.4, 0.3, 0.15])
    tr = L.truncated_system(sy)
    own = S.critical_load(tr.system)
    stable = S.is_stable(tr.system, tr.load)
    zs = [0.3, 0.6, 0.9]
    rows = truncated_pgf_rows(sy, limit_loads, zs)
    check = linear_order_claim("R-V-appD", "Theorem D.1: non-critical counts converge to the truncated system's, the "
                                           "PGF gap shrinking linearly in $\\varepsilon$", rows)
    lemma = Table.from_values({"truncated system": f"{tr.system.n_servers} server(s), {tr.system.n_types} type(s): "
                                         + ", ".join(tr.system.labels),
                     "its load": f"{tr.load:.4f}", r"its own $\lambda^*$": f"{own:.4f}",
                     "stable": "yes" if stable else "no"}, "Lemma D.1")
    order = Table.from_values({r"Theorem D.1: observed order of the PGF gap in $\varepsilon = 1 - \lambda/\lambda^*$":
                     f"{check.ours:.3f}"})
    decouples = limit_claim("R-V-appD", "Theorem D.1: the non-critical counts approach the truncated system's",
                            "App. D, Theorem D.1", rows)
    return ItemResult("R-V-appD", params, seed, rows,
                      claims=(truncated_stable_claim(stable, tr.load, own), decouples, check),
                      summary=dict(truncated_load=tr.load, truncated_lambda_star=own), displays=(lemma, order),
                      figure=dict(z_values=zs, caption=(
                          r"distance between the probability generating function of the non-critical counts and the "
                          rf"truncated system's at $z = {', '.join(f'{z:g}' for z in zs)}$ against $1-\lambda/\lambda^*$ "
                          rf"at $\lambda/\lambda^* = {loads_text}$, c.o.c. (left) and c.o.s. (right)")))


def _closed_form(params, seed) -> ItemResult:
    rows = []
    for lam in (0.2, 0.5, 0.8, 0.95):
        for p12 in (7 / 12, 0.45):
            dp = PF.joint_type_pmf(M.m_model(p12), lam, 30)
            cf = PF.m_model_joint_pmf(lam, p12, 30)
            rows.append(dict(load=lam, p12=p12, C_formula=PF.m_model_constant(lam, p12),
                             C_dp=PF.normalisation_constant(M.m_model(p12), lam),
                             max_abs_pmf_gap=float(np.abs(dp - cf).max())))
    claim = closed_form_claim(rows)
    return ItemResult("R-X-13", params, seed, rows, claims=(claim,), summary=dict(max_gap=claim.ours), figure=dict(
        p12_values=[7 / 12, 0.45],
        caption=(r"normalisation constant $C$ of the M-model (the probability of an empty system) against the load, "
                 r"from the closed form (13) and the dynamic programme (plus signs), $p_{\{1,2\}} = 7/12$ (open circles) and $0.45$ "
                 r"(filled squares): the two curves nearly coincide, $C$ changing little with $p_{\{1,2\}}$")))


def _tail(params, seed) -> ItemResult:
    sy = M.m_model(7 / 12)
    rows = []
    for mech in ("coc", "cos"):
        pmf = PF.total_jobs_pmf(sy, TAIL_LOAD, 400, mech)
        tail = 1 - np.cumsum(pmf)
        for q in range(10, 21):
            rows.append(dict(mechanism=mech, q=q, exact_P_Q_greater_q=float(tail[q]), exact_P_Q_at_least_q=float(tail[q - 1]),
                             exponential_14=float(np.exp(-0.4 * q)), mm1_tail_rho_pow_q=0.6 ** q))
    r15 = [r for r in rows if r["mechanism"] == "coc" and r["q"] == TAIL_Q][0]
    shown = Table.from_values({"exact $P(Q > 15)$ (c.o.c.)": f"{number(r15['exact_P_Q_greater_q'], digits=4)}",
                     r"exact $P(Q \geq 15)$ (c.o.c.)": f"{number(r15['exact_P_Q_at_least_q'], digits=4)}",
                     "approximation (14)": f"{number(r15['exponential_14'], digits=4)}", "$0.6^{15}$": f"{number(r15['mm1_tail_rho_pow_q'], digits=4)}",
                     "paper": r"$4.7\times10^{-4}$"}, r"Load 0.6, M-model with $p_{\{1,2\}} = 7/12$")
    return ItemResult("R-X-tail", params, seed, rows, claims=(tail_claim(r15["exact_P_Q_greater_q"]), tail_erratum(r15)),
                      displays=(shown,), figure=dict(caption=(
                          r"tail probabilities of the total number of jobs at load $0.6$, $q = 10, \ldots, 20$: the "
                          r"M-model with $p_{\{1,2\}} = 7/12$ (exact, c.o.c. and c.o.s.), the approximation (14) and the "
                          r"M/M/1 tail $0.6^q$; grey lines: the paper's $4.7\times10^{-4}$ at $q = 15$")))


def compute(*, seed: int, n_random: int, pf_runs: int, pf_events: int, limit_loads) -> dict[str, ItemResult]:
    """The twelve R-V items at the notebook's parameters, keyed by manifest ID (in :data:`ITEMS` order).

    Parameters
    ----------
    seed : int
        Root seed: random system i from ``child_seed(seed, "system", i)``, the product-form runs
        from ``child_seed(seed, "pf", case, mechanism)`` (see the row builders of
        :mod:`qtheory.redundancy.experiments`).
    n_random : int
        Random small systems for R-V-stab and R-V-local (>= 4: R-V-pf simulates systems 1 and 3).
    pf_runs, pf_events : int
        Runs (>= 2, for a standard error) and events per run of R-V-pf.
    limit_loads : sequence of float
        Load fractions :math:`\\lambda/\\lambda^*` in (0, 1) of the heavy-traffic checks (at least two:
        the observed order is measured between the two highest).
    """
    check_integer("seed", seed, low=0)
    check_integer("n_random", n_random, low=4)
    check_integer("pf_runs", pf_runs, low=2)
    # as in R-T1: a run shorter than a hundred relaxation times (1 - load)^-2 of its busiest system
    # starts empty and ends before it forgets it (one event gave infinite z-scores)
    shortest = shortest_run(max(PF_LOADS))
    if check_integer("pf_events", pf_events, low=1) < shortest:
        raise ParameterError(f"`pf_events` must be at least {shortest:,}: {RELAXATIONS} relaxation times "
                             f"(1 - load)^-2 of the busiest small system (load {max(PF_LOADS):g} of lambda*), "
                             f"which starts empty (got {pf_events:,})")
    loads = list(limit_loads)
    if len(loads) < 2:
        raise ParameterError(f"`limit_loads` must hold at least two load fractions (got {limit_loads!r})")
    for f in loads:
        check_load("limit_loads", f)
    params = dict(seed=seed, n_random=n_random, pf_runs=pf_runs, pf_events=pf_events, limit_loads=limit_loads)
    systems = random_systems(seed, n_random)
    loads_text = ", ".join(f"{x:g}" for x in limit_loads)   # for the captions
    results = [_types(params, seed), _stability(systems, params, seed, n_random), _local(systems, params, seed),
               _product_forms(systems, params, seed, pf_runs, pf_events), _pgf(systems, params, seed),
               *_limits(params, seed, limit_loads, loads_text), _replicas(params, seed, limit_loads, loads_text),
               _sojourn(params, seed, limit_loads, loads_text), _truncated(params, seed, limit_loads, loads_text),
               _closed_form(params, seed), _tail(params, seed)]
    return {r.item: r for r in results}


# -- figures too long for the notebook (drawn from the returned rows) ------------------------

def _one_axis():
    from ...plotting import new_figure

    fig, axes = new_figure(1)
    return fig, axes[0, 0]


def equal_curves(rows: list[dict], rtol: float = 1e-9) -> list[tuple[str, str]]:
    """Pairs ``(first, later)`` of quantities of :func:`limit_rows`-style rows whose distances to the
    limit are equal at every load and mechanism (their curves coincide), each later one paired with the
    first it equals."""
    def curve(q):
        return sorted((r["mechanism"], r["load_fraction"], r["distance"]) for r in rows if r["quantity"] == q)

    quantities = list(dict.fromkeys(r["quantity"] for r in rows))
    out = []
    for b, later in enumerate(quantities):
        for first in quantities[:b]:
            x, y = curve(first), curve(later)
            if (len(x) == len(y) and all(u[:2] == v[:2] for u, v in zip(x, y))
                    and np.allclose([u[2] for u in x], [v[2] for v in y], rtol=rtol, atol=0)):
                out.append((first, later))
                break
    return out


def quantity_label(quantity: str) -> str:
    """Legend text of a :func:`limit_rows` quantity: ``Laplace t0`` -> Laplace transform at t(0),
    ``scaled E[Q_{1,2}]`` -> type {1,2}."""
    if quantity.startswith("Laplace t"):
        return f"at $t^{{({quantity[len('Laplace t'):]})}}$"
    if quantity.startswith("scaled E[Q_") and quantity.endswith("]"):
        return "type " + quantity[len("scaled E[Q_"):-1]
    return quantity


def _pair_text(a: str, b: str) -> str:
    x, y = quantity_label(a), quantity_label(b)
    if x.startswith("type ") and y.startswith("type "):
        return f"types {x[5:]} and {y[5:]}"
    return f"{x} and {y}"


def draw_limits(result: ItemResult):
    """R-V-thm31 / R-V-thm32: distance to the limit against :math:`1-\\lambda/\\lambda^*` (log-log),
    the Laplace transforms (both mechanisms) on the left and the scaled mean per type (c.o.c.) on the
    right. A quantity equal to an earlier one (:func:`equal_curves`) is drawn underneath it with a wider
    line and open circles, so that both show."""
    from ...plotting import PALETTE, figure_legend, new_figure

    fig, axes = new_figure(2)
    same = dict((later, first) for first, later in equal_curves(result.rows))
    quantities = list(dict.fromkeys(r["quantity"] for r in result.rows))
    for c, q in enumerate(quantities):
        ax = axes[0][0] if q.startswith("Laplace") else axes[0][1]
        for mech, style in MECHANISM_STYLE.items():
            pts = [r for r in result.rows if r["quantity"] == q and r["mechanism"] == mech]
            if not pts:
                continue
            label = f"{quantity_label(q)} ({mech})"
            if mech == "cos":  # the c.o.s. curves of the two Laplace points meet near the limit: a shape each
                style = {**style, "marker": "sD"[c % 2]}
            if q in same:
                style = dict(marker="o", ms=10, mfc="none", mew=1.3, ls="-", lw=3.4, zorder=1)
                label += f", equal to {quantity_label(same[q])}"
            ax.loglog([1 - r["load_fraction"] for r in pts], [max(r["distance"], 1e-16) for r in pts],
                      color=PALETTE[c % 8], label=label, **style)
    for ax, what in zip(axes[0], ("Laplace transform", "scaled mean")):
        ax.set_xlabel(r"$1-\lambda/\lambda^*$"); ax.set_ylabel(f"|{what} - limit|")
    fig.suptitle(result.figure["title"], fontsize=9)
    figure_legend(fig, ncol=3)
    return fig


def draw_replicas(result: ItemResult):
    """R-V-cor31: scaled mean replicas per server against :math:`1-\\lambda/\\lambda^*`, with the limits :math:`q_n`."""
    from ...plotting import PALETTE, figure_legend

    fig, ax = _one_axis()
    for n, q_n in enumerate(result.figure["q_n"]):
        for mech, style in MECHANISM_STYLE.items():
            pts = [r for r in result.rows if r["server"] == n + 1 and r["mechanism"] == mech]
            ax.semilogx([1 - r["load_fraction"] for r in pts], [r["scaled_mean"] for r in pts], color=PALETTE[n],
                        label=f"server {n + 1} ({mech}), $q_n = {q_n:.3f}$", **style)
        ax.axhline(q_n, color=PALETTE[n], lw=0.8, ls=":")
    ax.set_xlabel(r"$1-\lambda/\lambda^*$"); ax.set_ylabel(r"$(1-\lambda/\lambda^*)\,E[R_n]$")
    figure_legend(fig, ncol=2)  # below the panel: inside, it covered curves
    return fig


def draw_sojourn(result: ItemResult):
    """R-V-cor32: the exact Laplace transform of the scaled sojourn time of type {2,3} (c.o.c.)
    against the corrected and the printed limits."""
    from ...plotting import PALETTE, figure_legend

    fig, ax = _one_axis()
    for c, s in enumerate(result.figure["s_values"]):
        pts = [r for r in result.rows if r["s"] == s and r["type"] == "{2,3}" and r["mechanism"] == "coc"]
        ax.semilogx([1 - r["load_fraction"] for r in pts], [r["laplace"] for r in pts], "o-", color=PALETTE[c],
                    label=f"exact, $s = {s}$")
        ax.axhline(pts[0]["limit_corrected"], color=PALETTE[c], ls="--", lw=1)
        ax.axhline(pts[0]["limit_as_printed"], color=PALETTE[c], ls=":", lw=1)
    ax.set_xlabel(r"$1-\lambda/\lambda^*$"); ax.set_ylabel(r"$E[e^{-s(1-\lambda/\lambda^*)V_{\{2,3\}}}]$")
    ax.set_title(r"dashed: $(1+s/\mu_{\mathcal{T}^*})^{-1}$; dotted: $(1+\rho_{\mathcal{T}^*}s)^{-1}$ as printed")
    figure_legend(fig, ncol=3)  # below the panel: inside, it covered curves
    return fig


#: R-V-appD: the curves of neighbouring z lie a few pixels apart; the first is large open circles
#: underneath, the others small filled markers on top
_Z_STYLES = (dict(marker="o", ms=9, mfc="none", mew=1.3, zorder=2), dict(marker="s", ms=4.5, zorder=3),
             dict(marker="^", ms=5, zorder=3))


def draw_truncated(result: ItemResult):
    """R-V-appD: the PGF gap between the non-critical counts and the truncated system, per z, c.o.c. on
    the left and c.o.s. on the right (the two mechanisms' curves nearly coincide, and so do those of
    neighbouring z near the limit: apart, each shows)."""
    from ...plotting import PALETTE, figure_legend, new_figure

    fig, axes = new_figure(2, sharey=True)
    for ax, mech, name in zip(axes[0], ("coc", "cos"), ("c.o.c.", "c.o.s.")):
        for c, zval in enumerate(result.figure["z_values"]):
            pts = [r for r in result.rows if r["z"] == zval and r["mechanism"] == mech]
            ax.loglog([1 - r["load_fraction"] for r in pts], [r["distance"] for r in pts], color=PALETTE[c],
                      label=f"$z = {zval}$", **_Z_STYLES[c % len(_Z_STYLES)])
        ax.set_title(name, fontsize=9); ax.set_xlabel(r"$1-\lambda/\lambda^*$")
    axes[0][0].set_ylabel("PGF gap to the truncated system")
    figure_legend(fig, ncol=3)
    return fig


def draw_constant(result: ItemResult):
    """R-X-13: the constant C from the closed form (13) and from the dynamic programme against the load."""
    from ...plotting import PALETTE

    fig, ax = _one_axis()
    # the two curves nearly coincide (C changes little with p12): the first is large open circles on a
    # solid line underneath, the second small filled squares on a dashed line on top, and the dynamic
    # programme's values are plus signs inside both
    styles = (dict(marker="o", ms=9, mfc="none", mew=1.3, ls="-", zorder=2),
              dict(marker="s", ms=4.5, ls="--", zorder=3))
    for c, p12 in enumerate(result.figure["p12_values"]):
        pts = [r for r in result.rows if r["p12"] == p12]
        ax.plot([r["load"] for r in pts], [r["C_formula"] for r in pts], color=PALETTE[c],
                label=rf"$C$ from the formula, $p_{{\{{1,2\}}}} = {parameter_number(p12)}$", **styles[c % 2])
        ax.plot([r["load"] for r in pts], [r["C_dp"] for r in pts], "+", ms=7, mew=1, color="k", zorder=4,
                label="dynamic programme" if c == len(result.figure["p12_values"]) - 1 else "_dynamic programme")
    ax.set_xlabel(r"$\lambda/\mu$"); ax.set_ylabel(r"$C = P(\mathrm{empty})$"); ax.legend()
    return fig


def draw_tail(result: ItemResult):
    """R-X-tail: the M-model's exact tails, the approximation (14) and the M/M/1 tail, with the paper's number."""
    fig, ax = _one_axis()
    coc = [r for r in result.rows if r["mechanism"] == "coc"]
    cos = [r for r in result.rows if r["mechanism"] == "cos"]
    qs = [r["q"] for r in coc]
    ax.semilogy(qs, [r["exact_P_Q_greater_q"] for r in coc], "o-", label="M-model, exact $P(Q > q)$ (c.o.c.)")
    ax.semilogy(qs, [r["exact_P_Q_greater_q"] for r in cos], "s-", label="M-model, exact $P(Q > q)$ (c.o.s.)")
    ax.semilogy(qs, [r["exponential_14"] for r in coc], "--", label=r"approximation (14): $e^{-0.4q}$")
    ax.semilogy(qs, [r["mm1_tail_rho_pow_q"] for r in coc], ":", label=r"M/M/1: $P(Q\geq q) = 0.6^q$")
    ax.axhline(TAIL_PRINTED, color="grey", lw=0.8); ax.axvline(TAIL_Q, color="grey", lw=0.8)
    ax.set_xlabel("$q$"); ax.set_ylabel("tail probability"); ax.legend()
    return fig
