import numpy as np
import pytest
import scipy.stats

from qtheory import stats
from qtheory.errors import ParameterError
from qtheory.stats import band, loglog_slope, mean_ci, pair_correlation


def test_t_interval_has_its_nominal_coverage():
    rng = np.random.default_rng(2024)
    trials, n = 4000, 8
    samples = rng.normal(3.0, 2.0, size=(trials, n))
    ci = stats.mean_ci(samples, axis=1, level=0.95)
    coverage = np.mean((ci.ci_low <= 3.0) & (3.0 <= ci.ci_high))
    # binomial standard error of the coverage estimate; 4.5 SE
    assert abs(coverage - 0.95) < 4.5 * np.sqrt(0.95 * 0.05 / trials)


def test_standard_error_matches_its_definition():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    ci = stats.mean_ci(x)
    assert ci.mean == 3.5
    assert np.isclose(ci.se, np.std(x, ddof=1) / 2)


def test_single_replication_has_no_interval_and_bad_levels_are_rejected():
    ci = stats.mean_ci([1.0])
    assert np.isnan(ci.se) and ci.n == 1
    with pytest.raises(ParameterError, match="level"):
        stats.mean_ci([1.0, 2.0], level=1.0)
    with pytest.raises(ParameterError, match="samples"):
        stats.mean_ci([])


def test_pair_correlation_recovers_a_known_equicorrelation():
    rng = np.random.default_rng(0)
    n, reps, rho = 50, 400, 0.05
    common = rng.standard_normal((reps, 1))
    x = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.standard_normal((reps, n)) + 3.0
    est, low, high = pair_correlation(x.mean(axis=1), (x ** 2).mean(axis=1), n, n_boot=400)
    assert low <= rho <= high
    assert high - low < 0.05


def test_loglog_slope_of_a_power_law():
    assert loglog_slope([10, 100, 1000], [3.0, 0.3, 0.03]) == pytest.approx(-1.0)


def test_band_is_mean_ci_as_a_tuple():
    x = np.array([[1.0, 2.0], [2.0, 4.0], [4.0, 9.0]])
    mean, low, high, se = band(x)
    ci = mean_ci(x)
    np.testing.assert_array_equal(mean, ci.mean)
    np.testing.assert_array_equal(low, ci.ci_low)
    np.testing.assert_array_equal(high, ci.ci_high)
    np.testing.assert_array_equal(se, x.std(axis=0, ddof=1) / np.sqrt(3))


def test_batch_means_by_hand():
    """Increments n_b = (2, 4, 3), d_b = (1, 2, 1): m = 9/4, residuals n_b - m d_b =
    (-1/4, -1/2, 3/4), se = sqrt(0.875 / (3 * 2)) / (4 / 3)."""
    m, se = stats.batch_means([2.0, 6.0, 9.0], [1.0, 3.0, 4.0])
    assert m == pytest.approx(2.25)
    assert se == pytest.approx(np.sqrt(0.875 / 6) * 3 / 4, rel=1e-12)


def test_batch_means_with_unit_batches_is_the_plain_standard_error():
    """With every batch of length 1 the ratio estimator is the sample mean of the batch
    values and its standard error the usual s / sqrt(B), per column."""
    x = np.random.default_rng(5).normal(size=(50, 3))
    m, se = stats.batch_means(np.cumsum(x, axis=0), np.arange(1.0, 51.0))
    ci = mean_ci(x)
    np.testing.assert_allclose(m, ci.mean, rtol=1e-12)
    np.testing.assert_allclose(se, ci.se, rtol=1e-12)


