"""R-T1's item function at a tiny scale, and its judgements on rows that must agree and rows that
must differ: the one finding on Table 1's E[Q] (which averaging convention the paper's values fit),
the claims it folds, the erratum it words."""

import math
import re

import matplotlib
import numpy as np
import pytest

from qtheory import verdicts
from qtheory.claims import Claim
from qtheory.display import number
from qtheory.errors import ParameterError
from qtheory.redundancy.experiments import table1_comparison
from qtheory.redundancy.items import r_t1

matplotlib.use("Agg")

N_RUNS = 10


def _mean_rows(paper_shift, *, arrival_shift=1.0, wiggle=0.05, scatter=0.0):
    """Synthetic E[Q] rows of R-T1 in 12 settings: exact = 10 + k, the paper at exact + `paper_shift`
    (+- `wiggle`, alternating, + `scatter` times a fixed pattern), our time averages at exact, our
    event averages half a job above, our after-arrival averages at exact + `arrival_shift`."""
    rows = []
    for k in range(1, 13):
        exact = 10.0 + k
        sign = 1 if k % 2 else -1
        rows.append(dict(setting=k, name=f"s{k}", quantity="mean", exact=exact, paper_sd=0.3,
                         paper_mean=exact + paper_shift + sign * wiggle + scatter * sign * (k % 3 + 1),
                         time_mean=exact - sign * 0.02, time_sd=0.3, event_mean=exact + 0.5, event_sd=0.3,
                         arrival_mean=exact + arrival_shift - sign * 0.02, arrival_sd=0.3))
    return rows


def _finding(rows, **kw):
    return r_t1.mean_offset_finding(table1_comparison(rows, N_RUNS), **kw)


def test_a_paper_at_the_time_averages_gives_no_offset_finding():
    f = _finding(_mean_rows(0.0))
    assert f.label == "agrees" and f.id == r_t1.MEAN_OFFSET
    assert f.title == "Table 1's $E[Q]$ are time-stationary means"
    assert "in 6 of 12 settings" in f.text and "arrival" not in f.title


def test_a_paper_one_job_above_fits_arrival_epochs_and_differs():
    f = _finding(_mean_rows(1.0))
    assert f.label == "differs"
    assert f.title == ("Table 1's $E[Q]$ are averages just after arrivals (the arriving job included); ours are "
                       "time-stationary means")
    assert "in 12 of 12 settings" in f.text and "Not kept" not in f.text  # both arrival readings fit


def test_the_finding_opens_with_the_mean_difference_its_standard_error_and_the_cause():
    f = _finding(_mean_rows(1.0))
    # each setting: the paper's sd 0.3 over 10 runs; the mean of 12 such differences (+-0.05 alternating)
    se = 0.3 / math.sqrt(10) / math.sqrt(12)
    assert f.text.startswith(f"The paper's $E[Q]$ is above the exact stationary mean of the product form (6) by "
                             f"{number(1.0, se)} on average over the 12 settings: it counts the jobs just after an "
                             "arrival, the arriving job included")
    # exact + 1 against the paper: 1 - (1 +- 0.05) = -0.05 to +0.05
    assert "lies -0.05 to +0.05 from the paper's value" in f.text
    below = _finding(_mean_rows(0.9, arrival_shift=0.88, wiggle=0.02))
    assert "lies 0.08 to 0.12 above the paper's value in every setting" in below.text


def test_a_paper_between_the_stationary_mean_and_exact_plus_one_fits_our_after_arrival_runs_only():
    # the case of the paper's Table 1: 0.9 above the stationary mean, our after-arrival runs 0.88 above
    f = _finding(_mean_rows(0.9, arrival_shift=0.88))
    assert f.label == "differs" and "averages just after arrivals (the arriving job included)" in f.title
    # a hypothesis with a rejecting test is not titled as settled
    assert f.title.startswith("Table 1's $E[Q]$ are best explained as averages just after arrivals")
    fits, rest = f.text.split("Not kept")
    assert "our simulated after-arrival averages" in fits and "exact stationary mean + 1" in rest
    assert "0 of 12 settings" in rest  # the paper is below exact + 1 everywhere


@pytest.mark.parametrize("shift", [3.0, -1.0])
def test_a_paper_far_above_or_below_fits_no_convention(shift):
    f = _finding(_mean_rows(shift))
    assert f.label == "differs" and "no averaging convention tried fits" in f.title


