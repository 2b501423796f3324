"""One builder for the exact chains of papers L and U: the states reachable from a start, the
generator between them, and its stationary law.

A paper's exact chain (:func:`qtheory.locality.exact.policy_stationary`,
:func:`qtheory.utility.exact.exact_stationary`) describes a state as a hashable value, the
queues and the policy's own state together (``(queues, policy_state)``), and its moves as a
function ``moves(state)`` yielding ``(next_state, rate)``; a policy brings its moves through
its ``exact_rule`` (its plain-Python reading, written independently of the compiled rule),
over the queue state and, for a policy with memory, its policy state. :func:`reachable_chain`
enumerates what the moves reach, breadth first, and :func:`stationary_law` solves
:math:`\\pi Q = 0`, :math:`\\sum \\pi = 1`.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Hashable, Iterable

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix, diags
from scipy.sparse.linalg import spsolve

from .errors import ParameterError

__all__ = ["reachable_chain", "stationary_law"]


def reachable_chain(start: Hashable, moves: Callable[[Hashable], Iterable[tuple[Hashable, float]]], *,
                    max_states: int, hint: str = "") -> tuple[list, csr_matrix]:
    """The states reachable from `start` by `moves` (breadth first, `start` first) and the
    rates between them, as ``(states, Q)`` with ``Q[a, b]`` the rate from ``states[a]`` to
    ``states[b]`` (no diagonal; rates of repeated moves add up). A move of rate 0 is not
    followed. More than `max_states` states is refused (a :class:`~qtheory.errors.ParameterError`
    ending with `hint`: what the caller's reader can change, in the caller's parameter names)."""
    index = {start: 0}
    order = [start]
    queue = deque([start])
    rows, cols, rates = [], [], []
    while queue:
        state = queue.popleft()
        k = index[state]
        for nxt, rate in moves(state):
            if not rate > 0:
                continue
            j = index.get(nxt)
            if j is None:
                if len(order) >= max_states:
                    raise ParameterError(f"the exact chain has more than {max_states} states"
                                         + (f": {hint}" if hint else ""))
                j = index[nxt] = len(order)
                order.append(nxt)
                queue.append(nxt)
            if j != k:
                rows.append(k), cols.append(j), rates.append(float(rate))
    size = len(order)
    Q = coo_matrix((rates, (rows, cols)), shape=(size, size)).tocsr()
    return order, Q


def stationary_law(Q: csr_matrix, *, method: str = "direct", tol: float = 1e-15,
                   max_iterations: int = 200_000) -> np.ndarray:
    """The stationary law of the chain of off-diagonal rates `Q` (one recurrent class; transient
    states get mass 0).

    ``method="direct"``: a sparse LU solve of :math:`\\pi (Q - \\mathrm{diag}(Q 1)) = 0` with the
    first equation replaced by :math:`\\sum \\pi = 1`. ``method="power"``: power iteration on the
    uniformised chain :math:`P = I + Q/c` (:math:`c` 5% above the largest exit rate), until
    the L1 change over an iteration is below `tol`; for grid-shaped chains (all queue
    vectors of a small graph) on which the factorisation fills in badly."""
    size = Q.shape[0]
    out = np.asarray(Q.sum(axis=1)).ravel()
    if size == 1:
        return np.ones(1)
    if method == "direct":
        A = (Q - diags(out)).T.tolil()
        A[0, :] = np.ones(size)
        b = np.zeros(size)
        b[0] = 1.0
        return spsolve(A.tocsr(), b)
    if method != "power":
        raise ParameterError(f"`method` must be 'direct' or 'power' (got {method!r})")
    rate = out.max() * 1.05
    PT = (Q / rate).T.tocsr()
    stay = 1.0 - out / rate
    pi = np.full(size, 1.0 / size)
    for it in range(max_iterations):
        new = PT @ pi + stay * pi
        new /= new.sum()
        if it % 50 == 0 and np.abs(new - pi).sum() < tol:
            return new
        pi = new
    raise RuntimeError(f"power iteration did not converge in {max_iterations} iterations")
