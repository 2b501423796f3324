"""Property-based tests of the shared runtime: validators, tables, replications, CIs."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qtheory import results, runtime, stats, validation
from qtheory.errors import ParameterError

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(st.lists(finite, min_size=1, max_size=20), finite, finite)
def test_check_array_returns_valid_input_unchanged_and_rejects_the_rest(values, a, b):
    low, high = min(a, b), max(a, b)
    arr = np.array(values)
    inside = bool(np.all((arr >= low) & (arr <= high)))
    if inside:
        np.testing.assert_array_equal(validation.check_array("x", values, low=low, high=high), arr)
    else:
        with pytest.raises(ParameterError, match=r"`x\[\d+\]`"):
            validation.check_array("x", values, low=low, high=high)


@given(st.one_of(finite, st.just(float("nan")), st.just(float("inf"))))
def test_check_probability_accepts_exactly_the_unit_interval(x):
    if x == x and 0.0 <= x <= 1.0:
        assert validation.check_probability("p", x) == x
    else:
        with pytest.raises(ParameterError, match="`p`"):
            validation.check_probability("p", x)


cell = st.one_of(st.integers(-10**12, 10**12), finite,
                 st.text(alphabet="abcxyz _-", min_size=1, max_size=8).filter(
                     lambda t: t.strip() == t and not t.lstrip("-").replace("_", "").isdigit()))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), finite, st.sampled_from(["sim", "ode", "exact"])),
                min_size=1, max_size=15))
def test_tables_round_trip_exactly(tmp_path_factory, rows):
    root = tmp_path_factory.mktemp("res")
    with results.ResultWriter("L-F2", parameters={}, seed=0, root=root) as rec:
        rec.write_table([{"N": n, "value": v, "method": m} for n, v, m in rows])
    table = results.read_table("L-F2", root=root)
    assert list(table["N"]) == [r[0] for r in rows]
    assert list(table["value"]) == [r[1] for r in rows]
    assert list(table["method"]) == [r[2] for r in rows]


def _uniforms(ss, n):
    return runtime.generator(ss).random(n)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**63), st.integers(1, 12), st.integers(1, 6))
def test_replications_do_not_depend_on_the_executor_size(seed, n, threads):
    serial = runtime.replicate(_uniforms, n, seed, args=(3,), workers=1)
    with ThreadPoolExecutor(threads) as ex:
        pooled = runtime.replicate(_uniforms, n, seed, args=(3,), executor=ex)
    assert all(np.array_equal(a, b) for a, b in zip(serial, pooled))


@given(st.lists(finite.filter(lambda x: abs(x) < 1e100), min_size=2, max_size=30),
       st.floats(0.5, 0.999))
def test_confidence_interval_contains_the_mean_and_widens_with_the_level(xs, level):
    ci = stats.mean_ci(xs, level=level)
    wider = stats.mean_ci(xs, level=min(0.9999, level + 0.0005))
    assert ci.ci_low <= ci.mean <= ci.ci_high
    assert wider.ci_high - wider.ci_low >= ci.ci_high - ci.ci_low
