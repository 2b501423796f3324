"""Dispatching policies of the utility paper: one file per policy, one registry.

A policy is a frozen dataclass deriving from :class:`Policy` that owns and checks its
parameters (``SLTA(beta=0.1, r0=1)``) and names its compiled decision rule (the shared
model of :mod:`qtheory._policy`). Every file of this folder is imported when the package
is, and a class that sets ``name`` is registered when it is defined: a new policy is a new
file, available by object or name to :func:`qtheory.utility.simulation.simulate`,
:func:`qtheory.utility.exact.exact_stationary` and the notebooks.

What a policy file provides (class attributes of the policy, except the methods):

``Params``
    a :func:`collections.namedtuple` class of the policy's kernel parameters (numbers and
    arrays).
``rule(...)``, taking any of ``params, st, rng, u, n, offset, bound, minocc, perm, pool_class, occ, key``
    (only those it uses, by name: ``rule(u, n)``, returning ``pick(u, n)``, is random assignment)
    a ``numba.njit`` function evaluated for every arrival, on the state right before the
    task is placed; it returns the pool that receives the task, or a negative error code
    (see :data:`ERRORS`), and its last statement is its only ``return``. It may not assign
    to its parameters (it may write into the arrays ``st`` and ``params``' own) nor read a
    module-level name that the kernel template binds itself; :mod:`qtheory._splice` refuses
    such a rule naming its file and line. The simulation
    kernel is compiled once per policy with the rule's body in place of its dispatch point
    (:mod:`qtheory._splice`), and cached on disk like any other kernel. The state it may read: ``n`` pools ordered by class
    (``offset[i]:offset[i + 1]`` are class ``i``), ``perm`` the pools sorted by (class,
    occupancy) with ``bound[i, x]`` the first position in ``perm`` of a class-``i`` pool
    with at least ``x`` tasks, ``minocc[i]`` the least occupancy in class ``i``,
    ``pool_class[p]``, ``occ[p]``, and ``key[i, x]`` the marginal utility
    ``Delta(i, x)`` rounded for tie-breaking (the integer arrays are int32). ``st`` is the policy's own int64 state
    (``st[0]`` is the index ``r_n`` recorded by the simulator, 1 for policies without one);
    ``u`` is a uniform 64-bit word drawn for this arrival (independent of the state and
    the past), for the rule's one uniform choice ``pick(u, k)`` (:func:`pick`); ``rng`` is
    the kernel's generator (:mod:`qtheory._rng`) for any further draw. A rule reads the
    arrays of ``params`` in place (``params.levels[k]``), without binding them to a name:
    in the kernel such a name would hold a reference counted at every arrival.
``kernel_params(system, n, depth)`` and ``initial_state(params, m)``
    methods that build ``Params`` (for a run of ``n`` pools with `depth` tabulated levels,
    checking the parameters that depend on the system) and ``st``, the policy's own state.
``exact_rule(chain, occ)`` (a method)
    the list of ``(pool, probability)`` of an arrival in state ``occ`` (``chain`` holds the
    pools' classes ``chain.cls``, the rounded marginal utilities ``chain.key`` and the
    system: :class:`~qtheory.utility.exact.ExactChain`), written in plain Python independently
    of ``rule``, from which :func:`qtheory.utility.exact.exact_stationary` builds the exact
    chain. Every registered policy has one. A policy with memory also defines
    ``exact_start(chain)``, its state at the start of the chain, and its exact rule is
    ``exact_rule(chain, occ, policy_state)`` returning ``(pool, probability, next policy
    state)``: SLTA's state is its index ``r_n``.

:func:`as_policy` turns the registered names (``"jlmu"``, ``"slta"``, ...) plus keyword
parameters into these objects, so ``simulate(..., policy="slta", beta=b)`` and
``simulate(..., policy=SLTA(beta=b))`` run the same kernel with the same arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ... import _policy
from ..._policy import _ix, decide, rule_of  # noqa: F401 (the shared pieces, importable from here)

__all__ = ["Policy", "REGISTRY", "ERRORS", "rule_of", "as_policy", "decide", "pick", "UNIFORM_WORD", "TITLES", "title"]

@intrinsic
def _high_product(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64 (one integer multiplication)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(a, b), codegen


#: ``2**64`` rounded down to a double: ``uniform * UNIFORM_WORD`` is a uint64 for any uniform in [0, 1]
UNIFORM_WORD = 18446744073709549568.0


@njit(cache=True, inline="always")
def pick(u, k):
    """``floor(u k / 2**64)``: a uniform integer in ``{0, ..., k - 1}`` (``1 <= k < 2**63``)
    from a uniform 64-bit word `u` (uint64). A rule's one choice from the kernel's ``u``
    (the event's uniform, as ``uniform * UNIFORM_WORD``: 53 random bits, as a float's); a
    rule that needs more draws takes ``rng``. An integer multiplication: the float product
    and its rounding (``int(x * k)``) cost the JLMU kernel 10 % of its events/s, being on the
    path from the state to the chosen pool."""
    return np.int64(_high_product(u, np.uint64(k)))


#: error codes a rule may return (negated), shared with the simulation kernel
ERRORS = {
    1: "a pool exceeded `max_occupancy` tasks; raise `max_occupancy`",
    2: "SLTA's index r_n ran past the enumerated coordinates; raise `max_occupancy`",
    3: "the number of tasks exceeded the preallocated bound; raise `max_tasks`",
}

@dataclass(frozen=True)
class Policy(_policy.Policy, family=True):
    """Base class of the utility policies: a subclass that sets ``name``, ``Params`` and
    ``rule`` is registered when it is defined."""

    #: whether the policy keeps the index ``r_n`` of Sec. 3.2 in ``st[0]`` (the simulator
    #: records its law; the experiments report the time at ``r_*``)
    has_index: ClassVar[bool] = False

    def kernel_params(self, system, n: int, depth: int):
        """The ``Params`` tuple of a run of ``n`` pools with `depth` tabulated levels."""
        raise NotImplementedError

    def initial_state(self, params, m: int) -> np.ndarray:
        """The policy's own state at the start of a run with `params` and `m` classes: a 1-D
        int64 array the rule takes as ``st`` and may update; ``st[0]`` is the recorded index
        ``r_n`` (1 for a policy without one). Every run starts from a fresh one."""
        return np.ones(1, dtype=np.int64)

    def exact_start(self, chain):
        """The policy's state at the start of its exact chain (hashable; ``chain`` is the
        :class:`~qtheory.utility.exact.ExactChain`), or ``None`` for a policy without memory.
        A policy with memory has ``exact_rule(self, chain, occ, policy_state)`` returning
        ``(pool, probability, next policy state)``; its state must not depend on the order of
        the pools within a class (the chain merges states that differ by such a permutation).
        With ``has_index`` the state is the index ``r_n``."""
        return None

    def index_bound(self, params) -> int:
        """Largest value ``st[0]`` may take (the length of the recorded law of ``r_n``)."""
        return 1


def as_policy(policy, *, beta=None, r0=1, target_class=None):
    """A :class:`~qtheory.utility.policies.Policy` from an object (returned unchanged; then keyword parameters must be
    left at their defaults) or from a registered name plus the old keyword parameters."""
    return _policy.as_policy(Policy, policy, beta=beta, r0=r0, target_class=target_class)


#: registered policies by name (every policy file of this folder)
REGISTRY = Policy.REGISTRY

#: how the pages name a policy: the registry's keys ("jlmu", "slta") are code, the papers write JLMU
TITLES = {"jlmu": "JLMU", "jlmud": "JLMU($d$)", "slta": "SLTA", "jsq": "JSQ", "random": "random",
          "conservative": "conservative", "threshold": "threshold"}


def title(name: str) -> str:
    """The name of the registered policy `name` as the pages write it (:data:`TITLES`; the key itself
    for a policy without a title)."""
    return TITLES.get(name, name)
_policy.discover(__name__, __path__, globals())
