"""Utility-maximising load balancing across infinite-server pools (paper U).

Modules by role:

- :mod:`~qtheory.utility.model` -- pool classes, utility functions, marginal utilities,
  the total order of coordinates and its enumeration (Sec. 2.1, 2.3)
- :mod:`~qtheory.utility.optimal` -- optimal task assignment ``q_n*``, ``q_*`` and the
  upper bound of Theorem 1 (eqs. (4), (5), (10), (11)), cross-checked by a linear program
- :mod:`~qtheory.utility.fluid` -- the fluid model (12) of JLMU, solved exactly
  (event-driven, matrix exponentials) and by a convergent splitting scheme
- :mod:`~qtheory.utility.simulation` -- numba simulators of JLMU, SLTA, random assignment,
  class-blind JSQ and the conservative policy
- :mod:`~qtheory.utility.suboptimal` -- the two-pool example of Sec. 8.3, exactly
- :mod:`~qtheory.utility.examples` -- the utility families of Fig. 3 and Table 1
"""

from .model import *  # noqa: F401,F403
from .optimal import *  # noqa: F401,F403
from .fluid import *  # noqa: F401,F403
from .simulation import *  # noqa: F401,F403
from .suboptimal import *  # noqa: F401,F403
from .examples import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .exact import *  # noqa: F401,F403
