"""The whole book calibrated on its identities (issue 50, item 2): every page whose records include
an identity, rerun over many seeds, its records judged as the book judges them, and every false
"fails" / "differs" counted against the familywise level the book promises.

    python benchmarks/verdicts/calibrate.py --out benchmarks/verdicts/calibration
    python benchmarks/verdicts/calibrate.py --only U-V L-R-memory --seeds default,1-3 --presets quick
    python benchmarks/verdicts/calibrate.py --out benchmarks/verdicts/calibration --resume   # continue
    python benchmarks/verdicts/calibrate.py --only U-V --presets paper --seeds default,11-20     # U-V as u_v_seeds.py

Run it from a checkout of the commit to calibrate that nobody edits meanwhile (a notebook run
imports the tree's ``qtheory``; a half-edited module fails the run), e.g. ``git worktree add
--detach /tmp/calibrate HEAD``, then from ``/tmp/calibrate``: ``/work/main/.venv/bin/python
benchmarks/verdicts/calibrate.py --out /work/main/benchmarks/verdicts/calibration``. At ``--jobs
1`` the full plan (7 pages at the quick preset and 4 at the paper preset, 20 seeds: 220 runs)
took about 100 minutes on the 2-core machine on 2026-12-07 (about 5 minutes a seed). Keep
``--jobs 1`` on 2 cores: each notebook runs its own two replication workers, and at ``--jobs 2``
U-V's quick run took 164 s instead of 30 s.

The check follows simulation-based calibration (Talts et al. 2018): a statement that is true
by construction (a simulation against the exact chain, product form or closed form of the same
model) must be labelled *holds* / *agrees*, and the book's procedure (:mod:`qtheory.verdicts`:
a page's records are one Holm family at familywise level ``FAMILY_LEVEL``) promises that a
page labels any true statement *fails* / *differs* with probability at most that level.
Rerun over seeds, the share of page-runs with a false label must be consistent with it.

Each run is ``python -m qtheory reproduce --preset P --only PAGE -p seed S --results-dir TMP
--force`` in a process of its own and a temporary results folder (the book's ``results/`` is
never touched). :func:`judge_folder` reads the folder's records (:func:`qtheory.claims.collect`),
judges each page's records as one family (:func:`qtheory.claimpages.judge_pages`, as the verdict
box and the claims page do) and returns every record's label, marking the identities
(:data:`IDENTITIES`) and their false labels. A joint test of a family of rows (Stouffer,
chi-square) whose every row is an identity is an identity too; its rejection is a false
"differs".

Which records are identities
----------------------------
A record counts when its statement is true whatever the paper says: a simulation against an
exact value of the same model (an exact Markov chain, a product form, a closed form), an exact
computation against another exact computation of the same quantity, or an elementary theorem
that follows from one (U-R-jlmud's bound: Jensen's inequality and the M/M/infinity count). A
"fails" / "differs" of such a record is false. Records whose truth is not known in advance are
not counted (their "not resolved" and "differs" / "fails" counts are listed, for information):
a paper's printed values, a limit theorem judged at finite size, an approximation against
simulation, a statement of the paper that its page tests.

Rerun pages (those with an identity whose label can change with the seed) and their identities:

============  ===========  =================================================  ====================================
page          item         records                                            why an identity
============  ===========  =================================================  ====================================
L-F1          L-P-jsqd     local JSQ(d) simulator vs the exact Markov chain   simulation against the exact chain
                           of a tiny graph (one sign-flip test)               of the same model
L-F1          L-P-jsqd     the chain with picks drawn with replacement is     true statement: the simulator draws
                           rejected                                           distinct neighbours (a "fails" is a
                                                                              miss of the test's power)
L-V-graphs    L-P-irg      edge density of every cluster/type pair is p,      E[density] = p exactly on irg(p);
                           within 5 binomial SE at every N                    the notebook's own 5-SE test
L-R-memory    L-R-memory   tiny graph, JSQ(2) with memory: mean queue length  simulation against the exact chain
                           of each type (one record a type)                   of the policy's own reading
R-V           R-V-pf       simulation against the product forms (4), (6)      simulation against a product form
                           (one sign-flip test)                               (Gardner et al.)
R-V           R-V-prop31,  PGF = dynamic programme; (13) and C = (4); the     two exact computations of one
              R-X-13,      epsilon example's mean degree; binom(N, d) types;  quantity, or a definition
              R-P-types,   identical speeds give lambda* = mu                 (deterministic: a false label is a
              R-V-stab                                                        bug, not chance)
U-V           U-V-thm1     random assignment: simulated E[u(q_n)] against     every pool is M/M/infinity under
                           its closed form                                    random assignment
U-V           U-V-thm1     Theorem 1 on the exact chains of a 4-pool system   exact stationary laws against an
                                                                              elementary bound (deterministic)
U-V           U-X-poisson  E[n s_n] = n rho under each policy (and their      the number of tasks is an
                           family's joint tests); the law of n s_n is         M/M/infinity count under every
                           Poisson(n rho) (one sign-flip test)                policy: true by construction
U-V-sub       U-V-sub      simulated mean utilities of JLMU and of "all to    simulation against closed forms
                           pool 2" against their closed forms (joint test)    of the same model
U-R-jlmud     U-R-jlmud    every estimate of E[u(q_n)] is below u(q_n*) up    Theorem 1 is Jensen's inequality
                           to its 95% CI                                      plus the M/M/infinity count
                                                                              (U-X-poisson); the notebook's own
                                                                              one-sided test per pair
============  ===========  =================================================  ====================================

Internal checks not counted (:data:`NOT_COUNTED`), and why: L-P-gwsq's mean path against the
ODE (3.7) (the mean of the N-system differs from the ODE by O(1/N)); L-V-thm2's N^(-1/2)
slope, L-V-thm7's ratio at level 7, R-V's observed orders of convergence, L-V-lemma10's growth
rate at N = 300 against the ODE (limits judged at finite size); L-V-lemma2's busy fractions
against (3.1) (the N -> infinity load: one irg graph of N servers has its own loads, off by
O(1/N); on 300 runs at N = 1000 the type-3 fraction's t reached -4.3); L-V-thm3's
and L-V-thm8's window graphs, L-P-irg's degree ratios, L-R-jiq's JIQ below random routing,
U-R-jlmud's monotonicity in d and gap falling in n (true of the model as far as we know, not
identities); L-R-finite's and L-R-graph's approximations against simulation and their targets.
Deterministic identities on pages that use no seed or whose identities cannot change with it
(L-V-lemma1's enumeration, L-V-lemma10's closed form, L-V-prop1's algebra, R-F3ab's (13) = (4),
U-F3's breakpoints, L-X-homog) are not rerun: their labels are the same at every seed. R-T1's
simulators against the product forms (R-P-coc, R-P-cos) are identities, but they are shown
as a table and carry no judged record. A check of a rerun page that neither list names is
reported as *unclassified*, so that this table follows the notebooks.

Pages rerun at the paper preset too (:data:`PAPER_PAGES`): those whose identities are decided
by sizes that the quick preset changes (L-V-graphs' ``n_list``, R-V's ``pf_events``, U-V's
``base_horizon``, ``poisson_n`` and ``poisson_horizon``, U-V-sub's ``sim_horizon``). Every
estimate the book judges carries at least 30 run means at both presets
(:data:`qtheory.verdicts.MIN_RUNS`), so L-F1's and L-R-memory's tiny-graph chains (30 runs of
the same length at both presets) and U-R-jlmud (no quick preset) are rerun at the quick preset
only.

The report
----------
``--out PATH`` writes ``PATH.json`` and ``PATH.md`` after every run (an interrupted calibration
leaves the report of what it did; ``--resume`` continues it): the date, commit, presets and
seeds, every run (page, preset, seed, seconds, every record's label and p-value), and per page
and preset, per record, the number of false labels, of "not resolved" and of unadjusted
p-values below the level over the seeds. The total number of page-runs with a false label is
compared with ``FAMILY_LEVEL`` times the page-runs: the count at most allowed at 95% confidence
(binomial with the promised rate), the one-sided binomial p-value of the count, and the
Clopper-Pearson 95% upper bound of the rate. Page-runs of different seeds are independent; the
quick and paper runs of a page at one seed nearly so (different sizes; their first runs may share
streams). The total counts every false label, also those of qualitative records decided by a
notebook's own test (L-P-irg's 5 standard errors, U-R-jlmud's 95% intervals, L-P-jsqd's power),
whose error rates the Holm family does not control: the book's promise is about any label on a
page. The per-record table tells them apart (they have no p-value).

The seeds (``--seeds``, default ``default,1-19``): ``default`` is each notebook's own seed (the
book's run), then the listed ones. The command exits 1 when a run at a page's default seed has
a false label, when the total exceeds what the level allows at 95% confidence, or when a run
failed (a crash is no calibration).

``benchmarks/verdicts/u_v_seeds.py`` keeps its report of U-X-poisson's statistics over seeds in
detail (largest |t|, Holm thresholds, the joint statistics); this command gives U-V's labels.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from qtheory.claimpages import judge_pages, page_of  # noqa: E402
from qtheory.claims import collect  # noqa: E402
from qtheory.verdicts import FAMILY_LEVEL  # noqa: E402

#: confidence of the statement "the total is consistent with the familywise level"
CONFIDENCE = 0.95
#: the labels that say a statement is false
FALSE_LABELS = ("fails", "differs")


@dataclass(frozen=True)
class Identity:
    """Records of one item whose statement is true by construction (or, in :data:`NOT_COUNTED`,
    an internal check that is not, and why).

    Attributes
    ----------
    item : str
        Manifest ID of the records.
    text : str
        A regular expression searched in the record's text ("" matches every record of `item`).
    why : str
        Why the statement is (or is not) true by construction.
    """

    item: str
    text: str
    why: str

    def matches(self, item: str, text: str) -> bool:
        return item == self.item and re.search(self.text, text) is not None


_EXACT_CHAIN = "simulation against the exact Markov chain of the same model"
_DETERMINISTIC = "two exact computations of one quantity (deterministic: a false label is a bug, not chance)"

#: the identities of the rerun pages (see the module doc's table)
IDENTITIES = (
    Identity("L-P-jsqd", r"simulator vs exact Markov chain", _EXACT_CHAIN),
    Identity("L-P-jsqd", r"chain with picks drawn with replacement is rejected",
             "true statement (the simulator draws distinct neighbours); a 'fails' is a miss of the test's power"),
    Identity("L-P-irg", r"edge density of every cluster/type pair",
             "E[density] = p exactly on irg(p); the notebook's own 5-SE test of every pair"),
    Identity("L-R-memory", r"simulated against the exact chain", _EXACT_CHAIN + " (the policy's own reading)"),
    Identity("R-V-pf", r"simulation against the product form",
             "simulation against the product forms (4) and (6) (Gardner et al.)"),
    Identity("R-V-prop31", r"generating function equals the dynamic programme", _DETERMINISTIC),
    Identity("R-X-13", r"agree with the product form \(4\)", _DETERMINISTIC),
    Identity("R-P-types", r"", "a definition (deterministic)"),
    Identity("R-V-stab", r"identical speeds", "a definition: (3) with identical speeds (deterministic)"),
    Identity("U-V-thm1", r"random assignment", "every pool is an M/M/infinity queue under random assignment: "
             "simulation against a closed form"),
    Identity("U-V-thm1", r"exact chains", "exact stationary laws against an elementary bound (Jensen and the "
             "M/M/infinity count; deterministic)"),
    Identity("U-X-poisson", r"", "the number of tasks is an M/M/infinity count under every policy: true by "
             "construction"),
    Identity("U-V-sub", r"against their closed forms", "simulation against closed forms of the same model"),
    Identity("U-R-jlmud", r"below \$u\(q_n\^\*\)\$", "Theorem 1 is Jensen's inequality and the M/M/infinity count "
             "(U-X-poisson); the notebook's own one-sided 95% test of each pair"),
)

#: internal checks that are not identities (a finite-size look at a limit, an approximation, a
#: property of the model that no theorem gives), and why
NOT_COUNTED = (
    Identity("L-P-gwsq", r"mean path against the ODE", "the mean of the N-system differs from the ODE by O(1/N)"),
    Identity("L-V-thm2", r"", "a rate fitted at finite N"),
    Identity("L-V-thm3", r"window graph", "a property of the window graph, not a theorem"),
    Identity("L-V-lemma1", r"enumeration of the 15 server sets", _DETERMINISTIC + "; page not rerun"),
    Identity("L-V-lemma2", r"busy fraction", "(3.1) is the N -> infinity load; one irg graph has its own loads"),
    Identity("L-V-lemma10", r"tends to the supremum", _DETERMINISTIC + "; page not rerun"),
    Identity("L-V-lemma10", r"growth rate", "the ODE's rate at N = 300 (a limit at finite size)"),
    Identity("L-V-prop1", r"", "algebra, deterministic for each random system; page not rerun"),
    Identity("L-V-thm7", r"", "the ratio at level 7 of a limit (deterministic)"),
    Identity("L-P-irg", r"degree ratios", "random at each N; no theorem says they fall at every step"),
    Identity("L-V-thm8", r"window graph", "a property of the window graph, not a theorem"),
    Identity("L-R-finite", r"", "approximations against simulation, and a speed"),
    Identity("L-R-jiq", r"", "a comparison of policies, not a theorem"),
    Identity("L-R-graph", r"", "approximations against simulation"),
    Identity("R-F3ab", r"", _DETERMINISTIC + "; page not rerun (no seed)"),
    Identity("R-V-appD", r"observed order", "an order of convergence observed at two loads"),
    Identity("R-V-cor31", r"observed order", "an order of convergence observed at two loads"),
    Identity("R-V-thm31", r"observed order", "an order of convergence observed at two loads"),
    Identity("R-V-thm32", r"observed order", "an order of convergence observed at two loads"),
    Identity("U-F3", r"", _DETERMINISTIC + "; page not rerun (no seed)"),
    Identity("U-R-jlmud", r"does not decrease in \$d\$", "true of the model as far as we know; no theorem"),
    Identity("U-R-jlmud", r"decreases strictly in \$n\$", "Theorem 2 is asymptotic; no theorem at each n"),
)

#: the pages rerun over seeds: those with an identity whose label can change with the seed
PAGES = ("L-F1", "L-V-graphs", "L-R-memory", "R-V", "U-V", "U-V-sub", "U-R-jlmud")

#: pages rerun at the paper preset too, and the sizes of their identities that the quick preset
#: changes (L-F1's and L-R-memory's tiny-graph chains run 30 x 20000 and 30 x 800 time units at both
#: presets, so their quick runs calibrate the paper's too)
PAPER_PAGES = {
    "L-V-graphs": "n_list adds N = 10000",
    "R-V": "pf_events 1e5 -> 3.3e6 per run, 30 runs at both (the product-form test)",
    "U-V": "base_horizon 40 -> 170, poisson_n 10 -> 50, poisson_horizon 600 -> 1350; 30 runs at both",
    "U-V-sub": "sim_horizon 3000 -> 6700, 30 runs at both",
}


# -- judging a results folder -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RecordLabel:
    """One record of a page (or one joint test of a family of its rows) with its label.

    Attributes
    ----------
    key : str
        A name of the record that stays the same over seeds: its item, its text with every number
        replaced by ``#``, and its rank among the page's records of the same name.
    item, text, category : str
        As in :class:`qtheory.claims.Claim`; ``category`` is ``"joint"`` for a joint test.
    label : str
        The label of the page's family judgement (agrees / differs / not resolved; holds / fails
        / not resolved; the category of a reconstruction or erratum).
    identity : str
        Why the record is an identity ("" if it is not one).
    p : float or None
        The p-value in the page's Holm family (None: a deterministic or qualitative record).
    """

    key: str
    item: str
    text: str
    category: str
    label: str
    identity: str = ""
    p: float | None = None

    @property
    def false(self) -> bool:
        """Whether the label says that a true statement is false."""
        return bool(self.identity) and self.label in FALSE_LABELS

    @property
    def not_resolved(self) -> bool:
        return self.label == "not resolved"


@dataclass(frozen=True)
class PageLabels:
    """The labels of one page's records in one results folder (:func:`judge_folder`)."""

    page: str
    records: tuple[RecordLabel, ...]
    unclassified: tuple[str, ...] = field(default=())

    @property
    def false(self) -> list[RecordLabel]:
        return [r for r in self.records if r.false]

    @property
    def identities(self) -> list[RecordLabel]:
        return [r for r in self.records if r.identity]


