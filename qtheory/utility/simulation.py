"""Event-by-event simulation of ``n`` infinite-server pools under a dispatching policy.

The policies live in :mod:`qtheory.utility.policies`, one file each: JLMU (Sec. 3.1),
SLTA (Sec. 3.2), and the baselines of Sec. 8.3 (random, class-blind JSQ, the conservative
policy that sends every task to one class), plus policies beyond the paper. The kernel has
one dispatch point, ``decide``: :func:`_kernel` compiles the template once per policy with
the policy's rule spliced in there (:mod:`qtheory._splice`), cached on disk like any kernel.

Tasks arrive at rate ``n lam``; every task leaves at rate ``mu`` independently of the
others (infinite-server pools), so ``n s_n`` is an M/M/inf queue whatever the policy.

The numba kernel keeps, per class, the pools sorted by occupancy with the start of
every occupancy block, so that every arrival, departure and dispatching decision costs
O(m) operations (m classes); departures pick a uniformly random task from an array of
tasks. Time averages (utility, tasks, occupancy, the law of ``n s_n`` and of ``r_n``) are
integrals of the piecewise-constant path over ``[warmup, horizon]``.

What the path is made of depends on what is asked for. Without sample times the kernel
draws no holding time: each state weighs its holding time's mean ``1 / R`` (``R = n lam +
mu N`` the total rate with ``N`` tasks), and warm-up and horizon are read on the clock these
weights add up to. The sequence of states (the embedded jump chain) does not depend on the
holding times, and given it a state's drawn time has mean ``1 / R``; the jumps in the window
are chosen by the chain alone, so each integral has the expectation of the drawn-time
integral over the same jumps, without the holding times' noise. The weights' clock differs
from the drawn one by a relative ``O((R horizon)^(-1/2))``: a time average over a long
window (a stationary statistic) has the same limit, but a question about the state at a
given time needs sample times. With sample times the holding times are drawn, exponential
with rate ``R``, and the integrals are exact over ``[warmup, horizon]``. The two loops are
compiled apart (:func:`_kernel`). Each event takes one uniform ``v`` on ``[0, R)``: an arrival if
``v < n lam``, and then ``v / (n lam)`` is uniform on ``[0, 1)`` and independent of the
past, the rule's ``u`` (as a 64-bit word, :func:`~qtheory.utility.policies.pick`);
otherwise ``(v - n lam) / mu`` is uniform on ``[0, N)`` and picks the departing task.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..errors import ParameterError
from .._rng import exponential, uniform
from ..runtime import RunRecord, kernel_state
from ..validation import check_array, check_integer, check_positive, check_real
from .model import TIE_DECIMALS, PoolSystem, tabulate
from .. import _splice
from .policies import ERRORS, REGISTRY, UNIFORM_WORD, as_policy, decide, rule_of  # noqa: F401 (decide: the template's)

__all__ = ["POLICIES", "SimulationResult", "simulate", "occupancy_from_state", "default_beta"]

#: names of the registered policies (see :mod:`qtheory.utility.policies`)
POLICIES = tuple(REGISTRY)


# Every subscript of the kernel below casts its index with _ix (unsigned): numba then omits the
# negative-index wrap-around (idx < 0 -> idx + size) it emits for each signed index; every
# index here is >= 0 (as in qtheory.redundancy.simulation; qtheory._policy).
from .._policy import _ix  # noqa: E402

#: the kernel's pool and task numbers, occupancies and positions are int32
_INT32_MAX = int(np.iinfo(np.int32).max)


@intrinsic
def _local_words(typingctx, words):
    """``_local_words(state)``: a copy of the generator's four state words (`state`, a
    uint64 array) in an array on the kernel's stack rather than the heap. The compiler then
    keeps the words in registers for the whole event loop (a heap copy is loaded and stored
    at every draw); the array must not outlive the kernel that creates it."""
    if not (isinstance(words, types.Array) and words.dtype == types.uint64 and words.ndim == 1):
        return None
    ret = types.Array(types.uint64, 1, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        intp = context.get_value_type(types.intp)
        local = cgutils.alloca_once(builder, i64, size=4, name="rng_words")
        stride = cgutils.unpack_tuple(builder, src.strides, 1)[0]
        base = builder.ptrtoint(src.data, intp)
        for k in range(4):
            ptr = builder.inttoptr(builder.add(base, builder.mul(stride, ir.Constant(intp, k))), i64.as_pointer())
            builder.store(builder.load(ptr), builder.gep(local, [ir.Constant(i64, k)]))
        ary = context.make_array(ret)(context, builder)
        context.populate_array(ary, data=local, shape=[ir.Constant(intp, 4)], strides=[ir.Constant(intp, 8)],
                               itemsize=ir.Constant(intp, 8), meminfo=None)
        return ary._getvalue()

    return ret(words), codegen


@njit(cache=True)
def _open_window(area_q, hist_n, time_r, offset, bound, N, r, part, t_warm):
    """Restart the integrals at the warm-up ``t_warm``, in a state with `N` tasks and index
    `r` held for `part` after it: the law of the tasks and of the index from that part alone,
    and each occupancy count's integral at ``-t_warm`` times its value (the kernel adds ``-t``
    times each change at ``t``, and the end value times the horizon)."""
    hist_n[:] = 0.0
    time_r[:] = 0.0
    hist_n[_ix(N)] = part
    time_r[_ix(r)] = part
    for i in range(offset.shape[0] - 1):
        for j in range(1, area_q.shape[1] - 1):
            area_q[_ix(i), _ix(j)] = -t_warm * (offset[_ix(i + 1)] - bound[_ix(i), _ix(j)])


@njit(cache=True)
def _record(si, out_q, out_r, out_s, out_u, offset, bound, r, N, U):
    """Write the state at sample time `si`: occupancy counts, threshold, tasks, utility."""
    for i in range(offset.shape[0] - 1):
        for j in range(out_q.shape[2]):
            out_q[_ix(si), _ix(i), _ix(j)] = offset[_ix(i + 1)] - bound[_ix(i), _ix(j)]
    out_r[_ix(si)] = r
    out_s[_ix(si)] = N
    out_u[_ix(si)] = U


class Pools(NamedTuple):
    """The pools as the kernel sees them, fixed during a run (built by :func:`_prepare`)."""

    #: class of each pool; pools are numbered class by class
    pool_class: np.ndarray
    #: the pools of class ``i`` are ``offset[i]`` to ``offset[i + 1] - 1`` (length ``m + 1``)
    offset: np.ndarray
    #: marginal utilities, ``delta[i, x] = u_i(x + 1) - u_i(x)``, shape (m, J)
    delta: np.ndarray
    #: ``delta`` rounded to ``TIE_DECIMALS``: the key policies compare (equal keys are ties)
    key: np.ndarray


class State(NamedTuple):
    """The initial state of a run; the kernel updates its arrays in place."""

    #: tasks at each pool
    occ: np.ndarray
    #: pools sorted by (class, occupancy), and ``posn[p]``, pool ``p``'s place in ``perm``
    perm: np.ndarray
    posn: np.ndarray
    #: ``bound[i, j]``: first place in ``perm`` of a class-``i`` pool with >= ``j`` tasks
    bound: np.ndarray
    #: smallest occupancy of each class
    minocc: np.ndarray
    #: the pool of each task present (the first ``n_tasks0`` entries; its size caps the tasks)
    tasks: np.ndarray
    #: tasks present at time 0, and their total utility
    n_tasks0: int
    u_start: float


class Configuration(NamedTuple):
    """Sizes, rates and times of a run."""

    #: number of pools
    n: int
    #: arrival rate per pool and service rate of a task
    lam: float
    mu: float
    #: end of the run, and start of the averaging window (the result vocabulary's names)
    horizon: float
    warmup: float
    #: times at which the state is recorded (non-decreasing); when there are any, the holding
    #: times are drawn (the path in time is needed), else each state weighs its mean holding time
    sample_t: np.ndarray
    #: whether the policy keeps an index ``r_n`` in ``st[0]`` whose law is integrated (``time_r``)
    indexed: bool


class Outputs(NamedTuple):
    """Arrays the kernel writes: the state at the sample times (``out_*``), and the time
    integrals over ``[warmup, horizon]`` of the occupancy counts (``area_q``), of the law of the
    number of tasks (``hist_n``) and of SLTA's index (``time_r``)."""

    out_q: np.ndarray
    out_r: np.ndarray
    out_s: np.ndarray
    out_u: np.ndarray
    area_q: np.ndarray
    hist_n: np.ndarray
    time_r: np.ndarray


