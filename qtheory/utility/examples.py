"""The utility families of the paper's numerical examples (Fig. 3, Table 1).

Sec. 2.3.1 describes the utilities of Fig. 3 without giving every parameter; these are our
reconstructions, chosen to reproduce everything the text states about the figure (so the
breakpoints they produce check our computation, not the paper; see the book's notes):

- left panel: ``u_i(x) = x g(r_i / x)`` with ``g(y) = log(1 + y)`` (concave, increasing)
  and resources ``r = (2, 4, 6)``, three classes of equal size;
- right panel: three classes with ``alpha = (1/4, 1/4, 1/2)`` and piecewise-linear
  utilities whose marginal utilities are, per task,
  class 1: 2 for every task; class 2: 10 for the first 5 tasks, 4 for the next 5,
  -1 after; class 3: 6 for the first 10 tasks, -1 after. The optimal assignment then
  fills only class 2 for ``rho`` in (0, 1.25) (5 tasks x 1/4), only class 3 in
  (1.25, 6.25) (10 tasks x 1/2, overtaking class 2), class 2 again in (6.25, 7.5) and
  only class 1 beyond 7.5, the breakpoints stated in Sec. 2.3.1.
"""

from __future__ import annotations

from .model import LogUtility, PiecewiseLinearUtility, PoolSystem, ResourceUtility

__all__ = ["table1_system", "figure3_left_system", "figure3_right_system", "FIG3_BREAKPOINTS"]

#: loads where the growing class changes in Fig. 3 (right), as stated in Sec. 2.3.1
FIG3_BREAKPOINTS = (1.25, 6.25, 7.5)


def table1_system(rho: float = 10.0) -> PoolSystem:
    """Sec. 3.4.1: two classes of equal size, ``u_i(x) = x log(r_i / x)``, ``r = (20, 30)``."""
    return PoolSystem((LogUtility(20.0), LogUtility(30.0)), (0.5, 0.5), rho)


def figure3_left_system(rho: float = 1.0) -> PoolSystem:
    """Fig. 3 (left), reconstructed: ``x log(1 + r_i / x)`` with ``r = (2, 4, 6)``, equal classes."""
    return PoolSystem(tuple(ResourceUtility(r) for r in (2.0, 4.0, 6.0)), (1 / 3, 1 / 3, 1 / 3), rho)


def figure3_right_system(rho: float = 1.0) -> PoolSystem:
    """Fig. 3 (right), reconstructed piecewise-linear utilities with breakpoints 1.25, 6.25, 7.5."""
    return PoolSystem(
        (PiecewiseLinearUtility((2.0,)),
         PiecewiseLinearUtility((10.0, 4.0, -1.0), (5.0, 10.0)),
         PiecewiseLinearUtility((6.0, -1.0), (10.0,))),
        (0.25, 0.25, 0.5), rho)
