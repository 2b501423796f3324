import math

import numpy as np
import pytest

from qtheory import validation as v
from qtheory.errors import ParameterError


def test_probability_matrix_error_names_the_entry():
    with pytest.raises(ParameterError, match=r"`p\[1, 0\]` = 1.2"):
        v.check_array("p", [[0.5, 0.1], [1.2, 0.3]], ndim=2, low=0, high=1)


def test_non_finite_values_are_rejected_not_clipped():
    for bad in (math.nan, math.inf):
        with pytest.raises(ParameterError, match="finite"):
            v.check_positive("rate", bad)
    with pytest.raises(ParameterError, match=r"`u`\[1\]"):
        v.check_array("u", [1.0, np.nan])


def test_probability_vector_must_sum_to_one():
    with pytest.raises(ParameterError, match="sum to 1"):
        v.check_probability_vector("w", [0.5, 0.4])
    np.testing.assert_array_equal(v.check_probability_vector("w", [0.5, 0.5]), [0.5, 0.5])


def test_shape_and_integer_checks():
    with pytest.raises(ParameterError, match=r"shape \(2, any\)"):
        v.check_array("p", np.zeros((3, 2)), shape=(2, None))
    with pytest.raises(ParameterError, match="integer"):
        v.check_integer("d", 2.0)
    with pytest.raises(ParameterError, match=">= 1"):
        v.check_integer("d", 0, low=1)
    with pytest.raises(ParameterError, match="> 0"):
        v.check_positive("mu", 0)
    with pytest.raises(ParameterError, match="not a probability"):
        v.check_probability("zeta", -0.1)


@pytest.mark.parametrize("value", [0.0, 1.0, 1.2, -0.5])
def test_a_load_outside_0_1_is_refused_as_unstable_with_its_meaning(value):
    from qtheory.errors import InstabilityError
    from qtheory.validation import check_load

    with pytest.raises(InstabilityError, match=r"`loads\[1\]` must lie in \(0, 1\) .*the stationary laws this page "
                                               r"computes exist only below 1"):
        check_load("loads[1]", value)


def test_a_load_inside_0_1_passes():
    from qtheory.validation import check_load

    assert check_load("lam", 0.999) == 0.999


def test_runs_and_times_are_named_as_the_reader_set_them():
    from qtheory.validation import check_runs, check_times

    check_runs(n_runs=2, base_runs=10)
    with pytest.raises(ParameterError, match=r"`base_runs` must be >= 2 \(got 1\)"):
        check_runs(n_runs=2, base_runs=1)
    check_times(horizon=0.5)
    with pytest.raises(ParameterError, match="`slta_horizon`"):
        check_times(horizon=0.5, slta_horizon=0.0)


@pytest.mark.parametrize("module, name, value", [
    ("qtheory.utility.items.u_v", "poisson_runs", 1), ("qtheory.utility.items.u_v", "slta_horizon", 0.0),
    ("qtheory.utility.items.u_t1", "n_runs", 1), ("qtheory.utility.items.u_r_jlmud", "warmup", 50.0),
    ("qtheory.locality.items.l_r_jiq", "n_runs", 1), ("qtheory.locality.items.l_v_stability", "growth_runs", 1),
])
def test_item_functions_refuse_runs_and_times_first(module, name, value):
    """The notebook's own parameter is named before any simulation (not `n_replications`)."""
    import importlib
    import inspect

    from qtheory.notebooks import notebook_parameters, notebook_path
    from qtheory.presets import plan

    mod = importlib.import_module(module)
    nb = {"u_v": "U-V", "u_t1": "U-T1", "u_r_jlmud": "U-R-jlmud", "l_r_jiq": "L-R-jiq",
          "l_v_stability": "L-V-stability"}[module.rsplit(".", 1)[1]]
    run = plan("quick", [nb])[0]
    params = {**notebook_parameters(notebook_path(nb)), **run.parameters}
    accepted = set(inspect.signature(mod.compute).parameters)
    params = {k: v for k, v in params.items() if k in accepted}
    params[name] = value
    if name == "warmup":
        params["horizon"] = 40.0
    with pytest.raises(ParameterError, match=f"`{name}`"):
        mod.compute(**params)


def test_a_window_names_both_ends_as_the_reader_set_them():
    from qtheory.validation import check_window

    assert check_window("warmup", 0.0, "horizon", 2.0) == (0.0, 2.0)
    with pytest.raises(ParameterError, match=r"`warmup` must be shorter than `horizon`.*warmup = 5, horizon = 5"):
        check_window("warmup", 5.0, "horizon", 5.0)
    with pytest.raises(ParameterError, match="`horizon` must be > 0"):
        check_window("warmup", 0.0, "horizon", 0.0)
    with pytest.raises(ParameterError, match="`warmup` must be >= 0"):
        check_window("warmup", -1.0, "horizon", 2.0)
