"""A start rule that returns a server its mechanism cannot start, or a completion rule that
returns a job type its server cannot take, is a named error naming the rule's file and line,
never a crash or a wrong run (issue 42: a cancel-on-completion mechanism whose rule returned an
idle server ended the interpreter with a segmentation fault, rc 139). Run in a fresh
interpreter, so that a regression fails this test instead of the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests._kernel_dirs import stable_dir, write_if_changed

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    from dataclasses import dataclass
    from numba import njit
    from qtheory.errors import RuleError
    from qtheory.redundancy.mechanisms import Mechanism, REGISTRY
    from qtheory.redundancy.mechanisms.cos import longest_idle
    from qtheory.redundancy.model import m_model
    from qtheory.redundancy.simulation import simulate

    @njit(cache=True)
    def first_compatible(t, type_servers):
        return type_servers[t, 0]                     # idle or not: wrong under c.o.c.

    @njit(cache=True)
    def past_the_end(t, deg, type_servers):
        return 1000                                   # no such server

    @dataclass(frozen=True)
    class StartsUnderCoc(Mechanism):
        name = "test-starts-under-coc"
        rule = first_compatible
        cancel_on_start = False

    @dataclass(frozen=True)
    class PastTheEnd(Mechanism):
        name = "test-past-the-end"
        rule = past_the_end

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

    for mech in (StartsUnderCoc(), PastTheEnd(), FirstType(), Never()):
        name = mech.name
        try:
            simulate(m_model(7 / 12), 0.5, mech, n_events=20000, seed=1)
            print(name, "ran")
        except RuleError as err:
            print(name, "RuleError", err)
""")


def _line_of(definition: str) -> int:
    """The 1-based line of SCRIPT's decorator just above `definition` (where the errors point):
    the 0-based index of the definition's line."""
    return SCRIPT.split("\n").index(definition)


def test_an_impossible_start_or_completion_is_a_named_error_not_a_crash():
    folder = stable_dir("impossible-actions")          # kernels kept between runs (tests/_kernel_dirs.py)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "QTHEORY_CACHE_DIR": str(folder / "cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    script = write_if_changed(folder / "impossible_rules.py", SCRIPT)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=folder)
    assert out.returncode == 0, f"rc {out.returncode}: {out.stderr[-2000:]}"
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().split("\n"))
    coc, end = lines["test-starts-under-coc"], lines["test-past-the-end"]
    at = f"{script}:{_line_of('def first_compatible(t, type_servers):')}: __main__.first_compatible"
    assert coc.startswith("RuleError") and "must return -1" in coc and at in coc     # the rule's file and line
    assert end.startswith("RuleError") and "idle compatible server or -1" in end
    for name, rule in (("test-first-type", "def first_type(s, types_of):"), ("test-never", "def never(s):")):
        text = lines[name]
        assert text.startswith("RuleError the completion rule") and f"{script}:{_line_of(rule)}:" in text, text
        assert "one of the server's types with a job, and -1 only when none of them has one" in text
