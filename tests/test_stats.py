import numpy as np
import pytest

from qtheory import stats
from qtheory.errors import ParameterError


def test_t_interval_has_its_nominal_coverage():
    rng = np.random.default_rng(2024)
    trials, n = 4000, 8
    samples = rng.normal(3.0, 2.0, size=(trials, n))
    ci = stats.mean_ci(samples, axis=1, level=0.95)
    coverage = np.mean((ci.low <= 3.0) & (3.0 <= ci.high))
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
