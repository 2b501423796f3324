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

import importlib as _importlib

# The names below are loaded on first access (PEP 562), each from the module that defines it:
# importing one module of this package (the manifest reads ``qtheory.utility.items``) must not
# load scipy.optimize and numba, which ``python -m qtheory list`` never needs.
_EXPORTS = {
    "model": ("Utility", "LogUtility", "ResourceUtility", "PiecewiseLinearUtility", "LinearUtility",
              "StepUtility", "CallableUtility", "PoolSystem", "tabulate", "marginal_utilities",
              "enumeration", "Enumeration", "overall_utility", "total_tasks", "TIE_DECIMALS"),
    "optimal": ("OptimalAssignment", "optimal_assignment", "upper_bound", "optimal_assignment_lp",
                "class_change_loads", "default_depth"),
    "fluid": ("FluidSolution", "solve_fluid", "solve_fluid_splitting", "check_state", "l1_distance",
              "fluid_prefix"),
    "simulation": ("POLICIES", "SimulationResult", "simulate", "occupancy_from_state", "default_beta"),
    "suboptimal": ("two_pool_system", "jlmu_mean_utility", "conservative_mean_utility", "critical_eps",
                   "stationary_mean_utility", "jlmu_rule", "conservative_rule", "simulated_mean_utility"),
    "examples": ("table1_system", "figure3_left_system", "figure3_right_system", "FIG3_BREAKPOINTS"),
    "experiments": ("Replication", "stationary_statistics", "policy_runs", "table1_rows",
                    "poisson_rows", "fluid_limit_rows", "slta_learning_rows", "fluid_convergence_rows",
                    "solver_agreement_rows", "assignment_rows", "lp_rows", "pool_columns"),
    "exact": ("ExactStationary", "exact_stationary"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

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
    "figure3_right_system", "FIG3_BREAKPOINTS", "Replication", "stationary_statistics", "policy_runs", "table1_rows", "poisson_rows",
    "fluid_limit_rows", "slta_learning_rows", "fluid_convergence_rows", "solver_agreement_rows",
    "assignment_rows", "lp_rows", "pool_columns", "ExactStationary", "exact_stationary",
]


def __getattr__(name):
    try:
        module = _MODULE_OF[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
