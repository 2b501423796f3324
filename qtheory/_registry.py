"""The registry behind each paper's ``policies`` package (:mod:`qtheory.utility.policies`,
:mod:`qtheory.locality.policies`): policy classes by name and their compiled rules."""

from __future__ import annotations

__all__ = ["policy_registry"]


def policy_registry():
    """A new registry: ``(REGISTRY, register, rule_of)``.

    ``register(params_class, rule)`` is a class decorator that records a policy class under
    its ``name`` (refusing an empty or repeated name), sets its ``Params`` and keeps its
    compiled ``rule``; ``rule_of(policy)`` returns the rule of a registered policy (object
    or class).
    """
    classes: dict[str, type] = {}
    rules: dict[str, object] = {}

    def register(params_class, rule):
        """Class decorator: register a policy class under its ``name`` with its parameter
        tuple class `params_class` and its compiled decision `rule`."""

        def wrap(cls):
            if not cls.name or cls.name in classes:
                raise ValueError(f"policy name {cls.name!r} is empty or registered twice")
            classes[cls.name] = cls
            rules[cls.name] = rule
            cls.Params = params_class
            return cls

        return wrap

    def rule_of(policy):
        """The compiled decision rule of a registered policy (object or class)."""
        return rules[policy.name]

    return classes, register, rule_of
