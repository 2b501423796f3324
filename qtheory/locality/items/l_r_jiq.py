"""L-R-jiq: join-the-idle-queue with data locality on the Sec. 6 system (beyond the paper).

:func:`compute` simulates JIQ (:class:`~qtheory.locality.policies.JIQ`: an idle compatible
server if there is one, else a uniformly chosen compatible server), local JSQ(2) (Sec. 2.2),
GWSQ(2) (Algorithm 1) and random routing (local JSQ(1)) on the Sec. 6 system with an
irg(:math:`p^1`) graph over a range of loads, and returns the stationary mean queue length per
server with 95% intervals over the runs.

Stability before stationarity: a mean is reported only where it is a stationary quantity.
For local JSQ(d), GWSQ(d) and random routing, :func:`~qtheory.locality.stability.policy_stability`
decides from the asymptotic load (5.2) (Lemma 10) before anything is simulated: an unstable
point (random routing overloads the type-2 servers from load about 0.83 on) is not simulated
and its row has no mean. For JIQ no condition is known; its rows carry a drift check
(:func:`drift_check`: the second half of the averaging window against the first) and no mean
where the drift is significant ("stationarity not established").

No paper states a value for JIQ: the one record is an internal check
(:func:`beats_random_claim`) over the loads where both means exist; :func:`loads_below` says
at which loads one policy is significantly below another.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...claims import Claim, Finding
from ...display import Table, listing, number
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed, replicate
from ...stats import mean_ci
from ...validation import check_positive, check_real, check_runs, check_window
from ...verdicts import RELATIVE_MARGIN
from ..experiments import stationary_replication
from ..model import paper_system
from ..policies import GWSQ, JIQ, LocalJSQ
from ..stability import policy_stability

__all__ = ["ITEM", "compared_policies", "policy_rows", "checked_loads_and_window", "compute", "policy_row", "reported", "comparable_loads", "loads_below",
           "beats_random_claim", "comparison_text", "drift_check", "cell_text", "draw"]

ITEM = "L-R-jiq"
RANDOM = "random (JSQ(1))"
#: equally spaced sampling times of the averaging window (as in stationary_replication)


def compared_policies() -> dict:
    """The compared policies by label, in the table's column order."""
    return {"JIQ": JIQ(), "local JSQ(2)": LocalJSQ(d=2), "GWSQ(2)": GWSQ(d=2), RANDOM: LocalJSQ(d=1)}


def policy_row(rows, load: float, policy: str) -> dict:
    """The row of `policy` at `load`."""
    for r in rows:
        if r["load"] == load and r["policy"] == policy:
            return r
    raise ParameterError(f"no row for policy {policy!r} at `load` = {load!r}")


def reported(row) -> bool:
    """Whether `row` reports a stationary mean (an unstable point, or a JIQ point whose
    stationarity is not established, has NaN there)."""
    return math.isfinite(row["mean_queue_length"])


def comparable_loads(rows, loads, a: str, b: str) -> list:
    """The loads at which both `a` and `b` report a stationary mean."""
    return [load for load in loads if reported(policy_row(rows, load, a)) and reported(policy_row(rows, load, b))]


def loads_below(rows, loads, lower: str, upper: str) -> list:
    """The loads at which `lower`'s mean queue length is significantly below `upper`'s: the 95%
    interval of `lower` lies entirely below that of `upper` (``ci_high < ci_low``). A load where
    either has no mean is never among them."""
    return [load for load in comparable_loads(rows, loads, lower, upper)
            if policy_row(rows, load, lower)["ci_high"] < policy_row(rows, load, upper)["ci_low"]]


def _name(policy: str) -> str:
    return "random routing" if policy == RANDOM else policy


def _types(row) -> str:
    """The critical server types of an unstable row in words: "type 2", "types 1, 2, 3"."""
    types = row["critical_types"]
    return f"type{'s' if ',' in types else ''} {types}"


