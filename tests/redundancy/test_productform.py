"""R-V-pf, R-V-prop31, R-X-13: exact stationary quantities of the product forms (4) and (6)."""

import itertools
import math

import numpy as np
import pytest

from qtheory.errors import InstabilityError
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF

SMALL = M.RedundancySystem([1.0, 2.0, 0.5], [(0,), (0, 1), (1, 2), (0, 1, 2)], [0.2, 0.3, 0.1, 0.4])


def mmc_mean(c, a):
    """Mean number in an M/M/c queue with offered load a (Erlang C)."""
    rho = a / c
    p0 = 1 / (sum(a ** k / math.factorial(k) for k in range(c)) + a ** c / math.factorial(c) / (1 - rho))
    return p0 * a ** c * rho / (math.factorial(c) * (1 - rho) ** 2) + a


def brute_force_coc(system, lam, max_len):
    """Enumerate every central-queue state of length <= max_len with its weight (4)."""
    n_lam = system.n_servers * lam
    masks, p, sp = system.masks, system.probabilities, system.speeds
    w0, w1, w2 = 1.0, 0.0, 0.0
    per_type = np.zeros(system.n_types)
    for length in range(1, max_len + 1):
        for seq in itertools.product(range(system.n_types), repeat=length):
            union, w = 0, 1.0
            for j in seq:
                union |= int(masks[j])
                w *= n_lam * p[j] / sum(sp[s] for s in range(system.n_servers) if union >> s & 1)
            w0 += w; w1 += w * length; w2 += w * length ** 2
            per_type += w * np.bincount(seq, minlength=system.n_types)
    return w0, w1 / w0, w2 / w0, per_type / w0


def brute_force_cos(system, lam, max_len):
    """Enumerate the c.o.s.-ALIS states (c; u) of (6) with |c| <= max_len: mean total and C'."""
    n, n_lam = system.n_servers, system.n_servers * lam
    masks, p, sp = system.masks, system.probabilities, system.speeds
    z, m1 = 0.0, 0.0
    for size in range(n + 1):
        for u in itertools.permutations(range(n), size):
            b, idle = 1.0, 0
            for s in u:
                idle |= 1 << s
                lam_c = n_lam * p[(masks & idle) != 0].sum()
                b *= sp[s] / lam_c
            allowed = [j for j in range(system.n_types) if int(masks[j]) & idle == 0]
            for length in range(0, max_len + 1):
                for seq in itertools.product(allowed, repeat=length):
                    union, w = 0, b
                    for j in seq:
                        union |= int(masks[j])
                        w *= n_lam * p[j] / sum(sp[s] for s in range(n) if union >> s & 1)
                    z += w
                    m1 += w * (length + n - size)
    return 1 / z, m1 / z


def test_m_model_closed_form_13_and_constant_match_the_dp():
    for lam in (0.3, 0.6, 0.9):
        dp = PF.joint_type_pmf(M.m_model(7 / 12), lam, 30)
        closed = PF.m_model_joint_pmf(lam, 7 / 12, 30)
        np.testing.assert_allclose(dp, closed, rtol=1e-10, atol=1e-15)
        assert PF.normalisation_constant(M.m_model(7 / 12), lam) == pytest.approx(
            PF.m_model_constant(lam, 7 / 12), rel=1e-12)


def test_m_model_constant_is_the_empty_probability_by_enumeration():
    w0, *_ = brute_force_coc(M.m_model(0.4), 0.5, 14)
    # truncation at 14 jobs leaves < 1e-4 of the mass at this load
    assert 1 / w0 == pytest.approx(PF.m_model_constant(0.5, 0.4), rel=1e-3)


def test_coc_dp_matches_brute_force_enumeration_of_states():
    lam = 0.3
    # 8 jobs: 4^8 sequences in 1.6 s (9 jobs took 8 s for a tail 3 times smaller)
    w0, mean, second, per_type = brute_force_coc(SMALL, lam, 8)
    # the enumeration stops at 8 jobs: compare with the DP's law of Q conditioned on Q <= 8
    c = PF.normalisation_constant(SMALL, lam)
    pmf = PF.total_jobs_pmf(SMALL, lam, 8)
    m = np.arange(9)
    assert w0 == pytest.approx(pmf.sum() / c, rel=1e-12)
    assert mean == pytest.approx((m * pmf).sum() / pmf.sum(), rel=1e-12)
    assert second == pytest.approx((m ** 2 * pmf).sum() / pmf.sum(), rel=1e-12)
    # untruncated moments differ from the truncated ones only by the tail mass (2e-4 and 2.5e-4 here)
    mo = PF.total_jobs_moments(SMALL, lam, "coc")
    assert mo.mean == pytest.approx(mean, rel=1e-3)
    np.testing.assert_allclose([x.mean for x in PF.type_moments(SMALL, lam)], per_type, rtol=2e-3)


