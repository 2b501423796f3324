"""L-V-graphs' item function at a tiny scale, and each verdict on rows that must agree and must differ."""

import math

import pytest

from qtheory.errors import ParameterError
from qtheory.locality.items import l_v_graphs as lg
from qtheory.locality.model import paper_system


def _irg_rows(errors, dispatcher_ratios, server_ratios):
    return [dict(N=n, max_density_error=e, max_dispatcher_degree_ratio=a, max_server_degree_ratio=b, megabytes=0.5)
            for n, e, a, b in zip((100, 300, 1000), errors, dispatcher_ratios, server_ratios)]


def test_density_tolerance_is_five_standard_errors_of_the_sparsest_pair():
    system = paper_system("design")
    tol = lg.density_tolerance(system, 1000)
    assert 0 < tol < lg.density_tolerance(system, 100)
    # dispatchers and servers of a pair both grow like N: the standard error falls like 1 / N
    assert lg.density_tolerance(system, 4000) == pytest.approx(tol / 4, rel=0.05)


def test_density_check_holds_within_and_fails_beyond_the_tolerance():
    rows = _irg_rows([0.05, 0.03, 0.01], [math.inf, 3, 2], [2, 1.5, 1.2])
    assert lg.density_claim(rows, [0.06, 0.03, 0.02], [100, 300, 1000]).judge() == "holds"   # equal counts
    assert lg.density_claim(rows, [0.06, 0.029, 0.02], [100, 300, 1000]).judge() == "fails"


@pytest.mark.parametrize("dispatcher, server, label", [
    ([math.inf, 3, 2], [2, 1.5, 1.5], "holds"),          # infinite, then falling; a tie counts as not increasing
    ([math.inf, 3, 3.1], [2, 1.5, 1.2], "fails"),
    ([4, 3, 2], [2, 1.5, 1.6], "fails"),
])
def test_degree_ratio_check(dispatcher, server, label):
    claim = lg.degree_ratio_claim(_irg_rows([0.01] * 3, dispatcher, server))
    first = "∞" if math.isinf(dispatcher[0]) else "4.000"
    assert claim.judge() == label and claim.evidence.startswith(f"dispatcher ratios {first}, 3.000")


def _bad_rows(irg0, irg1, win0, win1, eps_list=(0.1, 0.2)):
    rows = []
    for n, (irg, win) in ((100, (irg0, win0)), (1000, (irg1, win1))):
        for kind, values in (("irg", irg), ("window", win)):
            for e, v in zip(eps_list, values):
                rows.append(dict(N=n, graph=kind, eps=e, bad_fraction=v))
    return rows


def test_theorem8_agrees_when_irg_falls_and_the_window_graph_stays():
    rows = _bad_rows([0.3, 0.05], [0.01, 0.0], [0.8, 0.1], [0.7, 0.02])
    thm8, window = lg.sparsity_claims(rows, [0.1, 0.2], 100, 1000, True)
    assert thm8.judge() == "agrees" and window.judge() == "holds" and window.evidence.endswith("fraction stays: 0.1")
    assert lg.bad_fraction(rows, "window", 0.2, 1000) == 0.02


@pytest.mark.parametrize("rows, criterion, thm8_label, window_label", [
    (_bad_rows([0.3, 0.05], [0.3, 0.0], [0.8, 0.1], [0.7, 0.02]), True, "differs", "fails"),   # irg stays
    (_bad_rows([0.3, 0.05], [0.01, 0.0], [0.8, 0.1], [0.7, 0.02]), False, "differs", "holds"),  # (3.1) fails
    (_bad_rows([0.3, 0.05], [0.01, 0.001], [0.8, 0.1], [0.39, 0.01]), True, "agrees", "fails"),  # window falls
    (_bad_rows([0.3, 0.05], [0.01, 0.001], [0.8, 0.1], [0.7, 0.01]), True, "agrees", "fails"),   # not 10 x irg
    (_bad_rows([0.3, 0.05], [0.01, 0.001], [0.0, 0.0], [0.0, 0.0]), True, "agrees", "fails"),    # nothing to stay
    (_bad_rows([0.3, 0.05], [0.01, 0.001], [0.0, 0.1], [0.5, 0.04]), True, "agrees", "fails"),   # grows from 0
])
def test_theorem8_and_window_check_differ_when_the_fractions_say_otherwise(rows, criterion, thm8_label, window_label):
    thm8, window = lg.sparsity_claims(rows, [0.1, 0.2], 100, 1000, criterion)
    assert (thm8.judge(), window.judge()) == (thm8_label, window_label)