def _loads_words(loads) -> str:
    return f"load{'s' if len(loads) > 1 else ''} {listing(loads, conjunction='and')}"


def _missing_words(rows, loads, policy: str) -> str:
    """Why `policy` has no mean at the given loads, as a clause ("" when it has one at each):
    "random routing is unstable at loads 0.85 and 0.92 (type 2 loaded at 1.029 and 1.114 ≥ 1,
    Lemma 10)"."""
    rows_at = [policy_row(rows, load, policy) for load in loads]
    unstable = [r for r in rows_at if r.get("stable") is False]
    drifting = [r for r in rows_at if r.get("stable") is not False and not reported(r)]
    parts = []
    if unstable:
        if len({r["critical_types"] for r in unstable}) == 1:
            rhos = [f"{r['rho']:.3f}" for r in unstable]
            how = f"{_types(unstable[0])} loaded at {listing(rhos, conjunction='and')} ≥ 1"
        else:
            how = "; ".join(f"{_types(r)} loaded at {r['rho']:.3f} ≥ 1" for r in unstable)
        parts.append(f"{_name(policy)} is unstable at {_loads_words([r['load'] for r in unstable])} "
                     f"({how}, Lemma 10)")
    if drifting:
        parts.append(f"the stationarity of {_name(policy)} is not established at "
                     f"{_loads_words([r['load'] for r in drifting])} (its time average over the second half of the "
                     f"window differs significantly from the first half, by more than "
                     f"{100 * RELATIVE_MARGIN:g}% of the mean)")
    return "; ".join(parts)


def beats_random_claim(rows, loads, n_servers: int) -> Claim:
    """Internal check: JIQ's mean queue length is below random routing's, with disjoint 95%
    intervals, at every load where both report a stationary mean (:func:`reported`); the
    other loads are named in the evidence. With no load where both have a mean nothing is
    compared, and the check does not hold (``holds=False``; the evidence says why)."""
    loads = list(loads)
    both = comparable_loads(rows, loads, "JIQ", RANDOM)
    below = loads_below(rows, both, "JIQ", RANDOM)
    skipped = [load for load in loads if load not in both]
    evidence = f"loads {listing(both, conjunction='and')}, $N = {n_servers}$" if both else \
        f"no load where both have a stationary mean, so nothing was compared, $N = {n_servers}$"
    if skipped:
        why = "; ".join(w for w in (_missing_words(rows, skipped, RANDOM), _missing_words(rows, skipped, "JIQ")) if w)
        evidence += f"; not compared where {why}"
    return Claim(item=ITEM, text="JIQ's mean queue length is below random routing's at every load where both have a "
                                 "stationary mean (95% CIs disjoint)",
                 category="check", holds=bool(both) and len(below) == len(both), evidence=evidence)


def comparison_text(rows, loads, beats_random: bool | None) -> str:
    """The page's summary of the comparison (Markdown), from the rows: the check, the points
    without a mean and why, stable points whose window average still drifts, and JIQ against
    local JSQ(2) where both have a mean."""
    loads = list(loads)
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    both_random = comparable_loads(rows, loads, "JIQ", RANDOM) if RANDOM in policies else loads
    both = comparable_loads(rows, loads, "JIQ", "local JSQ(2)")
    better = loads_below(rows, loads, "JIQ", "local JSQ(2)")
    worse = loads_below(rows, loads, "local JSQ(2)", "JIQ")

    def at(which: list) -> str:
        return f"at {_loads_words(which)}" if which else "at no load"
    verdict = {True: "yes", False: "no", None: "not resolved"}[beats_random]
    if len(both_random) == len(loads):
        lines = [f"- JIQ below random routing at every load: **{verdict}**."]
    else:
        lines = [f"- JIQ below random routing at every load where both have a stationary mean "
                 f"({at(both_random).removeprefix('at ')}): **{verdict}**."]
    for policy in policies:
        missing = [load for load in loads if not reported(policy_row(rows, load, policy))]
        if missing:
            lines.append(f"- No mean where {_missing_words(rows, missing, policy)}.")
    unsettled = [r for r in rows if r.get("stable") is True and r.get("drifting") is True]
    if unsettled:
        lines.append("- Stable, but the time average over the second half of the window differs significantly from "
                     f"the first half, by more than {100 * RELATIVE_MARGIN:g}% of the mean (the warm-up may be too "
                     "short, and the mean biased): "
                     + "; ".join(f"{_name(r['policy'])} at load {r['load']:g} (drift {r['drift']:+.3g}, 95% CI "
                                 f"[{r['drift_ci_low']:.3g}, {r['drift_ci_high']:.3g}])" for r in unsettled) + ".")
    ratios = ", ".join(f"{policy_row(rows, load, 'JIQ')['mean_queue_length'] / policy_row(rows, load, 'local JSQ(2)')['mean_queue_length']:.2f}"
                       f" at load {load:g}" for load in both)
    lines.append(f"- JIQ / local JSQ(2) mean queue length: {ratios or 'no load where both have a mean'}.")
    lines.append(f"- JIQ is significantly better than local JSQ(2) {at(better)} and worse {at(worse)} "
                 "(95% CIs disjoint).")
    return "\n".join(lines)