def test_batch_means_rejects_bad_batches():
    with pytest.raises(ParameterError, match="at least 2 batches"):
        stats.batch_means([1.0], [1.0])
    with pytest.raises(ParameterError, match="one row per batch"):
        stats.batch_means([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ParameterError, match="increase strictly"):
        stats.batch_means([1.0, 2.0], [1.0, 1.0])


def test_sample_batch_means_cuts_the_samples_into_consecutive_batches():
    """10 samples in 3 batches: samples 0-2, 3-5, 6-9 (ends floor(10 b / 3)); by hand, the
    batch sums are 3, 12, 30 over 3, 3, 4 samples of x = 0..9."""
    x = np.arange(10.0)
    m, se = stats.sample_batch_means(x, 3)
    m_ref, se_ref = stats.batch_means([3.0, 15.0, 45.0], [3.0, 6.0, 10.0])
    assert m == pytest.approx(4.5) and m == m_ref and se == se_ref
    m2, se2 = stats.sample_batch_means(np.stack([x, 2 * x], axis=1), 3)
    np.testing.assert_allclose(m2, [4.5, 9.0]) and np.testing.assert_allclose(se2, [se, 2 * se])
    with pytest.raises(ParameterError, match="`n_batches`"):
        stats.sample_batch_means(x, 11)


def test_sample_batch_values_are_the_means_of_the_same_batches():
    """10 samples in 3 batches (0-2, 3-5, 6-9): means 1, 4 and 7.5 by hand, per column; their mean
    weighted by the batch sizes (3, 3, 4) is the samples' mean."""
    x = np.arange(10.0)
    values = stats.sample_batch_values(np.stack([x, 2 * x], axis=1), 3)
    np.testing.assert_allclose(values, [[1.0, 2.0], [4.0, 8.0], [7.5, 15.0]], rtol=0, atol=1e-12)
    assert np.average(values[:, 0], weights=[3, 3, 4]) == pytest.approx(x.mean(), abs=1e-12)
    with pytest.raises(ParameterError, match="`n_batches`"):
        stats.sample_batch_values(x, 11)


def test_batch_estimate_is_sample_batch_means_with_a_t_interval():
    from qtheory.stats import batch_estimate, sample_batch_means

    x = np.random.default_rng(4).normal(size=(100, 3))
    est = batch_estimate(x, 5)
    mean, se = sample_batch_means(x, 5)
    np.testing.assert_array_equal(est.mean, mean)
    np.testing.assert_array_equal(est.se, se)
    half = scipy.stats.t.ppf(0.975, df=4) * se
    np.testing.assert_allclose(est.ci_high - est.mean, half, rtol=1e-12)
    assert est.n == 5 and est.level == 0.95
    assert isinstance(batch_estimate(x[:, 0], 5).mean, float)


def test_stationary_statistics_reach_their_estimates_by_name_and_pickle():
    import pickle

    from qtheory.stats import StationaryStatistics, mean_ci

    st = StationaryStatistics({"mean_tasks": mean_ci([1.0, 2.0, 3.0])}, 10, 2, 7, 0.1, 1.0, 5.0)
    assert st.mean_tasks.mean == 2.0 and "mean_tasks" in dir(st)
    with pytest.raises(AttributeError, match="mean_q"):
        st.mean_q
    again = pickle.loads(pickle.dumps(st))
    assert again.mean_tasks.mean == 2.0 and (again.warmup, again.horizon) == (1.0, 5.0)


def test_the_familywise_t_bound_is_the_bonferroni_t_quantile():
    # tabulated two-sided points of Student t: t_{0.975}(1) = 12.706, t_{0.975}(7) for alpha 0.1 over 2 = 2.365,
    # t_{0.9995}(9) = 4.781
    assert stats.familywise_t_bound(1, alpha=0.05) == pytest.approx(12.706, abs=1e-3)
    assert stats.familywise_t_bound(7, 2, alpha=0.1) == pytest.approx(2.365, abs=1e-3)
    assert stats.familywise_t_bound(9, alpha=1e-3) == pytest.approx(4.780912585933, rel=1e-9)
    assert stats.familywise_t_bound(999, alpha=0.05) == pytest.approx(1.962, abs=1e-3)
    assert stats.familywise_t_bound(7, 18, alpha=1e-3) > stats.familywise_t_bound(7, 1, alpha=1e-3) \
        > stats.familywise_t_bound(29, 1, alpha=1e-3)


def test_the_familywise_t_bound_keeps_its_level_over_the_comparisons():
    # the largest |t| of k independent t(df) statistics exceeds the bound with probability at most alpha
    # (Bonferroni; for independent ones 1 - (1 - alpha/k)^k, just below alpha)
    rng = np.random.default_rng(7)
    k, df, alpha, trials = 6, 4, 0.1, 40_000
    bound = stats.familywise_t_bound(df, k, alpha=alpha)
    rate = np.mean(np.abs(rng.standard_t(df, size=(trials, k))).max(axis=1) > bound)
    expected = 1 - (1 - alpha / k) ** k
    assert abs(rate - expected) < 4.5 * np.sqrt(expected * (1 - expected) / trials)


@pytest.mark.parametrize("args, kwargs, name", [((0,), dict(alpha=0.05), "df"), ((5, 0), dict(alpha=0.05), "comparisons"),
                                                ((5,), dict(alpha=1.0), "alpha"), ((5,), dict(alpha=0.0), "alpha")])
def test_the_familywise_t_bound_names_a_wrong_parameter(args, kwargs, name):
    with pytest.raises(ParameterError, match=name):
        stats.familywise_t_bound(*args, **kwargs)


def test_the_standard_error_read_from_an_interval_inverts_mean_ci():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(7, 4))
    est = mean_ci(x)
    assert stats.se_from_interval(est.ci_low, est.ci_high, df=6) == pytest.approx(est.se, rel=1e-12)
    assert isinstance(stats.se_from_interval(1.0, 3.0), float)
    # a bootstrap percentile interval: the normal quantile 1.959964
    assert stats.se_from_interval(-1.959963984540054, 1.959963984540054) == pytest.approx(1.0, rel=1e-12)
    assert stats.se_from_interval(0.0, 2.0, df=3, level=0.9) == pytest.approx(1.0 / scipy.stats.t.ppf(0.95, 3))
    with pytest.raises(ParameterError, match="df"):
        stats.se_from_interval(0.0, 1.0, df=0)
