"""The random number generator of the simulation kernels: xoshiro256+ in numba.

Blackman and Vigna's xoshiro256+ (2018) keeps four 64-bit words of state and returns
``s[0] + s[3]`` before a few shifts, xors and one rotation; its top 53 bits make a
double in [0, 1) (the low bits of xoshiro256+ are weak, the top ones are not). The
kernels receive their four state words from :func:`qtheory.runtime.kernel_state`
(``SeedSequence.generate_state``), so every stream is keyed by a recorded seed.

It replaces numba's ``np.random.random`` (a Mersenne Twister kept in thread-local
state, reached through a call per draw) in the event loops: the state lives in a
4-element array local to the kernel, the functions below are inlined into the loop,
and a draw costs a handful of integer instructions. ``benchmarks/run.py --only limit``
measures the difference against a C build of the same loop.

numba's on-disk cache keys a kernel on its own source file only; qtheory keys each kernel
on its file and every package file it imports (:mod:`qtheory._kernelcache`), this one
included, so that editing this file recompiles every kernel that inlines these functions.

``tests/test_rng.py`` checks the words against an independent pure-Python version and
the doubles for uniformity; the kernels' statistics are checked against exact values
in each paper's tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["seed_state", "uniform", "exponential", "randint"]

# numba types a Python int literal as int64 and uint64 (op) int64 as float64: every
# constant of the bit operations is a uint64
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U11, _U17, _U19, _U27, _U30, _U31, _U45 = (np.uint64(k) for k in (11, 17, 19, 27, 30, 31, 45))
_TWO_M53 = 1.0 / 9007199254740992.0


@njit(cache=True)
def seed_state(seed):
    """Four state words from one integer by splitmix64 (the authors' recommended seeding).

    The package seeds its kernels with :func:`qtheory.runtime.kernel_state` instead;
    this is the seeding of the C reference loop in ``benchmarks/peers/supermarket.c``,
    so that the two can be fed the same stream.
    """
    s = np.empty(4, dtype=np.uint64)
    _splitmix(np.uint64(seed), s)
    return s


@njit(cache=True, inline="always")
def _splitmix(x, out):
    """Fill `out` (four words) with splitmix64's outputs from the starting value `x`."""
    for i in range(4):
        x += _GOLDEN
        z = x
        z = (z ^ (z >> _U30)) * _MIX1
        z = (z ^ (z >> _U27)) * _MIX2
        out[i] = z ^ (z >> _U31)


@njit(cache=True, inline="always")
def _next(s):
    """The next 64-bit output of xoshiro256+, ``s[0] + s[3]``; advances `s` in place."""
    result = s[0] + s[3]
    t = s[1] << _U17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = (s[3] << _U45) | (s[3] >> _U19)
    return result


@njit(cache=True, inline="always")
def uniform(s):
    """A double in [0, 1) with 53 random bits; advances the state `s` in place."""
    return np.float64(_next(s) >> _U11) * _TWO_M53


@njit(cache=True, inline="always")
def exponential(s):
    """An exponential variable with unit mean, ``-log(1 - U)`` (finite: 1 - U > 0)."""
    return -np.log(1.0 - uniform(s))


@njit(cache=True, inline="always")
def randint(s, k):
    """A uniform integer in {0, ..., k - 1} (k >= 1), from one uniform."""
    v = int(uniform(s) * k)
    return k - 1 if v >= k else v