def page_finding(rows, loads) -> Finding:
    """The page's result in one sentence with its numbers: JIQ's mean queue length against local
    JSQ(2)'s at the lowest and highest loads where both have a mean, and where random routing has none."""
    both = comparable_loads(rows, list(loads), "JIQ", "local JSQ(2)")
    if not both:
        title = "JIQ and local JSQ(2) have no load at which both have a stationary mean"
    else:
        ends = [both[0], both[-1]] if len(both) > 1 else both[:1]
        ratio = {load: policy_row(rows, load, "JIQ")["mean_queue_length"]
                 / policy_row(rows, load, "local JSQ(2)")["mean_queue_length"] for load in ends}
        title = ("JIQ's mean queue length is " + " and ".join(f"{ratio[load]:.2f} times local JSQ(2)'s at load {load:g}"
                                                               for load in ends))
    unstable = [load for load in loads if policy_row(rows, load, RANDOM).get("stable") is False]
    text = (f"Random routing has no stationary mean at {_loads_words(unstable)} (unstable by Lemma 10)."
            if unstable else "Random routing is stable at every load of the page.")
    return Finding(f"{ITEM}-result", ITEM, title, text, "beyond the papers")


def drift_check(first, second, *, margin: float = RELATIVE_MARGIN) -> dict:
    """Drift of a time average across its window: the empirical stationarity check of a point
    whose stability condition is not known.

    `first` and `second` are the time averages of the mean queue length over the first and the
    second half of the window, one per independent run. The drift is their difference,
    second minus first, averaged over the runs with a 95% t interval. The rule: the drift is
    *significant* when that interval excludes 0, and it *matters* (``drifting``: stationarity not
    established) when it is significant and larger in size than `margin` times the window's mean
    (the book's margin that matters, :data:`qtheory.verdicts.RELATIVE_MARGIN`), or when the
    interval is undefined (one run). A queue that grows (an unstable point) drifts by about
    half the window times its growth rate, far beyond the margin; a significant drift inside the
    margin (a stable point still settling by less than the margin) keeps its mean.

    Returns ``drift, drift_ci_low, drift_ci_high``, ``significant`` and ``drifting`` (bools).
    """
    first = np.asarray(first, dtype=float)
    second = np.asarray(second, dtype=float)
    if first.ndim != 1 or first.size == 0 or first.shape != second.shape:
        raise ParameterError(f"`first` and `second` must be two equally long sequences of run averages "
                             f"(got shapes {first.shape} and {second.shape})")
    margin = check_real("margin", margin, low=0.0)
    est = mean_ci(second - first)
    low, high = float(est.ci_low), float(est.ci_high)
    defined = math.isfinite(low) and math.isfinite(high)
    significant = not defined or not low <= 0.0 <= high
    size = margin * abs(float(np.mean((first + second) / 2)))
    return dict(drift=float(est.mean), drift_ci_low=low, drift_ci_high=high, significant=significant,
                drifting=not defined or (significant and abs(float(est.mean)) > size))


