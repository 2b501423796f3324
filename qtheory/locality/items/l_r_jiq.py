"""L-R-jiq: join-the-idle-queue with data locality on the Sec. 6 system (beyond the paper).

:func:`compute` simulates JIQ (:class:`~qtheory.locality.policies.JIQ`: an idle compatible
server if there is one, else a uniformly chosen compatible server), local JSQ(2) (Sec. 2.2),
GWSQ(2) (Algorithm 1) and random routing (local JSQ(1)) on the Sec. 6 system with an
irg(:math:`p^1`) graph over a range of loads, and returns the stationary mean queue length per
server with 95% intervals over the runs. No paper states a value for JIQ: the one record is an
internal check (:func:`beats_random_claim`); :func:`loads_below` says at which loads one policy
is significantly below another.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...claims import Claim
from ...display import Table, listing
from ...errors import ParameterError
from ...results import ItemResult
from ...runtime import child_seed, replicate
from ...stats import mean_ci
from ..experiments import stationary_replication
from ..model import paper_system
from ..policies import GWSQ, JIQ, LocalJSQ

__all__ = ["ITEM", "compared_policies", "compute", "policy_row", "loads_below", "beats_random_claim", "comparison_text"]

ITEM = "L-R-jiq"
RANDOM = "random (JSQ(1))"


def compared_policies() -> dict:
    """The compared policies by label, in the table's column order."""
    return {"JIQ": JIQ(), "local JSQ(2)": LocalJSQ(d=2), "GWSQ(2)": GWSQ(d=2), RANDOM: LocalJSQ(d=1)}


def policy_row(rows, load: float, policy: str) -> dict:
    """The row of `policy` at `load`."""
    for r in rows:
        if r["load"] == load and r["policy"] == policy:
            return r
    raise ParameterError(f"no row for policy {policy!r} at `load` = {load!r}")


def loads_below(rows, loads, lower: str, upper: str) -> list:
    """The loads at which `lower`'s mean queue length is significantly below `upper`'s: the 95%
    interval of `lower` lies entirely below that of `upper` (``high < low``)."""
    return [load for load in loads if policy_row(rows, load, lower)["high"] < policy_row(rows, load, upper)["low"]]


def beats_random_claim(rows, loads, n_servers: int) -> Claim:
    """Internal check: JIQ's mean queue length is below random routing's at every load, with
    disjoint 95% intervals."""
    below = loads_below(rows, loads, "JIQ", RANDOM)
    return Claim(item=ITEM, text="JIQ's mean queue length is below random routing's at every load (95% CIs disjoint)",
                 category="check", holds=len(below) == len(list(loads)), evidence=f"loads {listing(loads, conjunction='and')}, $N = {n_servers}$")


def comparison_text(rows, loads, beats_random: bool) -> str:
    """The page's summary of the comparison (Markdown), from the rows."""
    ratios = {load: policy_row(rows, load, "JIQ")["mean_queue_length"]
              / policy_row(rows, load, "local JSQ(2)")["mean_queue_length"] for load in loads}
    better = loads_below(rows, loads, "JIQ", "local JSQ(2)")
    worse = loads_below(rows, loads, "local JSQ(2)", "JIQ")

    def at(which: list) -> str:
        if not which:
            return "at no load"
        return f"at load{'s' if len(which) > 1 else ''} {listing(which, conjunction='and')}"
    return "\n".join([f"- JIQ below random routing at every load: **{'yes' if beats_random else 'no'}**.",
                      "- JIQ / local JSQ(2) mean queue length: "
                      + ", ".join(f"{ratios[load]:.2f} at load {load:g}" for load in loads) + ".",
                      f"- JIQ is significantly better than local JSQ(2) {at(better)} and worse {at(worse)} "
                      "(95% CIs disjoint)."])


def compute(*, seed: int, n_servers: int, loads, n_runs: int, warmup: float, horizon: float) -> ItemResult:
    """L-R-jiq at the notebook's parameters (see the notebook for their meaning).

    Rows: ``load, policy, mean_queue_length, low, high, se, type_1, type_2, type_3, runs,
    events``: time averages over ``[warmup, horizon]`` from an empty start, one irg(:math:`p^1`)
    graph per run; ``mean_queue_length`` is :math:`\\sum_m v_m` times the type-:math:`m` mean.
    """
    loads = list(loads)
    if not loads or len(set(loads)) != len(loads):
        raise ParameterError(f"`loads` must be distinct values, at least one (got {loads!r})")
    if not all(0 < load < 1 for load in loads):
        raise ParameterError(f"`loads` must lie in (0, 1) for a stationary system (got {loads!r})")
    if not 0 < warmup < horizon:
        raise ParameterError(f"`warmup` must be in (0, horizon) (got warmup = {warmup!r}, horizon = {horizon!r})")
    params = dict(seed=seed, n_servers=n_servers, loads=loads, n_runs=n_runs, warmup=warmup, horizon=horizon)
    base = paper_system("design")
    capacity = float(np.dot(base.type_fractions, base.service_rates))
    v = np.asarray(base.type_fractions)
    policies = compared_policies()
    # compile or load each kernel once: the forked workers inherit it
    for pol in policies.values():
        stationary_replication(np.random.SeedSequence(0), base, 20, "irg", 0.5, 1.0, n_samples=3, policy=pol)
    rows = []
    for load in loads:
        system = dataclasses.replace(base, arrival_rate=load * capacity / base.zeta)
        for label, pol in policies.items():
            runs = replicate(stationary_replication, n_runs, child_seed(seed, label, loads.index(load)),
                             args=(system, n_servers, "irg", warmup, horizon), kwargs={"policy": pol},
                             desc=f"{label}, load {load}")
            total = mean_ci([float(v @ r.mean_queue_length) for r in runs])
            per_type = [mean_ci([r.mean_queue_length[m] for r in runs]) for m in range(base.n_types)]
            rows.append(dict(load=load, policy=label, mean_queue_length=float(total.mean), low=float(total.ci_low),
                             high=float(total.ci_high), se=float(total.se),
                             **{f"type_{m + 1}": float(per_type[m].mean) for m in range(base.n_types)},
                             runs=n_runs, events=int(sum(r.events for r in runs))))
    claim = beats_random_claim(rows, loads, n_servers)
    labels = list(policies)
    table = Table(tuple({"load": load, **{lab: policy_row(rows, load, lab) for lab in labels}} for load in loads),
                  {"load": lambda x: f"{x['load']:g}",
                   **{lab: (lambda x, lab=lab: f"{x[lab]['mean_queue_length']:.3f} ± "
                                               f"{(x[lab]['high'] - x[lab]['low']) / 2:.3f}") for lab in labels}},
                  caption=f"Mean queue length per server ± 95% CI half-width, Sec. 6 system, irg($p^1$), "
                          f"$N$ = {n_servers}")
    caption = (f"Mean queue length per server against the load for JIQ, local JSQ(2), GWSQ(2) and random routing on "
               f"the Sec. 6 system with an irg($p^1$) graph of $N$ = {n_servers} servers (95% CIs over {n_runs} runs, "
               f"time averages over [{warmup:g}, {horizon:g}], seed {seed}).")
    return ItemResult(ITEM, params, seed, rows, claims=(claim,), displays=(table,),
                      text=comparison_text(rows, loads, claim.holds),
                      figure={"caption": caption, "policies": labels})
