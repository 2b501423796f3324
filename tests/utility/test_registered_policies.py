"""Facts every registered utility policy must satisfy, parametrised over the registry: a
policy file added to ``qtheory/utility/policies/`` is tested here without being listed.

* a bad parameter raises a ParameterError that names it;
* the simulator agrees with the exact chain (:func:`qtheory.utility.exact.exact_stationary`:
  the paper's policies read from the paper there, the others from their own ``exact_rule``,
  written independently of the compiled rule).
"""

import numpy as np
import pytest
from scipy import stats

from qtheory.runtime import spawn
from qtheory.utility import LogUtility, PoolSystem, exact_stationary, simulate
from qtheory.utility.policies import REGISTRY
from tests._registry_checks import assert_bad_parameters_refused_by_name

POLICIES = sorted(REGISTRY)
SMALL = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
N = 4


@pytest.mark.parametrize("name", POLICIES)
def test_a_bad_parameter_is_refused_by_name(name):
    assert_bad_parameters_refused_by_name(REGISTRY[name])


@pytest.mark.parametrize("name", POLICIES)
def test_the_simulator_matches_the_exact_chain(name):
    policy = REGISTRY[name]()
    exact = exact_stationary(SMALL, N, policy, max_tasks=22)      # Poisson(6) tail < 1e-6
    runs = [simulate(SMALL, N, policy, horizon=10000.0, warmup=10.0, seed=ss) for ss in spawn(41, 12)]
    util = np.array([r.mean_utility for r in runs])
    tasks = np.array([r.mean_tasks for r in runs])
    # 12 independent replications, 2 comparisons: the two-sided t(11) quantile at 1e-4 / 2
    # keeps the chance of a false alarm below 1e-4 for a correct rule
    t = float(stats.t.ppf(1 - 0.25e-4, util.size - 1))
    for sims, value in ((util, exact.mean_utility), (tasks, exact.mean_tasks)):
        se = sims.std(ddof=1) / np.sqrt(sims.size)
        assert abs(sims.mean() - value) <= t * se, (sims.mean(), value, se)


@pytest.mark.parametrize("name", ["jlmu", "slta"])
def test_the_loop_with_drawn_holding_times_matches_the_exact_chain(name):
    """With sample times the kernel draws every holding time (another compiled loop than the
    one above, which weighs states by their mean holding times): its time averages agree
    with the exact chain as well."""
    policy = REGISTRY[name]()
    exact = exact_stationary(SMALL, N, policy, max_tasks=22)
    times = np.array([5000.0, 10000.0])
    runs = [simulate(SMALL, N, policy, horizon=10000.0, warmup=10.0, seed=ss, sample_times=times)
            for ss in spawn(43, 12)]
    util = np.array([r.mean_utility for r in runs])
    tasks = np.array([r.mean_tasks for r in runs])
    t = float(stats.t.ppf(1 - 0.25e-4, util.size - 1))  # as above: 2 comparisons, 1e-4 in all
    for sims, value in ((util, exact.mean_utility), (tasks, exact.mean_tasks)):
        se = sims.std(ddof=1) / np.sqrt(sims.size)
        assert abs(sims.mean() - value) <= t * se, (sims.mean(), value, se)


def test_every_policy_has_an_exact_rule_and_a_policy_with_memory_its_start():
    """The generic exact-chain tests above cover every registered policy: one without an exact
    rule, or with the index ``r_n`` but no ``exact_start``, fails here by name."""
    from qtheory.utility.exact import ExactChain

    missing = [n for n in POLICIES if REGISTRY[n].exact_rule is None]
    assert not missing, f"registered policies without an `exact_rule`: {missing}"
    chain = ExactChain(SMALL, N, np.repeat([0, 1], 2), None, None, 22)
    for n in POLICIES:
        if REGISTRY[n].has_index:
            assert REGISTRY[n]().exact_start(chain) is not None, f"{n} keeps an index but has no `exact_start`"


def test_a_chain_past_max_states_is_refused_by_name():
    from qtheory.errors import ParameterError

    with pytest.raises(ParameterError, match=r"more than 10 states: raise `max_states`"):
        exact_stationary(SMALL, N, "random", max_tasks=22, max_states=10)
    with pytest.raises(ParameterError, match="`max_states`"):
        exact_stationary(SMALL, N, "random", max_tasks=22, max_states=0)
