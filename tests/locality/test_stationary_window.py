"""Which recorded samples enter an L stationary time average, checked to the sample (issue 50, item 8).

The estimators of :mod:`qtheory.locality.experiments` record the state at time 0 (when there is a
warm-up) and at `n_samples` equally spaced times of ``[warmup, horizon]``, and average the latter.
Here the simulator is replaced by a known path, every server's queue length a staircase in time,

    X_j(t) = floor(t) + offset_j,

so that each recording time contributes its own value and the averages are computed by hand. With
``warmup = 2``, ``horizon = 9`` and ``n_samples = 8`` the window holds the times 2, 3, ..., 9 (the
grid also records time 0): a flat path (offset 0) has mean queue length (2 + ... + 9) / 8 = 5.5,
and occupancy q_l = P(floor(t) >= l) = 1, 1, 7/8, 6/8, 5/8, 4/8 for l = 1..6; in 4 batches of
2 samples the batch means are 2.5, 4.5, 6.5, 8.5, so the batch-means standard error is
sqrt(sum (b - 5.5)^2 / (4 * 3)) = sqrt(20 / 12). Moving either end of the window by one sample
changes every one of these numbers: with time 0 the mean is 44 / 9, without time 2 it is 6, and
without time 9 it is 5, instead of 5.5.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from qtheory.locality import experiments
from qtheory.locality.graphs import complete_bipartite
from qtheory.locality.model import LocalitySystem

SYSTEM = LocalitySystem.homogeneous(0.5, d=2)
WARMUP, HORIZON, N_SAMPLES = 2.0, 9.0, 8
# the window's hand-computed numbers for the flat staircase X_j(t) = floor(t)
MEAN = 5.5
OCCUPANCY = [1.0, 1.0, 7 / 8, 6 / 8, 5 / 8, 4 / 8]
SE_4_BATCHES = np.sqrt(20 / 12)


def _staircase(offsets=None):
    """A stand-in for :func:`qtheory.locality.simulation.simulate` whose path is known:
    ``X_j(t) = floor(t) + offsets[j]`` at every recording time, recorded as ``simulate`` records
    a run (per type: the occupancy, the mean and mean square queue length; with ``average_from``,
    one row, their mean over the recording times from that one on). It keeps the grids it saw."""
    grids = []

    def simulate(system, graph, policy, *, initial_state, t_grid, seed, levels=10, average_from=None):
        t_grid = np.asarray(t_grid, dtype=float)
        grids.append(t_grid)
        shift = np.zeros(graph.n_servers) if offsets is None else np.asarray(offsets, dtype=float)
        lengths = np.floor(t_grid)[:, None] + shift[None, :]                     # (T, N)
        members = graph.server_type[None, :] == np.arange(graph.n_types)[:, None]  # (M, N)
        size = members.sum(axis=1)
        mean = lengths @ members.T / size                                       # (T, M)
        square = lengths ** 2 @ members.T / size
        at_least = lengths[:, None, :] >= np.arange(1, levels + 1)[None, :, None]  # (T, L, N)
        occupancy = np.einsum("tln,mn->tml", at_least.astype(float), members.astype(float)) / size[None, :, None]
        times = t_grid
        if average_from is not None:
            times = t_grid[average_from:]
            occupancy, mean, square = (x[average_from:].mean(axis=0, keepdims=True)
                                       for x in (occupancy, mean, square))
        return SimpleNamespace(times=times, occupancy=occupancy, mean_queue_length=mean, mean_square=square,
                               final_state=lengths[-1].astype(np.int64), events=t_grid.size, wall_time=0.0)

    simulate.grids = grids
    return simulate


@pytest.fixture
def staircase(monkeypatch):
    def install(offsets=None):
        fake = _staircase(offsets)
        monkeypatch.setattr(experiments, "simulate", fake)
        return fake
    return install


def test_the_staircase_is_the_hand_computed_path(staircase):
    """The stand-in records what the docstring says (so that the numbers below are the window's)."""
    fake = staircase()
    graph = complete_bipartite(SYSTEM, 3)
    res = fake(SYSTEM, graph, None, initial_state=None, t_grid=[0.0, 2.0, 3.5], seed=0, levels=3)
    np.testing.assert_array_equal(res.mean_queue_length[:, 0], [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(res.occupancy[:, 0], [[0, 0, 0], [1, 1, 0], [1, 1, 1]])
    averaged = fake(SYSTEM, graph, None, initial_state=None, t_grid=[0.0, 2.0, 3.5], seed=0, levels=3,
                    average_from=1)
    np.testing.assert_array_equal(averaged.mean_queue_length, [[2.5]])


def test_stationary_statistics_average_exactly_the_samples_of_the_window(staircase):
    fake = staircase()
    graph = complete_bipartite(SYSTEM, 3)
    st = experiments.stationary_statistics(SYSTEM, graph, "jsqd", warmup=WARMUP, horizon=HORIZON, seed=0,
                                           n_samples=N_SAMPLES, n_batches=4)
    np.testing.assert_array_equal(fake.grids[0], [0.0, 2, 3, 4, 5, 6, 7, 8, 9])
    assert st.mean_queue_length.mean[0] == pytest.approx(MEAN, abs=1e-12)
    assert st.overall_mean_queue_length.mean == pytest.approx(MEAN, abs=1e-12)
    np.testing.assert_allclose(st.occupancy.mean[0], OCCUPANCY, rtol=0, atol=1e-12)
    assert st.mean_queue_length.se[0] == pytest.approx(SE_4_BATCHES, rel=1e-12)
    assert st.overall_mean_queue_length.se == pytest.approx(SE_4_BATCHES, rel=1e-12)
    # occupancy level 3 is 1 on the samples 3..9 and 0 at time 2: batch means 1/2, 1, 1, 1
    assert st.occupancy.se[0, 2] == pytest.approx(np.sqrt((3 * (1 / 8) ** 2 + (3 / 8) ** 2) / 12), rel=1e-12)
    assert st.n_samples == N_SAMPLES and st.events == 9


def test_stationary_statistics_without_warmup_average_every_recording_time(staircase):
    """No warm-up: the grid is the window itself, the times 0, 1, ..., 9, mean 4.5 (without
    time 0 it would be 5, without time 9 it would be 4)."""
    fake = staircase()
    graph = complete_bipartite(SYSTEM, 3)
    st = experiments.stationary_statistics(SYSTEM, graph, "jsqd", warmup=0.0, horizon=HORIZON, seed=0,
                                           n_samples=10, n_batches=5)
    np.testing.assert_array_equal(fake.grids[0], np.arange(10.0))
    assert st.mean_queue_length.mean[0] == pytest.approx(4.5, abs=1e-12)
    np.testing.assert_allclose(st.occupancy.mean[0], [9 / 10, 8 / 10, 7 / 10, 6 / 10, 5 / 10, 4 / 10],
                               rtol=0, atol=1e-12)
    # batch means 0.5, 2.5, 4.5, 6.5, 8.5: sum of squares 40 over 5 * 4
    assert st.mean_queue_length.se[0] == pytest.approx(np.sqrt(40 / 20), rel=1e-12)


def test_server_statistics_average_exactly_the_samples_of_the_window(staircase):
    """Per server: X_j(t) = floor(t) + j, so server j's mean is 5.5 + j, and the type (all three
    servers) has mean 6.5; every batch-means standard error is that of the flat staircase."""
    staircase(offsets=[0.0, 1.0, 2.0])
    graph = complete_bipartite(SYSTEM, 3)
    st = experiments.server_statistics(SYSTEM, graph, "jsqd", warmup=WARMUP, horizon=HORIZON, seed=0,
                                       n_samples=N_SAMPLES, n_batches=4)
    np.testing.assert_allclose(st.mean_queue_length, [5.5, 6.5, 7.5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(st.mean_queue_length_se, [SE_4_BATCHES] * 3, rtol=1e-12)
    np.testing.assert_allclose(st.type_mean_queue_length, [6.5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(st.type_mean_queue_length_se, [SE_4_BATCHES], rtol=1e-12)


def test_the_batch_means_of_the_type_averages_are_the_windows_batches(staircase):
    """In 4 batches of 2 samples the flat staircase's batch means are 2.5, 4.5, 6.5, 8.5; with
    offsets 0, 1, 2 the type's are 1 higher. Both the per-server run and the run on the graph's
    types (the graph mean field's runs beyond per-server sizes) return them, and its means."""
    staircase(offsets=[0.0, 1.0, 2.0])
    graph = complete_bipartite(SYSTEM, 3)
    for run in (experiments.server_statistics, experiments._type_statistics):
        st = run(SYSTEM, graph, warmup=WARMUP, horizon=HORIZON, seed=0, n_samples=N_SAMPLES, n_batches=4)
        np.testing.assert_allclose(st.type_batch_means[:, 0], [3.5, 5.5, 7.5, 9.5], rtol=0, atol=1e-12)
        np.testing.assert_allclose(st.type_mean_queue_length, [6.5], rtol=0, atol=1e-12)
        np.testing.assert_allclose(st.type_mean_queue_length_se, [SE_4_BATCHES], rtol=1e-12)


def test_stationary_replication_averages_exactly_the_samples_of_the_window(staircase):
    """The time-0 record is left out; the halves are the times 2..5 (mean 3.5) and 6..9 (7.5)."""
    fake = staircase()
    rep = experiments.stationary_replication(np.random.SeedSequence(0), SYSTEM, 3, "complete", WARMUP, HORIZON,
                                             n_samples=N_SAMPLES, halves=True)
    np.testing.assert_array_equal(fake.grids[0], [0.0, 2, 3, 4, 5, 6, 7, 8, 9])
    np.testing.assert_allclose(rep.mean_queue_length, [MEAN], rtol=0, atol=1e-12)
    np.testing.assert_allclose(rep.occupancy[0], OCCUPANCY, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rep.half_means, [[3.5], [7.5]], rtol=0, atol=1e-12)


@pytest.mark.parametrize("warmup, grid, mean", [
    (WARMUP, [0.0, 2, 3, 4, 5, 6, 7, 8, 9], MEAN),
    (0.0, [0.0, 9 / 7, 18 / 7, 27 / 7, 36 / 7, 45 / 7, 54 / 7, 9], (0 + 1 + 2 + 3 + 5 + 6 + 7 + 9) / 8)])
def test_population_replication_averages_exactly_the_samples_of_the_window(staircase, warmup, grid, mean):
    """With a warm-up the kernel averages from the second recording time (the first is time 0);
    without one, from the first: floor of 0, 9/7, ..., 9 is 0, 1, 2, 3, 5, 6, 7, 9."""
    fake = staircase()
    rep = experiments.population_stationary_replication(np.random.SeedSequence(0), SYSTEM, 3, "jsqd", warmup,
                                                        HORIZON, n_samples=N_SAMPLES, levels=6)
    np.testing.assert_allclose(fake.grids[0], grid, rtol=1e-15)
    np.testing.assert_allclose(rep.mean_queue_length, [mean], rtol=0, atol=1e-12)
    if warmup:
        np.testing.assert_allclose(rep.occupancy[0], OCCUPANCY, rtol=0, atol=1e-12)


def test_stationary_replication_without_warmup_averages_every_recording_time(staircase):
    """No warm-up: the window is the whole grid, the times 0, 1, ..., 9 (mean 4.5), as for
    :func:`stationary_statistics` (the grid once repeated time 0, which the simulator refuses)."""
    fake = staircase()
    rep = experiments.stationary_replication(np.random.SeedSequence(0), SYSTEM, 3, "complete", 0.0, HORIZON,
                                             n_samples=10, halves=True)
    np.testing.assert_array_equal(fake.grids[0], np.arange(10.0))
    np.testing.assert_allclose(rep.mean_queue_length, [4.5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(rep.half_means, [[2.0], [7.0]], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs, name", [(dict(warmup=9.0, horizon=9.0), "horizon"),
                                           (dict(warmup=-1.0, horizon=9.0), "warmup"),
                                           (dict(warmup=1.0, horizon=9.0, n_samples=0), "n_samples"),
                                           (dict(warmup=1.0, horizon=9.0, n_samples=1, halves=True), "n_samples")])
def test_stationary_replication_refuses_a_window_it_cannot_average(kwargs, name):
    from qtheory.errors import ParameterError

    with pytest.raises(ParameterError, match=f"`{name}`"):
        experiments.stationary_replication(np.random.SeedSequence(0), SYSTEM, 3, "complete", **kwargs)
