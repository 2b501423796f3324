"""The shared registry check (tests/_registry_checks.py) can fail: it refuses a class that
accepts a bad value, raises another error, names another parameter, or says neither what
the parameter must be nor what it got."""

from dataclasses import dataclass

import pytest

from qtheory.errors import ParameterError
from tests._registry_checks import assert_bad_parameters_refused_by_name


def _policy(message=None, error=ParameterError):
    @dataclass(frozen=True)
    class Policy:
        d: int = 2

        def __post_init__(self):
            if not isinstance(self.d, int) or self.d < 1:
                if message is not None:
                    raise error(message.format(got=self.d))

    return Policy


def test_a_policy_that_names_its_parameter_passes():
    assert_bad_parameters_refused_by_name(_policy("`d` must be an integer >= 1 (got {got!r})"))


@pytest.mark.parametrize("message, error", [
    (None, ParameterError),                                        # bad values accepted
    ("`d` must be an integer >= 1 (got {got!r})", ValueError),     # not a ParameterError
    ("`degree` must be an integer >= 1 (got {got!r})", ParameterError),  # another name
    ("`d` is wrong", ParameterError),                              # no condition, no value
])
def test_a_policy_that_does_not_is_refused(message, error):
    with pytest.raises((AssertionError, pytest.fail.Exception, ValueError)):
        assert_bad_parameters_refused_by_name(_policy(message, error))