def _kernel_template(params, st_in, rng_state, pools, state, config, out):
    """One run. A template: :func:`_kernel` compiles it once per policy with the policy's
    rule in place of ``decide`` (:mod:`qtheory._splice`); `params` are the policy's
    parameters and `st_in` its state (``st[0]`` = ``r_n``); `pools`, `state`, `config` and
    `out` are the bundles :class:`Pools`, :class:`State`, :class:`Configuration` and
    :class:`Outputs`. Their fields are unpacked under their own names, the names the rule
    takes.

    Each state is held for ``w``: a drawn exponential time of rate ``R`` (the total event
    rate) when sample times are asked for (``config.sample_t`` not empty), else its
    conditional mean ``1 / R`` (module docstring); the two are compiled apart, the splice
    point ``timing`` giving each a constant ``timed``. One uniform ``v`` on ``[0, R)`` per
    event chooses the event, and is reused: an arrival's ``v / (n lam)``, uniform on
    ``[0, 1)``, is the rule's ``u`` as a 64-bit word, a departure's ``(v - n lam) / mu`` on
    ``[0, N)`` picks the task."""
    timed = timing()  # a constant of each compiled kernel (see _kernel)
    n = config.n
    lam = config.lam
    mu = config.mu
    t_end = config.horizon
    t_warm = config.warmup
    sample_t = config.sample_t
    indexed = config.indexed
    pool_class = pools.pool_class
    offset = pools.offset
    delta = pools.delta
    key = pools.key
    occ = state.occ
    perm = state.perm
    posn = state.posn
    bound = state.bound
    minocc = state.minocc
    tasks = state.tasks
    n_tasks0 = state.n_tasks0
    u_start = state.u_start
    out_q = out.out_q
    out_r = out.out_r
    out_s = out.out_s
    out_u = out.out_u
    area_q = out.area_q
    hist_n = out.hist_n
    time_r = out.time_r
    rng = _local_words(rng_state)  # the generator's words in registers (see _local_words)
    st = st_in.copy()  # local copies: the compiler knows they alias no other array
    m = offset.shape[0] - 1
    J = delta.shape[1]
    cap = tasks.shape[0]
    S = sample_t.shape[0]
    arrival_rate = n * lam
    inv_word = UNIFORM_WORD / arrival_rate
    inv_mu = 1.0 / mu
    # the total event rate R and 1 / R by number of tasks
    rate = np.empty(cap + 1)
    inv_rate = np.empty(cap + 1)
    for k in range(cap + 1):
        rate[_ix(k)] = arrival_rate + mu * k
        inv_rate[_ix(k)] = 1.0 / rate[_ix(k)]
    N = n_tasks0
    U = u_start
    t = 0.0
    si = 0
    area_u = 0.0
    events = 0
    status = 0
    # the integrals run from the start; the state that straddles the warm-up restarts them
    # (_open_window) and the one that straddles the horizon gives back its part past it
    window = False
    phase_end = t_warm
    while True:
        if timed:
            t_next = t + exponential(rng) * inv_rate[_ix(N)]
            while si < S and sample_t[_ix(si)] < t_next:
                _record(si, out_q, out_r, out_s, out_u, offset, bound, st[0], N, U)
                si += 1
        else:
            t_next = t + inv_rate[_ix(N)]
        w = t_next - t
        area_u += w * U
        hist_n[_ix(N)] += w
        if indexed:
            time_r[_ix(st[0])] += w
        if t_next >= phase_end:
            if not window:
                window = True
                phase_end = t_end
                w = t_next - t_warm
                area_u = w * U
                _open_window(area_q, hist_n, time_r, offset, bound, N, st[0], w, t_warm)
            if t_next >= t_end:
                w = t_next - t_end
                area_u -= w * U
                hist_n[_ix(N)] -= w
                if indexed:
                    time_r[_ix(st[0])] -= w
                t = t_end
                break
        t = t_next
        events += 1
        v = uniform(rng) * rate[_ix(N)]
        if v < arrival_rate:
            # ---------------- arrival: the policy chooses the pool ----------------
            u = np.uint64(v * inv_word)  # uniform on [0, 2**64): the rule's pick(u, k)
            p = decide(params, st, rng, u, n, offset, bound, minocc, perm, pool_class, occ, key)
            if p < 0:
                status = -p
                break
            # ---------------- arrival: update the state ----------------
            i = pool_class[_ix(p)]
            x = occ[_ix(p)]
            if x >= J:
                status = 1
                break
            if N >= cap:
                status = 3
                break
            # the count of class-i pools with >= x + 1 tasks grows by one at t: its time
            # integral over [t_warm, t_end] is t_end c(t_end) - t_warm c(t_warm) minus
            # t times each change at t (area_q starts at -t_warm c(t_warm), above, and ends
            # with + t_end c(t_end)); no per-count clock to keep
            area_q[_ix(i), _ix(x + 1)] -= t
            here = posn[_ix(p)]
            dest = bound[_ix(i), _ix(x + 1)] - 1
            other = perm[_ix(dest)]
            perm[_ix(dest)] = p
            perm[_ix(here)] = other
            posn[_ix(p)] = dest
            posn[_ix(other)] = here
            bound[_ix(i), _ix(x + 1)] = dest
            occ[_ix(p)] = x + 1
            if dest == offset[_ix(i)]:
                minocc[_ix(i)] = x + 1  # no class-i pool is left below x + 1
            U += delta[_ix(i), _ix(x)]
            tasks[_ix(N)] = p
            N += 1
        else:
            # ---------------- departure of a uniformly random task ----------------
            k = int((v - arrival_rate) * inv_mu)
            if k >= N:
                k = N - 1
            p = tasks[_ix(k)]
            N -= 1
            tasks[_ix(k)] = tasks[_ix(N)]
            i = pool_class[_ix(p)]
            x = occ[_ix(p)]
            area_q[_ix(i), _ix(x)] += t
            here = posn[_ix(p)]
            dest = bound[_ix(i), _ix(x)]
            other = perm[_ix(dest)]
            perm[_ix(dest)] = p
            perm[_ix(here)] = other
            posn[_ix(p)] = dest
            posn[_ix(other)] = here
            bound[_ix(i), _ix(x)] = dest + 1
            occ[_ix(p)] = x - 1
            if x - 1 < minocc[_ix(i)]:
                minocc[_ix(i)] = x - 1
            U -= delta[_ix(i), _ix(x - 1)]
    if status == 0:
        for i in range(m):
            for j in range(1, J + 1):
                area_q[_ix(i), _ix(j)] += t_end * (offset[_ix(i + 1)] - bound[_ix(i), _ix(j)])
    while si < S:
        _record(si, out_q, out_r, out_s, out_u, offset, bound, st[0], N, U)
        si += 1
    st_in[:] = st
    return status, events, area_u, t


