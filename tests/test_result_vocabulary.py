"""The simulators of the three papers name their run record alike (issue 15)."""

import numpy as np

from qtheory.locality.graphs import complete_bipartite
from qtheory.locality.model import LocalitySystem
from qtheory.locality.policies import JIQ
from qtheory.locality.simulation import simulate as simulate_l
from qtheory.redundancy.model import circular_d
from qtheory.redundancy.simulation import simulate as simulate_r
from qtheory.utility import simulate as simulate_u, table1_system


def test_events_times_and_wall_time_have_one_name_each():
    system = LocalitySystem.homogeneous(0.5)
    graph = complete_bipartite(system, 10)
    grid = np.linspace(0.0, 5.0, 6)
    l_res = simulate_l(system, graph, JIQ(), np.zeros(10, np.int64), grid, 1)
    u_res = simulate_u(table1_system(), 10, "jlmu", t_end=5.0, seed=1, sample_times=grid)
    for res in (l_res, u_res):
        np.testing.assert_array_equal(res.times, grid)
        assert res.events > 0 and res.wall_time >= 0
        assert res.events_per_second == res.events / res.wall_time
    assert l_res.t is l_res.times and l_res.seconds == l_res.wall_time  # the older L names
    r_res = simulate_r(circular_d(6, 2), 0.5, 200, seed=1)
    assert r_res.events == 200 and not hasattr(r_res, "n_events") and not hasattr(r_res, "mean_q")
    assert r_res.wall_time >= 0 and r_res.events_per_second == r_res.events / r_res.wall_time
