"""Memory: estimates checked before a large allocation, and arrays backed by transparent huge pages.

:func:`require_memory` compares a computation's estimated need with the memory the machine has
available and refuses by name (:class:`qtheory.errors.MemoryBudgetError`) rather than letting the
operating system kill the process part-way. ``QTHEORY_MEMORY_LIMIT`` (bytes, e.g. ``4e9``) caps
what counts as available (to test a refusal, or to share the machine).

Huge pages, for the simulators' large random-access arrays:

At N = 10^6 servers an event reads a few entries at random positions of arrays of 1-4 MB
each (and of the neighbour lists, hundreds of MB on irg). With 4 KiB pages nearly every such
read also misses the TLB, and a page walk costs as much as the read itself (more under a
hypervisor, whose walks are two-dimensional). :func:`empty` maps the array's memory anonymously
and asks the kernel (``madvise(MADV_HUGEPAGE)``) to back it with 2 MiB pages, which one TLB
entry each covers. Where the kernel cannot (transparent huge pages set to ``never``, another
system than Linux), the array is an ordinary one: only its speed differs, never its contents.
The environment variable ``QTHEORY_HUGE_PAGES=0`` turns the request off (to measure its effect).
"""

from __future__ import annotations

import mmap
import os

import numpy as np

def available_bytes() -> int:
    """Memory available to a new allocation: ``MemAvailable`` of ``/proc/meminfo`` (Linux), else the
    physical memory; capped by ``QTHEORY_MEMORY_LIMIT`` when it is set."""
    out = None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    out = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if out is None:
        try:
            out = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            out = 1 << 62
    limit = os.environ.get("QTHEORY_MEMORY_LIMIT")
    if limit:
        try:
            out = min(out, int(float(limit)))
        except ValueError:
            from .errors import ParameterError
            raise ParameterError(f"QTHEORY_MEMORY_LIMIT must be a number of bytes (got {limit!r})") from None
    return out


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


#: share of the available memory one computation may plan to use (the rest: the interpreter, the
#: notebook's other arrays, the operating system's caches)
BUDGET_SHARE = 0.8


def require_memory(nbytes: float, *, what: str, parameter: str) -> None:
    """Refuse (:class:`qtheory.errors.MemoryBudgetError`) when `what` needs about `nbytes`, more than
    :data:`BUDGET_SHARE` of the available memory; the message names `parameter`, the one to change."""
    have = available_bytes()
    if nbytes > BUDGET_SHARE * have:
        from .errors import MemoryBudgetError
        raise MemoryBudgetError(f"{what} needs about {_gb(nbytes)}; this machine has {_gb(have)} available: "
                                f"choose a smaller `{parameter}`")


#: below this size the TLB covers the array anyway: a plain numpy allocation
_MIN_BYTES = 1 << 20
_HUGE = 1 << 21


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array like ``np.empty(shape, dtype)``, on huge pages where possible."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * dtype.itemsize
    if nbytes < _MIN_BYTES or not hasattr(mmap, "MADV_HUGEPAGE") or os.environ.get("QTHEORY_HUGE_PAGES") == "0":
        return np.empty(shape, dtype)
    span = -(-nbytes // _HUGE) * _HUGE           # whole huge pages
    buf = mmap.mmap(-1, span + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    raw = np.frombuffer(buf, np.uint8)
    start = (-raw.ctypes.data) % _HUGE          # the first 2 MiB boundary in the mapping
    try:
        buf.madvise(mmap.MADV_HUGEPAGE, start, span)
    except OSError:
        pass                                     # no transparent huge pages: ordinary pages
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def copy(a: np.ndarray, dtype=None) -> np.ndarray:
    """A copy of `a` (converted to `dtype` if given) on huge pages where possible (see :func:`empty`)."""
    out = empty(a.shape, a.dtype if dtype is None else dtype)
    out[...] = a
    return out
