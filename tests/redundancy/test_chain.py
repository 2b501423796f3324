"""R-P-coc, R-P-cos (issue 14): the product forms (4) and (6) against the dynamics themselves.

`qtheory.redundancy.chain` builds the generator of the c.o.c. and c.o.s. chains from the
mechanisms' rules (it never evaluates (4) or (6)) and solves it. Truncating arrivals at
`max_jobs` keeps a product form with partial balance exact (conditioned on Q <= max_jobs),
so the comparisons below are to rounding error, state by state, with unequal speeds.
"""

import functools

import numpy as np
import pytest

from qtheory.errors import ParameterError, RuleError
from qtheory.redundancy import chain as CH
from qtheory.redundancy import model as M
from qtheory.redundancy import productform as PF
from qtheory.redundancy.mechanisms import Mechanism

SPEEDS = (1.0, 2.0, 0.5)
NESTED = M.RedundancySystem(SPEEDS, [(0,), (0, 1), (1, 2)], [0.3, 0.3, 0.4])
M_MODEL = M.m_model(7 / 12, speeds=SPEEDS)
SYSTEMS = {"nested": NESTED, "m-model": M_MODEL}
CASES = [(name, lam) for name in SYSTEMS for lam in (0.3, 0.5)]
COC_MAX, COS_MAX = 7, 9


class _NewestIdle(Mechanism):  # no `name`: a test's mechanism, not registered
    """c.o.s. starting a job on the most recently idle compatible server (neither ALIS nor random)."""

    def exact_start(self, idle):
        return [(idle[-1], 1.0)]


#: the c.o.s. assignment rules compared: the paper's ALIS, random assignment, and newest idle
RULES = {"alis": "cos", "random": "cos-random", "newest": _NewestIdle()}


@functools.lru_cache(maxsize=None)
def coc(name, lam):
    return CH.solve_coc_chain(SYSTEMS[name], lam, COC_MAX)


@functools.lru_cache(maxsize=None)
def cos(name, lam, rule="alis"):
    return CH.solve_cos_chain(SYSTEMS[name], lam, COS_MAX, RULES[rule])


def _normalised(weights):
    w = np.asarray(weights)
    return w / w.sum()


@pytest.mark.parametrize("name, lam", CASES)
def test_coc_chain_equals_product_form_4_state_by_state(name, lam):
    system, sol = SYSTEMS[name], coc(name, lam)
    assert len(sol.states) == sum(system.n_types ** m for m in range(COC_MAX + 1))
    pf = _normalised([CH.coc_weight(system, lam, s) for s in sol.states])
    np.testing.assert_allclose(sol.probabilities, pf, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("name, lam", CASES)
def test_cos_alis_chain_equals_product_form_6_state_by_state(name, lam):
    system, sol = SYSTEMS[name], cos(name, lam)
    pf = _normalised([CH.cos_weight(system, lam, s) for s in sol.states])
    np.testing.assert_allclose(sol.probabilities, pf, rtol=1e-9, atol=1e-14)
    # the order of the idle servers matters: (6) with the newest idle server first is wrong
    flipped = _normalised([CH.cos_weight(system, lam, (w, u[::-1])) for w, u in sol.states])
    assert np.abs(flipped - sol.probabilities).max() > 1e-3


@pytest.mark.parametrize("name, lam", CASES)
@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_projects_pmf_of_q_is_the_chains_law(name, lam, mechanism):
    sol = coc(name, lam) if mechanism == "coc" else cos(name, lam)
    pmf = PF.total_jobs_pmf(SYSTEMS[name], lam, sol.max_jobs, mechanism)
    np.testing.assert_allclose(sol.pmf, pmf / pmf.sum(), rtol=1e-9, atol=1e-14)
    # the empty probability of the untruncated system, from the chain's conditioned law
    assert sol.pmf[0] * pmf.sum() == pytest.approx(PF.empty_probability(SYSTEMS[name], lam, mechanism), rel=1e-9)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_alis_random_and_newest_idle_assignment_give_different_laws(name):
    lam = 0.5
    pmfs = {rule: cos(name, lam, rule).pmf for rule in RULES}
    exact = PF.total_jobs_pmf(SYSTEMS[name], lam, COS_MAX, "cos")
    exact = exact / exact.sum()
    for rule in ("random", "newest"):
        assert np.abs(pmfs[rule] - exact).max() > 1e-3, rule
    assert np.abs(pmfs["random"] - pmfs["newest"]).max() > 1e-3


def test_a_single_server_chain_is_the_truncated_mm1_queue():
    system = M.fully_flexible(1, speeds=[2.0])
    rho = 0.6 / 2.0
    geo = _normalised(rho ** np.arange(6))
    for sol in (CH.solve_coc_chain(system, 0.6, 5), CH.solve_cos_chain(system, 0.6, 5)):
        np.testing.assert_allclose(sol.pmf, geo, rtol=1e-12)


class _Broken(Mechanism):  # a test's mechanism whose exact start names a server that is not idle
    def exact_start(self, idle):
        return [(99, 1.0)]


def test_chain_solver_rejects_bad_input():
    with pytest.raises(ParameterError, match="mechanism"):
        CH.solve_cos_chain(NESTED, 0.5, 3, "fastest")
    with pytest.raises(ParameterError, match="cancel-on-start"):
        CH.solve_cos_chain(NESTED, 0.5, 3, "coc")
    with pytest.raises(RuleError, match="exact start rule .* must give some of these servers"):
        CH.solve_cos_chain(NESTED, 0.5, 3, _Broken())
    with pytest.raises(ParameterError, match="max_jobs"):
        CH.solve_coc_chain(NESTED, 0.5, 0)
    with pytest.raises(ParameterError, match="lam"):
        CH.solve_coc_chain(NESTED, -0.5, 3)


@pytest.mark.parametrize("name,lam", CASES)
@pytest.mark.parametrize("mechanism", ["coc", "cos"])
def test_total_jobs_law_is_one_dp_with_the_empty_probability_of_the_chain(name, lam, mechanism):
    system = SYSTEMS[name]
    law = PF.total_jobs_law(system, lam, mechanism)
    mo = PF.total_jobs_moments(system, lam, mechanism)
    assert (law.mean, law.variance) == pytest.approx((mo.mean, mo.variance), rel=1e-13)
    assert law.empty_probability == pytest.approx(PF.empty_probability(system, lam, mechanism), rel=1e-12)
    # the truncated chain holds P(Q = 0) / P(Q <= max); P(Q > max) <= E[Q^2] / (max + 1)^2
    sol = coc(name, lam) if mechanism == "coc" else cos(name, lam)
    tail = (law.variance + law.mean ** 2) / (sol.max_jobs + 1) ** 2
    assert law.empty_probability <= sol.pmf[0] * (1 + 1e-12)
    assert sol.pmf[0] <= law.empty_probability / (1 - tail)


def test_a_chain_past_its_state_limit_is_refused_naming_what_the_reader_can_lower(monkeypatch):
    monkeypatch.setattr(CH, "MAX_CHAIN_STATES", 5)
    with pytest.raises(ParameterError, match=r"more than 5 states: lower `max_jobs`"):
        CH.solve_coc_chain(NESTED, 0.5, 3)
    with pytest.raises(ParameterError, match=r"more than 5 states: lower `max_jobs`"):
        CH.solve_cos_chain(NESTED, 0.5, 3)
