"""Arrays backed by transparent huge pages, for the simulators' large random-access arrays.

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
