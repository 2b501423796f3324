"""Tests that kill mutants of qtheory/redundancy/productform.py left alive by test_productform.py
(found by tools/mutation.py; see benchmarks/mutation/README.md).

Expected values come from closed forms: one type replicated to both of two unit-speed
servers is an M/M/1 queue of rate 2 under c.o.c. and an M/M/2 queue under c.o.s.
(Remark 2.2), with total arrival rate 2 lam.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF

SMALL = M.RedundancySystem([1.0, 2.0, 0.5], [(0,), (0, 1), (1, 2), (0, 1, 2)], [0.2, 0.3, 0.1, 0.4])


def mm2_pmf(lam, max_jobs):
    """M/M/2 with arrival rate 2 lam and unit servers: p0 = (1-lam)/(1+lam), p_n = 2 p0 lam^n."""
    p0 = (1 - lam) / (1 + lam)
    return np.array([p0] + [2 * p0 * lam ** n for n in range(1, max_jobs + 1)])


@pytest.mark.parametrize("lam", [0.3, 0.8])
def test_empty_probability_is_mm1_under_coc_and_mm2_under_cos(lam):
    # Kills 402:7:cmp:0 (the c.o.c./c.o.s. branches of empty_probability swapped).
    full = M.fully_flexible(2)
    assert PF.empty_probability(full, lam, "coc") == pytest.approx(1 - lam, rel=1e-12)
    assert PF.empty_probability(full, lam, "cos") == pytest.approx((1 - lam) / (1 + lam), rel=1e-12)


@pytest.mark.parametrize("max_jobs", [0, 1, 2, 5])
def test_cos_total_pmf_is_mm2_at_every_truncation(max_jobs):
    # Kills 515:11:cmp:0 (a state whose busy servers alone make max_jobs jobs dropped) and
    # 506:27:const:0 (one entry too many): the truncated pmf is the M/M/2 law's prefix,
    # with exactly max_jobs + 1 entries, also when max_jobs equals the number of busy servers.
    lam = 0.6
    pmf = PF.total_jobs_pmf(M.fully_flexible(2), lam, max_jobs, "cos")
    assert pmf.shape == (max_jobs + 1,)
    np.testing.assert_allclose(pmf, mm2_pmf(lam, max_jobs), rtol=1e-12)
    coc = PF.total_jobs_pmf(M.fully_flexible(2), lam, max_jobs, "coc")
    np.testing.assert_allclose(coc, (1 - lam) * lam ** np.arange(max_jobs + 1), rtol=1e-12)


def test_cos_total_pmf_truncations_are_prefixes_of_each_other():
    # Same mutants on a system with speeds and overlapping types: for c.o.s. every state has
    # at least one busy server, so max_jobs = 1, 2, 3 each hit a shift equal to max_jobs.
    lam = 0.5
    long = PF.total_jobs_pmf(SMALL, lam, 12, "cos")
    for m in range(0, 4):
        short = PF.total_jobs_pmf(SMALL, lam, m, "cos")
        assert short.shape == (m + 1,)
        np.testing.assert_allclose(short, long[: m + 1], rtol=1e-12, atol=1e-300)


def test_last_type_index_is_accepted_and_its_pmf_has_the_type_mean():
    # Kills 493:83:const:0 (type_index = K - 1 refused): the pmf of Q_S for the last type
    # has the mean of type_moments.
    lam = 0.4
    k = SMALL.n_types - 1
    pmf = PF.total_jobs_pmf(SMALL, lam, 200, type_index=k)
    assert 1 - pmf.sum() < 1e-12
    mean = float(np.arange(pmf.size) @ pmf)
    assert mean == pytest.approx(PF.type_moments(SMALL, lam, [k])[0].mean, rel=1e-9)


def test_pmf_table_size_limit_is_exactly_6e7_entries():
    # Kills 480:34:arith:0 (max_jobs - 1 in the size check). N = 2: 4 (max_jobs + 1) entries;
    # 6e7 exactly passes the size check (and then fails on the two indices, a cheap check
    # that comes before any table is allocated), one more row fails on the size.
    two = M.fully_flexible(2)
    with pytest.raises(ParameterError, match="6e7"):
        PF.total_jobs_pmf(two, 0.5, 15_000_000, type_index=0, server_index=0)
    with pytest.raises(ParameterError, match="at most one"):
        PF.total_jobs_pmf(two, 0.5, 14_999_999, type_index=0, server_index=0)


def test_joint_pmf_table_size_counts_max_jobs_plus_one_per_type():
    # Kills 529:23:const:0 ((max_jobs + 2)^K). 16 types on 5 servers with max_jobs = 0:
    # 1^16 * 2^5 = 32 entries (the mutant counts 2^16 * 2^5 > 2e6 and refuses). The only
    # entry is P(all Q_S = 0) = C, the empty probability of (4).
    subsets = [s for r in range(1, 6) for s in itertools.combinations(range(5), r)][:16]
    system = M.RedundancySystem(np.ones(5), subsets, np.full(16, 1 / 16))
    out = PF.joint_type_pmf(system, 0.3, 0)
    assert out.shape == (1,) * 16
    assert out.flat[0] == pytest.approx(PF.empty_probability(system, 0.3), rel=1e-12)


def test_literal_proposition_31_sum_accepts_seven_types():
    # Kills 444:7:cmp:0 (K = 7 refused): the literal sum over ordered type vectors agrees
    # with the DP on all 7 non-empty subsets of 3 servers.
    subsets = [s for r in range(1, 4) for s in itertools.combinations(range(3), r)]
    probs = np.arange(1, 8) / 28
    system = M.RedundancySystem([1.0, 1.5, 0.5], subsets, probs)
    z = np.linspace(0.2, 0.9, 7)
    assert PF.pgf_prop31(system, 0.5, z) == pytest.approx(PF.pgf(system, 0.5, z), rel=1e-10)
    eight = M.RedundancySystem(np.ones(4), subsets + [(3,)], np.full(8, 1 / 8))
    with pytest.raises(ParameterError, match="K <= 7"):
        PF.pgf_prop31(eight, 0.3, np.full(8, 0.5))