def test_cos_dp_matches_brute_force_enumeration_of_states():
    sy = M.m_model(0.6)
    c, mean = brute_force_cos(sy, 0.35, 10)
    assert PF.normalisation_constant(sy, 0.35, "cos") == pytest.approx(c, rel=1e-5)
    assert PF.total_jobs_moments(sy, 0.35, "cos").mean == pytest.approx(mean, rel=1e-4)


def test_fully_flexible_is_mm1_under_coc_and_mmn_under_cos():
    for n, lam in ((1, 0.7), (3, 0.8), (5, 0.95)):
        sy = M.fully_flexible(n)
        coc = PF.total_jobs_moments(sy, lam, "coc")
        assert coc.mean == pytest.approx(lam / (1 - lam), rel=1e-10)
        assert coc.variance == pytest.approx(lam / (1 - lam) ** 2, rel=1e-10)
        assert PF.total_jobs_moments(sy, lam, "cos").mean == pytest.approx(mmc_mean(n, n * lam), rel=1e-10)


def test_eps_zero_is_independent_mm1_queues():
    sy = M.single_plus_full(4, 0.0, speeds=[1, 2, 0.5, 0.5])
    lam = 0.7  # per-server utilisation is lam / mean speed everywhere
    rho = lam / sy.mean_speed
    for mech in ("coc", "cos"):
        mo = PF.total_jobs_moments(sy, lam, mech)
        assert mo.mean == pytest.approx(4 * rho / (1 - rho), rel=1e-10)
        assert mo.variance == pytest.approx(4 * rho / (1 - rho) ** 2, rel=1e-10)


def test_pmf_matches_moments_and_sums_to_one():
    for mech in ("coc", "cos"):
        pmf = PF.total_jobs_pmf(SMALL, 0.6, 600, mech)
        m = np.arange(pmf.size)
        mo = PF.total_jobs_moments(SMALL, 0.6, mech)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
        assert (m * pmf).sum() == pytest.approx(mo.mean, rel=1e-10)
        assert (m ** 2 * pmf).sum() == pytest.approx(mo.second_moment, rel=1e-10)
    per_type = PF.total_jobs_pmf(SMALL, 0.6, 600, "coc", type_index=2)
    assert (np.arange(601) * per_type).sum() == pytest.approx(PF.type_moments(SMALL, 0.6, [2])[0].mean)


def test_proposition_31_pgf_equals_the_dp_pgf():
    rng = np.random.default_rng(5)
    for sy, lam in ((SMALL, 0.6), (M.m_model(0.3), 0.8), (M.circular_d(4, 2, [0.4, 0.1, 0.4, 0.1]), 0.9)):
        for _ in range(3):
            z = rng.uniform(0, 1, sy.n_types)
            assert PF.pgf_prop31(sy, lam, z) == pytest.approx(PF.pgf(sy, lam, z), rel=1e-12)


def test_replicas_per_server_are_sums_of_type_counts_under_coc():
    lam = 0.7
    types = [m.mean for m in PF.type_moments(SMALL, lam)]
    reps = [m.mean for m in PF.server_replica_moments(SMALL, lam, "coc")]
    np.testing.assert_allclose(reps, SMALL.compatibility.T.astype(float) @ types, rtol=1e-12)


def test_circular_20_is_exact_fast_and_unstable_loads_raise():
    system = M.circular_d(20, 2)
    mo = PF.total_jobs_moments(system, 0.9, "cos")
    # an independent route to the mean: the derivative of the PGF (C.1) at z = 1, by a
    # second-order one-sided difference (truncation error ~ h^2 E[Q^3] / 3 < 1e-3 here)
    h = 1e-4
    g = [PF.pgf(system, 0.9, np.full(system.n_types, 1 - k * h), "cos", z_busy=1 - k * h) for k in range(3)]
    assert mo.mean == pytest.approx((3 * g[0] - 4 * g[1] + g[2]) / (2 * h), rel=1e-4)
    assert mo.variance > 0
    with pytest.raises(InstabilityError):
        PF.total_jobs_moments(M.m_model(0.25), 0.9)


def test_replica_pmf_per_server_matches_its_moments():
    for mech in ("coc", "cos"):
        moments = PF.server_replica_moments(SMALL, 0.6, mech)
        for s in range(SMALL.n_servers):
            pmf = PF.total_jobs_pmf(SMALL, 0.6, 800, mech, server_index=s)
            m = np.arange(pmf.size)
            assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
            assert (m * pmf).sum() == pytest.approx(moments[s].mean, rel=1e-10)
            assert (m ** 2 * pmf).sum() == pytest.approx(moments[s].second_moment, rel=1e-10)


