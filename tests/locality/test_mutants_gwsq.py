"""Tests that kill mutants of qtheory/locality/policies/gwsq.py left alive by
test_locality_simulation.py (found by tools/mutation.py; see benchmarks/mutation/README.md)."""

from __future__ import annotations

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.policies.gwsq import GWSQ


def test_gwsq_accepts_one_candidate_and_refuses_none():
    # Kills 52:73:const:0 (d = 1 refused): GWSQ(1) samples one candidate, a valid policy.
    assert GWSQ(d=1).d == 1 and GWSQ().d is None
    with pytest.raises(ParameterError, match="`d`"):
        GWSQ(d=0)
