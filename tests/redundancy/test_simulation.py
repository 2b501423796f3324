"""R-P-coc, R-P-cos, R-V-pf: the simulators agree with the exact product-form values."""

import numpy as np
import pytest

from qtheory import runtime
from qtheory.errors import InstabilityError, ParameterError
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF
from qtheory.redundancy import simulation as SIM

SYSTEM = M.RedundancySystem([1.0, 2.0, 0.5], [(0,), (0, 1), (1, 2), (0, 1, 2)], [0.2, 0.3, 0.1, 0.4])


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_time_averages_match_the_product_form_within_five_standard_errors(mechanism):
    lam = 0.7
    runs = runtime.replicate(SIM.simulate_replication, 8, 20240, args=(SYSTEM, lam, 400_000),
                             kwargs=dict(mechanism=mechanism, warmup=5_000), workers=1)
    means = np.array([r.mean_q for r in runs])
    exact = PF.total_jobs_moments(SYSTEM, lam, mechanism)
    se = means.std(ddof=1) / np.sqrt(means.size)
    assert abs(means.mean() - exact.mean) < 5 * se
    pmf = PF.total_jobs_pmf(SYSTEM, lam, 3, mechanism)
    hist = np.array([r.hist[:4] for r in runs])
    hse = hist.std(axis=0, ddof=1) / np.sqrt(len(runs))
    assert np.all(np.abs(hist.mean(axis=0) - pmf) < 5 * hse)
    if mechanism == "coc":
        types = np.array([r.type_means for r in runs])
        exact_types = np.array([m.mean for m in PF.type_moments(SYSTEM, lam)])
        tse = types.std(axis=0, ddof=1) / np.sqrt(len(runs))
        assert np.all(np.abs(types.mean(axis=0) - exact_types) < 5 * tse)


def test_event_averages_differ_from_time_averages():
    runs = [SIM.simulate(M.m_model(7 / 12), 0.6, 300_000, mechanism="cos", seed=s) for s in range(4)]
    exact = PF.total_jobs_moments(M.m_model(7 / 12), 0.6, "cos").mean
    ev = np.array([r.event_mean_q for r in runs])
    # the jump chain over-samples busy states: its mean is well above the stationary mean
    assert ev.mean() - exact > 10 * ev.std(ddof=1) / 2


def test_single_server_is_an_mm1_queue():
    runs = [SIM.simulate(M.fully_flexible(1), 0.5, 200_000, mechanism="coc", seed=s) for s in range(6)]
    m = np.array([r.mean_q for r in runs])
    assert abs(m.mean() - 1.0) < 5 * m.std(ddof=1) / np.sqrt(6)


def test_simulator_validates_its_input():
    with pytest.raises(InstabilityError):
        SIM.simulate(M.m_model(0.25), 0.95, 10)
    with pytest.raises(ParameterError, match="mechanism"):
        SIM.simulate(SYSTEM, 0.5, 10, mechanism="fifo")
    with pytest.raises(ParameterError, match="n_events"):
        SIM.simulate(SYSTEM, 0.5, 0)


def test_a_run_without_recorded_arrivals_has_undefined_arrival_averages_and_no_warning():
    import warnings

    system = M.circular_d(6, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # one recorded event after a warm-up: a departure for some seeds
        runs = [SIM.simulate(system, 0.5, 1, seed=s, warmup=50) for s in range(20)]
    without = [r for r in runs if np.isnan(r.arrival_mean_q)]
    assert without and all(np.isnan(r.arrival_var_q) and np.isnan(r.arrival_ratio_first) for r in without)
    assert all(np.isfinite(r.mean_q) and r.n_events == 1 for r in runs)
    with_arrival = [r for r in runs if not np.isnan(r.arrival_mean_q)]
    assert with_arrival and all(r.arrival_mean_q >= 1 and r.arrival_var_q == 0.0 for r in with_arrival)
