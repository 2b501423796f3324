"""Checks shared by the registry tests of the three papers
(``tests/<paper>/test_registered_*.py``), written once here.

A policy or mechanism class registered in a paper's registry is a frozen dataclass whose
fields are its parameters, validated in ``__post_init__``.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from qtheory.errors import ParameterError

BAD_VALUES = (-1, "nonsense")
"""A value out of range for every parameter the registries hold (counts, sizes, rates) and a
value of the wrong type."""


def assert_bad_parameters_refused_by_name(cls, bad_values=BAD_VALUES) -> None:
    """Give each dataclass field of `cls` each of `bad_values` in turn (the other fields at
    their defaults): each must raise a ParameterError whose message names the field in
    backticks, says what it ``must`` be, and shows the value it got (``(got ...)``)."""
    for field in dataclasses.fields(cls):
        for bad in bad_values:
            with pytest.raises(ParameterError, match=f"`{re.escape(field.name)}`") as err:
                cls(**{field.name: bad})
            message = str(err.value)
            assert " must " in message and "(got " in message, (cls.__name__, field.name, message)