def _key_text(text: str) -> str:
    return re.sub(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "#", " ".join(text.split()))


def _identity(item: str, text: str, identities) -> str:
    return next((i.why for i in identities if i.matches(item, text)), "")


def judge_folder(results: str | os.PathLike, identities=IDENTITIES, not_counted=NOT_COUNTED) -> dict[str, PageLabels]:
    """Every page's records in the results folder `results`, judged as the book judges them (each
    page one Holm family, :func:`qtheory.claimpages.judge_pages`), with its identities marked.

    A record is an identity when an entry of `identities` matches its item and text; a joint test
    of a family is one when every record of the family is. A check that neither `identities` nor
    `not_counted` names is listed in :attr:`PageLabels.unclassified`.

    Returns ``{page: PageLabels}`` in the order of the folder's records.
    """
    claims = collect(results)
    verdicts, judgements = judge_pages(claims)
    by_page: dict[str, list] = {}
    for c in claims:
        by_page.setdefault(page_of(c.item), []).append(c)
    out = {}
    for page, records in by_page.items():
        seen: dict[str, int] = {}
        labels, unclassified, family_identity = [], [], {}
        for c in records:
            v = verdicts[id(c)]
            name = f"{c.item}: {_key_text(c.text)}"
            seen[name] = seen.get(name, 0) + 1
            why = _identity(c.item, c.text, identities)
            if c.family:
                family_identity[c.family] = family_identity.get(c.family, True) and bool(why)
            if c.category == "check" and not why and not _identity(c.item, c.text, not_counted):
                unclassified.append(f"{c.item}: {c.text}")
            p = c.p_value if c.tested else (v.comparison.p if v.comparison is not None and v.comparison.se > 0 else None)
            labels.append(RecordLabel(f"{name} [{seen[name]}]", c.item, c.text, c.category, v.label, why, p))
        for t in judgements[page].joint:
            why = "a joint test of a family of identities" if family_identity.get(t.family) else ""
            labels.append(RecordLabel(f"joint {t.kind}: {t.family}", page, f"{t.family} (jointly, {t.kind})", "joint",
                                      "differs" if t.rejected else "no joint difference", why, t.p))
        out[page] = PageLabels(page, tuple(labels), tuple(unclassified))
    return out


