"""One policy model for the three papers: the base class of the dispatching policies of
papers L and U (and of paper R's redundancy mechanisms), their registries, and the pieces
of the spliced kernels the papers share.

A policy is a frozen dataclass whose fields are its parameters, checked in
``__post_init__`` with messages naming the parameter; what the simulator and the exact
chains need of it are class attributes:

``name``
    the registered name (``"jsqd"``, ``"slta"``, ...): setting it registers the class in
    its paper's registry when the class is defined, so a policy file is found and registered
    by its package's :func:`discover` without any list to edit.
``Params``
    a :func:`collections.namedtuple` class of the rule's kernel parameters.
``rule``
    the ``numba.njit`` decision rule spliced into the simulation kernel
    (:mod:`qtheory._splice`).
``lookahead``
    optional (paper L): the ``numba.njit`` prefetch function spliced at the kernel's
    lookahead point.
``exact_rule``
    a plain-Python method giving the law of an arrival's destination, written independently
    of ``rule``, read by the paper's exact chain (every registered policy has one: the
    registry tests of each paper fail a policy without).
``initial_state``, ``exact_start``
    methods of a policy with memory: its state ``st`` at the start of a run (a 1-D int64
    array the rule updates; every kernel attempt starts from a fresh one) and at the start
    of the exact chain (hashable), whose states are then (queues, policy state) and whose
    ``exact_rule`` takes the policy state and returns ``(destination, probability, next
    policy state)`` (:mod:`qtheory._chain` builds both papers' chains).

A paper's base class is declared with ``family=True``
(``class Policy(_policy.Policy, family=True)``) and holds that paper's ``REGISTRY``.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .errors import ParameterError

__all__ = ["Policy", "discover", "as_policy", "decide", "rule_of", "_ix"]

#: the index type of the kernels' and rules' subscripts: ``arr[_ix(i)]`` casts the index to
#: unsigned, so that numba omits the negative-index wrap-around it emits for a signed one
#: (every index there is >= 0)
_ix = np.uint64


def decide(*arguments):
    """The dispatch point of a simulation kernel's template: :mod:`qtheory._splice` replaces
    the statement ``p = decide(<arguments>)`` by the body of the policy's rule when it
    compiles the kernel for that policy. Not callable itself."""
    raise NotImplementedError("decide is a placeholder spliced out of the kernel template")


@dataclass(frozen=True)
class Policy:
    """Base class of the policies of every paper (see the module docstring)."""

    name: ClassVar[str] = ""
    Params: ClassVar[type | None] = None
    rule: ClassVar = None
    lookahead: ClassVar = None
    exact_rule: ClassVar = None
    #: the paper's registry (set on the paper's base class, declared with ``family=True``)
    REGISTRY: ClassVar[dict] = None
    #: the class attributes holding numba functions spliced into a kernel (stored as static methods)
    SPLICED: ClassVar[tuple] = ("rule", "lookahead")

    def __init_subclass__(cls, *, family: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        for attr in cls.SPLICED:
            # a numba function bound as a method would receive the policy as first argument
            func = cls.__dict__.get(attr)
            if func is not None and not isinstance(func, staticmethod):
                setattr(cls, attr, staticmethod(func))
        if family:
            cls.REGISTRY = {}
        elif cls.__dict__.get("name"):
            _register(cls)


def _register(cls) -> None:
    """Record `cls` in its paper's registry under its ``name``, after checking that it is a
    complete policy."""
    registry = cls.REGISTRY
    where = f"{cls.__module__}.{cls.__qualname__}"
    if registry is None:
        raise TypeError(f"{where} derives from qtheory._policy.Policy directly: derive from a paper's Policy")
    if cls.name in registry:
        raise ValueError(f"policy name {cls.name!r} of {where} is already registered by "
                         f"{registry[cls.name].__module__}.{registry[cls.name].__qualname__}")
    params, rule = cls.__dict__.get("Params", cls.Params), cls.rule
    if params is None or not (isinstance(params, type) and issubclass(params, tuple) and hasattr(params, "_fields")):
        raise TypeError(f"{where} must set `Params`, a collections.namedtuple class of its kernel parameters")
    if rule is None:
        raise TypeError(f"{where} must set `rule`, its numba.njit decision rule")
    registry[cls.name] = cls
    _importable(params)


def rule_of(policy):
    """The compiled decision rule of a policy (object or class)."""
    return policy.rule


def discover(package: str, path, namespace: dict) -> None:
    """Import every policy file of `package` (each module of `path` whose name does not start
    with ``_``; in name order) and bind each registered class of its family in `namespace`
    (the package's globals) and its ``__all__``, so that ``from <package> import SLTA``
    works for every policy without a list to edit."""
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")
    names = namespace.setdefault("__all__", [])
    family = namespace["Policy"]
    for cls in family.REGISTRY.values():
        namespace.setdefault(cls.__name__, cls)
        if cls.__name__ not in names:
            names.append(cls.__name__)


def _option_default(registry: dict, option: str):
    """The default of the parameter `option` of the registered policies that have one."""
    for cls in registry.values():
        for f in dataclasses.fields(cls):
            if f.name == option:
                return f.default
    raise ParameterError(f"no registered policy has a parameter `{option}`")


def as_policy(family, policy, **options):
    """A policy of `family` (a paper's base class) from an object (returned unchanged) or a
    registered name plus keyword parameters.

    With a name, each option that the policy has is passed to it (``None``: its default); an
    option it does not have must be left at its default (None, or the default of the policies
    that have it): a value the policy would drop is refused by name, never ignored. With an
    object, the options must be left at their defaults (the object owns its parameters).
    """
    registry = family.REGISTRY
    if isinstance(policy, family):
        given = [k for k, v in options.items() if v is not None and v != _option_default(registry, k)]
        if given:
            raise ParameterError(f"give {', '.join(f'`{k}`' for k in given)} inside the policy object, "
                                 f"not as keywords (got policy={policy!r})")
        return policy
    if not isinstance(policy, str) or policy not in registry:
        raise ParameterError(f"`policy` must be one of {', '.join(registry)} or a {family.__name__} object "
                             f"(got {policy!r})")
    cls = registry[policy]
    own = {f.name for f in dataclasses.fields(cls)}
    dropped = [k for k, v in options.items() if k not in own and v is not None and v != _option_default(registry, k)]
    if dropped:
        raise ParameterError(f"{', '.join(f'`{k}`' for k in dropped)} {'is not a parameter' if len(dropped) == 1 else 'are not parameters'} "
                             f"of policy {policy!r} (its parameters: {', '.join(f'`{k}`' for k in sorted(own)) or 'none'}); "
                             f"got {', '.join(f'{k}={options[k]!r}' for k in dropped)}")
    return cls(**{k: v for k, v in options.items() if k in own and v is not None})


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