def test_a_scatter_without_common_sign_is_rejected_by_the_joint_test():
    # half above, half below (sign test p = 1), but far beyond the paper's standard errors
    f = _finding(_mean_rows(0.0, wiggle=0.0, scatter=1.0))
    assert f.label == "differs" and "no averaging convention" in f.title


def test_the_level_decides_a_borderline_fit():
    rows = _mean_rows(0.0, wiggle=0.15)  # z = +-1.6 each: joint chi-square p = 0.003, sign test p = 1
    assert _finding(rows).label == "differs"
    assert _finding(rows, alpha=1e-3).label == "agrees"


def test_the_finding_names_a_wrong_level_and_missing_exact_rows():
    comparison = table1_comparison(_mean_rows(0.0), N_RUNS)
    with pytest.raises(ParameterError, match="alpha"):
        r_t1.mean_offset_finding(comparison, alpha=1.5)
    with pytest.raises(ParameterError, match="exact"):
        r_t1.mean_offset_finding([c for c in comparison if c["estimator"] != "exact"])


def _table_rows():
    rows = []
    for k in (1, 2):
        for q, paper, exact in (("mean", 13.0, 12.0), ("var", 100.0, 95.0), ("share_first", 0.25, 0.25),
                                ("share_last", 0.25, 0.25)):
            rows.append(dict(setting=k, quantity=q, paper_mean=paper, paper_sd=0.3 if q != "var" else 12.0,
                             exact=exact if k == 1 else math.nan, time_mean=exact + 0.001, time_sd=0.01))
    return rows


def _shares(runs=30):
    """Run means of the shares of setting 2 (no exact share): 30 runs, sd 0.01 about 0.251."""
    rng = np.random.default_rng(1)
    return {(2, q): tuple(0.251 + 0.01 * rng.standard_normal(runs)) for q in ("share_first", "share_last")}


def test_the_e_q_claims_carry_the_finding_and_the_others_are_judged_alone():
    claims = r_t1.table1_claims(_table_rows(), _shares(), finding="R-T1-mean-offset")
    mean = [c for c in claims if "E[Q]" in c.text]
    var = [c for c in claims if "Var(Q)" in c.text]
    shares = [c for c in claims if "share" in c.text]
    assert len(mean) == 1 and len(var) == 1 and len(shares) == 4  # setting 2 has no exact E[Q], Var(Q)
    assert mean[0].finding == "R-T1-mean-offset" and mean[0].judge() == "differs"
    assert mean[0].paper_se == pytest.approx(0.3 / math.sqrt(10))
    # 5 / (12 / sqrt(10)) = 1.3 SE: not rejected, but the paper's 10-run interval (± 8.6) reaches beyond
    # the 5% margin (± 5), so the data cannot tell agreement
    assert var[0].finding == "" and var[0].judge() == "not resolved" and var[0].paper_df == 9
    # the shares are not rejected (0.001 apart), but a per-run sd of 0.3 cannot resolve a 5% margin
    assert all(c.finding == "" and c.judge() == "not resolved" for c in shares)
    assert {c.family for c in shares} == {"Table 1, type shares over the settings"}


def test_a_share_is_compared_with_the_exact_share_where_there_is_one_else_with_its_run_means():
    claims = [c for c in r_t1.table1_claims(_table_rows(), _shares()) if "share" in c.text]
    exact = [c for c in claims if "setting 1:" in c.text]
    simulated = [c for c in claims if "setting 2:" in c.text]
    assert all(c.ours == 0.25 and c.ours_se is None and c.ours_runs is None and "exact" in c.text for c in exact)
    runs = _shares()[(2, "share_first")]
    assert simulated[0].ours_runs == runs and simulated[0].ours_df == 29
    assert simulated[0].ours == pytest.approx(np.mean(runs)) and simulated[0].ours_se == pytest.approx(
        np.std(runs, ddof=1) / math.sqrt(30))
    # too few runs: the claim is not judged by its t test
    few = [c for c in r_t1.table1_claims(_table_rows(), _shares(runs=10)) if "setting 2:" in c.text]
    assert "10 run means of ours" in verdicts.judge_one(few[0]).reason