def timing():
    """The template's second splice point: whether the kernel draws holding times (it has
    sample times to record) or weighs each state by its mean holding time. :func:`_kernel`
    splices :func:`_drawn_times` or :func:`_mean_times` in its place, so that each kernel has
    a constant there and the loop without sample times has no trace of the drawn times (their
    ``log`` and the recording at sample times, even untaken, cost 7 % of the events/s)."""
    raise NotImplementedError("timing is a placeholder spliced out of the kernel template")


def _drawn_times():
    return True


def _mean_times():
    return False


def _kernel(policy, timed: bool):
    """The compiled simulation kernel of `policy` (a registered :class:`~qtheory.utility.policies.Policy`),
    drawing holding times if `timed` (runs with sample times), else weighing each state by
    its mean holding time."""
    return _splice.specialise(_kernel_template, policy.rule, {"timing": _drawn_times if timed else _mean_times})


@dataclass(frozen=True)
class SimulationResult(RunRecord):
    """Output of :func:`simulate`.

    Attributes
    ----------
    policy : str
    n : int
    horizon, warmup : float
        Horizon and the start of the averaging window, in time units.
    mean_utility : float
        Time average of ``u(q_n(t))`` over ``[warmup, horizon]``.
    mean_tasks : float
        Time average of ``s_n(t)``.
    mean_occupancy : ndarray, shape (m, J + 1)
        Time average of the occupancy ``q_n(t)``.
    times : ndarray
        Sample times; ``occupancy``, ``r``, ``s``, ``u`` are the state at those times:
        ``occupancy`` (``q_n``) shape (S, m, J + 1) fractions, ``r`` SLTA's index ``r_n`` (1 for other
        policies), ``s`` ``s_n``, ``u`` ``u(q_n)``.
    count_distribution : ndarray
        Fraction of ``[warmup, horizon]`` spent with ``n s_n = k`` tasks, ``k = 0, 1, ...``.
    r_distribution : ndarray
        Fraction of time spent with ``r_n = k`` (index ``k``).
    events : int
        Arrivals plus departures simulated.
    wall_time : float
        Seconds spent in the kernel.
    alpha : ndarray
        Class fractions ``A_n / n``.
    """

    policy: str
    n: int
    horizon: float
    warmup: float
    mean_utility: float
    mean_tasks: float
    mean_occupancy: np.ndarray
    times: np.ndarray
    occupancy: np.ndarray
    r: np.ndarray
    s: np.ndarray
    u: np.ndarray
    count_distribution: np.ndarray
    r_distribution: np.ndarray
    events: int
    wall_time: float
    alpha: np.ndarray



