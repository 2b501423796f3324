"""The second-order (1/N^2) stationary expansion: its pieces against brute force (series,
derivatives, the tensor Sylvester solver), against rmftool's order-2 expansion (homogeneous and
two-type models), against closed forms (independent M/M/1 queues), against exact finite chains
extrapolated in 1/N, and against simulation of the Sec. 6 system at N = 10."""

from math import comb

import numpy as np
import pytest

from qtheory.errors import InstabilityError, ParameterError
from qtheory.locality import exact, refined, second_order as so
from qtheory.locality.experiments import population_stationary_replication
from qtheory.locality.graphs import irg
from qtheory.locality.model import LocalitySystem, paper_system
from qtheory.locality.policies import GWSQ, LocalJSQ
from qtheory.runtime import child_seed, replicate
from qtheory.stats import mean_ci

SEED = 20261205


def sec6_at(load: float) -> LocalitySystem:
    """The Sec. 6 system (p^1) with its arrival rate scaled to `load` (capacity sum_m v_m u_m = 4)."""
    base = paper_system("design")
    return LocalitySystem(load * base.capacity / base.zeta, base.zeta, base.cluster_weights, base.type_fractions,
                          base.service_rates, base.compatibility, base.d)


def two_types(d: int) -> LocalitySystem:
    """A small two-type, two-cluster system with partial compatibility (for rmftool)."""
    return LocalitySystem(1.2, 1.0, (0.4, 0.6), (0.6, 0.4), (1.0, 2.0), ((1.0, 0.3), (0.5, 1.0)), d)


# -- the pieces ---------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_selection_series_is_the_expansion_of_sampling_without_replacement(d):
    series = so.selection_series(d, "jsqd-complete")
    x = np.linspace(0.0, 1.0, 11)
    for n in (200, 400):
        exact_h = np.array([comb(round(n * xx), d) / comb(n, d) for xx in x])
        approx = sum(np.polyval(series[t][::-1], x) / n ** t for t in range(3))
        # the remainder is O(1/N^3): its size times N^3 stays bounded (a few d^6 at most)
        assert np.abs(exact_h - approx).max() * n ** 3 < 2.0 * d ** 6 + 1e-9
    np.testing.assert_allclose(series[1], refined._selection_polynomial(d, "correction"), atol=1e-15)
    g = so.selection_series(d, "gwsq")
    assert g[0][d] == 1.0 and not g[1].any() and not g[2].any()


def test_the_1_over_n2_selection_term_is_not_zero_for_d_at_least_2():
    # C(Nx, 2) / C(N, 2) = x (x - 1/N) / (1 - 1/N): its 1/N^2 term is x^2 - x
    np.testing.assert_allclose(so.selection_series(2, "jsqd-complete")[2], [0.0, -1.0, 1.0])


@pytest.mark.parametrize("system", [paper_system("design"), two_types(3)], ids=["sec6", "two-types-d3"])
def test_local_derivatives_match_finite_differences_of_the_arrival_term(system):
    fp = refined.refined_stationary(system, tol=1e-8)
    q = fp.q
    M, L = q.shape
    h = refined._selection_polynomial(system.d, "limit")
    der = so.local_derivatives(system, q, h)
    arrival = refined._Terms(system, q, h).arrival
    np.testing.assert_allclose(der[0], arrival, atol=1e-14)
    lv = 2                                      # level 3: both local blocks are variables

    def local_arrival(z):
        x = q.copy()
        x[:, lv - 1], x[:, lv] = z[:M], z[M:]
        return refined._Terms(system, x, h).arrival[:, lv]

    z0 = np.concatenate([q[:, lv - 1], q[:, lv]])
    eps = 1e-3
    # the arrival term is a polynomial of degree d in z; central differences of a derivative
    # of order k have error O(eps^2) times the (k+2)-th derivative
    for k in (1, 2, 3):
        for a in range(2 * M):
            e = np.zeros(2 * M)
            e[a] = eps
            if k == 1:
                fd = (local_arrival(z0 + e) - local_arrival(z0 - e)) / (2 * eps)
                np.testing.assert_allclose(der[1][:, lv, a], fd, atol=1e-6)
            else:
                # derivative along a of the (k-1)-th local derivative
                plus = so.local_derivatives(system, _set(q, lv, z0 + e, M), h, order=k - 1)[k - 1][:, lv]
                minus = so.local_derivatives(system, _set(q, lv, z0 - e, M), h, order=k - 1)[k - 1][:, lv]
                fd = (plus - minus) / (2 * eps)
                np.testing.assert_allclose(der[k][:, lv][..., a], fd, atol=1e-6)


