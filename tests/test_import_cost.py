"""Importing what ``python -m qtheory list`` needs must not load the heavy dependencies.

The manifest gathers each paper's items from ``qtheory.<paper>.items``; importing such a
module runs its package's ``__init__``. Checked in a fresh interpreter by the set of loaded
modules (not by time, which depends on the machine's load).
"""

import subprocess
import sys


def test_listing_the_manifest_loads_neither_numba_nor_scipy_optimize():
    code = ("import sys, qtheory.manifest as m; m.papers(); "
            "print(sorted(k for k in ('numba', 'scipy.optimize', 'scipy.stats') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_lazily_loaded_name_is_the_object_of_its_module():
    import qtheory.utility as U
    from qtheory.utility import simulation

    assert U.simulate is simulation.simulate
    assert "simulate" in dir(U)
    try:
        U.no_such_name
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
