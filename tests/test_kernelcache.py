"""The kernel cache follows every source file, not only the kernel's own."""

import subprocess
import sys
import textwrap

from qtheory import _kernelcache


def _write_package(root, constant):
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


def _run(root, cache_base):
    code = "from toy.kernel import kernel; print(kernel(1))"
    # no .pyc files: Python validates them by the source's mtime in whole seconds and its
    # size, so a same-size rewrite within one second would run the old bytecode
    env = {"PATH": "/usr/bin:/bin", "QTHEORY_CACHE_DIR": str(cache_base), "PYTHONPATH": str(root),
           "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_editing_a_called_module_is_not_hidden_by_a_stale_kernel_cache(tmp_path):
    _write_package(tmp_path, 10)
    assert _run(tmp_path, tmp_path / "cache") == 11
    # the kernel's own file is unchanged: numba alone would reuse the cached 11
    _write_package(tmp_path, 20)
    assert _run(tmp_path, tmp_path / "cache") == 21


def test_the_cache_folder_changes_with_any_source_file_and_only_then(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    first = _kernelcache.source_hash(tmp_path)
    assert _kernelcache.source_hash(tmp_path) == first
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    assert _kernelcache.source_hash(tmp_path) != first


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
            ls.simulate(system, g, pol, state, np.linspace(0, 1, 3), seed=1)
            misses.append(ls._kernel(ls.as_policy(pol)).stats.cache_misses)
        us.simulate(table1_system(10.0), 10, "jlmu", horizon=1.0, seed=0)
        misses.append(us._kernel(us.as_policy("jlmu"), False).stats.cache_misses)   # no sample times: the mean-holding-time kernel
        print(sum(len(m) for m in misses))
    """)
    env = {"PATH": "/usr/bin:/bin", "QTHEORY_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(first.stdout.split()[-1]) > 0      # a fresh cache: compiled
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(second.stdout.split()[-1]) == 0, second.stdout
