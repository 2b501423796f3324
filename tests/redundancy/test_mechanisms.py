"""The mechanisms as objects (issue 15): an object and its name are the same mechanism
everywhere, and each object's exact routes belong to its own mechanism."""

import dataclasses

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy import productform as PF
from qtheory.redundancy.mechanisms import MECHANISMS, CancelOnCompletion, CancelOnStart, as_mechanism
from qtheory.redundancy.model import circular_d, m_model
from qtheory.redundancy.simulation import simulate


@pytest.mark.parametrize("obj, name", [(CancelOnCompletion(), "coc"), (CancelOnStart(), "cos")])
def test_an_object_and_its_name_give_the_same_numbers(obj, name):
    system = circular_d(5, 2)
    a = simulate(system, 0.6, n_events=5000, mechanism=obj, seed=4)
    b = simulate(system, 0.6, n_events=5000, mechanism=name, seed=4)
    assert a.mean_jobs == b.mean_jobs and np.array_equal(a.count_distribution, b.count_distribution)
    assert PF.total_jobs_moments(system, 0.6, obj).mean == PF.total_jobs_moments(system, 0.6, name).mean
    assert as_mechanism(name) is MECHANISMS[name] and as_mechanism(obj) is obj


def test_the_two_mechanisms_differ():
    """A mix-up of the kernel branches or of the product forms would make them agree."""
    system = circular_d(5, 2)
    coc, cos = CancelOnCompletion(), CancelOnStart()
    assert coc.stationary_law(system, 0.6).mean != pytest.approx(cos.stationary_law(system, 0.6).mean, rel=1e-3)
    assert coc.simulate(system, 0.6, n_events=5000, seed=1).mean_jobs != cos.simulate(system, 0.6, n_events=5000, seed=1).mean_jobs


@pytest.mark.parametrize("mechanism", [CancelOnCompletion(), CancelOnStart()])
def test_each_exact_chain_is_its_own_product_form(mechanism):
    """The truncated chain (written from the definition) and the product form of the same
    object agree on P(Q = m), m <= 4, on the M-model at load 0.3 (truncated at 10 jobs, the
    chain's error is about 0.3^6 ~ 1e-3 of the mass beyond, far below the rtol; the two
    mechanisms' laws differ by more than 1e-2 there)."""
    system = m_model(7 / 12)
    chain = mechanism.exact_chain(system, 0.3, 10)
    pmf = mechanism.total_jobs_pmf(system, 0.3, 4)
    np.testing.assert_allclose(chain.pmf[:5], pmf, rtol=1e-4)
    other = [m for m in (CancelOnCompletion(), CancelOnStart()) if m != mechanism][0]
    assert np.max(np.abs(other.total_jobs_pmf(system, 0.3, 4) / pmf - 1)) > 1e-2
    law = mechanism.stationary_law(system, 0.3)
    assert law.empty_probability == pytest.approx(pmf[0], rel=1e-10)


def test_mechanisms_are_frozen_and_bad_names_are_refused():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CancelOnStart().x = 1
    for bad in ("ALIS", 1, None):
        with pytest.raises(ParameterError, match="`mechanism`"):
            as_mechanism(bad)
        with pytest.raises(ParameterError, match="`mechanism`"):
            simulate(circular_d(4, 2), 0.5, n_events=10, mechanism=bad, seed=0)
        with pytest.raises(ParameterError, match="`mechanism`"):
            PF.total_jobs_moments(circular_d(4, 2), 0.5, bad)