# -- the familywise level over many page-runs ----------------------------------------------------------------------

def consistency(count: int, runs: int, level: float = FAMILY_LEVEL, confidence: float = CONFIDENCE) -> dict:
    """Whether `count` page-runs with a false label among `runs` are consistent with a rate of at
    most `level`: the expected count, the count allowed at `confidence` (the `confidence` quantile
    of Binomial(`runs`, `level`)), the one-sided p-value P(X >= count), the Clopper-Pearson upper
    bound of the rate at `confidence`, and ``exceeds`` (count above the allowed one)."""
    from scipy import stats

    if runs == 0:
        return dict(count=count, runs=0, expected=0.0, allowed=0, p_value=1.0, rate_upper=1.0, exceeds=False)
    allowed = int(stats.binom.ppf(confidence, runs, level))
    p_value = float(stats.binom.sf(count - 1, runs, level)) if count > 0 else 1.0
    upper = float(stats.beta.ppf(confidence, count + 1, runs - count)) if count < runs else 1.0
    return dict(count=count, runs=runs, expected=round(level * runs, 3), allowed=allowed, p_value=round(p_value, 5),
                rate_upper=round(upper, 5), exceeds=count > allowed)


# -- running pages over seeds --------------------------------------------------------------------------------------

def default_seed(page: str, preset: str) -> int:
    """The seed of `page` in the book's run at `preset` (the preset's, else the notebook's own)."""
    from qtheory.notebooks import notebook_parameters, notebook_path
    from qtheory.presets import plan

    run = plan(preset, [page])[0]
    return int(run.parameters.get("seed", notebook_parameters(notebook_path(page))["seed"]))


