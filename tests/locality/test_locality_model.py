"""L model: validation names the parameter; capacity sufficiency (2.1); finite sizes."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.model import (LocalitySystem, occupancy_from_pmf, paper_initial_occupancy,
                                    paper_system, system_sizes)

GOOD = dict(arrival_rate=3.0, zeta=1.0, cluster_weights=(0.2, 0.8), type_fractions=(0.5, 0.3, 0.2),
            service_rates=(1.0, 5.0, 10.0), compatibility=((0.05, 0.6, 1.0), (0.1, 0.7, 1.0)), d=2)


@pytest.mark.parametrize("field, value, fragment", [
    ("compatibility", ((0.05, 1.2, 1.0), (0.1, 0.7, 1.0)), "compatibility[0, 1]"),
    ("compatibility", ((-0.1, 0.6, 1.0), (0.1, 0.7, 1.0)), "compatibility[0, 0]"),
    ("compatibility", ((0.0, 0.0, 0.0), (0.1, 0.7, 1.0)), "compatibility[0, :]"),
    ("compatibility", ((0.1, 0.7, 1.0),), "compatibility"),
    ("cluster_weights", (0.3, 0.8), "cluster_weights"),
    ("type_fractions", (0.5, 0.3, 0.3), "type_fractions"),
    ("type_fractions", (0.5, 0.5, 0.0), "type_fractions[2]"),
    ("service_rates", (1.0, 0.0, 10.0), "service_rates[1]"),
    ("service_rates", (1.0, 5.0), "service_rates"),
    ("arrival_rate", -1.0, "arrival_rate"),
    ("zeta", 0.0, "zeta"),
    ("d", 0, "d"),
    ("d", 2.0, "d"),
])
def test_bad_values_raise_naming_the_parameter(field, value, fragment):
    with pytest.raises(ParameterError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        LocalitySystem(**{**GOOD, field: value})


def test_paper_system_has_sufficient_capacity_and_is_frozen():
    s = paper_system()
    assert s.total_arrival_rate == 3.0 and s.capacity == pytest.approx(4.0)   # 3 < 0.5 + 1.5 + 2
    assert s.capacity_sufficient
    assert s.with_compatibility(np.ones((2, 3))).with_d(1).d == 1
    with pytest.raises(Exception):
        s.arrival_rate = 5.0
    over = LocalitySystem(**{**GOOD, "arrival_rate": 4.5})
    assert not over.capacity_sufficient


def test_neighbourhood_shares_are_distributions():
    s = paper_system()
    assert np.allclose(s.neighbourhood_shares.sum(axis=1), 1.0)
    assert np.allclose(s.delta, [0.405, 0.46])


def test_sizes_round_to_the_fractions_and_reject_empty_types():
    sizes = system_sizes(paper_system(), 1000)
    assert sizes.servers_per_type.tolist() == [500, 300, 200]
    assert sizes.dispatchers_per_cluster.tolist() == [200, 800]
    odd = system_sizes(paper_system(), 7)
    assert odd.n_servers == 7 and odd.servers_per_type.min() >= 1
    with pytest.raises(ParameterError, match="too small"):
        system_sizes(paper_system(), 2)


def test_paper_initial_condition_readings():
    literal = paper_initial_occupancy("Q", "lengths-1-3")
    assert np.allclose(literal[:, 0], 1.0)                       # nobody starts empty
    assert np.allclose(literal[0], [1.0, 0.8, 0.3])
    shifted = paper_initial_occupancy("Q", "lengths-0-2")
    assert np.allclose(shifted[:, 0], [0.8, 0.5, 0.1])
    with pytest.raises(ParameterError, match="reading"):
        paper_initial_occupancy("Q", "tails")


def test_occupancy_from_pmf_rejects_a_row_not_summing_to_one():
    with pytest.raises(ParameterError, match=r"pmf\[1\]"):
        occupancy_from_pmf([[0.5, 0.5], [0.5, 0.4]])


def test_homogeneous_constructor_is_the_supermarket_model():
    from qtheory.locality.meanfield import fixed_point

    s = LocalitySystem.homogeneous(0.9, d=2)
    assert s == LocalitySystem(0.9, 1.0, (1.0,), (1.0,), (1.0,), ((1.0,),), 2)
    # Vvedenskaya et al. (1996): q_l = rho^((d^l - 1) / (d - 1)) for JSQ(d), an independent closed form
    q = fixed_point(s).q[0, :5]     # levels 1..5
    assert np.allclose(q, 0.9 ** ((2.0 ** np.arange(1, 6) - 1) / (2 - 1)), atol=1e-10)
    with pytest.raises(ParameterError, match="load"):
        LocalitySystem.homogeneous(0.0)
    with pytest.raises(ParameterError, match="`d`"):
        LocalitySystem.homogeneous(0.5, d=0)
