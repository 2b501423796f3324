"""Redundancy scheduling with compatibility constraints in heavy traffic (paper R).

Modules by role:

- :mod:`.model`        -- :class:`RedundancySystem` and the type families (R-P-types)
- :mod:`.stability`    -- conditions (1)-(3), capacity ratio, critical subset, local stability (7)-(11)
- :mod:`.productform`  -- exact stationary quantities from (4) and (6) by dynamic programming,
  Proposition 3.1, the M-model closed form (13)
- :mod:`.limits`       -- Theorems 3.1, 3.2, Corollaries 3.1, 3.2, Appendix D
- :mod:`.mechanisms`   -- c.o.c., c.o.s.-ALIS (and, beyond the paper, c.o.s. with random assignment
  or random order of service, redundancy-d) as objects (exact law, exact chain, the
  simulator's start and completion rules)
- :mod:`.completion`   -- completion rules: which job a server takes when a service completes
- :mod:`.chain`        -- the mechanisms' Markov chains written from their rules, solved exactly
- :mod:`.simulation`   -- the numba simulator of every mechanism (R-P-coc, R-P-cos)
"""

import importlib as _importlib

from .model import (RedundancySystem, circular_d, fully_flexible, m_model, power_of_d,
                    single_plus_full)
from .stability import critical_load, critical_subset, is_locally_stable, is_stable

__all__ = [
    "Mechanism", "CancelOnCompletion", "CancelOnStart", "as_mechanism",
    "RedundancySystem", "circular_d", "fully_flexible", "m_model", "power_of_d", "single_plus_full",
    "critical_load", "critical_subset", "is_locally_stable", "is_stable",
]

#: loaded on first access (PEP 562): the mechanisms' start rules are numba functions, and
#: importing this package (the manifest reads ``qtheory.redundancy.items``) must not load numba
_LAZY = {"Mechanism", "CancelOnCompletion", "CancelOnStart", "as_mechanism"}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(".mechanisms", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