def _set(q, lv, z, M):
    x = q.copy()
    x[:, lv - 1], x[:, lv] = z[:M], z[M:]
    return x


def test_the_fourth_derivative_vanishes_for_d_3_and_not_the_third():
    system = two_types(3)
    q = refined.refined_stationary(system, tol=1e-8).q
    der = so.local_derivatives(system, q, refined._selection_polynomial(3, "limit"))
    assert np.abs(der[4]).max() == 0.0           # degree d = 3 in z
    assert np.abs(der[3]).max() > 0.1


def test_kronecker_sum_solver_matches_a_dense_solve():
    rng = np.random.default_rng(1)
    n = 6
    J = -2.0 * np.eye(n) + 0.6 * rng.standard_normal((n, n))
    assert np.linalg.eigvals(J).real.max() < 0
    rhs = rng.standard_normal((n, n, n))
    eye = np.eye(n)
    K = np.kron(np.kron(J, eye), eye) + np.kron(np.kron(eye, J), eye) + np.kron(np.kron(eye, eye), J)
    expected = np.linalg.solve(K, rhs.ravel()).reshape(n, n, n)
    np.testing.assert_allclose(so._solve_kronecker_sum3(J, rhs), expected, atol=1e-10)


# -- rmftool's order 2 --------------------------------------------------------------------
def rmftool_model(system: LocalitySystem, levels: int):
    """The truncated population process of `system` under GWSQ(d) written as rmftool transitions
    (rates in plain arithmetic so that rmftool's sympy differentiation sees them)."""
    rmf = pytest.importorskip("rmftool")
    M, L, d = system.n_types, levels, system.d
    r = system.neighbourhood_shares
    c = (system.w / system.delta)[:, None] * system.p
    lz = system.total_arrival_rate
    model = rmf.DDPP()

    def x_of(x, m, lv):                        # q_{m, lv} with q_{m,0} = 1 and q_{m, L+1} = 0
        return 1.0 if lv == 0 else (0.0 if lv > L else x[m * L + lv - 1])

    def arrival(x, m, lv):
        total = 0
        for k in range(r.shape[0]):
            a = sum(r[k, j] * x_of(x, j, lv - 1) for j in range(M))
            b = sum(r[k, j] * x_of(x, j, lv) for j in range(M))
            total = total + c[k, m] * sum(a ** s * b ** (d - 1 - s) for s in range(d))
        return lz * (x_of(x, m, lv - 1) - x_of(x, m, lv)) * total

    for m in range(M):
        for lv in range(1, L + 1):
            e = np.zeros(M * L)
            e[m * L + lv - 1] = 1.0 / system.v[m]
            model.add_transition(e, lambda x, m=m, lv=lv: system.v[m] * arrival(x, m, lv))
            model.add_transition(-e, lambda x, m=m, lv=lv: system.v[m] * system.u[m]
                                 * (x_of(x, m, lv) - x_of(x, m, lv + 1)))
    model.set_initial_state(np.zeros(M * L))
    return model


# rmftool symmetrises its tensors in float32 (relative rounding 6e-8) and solves for D and C
# by lgmres with atol 1e-7; the Kronecker sums amplify that by their condition (about the
# relaxation time, <= 10 here). Observed differences are below 1e-5 of max|A|; 1e-4 leaves
# room and still rejects any dropped term (each changes A by more than 1 % here, see the
# mutation test below).
RMF_RTOL = 1e-4


@pytest.mark.parametrize("system, levels", [(LocalitySystem.homogeneous(0.7, 2), 5),
                                            (LocalitySystem.homogeneous(0.9, 3), 5),
                                            (LocalitySystem.homogeneous(0.9, 4), 4),
                                            (two_types(3), 2)],
                         ids=["jsq2-0.7", "jsq3-0.9", "jsq4-0.9", "two-types-d3"])
