"""Facts every registered locality policy must satisfy, parametrised over the registry: a
policy file added to ``qtheory/locality/policies/`` is tested here without being listed.

* the simulator follows the same path whatever integer width holds the queue lengths;
* a bad parameter raises a ParameterError that names it;
* the simulator agrees with the exact chain of a tiny system built from the policy's own
  ``exact_rule`` (:func:`qtheory.locality.exact.policy_stationary`), a plain-Python reading
  written independently of its compiled rule.
"""

import inspect

import numpy as np
import pytest
from scipy import stats

import qtheory.locality.simulation as sim
from qtheory._kernelcache import dependency_hash
from qtheory.locality.exact import policy_stationary, type_occupancy
from qtheory.locality.graphs import from_adjacency, irg
from qtheory.locality.model import LocalitySystem, paper_system
from qtheory.locality.policies import REGISTRY
from qtheory.runtime import cached_values, spawn
from tests._registry_checks import assert_bad_parameters_refused_by_name

POLICIES = sorted(REGISTRY)


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("top", [0, 254])
def test_every_integer_width_gives_the_int32_path(monkeypatch, name, top):
    """From uint8 (restarting in uint16 where a queue outgrows it, top = 254) or int32
    throughout: the same draws, the same path."""
    system = paper_system("design", d=2)
    graph = irg(system, 60, seed=2)
    x0 = np.zeros(60, np.int64)
    x0[::4] = top
    grid = np.linspace(0.0, 20.0, 41)
    policy = REGISTRY[name]()
    monkeypatch.setattr(sim, "_NARROW_FROM", 1 << 40)        # int32 throughout
    wide = sim.simulate(system, graph, policy, initial_state=x0, t_grid=grid, seed=7)
    monkeypatch.setattr(sim, "_NARROW_FROM", 0)              # narrow from the first server
    narrow = sim.simulate(system, graph, policy, initial_state=x0, t_grid=grid, seed=7)
    for field in ("occupancy", "mean_queue_length", "mean_square", "final_state", "events", "policy_state"):
        np.testing.assert_array_equal(getattr(narrow, field), getattr(wide, field), err_msg=field)


@pytest.mark.parametrize("name", POLICIES)
def test_a_bad_parameter_is_refused_by_name(name):
    assert_bad_parameters_refused_by_name(REGISTRY[name])


# a tiny system: 3 dispatchers, 4 servers of 2 types, unequal rates and degrees
ADJ = np.array([[1, 1, 1, 0], [0, 1, 1, 1], [1, 0, 0, 1]])
TYPES = [0, 0, 1, 1]
GRAPH = from_adjacency(ADJ, TYPES, [0, 0, 1])
SYSTEM = LocalitySystem(0.6, 0.75, (2 / 3, 1 / 3), (0.5, 0.5), (1.0, 1.5), ((0.3, 1.0), (1.0, 0.5)), 2)
#: queues truncated at 12 tasks (JIQ's tail needs them), 8 for a policy with memory, whose chain
#: is over (queues, remembered servers): 260,416 states instead of 28,561 x 48
BUFFER, MEMORY_BUFFER = 12, 8
LEVELS = 3


def test_every_policy_has_an_exact_rule_and_a_policy_with_memory_its_start():
    """The generic exact-chain test below covers every registered policy: one without an exact
    rule, or with a state (``initial_state``) but no ``exact_start``, fails here by name."""
    missing = [n for n in POLICIES if REGISTRY[n].exact_rule is None]
    assert not missing, f"registered policies without an `exact_rule`: {missing}"
    for n in POLICIES:
        policy = REGISTRY[n]()
        if policy.initial_state(SYSTEM, GRAPH).size:
            assert policy.exact_start(SYSTEM, GRAPH) is not None, f"{n} keeps a state but has no `exact_start`"


@pytest.mark.parametrize("name", POLICIES)
def test_the_simulator_matches_the_exact_chain_of_the_exact_rule(name):
    policy = REGISTRY[name]()
    buffer = BUFFER if policy.exact_start(SYSTEM, GRAPH) is None else MEMORY_BUFFER
    # the solved chain (260,416 states for a policy with memory: 25 s) is kept in the value cache,
    # keyed by the inputs, the code of this file and every package file it imports, and the code of
    # the policy's own module (the registry imports the policy files by name, which the import walk
    # does not follow): an edit of the exact chain or of a policy's rule solves it afresh
    rule_code = dependency_hash(inspect.getfile(type(policy))).hex()
    chain = cached_values("tests-policy-stationary",
                          dict(policy=policy, rule_code=rule_code, buffer=buffer, system=SYSTEM, adjacency=ADJ,
                               types=TYPES),
                          lambda: dict(zip(("states", "pi"), policy_stationary(SYSTEM, GRAPH, policy, buffer))))
    states, pi = chain["states"], chain["pi"]
    assert pi[states.max(axis=1) == buffer].sum() < 1e-5       # the truncation is negligible
    exact = type_occupancy(states, pi, TYPES, LEVELS)
    grid = np.linspace(0.0, 3000.0, 30001)
    runs = np.array([sim.simulate(SYSTEM, GRAPH, policy, initial_state=np.zeros(4, np.int64), t_grid=grid, seed=ss, levels=LEVELS)
                     .occupancy[grid >= 100.0].mean(axis=0) for ss in spawn(31, 16)])
    mean = runs.mean(axis=0)
    se = runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
    # 16 independent replications, 6 comparisons: the two-sided t(15) quantile at 1e-4 / 6
    # (about 5.6) keeps the chance of a false alarm below 1e-4 for a correct rule
    t = float(stats.t.ppf(1 - 0.5e-4 / exact.size, runs.shape[0] - 1))
    assert np.all(np.abs(mean - exact) <= t * se), (mean, exact, se)


@pytest.mark.parametrize("name", [n for n in POLICIES if REGISTRY[n].reads_lists])
def test_a_dispatcher_without_a_compatible_server_is_refused_by_name(name):
    """A policy that sends a task to a neighbour cannot serve a dispatcher with none
    (`policies.require_served`, the check every such policy's kernel_params makes)."""
    from qtheory.errors import ParameterError

    lonely = from_adjacency(np.array([[1, 1, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]]), TYPES, [0, 0, 1])
    with pytest.raises(ParameterError, match="dispatcher 1 has no compatible server"):
        REGISTRY[name]().kernel_params(SYSTEM, lonely)
