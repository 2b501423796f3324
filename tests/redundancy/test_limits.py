"""R-V-thm31, R-V-thm32, R-V-cor31, R-V-cor32, R-V-appD, R-X-eps: heavy-traffic limits."""

import numpy as np
import pytest

from qtheory.redundancy import limits as L
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF
from qtheory.redundancy import stability as St

LOADS = (0.99, 0.999, 0.9999)


def distances(system, t, mechanism):
    lam_star = St.critical_load(system)
    limit = L.limit_laplace(system, t)
    return [abs(L.scaled_laplace(system, f * lam_star, t, mechanism) - limit) for f in LOADS]


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_theorem_31_scaled_counts_converge_to_exp_times_p(mechanism):
    sy = M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1])
    assert St.is_locally_stable(sy)
    for t in (np.array([1.0, 0.0, 0.5, 2.0]), np.array([0.3, 3.0, 0.0, 0.0])):
        d = distances(sy, t, mechanism)
        assert d[0] > d[1] > d[2] and d[2] < 1e-3


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_theorem_32_critical_types_collapse_and_others_vanish(mechanism):
    sy = M.RedundancySystem([1, 1, 1, 1], [(0, 1), (1, 2), (2, 3), (3,)], [0.15, 0.4, 0.3, 0.15])
    crit = St.critical_subset(sy)
    assert crit.unique and not crit.maximally_stable
    lim = L.heavy_traffic_limit(sy)
    for t in (np.array([1.0, 1.0, 1.0, 1.0]), np.array([5.0, 0.2, 1.0, 0.0])):
        d = distances(sy, t, mechanism)
        assert d[0] > d[1] > d[2] and d[2] < 2e-3
    eps = 1e-3
    means = [m.mean * eps for m in PF.type_moments(sy, (1 - eps) * crit.critical_load)]
    np.testing.assert_allclose(means, lim.type_weights, atol=5e-3)


def test_corollary_31_scaled_replicas_approach_q_n():
    sy = M.RedundancySystem([1, 2, 1], [(0, 1), (1, 2), (0,)], [0.5, 0.3, 0.2])
    lim = L.heavy_traffic_limit(sy)
    lam_star = lim.critical.critical_load
    for mech in ("coc", "cos"):
        gaps = []
        for f in LOADS:
            reps = [m.mean for m in PF.server_replica_moments(sy, f * lam_star, mech)]
            gaps.append(np.abs((1 - f) * np.array(reps) - lim.server_weights).max())
        assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-2


def test_corollary_32_sojourn_limit_has_mean_one_over_mu_critical_not_rho():
    sy = M.m_model(0.25)  # T* = {{2,3}}, p_T* = 3/4, mu_T* = 2
    lim = L.heavy_traffic_limit(sy)
    assert lim.delay_scale == pytest.approx(0.5) and lim.paper_delay_scale == pytest.approx(0.375)
    lam = 0.9999 * lim.critical.critical_load
    for mech in ("coc", "cos"):
        got = L.sojourn_laplace(sy, lam, 1, 1.0, mech)
        assert got == pytest.approx(1 / 1.5, abs=2e-3)           # corrected limit
        assert abs(got - 1 / 1.375) > 0.05                       # the printed rho_T* is off
        assert L.sojourn_laplace(sy, lam, 0, 1.0, mech) == pytest.approx(1.0, abs=2e-3)  # S not in T*
    # in the maximally stable case both readings coincide
    flex = L.heavy_traffic_limit(M.m_model(0.5))
    assert flex.delay_scale == pytest.approx(flex.paper_delay_scale)


def test_appendix_d_truncated_system_is_stable_and_is_the_limit_of_the_non_critical_counts():
    sy = M.RedundancySystem([1, 1, 1, 1], [(0, 1), (1, 2), (2, 3), (3,)], [0.15, 0.4, 0.3, 0.15])
    tr = L.truncated_system(sy)
    assert St.is_stable(tr.system, tr.load)  # Lemma D.1
    lam_star = St.critical_load(sy)
    z_tr = np.array([0.6])
    target = PF.pgf(tr.system, tr.load, z_tr)
    k = tr.type_map[0]
    gaps = []
    for f in LOADS:
        z = np.ones(sy.n_types)
        z[k] = 0.6
        gaps.append(abs(PF.pgf(sy, f * lam_star, z) - target))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-2


def test_eps_example_scaled_total_mean_is_one_for_eps_positive_and_n_for_eps_zero():
    speeds = [1.0, 1.5, 0.5, 1.0]
    for eps, expected in ((0.5, 1.0), (0.0, 4.0)):
        sy = M.single_plus_full(4, eps, speeds)
        eps_load = 1e-3
        mean = PF.total_jobs_moments(sy, (1 - eps_load) * sy.mean_speed, "coc").mean * eps_load
        assert mean == pytest.approx(expected, rel=0.02)


def test_corollary_31_q_n_is_normalised_by_p_of_the_critical_types():
    # T* = {{1}} != S: type {1} has p = 0.5 on a server of speed 1 (lambda* = 2/3), so
    # q_1 = p_{1} / p_{T*} = 1 and q_2 = q_3 = 0 (not p_{1} = 0.5); and near lambda* the
    # replicas at server 1 are, to O(eps), all the jobs: E[R_1] / E[Q] -> q_1
    sy = M.RedundancySystem([1.0, 1.0, 1.0], [(0,), (0, 1, 2)], [0.5, 0.5])
    lim = L.heavy_traffic_limit(sy)
    assert lim.critical.types == (0,)
    np.testing.assert_allclose(lim.server_weights, [1.0, 0.0, 0.0], atol=1e-15)
    lam_star = 2 / 3
    for mech in ("coc", "cos"):
        ratio = [PF.server_replica_moments(sy, lam_star * (1 - e), mech, [0])[0].mean
                 / PF.total_jobs_moments(sy, lam_star * (1 - e), mech).mean for e in (1e-3, 1e-4)]
        assert abs(ratio[1] - lim.server_weights[0]) < abs(ratio[0] - lim.server_weights[0]) + 1e-12
        assert ratio[1] == pytest.approx(lim.server_weights[0], abs=1e-2)
