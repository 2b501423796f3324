"""The completion hook of the redundancy mechanisms (issue 42): the simulator runs a
mechanism's own completion rule where a service completes, as the exact chain runs its
plain-Python reading, and an impossible answer is a named error, never a wrong run.

The registered mechanisms are covered by tests/redundancy/test_registered_mechanisms.py (the
rule called directly against ``exact_completion``; simulation against the exact chain). Under
cancel-on-start the order of service barely moves the law of Q (exact E[Q] of the M-model at
load 0.3: 0.98253 first come, first served, 0.98258 random order), so the kernel's use of the
hook is shown here under cancel-on-completion, where the chain's state holds every job's type:
a server that serves its highest-numbered type first moves the mean number of jobs of each
type of the M-model by about 0.04, 10-15 standard errors of the runs below."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from numba import njit
from scipy import stats

from qtheory._policy import _ix
from qtheory.errors import RuleError
from qtheory.redundancy.chain import solve_coc_chain
from qtheory.redundancy.mechanisms import MECHANISMS, Mechanism
from qtheory.redundancy.mechanisms.coc import serve_everywhere
from qtheory.redundancy.model import m_model
from qtheory.redundancy.simulation import simulate
from qtheory.runtime import spawn

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = m_model(7 / 12)
LAM = 0.3


@njit(cache=True)
def highest_type_first(s, types_of, head, tail):
    """The server's highest-numbered type with a job (its types are listed in increasing order)."""
    chosen = -1
    i = 0
    j = types_of[_ix(s), 0]
    while j >= 0:
        if head[_ix(j)] != tail[_ix(j)]:
            chosen = j
        i += 1
        j = types_of[_ix(s), _ix(i)]
    return chosen


@dataclass(frozen=True)
class HighestTypeFirst(Mechanism):
    """c.o.c. whose servers serve their highest-numbered type with a job first (FIFO within it)."""

    name: ClassVar[str] = "test-coc-highest-type-first"
    rule = serve_everywhere
    completion = highest_type_first
    cancel_on_start = False
    product_form = False

    def exact_completion(self, server, jobs):
        return [(max(jobs), 1.0)]


def _type_means(chain, n_types):
    means = np.zeros(n_types)
    for state, p in zip(chain.states, chain.probabilities):
        for k in state:
            means[k] += p
    return means


def test_the_simulator_runs_the_mechanisms_completion_rule_as_its_chain_does():
    mechanism = HighestTypeFirst()
    chain = mechanism.exact_chain(SYSTEM, LAM, 11)
    fcfs = solve_coc_chain(SYSTEM, LAM, 11)
    assert chain.pmf[-1] < 1e-5 and fcfs.pmf[-1] < 1e-5          # truncation far below the SE
    exact, first_come = _type_means(chain, SYSTEM.n_types), _type_means(fcfs, SYSTEM.n_types)
    runs = np.array([simulate(SYSTEM, LAM, 200_000, mechanism=mechanism, seed=ss, warmup=2_000).type_means
                     for ss in spawn(42, 12)])
    mean, se = runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    t = float(stats.t.ppf(1 - 0.5e-4 / exact.size, runs.shape[0] - 1))   # two-sided 1e-4 over the types
    assert np.all(np.abs(mean - exact) <= t * se), (mean, exact, se)
    # the test can fail: first come, first served is far outside the same bounds
    assert np.all(np.abs(mean - first_come) > 2 * t * se), (mean, first_come, se)


def test_an_exact_completion_rule_giving_another_type_is_a_named_error():
    @dataclass(frozen=True)
    class Wrong(HighestTypeFirst):
        name: ClassVar[str] = "test-coc-wrong-exact-completion"

        def exact_completion(self, server, jobs):
            return [(max(jobs) + 1, 1.0)]

    with pytest.raises(RuleError, match="exact completion rule of mechanism 'test-coc-wrong-exact-completion'"):
        Wrong().exact_chain(SYSTEM, LAM, 4)


SCRIPT = textwrap.dedent("""
    from dataclasses import dataclass
    from numba import njit
    from qtheory.errors import RuleError
    from qtheory.redundancy.mechanisms import Mechanism
    from qtheory.redundancy.mechanisms.cos import longest_idle
    from qtheory.redundancy.model import m_model
    from qtheory.redundancy.simulation import simulate

    @njit(cache=True)
    def first_type(s, types_of):
        return types_of[s, 0]                         # a job of that type or not

    @njit(cache=True)
    def never(s):
        return -1                                     # idles with jobs waiting

    @dataclass(frozen=True)
    class FirstType(Mechanism):
        name = "test-first-type"
        rule = longest_idle
        completion = first_type

    @dataclass(frozen=True)
    class Never(Mechanism):
        name = "test-never"
        rule = longest_idle
        completion = never

    for mech in (FirstType(), Never()):
        try:
            simulate(m_model(7 / 12), 0.5, 20000, mechanism=mech, seed=1)
            print(mech.name, "ran")
        except RuleError as err:
            print(mech.name, "RuleError", err)
""")


def test_an_impossible_completion_is_a_named_error_naming_the_rule(tmp_path):
    """Run in a fresh interpreter: the kernel reading a FIFO past its tail must not be what
    ends a wrong run."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "QTHEORY_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    script = tmp_path / "impossible_completions.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, f"rc {out.returncode}: {out.stderr[-2000:]}"
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().split("\n"))
    assert lines["test-first-type"].startswith("RuleError") and f"{script}:10" in lines["test-first-type"]
    assert lines["test-never"].startswith("RuleError") and f"{script}:14" in lines["test-never"]
    assert "one of the server's types with a job" in lines["test-never"]