def test_the_e_q_claims_name_the_after_arrival_cause_with_their_own_numbers():
    rows = _table_rows()
    plain = [c for c in r_t1.table1_claims(rows, _shares()) if "E[Q]" in c.text]
    assert plain[0].cause == ""          # without the finding's support, no cause is asserted
    claim = [c for c in r_t1.table1_claims(rows, _shares(), after_arrival=True) if "E[Q]" in c.text][0]
    # exact 12, so exact + 1 = 13.000, the paper's value itself
    assert claim.cause.startswith("the paper's $E[Q]$ counts the jobs just after an arrival, the arriving job "
                                  "included") and "the exact mean + 1, 13.000, is 0.000 above" in claim.cause
    var = [c for c in r_t1.table1_claims(rows, _shares(), after_arrival=True) if "Var(Q)" in c.text][0]
    assert var.cause == ""


def test_a_significant_e_q_difference_inside_its_margin_says_so_with_its_cause():
    """Setting 10's case: the paper 0.81 above the exact mean, 3.5 of its standard errors, inside the 5% margin."""
    from qtheory.claimpages import opening

    row = dict(setting=10, quantity="mean", paper_mean=52.33, paper_sd=0.724, exact=51.52)
    claim = [c for c in r_t1.table1_claims([row], {}, after_arrival=True)][0]
    other = Claim("R-T1", "another row", paper=1.0, paper_se=0.01, paper_df=9, ours=1.0)
    # p = 0.006 alone; in a family of two Holm's first threshold is 0.005: not rejected
    v = verdicts.judge([claim, other]).verdicts[0]
    assert v.label == "agrees" and v.comparison.high < 0          # significant alone, within the margin
    first = opening(claim, v)
    assert "a significant difference" in first and "inside the margin" in first
    assert "cause: the paper's $E[Q]$ counts the jobs just after an arrival" in first
    assert "the exact mean + 1, 52.520, is 0.190 above the paper's value" in first
    # the record says it too, for the claims page: the offset, its cause, and that it is significant
    assert claim.evidence.startswith("The paper is 0.81 ± 0.23 above the exact stationary mean. Cause: the paper's")
    assert "excludes 0 but lies inside the margin ± 2.62: a significant difference inside the margin" in claim.evidence
    beyond = r_t1.table1_claims([dict(row, paper_mean=55.0)], {}, after_arrival=True)[0]   # 3.5 above: beyond 5%
    assert "inside the margin" not in beyond.evidence and beyond.evidence.startswith("The paper is 3.48 ± 0.23 above")
    close = r_t1.table1_claims([dict(row, paper_mean=51.6)], {}, after_arrival=True)[0]     # 0.08 ± 0.23: not significant
    assert "significant" not in close.evidence


def test_the_erratum_is_worded_by_the_finding():
    rows = _mean_rows(1.0)
    f = _finding(rows)
    e = r_t1.mean_offset_erratum(rows, f)
    assert e.category == "erratum" and e.finding == f.id and e.verdict == f.title
    assert e.paper == pytest.approx(np.mean([r["paper_mean"] for r in rows]))
    assert e.ours == pytest.approx(16.5) and "paper 17.500, exact 16.500" in e.evidence


@pytest.fixture(scope="module")
def tiny():
    return r_t1.compute(seed=1, lam=0.9, n_runs=2, n_events=10_000, hist_max=199, check_runs=2, check_events=10_000)


def test_compute_at_a_tiny_scale_returns_the_four_items(tiny):
    assert tuple(tiny) == r_t1.ITEMS
    table = tiny["R-T1"]
    assert len(table.rows) == 12 * 4 and len(table.findings) == 1
    # 12 E[Q] and 12 Var(Q) against the exact values, 24 shares, the erratum, the shares against p_S
    assert len(table.claims) == 50 and sum(c.finding == r_t1.MEAN_OFFSET for c in table.claims) == 13
    assert table.claims[-1].key == "R-T1:shares"
    assert [c.key for c in tiny["R-F4"].claims][-2:] == ["R-F4:tail50", "R-F4:ushape"]
    # two runs cannot judge a simulated part: the statements with one are not resolved, never differ
    judged = verdicts.judge(tiny["R-F4"].claims)
    for c, v in zip(tiny["R-F4"].claims, judged.verdicts):
        assert v.label in ("agrees", "not resolved") and (not c.tested or "2 run means" in c.assumption_failure)
    assert set(table.summary["paper_minus_ours_mean_jobs"]) == {"time", "event", "arrival", "exact"}
    assert {c["estimator"] for c in table.tables["estimators"]} >= {"exact", "exact + 1", "after arrivals"}
    for r in table.rows:  # the DP gives E[Q] and Var(Q) of all twelve settings
        assert r["time_mean"] >= 0 and (r["quantity"].startswith("share") or not math.isnan(r["exact"]))
    cdf = tiny["R-F4"]
    sims = [r for r in cdf.rows if r["method"] == "simulation"]
    assert len(sims) == 12 * 2 * r_t1.CDF_POINTS and all(0.0 <= r["cdf"] <= 1.0 + 1e-12 for r in sims)
    assert set(cdf.summary["max_cdf_gap_to_heavy_traffic"]) == set(range(1, 13))
    for item in ("R-P-coc", "R-P-cos"):
        chk = tiny[item]
        assert chk.summary["n_quantities"] == len(chk.rows)
        assert all(r["ci_low"] <= r["simulation"] <= r["ci_high"] for r in chk.rows)
    assert len(tiny["R-P-coc"].rows) > len(tiny["R-P-cos"].rows)  # c.o.c. also checks E[Q_S]


