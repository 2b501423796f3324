"""R-V's item function at a tiny scale, and each judgement on values that must agree and values
that must differ."""

import matplotlib
import numpy as np
import pytest

from qtheory.errors import ParameterError
from qtheory.redundancy.items import r_v

matplotlib.use("Agg")


def _families(eps_degree=1.5, pod_types=120):
    return [dict(family="power-of-d N=10 d=3", n_types=pod_types, replication_degree=3.0),
            dict(family="eps example N=5 eps=0.5", n_types=6, replication_degree=eps_degree)]


def test_type_family_claims_agree_on_the_paper_values_and_differ_off_them():
    assert [c.judge() for c in r_v.types_claims(_families())] == ["agrees", "agrees"]
    assert [c.judge() for c in r_v.types_claims(_families(eps_degree=1.5 + 1e-9))] == ["differs", "agrees"]
    assert [c.judge() for c in r_v.types_claims(_families(pod_types=119))] == ["agrees", "differs"]


def test_critical_load_claim_needs_lambda_star_equal_to_mu():
    assert r_v.critical_load_claim(1.0).judge() == "agrees"
    assert r_v.critical_load_claim(1.0 + 1e-9).judge() == "differs"


@pytest.mark.parametrize("below, above, label", [(True, False, "agrees"), (True, True, "differs"),
                                                 (False, False, "differs"), (False, True, "differs")])
def test_m_model_local_stability_holds_only_stable_below_and_unstable_above_two_thirds(below, above, label):
    assert r_v.m_model_local_claim(below, above).judge() == label


def _limit_rows(order, loads=(0.9, 0.99, 0.999)):
    return [dict(load_fraction=f, distance=c * (1 - f) ** order, quantity=q)
            for f in loads for c, q in ((2.0, "a"), (0.5, "b"))]


def test_a_gap_linear_in_epsilon_passes_the_order_check():
    claim = r_v.linear_order_claim("R-V-thm31", "R-V-thm31: distance shrinks", _limit_rows(1.0))
    assert claim.category == "check" and claim.ours == pytest.approx(1.0) and claim.passes
    assert claim.text == "R-V-thm31: distance shrinks (observed order between the two highest loads; 0.002 at " \
                         "$\\varepsilon$ = 0.001)"


@pytest.mark.parametrize("order", [0.0, 0.5, 0.85, 1.15, 2.0])
def test_a_gap_of_another_order_fails_the_order_check(order):
    claim = r_v.linear_order_claim("R-V-cor31", "Corollary 3.1", _limit_rows(order))
    assert claim.ours == pytest.approx(order) and claim.label == "internal check fails"


def _top(laplace):
    return dict(laplace=laplace, limit_corrected=0.667, limit_as_printed=0.571, load_fraction=0.9999)


def test_the_delay_scale_erratum_is_confirmed_only_when_the_exact_transform_is_nearer_the_corrected_limit():
    assert r_v.delay_scale_erratum(_top(0.66), 0.375, 0.5).verdict.startswith("confirmed")
    assert r_v.delay_scale_erratum(_top(0.58), 0.375, 0.5).verdict.startswith("not confirmed")


def test_lemma_d1_claim_follows_the_stability_of_the_truncated_system():
    assert r_v.truncated_stable_claim(True, 0.4, 0.8).judge() == "agrees"
    assert r_v.truncated_stable_claim(False, 0.9, 0.8).judge() == "differs"


def _closed(pmf_gap=0.0, c_formula=0.1, c_dp=0.1):
    return [dict(max_abs_pmf_gap=0.0, C_formula=0.2, C_dp=0.2),
            dict(max_abs_pmf_gap=pmf_gap, C_formula=c_formula, C_dp=c_dp)]


