"""The registry behind each paper's ``policies`` package (:mod:`qtheory.utility.policies`,
:mod:`qtheory.locality.policies`): policy classes by name and their compiled rules."""

from __future__ import annotations

import sys

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
            _importable(params_class)
            return cls

        return wrap

    def rule_of(policy):
        """The compiled decision rule of a registered policy (object or class)."""
        return rules[policy.name]

    return classes, register, rule_of


def _importable(params_class) -> None:
    """Make `params_class` importable under its own name from its module.

    A policy file writes ``Params = namedtuple("LocalJSQParams", ...)``: the class is
    bound to ``Params`` but named ``LocalJSQParams``. numba's cache stores a kernel's
    signature, which holds this class, with the class pickled by reference when
    ``module.<name>`` is the class and by value otherwise; a class pickled by value comes
    back as a new class, the signature of the cached kernel no longer equals the one of
    the call, and every new process compiled the kernel again (about 2 s per kernel
    and process, in every worker of every replication pool). Binding the name as well
    lets the cache hit.
    """
    module = sys.modules.get(params_class.__module__)
    name = params_class.__qualname__
    if module is not None and "." not in name and getattr(module, name, params_class) is params_class:
        setattr(module, name, params_class)
