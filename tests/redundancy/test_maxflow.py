"""The minimum cuts of the critical-subset search (``method="flow"``): SciPy's maximum flow
with capacities taken exactly, against enumerating every cut of small networks."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from qtheory.redundancy import stability as St


def cut_capacities(n_nodes, arcs, source, sink):
    """``{source side (frozenset): exact capacity}`` of every s-t cut, by enumeration."""
    inner = [v for v in range(n_nodes) if v not in (source, sink)]
    out = {}
    for r in range(len(inner) + 1):
        for extra in itertools.combinations(inner, r):
            side = frozenset((source, *extra))
            out[side] = sum((Fraction(c) for u, v, c in arcs if u in side and v not in side), Fraction(0))
    return out


def flow_and_cuts(n_nodes, arcs, source, sink):
    residual, scale = St._maximum_flow(n_nodes, arcs, source, sink)
    # the net flow out of the source, from what its arcs have left
    sent = sum((Fraction(c) for u, _, c in arcs if u == source), Fraction(0)) \
        - Fraction(sum(r for (u, _), r in residual.items() if u == source), scale)
    smallest = frozenset(St._reach(n_nodes, residual, source))
    largest = frozenset(set(range(n_nodes)) - St._reach(n_nodes, residual, sink, backwards=True))
    return sent, smallest, largest


def random_network(rng, n_nodes, spread):
    """Random arcs (no arc into the source or out of the sink, as in the closure networks)
    with capacities 2^e u, e uniform in [-spread, spread]: with spread 40 their exact
    integers need far more than SciPy's 31 bits."""
    source, sink = n_nodes - 2, n_nodes - 1
    arcs = []
    for u in range(n_nodes):
        for v in range(n_nodes):
            if u != v and u != sink and v != source and rng.random() < 0.5:
                c = float(rng.uniform(0.5, 1.0) * 2.0 ** rng.uniform(-spread, spread))
                arcs.append((u, v, c if rng.random() < 0.9 else 0.0))
    return arcs, source, sink


@pytest.mark.parametrize("spread", [0, 8, 40])
def test_the_flow_equals_the_smallest_cut_found_by_enumeration(spread):
    rng = np.random.default_rng(20261205 + spread)
    for _ in range(60):
        n_nodes = int(rng.integers(3, 8))
        arcs, source, sink = random_network(rng, n_nodes, spread)
        cuts = cut_capacities(n_nodes, arcs, source, sink)
        best = min(cuts.values())
        sent, smallest, largest = flow_and_cuts(n_nodes, arcs, source, sink)
        # max-flow min-cut, exactly (the capacities are floats, so their exact rationals)
        assert sent == best
        minimal = [side for side, c in cuts.items() if c == best]
        # the residual graph's two reachability sets are the smallest and the largest
        # source sides of a minimum cut (minimum cuts are closed under union and intersection)
        assert smallest == frozenset.intersection(*minimal)
        assert largest == frozenset.union(*minimal)


def test_two_cuts_that_differ_in_the_53rd_bit_are_told_apart():
    # source -> a -> sink and source -> b -> sink; the cheapest cut takes the smaller arc of
    # each path. 1 + 2^-52 and 1 differ in the last bit of a double, and 2^40 needs more
    # than 31 bits: rounded to SciPy's int32 at any common scale, one of them is lost.
    source, a, b, sink = 0, 1, 2, 3
    eps = 2.0 ** -52
    arcs = [(source, a, 1.0 + eps), (a, sink, 1.0), (source, b, 2.0 ** 40), (b, sink, 2.0 ** 40 - 1.0)]
    sent, smallest, largest = flow_and_cuts(4, arcs, source, sink)
    assert sent == Fraction(1) + Fraction(2.0 ** 40 - 1.0)
    assert smallest == largest == frozenset({source, a, b})


def test_a_capacity_beyond_int32_is_not_wrapped_around():
    # SciPy's maximum_flow casts capacities to int32: 2^32 + 5 would become 5
    sent, smallest, _ = flow_and_cuts(3, [(0, 1, 2.0 ** 32 + 5), (1, 2, 2.0 ** 33)], 0, 2)
    assert sent == 2 ** 32 + 5
    assert smallest == frozenset({0})


def test_a_network_without_a_path_sends_nothing():
    sent, smallest, largest = flow_and_cuts(4, [(0, 1, 1.0), (2, 3, 1.0)], 0, 3)
    assert sent == 0
    # node 2 on the source side would cut 2 -> 3: the one minimum cut has capacity 0
    assert smallest == largest == frozenset({0, 1})


def test_the_closure_cut_is_the_largest_maximiser_by_enumeration():
    # max_U sum_{S subset U} p_S - theta mu(U) over server sets U, enumerated, against the cut
    from qtheory.redundancy import model as M

    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(2, 6))
        types = sorted({tuple(sorted(rng.choice(n, int(rng.integers(1, n + 1)), replace=False).tolist()))
                        for _ in range(int(rng.integers(1, 6)))})
        if len(set().union(*types)) < n:
            continue
        sy = M.RedundancySystem(rng.uniform(0.5, 2, n), types, rng.dirichlet(np.ones(len(types))))
        theta = float(rng.uniform(0.1, 1.0)) / sy.total_speed
        values = {}
        for mask in range(1 << n):
            f = sum(Fraction(float(p)) for t, p in zip(sy.types, sy.probabilities)
                    if all(mask >> s & 1 for s in t))
            values[mask] = f - sum(Fraction(theta * float(sy.speeds[s])) for s in range(n) if mask >> s & 1)
        best = max(values.values())
        largest = 0
        for mask, v in values.items():
            if v == best:
                largest |= mask
        value, mask = St._closure_cut(sy, theta)
        assert mask == largest
        assert value == pytest.approx(float(best), abs=1e-15)
