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