def parse_seeds(text: str) -> list[int | str]:
    """``"default,1-19"`` -> ``["default", 1, 2, ..., 19]``."""
    out: list[int | str] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "default":
            out.append("default")
            continue
        a, sep, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if sep else [int(a)]
    return out


def run_page(page: str, preset: str, seed: int, *, timeout: float, workers: int | None = None) -> dict:
    """Run `page` at `preset` and `seed` in a temporary results folder and judge its records:
    ``outcome`` ("ran" or "failed"), ``seconds``, ``message`` and the page's :class:`PageLabels`."""
    with tempfile.TemporaryDirectory(prefix="qtheory-calibrate-") as tmp:
        cmd = [sys.executable, "-m", "qtheory", "reproduce", "--preset", preset, "--only", page, "-p", "seed",
               str(seed), "--results-dir", tmp, "--force"]
        if workers:
            cmd += ["--workers", str(workers)]
        env = {**os.environ, "PYTHONWARNINGS": "ignore",
               # the kernels import this tree's qtheory (a calibration from a worktree tests its commit)
               "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
            rc, err = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired:
            rc, err = -1, "time limit reached"
        seconds = round(time.perf_counter() - t0, 1)
        if rc != 0:
            lines = [ln for ln in err.strip().splitlines() if ln.strip()]
            return dict(outcome="failed", seconds=seconds, message=(lines[-1] if lines else f"exit {rc}")[-400:],
                        labels=None)
        pages = judge_folder(tmp)
    return dict(outcome="ran", seconds=seconds, message="", labels=pages.get(page, PageLabels(page, ())))


# -- the report ----------------------------------------------------------------------------------------------------

def _entry(page: str, preset: str, seed: int, is_default: bool, result: dict, catalogue: list[dict]) -> dict:
    """A run of the report: its records' labels and p-values by their index in the page's `catalogue`
    (which gains the records it did not hold)."""
    entry = dict(page=page, preset=preset, seed=seed, default=is_default, outcome=result["outcome"],
                 seconds=result["seconds"], message=result["message"])
    labels: PageLabels | None = result["labels"]
    if labels is None:
        return entry
    index = {r["key"]: k for k, r in enumerate(catalogue)}
    entry.update(labels={}, p={}, false=[], unclassified=list(labels.unclassified))
    for r in labels.records:
        if r.key not in index:
            index[r.key] = len(catalogue)
            catalogue.append(dict(key=r.key, item=r.item, text=r.text, category=r.category, identity=r.identity))
        k = str(index[r.key])
        entry["labels"][k] = r.label
        if r.p is not None:
            entry["p"][k] = float(f"{r.p:.4g}")
        if r.false:
            entry["false"].append(k)
    return entry


def summarise(report: dict) -> dict:
    """Per page and preset, per record: false labels, "not resolved", p-values below the level; the
    total of page-runs with a false label against the familywise level."""
    level = report["family_level"]
    pages = {}
    for run in report["runs"]:
        name = f"{run['page']} {run['preset']}"
        s = pages.setdefault(name, dict(runs=0, failed=0, with_false=0, default_false=0, records={}))
        if run["outcome"] != "ran":
            s["failed"] += 1
            continue
        s["runs"] += 1
        s["with_false"] += bool(run["false"])
        s["default_false"] += bool(run["false"]) and run["default"]
        catalogue = report["records"][name]
        for k, label in run["labels"].items():
            rec = s["records"].setdefault(k, dict(text=catalogue[int(k)]["text"], item=catalogue[int(k)]["item"],
                                                  identity=catalogue[int(k)]["identity"], runs=0, false=0,
                                                  not_resolved=0, differs=0, below_level=0, smallest_p=None))
            rec["runs"] += 1
            rec["false"] += k in run["false"]
            rec["not_resolved"] += label == "not resolved"
            rec["differs"] += label in FALSE_LABELS
            p = run["p"].get(k)
            if p is not None:
                rec["below_level"] += p < level
                rec["smallest_p"] = p if rec["smallest_p"] is None else min(rec["smallest_p"], p)
    total_runs = sum(s["runs"] for s in pages.values())
    total_false = sum(s["with_false"] for s in pages.values())
    return dict(pages=pages, total=consistency(total_false, total_runs, level, report["confidence"]),
                default_false=[f"{r['page']} {r['preset']} seed {r['seed']}" for r in report["runs"]
                               if r["outcome"] == "ran" and r["default"] and r["false"]],
                failed=[f"{r['page']} {r['preset']} seed {r['seed']}: {r['message']}" for r in report["runs"]
                        if r["outcome"] != "ran"],
                unclassified=sorted({f"{r['page']}: {u}" for r in report["runs"] if r["outcome"] == "ran"
                                     for u in r["unclassified"]}))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: dict) -> str:
    s = report["summary"]
    t = s["total"]
    done = len(report["runs"])
    lines = [
        "# The book calibrated on its identities", "",
        f"{report['date']}, commit {report['commit']}; presets {', '.join(report['presets'])}, seeds "
        f"{report['seeds']} (`default`: each notebook's own seed); command `{report['command']}`; {done} of "
        f"{report['planned']} planned runs done. Each page's records judged as the book judges them (one Holm "
        f"family per page at familywise level {report['family_level']:g}); an identity is a statement true by "
        "construction (see `benchmarks/verdicts/calibrate.py`), so its *fails* / *differs* is false.", "",
        f"**{t['count']} of {t['runs']} page-runs have a false label** (expected at most "
        f"{report['family_level']:g} × {t['runs']} = {t['expected']:g}; at {report['confidence']:.0%} confidence at "
        f"most {t['allowed']} allowed; one-sided binomial p = {t['p_value']:.3g}; Clopper-Pearson "
        f"{report['confidence']:.0%} upper bound of the rate {t['rate_upper']:.3g}): "
        + ("**more than the level allows**." if t["exceeds"] else "consistent with the level.")
        + (f" False labels at a page's default seed: {', '.join(s['default_false'])}." if s["default_false"]
           else " No false label at any page's default seed."), "",
        "| page | preset | runs | with a false label | at the default seed | failed runs |", "|---|---|---|---|---|---|"]
    for name, p in s["pages"].items():
        page, preset = name.rsplit(" ", 1)
        lines.append(f"| {page} | {preset} | {p['runs']} | {p['with_false']} | {p['default_false']} | {p['failed']} |")
    lines += ["", "## Identities", "",
              "Per record, over the runs: false labels, *not resolved*, and unadjusted p-values below "
              f"{report['family_level']:g} (expected about {report['family_level']:g} of the runs for a calibrated test), "
              "with the smallest p-value.", "",
              "| page | preset | record | why an identity | false | not resolved | p below level | smallest p |",
              "|---|---|---|---|---|---|---|---|"]
    for name, p in s["pages"].items():
        page, preset = name.rsplit(" ", 1)
        for rec in p["records"].values():
            if rec["identity"]:
                small = "" if rec["smallest_p"] is None else f"{rec['smallest_p']:.3g}"
                below = "" if rec["smallest_p"] is None else str(rec["below_level"])
                lines.append(f"| {page} | {preset} | {_cell(rec['item'] + ': ' + rec['text'])} | {_cell(rec['identity'])} "
                             f"| {rec['false']} / {rec['runs']} | {rec['not_resolved']} | {below} | {small} |")
    others = [f"| {name.rsplit(' ', 1)[0]} | {name.rsplit(' ', 1)[1]} | {_cell(rec['item'] + ': ' + rec['text'])} | "
              f"{rec['not_resolved']} / {rec['runs']} | {rec['differs']} / {rec['runs']} |"
              for name, p in s["pages"].items() for rec in p["records"].values()
              if not rec["identity"] and (rec["not_resolved"] or rec["differs"])]
    lines += ["", "## Other records (truth not known in advance; for information)", ""]
    lines += (["Their *not resolved* and *differs* / *fails* counts over the runs:", "",
               "| page | preset | record | not resolved | differs / fails |", "|---|---|---|---|---|", *others]
              if others else ["None of them was *not resolved*, *differs* or *fails* in any run."])
    if s["unclassified"]:
        lines += ["", "## Unclassified checks", "",
                  "Internal checks of the rerun pages that `IDENTITIES` and `NOT_COUNTED` do not name (not counted):", ""]
        lines += [f"- {_cell(u)}" for u in s["unclassified"]]
    if s["failed"]:
        lines += ["", "## Failed runs", ""] + [f"- {_cell(f)}" for f in s["failed"]]
    return "\n".join(lines) + "\n"