def test_the_figures_draw_from_the_returned_rows(tiny):
    import matplotlib.pyplot as plt

    for draw in (r_t1.draw_cdfs, r_t1.draw_tails):
        fig = draw(tiny["R-F4"])
        assert len(fig.axes) == 12
        plt.close(fig)
    assert "2 simulation runs" in tiny["R-F4"].figure["caption"]


def test_the_page_texts_and_tables_write_no_python_lists_or_e_notation(tiny):
    texts = [tiny[i].text or "" for i in ("R-T1", "R-F4")]
    texts += [d.html() for i in ("R-T1", "R-F4") for d in tiny[i].displays]
    for text in texts:
        assert not re.search(r"\d\.?\d*e[-+]\d\d|settings \[|share_(first|last)", text), text


@pytest.mark.parametrize("name, value", [("lam", 1.0), ("lam", 0.0), ("n_runs", 1), ("hist_max", 100),
                                         ("check_runs", 1), ("n_events", 0), ("n_events", 9_999),
                                         ("check_events", 9_999)])
def test_compute_names_a_wrong_parameter(name, value):
    params = dict(seed=1, lam=0.9, n_runs=2, n_events=10_000, hist_max=199, check_runs=2, check_events=10_000)
    params[name] = value
    with pytest.raises(ParameterError, match=name):
        r_t1.compute(**params)


def test_the_shortest_run_is_a_hundred_relaxation_times():
    """(1 - lam)^-2 relaxation times: 10 000 events at 0.9, 40 000 at 0.95, named with the reason."""
    params = dict(seed=1, lam=0.95, n_runs=2, n_events=39_999, hist_max=199, check_runs=2, check_events=40_000)
    with pytest.raises(ParameterError, match=r"`n_events` must be at least 40,000 at `lam` = 0.95: 100 relaxation times"):
        r_t1.compute(**params)


def test_panel_titles_set_symbols_as_math():
    assert r_t1.panel_title(3, "N=4, circular d=2, p=(.4,.1,.4,.1)") == "3: $N=4$, circular $d=2$,\n$p=(.4,.1,.4,.1)$"


def test_claim_objects_are_claims():
    assert all(isinstance(c, Claim) for c in r_t1.table1_claims(_table_rows(), _shares()))


def _full_rows(share_off_setting=None):
    """Synthetic R-T1 rows of all four quantities: the paper's Var(Q) above the exact one in
    settings 1-10 and below in 11, 12; shares at the exact value, except setting
    `share_off_setting`'s first share four per-run sds above."""
    rows = []
    for k in range(1, 13):
        for q in r_t1.QUANTITIES:
            exact = {"mean": 10.0 + k, "var": 100.0, "share_first": 0.25, "share_last": 0.25}[q]
            sd = {"mean": 0.3, "var": 12.0, "share_first": 0.001, "share_last": 0.001}[q]
            paper = exact + {"mean": 1.0, "var": 5.0 if k <= 10 else -5.0}.get(q, 0.0)
            if q == "share_first" and k == share_off_setting:
                paper += 4 * sd
            rows.append(dict(setting=k, name=f"s{k}", quantity=q, paper_mean=paper, paper_sd=sd, exact=exact,
                             time_mean=exact, time_sd=sd, event_mean=exact, event_sd=sd, arrival_mean=exact,
                             arrival_sd=sd))
    return rows


