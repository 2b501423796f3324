"""Dispatching policies of the utility paper as frozen, validated objects.

Each policy owns and checks its own parameters and names the integer code of its branch in
the compiled kernel of :mod:`qtheory.utility.simulation` (one dispatch point there).
:func:`as_policy` turns the old string names (``"jlmu"``, ``"slta"``, ...) plus keyword
parameters into these objects, so ``simulate(..., policy="slta", beta=b)`` and
``simulate(..., policy=SLTA(beta=b))`` run the same kernel with the same arguments.

Parameters that depend on the system (SLTA's ``r0 <= number of valid coordinates``, the
conservative policy's ``target_class < m``) are checked again by
:func:`qtheory.utility.simulation.simulate`, which knows the system.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError
from ..validation import check_integer, check_positive

__all__ = ["Policy", "JLMU", "SLTA", "Random", "JSQ", "Conservative", "REGISTRY", "as_policy"]


@dataclass(frozen=True)
class Policy:
    """Base class: ``name`` (registry key) and ``code`` (kernel branch)."""

    name = ""
    code = -1


@dataclass(frozen=True)
class JLMU(Policy):
    """Join the largest marginal utility (8), ties to the smaller class."""

    name = "jlmu"
    code = 0


@dataclass(frozen=True)
class SLTA(Policy):
    """Self-learning threshold assignment (Sec. 3.2); ``beta=None`` means ``default_beta(n)``."""

    beta: float | None = None
    r0: int = 1
    name = "slta"
    code = 1

    def __post_init__(self):
        if self.beta is not None:
            object.__setattr__(self, "beta", check_positive("beta", self.beta))
        object.__setattr__(self, "r0", check_integer("r0", self.r0, low=1))


@dataclass(frozen=True)
class Random(Policy):
    """A uniformly random pool."""

    name = "random"
    code = 2


@dataclass(frozen=True)
class JSQ(Policy):
    """Join the shortest queue ignoring classes."""

    name = "jsq"
    code = 3


@dataclass(frozen=True)
class Conservative(Policy):
    """Every task to class ``target_class`` (``None``: the last class)."""

    target_class: int | None = None
    name = "conservative"
    code = 4

    def __post_init__(self):
        if self.target_class is not None:
            object.__setattr__(self, "target_class",
                               check_integer("target_class", self.target_class, low=0))


REGISTRY = {cls.name: cls for cls in (JLMU, SLTA, Random, JSQ, Conservative)}


def as_policy(policy, *, beta=None, r0=1, target_class=None) -> Policy:
    """A :class:`Policy` from an object (returned unchanged; then keyword parameters must be
    left at their defaults) or from a registered name plus the old keyword parameters."""
    if isinstance(policy, Policy):
        if beta is not None or r0 != 1 or target_class is not None:
            raise ParameterError("give `beta`, `r0`, `target_class` inside the policy object, "
                                 f"not as keywords (got policy={policy!r})")
        return policy
    if policy not in REGISTRY:
        raise ParameterError(f"`policy` must be one of {', '.join(REGISTRY)} or a Policy (got {policy!r})")
    # the old string interface checked these for every policy: keep doing so
    if beta is not None:
        beta = check_positive("beta", beta)
    if target_class is not None:
        target_class = check_integer("target_class", target_class, low=0)
    r0 = check_integer("r0", r0, low=1)
    if policy == "slta":
        return SLTA(beta=beta, r0=r0)
    if policy == "conservative":
        return Conservative(target_class=target_class)
    return REGISTRY[policy]()
