"""qtheory._splice: a kernel template with one dispatch point, specialised on a rule."""

import numpy as np
import pytest
from numba import njit

from qtheory import _splice
from qtheory.utility.policies import REGISTRY, rule_of
from qtheory.utility.simulation import _kernel_template


def decide(a, b):  # the placeholder the templates below dispatch through
    raise NotImplementedError


def _template(a, b, out):
    total = 0
    for i in range(a.shape[0]):
        x = decide(a, b)
        out[i] = x
        total += x
    return total


@njit(cache=True)
def _twice(a, b):
    i = b * 2          # a local that would clash with the template's loop variable
    return a[0] + i


@njit
def _early(a, b):
    if b > 0:
        return 1
    return 2


@njit
def _wrong_args(a, c):
    return a[0]


def test_spliced_kernel_runs_the_rule_in_place_without_clashing_names():
    kernel = _splice.specialise(_template, _twice)
    out = np.zeros(3)
    a = np.array([1.0, 5.0, 7.0])
    assert kernel(a, 2, out) == 3 * (1.0 + 4)
    np.testing.assert_array_equal(out, [5.0, 5.0, 5.0])  # `i` of the rule did not overwrite the loop's


@pytest.mark.parametrize("rule, message", [(_early, "only `return"), (_wrong_args, r"must take \(a, b\)")])
def test_rules_that_cannot_be_spliced_are_refused(rule, message):
    with pytest.raises(ValueError, match=message):
        _splice.specialise(_template, rule)


def test_a_template_needs_exactly_one_dispatch_point():
    def no_dispatch(a, b):
        return a

    with pytest.raises(ValueError, match="exactly one"):
        _splice.specialise(no_dispatch, _twice)


def test_every_registered_utility_policy_splices_into_the_kernel():
    for name, cls in REGISTRY.items():
        text = _splice._source(_kernel_template, rule_of(cls))
        assert "decide(" not in text, name


def touch(c, d):  # a second placeholder
    raise NotImplementedError


def _two_points(a, b, out):
    total = 0
    for i in range(a.shape[0]):
        y = touch(b, i)
        x = decide(a, b)
        out[i] = x + y
        total += x
    return total


@njit(cache=True)
def _scaled(k, j):
    """Names its parameters as it likes: they become the template's b and i."""
    i = 100          # a local named like the template's loop variable
    return k * j + i


@njit
def _assigns_parameter(k, j):
    k = 1
    return k + j


def test_a_function_at_a_second_placeholder_takes_the_call_arguments():
    kernel = _splice.specialise(_two_points, _twice, {"touch": _scaled})
    out = np.zeros(3)
    a = np.array([1.0, 5.0, 7.0])
    assert kernel(a, 2, out) == 3 * (1.0 + 4)
    np.testing.assert_array_equal(out, [5.0 + 2 * i + 100 for i in range(3)])
    text = _splice._source(_two_points, _twice, {"touch": _scaled})
    assert "touch(" not in text and "decide(" not in text


def test_a_function_at_a_second_placeholder_may_not_assign_its_parameters():
    with pytest.raises(ValueError, match="assigns to a parameter"):
        _splice.specialise(_two_points, _twice, {"touch": _assigns_parameter})
