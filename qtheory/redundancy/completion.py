"""Completion rules of the redundancy mechanisms: which job a server takes when one of its
services completes.

A mechanism's ``completion`` rule (:class:`~qtheory.redundancy.mechanisms.Mechanism`) is spliced
into the simulator at the completion of a service on server ``s`` (:mod:`qtheory._splice`,
like the start rule ``rule`` at an arrival). It returns the job type whose oldest job the
server takes, among the server's types with a job, or -1 when none has one:

* under cancel-on-start, the job the server starts next (the one it finished has left);
* under cancel-on-completion, the job that completes (the server serves that job at every
  moment; with exponential services, that is the job a completion at ``s`` removes).

Within a type the jobs are taken in order of arrival (the kernel keeps one FIFO per type). The
rule takes any of ``rng, s, types_of, head, tail, fifo, fifo_mask``, by name: the server's
types ``types_of[s, i]`` for i = 0, 1, ... up to the first -1; type ``j`` has
``tail[j] - head[j]`` jobs in its FIFO (c.o.s.: waiting; c.o.c.: all), the oldest of which
arrived as job number ``fifo[j, head[j] & fifo_mask]``; ``rng`` is the kernel's generator
(:mod:`qtheory._rng`). A rule other than :func:`oldest_first` is checked at every completion:
a type that is not one of the server's with a job, or -1 while one has a job, stops the run
with a :class:`~qtheory.errors.RuleError` naming the rule's file and line.

Its plain-Python reading is the mechanism's ``exact_completion(server, jobs)``, from which the
exact chains are built (:mod:`qtheory.redundancy.chain`).
"""

from __future__ import annotations

from numba import njit

from .._policy import _ix
from .._rng import randint

__all__ = ["oldest_first", "random_order"]


@njit(cache=True)
def oldest_first(s, types_of, head, tail, fifo, fifo_mask):
    """First come, first served (paper R, Sec. 2.1): the type of the oldest job compatible with
    server ``s``, or -1."""
    oldest = -1
    oldest_stamp = 0
    i = 0
    j = types_of[_ix(s), 0]
    while j >= 0:
        if head[_ix(j)] != tail[_ix(j)]:
            stamp = fifo[_ix(j), _ix(head[_ix(j)] & fifo_mask)]
            if oldest < 0 or stamp < oldest_stamp:
                oldest = j
                oldest_stamp = stamp
        i += 1
        j = types_of[_ix(s), _ix(i)]
    return oldest


@njit(cache=True)
def random_order(rng, s, types_of, head, tail):
    """Random order of service: a job compatible with server ``s`` chosen uniformly at random
    (its type, with probability proportional to the type's number of jobs), or -1."""
    jobs = 0
    i = 0
    j = types_of[_ix(s), 0]
    while j >= 0:
        jobs += tail[_ix(j)] - head[_ix(j)]
        i += 1
        j = types_of[_ix(s), _ix(i)]
    chosen = -1
    if jobs > 0:
        v = randint(rng, jobs)
        i = 0
        j = types_of[_ix(s), 0]
        while j >= 0 and chosen < 0:
            v -= tail[_ix(j)] - head[_ix(j)]
            if v < 0:
                chosen = j
            i += 1
            j = types_of[_ix(s), _ix(i)]
    return chosen