def cell_text(row) -> str:
    """A table cell: the mean ± 95% half-width, or why there is none ("unstable (type 2 at
    load 1.029)", "stationarity not established (drift ...)")."""
    if reported(row):
        return f"{row['mean_queue_length']:.3f} ± {(row['ci_high'] - row['ci_low']) / 2:.3f}"
    if row.get("stable") is False:
        return f"unstable ({_types(row)} at load {row['rho']:.3f})"
    return (f"stationarity not established (drift {row['drift']:+.3f}, 95% CI "
            f"[{row['drift_ci_low']:.3f}, {row['drift_ci_high']:.3f}])")


def _row(load, label, verdict, n_types: int) -> dict:
    """The row of a point before its simulation: the stability verdict, no numbers yet."""
    nan = float("nan")
    return dict(load=load, policy=label, stable=verdict.stable, rho=verdict.load,
                critical_types=", ".join(str(m) for m in verdict.critical_types), reason=verdict.reason,
                mean_queue_length=nan, ci_low=nan, ci_high=nan, se=nan, **{f"type_{m + 1}": nan for m in range(n_types)},
                drift=nan, drift_ci_low=nan, drift_ci_high=nan, drifting=None, stationarity="", runs=0, events=0)


def checked_loads_and_window(loads, warmup: float, horizon: float) -> list:
    """`loads` as a list, after checking that they are distinct loads in (0, 1) (stationary
    systems) and that ``0 < warmup < horizon``; errors name the parameter."""
    loads = list(loads)
    if not loads or len(set(loads)) != len(loads):
        raise ParameterError(f"`loads` must be distinct values, at least one (got {loads!r})")
    if not all(0 < load < 1 for load in loads):
        raise ParameterError(f"`loads` must lie in (0, 1) for a stationary system (got {loads!r})")
    check_positive("warmup", warmup)
    check_window("warmup", warmup, "horizon", horizon)
    return loads


def policy_rows(policies: dict, loads, *, seed: int, n_servers: int, n_runs: int, warmup: float,
                horizon: float, return_runs: bool = False):
    """The rows of :func:`compute` (and of L-R-memory's): each policy of `policies` (label ->
    policy) at each load on the Sec. 6 system with an irg(:math:`p^1`) graph of `n_servers`
    servers, checked for stability first (Lemma 10; an unstable point is not simulated), else
    ``n_runs`` runs from empty with time averages over ``[warmup, horizon]``, the drift check
    (:func:`drift_check`) and, where stationarity holds or is established, the mean with its 95%
    interval and standard error. Seeds: ``child_seed(seed, label, index of the load)``.

    With `return_runs`, returns ``(rows, runs)``: ``runs[load, label]`` is the tuple of the run
    means of the mean queue length behind a row's mean (only where the row reports one), for a
    test that checks them (:mod:`qtheory.verdicts`)."""
    loads = list(loads)
    run_means = {}
    base = paper_system("design")
    capacity = float(np.dot(base.type_fractions, base.service_rates))
    v = np.asarray(base.type_fractions)
    # compile or load each kernel once: the forked workers inherit it
    for pol in policies.values():
        stationary_replication(np.random.SeedSequence(0), base, 20, "irg", 0.5, 1.0, n_samples=4, policy=pol)
    rows = []
    for index, load in enumerate(loads):
        system = dataclasses.replace(base, arrival_rate=load * capacity / base.zeta)
        for label, pol in policies.items():
            verdict = policy_stability(system, pol)
            row = _row(load, label, verdict, base.n_types)
            rows.append(row)
            if verdict.stable is False:  # no stationary mean exists: nothing to simulate
                row["stationarity"] = "unstable (Lemma 10)"
                continue
            runs = replicate(stationary_replication, n_runs, child_seed(seed, label, index),
                             args=(system, n_servers, "irg", warmup, horizon), kwargs={"policy": pol, "halves": True},
                             desc=f"{label}, load {load}")
            drift = drift_check([float(v @ r.half_means[0]) for r in runs], [float(v @ r.half_means[1]) for r in runs])
            row.update(drift=drift["drift"], drift_ci_low=drift["drift_ci_low"], drift_ci_high=drift["drift_ci_high"],
                       drifting=drift["drifting"], runs=n_runs, events=int(sum(r.events for r in runs)))
            if verdict.stable is None and drift["drifting"]:
                row["stationarity"] = "not established"
                continue
            row["stationarity"] = ("stable (Lemma 10)" if verdict.stable else
                                   "drift within the margin" if drift["significant"] else "no significant drift")
            means = [float(v @ r.mean_queue_length) for r in runs]
            run_means[load, label] = tuple(means)
            total = mean_ci(means)
            per_type = [mean_ci([r.mean_queue_length[m] for r in runs]) for m in range(base.n_types)]
            row.update(mean_queue_length=float(total.mean), ci_low=float(total.ci_low), ci_high=float(total.ci_high),
                       se=float(total.se), **{f"type_{m + 1}": float(per_type[m].mean) for m in range(base.n_types)})
    return (rows, run_means) if return_runs else rows