def default_beta(n: int) -> float:
    """``beta_n = n^(-1/3)``: tends to 0 and ``n^(1/3) beta_n = 1``, so Theorem 2 holds with
    ``gamma_0 = 1/3 < 1/2``. SLTA lowers ``r_n`` when at least ``n beta_n`` green tokens exist."""
    return float(check_integer("n", n, low=1)) ** (-1.0 / 3.0)


def occupancy_from_state(system: PoolSystem, n: int, q) -> np.ndarray:
    """Per-pool task counts (pools ordered by class) realising the occupancy state `q`.

    ``n q[i, j]`` must be a whole number of pools for every ``(i, j)``.
    """
    counts = system.pool_counts(n)
    q = check_array("q", q, ndim=2, low=0.0)
    if q.shape[0] != system.m:
        raise ParameterError(f"`q` must have {system.m} rows (one per class), got {q.shape[0]}")
    nq = n * q
    ints = np.rint(nq).astype(np.int64)
    if np.any(np.abs(nq - ints) > 1e-6):
        i, j = (int(v) for v in np.argwhere(np.abs(nq - ints) > 1e-6)[0])
        raise ParameterError(f"`q[{i}, {j}]` * n = {nq[i, j]!r} is not a whole number of pools")
    if np.any(ints[:, 0] != counts):
        raise ParameterError(f"`q[:, 0]` must be the class fractions {list(system.alpha)}")
    if np.any(np.diff(ints, axis=1) > 0):
        raise ParameterError("`q` must be non-increasing in j")
    occ = []
    for i in range(system.m):
        col = ints[i]
        # number of pools with exactly j tasks is col[j] - col[j + 1]
        exact = col - np.append(col[1:], 0)
        occ.append(np.repeat(np.arange(col.size), exact))
    return np.concatenate(occ).astype(np.int64)


