"""Utility-maximising load balancing across infinite-server pools (paper U).

Modules by role:

- :mod:`~qtheory.utility.model` -- pool classes, utility functions, marginal utilities,
  the total order of coordinates and its enumeration (Sec. 2.1, 2.3)
- :mod:`~qtheory.utility.optimal` -- optimal task assignment ``q_n*``, ``q_*`` and the
  upper bound of Theorem 1 (eqs. (4), (5), (10), (11)), cross-checked by a linear program
- :mod:`~qtheory.utility.fluid` -- the fluid model (12) of JLMU, solved exactly
  (event-driven, matrix exponentials) and by a convergent splitting scheme
- :mod:`~qtheory.utility.simulation` -- the numba simulator of any registered policy
- :mod:`~qtheory.utility.policies` -- the policies, one file each (JLMU, SLTA, the baselines of
  Sec. 8.3, JLMU(d))
- :mod:`~qtheory.utility.suboptimal` -- the two-pool example of Sec. 8.3, exactly
- :mod:`~qtheory.utility.examples` -- the utility families of Fig. 3 and Table 1
"""

from .model import (Utility, LogUtility, ResourceUtility, PiecewiseLinearUtility, LinearUtility,
                    StepUtility, CallableUtility, PoolSystem, tabulate, marginal_utilities,
                    enumeration, Enumeration, overall_utility, total_tasks, TIE_DECIMALS)
from .optimal import (OptimalAssignment, optimal_assignment, upper_bound, optimal_assignment_lp,
                      class_change_loads, default_depth)
from .fluid import (FluidSolution, solve_fluid, solve_fluid_splitting, check_state, l1_distance,
                    fluid_prefix)
from .simulation import (POLICIES, SimulationResult, simulate, occupancy_from_state, default_beta)
from .suboptimal import (two_pool_system, jlmu_mean_utility, conservative_mean_utility,
                         critical_eps, stationary_mean_utility, jlmu_rule, conservative_rule,
                         simulated_mean_utility)
from .examples import (table1_system, figure3_left_system, figure3_right_system, FIG3_BREAKPOINTS)
from .experiments import (StationaryStatistics, stationary_statistics, policy_runs, table1_rows, poisson_rows, fluid_limit_rows,
                          slta_learning_rows, fluid_convergence_rows, solver_agreement_rows,
                          assignment_rows, lp_rows, pool_columns)
from .exact import (ExactStationary, exact_stationary)

__all__ = [
    "Utility", "LogUtility", "ResourceUtility", "PiecewiseLinearUtility", "LinearUtility",
    "StepUtility", "CallableUtility", "PoolSystem", "tabulate", "marginal_utilities", "enumeration",
    "Enumeration", "overall_utility", "total_tasks", "TIE_DECIMALS", "OptimalAssignment",
    "optimal_assignment", "upper_bound", "optimal_assignment_lp", "class_change_loads",
    "default_depth", "FluidSolution", "solve_fluid", "solve_fluid_splitting", "check_state",
    "l1_distance", "fluid_prefix", "POLICIES", "SimulationResult", "simulate",
    "occupancy_from_state", "default_beta", "two_pool_system", "jlmu_mean_utility",
    "conservative_mean_utility", "critical_eps", "stationary_mean_utility", "jlmu_rule",
    "conservative_rule", "simulated_mean_utility", "table1_system", "figure3_left_system",
    "figure3_right_system", "FIG3_BREAKPOINTS", "StationaryStatistics", "stationary_statistics", "policy_runs", "table1_rows", "poisson_rows",
    "fluid_limit_rows", "slta_learning_rows", "fluid_convergence_rows", "solver_agreement_rows",
    "assignment_rows", "lp_rows", "pool_columns", "ExactStationary", "exact_stationary",
]