@pytest.mark.parametrize("off", [None, 6])
def test_the_remarks_list_the_variances_above_and_the_shares_off_by_three_sds(off):
    rows = _full_rows(off)
    comparison = table1_comparison(rows, N_RUNS)
    text = r_t1.table1_remarks(rows, comparison, r_t1.table1_verdicts(comparison), N_RUNS, 1000)
    assert "above it in settings 1, 2, 3, 4, 5, 6, 7, 8, 9 and 10" in text
    # 5 / (12 / sqrt(10)) = 1.3 in every setting (paper above in 1-10, below in 11-12)
    assert "by 1.3-1.3 of its standard errors each" in text and "largest difference of a single setting" in text
    assert "is 1.3 standard errors" in text
    if off is None:
        assert "all within three per-run sds" in text
    else:
        assert "setting 6, share of the first type: paper 0.25400 vs exact 0.25000 lie more than three" in text


EXACT_GAPS = {1: 0.19, 2: 0.2, 3: 0.23, 4: 0.33, 5: 0.56, 6: 0.62, 7: 0.39, 8: 0.39}


def _symmetric_runs(mean, sd, n=30):
    """`n` run means with exactly this mean and sd and no skew."""
    z = np.linspace(-1.0, 1.0, n)
    return tuple(mean + sd * (z - z.mean()) / z.std(ddof=1))


def _distances(**simulated):
    """Settings 1-8 exact (EXACT_GAPS), 9-12 from 30 runs of sd 0.01 about 0.84, 0.89, 0.66, 0.66
    (`simulated` overrides by setting: a mean, or a tuple of run means). The runs of settings 11
    and 12 are in the opposite order, as independent runs would be: paired by index with those of
    settings 9 and 10, their differences spread and show no skew."""
    out = {k: r_t1.CdfDistance(v, v, _symmetric_runs(v, 0.01), 50) for k, v in EXACT_GAPS.items()}
    for k, v in {9: 0.84, 10: 0.89, 11: 0.66, 12: 0.66}.items():
        v = simulated.get(f"s{k}", v)
        runs = v if isinstance(v, tuple) else _symmetric_runs(v, 0.01)[::1 if k < 11 else -1]
        out[k] = r_t1.CdfDistance(None, float(np.mean(runs)), runs, 50)
    return out


def _labels(claims):
    return [v.label for v in verdicts.judge(claims).verdicts]


def test_figure_4_statements_follow_the_distances_exact_ones_deterministically():
    assert _labels(r_t1.figure4_claims(_distances())) == ["agrees"] * 3
    exact = _distances()
    exact[7] = r_t1.CdfDistance(0.57, 0.57, exact[7].runs, 50)        # denser but farther: settings 5 and 7
    assert _labels(r_t1.figure4_claims(exact)) == ["differs", "agrees", "agrees"]
    exact = _distances()
    exact[5] = r_t1.CdfDistance(0.63, 0.63, exact[5].runs, 50)
    assert _labels(r_t1.figure4_claims(exact)) == ["agrees", "differs", "agrees"]
    exact = _distances()
    exact[4] = r_t1.CdfDistance(0.22, 0.22, exact[4].runs, 50)      # farther than settings 1, 2, not 3
    assert _labels(r_t1.figure4_claims(exact)) == ["agrees", "agrees", "differs"]
    # the exact statements are not tested records: they hold or not, outside the page's family
    pod, four = r_t1.figure4_claims(_distances())[1:]
    assert pod.holds is True and not pod.tested and four.holds is True
    assert "0.560 (setting 5), 0.620 (setting 6)" in pod.evidence


def test_a_simulated_comparison_is_judged_with_its_noise():
    denser = r_t1.figure4_claims(_distances())[0]
    assert denser.tested and denser.resolved and denser.evidence.startswith("Distance of the law of $Q$")
    assert "(setting 9, simulated)" in denser.evidence
    # setting 11 as far as setting 9, within noise: neither shown nor contradicted
    close = r_t1.figure4_claims(_distances(s11=0.8395))[0]
    assert _labels([close]) == ["not resolved"] and not close.resolved
    # setting 11 clearly farther than setting 9: the statement is contradicted
    far = r_t1.figure4_claims(_distances(s11=0.9))[0]
    assert _labels([far]) == ["differs"]
    # ten runs cannot judge a simulated part: not resolved, never differs, even when the means say so
    few = r_t1.figure4_claims(_distances(s11=_symmetric_runs(0.9, 0.01, n=10)))[0]
    assert _labels([few]) == ["not resolved"] and "10 run means" in few.assumption_failure


