"""L-V-fixedpoint's item functions at a tiny scale, and each verdict on numbers that must agree and must differ."""

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_v_fixedpoint as fp


# -- L-V-thm4 ------------------------------------------------------------------------------------------------

def test_theorem4_holds_when_every_start_ends_within_the_criterion():
    claim = fp.convergence_claim([1e-9, 3e-8, 9.9e-7], 80.0)
    assert claim.holds is True and claim.judge() == "agrees" and "3 starts" in claim.evidence


@pytest.mark.parametrize("finals", [[1e-9, 2e-6], [fp.CONVERGED]])
def test_theorem4_differs_when_one_start_is_not_there(finals):
    assert fp.convergence_claim(finals, 80.0).judge() == "differs"


def test_flow_balance_erratum_is_confirmed_when_only_the_weighted_sum_balances():
    e = fp.flow_balance_erratum(3.0, 2.4, 1e-12)
    assert e.category == "erratum" and e.verdict.startswith("confirmed") and e.paper == 3.0 and e.ours == 2.4


@pytest.mark.parametrize("unweighted, balance", [(3.0 + 5e-4, 1e-12),   # the printed sum holds as well
                                                 (2.4, 1e-8),           # the weighted balance fails
                                                 (3.0 - 5e-4, 0.0)])
def test_flow_balance_erratum_is_not_confirmed_otherwise(unweighted, balance):
    assert fp.flow_balance_erratum(3.0, unweighted, balance).verdict == "not confirmed"


def test_initial_states_are_tails_in_s():
    starts = fp.initial_states(7, 3, 5)
    assert len(starts) == 6 + 2 + 3 and starts["all at 5"].shape == (3, 5)
    for q in starts.values():
        assert np.all(np.diff(q, axis=1) <= 0) and np.all((0 <= q) & (q <= 1))
    again = fp.initial_states(7, 3, 5)
    assert all(np.array_equal(starts[k], again[k]) for k in starts)


@pytest.mark.parametrize("kwargs, name", [(dict(n_random_starts=-1, max_start_level=5), "n_random_starts"),
                                          (dict(n_random_starts=2, max_start_level=0), "max_start_level")])
def test_initial_states_name_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        fp.initial_states(7, **kwargs)


def test_theorem4_at_a_tiny_scale():
    res = fp.theorem4(seed=7, n_random_starts=1, max_start_level=4, horizon=40.0, n_times=3, parameters={})
    assert len(res.rows) == 9 * 3 and {r["start"] for r in res.rows} >= {"empty", "random 0", "all at 4"}
    assert res.claims[0].judge() == "agrees"        # t = 40 is long enough at this accuracy
    assert res.claims[1].verdict.startswith("confirmed")
    assert res.summary["max_final_distance"] < fp.CONVERGED and np.shape(res.summary["fixed_point"]) == (3, 6)
    assert res.figure["random"] == ["random 0"] and len(res.figure["named"]) == 8


# -- L-V-thm7 ------------------------------------------------------------------------------------------------

def _tail_rows(deep):
    rows = []
    for d, level in fp.DEEP_LEVEL.items():
        for m in range(3):
            rows.append(dict(d=d, server_type=m + 1, level=level, log_ratio=deep[d] + 0.01 * (m - 1)))
            rows.append(dict(d=d, server_type=m + 1, level=level + 1, log_ratio=99.0))   # another level: ignored
    return rows


def test_deep_log_ratios_average_the_types_at_the_deep_level():
    deep = fp.deep_log_ratios(_tail_rows({1: 1.04, 2: 2.01, 3: 3.02}))
    assert deep == pytest.approx({1: 1.04, 2: 2.01, 3: 3.02})


def test_theorem7_agrees_for_doubly_exponential_tails():
    claim, check = fp.double_exponential_claims({1: 1.04, 2: 2.01, 3: 3.02})
    assert claim.judge() == "agrees" and check.judge() == "holds"


@pytest.mark.parametrize("deep", [{1: 1.04, 2: 1.5, 3: 3.0}, {1: 1.04, 2: 2.0, 3: 2.0}, {1: 1.2, 2: 2.0, 3: 3.0}])
def test_theorem7_differs_when_a_ratio_is_on_the_wrong_side(deep):
    assert fp.double_exponential_claims(deep)[0].judge() == "differs"


def test_theorem7_check_fails_beyond_its_tolerance():
    assert fp.double_exponential_claims({1: 1.0, 2: 2.06, 3: 3.0})[1].judge() == "fails"


def test_theorem7_computes_the_tails():
    res = fp.theorem7(seed=1, parameters={})
    assert res.summary["deep_log_ratio"][2] == pytest.approx(2.0, abs=0.05)
    assert [c.judge() for c in res.claims] == ["agrees", "holds"]
    assert all(r["q"] > 0 for r in res.rows if r["d"] != 1)


# -- L-X-homog -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("err, label", [(3e-12, "agrees"), (fp.SOLVER_ACCURACY, "differs"), (1e-6, "differs")])
def test_homogeneous_formula_judged_at_the_solvers_accuracy(err, label):
    assert fp.homogeneous_claim(err, [0.5], [2]).judge() == label


def test_homogeneous_at_a_tiny_scale():
    res = fp.homogeneous(loads=[0.5], ds=[2], parameters={})
    assert res.seed is None and [r["level"] for r in res.rows] == list(range(1, len(res.rows) + 1))
    assert res.rows[1]["closed_form"] == pytest.approx(0.5 ** 3)
    assert res.claims[0].judge() == "agrees" and res.summary["max_abs_error"] < fp.SOLVER_ACCURACY


@pytest.mark.parametrize("loads", [[0.5, 1.0], [1.2], [0.0], []])
def test_homogeneous_loads_at_or_past_capacity_are_refused_by_name(loads):
    """No fixed point at load >= 1 (the ODE's horizon 40 / (1 - sqrt(load))^2 was infinite: the run hung)."""
    from qtheory.errors import InstabilityError

    with pytest.raises(InstabilityError, match=r"`homog_loads` must lie in \(0, 1\)"):
        fp.homogeneous(loads=loads, ds=[1, 2], parameters={})


@pytest.mark.parametrize("change, words", [(dict(n_times=1), "`n_times` must be >= 2"),
                                           (dict(horizon=0.0), "`horizon` must be > 0"),
                                           (dict(homog_d=[2, 0]), "`homog_d[1]` must be >= 1")])
def test_compute_refuses_in_the_readers_words(change, words):
    """Named as the reader set them (the ODE solver would name its own `t_eval`)."""
    import re

    params = dict(seed=1, n_random_starts=1, max_start_level=3, horizon=5.0, n_times=3, homog_loads=[0.5],
                  homog_d=[2]) | change
    with pytest.raises(ParameterError, match=re.escape(words)):
        fp.compute(**params)


def test_the_starts_are_labelled_in_words():
    from qtheory.plotting import code_like

    names = fp.initial_states(1, 2, 3)
    labels = [fp.start_label(n) for n in names]
    assert fp.start_label("Q1, lengths-0-2") == "start $Q_{1}$, queue lengths 0, 1, 2"
    assert not [label for label in labels if code_like(label)]
