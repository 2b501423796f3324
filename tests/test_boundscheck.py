"""The debug switch QTHEORY_BOUNDSCHECK=1 compiles every kernel with bounds checking (issue 42): an
index out of range raises IndexError instead of reading wild memory, and every registered policy
and mechanism of the three papers runs once under it without one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests._kernel_dirs import stable_dir, write_if_changed

ROOT = Path(__file__).resolve().parents[1]

RUN_EVERY_POLICY = textwrap.dedent("""
    import numpy as np
    from numba import njit
    import qtheory
    from qtheory.locality.policies import _ix

    @njit
    def read(a, i):
        return a[_ix(i)]

    try:
        read(np.arange(3), -1)       # _ix casts to uint64: without the switch this reads wild memory
        print("no IndexError")
    except IndexError:
        print("IndexError")

    import qtheory.locality.simulation as ls
    from qtheory.locality.graphs import irg
    from qtheory.locality.model import paper_system
    from qtheory.locality.policies import REGISTRY as L
    system = paper_system("design")
    graph = irg(system, 30, seed=3)
    grid = np.linspace(0.0, 2.0, 3)
    for name in sorted(L):
        ls.simulate(system, graph, name, initial_state=np.zeros(30, np.int64), t_grid=grid, seed=1)
        print("L", name)

    from qtheory.utility import simulate as us, table1_system
    from qtheory.utility.policies import REGISTRY as U
    for name in sorted(U):
        us(table1_system(10.0), 20, name, horizon=2.0, seed=1, sample_times=np.linspace(0.0, 2.0, 3))
        print("U", name)

    from qtheory.redundancy.mechanisms import MECHANISMS
    from qtheory.redundancy.model import m_model
    from qtheory.redundancy.simulation import simulate as rs
    for name in sorted(MECHANISMS):
        rs(m_model(7 / 12), 0.5, name, n_events=2000, seed=1)
        print("R", name)
""")


def test_every_registered_policy_runs_with_bounds_checking():
    from qtheory._kernelcache import _base
    from qtheory.locality.policies import REGISTRY as L
    from qtheory.redundancy.mechanisms import MECHANISMS
    from qtheory.utility.policies import REGISTRY as U

    # the kernels of the registered policies compiled under the switch are kept where a user's are
    # ($QTHEORY_CACHE_DIR/numba-boundscheck, keyed by their sources like every kernel): compiling all
    # of them takes a minute or two, so only the first run after an edit pays it. The switch's own
    # folder is checked on a fresh cache by _named_under_the_switch.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "QTHEORY_BOUNDSCHECK": "1",
           "QTHEORY_CACHE_DIR": str(_base()), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", RUN_EVERY_POLICY], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]      # a crash (rc -11) or an IndexError from a kernel
    lines = out.stdout.split("\n")
    assert lines[0] == "IndexError"                    # the switch is on
    ran = set(lines[1:]) - {""}
    assert ran == {f"L {n}" for n in L} | {f"U {n}" for n in U} | {f"R {n}" for n in MECHANISMS}


OUT_OF_RANGE = textwrap.dedent("""
    from dataclasses import dataclass
    from numba import njit
    from qtheory._policy import _ix
    from qtheory.errors import RuleError
    from qtheory.redundancy.mechanisms import Mechanism
    from qtheory.redundancy.model import m_model
    from qtheory.redundancy.simulation import simulate

    @njit(cache=True)
    def before_the_first(t, deg, type_servers, busy):
        return -1 if busy[_ix(type_servers[_ix(t), _ix(deg - 3)])] else -1   # deg - 3 < 0: wild

    @dataclass(frozen=True)
    class BeforeTheFirst(Mechanism):
        name = "test-before-the-first"
        rule = before_the_first
        cancel_on_start = False

    try:
        simulate(m_model(7 / 12), 0.5, BeforeTheFirst(), n_events=2000, seed=1)
        print("ran")
    except RuleError as err:
        print("RuleError", err)
""")


def test_an_index_out_of_range_in_a_rule_is_a_named_error_under_the_switch():
    """The hazard of issue 42: a rule reading an array at `_ix(-1)` (a huge unsigned index) read
    wild memory. Under the debug switch the kernel stops, and the error names the rule's file
    and line."""
    _named_under_the_switch("index-out-of-range", OUT_OF_RANGE, "def before_the_first(t, deg, type_servers, busy):",
                            "before_the_first")


def _named_under_the_switch(folder_name: str, text: str, definition: str, name: str) -> None:
    """Run the script `text` in a fresh interpreter under the switch: it must print the kernel's
    RuleError, naming the file and line of the rule whose definition line is `definition` (the
    errors point at its decorator, the line above)."""
    folder = stable_dir(folder_name)                  # kernels kept between runs (tests/_kernel_dirs.py)
    script = write_if_changed(folder / "script.py", text)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "QTHEORY_BOUNDSCHECK": "1",
           "QTHEORY_CACHE_DIR": str(folder / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=folder)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("RuleError an array index out of range"), out.stdout
    line = text.split("\n").index(definition)           # 0-based index of the definition: its decorator, 1-based
    assert f"{script}:{line}: __main__.{name}" in out.stdout, out.stdout
    # the switch compiles into a folder of its own, never into the folder of the unchecked kernels
    assert (folder / "cache" / "numba-boundscheck").is_dir() and not (folder / "cache" / "numba").exists()


OCC_BEFORE_THE_FIRST = textwrap.dedent("""
    from collections import namedtuple
    from dataclasses import dataclass
    from numba import njit
    from qtheory._policy import _ix
    from qtheory.errors import RuleError
    from qtheory.utility import simulate, table1_system
    from qtheory.utility.policies import Policy, pick

    Params = namedtuple("Params", ["m"])

    @njit(cache=True)
    def rule(u, n, occ):
        return pick(u, n) if occ[_ix(pick(u, n) - n)] >= 0 else 0    # pick - n < 0: wild

    @dataclass(frozen=True)
    class ReadsBeforeTheFirst(Policy):
        name = "test-reads-before-the-first"
        Params = Params
        rule = rule

        def kernel_params(self, system, n, depth):
            return Params(system.m)

    try:
        simulate(table1_system(10.0), 20, ReadsBeforeTheFirst(), horizon=2.0, seed=1)
        print("ran")
    except RuleError as err:
        print("RuleError", err)
""")


def test_the_issue_s_occ_hazard_is_a_named_error_under_the_switch():
    """The hazard as issue 42 found it: a U rule reading `occ` at a negative index cast by `_ix`
    (a segmentation fault, or wild numbers, without the switch)."""
    _named_under_the_switch("occ-hazard", OCC_BEFORE_THE_FIRST, "def rule(u, n, occ):", "rule")
