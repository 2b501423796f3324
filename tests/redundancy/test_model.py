"""R-P-types: the model and its families validate their input and have the stated shapes."""

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy import model as M


@pytest.mark.parametrize("kwargs, match", [
    (dict(speeds=[1, 1], types=[(0,), ()], probabilities=[0.5, 0.5]), r"types\[1\]` is empty"),
    (dict(speeds=[1, 1], types=[(0,), (1,)], probabilities=[0.5, 0.6]), "sum to 1"),
    (dict(speeds=[1, 1], types=[(0,), (2,)], probabilities=[0.5, 0.5]), "outside the range"),
    (dict(speeds=[1, 1], types=[(0, 1), (1, 0)], probabilities=[0.5, 0.5]), "duplicates"),
    (dict(speeds=[1, 1], types=[(0,)], probabilities=[1.0]), "belong to no job type"),
    (dict(speeds=[1, -1], types=[(0, 1)], probabilities=[1.0]), "speeds"),
    (dict(speeds=[1, 1], types=[(0, 1)], probabilities=[0.0]), "probabilities"),
    (dict(speeds=[1, 1], types=[(0, 1)], probabilities=[0.5, 0.5]), "shape"),
    (dict(speeds=[1, 1], types=[(0, 0)], probabilities=[1.0]), "twice"),
])
def test_invalid_systems_are_rejected_naming_the_parameter(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        M.RedundancySystem(**kwargs)


def test_power_of_d_has_all_d_subsets_with_equal_probability():
    sy = M.power_of_d(6, 3)
    assert sy.n_types == math.comb(6, 3)
    assert all(len(t) == 3 for t in sy.types)
    np.testing.assert_allclose(sy.probabilities, 1 / 20)


def test_circular_d_wraps_around():
    sy = M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1])
    assert sy.types == ((0, 1), (1, 2), (2, 3), (0, 3))
    assert sy.labels == ("1", "2", "3", "4")


def test_eps_example_has_mean_replication_degree_one_plus_eps():
    for eps in (0.0, 0.3, 1.0):
        sy = M.single_plus_full(5, eps, speeds=[1, 2, 3, 1, 1])
        assert sy.replication_degree == pytest.approx(1 + eps)
        assert sy.n_types == 5 + (eps > 0)


def test_m_model_and_fully_flexible():
    sy = M.m_model(7 / 12)
    assert sy.types == ((0, 1), (1, 2)) and sy.labels == ("{1,2}", "{2,3}")
    assert M.fully_flexible(3).types == ((0, 1, 2),)
    with pytest.raises(ParameterError, match="p12"):
        M.m_model(1.0)
    with pytest.raises(ParameterError, match="d"):
        M.power_of_d(4, 5)