def test_the_closed_form_check_holds_to_rounding_and_fails_beyond():
    assert r_v.closed_form_claim(_closed(pmf_gap=1e-15)).passes
    assert not r_v.closed_form_claim(_closed(pmf_gap=1e-9)).passes
    assert not r_v.closed_form_claim(_closed(c_formula=0.1 + 1e-9)).passes


def test_the_tail_claim_agrees_within_the_printed_precision_only():
    assert r_v.tail_claim(4.72e-4).judge() == "agrees"
    assert r_v.tail_claim(4.78e-4).judge() == "differs"  # beyond the printed digit, 4.7 +- 0.05
    assert r_v.tail_claim(6.58e-4).judge() == "differs"


def test_the_tail_erratum_is_likely_only_when_0_6_to_the_15_is_the_printed_number():
    r15 = dict(exact_P_Q_greater_q=6.58e-4, exact_P_Q_at_least_q=1.09e-3, exponential_14=2.48e-3)
    assert r_v.tail_erratum(r15).verdict.startswith("likely")
    assert r_v.tail_erratum(r15, printed=6.6e-4).verdict.startswith("not confirmed")


@pytest.fixture(scope="module")
def tiny():
    return r_v.compute(seed=1, n_random=4, pf_runs=2, pf_events=10_000, limit_loads=[0.99, 0.999, 0.9999])


def test_compute_at_a_tiny_scale_returns_the_twelve_items(tiny):
    assert tuple(tiny) == r_v.ITEMS
    assert len(tiny["R-V-stab"].rows) == 4 + 4 and len(tiny["R-V-local"].rows) == 4
    assert tiny["R-V-stab"].summary["all_agree"] and tiny["R-V-local"].summary["all_equivalent"]
    labels = {item: [c.label for c in res.claims] for item, res in tiny.items()}
    assert labels["R-P-types"] == ["agrees", "agrees"] and labels["R-V-local"] == ["agrees", "agrees"]
    # exact computations: the limits are approached at rate eps, the closed form to rounding
    for item in ("R-V-thm31", "R-V-thm32", "R-V-cor31"):
        assert labels[item] == ["agrees", "internal check"], item
    assert labels["R-V-appD"] == ["agrees", "agrees", "internal check"] and labels["R-X-13"] == ["agrees"]
    assert tiny["R-V-cor32"].claims[0].judge() == "differs" and tiny["R-V-cor32"].claims[1].verdict.startswith("confirmed")
    assert labels["R-X-tail"] == ["differs", "erratum"] and tiny["R-X-tail"].claims[1].verdict.startswith("likely")
    assert tiny["R-V-prop31"].summary["max_abs_diff"] < 1e-10
    assert tiny["R-V-pf"].summary["n_quantities"] == len(tiny["R-V-pf"].rows)


def test_the_figures_draw_from_the_returned_rows(tiny):
    import matplotlib.pyplot as plt

    for item, draw in (("R-V-thm31", r_v.draw_limits), ("R-V-thm32", r_v.draw_limits),
                       ("R-V-cor31", r_v.draw_replicas), ("R-V-cor32", r_v.draw_sojourn),
                       ("R-V-appD", r_v.draw_truncated), ("R-X-13", r_v.draw_constant), ("R-X-tail", r_v.draw_tail)):
        fig = draw(tiny[item])
        assert fig.axes[0].lines, item
        plt.close(fig)
    assert "0.99, 0.999, 0.9999" in tiny["R-V-thm31"].figure["caption"]
    # pf_runs = 2: the t density with one degree of freedom (Cauchy), 1/(pi (1 + z^2))
    z = np.array(tiny["R-V-pf"].figure["z"])
    assert np.allclose(tiny["R-V-pf"].figure["t_density"], 1 / (np.pi * (1 + z ** 2)))


@pytest.mark.parametrize("name, value", [("n_random", 3), ("pf_runs", 1), ("pf_events", 0),
                                         # 100 relaxation times at load 0.9: 10,000 events (2 gave infinite z)
                                         ("pf_events", 9_999), ("limit_loads", [0.9]),
                                         ("limit_loads", [0.9, 1.0]), ("seed", -1)])
