"""Errors raised by qtheory.

Every error names the offending parameter and the condition it violates, so that a
message such as ``ParameterError: `lam` must be in (0, 1) (got 1.2)`` is enough to
fix the call. Both classes derive from :class:`ValueError`, so code that already
catches ``ValueError`` keeps working.
"""


class QTheoryError(Exception):
    """Base class of the errors raised by qtheory."""


class ParameterError(QTheoryError, ValueError):
    """A parameter has an invalid value (wrong range, shape, type or consistency)."""


class InstabilityError(ParameterError):
    """A stationary quantity was asked for a system that has no stationary regime.

    The message says which stability condition fails and by how much.
    """


class MemoryBudgetError(ParameterError):
    """A computation would need more memory than this machine has available; raised before it
    allocates (:func:`qtheory._memory.require_memory`). The message gives the estimate, what is
    available and the parameter to change."""


class NotebookError(QTheoryError):
    """A notebook run by :mod:`qtheory.execution` failed."""


class SpliceError(QTheoryError, ValueError):
    """A function cannot be spliced into a kernel template (:mod:`qtheory._splice`): it would
    not mean in the generated kernel what it means as a function. The message names the
    function's file and line."""


class RuleError(QTheoryError, ValueError):
    """A policy's or mechanism's rule took an action its kernel cannot carry out (a server that
    does not exist, a busy one, a start under cancel-on-completion); the kernel stops instead of
    writing outside its arrays. The message names the rule's file and line."""


class WorkerLostError(QTheoryError):
    """The workers of a Dask scheduler died running replications more often than the
    scheduler allows (Dask's ``KilledWorker``); the message names the scheduler and what to do."""
