"""The experiments of Sec. 3.3 and Appendix E: Table 1's settings, their simulation and exact values."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..runtime import child_seed, replicate
from ..validation import RELAXATIONS, check_integer
from ..verdicts import welch
from .model import RedundancySystem, circular_d, power_of_d
from .productform import MAX_DP_SERVERS, empty_probability, total_jobs_law, total_jobs_moments, total_jobs_pmf, type_moments
from .simulation import SimulationResult, simulate_replication

__all__ = ["shortest_run", "Setting", "table1_settings", "TABLE1_PAPER", "simulate_setting", "exact_setting", "random_system", "exact_cdf",
           "exact_tail",
           "summarise_runs", "convergence_order", "TABLE1_CANDIDATES", "table1_comparison", "table1_verdicts",
           "random_systems", "POD_CASES", "stability_rows", "stability_agreement", "local_stability_rows",
           "local_stability_agreement", "product_form_rows", "product_form_samples", "product_form_table", "pgf_rows", "limit_rows", "replica_rows", "sojourn_rows",
           "truncated_pgf_rows"]


def shortest_run(load: float) -> int:
    """Events in :data:`~qtheory.validation.RELAXATIONS` relaxation times :math:`(1 - \\text{load})^{-2}`: 10 000 at load 0.9."""
    return int(math.ceil(RELAXATIONS / (1.0 - load) ** 2 - 1e-9))


@dataclass(frozen=True)
class Setting:
    """One column of Table 1.

    Attributes
    ----------
    number : int
        1..12 as in Appendix E.1.
    name : str
    system : RedundancySystem
    symmetric : bool
        Whether all types are exchangeable (power-of-d, circular-d with equal
        probabilities), so that :math:`E[Q_S/Q\\,1\\{Q>0\\}] = P(Q>0)/K` for every S.
    """

    number: int
    name: str
    system: RedundancySystem
    symmetric: bool


def table1_settings() -> list[Setting]:
    """The 12 settings of Appendix E.1 (identical servers of speed 1)."""
    single_full = RedundancySystem(np.ones(4), [(0,), (1,), (2,), (3,), (0, 1, 2, 3)],
                                   [0.175, 0.175, 0.175, 0.175, 0.3], ("1", "2", "3", "4", "full"))
    specs = [
        ("N=4, pod d=2", power_of_d(4, 2), True),
        ("N=4, circular d=2", circular_d(4, 2), True),
        ("N=4, circular d=2, p=(.4,.1,.4,.1)", circular_d(4, 2, [0.4, 0.1, 0.4, 0.1]), False),
        ("N=4, singles + full", single_full, False),
        ("N=10, pod d=2", power_of_d(10, 2), True),
        ("N=10, circular d=2", circular_d(10, 2), True),
        ("N=10, pod d=8", power_of_d(10, 8), True),
        ("N=10, circular d=8", circular_d(10, 8), True),
        ("N=20, pod d=2", power_of_d(20, 2), True),
        ("N=20, circular d=2", circular_d(20, 2), True),
        ("N=20, pod d=18", power_of_d(20, 18), True),
        ("N=20, circular d=18", circular_d(20, 18), True),
    ]
    return [Setting(i + 1, name, sy, sym) for i, (name, sy, sym) in enumerate(specs)]


#: Table 1 of the paper: for each setting number, each quantity's mean and sd over the paper's
#: 10 runs; the share columns are :math:`E[Q_1/Q \, 1\{Q>0\}]` and :math:`E[Q_M/Q \, 1\{Q>0\}]`
#: (first and last type)
TABLE1_PAPER = {
    1: dict(mean=(12.945, 0.314), var=(100.797, 12.607), share_first=(0.166, 0.001), share_last=(0.167, 0.001)),
    2: dict(mean=(13.182, 0.320), var=(102.386, 12.387), share_first=(0.249, 0.001), share_last=(0.246, 0.014)),
    3: dict(mean=(14.114, 0.294), var=(107.290, 11.596), share_first=(0.408, 0.002), share_last=(0.091, 0.001)),
    4: dict(mean=(15.976, 0.329), var=(110.839, 12.386), share_first=(0.203, 0.010), share_last=(0.195, 0.001)),
    5: dict(mean=(23.079, 0.370), var=(134.485, 12.474), share_first=(2.217e-2, 0.0308e-2), share_last=(2.226e-2, 0.0218e-2)),
    6: dict(mean=(26.836, 0.436), var=(160.234, 12.616), share_first=(9.697e-2, 0.0932e-2), share_last=(10.052e-2, 0.1314e-2)),
    7: dict(mean=(16.043, 0.331), var=(102.051, 13.263), share_first=(2.218e-2, 0.0287e-2), share_last=(2.223e-2, 0.0219e-2)),
    8: dict(mean=(15.995, 0.333), var=(100.277, 12.901), share_first=(9.963e-2, 0.0987e-2), share_last=(10.022e-2, 0.0552e-2)),
    9: dict(mean=(41.060, 0.462), var=(194.779, 13.684), share_first=(0.531e-2, 0.0167e-2), share_last=(0.522e-2, 0.0187e-2)),
    10: dict(mean=(52.330, 0.724), var=(293.639, 21.352), share_first=(5.053e-2, 0.0901e-2), share_last=(5.026e-2, 0.126e-2)),
    11: dict(mean=(23.759, 0.294), var=(99.234, 11.747), share_first=(0.529e-2, 0.0196e-2), share_last=(0.518e-2, 0.0151e-2)),
    12: dict(mean=(23.759, 0.295), var=(99.245, 11.765), share_first=(5.002e-2, 0.0519e-2), share_last=(5.000e-2, 0.0430e-2)),
}


def simulate_setting(system: RedundancySystem, lam: float, n_runs: int, n_events: int, seed: int, *,
                     mechanism: str = "cos", initial_scale: float | None = None, warmup_events: int = 0,
                     hist_max: int = 400, desc: str | None = None) -> list[SimulationResult]:
    """`n_runs` independent runs as in Appendix E.1 (default start: :math:`(1-\\lambda/\\mu)^{-1}` Exp(1) jobs)."""
    n_runs = check_integer("n_runs", n_runs, low=1)
    if initial_scale is None:
        initial_scale = 1.0 / (1.0 - lam / system.mean_speed)
    return replicate(simulate_replication, n_runs, seed, args=(system, lam, n_events),
                     kwargs=dict(mechanism=mechanism, warmup_events=warmup_events, initial_scale=initial_scale,
                                 hist_max=hist_max), desc=desc)


def summarise_runs(runs: list[SimulationResult], average: str = "time") -> dict[str, tuple[float, float]]:
    """Mean and sd over runs of E[Q], Var(Q) and the two type shares, as in Table 1.

    `average` is ``"time"``, ``"event"`` or ``"arrival"`` (the state just after arrivals,
    the arriving job included).
    """
    pre = {"time": "", "event": "event_", "arrival": "arrival_"}[average]
    out = {}
    keys = (("mean", "mean_jobs"), ("var", "var_jobs"), ("share_first", "ratio_first"), ("share_last", "ratio_last"))
    for key, attr in keys:
        x = np.array([getattr(r, pre + attr) for r in runs])
        out[key] = (float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else float("nan"))
    return out


def exact_setting(setting: Setting, lam: float, mechanism: str = "cos") -> dict[str, float]:
    """Exact E[Q], Var(Q), P(Q = 0) (and the shares for symmetric settings) by one
    product-form DP (:func:`~qtheory.redundancy.productform.total_jobs_law`).

    NaN where the DP does not give the quantity (the shares of asymmetric settings need
    the types of the jobs in service, which (6) does not record; every quantity when the
    system has more than ``MAX_DP_SERVERS`` servers).
    """
    nan = float("nan")
    sy = setting.system
    if sy.n_servers > MAX_DP_SERVERS:
        return dict(mean=nan, var=nan, p0=nan, share_first=nan, share_last=nan)
    law = total_jobs_law(sy, lam, mechanism)
    share = (1.0 - law.empty_probability) / sy.n_types if setting.symmetric else nan
    return dict(mean=law.mean, var=law.variance, p0=law.empty_probability, share_first=share, share_last=share)


def exact_cdf(system: RedundancySystem, lam: float, max_jobs: int, mechanism: str = "cos") -> np.ndarray | None:
    """P(Q <= q), q = 0..max_jobs, or None when the pmf table is too large."""
    if (1 << system.n_servers) * (max_jobs + 1) > 60_000_000:
        return None
    return np.cumsum(total_jobs_pmf(system, lam, max_jobs, mechanism))


def exact_tail(system: RedundancySystem, lam: float, upto: int, mechanism: str = "cos") -> np.ndarray | None:
    """P(Q > q), q = 0..upto, from the product form, or None when the pmf table is too large.

    Each tail is summed from the top, so a small tail keeps its relative accuracy (``1 - P(Q <= q)``
    loses it to cancellation); the pmf runs to ``upto`` plus 40 means :math:`(1 - \\lambda)^{-1}` of
    the approximation, beyond which the mass is below :math:`e^{-40}` of the tail at ``upto``.
    """
    upto = check_integer("upto", upto, low=0)
    max_jobs = upto + 1 + int(math.ceil(40.0 / (1.0 - lam / system.mean_speed)))
    if (1 << system.n_servers) * (max_jobs + 1) > 60_000_000:
        return None
    pmf = total_jobs_pmf(system, lam, max_jobs, mechanism)
    return np.cumsum(pmf[::-1])[::-1][1:upto + 2]


def random_system(rng: np.random.Generator, max_servers: int = 5, max_types: int = 6,
                  heterogeneous: bool = True) -> RedundancySystem:
    """A random small system (every server covered) for the numerical checks of R-V."""
    while True:
        n = int(rng.integers(2, max_servers + 1))
        k = int(min(rng.integers(1, max_types + 1), 2 ** n - 1))
        types: set[tuple[int, ...]] = set()
        while len(types) < k:
            size = int(rng.integers(1, n + 1))
            types.add(tuple(sorted(rng.choice(n, size, replace=False).tolist())))
        ordered = sorted(types)
        if len(set().union(*ordered)) < n:
            continue
        speeds = rng.uniform(0.5, 2.0, n) if heterogeneous else np.ones(n)
        return RedundancySystem(speeds, ordered, rng.dirichlet(np.ones(k)))


def convergence_order(rows: list[dict], *, key: str = "distance") -> float:
    """Observed order p of ``max |prelimit - limit| ~ eps^p`` between the two highest loads.

    `rows` carry ``load_fraction`` (:math:`\\lambda/\\lambda^*`, so :math:`\\varepsilon = 1 -` ``load_fraction``) and
    `key`; the largest gap over the rows of each load is taken. A limit approached with an
    :math:`O(\\varepsilon)` error term gives p close to 1; a wrong limit gives p close to 0.
    """
    loads = sorted({float(r["load_fraction"]) for r in rows})
    if len(loads) < 2:
        raise ParameterError("convergence_order needs rows at two or more loads")
    gaps = [max(float(r[key]) for r in rows if r["load_fraction"] == f) for f in loads[-2:]]
    eps = [1.0 - f for f in loads[-2:]]
    if min(gaps) <= 0.0:
        raise ParameterError(f"a gap `{key}` is zero at the highest loads: no order can be measured")
    return math.log(gaps[0] / gaps[1]) / math.log(eps[0] / eps[1])


#: candidate readings of Table 1's E[Q] and Var(Q): name -> (row key of the value, row key of
#: its per-run sd or None for an exact value, shift added to the value)
TABLE1_CANDIDATES = {
    "mean": {"exact": ("exact", None, 0.0), "exact + 1": ("exact", None, 1.0),
             "time average": ("time_mean", "time_sd", 0.0), "event average": ("event_mean", "event_sd", 0.0),
             "after arrivals": ("arrival_mean", "arrival_sd", 0.0)},
    "var": {"exact": ("exact", None, 0.0), "time average": ("time_mean", "time_sd", 0.0),
            "pooled over runs": ("pooled_mean", "time_sd", 0.0), "event average": ("event_mean", "event_sd", 0.0),
            "after arrivals": ("arrival_mean", "arrival_sd", 0.0)},
}


def table1_comparison(rows: list[dict], n_runs: int, n_paper_runs: int = 10) -> list[dict]:
    """Per setting, the paper's E[Q] and Var(Q) against each candidate estimator (tidy rows).

    `rows` are R-T1's table rows (``setting``, ``quantity``, ``paper_mean``, ``paper_sd`` and
    the candidates' keys of :data:`TABLE1_CANDIDATES`). ``z`` is the difference paper -
    candidate over the combined standard error of the two means (the paper's sd over its
    `n_paper_runs` runs, ours over `n_runs`; an exact candidate has none), a t statistic with
    ``df`` degrees of freedom (Welch's, :func:`qtheory.verdicts.welch`).
    """
    n_runs = check_integer("n_runs", n_runs, low=1)
    out = []
    for r in rows:
        cands = TABLE1_CANDIDATES.get(r["quantity"])
        if not cands or math.isnan(r.get("exact", math.nan)):
            continue
        paper_se = r["paper_sd"] / math.sqrt(n_paper_runs)
        for name, (key, sd_key, shift) in cands.items():
            value = r.get(key, math.nan)
            if value is None or math.isnan(value):
                continue
            value += shift
            se = r[sd_key] / math.sqrt(n_runs) if sd_key and n_runs > 1 else 0.0
            diff = r["paper_mean"] - value
            combined, df = welch(paper_se, n_paper_runs - 1, se, n_runs - 1 if se else None)
            out.append(dict(quantity=r["quantity"], estimator=name, setting=r["setting"], paper=r["paper_mean"],
                            candidate=value, difference=diff, z=diff / combined, df=df))
    return out


def table1_verdicts(comparison: list[dict]) -> list[dict]:
    """One row per (quantity, estimator): how well it explains the paper's column.

    ``n_above`` settings where the paper is above the candidate, the two-sided sign-test
    p-value of that count, the range of differences and of z, and the joint chi-square
    p-value of all z (independent settings; a correct reading gives a uniform p): each z, a t
    statistic with the row's ``df``, mapped to the normal score of the same tail probability
    (:func:`qtheory.verdicts.normal_score`) before it is squared, as the book's joint tests do
    (the squares of t statistics with 9 degrees of freedom are not chi-square: summed over
    twelve settings and compared with chi-square, they reject 19% of true readings at 5%).
    """
    from scipy import stats

    from ..verdicts import normal_score

    out = []
    keys = sorted({(c["quantity"], c["estimator"]) for c in comparison}, key=lambda k: (k[0], k[1]))
    for quantity, estimator in keys:
        sel = [c for c in comparison if c["quantity"] == quantity and c["estimator"] == estimator]
        z = np.array([c["z"] for c in sel])
        d = np.array([c["difference"] for c in sel])
        above = int((d > 0).sum())
        out.append(dict(quantity=quantity, estimator=estimator, n_settings=len(sel), n_above=above,
                        sign_test_p=float(stats.binomtest(above, len(sel)).pvalue),
                        min_difference=float(d.min()), max_difference=float(d.max()),
                        min_z=float(z.min()), max_z=float(z.max()),
                        chi2_p=float(stats.chi2.sf(sum(normal_score(c["z"], c["df"]) ** 2 for c in sel), len(sel)))))
    return out


# -- R-V: the verification experiments (row builders and agreement tests) -----------------

def random_systems(seed: int, n: int) -> list[RedundancySystem]:
    """`n` random small systems, system i drawn from ``child_seed(seed, "system", i)``.

    Odd-numbered systems have random speeds, even-numbered ones identical speeds.
    """
    n = check_integer("n", n, low=0)
    return [random_system(np.random.default_rng(child_seed(seed, "system", i)), heterogeneous=bool(i % 2))
            for i in range(n)]


POD_CASES = ((6, 2), (8, 3), (10, 5), (12, 11))


def stability_rows(systems: list[RedundancySystem], seed: int, pod_cases=POD_CASES) -> list[dict]:
    """R-V-stab: the three critical-subset searches and conditions (1), (2) just below and
    above :math:`\\lambda^*` per random system; then, per power-of-d case with random speeds
    (``child_seed(seed, "pod speeds", n, d)``), the general search against formula (3)."""
    from . import stability as S

    rows = []
    for i, sy in enumerate(systems):
        res = {m: S.critical_subset(sy, m) for m in ("servers", "flow", "types")}
        ls = res["types"].critical_load
        c1 = [S.condition_1(sy, f * ls).holds for f in (0.999, 1.001)]
        c2 = [S.condition_2(sy, f * ls).holds for f in (0.999, 1.001)]
        rows.append(dict(kind="random", system=i, n_servers=sy.n_servers, n_types=sy.n_types,
                         ratio_types=res["types"].ratio, ratio_servers=res["servers"].ratio,
                         ratio_flow=res["flow"].ratio,
                         same_subset=int(res["types"].types == res["servers"].types == res["flow"].types),
                         unique=int(res["types"].unique), cond1_below=int(c1[0]), cond1_above=int(c1[1]),
                         cond2_below=int(c2[0]), cond2_above=int(c2[1])))
    for n, d in pod_cases:
        sp = np.random.default_rng(child_seed(seed, "pod speeds", n, d)).uniform(0.2, 3, n)
        rows.append(dict(kind="power-of-d (3)", system=f"N={n}, d={d}", n_servers=n,
                         n_types=int(math.comb(n, d)), ratio_types=float("nan"),
                         ratio_servers=1 / (n * S.critical_load(power_of_d(n, d, sp))),
                         ratio_flow=1 / (n * S.power_of_d_critical_load(sp, d)), same_subset=1, unique=1,
                         cond1_below=1, cond1_above=0, cond2_below=1, cond2_above=0))
    return rows


def stability_agreement(rows: list[dict]) -> tuple[bool, float]:
    """(do the three searches and (1) <=> (2) agree on every random system, largest relative
    gap between formula (3) and the general search over the power-of-d rows)."""
    rand = [r for r in rows if r["kind"] == "random"]
    agree = all(r["same_subset"] and r["cond1_below"] == r["cond2_below"] == 1
                and r["cond1_above"] == r["cond2_above"] == 0
                and abs(r["ratio_flow"] - r["ratio_types"]) <= 1e-12 * r["ratio_types"]
                and abs(r["ratio_servers"] - r["ratio_types"]) <= 1e-12 * r["ratio_types"] for r in rand)
    pods = [abs(r["ratio_servers"] - r["ratio_flow"]) / r["ratio_flow"] for r in rows if r["kind"] != "random"]
    return agree, max(pods) if pods else float("nan")


def local_stability_rows(systems: list[RedundancySystem]) -> list[dict]:
    """R-V-local: conditions (7), (8), (9), (11), (10) and the critical-subset test per system."""
    from . import stability as S

    rows = []
    for i, sy in enumerate(systems):
        flags = {c: getattr(S, f"local_condition_{c}")(sy).holds for c in (7, 8, 9, 11)}
        rows.append(dict(system=i, n_servers=sy.n_servers, n_types=sy.n_types,
                         **{f"cond_{c}": int(v) for c, v in flags.items()},
                         efficient=int(S.is_locally_stable(sy)),
                         cond_10=int(S.local_condition_10(sy).holds) if sy.n_types > 1 else 1))
    return rows


def local_stability_agreement(rows: list[dict]) -> tuple[bool, int, bool]:
    """(all of (7), (8), (9), (11) and the critical-subset test agree, number locally stable,
    (10) holds whenever they do)."""
    same = all(len({r["cond_7"], r["cond_8"], r["cond_9"], r["cond_11"], r["efficient"]}) == 1 for r in rows)
    return same, sum(r["efficient"] for r in rows), all(r["cond_10"] for r in rows if r["efficient"])


def product_form_samples(cases, n_runs: int, n_events: int, seed: int, *, warmup_events: int = 10_000,
                         max_q: int = 5) -> list[dict]:
    """R-V-pf's runs: per case and mechanism, the per-run E[Q], Var(Q), P(Q = 0..max_q) (and
    E[Q_S] for c.o.c.) beside their product-form values.

    `cases` are (name, system, load fraction of :math:`\\lambda^*`); the runs of case i and mechanism m
    use ``child_seed(seed, "pf", i, m)``. Returns one dict per case and mechanism: ``system,
    mechanism, load, quantities`` (names), ``runs`` (runs x quantities) and ``exact``.
    """
    from .stability import critical_load

    out = []
    for i, (name, sy, f) in enumerate(cases):
        lam = f * critical_load(sy)
        for mech in ("coc", "cos"):
            rr = simulate_setting(sy, lam, n_runs, n_events, child_seed(seed, "pf", i, mech), mechanism=mech,
                                  initial_scale=0.0, warmup_events=warmup_events, hist_max=max(80, max_q + 1),
                                  desc=f"{name} {mech}")
            exact = total_jobs_moments(sy, lam, mech)
            pmf = total_jobs_pmf(sy, lam, max_q, mech)
            quantities = [("E[Q]", [r.mean_jobs for r in rr], exact.mean),
                          ("Var(Q)", [r.var_jobs for r in rr], exact.variance)]
            quantities += [(f"P(Q={q})", [r.count_distribution[q] for r in rr], pmf[q]) for q in range(max_q + 1)]
            if mech == "coc":
                quantities += [(f"E[Q_{sy.labels[k]}]", [r.type_means[k] for r in rr], m.mean)
                               for k, m in enumerate(type_moments(sy, lam))]
            out.append(dict(system=name, mechanism=mech, load=lam, quantities=[q for q, _, _ in quantities],
                            runs=np.array([xs for _, xs, _ in quantities], dtype=float).T,
                            exact=np.array([ex for _, _, ex in quantities], dtype=float)))
    return out


def product_form_table(samples: list[dict]) -> list[dict]:
    """One row per quantity of :func:`product_form_samples`: the mean over runs, its standard
    error and the t statistic against the product form."""
    rows = []
    for g in samples:
        runs = g["runs"]
        for j, q in enumerate(g["quantities"]):
            x = runs[:, j]
            se = float(x.std(ddof=1) / np.sqrt(x.size))
            ex = float(g["exact"][j])
            rows.append(dict(system=g["system"], mechanism=g["mechanism"], load=g["load"], quantity=q,
                             simulation=float(x.mean()), se=se, exact=ex, z=float((x.mean() - ex) / se)))
    return rows


def product_form_rows(cases, n_runs: int, n_events: int, seed: int, *, warmup_events: int = 10_000,
                      max_q: int = 5) -> list[dict]:
    """R-V-pf: simulated E[Q], Var(Q), P(Q = 0..max_q) (and E[Q_S] for c.o.c.) against the
    product forms, one row per quantity with the z-score over runs
    (:func:`product_form_samples`, then :func:`product_form_table`)."""
    return product_form_table(product_form_samples(cases, n_runs, n_events, seed, warmup_events=warmup_events, max_q=max_q))


def pgf_rows(systems: list[RedundancySystem], seed: int, *, max_types: int = 5, n_systems: int = 25,
             load_fraction: float = 0.95) -> list[dict]:
    """R-V-prop31: the PGF of Proposition 3.1 (sum over ordered type vectors) against the DP
    at a random z (``child_seed(seed, "pgf z", i)``), for the first `n_systems` systems
    with at most `max_types` types."""
    from .productform import pgf, pgf_prop31
    from .stability import critical_load

    rows = []
    for i, sy in enumerate([s for s in systems if s.n_types <= max_types][:n_systems]):
        lam = load_fraction * critical_load(sy)
        z = np.random.default_rng(child_seed(seed, "pgf z", i)).uniform(0, 1, sy.n_types)
        lit, dp = pgf_prop31(sy, lam, z), pgf(sy, lam, z)
        rows.append(dict(system=i, n_types=sy.n_types, load=lam, pgf_proposition_31=lit, pgf_dp=dp,
                         abs_diff=abs(lit - dp)))
    return rows


# -- heavy-traffic limits (page R-V: Theorems 3.1-3.2, Corollaries 3.1-3.2, Appendix D) ---------------------

def _load_fractions(load_fractions) -> list[float]:
    out = [float(f) for f in load_fractions]
    if not out or any(not 0.0 < f < 1.0 for f in out):
        raise ParameterError(f"`load_fractions` must be a non-empty list of lambda/lambda* in (0, 1) (got {load_fractions!r})")
    return out


def limit_rows(system: RedundancySystem, load_fractions, laplace_points) -> list[dict]:
    """Theorems 3.1/3.2: prelimit quantities against their heavy-traffic limits.

    For each load ``lambda = f lambda*`` (f in `load_fractions`): the Laplace transform of
    the scaled type counts ``(1 - f) Q`` at each vector of `laplace_points`, for c.o.c. and
    c.o.s. (:func:`~qtheory.redundancy.limits.scaled_laplace`), against
    :func:`~qtheory.redundancy.limits.limit_laplace`; and the scaled mean count of each
    type (c.o.c.) against the limit's type weights. Rows: ``mechanism, load_fraction,
    quantity, value, limit, distance``.
    """
    from . import limits as L

    lim = L.heavy_traffic_limit(system)
    out = []
    for f in _load_fractions(load_fractions):
        lam = f * lim.critical.critical_load
        for mech in ("coc", "cos"):
            for j, t in enumerate(laplace_points):
                out.append(dict(mechanism=mech, load_fraction=f, quantity=f"Laplace t{j}",
                                value=L.scaled_laplace(system, lam, t, mech), limit=L.limit_laplace(system, t)))
        for k, m in enumerate(type_moments(system, lam)):
            out.append(dict(mechanism="coc", load_fraction=f, quantity=f"scaled E[Q_{system.labels[k]}]",
                            value=(1 - f) * m.mean, limit=float(lim.type_weights[k])))
    for r in out:
        r["distance"] = abs(r["value"] - r["limit"])
    return out


def replica_rows(system: RedundancySystem, load_fractions) -> list[dict]:
    """Corollary 3.1: ``(1 - f) E[R_n]`` (replicas at server n, c.o.c. and c.o.s., exact)
    against the limit ``q_n`` (the heavy-traffic limit's server weights). Rows:
    ``mechanism, load_fraction, server, scaled_mean, q_n, distance``."""
    from . import limits as L
    from .productform import server_replica_moments

    lim = L.heavy_traffic_limit(system)
    rows = []
    for f in _load_fractions(load_fractions):
        lam = f * lim.critical.critical_load
        for mech in ("coc", "cos"):
            for n, m in enumerate(server_replica_moments(system, lam, mech)):
                scaled = (1 - f) * m.mean
                rows.append(dict(mechanism=mech, load_fraction=f, server=n + 1, scaled_mean=scaled,
                                 q_n=float(lim.server_weights[n]), distance=abs(scaled - lim.server_weights[n])))
    return rows


def sojourn_rows(system: RedundancySystem, load_fractions, s_values=(0.5, 1.0, 2.0)) -> list[dict]:
    """Corollary 3.2: the exact Laplace transform of ``(1 - f) V_S`` for each type S, both
    mechanisms, against the limit we derive (:func:`~qtheory.redundancy.limits.limit_sojourn_laplace`,
    exponential with mean ``1 / mu_T*`` for S in T*) and the limit as printed (mean
    ``rho_T*``; 1 for types outside T*). Rows: ``mechanism, load_fraction, type, s, laplace,
    limit_corrected, limit_as_printed``."""
    from . import limits as L

    lim = L.heavy_traffic_limit(system)
    rows = []
    for f in _load_fractions(load_fractions):
        lam = f * lim.critical.critical_load
        for mech in ("coc", "cos"):
            for k in range(system.n_types):
                for s in s_values:
                    rows.append(dict(mechanism=mech, load_fraction=f, type=system.labels[k], s=float(s),
                                     laplace=L.sojourn_laplace(system, lam, k, s, mech),
                                     limit_corrected=L.limit_sojourn_laplace(system, k, s),
                                     limit_as_printed=(1 / (1 + lim.paper_delay_scale * s))
                                     if k in lim.critical.types else 1.0))
    return rows


def truncated_pgf_rows(system: RedundancySystem, load_fractions, z_values=(0.3, 0.6, 0.9)) -> list[dict]:
    """Appendix D (Lemma D.1, Theorem D.1): the PGF of the non-critical type counts of the
    full system at ``lambda = f lambda*`` (z on the non-critical types, 1 on T*) against the
    PGF of the truncated system (:func:`~qtheory.redundancy.limits.truncated_system`) at its
    load. Rows: ``mechanism, z, load_fraction, pgf_full, pgf_truncated, distance``."""
    from . import limits as L
    from .productform import pgf
    from .stability import critical_load

    tr = L.truncated_system(system)
    lam_star = critical_load(system)
    fractions = _load_fractions(load_fractions)
    rows = []
    for zval in z_values:
        zt = np.full(tr.system.n_types, float(zval))
        for mech in ("coc", "cos"):
            target = pgf(tr.system, tr.load, zt, mech)
            for f in fractions:
                z = np.ones(system.n_types)
                z[list(tr.type_map)] = zval
                val = pgf(system, f * lam_star, z, mech)
                rows.append(dict(mechanism=mech, z=float(zval), load_fraction=f, pgf_full=val, pgf_truncated=target,
                                 distance=abs(val - target)))
    return rows