def _write(out: Path, report: dict) -> None:
    report["summary"] = summarise(report)
    out.parent.mkdir(parents=True, exist_ok=True)
    for suffix, text in ((".json", json.dumps(report, indent=1) + "\n"), (".md", markdown(report))):
        tmp = out.with_suffix(suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out.with_suffix(suffix))


def plan_runs(pages, presets, seeds) -> list[tuple[str, str, int, bool]]:
    """``(page, preset, seed, is_default)`` of every run: seed by seed over the pages, so that a
    calibration cut short still covers every page; a page's default seed first."""
    jobs, seen = [], set()
    for s in seeds:
        for preset in presets:
            for page in pages:
                if preset == "paper" and page not in PAPER_PAGES:
                    continue
                seed = default_seed(page, preset) if s == "default" else int(s)
                if (page, preset, seed) in seen:
                    continue
                seen.add((page, preset, seed))
                jobs.append((page, preset, seed, s == "default"))
    return jobs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", default=None, help=f"pages (default: {' '.join(PAGES)})")
    parser.add_argument("--presets", nargs="+", choices=("quick", "paper"), default=["quick", "paper"],
                        help="quick: every page; paper: the pages of PAPER_PAGES (default: both)")
    parser.add_argument("--seeds", default="default,1-19",
                        help="seeds, e.g. default,1-19 (default: each notebook's own seed and 1-19)")
    parser.add_argument("--jobs", type=int, default=1, help="pages run at the same time (default 1; 2 cores)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run (default 3600)")
    parser.add_argument("--out", default=None, help="report path without suffix (.json and .md are written)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the report --out of an interrupted calibration (same commit, presets and "
                             "seeds): the runs it holds are kept, not rerun")
    args = parser.parse_args(argv)
    pages = list(args.only or PAGES)
    unknown = [p for p in pages if p not in PAGES]
    if unknown:
        parser.error(f"--only: {', '.join(unknown)} not among the rerun pages {', '.join(PAGES)}")
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1 (got {args.jobs})")
    presets = [p for p in ("quick", "paper") if p in args.presets]
    jobs = plan_runs(pages, presets, parse_seeds(args.seeds))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown (not a git checkout)"
    command = "python benchmarks/verdicts/calibrate.py " + " ".join(argv if argv is not None else sys.argv[1:])
    report = dict(what="every rerun page's records judged as the book judges them, per seed; false labels of "
                       "identities against the familywise level",
                  command=command.strip(), date=datetime.date.today().isoformat(), commit=commit,
                  family_level=FAMILY_LEVEL, confidence=CONFIDENCE, presets=presets, seeds=args.seeds,
                  pages=pages, planned=len(jobs), records={}, runs=[])
    if args.resume:
        if not args.out or not Path(args.out).with_suffix(".json").exists():
            parser.error("--resume needs the report of an earlier calibration as --out")
        old = json.loads(Path(args.out).with_suffix(".json").read_text(encoding="utf-8"))
        for key in ("commit", "presets", "seeds", "pages", "planned", "family_level"):
            if old[key] != report[key]:
                parser.error(f"--resume: the report's {key} is {old[key]!r}, this calibration's {report[key]!r} "
                             "(a report holds one commit's runs of one plan)")
        report.update(records=old["records"], runs=old["runs"], command=old["command"])
        if old["date"] != report["date"]:
            report["date"] = f"{old['date'].split(' to ')[0]} to {report['date']}"
    done = {(r["page"], r["preset"], r["seed"]) for r in report["runs"]}
    todo = [j for j in jobs if j[:3] not in done]
    workers = None
    if args.jobs > 1:
        from qtheory.reproduce import default_notebook_workers

        workers = default_notebook_workers(args.jobs)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_page, page, preset, seed, timeout=args.timeout, workers=workers):
                   (page, preset, seed, is_default) for page, preset, seed, is_default in todo}
        for k, future in enumerate(as_completed(futures), len(jobs) - len(todo) + 1):
            page, preset, seed, is_default = futures[future]
            result = future.result()
            catalogue = report["records"].setdefault(f"{page} {preset}", [])
            entry = _entry(page, preset, seed, is_default, result, catalogue)
            report["runs"].append(entry)
            false = [catalogue[int(i)]["key"] for i in entry.get("false", [])]
            print(f"[{k}/{len(jobs)}] {page} {preset} seed {seed}: {result['outcome']} ({result['seconds']} s)"
                  + (f"; false: {'; '.join(false)}" if false else "")
                  + (f" {result['message'][-160:]}" if result["message"] else ""), file=sys.stderr, flush=True)
            if args.out:  # after every run: an interrupted calibration leaves the report of what it did
                _write(Path(args.out), report)
    report["summary"] = summarise(report)
    s = report["summary"]
    t = s["total"]
    print(f"{t['count']} of {t['runs']} page-runs with a false label (expected {t['expected']:g}, at most "
          f"{t['allowed']} allowed at {CONFIDENCE:.0%}; one-sided binomial p = {t['p_value']:.3g})"
          + (f"; false at the default seed: {', '.join(s['default_false'])}" if s["default_false"] else "")
          + (f"; {len(s['failed'])} failed runs" if s["failed"] else "")
          + (f"; unclassified checks: {'; '.join(s['unclassified'])}" if s["unclassified"] else ""))
    return 1 if (s["default_false"] or t["exceeds"] or s["failed"]) else 0


if __name__ == "__main__":
    sys.exit(main())