def compute(*, seed: int, n_servers: int, loads, n_runs: int, warmup: float, horizon: float) -> ItemResult:
    """L-R-jiq at the notebook's parameters (see the notebook for their meaning).

    Rows: ``load, policy, stable, rho, critical_types, reason, mean_queue_length, ci_low, ci_high, se,
    type_1, type_2, type_3, drift, drift_ci_low, drift_ci_high, drifting, stationarity, runs, events``.

    Each point is checked first (:func:`~qtheory.locality.stability.policy_stability`):
    ``stable`` is True or False by Lemma 10, eq. (5.2) with the policy's d (``rho`` that
    load, ``critical_types`` the types attaining it, 1-based), or None for JIQ (no known
    condition). An unstable point is not simulated: its numbers are NaN, ``runs`` and
    ``events`` 0, ``stationarity`` "unstable (Lemma 10)". The others are simulated: time averages over
    ``[warmup, horizon]`` from an empty start, one irg(:math:`p^1`) graph per run;
    ``mean_queue_length`` is :math:`\\sum_m v_m` times the type-:math:`m` mean, and ``drift``
    (``drifting``) the :func:`drift_check` of that total (for every simulated point; it decides
    only JIQ's, the text names stable points that drift). ``stationarity`` is "stable (Lemma 10)" for a stable point,
    and for JIQ "no significant drift", "drift within the margin" (significant, but below 5% of
    the mean), or "not established" when the drift matters: then the mean columns are NaN too
    (the window average is not a stationary mean).
    """
    loads = checked_loads_and_window(loads, warmup, horizon)
    # the reader's parameters first, in the reader's words
    check_runs(n_runs=n_runs)
    params = dict(seed=seed, n_servers=n_servers, loads=loads, n_runs=n_runs, warmup=warmup, horizon=horizon)
    policies = compared_policies()
    rows = policy_rows(policies, loads, seed=seed, n_servers=n_servers, n_runs=n_runs, warmup=warmup, horizon=horizon)
    base = paper_system("design")
    claim = beats_random_claim(rows, loads, n_servers)
    labels = list(policies)
    table = Table(tuple({"load": load, **{lab: policy_row(rows, load, lab) for lab in labels}} for load in loads),
                  {"load": lambda x: f"{x['load']:g}",
                   **{lab: (lambda x, lab=lab: cell_text(x[lab])) for lab in labels}},
                  caption=f"Mean queue length per server ± 95% CI half-width, Sec. 6 system, irg($p^1$), "
                          f"$N$ = {n_servers}; no mean where the policy is unstable (Lemma 10, eq. (5.2)) or, for "
                          f"JIQ, whose stability condition is not known, where the second half of the averaging "
                          f"window differs significantly from the first")
    missing = [_missing_words(rows, [r["load"] for r in rows if r["policy"] == lab and not reported(r)], lab)
               for lab in labels]
    missing = [m for m in missing if m]
    caption = (f"Mean queue length per server against the load for JIQ, local JSQ(2), GWSQ(2) and random routing on "
               f"the Sec. 6 system with an irg($p^1$) graph of $N$ = {n_servers} servers (95% CIs over {n_runs} runs, "
               f"time averages over [{warmup:g}, {horizon:g}], seed {seed})."
               + (f" Not drawn, having no stationary mean: {'; '.join(missing)}." if missing else "")
               + coincide_words(coinciding_pairs(rows, labels)))
    return ItemResult(ITEM, params, seed, rows, claims=(claim,), findings=(page_finding(rows, loads),),
                      displays=(table,), text=comparison_text(rows, loads, claim.holds),
                      figure={"caption": caption, "policies": labels})