def test_second_order_term_matches_rmftool_order_2(system, levels):
    ours = so.second_order_stationary(system, levels=levels)
    pi, V, A, _ = rmftool_model(system, levels).meanFieldExpansionSteadyState(order=2)
    np.testing.assert_allclose(ours.q.ravel(), pi, atol=1e-7)
    np.testing.assert_allclose(ours.V.ravel(), V, atol=1e-6 * np.abs(V).max())
    assert np.abs(A).max() > 0.1
    np.testing.assert_allclose(ours.A.ravel(), A, atol=RMF_RTOL * np.abs(A).max())


# -- closed forms ----------------------------------------------------------------------------
@pytest.mark.parametrize("system", [LocalitySystem.homogeneous(0.3, 1),
                                    LocalitySystem(0.4, 1.0, (0.4, 0.6), (0.6, 0.4), (1.0, 2.0),
                                                   ((1.0, 0.3), (0.5, 1.0)), 1)], ids=["mm1", "two-types"])
def test_independent_mm1_queues_have_the_exact_moments_of_sample_averages(system):
    """d = 1: every server is an independent M/M/1 queue with load rho_m, so q^N_{m,l} is an average
    of v_m N i.i.d. indicators 1{X >= l}, P(X >= l) = rho_m^l: E[q^N] = q* at every N (V = A = 0),
    N Cov = W exactly (B = 0) and N^2 E[Y Y Y] = the third central moment of one indicator vector
    over v_m^2."""
    res = so.second_order_stationary(system, tol=1e-11)     # loads <= 0.3: about 20 levels per type
    M, L = res.q.shape
    rho = res.q[:, 0]
    lv = np.arange(1, L + 1)
    np.testing.assert_allclose(res.q, rho[:, None] ** lv[None, :], atol=1e-12)
    assert np.abs(res.V).max() < 1e-10 and np.abs(res.A).max() < 1e-9
    W = np.zeros((M * L, M * L))
    C = np.zeros((M * L, M * L, M * L))
    for m in range(M):
        p = rho[m] ** lv
        top2 = rho[m] ** np.maximum.outer(lv, lv)
        top3 = rho[m] ** np.maximum.outer(np.maximum.outer(lv, lv), lv)
        block = slice(m * L, (m + 1) * L)
        W[block, block] = (top2 - np.outer(p, p)) / system.v[m]
        third = (top3 - np.einsum("i,jk->ijk", p, top2) - np.einsum("j,ik->ijk", p, top2)
                 - np.einsum("k,ij->ijk", p, top2) + 2 * np.einsum("i,j,k->ijk", p, p, p))
        C[block, block, block] = third / system.v[m] ** 2
    np.testing.assert_allclose(res.W, W, atol=1e-10)
    np.testing.assert_allclose(res.B, 0.0, atol=1e-9)
    np.testing.assert_allclose(res.C, C, atol=1e-9)
    assert np.abs(C).max() > 0.05


def test_the_second_order_term_keeps_the_flow_balance_of_every_finite_system():
    # sum_m v_m u_m E[q^N_{m,1}] = lambda zeta at every N, so both terms cancel in that sum
    system = sec6_at(0.9)
    res = so.second_order_stationary(system)
    assert abs(res.A[:, 0] @ (system.v * system.u)) < 1e-9
    assert np.abs(res.A[:, 0]).max() > 0.05


def test_the_first_order_term_is_the_refined_one():
    for policy in (GWSQ(), LocalJSQ()):
        system = LocalitySystem.homogeneous(0.9, 3)
        res = so.second_order_stationary(system, policy=policy)
        ref = refined.refined_stationary(system, policy=policy)
        np.testing.assert_allclose(res.V[:, :ref.levels], ref.V, atol=1e-9)
    res = so.second_order_stationary(paper_system())
    ref = refined.refined_stationary(paper_system())
    np.testing.assert_allclose(res.V[:, :ref.levels], ref.V, atol=1e-9)
    assert res.overall_mean_queue_length(10, order=1) == pytest.approx(ref.overall_mean_queue_length(10))


# -- exact finite chains ---------------------------------------------------------------------
#: buffers of the exact chains at load 0.3 (boundary mass below 1e-6, checked)
EXACT_BUFFERS = {2: 12, 3: 10, 4: 8, 5: 7, 6: 7, 7: 6, 8: 6, 9: 6, 10: 6}


