"""The same models as qtheory's numba simulators, written as peers for the benchmarks.

Every peer returns a :class:`PeerRun` with the number of events (arrivals plus
departures), the wall time of the event loop and the statistic compared with the
numba simulator (``statistic``), so that throughputs are compared like for like and the
statistics can be checked to agree within standard errors.

- ``plain``: event loops in pure Python (``random`` module), one event at a time;
- ``simpy_models``: the idiomatic SimPy process model (a process per job, resources);
- ``ciw_models``: Ciw networks with custom routing objects, where Ciw can express the model;
- ``csupermarket``, ``credundancy``, ``cutility``: compile and run the C loops
  ``supermarket.c`` (JSQ(2) supermarket), ``redundancy.c`` (c.o.s.-ALIS and c.o.c. on
  circular-d) and ``utility.c`` (JLMU and SLTA) with gcc -O2: the same algorithm in C (ports).
  Each is the numba kernel's event loop written in C with the same generator and the same
  draws, so that fed the same stream it takes the same path. The loops written from the
  models for speed are in ``benchmarks/independent``.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class PeerRun:
    """One run of a peer implementation.

    Attributes
    ----------
    events : int
        Arrivals plus departures simulated.
    seconds : float
        Wall time of the simulation itself (model construction excluded where possible).
    statistic : float
        The compared statistic (see each model's docstring).
    cpu_seconds : float
        Processor time of the same stretch (nan where not measured): on a shared machine
        it moves less than the wall time, because waiting for a core is not counted.
    """

    events: int
    seconds: float
    statistic: float
    cpu_seconds: float = float("nan")

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("inf")

    @property
    def events_per_cpu_second(self) -> float:
        return self.events / self.cpu_seconds if self.cpu_seconds > 0 else float("nan")