def test_compute_names_a_wrong_parameter(name, value):
    params = dict(seed=1, n_random=4, pf_runs=2, pf_events=10_000, limit_loads=[0.9, 0.99])
    params[name] = value
    with pytest.raises(ParameterError, match=name):
        r_v.compute(**params)


def _pf_samples(rng, shift=0.0, runs=30):
    """Two synthetic groups of `runs` runs of 8 correlated normal quantities around exact values 1..8;
    the third quantity of the second group moved by `shift` (in units of a run's sd, 0.01)."""
    out = []
    for name in ("A", "B"):
        exact = np.arange(1.0, 9.0)
        values = exact + 0.01 * (0.9 * rng.normal(size=(runs, 1)) + 0.44 * rng.normal(size=(runs, 8)))
        if name == "B":
            values[:, 2] += 0.01 * shift
        out.append(dict(system=name, mechanism="coc", runs=values, exact=exact, quantities=[f"q{j}" for j in range(8)]))
    return out


def test_product_form_check_is_one_sign_flip_test_of_every_quantity():
    """With 30 runs per group (normal draws, seed 2: their sample skewness passes the symmetry check)
    under exactness the record agrees; one quantity of one system off by two run sd (t about 11) makes
    it differ; the record carries the sign-flip test's p-value and size."""
    from qtheory.redundancy.items.r_v import product_form_check
    from qtheory.runtime import child_seed
    from qtheory.verdicts import judge_one, sign_flip_test

    calm = product_form_check(_pf_samples(np.random.default_rng(2)), seed=4711)
    assert not calm.assumption_failure and calm.p_value > 0.05 and calm.resolved
    assert judge_one(calm).label == "agrees"
    assert "16 stationary quantities" in calm.text and "Sign-flip test of 16 quantities" in calm.evidence
    assert "30 runs each" in calm.evidence
    off = product_form_check(_pf_samples(np.random.default_rng(2), shift=2.0), seed=4711)
    assert not off.assumption_failure and judge_one(off).label == "differs"
    samples = _pf_samples(np.random.default_rng(2), shift=2.0)
    direct = sign_flip_test([g["runs"] for g in samples], [g["exact"] for g in samples],
                            seed=child_seed(4711, "pf sign flip"))
    assert off.p_value == direct.p


def test_product_form_check_with_fewer_than_30_runs_is_not_resolved():
    """29 runs per group cannot show that the run means are symmetric, as the sign-flip test assumes:
    the record is not resolved, also when a quantity is far off (t about 16)."""
    from qtheory.redundancy.items.r_v import product_form_check
    from qtheory.verdicts import judge_one

    for shift in (0.0, 3.0):
        few = product_form_check(_pf_samples(np.random.default_rng(2), shift=shift, runs=29), seed=4711)
        assert "at least 30 per group" in few.assumption_failure and "29 runs each" in few.evidence
        assert judge_one(few).label == "not resolved"
    # one group short is enough
    samples = _pf_samples(np.random.default_rng(2), shift=3.0)
    samples[0]["runs"] = samples[0]["runs"][:29]
    assert judge_one(product_form_check(samples, seed=4711)).label == "not resolved"


def _limit(quantity, mech, f, d):
    return dict(quantity=quantity, mechanism=mech, load_fraction=f, distance=d)


def test_equal_curves_pairs_quantities_equal_at_every_load_and_nothing_else():
    rows = [_limit(q, "coc", f, d) for f, ds in ((0.9, (0.1, 0.02, 0.1, 0.02)), (0.99, (0.01, 0.002, 0.01, 0.0021)))
            for q, d in zip(("scaled E[Q_1]", "scaled E[Q_2]", "scaled E[Q_3]", "scaled E[Q_4]"), ds)]
    # Q_3 equals Q_1 at both loads; Q_4 differs from Q_2 at the second load by 5%
    assert r_v.equal_curves(rows) == [("scaled E[Q_1]", "scaled E[Q_3]")]
    assert r_v.quantity_label("scaled E[Q_{1,2}]") == "type {1,2}"
    assert r_v.quantity_label("Laplace t1") == "at $t^{(1)}$"


