"""qtheory: a reproducible companion to three papers on load balancing.

Subpackages, one per paper:

- :mod:`qtheory.locality`   -- JSQ(d) with data locality and heterogeneous servers (L)
- :mod:`qtheory.redundancy` -- redundancy scheduling with compatibility constraints (R)
- :mod:`qtheory.utility`    -- utility-maximising load balancing (U)

Shared pieces: :mod:`qtheory.manifest` (the IDs of everything reproduced),
:mod:`qtheory.runtime` (seeded replications on any executor),
:mod:`qtheory.results` (result files keyed by manifest ID),
:mod:`qtheory.reproduce` (the papermill runner: :mod:`qtheory.presets`,
:mod:`qtheory.execution`, :mod:`qtheory.runlock` ...), :mod:`qtheory.stats`,
:mod:`qtheory.plotting`, :mod:`qtheory.validation`, :mod:`qtheory.errors`.
"""

from pathlib import Path as _Path

from . import _kernelcache

#: the one place the version is written (pyproject.toml and CITATION.cff read or check it)
__version__ = "1.0.0"

# compiled kernels are cached per version of the package's sources (see _kernelcache)
_kernelcache.configure(_Path(__file__).parent)