def test_two_simulated_settings_are_paired_by_index_and_the_skew_of_their_differences_is_checked():
    skew = np.exp(np.linspace(-2.0, 2.0, 30))                 # strongly skewed run means
    ten = tuple(0.89 + 0.001 * (skew - skew.mean()))
    twelve = tuple(np.array(ten) - 0.22 + np.array(_symmetric_runs(0.0, 0.002)))
    assert verdicts.check_runs(ten).why                         # alone, setting 10's runs are refused
    denser = r_t1.figure4_claims(_distances(s10=ten, s12=twelve))[0]
    assert _labels([denser]) == ["agrees"] and not denser.assumption_failure


class _Run:
    def __init__(self, pmf):
        self.count_distribution = np.asarray(pmf, dtype=float)


def _pmf_runs(n, seed, hazard, noise=0.02, size=260):
    """`n` runs whose time-averaged pmf of Q has the discrete hazard `hazard(q)`, each perturbed
    by independent relative noise."""
    rng = np.random.default_rng(seed)
    q = np.arange(size)
    h = np.clip(hazard(q), 1e-6, 1.0)
    survive = np.concatenate([[1.0], np.cumprod(1 - h)[:-1]])
    base = survive * h
    out = []
    for _ in range(n):
        pmf = base * np.exp(noise * rng.standard_normal(size))
        out.append(_Run(pmf / pmf.sum()))
    return out


@pytest.mark.parametrize("hazard", [lambda q: 0.02 + 0.001 * q, lambda q: np.full(q.shape, 0.4)],
                         ids=["more jobs than the approximation", "fewer"])
def test_the_distance_of_a_run_is_the_largest_gap_of_its_step_cdf_over_all_x(hazard):
    from types import SimpleNamespace

    runs = _pmf_runs(30, 1, hazard)
    settings = [SimpleNamespace(number=9, system=None)]
    d = r_t1.figure4_distances(settings, {9: runs}, 0.9, tails={9: None})[9]
    mean_cdf = np.mean([np.cumsum(r.count_distribution)[:r_t1.CDF_POINTS] for r in runs], axis=0)
    x = np.arange(0, r_t1.CDF_POINTS, 1e-3)
    step = mean_cdf[np.floor(x).astype(int)]
    brute = np.max(np.abs(step - (1 - np.exp(-0.1 * x))))
    assert d.exact is None and d.simulated == pytest.approx(brute, abs=1e-3)
    assert np.mean(d.runs) == pytest.approx(d.simulated) and len(d.runs) == 30 and np.std(d.runs) > 0
    # an exact tail gives the exact distance
    tail = 1 - mean_cdf
    assert r_t1.figure4_distances(settings, {9: runs}, 0.9, tails={9: tail})[9].exact == pytest.approx(d.simulated)


def test_the_run_values_of_a_bend_are_its_linearisation_with_the_jackknife_spread():
    runs = _pmf_runs(40, 2, lambda q: 0.005 + 0.002 * q, noise=0.2)
    tails = np.array([1 - np.cumsum(r.count_distribution) for r in runs])
    estimate, per_run = r_t1._bends(tails)
    k = np.asarray(r_t1.USHAPE_KNOTS)

    def plug_in(t):
        g = -np.log(t[:, k].mean(axis=0))
        slopes = np.diff(g) / np.diff(k)
        return np.diff(slopes)

    assert estimate == pytest.approx(plug_in(tails)) and per_run.mean(axis=0) == pytest.approx(estimate)
    n = len(runs)
    leave_one_out = np.array([plug_in(np.delete(tails, i, axis=0)) for i in range(n)])
    jackknife_se = np.sqrt((n - 1) / n * ((leave_one_out - leave_one_out.mean(axis=0)) ** 2).sum(axis=0))
    assert per_run.std(axis=0, ddof=1) / math.sqrt(n) == pytest.approx(jackknife_se, rel=0.1)
    # run by run, the linearised value is the jackknife pseudo-value to first order (same sign, same size)
    pseudo = n * plug_in(tails) - (n - 1) * leave_one_out
    for j in range(per_run.shape[1]):
        assert np.corrcoef(per_run[:, j], pseudo[:, j])[0, 1] > 0.99


