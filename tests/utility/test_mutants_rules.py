"""Tests that kill mutants of qtheory/utility/rules.py left alive by test_rules.py
(found by tools/mutation.py; see benchmarks/mutation/README.md)."""

from __future__ import annotations

import pytest

from qtheory.utility.rules import slta_decrement


@pytest.mark.parametrize("green_prev", [1, 3])
def test_slta_decrement_never_fires_at_r_equal_one(green_prev):
    # Kills 47:11:drop:0 (the "prev_class >= 0" condition dropped). At r_n = 1 there is no
    # class i_{r_n - 1}, so r_n cannot drop whatever green count a caller passes; the
    # simulator happens to pass 0 there, which alone would hide the missing condition.
    assert slta_decrement(-1, 9, green_prev, 1.0) is False
