"""The kernel cache follows every file a kernel imports, not only the kernel's own, and nothing
else (issue 42): an edit of a helper recompiles, an edit of an unrelated module does not; a
user's NUMBA_CACHE_DIR is respected."""

import subprocess
import sys
import textwrap
from pathlib import Path

import qtheory
from qtheory import _kernelcache
from tests._kernel_dirs import stable_dir


def _write_package(root, constant, unrelated="x = 1"):
    pkg = root / "toy"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        from pathlib import Path
        from qtheory import _kernelcache
        _kernelcache.configure(Path(__file__).parent)
    """))
    (pkg / "helper.py").write_text(textwrap.dedent(f"""
        from numba import njit

        @njit(cache=True)
        def constant():
            return {constant}
    """))
    (pkg / "kernel.py").write_text(textwrap.dedent("""
        from numba import njit
        from .helper import constant

        @njit(cache=True)
        def kernel(x):
            return x + constant()
    """))
    (pkg / "runner.py").write_text(unrelated + "\n")     # imports nothing the kernel imports, and is not imported


def _run(root, env):
    code = ("from toy.kernel import kernel; import numba; r = kernel(1); "
            "print(r, len(kernel.stats.cache_misses), numba.config.CACHE_DIR or '-')")
    # no .pyc files: Python validates them by the source's mtime in whole seconds and its
    # size, so a same-size rewrite within one second would run the old bytecode
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1", **env}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    value, misses, numba_dir = out.stdout.split()
    return int(value), int(misses), numba_dir


def test_editing_a_called_module_is_not_hidden_by_a_stale_kernel_cache(tmp_path):
    env = {"QTHEORY_CACHE_DIR": str(tmp_path / "cache")}
    _write_package(tmp_path, 10)
    assert _run(tmp_path, env)[:2] == (11, 1)           # compiled
    assert _run(tmp_path, env)[:2] == (11, 0)           # loaded
    # the kernel's own file is unchanged: numba alone would reuse the cached 11
    _write_package(tmp_path, 20)
    assert _run(tmp_path, env)[:2] == (21, 1)


def test_a_second_checkout_of_the_same_sources_loads_the_kernels_and_an_edited_one_compiles(tmp_path):
    """The kernels' folder is named by module and source stamp, not by the checkout's path: a fresh
    clone loads what the working copy compiled; a copy with an edited helper compiles its own
    and leaves the first checkout's kernels in place."""
    env = {"QTHEORY_CACHE_DIR": str(tmp_path / "cache")}
    first, second, edited = tmp_path / "first", tmp_path / "second", tmp_path / "edited"
    for root, constant in ((first, 10), (second, 10), (edited, 30)):
        root.mkdir()
        _write_package(root, constant)
    assert _run(first, env)[:2] == (11, 1)              # compiled
    assert _run(second, env)[:2] == (11, 0)             # the same sources elsewhere: loaded
    assert _run(edited, env)[:2] == (31, 1)             # same module names, other sources: compiled
    assert _run(first, env)[:2] == (11, 0)              # and the first checkout's are intact


def test_editing_a_module_no_kernel_imports_compiles_nothing(tmp_path):
    env = {"QTHEORY_CACHE_DIR": str(tmp_path / "cache")}
    _write_package(tmp_path, 10)
    assert _run(tmp_path, env)[:2] == (11, 1)
    _write_package(tmp_path, 10, unrelated="x = 2  # an edit of the runner")
    assert _run(tmp_path, env)[:2] == (11, 0)


def test_the_dependencies_of_a_kernel_are_what_it_imports_and_not_the_runner():
    from qtheory.locality import simulation

    deps = {p.relative_to(Path(qtheory.__file__).parent).as_posix() for p in _kernelcache.dependencies(simulation.__file__)}
    assert {"locality/simulation.py", "_rng.py", "_splice.py", "locality/policies/__init__.py"} <= deps
    assert not deps & {"reproduce.py", "results.py", "plotting.py", "locality/items/l_f2.py"}


def test_a_users_numba_cache_dir_is_respected(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    _write_package(tmp_path, 10)
    value, misses, numba_dir = _run(tmp_path, env)
    assert (value, misses) == (11, 1) and numba_dir == str(tmp_path / "mine")   # numba's setting is the user's
    assert any((tmp_path / "mine" / "qtheory" / "numba").rglob("*.nbi"))        # ours beneath it
    assert _run(tmp_path, env)[:2] == (11, 0)


def test_a_second_process_loads_the_policy_kernels_from_the_cache(tmp_path):
    # numba's cache index holds each kernel's signature, with the policy's Params class in
    # it; a class that comes back from the index as a new object never matches a call's
    # signature, and every new process (every worker of every replication pool) compiled
    # the kernel again
    code = textwrap.dedent("""
        import numpy as np
        from qtheory.locality.model import paper_system
        from qtheory.locality.graphs import complete_bipartite
        from qtheory.locality import simulation as ls
        from qtheory.utility import simulation as us, table1_system
        system = paper_system("design")
        g = complete_bipartite(system, 20)
        state = np.zeros(20, np.int64)
        misses = []
        for pol in ("jsqd", "gwsq"):
            ls.simulate(system, g, pol, initial_state=state, t_grid=np.linspace(0, 1, 3), seed=1)
            misses.append(ls._kernel(ls.as_policy(pol)).stats.cache_misses)
        us.simulate(table1_system(10.0), 10, "jlmu", horizon=1.0, seed=0)
        misses.append(us._kernel(us.as_policy("jlmu"), False).stats.cache_misses)   # no sample times: the mean-holding-time kernel
        print(sum(len(m) for m in misses))
    """)
    # a cache kept between test runs (tests/_kernel_dirs.py): the first process compiles only
    # when the sources changed since the last run, and the second must load whatever it left
    cache = stable_dir("kernelcache-second-process")
    env = {"PATH": "/usr/bin:/bin", "QTHEORY_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(second.stdout.split()[-1]) == 0, second.stdout


def test_an_edit_within_one_process_changes_the_dependencies(tmp_path, monkeypatch):
    """The parsed imports are kept per file (two look-ups per kernel), keyed by the file's
    modification time and size: an edit that adds an import is seen by the same process."""
    pkg = tmp_path / "depstoy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("x = 1\n")
    (pkg / "kernel.py").write_text("y = 2\n")
    monkeypatch.setitem(_kernelcache._ROOTS, "depstoy", pkg.resolve())
    kernel = (pkg / "kernel.py").resolve()
    assert _kernelcache.dependencies(kernel) == [kernel]
    before = _kernelcache.dependency_hash(kernel)
    (pkg / "kernel.py").write_text("from .helper import x\ny = 2\n")
    assert _kernelcache.dependencies(kernel) == sorted([kernel, (pkg / "helper.py").resolve()])
    assert _kernelcache.dependency_hash(kernel) != before