def test_dp_inputs_are_validated():
    from qtheory.errors import ParameterError
    with pytest.raises(ParameterError, match="N <= 22"):
        PF.total_jobs_moments(M.circular_d(23, 2), 0.5)
    with pytest.raises(ParameterError, match="mechanism"):
        PF.total_jobs_moments(SMALL, 0.5, "fcfs")
    with pytest.raises(ParameterError, match="z"):
        PF.pgf(SMALL, 0.5, [0.5, 0.5])
    with pytest.raises(ParameterError, match="at most one"):
        PF.total_jobs_pmf(SMALL, 0.5, 10, type_index=0, server_index=0)


def test_cos_replicas_at_a_single_server_include_the_job_in_service():
    # one server: R_1 = Q (the waiting jobs plus the one in service), an M/M/1 queue
    rho = 0.6 / 1.5
    for mech in ("coc", "cos"):
        mo = PF.server_replica_moments(M.fully_flexible(1, speeds=[1.5]), 0.6, mech)[0]
        assert mo.mean == pytest.approx(rho / (1 - rho), rel=1e-12)


@pytest.mark.parametrize("mu", [0.5, 2.0, 3.0])
def test_m_model_with_speed_mu_is_the_unit_model_in_time_scaled_by_mu(mu):
    # every rate divided by mu leaves the stationary law unchanged
    for lam_over_mu, p12 in ((0.3, 0.4), (0.6, 7 / 12), (0.9, 0.5)):
        assert PF.m_model_constant(lam_over_mu * mu, p12, mu) == pytest.approx(
            PF.m_model_constant(lam_over_mu, p12), rel=1e-12)
        np.testing.assert_allclose(PF.m_model_joint_pmf(lam_over_mu * mu, p12, 6, mu),
                                   PF.m_model_joint_pmf(lam_over_mu, p12, 6), rtol=1e-12)
    # stability needs 3 lam p12 < 2 mu: at mu = 0.5, lam = 0.45, p12 = 0.8 it fails (1.08 > 1)
    with pytest.raises(InstabilityError):
        PF.m_model_constant(0.45 * mu / 0.5, 0.8, mu)


@pytest.mark.parametrize("lam, p12, mu, on_boundary", [
    (0.45, 0.2, 0.5, False),     # only 3 lam p23 < 2 mu fails (1.08 > 1)
    (1.0, 0.5, 1.0, True),       # only lam < mu fails (at equality)
    (0.5, 0.75, 0.5625, True),   # 3 lam p12 = 2 mu exactly (9/8 both, exact in binary): null recurrent
    (0.5, 0.25, 0.5625, True),   # 3 lam p23 = 2 mu exactly
])
def test_m_model_stability_conditions_each_bind_and_are_strict(lam, p12, mu, on_boundary):
    with pytest.raises(InstabilityError):
        PF.m_model_constant(lam, p12, mu)
    if on_boundary:     # just inside, the constant is a probability
        assert 0 < PF.m_model_constant(lam * (1 - 1e-9), p12, mu) < 1


@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_one_pass_type_moments_equal_one_dp_per_marked_type(mechanism):
    """type_moments/waiting_type_moments mark every type by its own variable in one DP; the
    scalar-mark DP run once per type (its own kernel) must give the same moments, and the
    per-type means must add up to the total (waiting) count of the total-jobs DP."""
    from qtheory.redundancy.experiments import random_system
    from qtheory.redundancy.stability import critical_load

    rng = np.random.default_rng(3)
    for _ in range(12):
        sy = random_system(rng, max_servers=5, max_types=7)
        lam = 0.85 * critical_load(sy)
        got = PF._per_type_moments(sy, lam, None, mechanism)
        for k in range(sy.n_types):
            ref = PF._moments(PF._jets_for(sy, lam, mechanism, np.eye(sy.n_types)[k]))
            assert got[k].mean == pytest.approx(ref.mean, rel=1e-10)
            assert got[k].variance == pytest.approx(ref.variance, rel=1e-9)
            assert got[k].normaliser == pytest.approx(ref.normaliser, rel=1e-12)
        total = PF.total_jobs_moments(sy, lam, mechanism, waiting_only=True)
        assert sum(m.mean for m in got) == pytest.approx(total.mean, rel=1e-10)
        # a subset, repeated and out of order, is the same numbers in the order asked
        pick = [sy.n_types - 1, 0, sy.n_types - 1]
        sub = PF._per_type_moments(sy, lam, pick, mechanism)
        assert [m.mean for m in sub] == pytest.approx([got[k].mean for k in pick], rel=1e-12)
