"""The memory estimate checked before a large allocation (:mod:`qtheory._memory`)."""

import pytest

from qtheory import _memory
from qtheory.errors import MemoryBudgetError, ParameterError


def test_available_memory_is_capped_by_the_environment(monkeypatch):
    monkeypatch.delenv("QTHEORY_MEMORY_LIMIT", raising=False)
    machine = _memory.available_bytes()
    assert machine > 0
    monkeypatch.setenv("QTHEORY_MEMORY_LIMIT", "2e9")
    assert _memory.available_bytes() == min(machine, 2_000_000_000)
    monkeypatch.setenv("QTHEORY_MEMORY_LIMIT", "lots")
    with pytest.raises(ParameterError, match="QTHEORY_MEMORY_LIMIT"):
        _memory.available_bytes()


def test_require_memory_refuses_beyond_its_share_and_names_the_parameter(monkeypatch):
    monkeypatch.setenv("QTHEORY_MEMORY_LIMIT", "1e9")
    _memory.require_memory(0.79e9, what="a table", parameter="n")          # within 80%
    with pytest.raises(MemoryBudgetError, match=r"a table needs about 810 MB; this machine has 1.0 GB available: "
                                                r"choose a smaller `n`"):
        _memory.require_memory(0.81e9, what="a table", parameter="n")
    assert issubclass(MemoryBudgetError, ParameterError)
