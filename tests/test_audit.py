"""Input audit: every public function rejects bad values with a ParameterError naming them.

Each row of :data:`CASES` is one public function, a *valid* call (run first, so the
row fails if the baseline itself is wrong) and, per parameter, values that violate a
documented condition. Each bad value must raise :class:`~qtheory.errors.ParameterError`
(or its subclass :class:`~qtheory.errors.InstabilityError`) whose message names the
parameter -- never a bare ``IndexError``, ``ZeroDivisionError``, a NumPy warning, or a
silently clipped result. The developer page's audit table lists the same rows
(``test_the_developer_page_lists_every_audited_function``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from qtheory import presets, runtime, stats
from qtheory.errors import InstabilityError, ParameterError
from qtheory.locality import exact as lexact
from qtheory.locality import experiments as lexp
from qtheory.locality import graphs as lgraphs
from qtheory.locality import meanfield as lmf
from qtheory.locality import model as lmodel
from qtheory.locality import refined as lref
from qtheory.locality import simulation as lsim
from qtheory.locality import stability as lstab
from qtheory.redundancy import limits as rlim
from qtheory.redundancy import model as rmodel
from qtheory.redundancy import productform as rpf
from qtheory.redundancy import simulation as rsim
from qtheory.redundancy import stability as rstab
from qtheory import utility as U

NAN, INF = float("nan"), float("inf")
POS = [NAN, INF, 0.0, -1.0, "1"]           # a rate / positive real
NONNEG = [NAN, INF, -0.5]                  # a time, a non-negative real
PROB = [NAN, -0.1, 1.5]                    # a probability
INT1 = [0, -1, 1.5, True]                  # an integer >= 1
SEED = [-1, 1.5, "7"]                      # a seed

# -- small valid models ----------------------------------------------------------------
LSYS = lmodel.LocalitySystem(0.45, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((1, 1), (1, 1)), 2)
LSYS_UNSTABLE = lmodel.LocalitySystem(3.0, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2)
LGRAPH = lgraphs.from_adjacency(np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 0, 1]]), [0, 0, 1, 1], [0, 0, 1])
LQ0 = lmodel.occupancy_from_pmf([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3]])
RSYS = rmodel.power_of_d(3, 2)
RMIXED = rmodel.m_model(0.2)
USYS = U.PoolSystem((U.LogUtility(3), U.LogUtility(5)), (0.5, 0.5), 1.5)
UQ0 = np.array([[0.5, 0.2, 0.0], [0.5, 0.5, 0.1]])
TGRID = [0.0, 0.5, 1.0]


@dataclass
class Case:
    """One public function: a valid call and bad values per parameter."""

    func: Callable
    valid: dict[str, Any]
    bad: dict[str, list]
    # the name the message uses when it differs from the parameter's (e.g. a model field)
    names: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        mod = self.func.__module__.replace("qtheory.", "")
        return f"{mod}.{self.func.__qualname__}"


def _ctor(cls):
    """The class itself, as a callable with a module and qualname (model constructors)."""
    return cls


CASES: list[Case] = [
    # ---- shared --------------------------------------------------------------------------
    Case(runtime.spawn, dict(seed=1, n=2), dict(seed=SEED, n=[-1, 1.5])),
    Case(runtime.kernel_state, dict(seed=1), dict(seed=SEED)),
    # `reproduce -p NAME VALUE`: the value is checked against the type of the notebook's default
    Case(presets.check_parameter, dict(name="horizon", value=5.0, default=50.0),
         dict(value=[NAN, INF, -INF, "abc", "nan", [], None, {"a": 1}, True]), names={"value": "horizon"}),
    Case(presets.check_parameter, dict(name="n_list", value=[10, 20], default=[100, 500]),
         dict(value=[[], [10, 2.5], [True], 10, "[10]", None]), names={"value": "n_list"}),
    Case(stats.mean_ci, dict(samples=[1.0, 2.0, 3.0]),
         dict(samples=[[], [1.0, "x"]], level=[0.0, 1.0, NAN, 2])),
    # ---- paper L ---------------------------------------------------------------------------
    Case(lmodel.LocalitySystem,
         dict(arrival_rate=0.45, zeta=0.75, cluster_weights=(2 / 3, 1 / 3), type_fractions=(0.5, 0.5),
              service_rates=(1.0, 1.5), compatibility=((1, 1), (1, 1)), d=2),
         dict(arrival_rate=POS, zeta=POS, cluster_weights=[(0.5, 0.6), (1.2, -0.2), (1.0, 0.0), (NAN, 1.0)],
              type_fractions=[(0.5, 0.6), (0.5, NAN)], service_rates=[(1.0,), (1.0, 0.0), (1.0, -2.0), (1.0, NAN)],
              compatibility=[((1, 1),), ((1, 1.5), (1, 1)), ((0, 0), (1, 1)), ((NAN, 1), (1, 1))], d=INT1)),
    Case(lmodel.paper_system, dict(), dict(compatibility=["nonsense", ((1.0, 1.0),)], d=INT1)),
    Case(lmodel.occupancy_from_pmf, dict(pmf=[[0.5, 0.5]]),
         dict(pmf=[[[0.5, 0.6]], [[-0.5, 1.5]], [[NAN, 1.0]], [0.5, 0.5]])),
    Case(lmodel.paper_initial_occupancy, dict(), dict(name=["Q9"], reading=["nonsense"])),
    Case(lmodel.system_sizes, dict(system=LSYS, n_servers=12), dict(n_servers=[0, -3, 2.5])),
    Case(lgraphs.from_adjacency,
         dict(adjacency=[[1, 0], [0, 1]], server_type=[0, 0], dispatcher_cluster=[0, 0]),
         dict(adjacency=[[[1, 0]], [[2, 0], [0, 1]], [1, 0]], server_type=[[0], [0, -1]],
              dispatcher_cluster=[[0], [0, -1]])),
    Case(lgraphs.complete_bipartite, dict(system=LSYS, n_servers=8), dict(n_servers=[0, -1, 1.5])),
    Case(lgraphs.irg, dict(system=LSYS, n_servers=8, seed=1), dict(n_servers=[0, -1, 1.5], seed=SEED)),
    Case(lgraphs.window_graph, dict(system=LSYS, n_servers=8), dict(n_servers=[0, -1])),
    Case(lgraphs.sparsity_statistic, dict(graph=LGRAPH, eps=0.1), dict(eps=[NAN, -0.1, 0.0])),
    Case(lstab.complete_bipartite_exact_load,
         dict(server_rates=[1.0, 2.0], n_dispatchers=2, arrival_rate=1.0, d=2),
         dict(server_rates=[[1.0, 0.0], [1.0, NAN], []], n_dispatchers=[0, -1],
              arrival_rate=POS, d=[0, -1])),
    Case(lstab.exact_load, dict(graph=LGRAPH, system=LSYS), dict(max_servers=[0, 2])),
    Case(lstab.require_stable, dict(system=LSYS), dict(system=[LSYS_UNSTABLE]),
         names=dict(system="(2.1)")),
    Case(lmf.drift, dict(system=LSYS, q=LQ0),
         dict(q=[LQ0[:1], np.array([[1.0, 0.2, 0.5], [1.0, 0.5, 0.3]]), np.array([[1.0, 1.2, 0.5], [1.0, 0.5, 0.3]]),
                 np.full((2, 3), NAN)])),
    Case(lmf.solve_meanfield, dict(system=LSYS, q0=LQ0, t_eval=TGRID),
         dict(q0=[LQ0[:1], -LQ0], t_eval=[[0.0, NAN], [1.0, 0.5], [-1.0, 0.0], []],
              tol=[0.0, NAN], levels=[0, -1])),
    Case(lmf.fixed_point, dict(system=LSYS), dict(system=[LSYS_UNSTABLE], tol=[0.0, NAN, -1.0]),
         names=dict(system="(2.1)")),
    Case(lmf.refined_tail, dict(system=LSYS, fp=lmf.fixed_point(LSYS)),
         dict(fp=[None, "q"], max_levels=[0, -1, 1.5], relative_from=[0.0, NAN, 2.0], passes=[0, 1.5])),
    Case(lmf.homogeneous_fixed_point, dict(load=0.5, d=2, levels=4),
         dict(load=[1.0, 1.5, NAN, -0.5], d=INT1, levels=INT1), names=dict(load="load")),
    Case(lmf.mean_queue_length, dict(q=LQ0), dict(q=[np.array([[1.0, NAN]]), "q"])),
    Case(lmf.tail_decay_ratios, dict(q=LQ0), dict(q=[np.array([[NAN, 1.0]]), np.array([0.5])])),
    Case(lsim.simulate_jsqd,
         dict(system=LSYS, graph=LGRAPH, initial_state=[0, 0, 0, 0], t_grid=TGRID, seed=1, levels=2),
         dict(initial_state=[[0, 0, 0], [0, -1, 0, 0], [0, 0.5, 0, 0]], t_grid=[[1.0, 0.5], [NAN, 1.0], [-1.0, 1.0], []],
              seed=SEED, levels=INT1)),
    Case(lsim.simulate_gwsq,
         dict(system=LSYS, graph=LGRAPH, initial_state=[0, 0, 0, 0], t_grid=TGRID, seed=1, levels=2),
         dict(initial_state=[[0, 0, 0]], t_grid=[[1.0, 0.5]], seed=SEED, levels=INT1)),
    Case(lsim.iid_initial_state, dict(graph=LGRAPH, q0=LQ0, seed=1),
         dict(q0=[LQ0[:1], -LQ0, np.array([[1.0, 0.5, 0.7], [1.0, 0.5, 0.3]])], seed=SEED)),
    Case(lsim.exact_initial_state, dict(graph=LGRAPH, q0=LQ0), dict(q0=[LQ0[:1], -LQ0])),
    Case(lexact.stationary,
         dict(candidates_per_dispatcher=[lexact.local_candidates([0, 1], 2)], arrival_rate=0.5,
              server_rates=[1.0, 1.0], buffer=4),
         dict(arrival_rate=POS, server_rates=[[1.0, 0.0], [1.0, NAN], [1.0]], buffer=INT1)),
    Case(lexact.local_candidates, dict(neighbourhood=[0, 1], d=2), dict(d=INT1, neighbourhood=[[], [0, -1]])),
    Case(stats.pair_correlation, dict(mean=[0.5, 0.4, 0.6, 0.5], mean_square=[0.3, 0.25, 0.45, 0.3], n_servers=10),
         dict(n_servers=[0, -1], n_boot=[0, -1])),
    Case(stats.loglog_slope, dict(x=[1.0, 2.0, 4.0], y=[1.0, 0.5, 0.25]),
         dict(x=[[1.0, 0.0, 4.0], [2.0, 2.0, 2.0]], y=[[1.0, -0.5, 0.25], [1.0, NAN, 0.25], [1.0, 0.5]])),
    Case(lexp.build_graph, dict(system=LSYS, n_servers=8, kind="irg", seed=0), dict(kind=["nonsense"])),
    Case(lexp.occupancy_summary, dict(occupancy=LQ0, mean_queue_length=[1.0, 1.1], type_fractions=[0.5, 0.5]),
         dict(occupancy=[LQ0[:, :1]], mean_queue_length=[[1.0]], type_fractions=[[1.0]])),
    Case(lexact.occupancy_stationary, dict(system=LSYS, n_servers=2, buffer=3),
         dict(n_servers=[0, -1, 1.5], buffer=INT1, policy=["nonsense"], max_states=[1])),
    Case(lref.check_population_policy, dict(system=LSYS, policy="gwsq"), dict(policy=["jsq", LGRAPH, "jiq"])),
    Case(lref.drift, dict(system=LSYS, q=LQ0), dict(q=[LQ0[:1], -LQ0], policy=["jsq"])),
    Case(lref.finite_drift, dict(system=LSYS, q=LQ0, n_servers=4, policy="jsqd"),
         dict(n_servers=[0, -1, 2.5, True], q=[LQ0[:1]], policy=["jsq"])),
    Case(lref.drift_correction, dict(system=LSYS, q=LQ0, policy="jsqd"), dict(q=[LQ0[:1]], policy=["jsq"])),
    Case(lref.jacobian, dict(system=LSYS, q=LQ0), dict(q=[LQ0[:1], np.full((2, 3), NAN)])),
    Case(lref.hessian, dict(system=LSYS, q=LQ0), dict(q=[LQ0[:1]])),
    Case(lref.transitions, dict(system=LSYS, q=LQ0), dict(q=[LQ0[:1]])),
    Case(lref.jump_covariance, dict(system=LSYS, q=LQ0), dict(q=[LQ0[:1]])),
    Case(lref.iid_covariance, dict(system=LSYS, q0=LQ0), dict(q0=[LQ0[:1], -LQ0])),
    Case(lref.refined_stationary, dict(system=LSYS), dict(system=[LSYS_UNSTABLE], tol=[0.0, NAN, 1.0],
                                                          policy=["jsq", LGRAPH], max_levels=[0, 1.5]),
         names=dict(system="(2.1)")),
    Case(lref.refined_transient, dict(system=LSYS, q0=LQ0, t_eval=TGRID),
         dict(q0=[LQ0[:1]], t_eval=[[1.0, 0.5], [0.0, NAN], []], start=["sorted"], tol=[0.0, NAN],
              policy=["jsq"])),
    # ---- paper R ---------------------------------------------------------------------------
    Case(rmodel.RedundancySystem,
         dict(speeds=[1.0, 2.0], types=((0,), (0, 1)), probabilities=[0.5, 0.5]),
         dict(speeds=[[1.0, 0.0], [1.0, NAN], [1.0, -1.0], []],
              types=[((0,), (0,)), ((0,), (0, 5)), ((), (0, 1))],
              probabilities=[[0.5, 0.6], [0.5, NAN], [1.0, 0.0], [1.0]])),
    Case(rmodel.power_of_d, dict(n_servers=3, d=2), dict(n_servers=[0, -1, 1.5], d=[0, 4, 1.5],
                                                          speeds=[[1.0, 1.0], [1.0, 0.0, 1.0]])),
    Case(rmodel.circular_d, dict(n_servers=4, d=2), dict(n_servers=[0, -1], d=[0, 5],
                                                          probabilities=[[0.5, 0.5], [0.5, 0.5, 0.5, -0.5]])),
    Case(rmodel.m_model, dict(p12=0.5), dict(p12=PROB + [0.0, 1.0], speeds=[(1.0, 1.0), (1.0, 0.0, 1.0)])),
    Case(rmodel.single_plus_full, dict(n_servers=3, eps=0.3), dict(n_servers=[0, 1], eps=[NAN, -0.1, 2.0, 3.0])),
    Case(rmodel.fully_flexible, dict(n_servers=3), dict(n_servers=[0, -1], speeds=[[1.0]])),
    Case(rstab.check_arrival_rate, dict(lam=0.5), dict(lam=POS)),
    Case(rstab.capacity_ratio, dict(system=RSYS, type_subset=[0]), dict(type_subset=[[7], [-1], []])),
    Case(rstab.critical_subset, dict(system=RSYS), dict(method=["nonsense"])),
    Case(rstab.condition_1, dict(system=RSYS, lam=0.5), dict(lam=POS)),
    Case(rstab.is_stable, dict(system=RSYS, lam=0.5), dict(lam=POS)),
    Case(rstab.require_stable, dict(system=RSYS, lam=0.5), dict(lam=POS + [3.0, 30.0])),
    Case(rstab.power_of_d_critical_load, dict(speeds=[1.0, 2.0, 3.0], d=2),
         dict(speeds=[[1.0, 0.0, 1.0], [1.0, NAN, 1.0]], d=[0, 4])),
    Case(rpf.total_jobs_moments, dict(system=RSYS, lam=0.5), dict(lam=POS + [3.0], mechanism=["nonsense"])),
    Case(rpf.empty_probability, dict(system=RSYS, lam=0.5), dict(lam=POS + [3.0], mechanism=["abc"])),
    Case(rpf.normalisation_constant, dict(system=RSYS, lam=0.5), dict(lam=POS + [3.0])),
    Case(rpf.type_moments, dict(system=RSYS, lam=0.5), dict(lam=POS + [3.0], types=[[9], [-1]])),
    Case(rpf.server_replica_moments, dict(system=RSYS, lam=0.5), dict(lam=[3.0], servers=[[9]])),
    Case(rpf.pgf, dict(system=RSYS, lam=0.5, z=[0.5, 0.5, 0.5]),
         dict(lam=POS + [3.0], z=[[NAN, 0.5, 0.5], [1.5, 0.5, 0.5], [0.5, 0.5]], z_busy=[NAN, -0.1, 1.5])),
    Case(rpf.total_jobs_pmf, dict(system=RSYS, lam=0.5, max_jobs=10),
         dict(lam=[3.0, NAN], max_jobs=[-1, 1.5], type_index=[9], server_index=[9])),
    Case(rpf.joint_type_pmf, dict(system=RSYS, lam=0.5, max_jobs=4), dict(lam=[3.0], max_jobs=[-1, 1.5])),
    Case(rpf.m_model_constant, dict(lam=0.5, p12=0.5), dict(lam=POS + [3.0], p12=PROB, mu=POS)),
    Case(rpf.m_model_joint_pmf, dict(lam=0.5, p12=0.5, max_jobs=4), dict(lam=[3.0], max_jobs=[-1], p12=PROB)),
    Case(rlim.limit_laplace, dict(system=RSYS, t=[1.0, 1.0, 1.0]), dict(t=[[NAN, 1.0, 1.0], [-1.0, 1.0, 1.0], [1.0]])),
    Case(rlim.scaled_laplace, dict(system=RSYS, lam=0.9, t=[1.0, 1.0, 1.0]),
         dict(lam=POS + [3.0], t=[[NAN, 1.0, 1.0], [-1.0, 1.0, 1.0]], mechanism=["abc"])),
    Case(rlim.sojourn_laplace, dict(system=RSYS, lam=0.9, type_index=0, s=1.0),
         dict(lam=[3.0, NAN], type_index=[9, -1, 0.5], s=[NAN, -1.0])),
    Case(rlim.limit_sojourn_laplace, dict(system=RSYS, type_index=0, s=1.0), dict(type_index=[9], s=[NAN, -1.0])),
    Case(rlim.truncated_system, dict(system=RMIXED), dict(lam=[NAN, -1.0])),
    Case(rsim.simulate, dict(system=RSYS, lam=0.5, n_events=200, seed=1),
         dict(lam=POS + [3.0], n_events=INT1, mechanism=["nonsense"], seed=SEED, warmup_events=[-1, 1.5],
              initial_scale=[NAN, -1.0], hist_max=[0, -1], tracked=[(0, 9)])),
    # ---- paper U ---------------------------------------------------------------------------
    Case(U.PoolSystem, dict(utilities=(U.LogUtility(3), U.LogUtility(5)), alpha=(0.5, 0.5), rho=1.5),
         dict(utilities=[(), (U.LogUtility(3), math.log)], alpha=[(0.5, 0.6), (1.0, 0.0), (0.5, NAN), (1.0,)],
              rho=POS, mu=POS)),
    Case(U.LogUtility, dict(r=3.0), dict(r=POS)),
    Case(U.PiecewiseLinearUtility, dict(slopes=(2.0, 1.0), breakpoints=(3.0,)),
         dict(slopes=[(1.0, 2.0), (1.0,), (NAN, 1.0)], breakpoints=[(0.0,), (-1.0,), (NAN,)])),
    Case(U.StepUtility, dict(height=1.0), dict(height=[NAN, -1.0])),
    Case(U.tabulate, dict(utilities=[U.LogUtility(3)], max_tasks=5),
         dict(utilities=[[U.CallableUtility(lambda x: x ** 2, name="x^2")]], max_tasks=[-1, 1.5]),
         names=dict(utilities="concave")),
    Case(U.marginal_utilities, dict(system=USYS, max_tasks=5), dict(max_tasks=[-1, 1.5])),
    Case(U.enumeration, dict(system=USYS, depth=5), dict(depth=[0, -1, 1.5])),
    Case(U.overall_utility, dict(system=USYS, q=UQ0), dict(q=[UQ0[:1], -UQ0, np.full((2, 3), NAN)])),
    Case(U.optimal_assignment, dict(system=USYS), dict(rho=NONNEG + ["1"], depth=[0, -1], alpha=[(0.5, 0.6), (1.0,)])),
    Case(U.upper_bound, dict(system=USYS), dict(n=[0, -1, 1.5], rho=NONNEG + ["1"])),
    Case(U.class_change_loads, dict(system=USYS, rho_max=3.0), dict(rho_max=POS)),
    Case(U.check_state, dict(system=USYS, q=UQ0),
         dict(q=[UQ0[:1], -UQ0, np.array([[0.5, 0.6, 0.0], [0.5, 0.5, 0.1]]), np.array([[0.5, 0.2, 0.0], [0.5, 0.5, 0.6]])]),
         names=dict(q="q0")),
    Case(U.solve_fluid, dict(system=USYS, q0=UQ0, t_eval=TGRID),
         dict(q0=[-UQ0], t_eval=[[1.0, 0.5], [NAN], [-1.0, 1.0], []], max_step=[0.0, NAN, -1.0])),
    Case(U.solve_fluid_splitting, dict(system=USYS, q0=UQ0, t_eval=TGRID, dt=0.1),
         dict(q0=[-UQ0], t_eval=[[1.0, 0.5]], dt=POS)),
    Case(U.default_beta, dict(n=10), dict(n=[0, -1, 1.5])),
    Case(U.simulate, dict(system=USYS, n=4, policy="jlmu", horizon=5.0, seed=1),
         dict(n=[0, -1, 3, 1.5], policy=["nonsense"], horizon=POS, seed=SEED, warmup=[NAN, -1.0, 5.0, 6.0],
              beta=[NAN, 0.0, -1.0], r0=[-1, 0], target_class=[5, -1], sample_times=[[1.0, 0.5], [NAN], [-1.0], [6.0]],
              max_tasks=[0, -1])),
    Case(U.exact_stationary, dict(system=USYS, n=2, policy="jlmu", max_tasks=8),
         dict(n=[0, 3, -1], policy=["nonsense"], max_tasks=[0, -1, 1.5], beta=[NAN, -1.0], target_class=[5])),
    Case(U.two_pool_system, dict(eps=0.5, rho=1.0), dict(eps=POS + [1.5], rho=POS, a=POS)),
    Case(U.jlmu_mean_utility, dict(eps=0.5, rho=1.0), dict(eps=POS, rho=POS)),
    Case(U.critical_eps, dict(rho=1.0), dict(rho=POS, a=POS)),
    Case(U.stationary_mean_utility, dict(eps=0.5, rho=1.0, rule=U.jlmu_rule, truncation=30),
         dict(eps=POS, rho=POS, truncation=[0, -1, 1.5], rule=["jlmu"])),
    Case(U.table1_system, dict(), dict(rho=POS)),
]

IDS = [c.label for c in CASES]


def _bad_calls():
    for case in CASES:
        for param, values in case.bad.items():
            for value in values:
                # no memory address in an id: pytest-xdist requires every worker to collect the same ids
                label = re.sub(r" at 0x[0-9a-f]+", "", f"{case.label}-{param}={value!r}")
                yield pytest.param(case, param, value, id=label[:120])


def _call(case: Case, **changes):
    kwargs = {**case.valid, **changes}
    return case.func(**kwargs)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_valid_baseline_call_succeeds(case):
    with np.errstate(all="raise", under="ignore"):
        _call(case)


@pytest.mark.parametrize("case, param, value", list(_bad_calls()))
def test_a_bad_value_raises_a_parameter_error_naming_the_parameter(case, param, value):
    name = case.names.get(param, param)
    with np.errstate(all="raise", under="ignore"):
        with pytest.raises(ParameterError) as info:
            _call(case, **{param: value})
    message = str(info.value)
    assert name.lower() in message.lower(), f"the message does not name `{name}`: {message}"
    assert "\n" not in message.strip(), f"the message is not one line: {message!r}"


def test_the_developer_page_lists_every_audited_function():
    page = (Path(__file__).resolve().parents[1] / "book" / "developer.md").read_text(encoding="utf-8")
    missing = [c.label for c in CASES if f"`{c.label}`" not in page]
    assert not missing, f"book/developer.md's audit table lacks {missing}"


def test_printed_critical_loads_are_rounded():
    # power-of-2 on 4 unit-speed servers: lambda* = 1, computed as 0.9999999999999998
    system = rmodel.power_of_d(4, 2)
    assert rstab.critical_load(system) != 1.0 and abs(rstab.critical_load(system) - 1.0) < 1e-12
    with pytest.raises(InstabilityError) as info:
        rstab.require_stable(system, 1.0)
    assert "lambda* = 1," in str(info.value) and "0.99999" not in str(info.value), str(info.value)


def _subpackages() -> list[Path]:
    root = Path(__file__).resolve().parents[1] / "qtheory"
    return sorted(p.parent for p in root.rglob("__init__.py") if p.parent != root)


@pytest.mark.parametrize("package", _subpackages(), ids=lambda p: p.name)
def test_every_subpackage_declares_an_explicit_all(package):
    """A literal ``__all__`` (no star import, no computed list) whose every name exists."""
    import ast
    import importlib

    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)], \
        f"{package.name}/__init__.py star-imports"
    assigned = [n.value for n in tree.body if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(assigned) == 1, f"{package.name}/__init__.py must assign __all__ once"
    assert isinstance(assigned[0], (ast.List, ast.Tuple)) and \
        all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in assigned[0].elts), \
        f"{package.name}/__init__.py: __all__ must be a literal list of names"
    names = [e.value for e in assigned[0].elts]
    assert len(set(names)) == len(names), f"{package.name}: __all__ repeats a name"
    root = Path(__file__).resolve().parents[1]
    module = importlib.import_module(".".join(package.relative_to(root).parts))
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what the package does not define: {missing}"
    lazy = getattr(module, "_MODULE_OF", None)
    if lazy is not None:    # a package that loads its names on first access (PEP 562)
        assert set(lazy) == set(names), \
            f"{module.__name__}: the lazily loaded names differ from __all__: {sorted(set(lazy) ^ set(names))}"


def test_docstrings_hold_no_control_characters():
    """A ``:math:`\\rho``` in a docstring that is not raw would hold a carriage return
    (``\\r``), a backspace (``\\b``) or a form feed (``\\f``): the math breaks silently."""
    import ast

    root = Path(__file__).resolve().parents[1] / "qtheory"
    bad = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.ClassDef))]:
            doc = ast.get_docstring(node, clean=False) or ""
            if re.search(r"[\x00-\x08\x0b-\x1f]", doc):
                bad.append(f"{path.relative_to(root)}:{getattr(node, 'name', '<module>')}")
    assert not bad, f"docstrings with control characters (write r\"\"\"...\"\"\" or \\\\): {bad}"