def _ushape(hazard5, hazard9, runs9=30):
    """The U-shape record on settings 5 (exact tail of the hazard `hazard5`) and 9 (runs of `hazard9`)."""
    from types import SimpleNamespace

    q = np.arange(600)
    h = np.clip(hazard5(q), 1e-9, 1.0)
    tail5 = np.cumprod(1 - h)[:r_t1.CDF_POINTS]                   # P(Q > q), q = 0..199
    settings = [SimpleNamespace(number=k, system=None) for k in (5, 9)]
    runs = {5: _pmf_runs(runs9, 3, hazard5), 9: _pmf_runs(runs9, 4, hazard9)}
    return r_t1.ushape_claim(settings, runs, 0.9, tails={5: tail5, 9: None})


def _rising(q):
    return 0.1 * (1 - np.exp(-q / 15.0))          # hazard rising to 0.1: -log P(Q > q) convex


def test_a_tail_that_bends_upward_in_both_settings_agrees():
    c = _ushape(_rising, _rising)
    assert c.key == "R-F4:ushape" and c.tested and _labels([c]) == ["agrees"]
    assert c.evidence.startswith("Read as: $-\\log P(Q > q)$ is convex in $q$")
    assert "Setting 5 (exact tail)" in c.evidence and "Setting 9 (mean tail of 30 runs)" in c.evidence
    assert "convex within the rounding tolerance" in c.evidence


def test_an_exact_tail_that_bends_down_anywhere_contradicts_the_u_shape():
    # rising hazard up to q = 100, then falling a little: convex on the windows, concave beyond
    def bump(q):
        return np.where(q < 100, _rising(q), _rising(q) - 0.0002 * (q - 100))

    c = _ushape(bump, _rising)
    assert _labels([c]) == ["differs"] and "not convex" in c.evidence


def test_a_simulated_tail_that_is_straight_is_not_shown_to_bend_and_one_that_bends_down_differs():
    straight = _ushape(_rising, lambda q: np.full(q.shape, 0.05))
    assert _labels([straight]) == ["not resolved"]
    concave = _ushape(_rising, lambda q: 0.1 * np.exp(-q / 15.0) + 0.01)
    assert _labels([concave]) == ["differs"]
    few = _ushape(_rising, _rising, runs9=10)
    assert _labels([few]) == ["not resolved"] and "10 run means" in few.assumption_failure


def _share_rows(gap4, gap_other, other=3):
    """Share rows of the twelve settings: every share at its p_S, setting 4's first share off by
    `gap4` and setting `other`'s last share off by `gap_other` (relative)."""
    from qtheory.redundancy.experiments import table1_settings

    rows = []
    for st in table1_settings():
        p1, pm = float(st.system.probabilities[0]), float(st.system.probabilities[-1])
        first = p1 * (1 + gap4) if st.number == 4 else p1
        last = pm * (1 - gap_other) if st.number == other else pm
        rows += [dict(setting=st.number, quantity="share_first", time_mean=first, paper_mean=first),
                 dict(setting=st.number, quantity="share_last", time_mean=last, paper_mean=last)]
    return rows


def test_the_share_statement_needs_setting_4_to_stand_out_by_the_stated_factor():
    from qtheory.redundancy.experiments import table1_settings

    settings = table1_settings()
    ok = r_t1.share_collapse_claim(_share_rows(0.37, 0.10), settings)
    assert ok.judge() == "agrees" and ok.key == "R-T1:shares" and "setting 4 37%" in ok.evidence
    assert "the next largest 10% in setting 3" in ok.evidence
    # setting 4 only 1.9 times the next: no clear exception
    assert r_t1.share_collapse_claim(_share_rows(0.19, 0.10), settings).judge() == "differs"
    # another setting as far off as setting 4
    assert r_t1.share_collapse_claim(_share_rows(0.37, 0.30, other=9), settings).judge() == "differs"


def test_the_tail_bound_of_the_approximation_is_e_to_the_minus_five():
    """P(Q' > 50) = exp(-50 (1 - lambda)): 0.00674 < 0.007 at 0.9; at 0.901 it is 0.00708 (differs)."""
    import math

    ok = r_t1.tail50_claim(0.9)
    assert ok.judge() == "agrees" and ok.ours == pytest.approx(math.exp(-5.0)) and ok.key == "R-F4:tail50"
    assert r_t1.tail50_claim(0.901).judge() == "differs"
