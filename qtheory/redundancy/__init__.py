"""Redundancy scheduling with compatibility constraints in heavy traffic (paper R).

Modules by role:

- :mod:`.model`        -- :class:`RedundancySystem` and the type families (R-P-types)
- :mod:`.stability`    -- conditions (1)-(3), capacity ratio, critical subset, local stability (7)-(11)
- :mod:`.productform`  -- exact stationary quantities from (4) and (6) by dynamic programming,
  Proposition 3.1, the M-model closed form (13)
- :mod:`.limits`       -- Theorems 3.1, 3.2, Corollaries 3.1, 3.2, Appendix D
- :mod:`.mechanisms`   -- c.o.c. and c.o.s.-ALIS as objects (exact law, exact chain, simulator)
- :mod:`.simulation`   -- numba simulators of c.o.c. and c.o.s.-ALIS (R-P-coc, R-P-cos)
"""

from .mechanisms import CancelOnCompletion, CancelOnStart, Mechanism, as_mechanism
from .model import (RedundancySystem, circular_d, fully_flexible, m_model, power_of_d,
                    single_plus_full)
from .stability import critical_load, critical_subset, is_locally_stable, is_stable

__all__ = [
    "Mechanism", "CancelOnCompletion", "CancelOnStart", "as_mechanism",
    "RedundancySystem", "circular_d", "fully_flexible", "m_model", "power_of_d", "single_plus_full",
    "critical_load", "critical_subset", "is_locally_stable", "is_stable",
]
