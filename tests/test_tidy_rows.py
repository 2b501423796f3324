"""One shape for every table the experiments compute (issue 15): each ``*_rows`` function of
the three ``experiments`` modules returns tidy rows (:func:`qtheory.results.check_rows`: a
non-empty list of mappings, one scalar per cell; a row without some column has an empty cell
there, as in the CSV file), or a named tuple of such tables. The list below must name every ``*_rows`` function of the modules, so
a new one is checked too."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.locality import experiments as LE
from qtheory.locality.model import paper_initial_occupancy, paper_system
from qtheory.redundancy import experiments as RE
from qtheory.redundancy import model as RM
from qtheory.results import check_rows
from qtheory.utility import experiments as UE
from qtheory.utility.model import LogUtility, PoolSystem

USYS = PoolSystem((LogUtility(3), LogUtility(5)), (0.5, 0.5), 1.5)
UQ0 = np.array([[0.5, 0.3, 0.0], [0.5, 0.5, 0.2]])
T1 = [dict(setting=s, quantity="mean", paper_mean=10.0 + s, paper_sd=0.3, exact=10.0 + s, time_mean=10.0 + s,
           time_sd=0.1, event_mean=10.5 + s, event_sd=0.1, arrival_mean=11.0 + s, arrival_sd=0.1) for s in range(1, 13)]
T_OCC = np.linspace(0.0, 1.0, 11)
OCC = np.stack([np.stack([1 - 0.5 * T_OCC, 1 - 0.1 * T_OCC], axis=-1),
                np.stack([np.exp(-5 * T_OCC), 0.2 + 0 * T_OCC], axis=-1)], axis=1)

@pytest.fixture(autouse=True)
def _serial(monkeypatch):
    """Replications in the test process: the shape does not depend on the workers, and a
    process pool per call would cost more than the runs."""
    monkeypatch.setenv("QTHEORY_WORKERS", "1")


CALLS = {
    LE.lemma1_rows: lambda: LE.lemma1_rows(5, [3.0], 2, 20.0),
    LE.lemma2_rows: lambda: LE.lemma2_rows(4, 60, 2, 20.0),
    LE.proposition1_rows: lambda: LE.proposition1_rows(2, 5),
    LE.lemma10_rows: lambda: LE.lemma10_rows(7, [60], 2, 5.0, exact_n_list=(10,)),
    LE.gwsq_weight_rows: lambda: LE.gwsq_weight_rows(paper_system(), {"Q": paper_initial_occupancy("Q")}, [100]),
    LE.graph_meanfield_rows: lambda: LE.graph_meanfield_rows(1, n_list=(20,), n_graphs=1, warmup=50.0, horizon=250.0),
    LE.graph_meanfield_transient_rows: lambda: LE.graph_meanfield_transient_rows(1, n_list=(20,), n_runs=2, n_times=3),
    RE.stability_rows: lambda: RE.stability_rows(RE.random_systems(1, 3), 1, pod_cases=((6, 2),)),
    RE.local_stability_rows: lambda: RE.local_stability_rows(RE.random_systems(2, 3)),
    RE.product_form_rows: lambda: RE.product_form_rows([("M", RM.m_model(7 / 12), 0.6)], 3, 5_000, 3, max_q=2),
    RE.pgf_rows: lambda: RE.pgf_rows(RE.random_systems(4, 3), 4, n_systems=2),
    RE.limit_rows: lambda: RE.limit_rows(RM.m_model(0.25), [0.99], [np.array([1.0, 0.5])]),
    RE.replica_rows: lambda: RE.replica_rows(RM.m_model(0.25), [0.99]),
    RE.sojourn_rows: lambda: RE.sojourn_rows(RM.m_model(0.25), [0.99], (1.0,)),
    RE.truncated_pgf_rows: lambda: RE.truncated_pgf_rows(RM.m_model(0.25), [0.99], (0.5,)),
    UE.table1_rows: lambda: UE.table1_rows([1.5], [4], ["jlmu"], horizon=10.0, warmup=1.0, n_runs=2, seed=1,
                                           system_factory=lambda rho: PoolSystem(USYS.utilities, USYS.alpha, rho)),
    UE.poisson_rows: lambda: UE.poisson_rows(USYS, 4, ["jlmu"], horizon=10.0, warmup=1.0, n_runs=2, seed=1),
    UE.fluid_limit_rows: lambda: UE.fluid_limit_rows(USYS, UQ0, [10], np.linspace(0, 1, 3), n_runs=2, seed=1,
                                                     track=[(0, 1)]),
    UE.slta_learning_rows: lambda: UE.slta_learning_rows(USYS, [4], np.linspace(0, 1, 3), n_runs=2, seed=1, t_late=0.5),
    UE.fluid_convergence_rows: lambda: UE.fluid_convergence_rows(USYS, {"start": UQ0}, np.linspace(0, 1, 3)),
    UE.solver_agreement_rows: lambda: UE.solver_agreement_rows(USYS, {"start": UQ0}, np.linspace(0, 1, 3), [0.1]),
    UE.assignment_rows: lambda: UE.assignment_rows(USYS, [0.2, 1.0]),
    UE.lp_rows: lambda: UE.lp_rows({"case": (USYS, 1.0)}),
}
# the other functions that return tables (not named *_rows)
OTHER_TABLES = {
    LE.occupancy_drops: lambda: LE.occupancy_drops(T_OCC, OCC, early=0.1),
    LE.graph_meanfield_summary: lambda: LE.graph_meanfield_summary(
        LE.graph_meanfield_rows(1, n_list=(20,), n_graphs=2, warmup=50.0, horizon=250.0)),
    RE.table1_comparison: lambda: RE.table1_comparison(T1, n_runs=10),
    RE.table1_verdicts: lambda: RE.table1_verdicts(RE.table1_comparison(T1, n_runs=10)),
    UE.pool_columns: lambda: UE.pool_columns(figure3_system(), 12, 2.0),
}


def figure3_system():
    from qtheory.utility import figure3_right_system
    return figure3_right_system()


def _tables(out):
    return list(out) if isinstance(out, tuple) and hasattr(out, "_fields") else [out]


def test_every_rows_function_is_listed():
    for module in (LE, RE, UE):
        named = {getattr(module, n) for n in module.__all__ if n.endswith("_rows")}
        assert named <= set(CALLS), f"{module.__name__}: add {sorted(f.__name__ for f in named - set(CALLS))}"


@pytest.mark.parametrize("func", list(CALLS) + list(OTHER_TABLES), ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_tables_are_tidy(func):
    out = {**CALLS, **OTHER_TABLES}[func]()
    assert not isinstance(out, tuple) or hasattr(out, "_fields"), "several tables come as a named tuple"
    for table in _tables(out):
        check_rows(table)


@pytest.mark.parametrize("bad, where", [
    ({"a": 1}, "sequence of rows"),
    ([], "must not be empty"),
    ([{"a": 1}, [1, 2]], r"rows\[1\]` must be a mapping"),
    ([{"a": np.array([1.0, 2.0])}], r"rows\[0\]\['a'\]"),
    ([{"a": (1, 2)}], "no nested values"),
    ([{1: 2.0}], "column names must be strings"),
])
def test_check_rows_names_what_is_not_tidy(bad, where):
    with pytest.raises(ParameterError, match=where):
        check_rows(bad)


def test_scalars_of_every_kind_are_tidy():
    rows = check_rows([{"a": 1, "b": 2.5, "c": "x", "d": None, "e": True, "f": np.float64(math.pi), "g": np.int64(3)}])
    assert rows[0]["g"] == 3
