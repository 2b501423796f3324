"""R-X-eps's item function at a tiny scale, and its verdicts on values that must agree and must differ."""

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.errors import ParameterError
from qtheory.redundancy.items import r_x_eps
from qtheory.results import select

TINY = dict(seed=0, n_servers=3, speeds=[0.5, 1.0, 1.5], eps_values=[0.0, 1.0], loads=[0.9, 0.999], cdf_load=0.9,
            cdf_max_jobs=60)  # exactly 6/(1 - cdf_load), the least allowed


def test_the_limit_is_one_exponential_with_redundancy_and_a_sum_of_n_without():
    assert r_x_eps.limit_scaled_mean(0.05, 4) == 1.0 and r_x_eps.limit_scaled_mean(0.0, 4) == 4.0
    assert r_x_eps.limit_cdf(1.0, 0.2, 4) == pytest.approx(1 - math.exp(-1))
    assert r_x_eps.limit_cdf(1.0, 0.0, 4) == pytest.approx(stats.gamma.cdf(1.0, 4))
    assert r_x_eps.limit_cdf(1.0, 0.0, 1) == pytest.approx(1 - math.exp(-1))


@pytest.mark.parametrize("eps, value, verdict", [(0.05, 1.0175, "agrees"), (1.0, 0.96, "agrees"), (0.05, 1.06, "differs"),
                                                 (0.2, 0.94, "differs"), (0.0, 3.9996, "agrees"), (0.0, 3.85, "agrees"),
                                                 (0.0, 3.75, "differs"), (0.0, 1.0, "differs"), (0.05, 4.0, "differs")])
def test_the_scaled_mean_agrees_within_five_percent_of_its_limit(eps, value, verdict):
    claim = r_x_eps.scaled_mean_claim(eps, 4, value, 0.9999)
    assert claim.judge() == verdict and claim.source == r_x_eps.SOURCE
    assert claim.text.startswith(f"$\\varepsilon = {eps}$") and "exact at load 0.9999" in claim.text
    assert ("4 (sum of $N$ Exp(1))" in claim.text) == (eps == 0.0)


def test_compute_at_a_tiny_scale_approaches_the_limits():
    res = r_x_eps.compute(**TINY)
    means = select(res.rows, kind="scaled mean")
    # per eps: its scaled means (load by mechanism), then its CDF
    assert len(means) == 2 * 2 * 2 and [r["kind"] for r in res.rows[:5]] == ["scaled mean"] * 4 + ["cdf"]
    assert [(r["eps"], r["load"], r["mechanism"]) for r in res.rows[:4]] == [(0.0, 0.9, "coc"), (0.0, 0.9, "cos"),
                                                                             (0.0, 0.999, "coc"), (0.0, 0.999, "cos")]
    # eps = 0: three independent M/M/1 queues at load f, scaled mean 3f exactly
    for r in select(means, eps=0.0):
        assert r["value"] == pytest.approx(3 * r["load"]) and r["limit"] == 3.0 and r["locally_stable"] == 0
        assert math.isnan(r["q"])
    assert all(r["limit"] == 1.0 and r["locally_stable"] == 1 for r in select(means, eps=1.0))
    cdf = select(res.rows, kind="cdf", eps=1.0)
    assert [r["q"] for r in cdf] == list(range(0, int(6 / 0.1) + 1, 2))
    assert np.all(np.diff([r["value"] for r in cdf]) > 0)
    assert all(r["limit"] == pytest.approx(1 - math.exp(-0.1 * r["q"])) for r in cdf)
    assert [c.judge() for c in res.claims] == ["agrees", "agrees"]
    assert [c.ours for c in res.claims] == [select(means, eps=e, load=0.999, mechanism="coc")[0]["value"]
                                            for e in (0.0, 1.0)]
    assert res.figure["limit_gamma"][-1] == pytest.approx(stats.gamma.cdf(6.0, 3))
    assert res.figure["limit_exp"][-1] == pytest.approx(1 - math.exp(-6.0))


@pytest.mark.parametrize("kwargs, name", [(dict(cdf_max_jobs=50), "cdf_max_jobs"), (dict(cdf_load=1.0), "cdf_load"),
                                          (dict(loads=[0.9, 1.2]), r"loads\[1\]"),
                                          (dict(n_servers=4), "`speeds` must hold one speed per server, `n_servers` = 4"),
                                          (dict(eps_values=[0.0, 2.0]), r"`eps_values\[1\]` must lie in \[0, n_servers - 1\)")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        r_x_eps.compute(**(TINY | kwargs))
