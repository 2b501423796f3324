"""Paper L: data locality with heterogeneous servers (JSQ(d) on bipartite graphs).

Modules, by role:

- :mod:`~qtheory.locality.model` -- the system of Sec. 2 (:class:`LocalitySystem`), the
  Sec. 6 parameters and initial conditions, finite sizes;
- :mod:`~qtheory.locality.graphs` -- irg(p) (Definition 3), complete and window graphs,
  Condition 1 and clustered-proportional-sparsity statistics;
- :mod:`~qtheory.locality.stability` -- Lemma 1 (exact :math:`\\rho^N`), criterion (3.1), Lemma 10,
  Proposition 1;
- :mod:`~qtheory.locality.meanfield` -- ODE (3.7), its fixed point (Theorems 4, 7);
- :mod:`~qtheory.locality.simulation` -- numba simulators of local JSQ(d) and GWSQ(d);
- :mod:`~qtheory.locality.exact` -- exact stationary laws of tiny systems;
- :mod:`~qtheory.locality.refined` -- the refined (1/N) mean-field approximation of the
  population-process cases (beyond the paper);
- :mod:`~qtheory.locality.graphmf` -- the graph mean field: per-server ODE of one given
  graph under independence of servers, its fixed point and transient (beyond the paper);
- :mod:`~qtheory.locality.experiments` -- the replicated experiments of the notebooks.
"""

from .model import LocalitySystem, paper_system

__all__ = ["LocalitySystem", "paper_system"]