def _prepare(system: PoolSystem, n: int, pol, horizon: float, warmup: float, initial, sample_times,
             max_occupancy, max_tasks):
    """The kernel's arguments for a run of `pol` (checked: `initial`, `max_occupancy`,
    `max_tasks`, `sample_times` and the policy's parameters against the system), all but
    the generator: ``(params, st, pools, state, config, out)``, the policy's parameters and
    state and the bundles :class:`Pools`, :class:`State`, :class:`Configuration` and
    :class:`Outputs`."""
    from .._memory import require_memory

    counts = system.pool_counts(n)
    m = system.m
    # per pool: its occupancy (twice), class, place in the sort order and sort keys; per task: its
    # pool and the histogram of the total (about 12 bytes at the default bound on tasks)
    tasks_bound = n * system.rho + 12 * math.sqrt(n * system.rho) + 50
    require_memory(64.0 * n + 12.0 * tasks_bound, what=f"a simulation of n = {n:,} pools at load {system.rho:g}",
                   parameter="n")
    offset = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    pool_class = np.repeat(np.arange(m), counts).astype(np.int32)
    if initial is None:
        occ = np.zeros(n, dtype=np.int64)
    else:
        arr = np.asarray(initial)
        if arr.ndim == 2:
            occ = occupancy_from_state(system, n, arr)
        else:
            occ = check_array("initial", arr, shape=(n,), low=0.0, dtype=np.int64)
    n0 = int(occ.sum())
    alpha_min = float(np.min(counts)) / n
    bound_mass = max(n0 / n, system.rho)
    if max_occupancy is None:
        base = max(int(occ.max(initial=0)), math.ceil(bound_mass / alpha_min))
        max_occupancy = int(base + 8 * math.sqrt(base) + 20)
    J = check_integer("max_occupancy", max_occupancy, low=max(1, int(occ.max(initial=0))), high=_INT32_MAX - 2)
    if max_tasks is None:
        mean = n * system.rho
        max_tasks = int(max(n0, mean) + 12 * math.sqrt(mean) + 50)
    max_tasks = check_integer("max_tasks", max_tasks, low=n0 + 1, high=_INT32_MAX - 1)
    values = tabulate(system.utilities, J)  # checks concavity on 0..J
    delta = np.ascontiguousarray(np.diff(values, axis=1))
    key = np.round(delta, TIE_DECIMALS)
    u_start = float(values[pool_class, occ].sum())
    # pools sorted by (class, occupancy); bound[i, j] = first position with occupancy >= j
    order = np.lexsort((occ, pool_class))
    perm = order.astype(np.int32)
    posn = np.empty(n, dtype=np.int32)
    posn[perm] = np.arange(n)
    bound = np.empty((m, J + 2), dtype=np.int32)
    minocc = np.empty(m, dtype=np.int32)
    for i in range(m):
        occ_i = occ[offset[i]:offset[i + 1]]
        sorted_i = np.sort(occ_i)
        bound[i] = offset[i] + np.searchsorted(sorted_i, np.arange(J + 2), side="left")
        minocc[i] = int(sorted_i[0])
    tasks = np.empty(max_tasks, dtype=np.int32)
    tasks[:n0] = np.repeat(np.arange(n), occ)
    params = pol.kernel_params(system, n, J)  # checks what depends on the system (r0, target_class)
    st = pol.initial_state(params, m)
    if sample_times is None:
        sample_t = np.zeros(0)
    else:
        sample_t = check_array("sample_times", sample_times, ndim=1, low=0.0)
        if np.any(np.diff(sample_t) < 0):
            raise ParameterError("`sample_times` must be non-decreasing")
        if sample_t.size and sample_t[-1] > horizon:
            raise ParameterError(f"`sample_times` must be <= `horizon` = {horizon!r} (got {sample_t[-1]!r})")
    S = sample_t.size
    require_memory(8.0 * S * m * (J + 1) + 12.0 * max_tasks,
                   what=f"the recorded occupancy of {S:,} sample times x {m} classes x {J + 1:,} levels",
                   parameter="sample_times")
    out_q = np.zeros((S, m, J + 1), dtype=np.int64)
    out_r = np.zeros(S, dtype=np.int64)
    out_s = np.zeros(S, dtype=np.int64)
    out_u = np.zeros(S)
    area_q = np.zeros((m, J + 2))
    hist_n = np.zeros(max_tasks + 1)
    time_r = np.zeros(pol.index_bound(params) + 2)
    pools = Pools(pool_class=pool_class, offset=offset, delta=delta, key=key)
    state = State(occ=occ.astype(np.int32), perm=perm, posn=posn, bound=bound, minocc=minocc, tasks=tasks, n_tasks0=n0,
                  u_start=u_start)
    config = Configuration(n=n, lam=system.lam, mu=system.mu, horizon=horizon, warmup=warmup, sample_t=sample_t,
                           indexed=bool(pol.has_index))
    out = Outputs(out_q=out_q, out_r=out_r, out_s=out_s, out_u=out_u, area_q=area_q, hist_n=hist_n,
                  time_r=time_r)
    return params, st, pools, state, config, out