#: two policies' curves coincide at the figure's scale when, at every load where both have a mean,
#: their log means differ by at most this share of the log range the figure spans (the lowest
#: interval end to the highest); the figure check flags curves within 1.5% of the panel's height
COINCIDE_SHARE = 0.03


def coinciding_pairs(rows, labels) -> list[tuple[str, str, float]]:
    """(policy, policy, largest relative difference of their means) for each pair of `labels`
    (the larger over the smaller, less 1) whose curves coincide on the page's log axis
    (:data:`COINCIDE_SHARE`), over the loads where both have a mean (two or more)."""
    drawn = [r for r in rows if reported(r)]
    if not drawn:
        return []
    span = np.log(max(r["ci_high"] for r in drawn) / min(r["ci_low"] for r in drawn if r["ci_low"] > 0))
    loads = sorted({r["load"] for r in drawn})
    pairs = []
    for k, a in enumerate(labels):
        for b in labels[k + 1:]:
            means = [(policy_row(rows, load, a), policy_row(rows, load, b)) for load in loads]
            means = [(x["mean_queue_length"], y["mean_queue_length"]) for x, y in means if reported(x) and reported(y)]
            if len(means) >= 2:
                gap = max(abs(np.log(x / y)) for x, y in means)
                if gap <= COINCIDE_SHARE * span:
                    pairs.append((a, b, float(np.expm1(gap))))
    return pairs


def coincide_words(pairs) -> str:
    """The caption's sentence naming the curves that coincide (empty without any)."""
    return "".join(f" The curves of {a} and {b} coincide at this scale (their means differ by at most "
                   f"{number(100 * gap, digits=2)}% at any load; the table gives both)." for a, b, gap in pairs)


def draw(res: ItemResult):
    """The page's figure from ``res``: mean queue length per server against the load, one line
    per policy with 95% CI bars, on a log scale. A point without a stationary mean (unstable,
    or stationarity not established) is not drawn (the caption names it). Returns the figure."""
    from ...plotting import PALETTE, new_figure
    from ...results import column, select

    fig, axes = new_figure(1, height=3.4)
    ax = axes[0][0]
    for k, lab in enumerate(res.figure["policies"]):
        sel = select(res.rows, policy=lab)  # NaN points break the line and draw nothing
        mean, low, high = (np.array(column(sel, c), dtype=float) for c in ("mean_queue_length", "ci_low", "ci_high"))
        ax.errorbar(column(sel, "load"), mean, yerr=[mean - low, high - mean], fmt="os^v"[k],
                    ls=["-", "--", ":", "-"][k], ms=4, capsize=2, color=PALETTE[k], label=lab)
    ax.set_yscale("log")
    ax.set_xlabel(r"load $\lambda\zeta / \sum_m v_m u_m$")
    ax.set_ylabel("mean queue length per server")
    ax.legend()
    return fig