def test_window_stays_at_exactly_half_its_first_value():
    rows = _bad_rows([0.3, 0.05], [0.01, 0.001], [0.8, 0.1], [0.4, 0.011])
    assert lg.sparsity_claims(rows, [0.1, 0.2], 100, 1000, True)[1].judge() == "holds"


def test_ratio_text_and_summary_text():
    assert lg.ratio_text(math.inf) == "∞" and lg.ratio_text(1.23456) == "1.235"
    text = lg.summary_text(_irg_rows([0.01] * 3, [math.inf, 3, 2], [2, 1.5, 1.2]), True, False, "S", 100, 1000)
    assert "every N: yes" in text and "not monotone" in text and "∞ at N = 100" in text


def test_compute_at_a_tiny_scale():
    res = lg.compute(seed=3, n_list=[100, 200], eps_list=[0.1, 0.2])
    assert [r["N"] for r in res.irg.rows] == [100, 200] and len(res.irg.figure["five_se"]) == 2
    assert len(res.thm8.rows) == 2 * 2 * 2
    assert [r["graph"] for r in res.thm8.rows[:4]] == ["irg", "irg", "window", "window"]
    assert res.thm8.summary["criterion_31_holds"] is True and len(res.thm8.summary["at_largest_N"]) == 4
    assert res.irg.summary["largest_graph_edges"] == res.irg.rows[-1]["edges"]
    assert all(0 <= r["bad_fraction"] <= 1 for r in res.thm8.rows) and res.thm8.text.startswith("Density errors")
    # prose: lists of sizes and epsilons in words, not Python lists
    assert "for each $N$ of 100 and 200:" in res.irg.figure["caption"]
    assert "for $\\varepsilon$ = 0.1 and 0.2:" in res.thm8.figure["caption"]
    assert not any("[" in t for t in (res.irg.figure["caption"], res.thm8.figure["caption"], res.thm8.text,
                                      *(c.evidence for c in (*res.irg.claims, *res.thm8.claims))))


@pytest.mark.parametrize("kwargs, name", [(dict(n_list=[100], eps_list=[0.1]), "n_list"),
                                          (dict(n_list=[100, 200], eps_list=[]), "eps_list")])
def test_compute_names_a_wrong_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        lg.compute(seed=3, **kwargs)


def _curve_rows(curves):
    """L-V-thm8 rows from ``{(graph, eps): [fraction at N = 100, 300, 1000]}``."""
    return [dict(N=n, graph=g, eps=e, bad_fraction=f) for (g, e), fs in curves.items() for n, f in zip((100, 300, 1000), fs)]


def test_coinciding_irg_curves_are_found_and_drawn_visibly():
    """Equal irg curves (as eps = 0.1 and 0.2 at the quick preset) are named in the caption text and
    both stay visible in the figure (the covered-series check of plotting.series_visibility)."""
    import matplotlib.pyplot as plt

    from qtheory.plotting import figure_problems
    from qtheory.results import ItemResult

    eps_list = [0.05, 0.1, 0.2]
    curves = {("irg", 0.05): [0.3, 0.07, 0.02], ("irg", 0.1): [0.05, 0.004, 0.005], ("irg", 0.2): [0.05, 0.004, 0.005],
              ("window", 0.05): [0.8, 0.73, 0.74], ("window", 0.1): [0.5, 0.45, 0.46],
              ("window", 0.2): [0.07, 0.08, 0.045]}
    rows = _curve_rows(curves)
    assert lg.coinciding(rows, eps_list) == [(0.1, 0.2)]
    assert lg.coinciding(rows, eps_list, "window") == []
    assert lg.coinciding(_curve_rows({**curves, ("irg", 0.2): [0.05, 0.004, 0.0049]}), eps_list) == []
    fig = lg.draw_bad_fractions(ItemResult("L-V-thm8", {}, 1, rows, figure={"eps_list": eps_list}))
    assert figure_problems(fig) == []
    plt.close(fig)