def simulate(system: PoolSystem, n: int, policy: str, *, horizon: float, seed, warmup: float = 0.0,
             initial=None, sample_times=None, beta: float | None = None, r0: int = 1,
             target_class: int | None = None, max_occupancy: int | None = None,
             max_tasks: int | None = None) -> SimulationResult:
    """Simulate ``n`` pools of `system` under `policy` on ``[0, horizon]``.

    Parameters
    ----------
    system : PoolSystem
        Classes, utilities, load ``rho`` and service rate ``mu``.
    n : int
        Number of pools; ``n alpha(i)`` must be whole numbers.
    policy : qtheory.utility.policies.Policy or str
        A :mod:`qtheory.utility.policies` object (owning its parameters) or a registered
        name; with a name, `beta`, `r0`, `target_class` are given as keywords.
    horizon : float
        End of the simulated time.
    seed : int or numpy.random.SeedSequence
        Seeds the kernel's generator through :func:`qtheory.runtime.kernel_state`.
    warmup : float
        Time averages use ``[warmup, horizon]``.
    initial : array, optional
        Either per-pool task counts (length ``n``, pools ordered by class) or an occupancy
        state ``q`` of shape ``(m, J + 1)`` (see :func:`occupancy_from_state`). Default:
        empty.
    sample_times : array, optional
        Times at which ``q_n``, ``r_n``, ``s_n`` and ``u(q_n)`` are recorded. Given any, the
        kernel draws every holding time; without, it weighs each state by its mean holding
        time (module docstring), which leaves the time averages' expectations and limits as
        they are and draws fewer random numbers.
    beta : float, optional
        SLTA's ``beta_n`` (default :func:`default_beta`).
    r0 : int
        SLTA's initial index ``r_n(0)`` (default 1, as in the state space of Sec. 3.3).
    target_class : int, optional
        Class that receives every task under ``"conservative"`` (default: the last class).
    max_occupancy : int, optional
        Largest number of tasks a pool may reach (tables of marginal utilities are built
        up to it; exceeding it raises instead of clipping).
    max_tasks : int, optional
        Largest total number of tasks (default: 12 standard deviations above the
        Poisson mean, or the initial number).
    """
    n = check_integer("n", n, low=1, high=_INT32_MAX)
    if target_class is not None:  # checked for every policy, as before
        check_integer("target_class", target_class, low=0, high=system.m - 1)
    pol = as_policy(policy, beta=beta, r0=r0, target_class=target_class)
    horizon = check_positive("horizon", horizon)
    warmup = check_real("warmup", warmup, low=0.0, high=horizon, high_open=True)
    params, st, pools, state, config, out = _prepare(system, n, pol, horizon, warmup, initial, sample_times,
                                                     max_occupancy, max_tasks)
    start = time.perf_counter()
    kernel = _kernel(pol, config.sample_t.size > 0)
    with _splice.rule_errors(kernel):    # a rule that does not compile, or indexes out of range: named
        status, events, area_u, _ = kernel(params, st, kernel_state(seed), pools, state, config, out)
    wall = time.perf_counter() - start
    if status:
        raise ParameterError(f"simulation of {pol.name} with n = {n} stopped: {ERRORS[status]}")
    span = horizon - warmup
    counts = np.diff(pools.offset)
    mean_occupancy = out.area_q[:, :-1] / (n * span)
    mean_occupancy[:, 0] = counts / n
    hist = out.hist_n / span
    last_nz = int(np.nonzero(hist)[0][-1]) + 1 if hist.any() else 1
    if not config.indexed:
        out.time_r[1] = span  # the index of a policy without one is 1 throughout
    r_dist = out.time_r / span
    area_s = float(np.arange(out.hist_n.size) @ out.hist_n)
    return SimulationResult(
        policy=pol.name, n=n, horizon=horizon, warmup=warmup, mean_utility=area_u / (n * span),
        mean_tasks=area_s / (n * span), mean_occupancy=mean_occupancy, times=config.sample_t, occupancy=out.out_q / n,
        r=out.out_r, s=out.out_s / n, u=out.out_u / n, count_distribution=hist[:last_nz], r_distribution=r_dist,
        events=int(events), wall_time=wall, alpha=counts / n)