def test_every_series_of_the_heavy_traffic_figures_shows(tiny):
    """Coinciding curves (types 1 and 3, 2 and 4 of Theorem 3.1's symmetric system; c.o.c. and c.o.s.
    near the limit) stay visible: the covered-series check of plotting.series_visibility finds nothing."""
    import matplotlib.pyplot as plt

    from qtheory.plotting import figure_problems

    assert ("scaled E[Q_1]", "scaled E[Q_3]") in r_v.equal_curves(tiny["R-V-thm31"].rows)
    for item, draw in (("R-V-thm31", r_v.draw_limits), ("R-V-thm32", r_v.draw_limits),
                       ("R-V-cor31", r_v.draw_replicas), ("R-V-appD", r_v.draw_truncated),
                       ("R-X-13", r_v.draw_constant)):
        fig = draw(tiny[item])
        assert figure_problems(fig) == [], item
        plt.close(fig)


def _distance_rows(gaps, loads=(0.9, 0.99, 0.999)):
    return [dict(load_fraction=f, distance=g, quantity=q) for f, g in zip(loads, gaps) for q in ("a", "b")]


def test_a_limit_statement_agrees_when_the_distance_falls_at_every_step_and_at_last_with_eps():
    assert r_v.limit_claim("R-V-thm31", "Theorem 3.1: x", "Theorem 3.1", _distance_rows([0.1, 0.01, 0.001])).judge() \
        == "agrees"
    # a plateau (a wrong limit) and a non-monotone path differ
    assert r_v.limit_claim("R-V-thm31", "Theorem 3.1: x", "Theorem 3.1", _distance_rows([0.1, 0.05, 0.04])).judge() \
        == "differs"
    assert r_v.limit_claim("R-V-thm31", "Theorem 3.1: x", "Theorem 3.1", _distance_rows([0.1, 0.001, 0.002])).judge() \
        == "differs"
    # falling at every step, but over the last step (eps / 10) by less than half as much: differs
    assert r_v.limit_claim("R-V-thm31", "x", "y", _distance_rows([0.1, 0.02, 0.0041])).judge() == "differs"
    assert r_v.limit_claim("R-V-thm31", "x", "y", _distance_rows([0.1, 0.02, 0.0039])).judge() == "agrees"
    # a slow start far from the limit does not count against it
    assert r_v.limit_claim("R-V-thm31", "x", "y", _distance_rows([0.5, 0.125, 0.0142, 0.00144],
                                                              (0.9, 0.99, 0.999, 0.9999))).judge() == "agrees"


def test_corollary_32_as_printed_differs_from_the_exact_scale():
    assert r_v.printed_delay_claim(0.375, 0.5).judge() == "differs"
    assert r_v.printed_delay_claim(0.5, 0.5).judge() == "agrees"


def test_type_families_are_labelled_in_words_and_math(tiny):
    from qtheory.plotting import code_like

    assert r_v._family_label("eps example N=5 eps=0.5") == r"$\epsilon$ example, $N = 5$, $\epsilon = 0.5$"
    assert r_v._family_label("M-model p12=7/12") == r"M-model, $p_{\{1,2\}} = 7/12$"
    assert r_v._family_label("fully flexible N=5") == "fully flexible, $N = 5$"
    assert r_v._family_label("heterogeneous pod N=6 d=2") == r"heterogeneous power-of-$d$, $N = 6$, $d = 2$"
    labels = tiny["R-P-types"].figure["labels"]
    assert len(labels) == 8 and not [label for label in labels if code_like(label)]