@pytest.mark.parametrize("policy", [GWSQ(), LocalJSQ()], ids=["gwsq", "jsqd-complete"])
def test_second_order_term_matches_exact_chains_extrapolated_in_1_over_n(policy, monkeypatch):
    """E_N - q* - V/N = A/N^2 + c3/N^3 + ...: fitted over N = 2..10 with 4 and 5 terms; A must sit
    within twice the difference of the two fits (the neglected orders), that band must be below a
    fifth of A, and the A of a drift without its 1/N^2 term f2 (sampling without replacement) must
    lie outside it."""
    system = LocalitySystem.homogeneous(0.3)
    laws = {n: exact.occupancy_stationary(system, n, policy=policy, buffer=b) for n, b in EXACT_BUFFERS.items()}
    assert max(law.boundary_mass for law in laws.values()) < 1e-6
    res = so.second_order_stationary(system, policy=policy)
    ns = np.array(sorted(laws), dtype=float)
    gap = (np.array([laws[int(n)].mean_queue_length[0] for n in ns]) - res.mean_queue_length()[0]
           - res.V[0].sum() / ns)
    fits = {}
    for order in (4, 5):
        X = np.stack([ns ** -k for k in range(2, order + 1)], axis=1)
        fits[order] = np.linalg.lstsq(X, gap, rcond=None)[0][0]
    A = res.A[0].sum()
    tolerance = max(2 * abs(fits[5] - fits[4]), 1e-5)
    assert abs(A - fits[5]) <= tolerance
    assert tolerance < 0.2 * abs(A)
    if isinstance(policy, LocalJSQ):
        series = so.selection_series

        def without_f2(d, kind, terms=3):
            out = series(d, kind, terms)
            out[2][:] = 0.0
            return out

        monkeypatch.setattr(so, "selection_series", without_f2)
        wrong = so.second_order_stationary(system, policy=policy).A[0].sum()
        assert abs(wrong - fits[5]) > 3 * tolerance


# -- simulation --------------------------------------------------------------------------------
def test_second_order_beats_first_order_against_simulation_of_the_sec6_system_at_n10():
    """Load 0.9, N = 10: the simulated mean queue length is closer to the second-order value than to
    the first-order one. 12 runs of 2e6 events give an SE near 0.01; the two approximations differ
    by about 0.07 (7 SE): the test asks that the second-order value be within 4.5 SE of the mean
    (two-sided false alarm 7e-6) and the first-order one beyond it."""
    system = sec6_at(0.9)
    res = so.second_order_stationary(system)
    relax = refined.refined_stationary(system).relaxation_time
    n, events = 10, 2_000_000
    warmup = 30 * relax
    horizon = warmup + events / (2 * system.total_arrival_rate * n)
    runs = replicate(population_stationary_replication, 12, child_seed(SEED, "second-order-sim", n),
                     args=(system, n, "gwsq", warmup, horizon), kwargs={"n_samples": 20000, "levels": 2},
                     workers=1, progress=False)
    ci = mean_ci(np.array([[system.v @ r.mean_queue_length] for r in runs]))
    mean, se = ci.mean[0], ci.se[0]
    first, second = res.overall_mean_queue_length(n, order=1), res.overall_mean_queue_length(n, order=2)
    assert abs(second - first) > 5 * se                  # the simulation can tell them apart
    assert abs(mean - second) < 4.5 * se
    assert abs(mean - first) > 4.5 * se


# -- bad input -------------------------------------------------------------------------------
def test_bad_input_is_refused_with_the_parameter_named():
    with pytest.raises(InstabilityError):
        so.second_order_stationary(LocalitySystem.homogeneous(1.2))
    with pytest.raises(ParameterError, match="not a population process"):
        so.second_order_stationary(paper_system(), policy=irg(paper_system(), 20, 1))
    with pytest.raises(ParameterError, match="`levels`"):
        so.second_order_stationary(paper_system(), levels=1)
    with pytest.raises(ParameterError, match="`order`"):
        so.second_order_stationary(LocalitySystem.homogeneous(0.5)).occupancy(10, order=3)
    with pytest.raises(ParameterError, match="`kind`"):
        so.selection_series(2, "jsq")
