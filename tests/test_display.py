"""HTML tables for the book pages."""

import re

import pytest

from qtheory.display import html_table
from qtheory.errors import ParameterError


def test_one_line_per_row_one_cell_per_column_and_text_escaped():
    rows = [dict(a=1, b="x<y"), dict(a=2, b="&")]
    out = html_table(rows, {"a": lambda r: r["a"], "b & c": lambda r: r["b"]}, caption="t < 1")
    assert out.count("<tr>") == 3 and out.count("<td>") == 4
    assert re.findall(r"<th>(.*?)</th>", out) == ["a", "b &amp; c"]
    assert re.findall(r"<td>(.*?)</td>", out) == ["1", "x&lt;y", "2", "&amp;"]
    assert "<figcaption>t &lt; 1</figcaption>" in out


def test_a_caption_stands_above_the_box_in_which_a_wide_table_scrolls():
    """A <caption> is part of its table: on a phone it scrolled with a wide table and was cut at the
    screen's edge mid-sentence (issue 50). The caption is the figure's, above the scrolling box."""
    out = html_table([dict(a=1)], {"a": lambda r: r["a"]}, caption="what the table shows")
    assert "<caption" not in out
    assert re.fullmatch(r'<figure class="qtheory-table-figure"><figcaption>what the table shows</figcaption>'
                        r'<div class="qtheory-table-scroll"><table class="qtheory-table">.*</table></div></figure>', out)
    assert "<figcaption>" not in html_table([dict(a=1)], {"a": lambda r: r["a"]})


@pytest.mark.parametrize("value, shown", [(7 / 12, "7/12"), (5 / 12, "5/12"), (1 / 3, "1/3"), (-7 / 12, "\u22127/12"),
                                          (0.25, "0.25"), (0.6, "0.6"), (0.1 + 0.2, "0.3"), (2 ** 0.5, "1.414"),
                                          (3.0, "3"), (20000.0, "20000"), (1 / 7000, "1.429 × 10⁻⁴")])
def test_a_parameter_reads_as_a_simple_fraction_or_a_rounded_number(value, shown):
    """Parameter tables and captions showed 0.5833333333333334 for 7/12 (issue 50)."""
    from qtheory.display import parameter_number

    assert parameter_number(value) == shown


def test_a_simple_fraction_is_exact_and_only_where_the_decimal_is_long():
    from qtheory.display import simple_fraction

    assert simple_fraction(7 / 12) == "7/12" and simple_fraction(-7 / 12) == "-7/12"
    # short decimals, integers, non-floats, non-finite values and near misses are not fractions
    assert [simple_fraction(x) for x in (0.25, 0.125, 3.0, 7, "7/12", float("nan"), float("inf"),
                                         0.1 + 0.2, 0.58333)] == [None] * 9
    assert simple_fraction(1 / 101) is None and simple_fraction(1 / 99) == "1/99"


def test_no_columns_is_an_error_naming_the_parameter():
    with pytest.raises(ParameterError, match="`columns`"):
        html_table([{}], {})


def test_math_in_html_outputs_uses_mathjax_delimiters_and_alt_text_is_plain():
    from qtheory.display import html_math, plain_math

    text = r"pmf at $\lambda = 0.6\mu$ & $q_{m,\ell}$"
    # MathJax typesets \( \) in HTML outputs, never $ $; the rest is escaped
    assert html_math(text) == r"pmf at \(\lambda = 0.6\mu\) &amp; \(q_{m,\ell}\)"
    assert plain_math(text) == "pmf at λ = 0.6μ & q_m,ℓ"
    # a spacing command before a letter, and set braces
    assert plain_math(r"$(1-\lambda)\,q$ at $p_{\{1,2\}}$") == "(1-λ) q at p_{1,2}"
    assert "$" not in html_table([{"a": 1}], {"$\\rho$": lambda r: "$x^2$"}, caption="$n$")


def test_named_values_show_as_a_two_column_table(monkeypatch):
    import qtheory.display as D

    shown = []
    monkeypatch.setattr(D, "show_table", lambda rows, columns, caption=None: shown.append(
        html_table(rows, columns, caption)))
    D.show_values({"$\\lambda^*$": "0.75", "agree": "yes"}, caption="c")
    assert re.findall(r"<td>(.*?)</td>", shown[0]) == ["\\(\\lambda^*\\)", "0.75", "agree", "yes"]
    assert re.findall(r"<th>(.*?)</th>", shown[0]) == ["quantity", "value"]
    with pytest.raises(ParameterError, match="`header`"):
        D.show_values({"a": "1"}, header=("one",))


def test_number_shows_the_digits_the_standard_error_supports_and_no_raw_floats():
    from qtheory.display import listing, number

    assert number(0.1649, 3.903e-4) == "0.16490 ± 0.00039"
    assert number(12.945, 0.314) == "12.95 ± 0.31"
    assert number(6.577e-4, 1.2e-5) == "(6.58 ± 0.12) × 10⁻⁴"
    assert number(6.577e-4) == "6.58 × 10⁻⁴" and number(123456.0) == "1.23 × 10⁵"
    assert number(-0.0004) == "−4 × 10⁻⁴" and number(-0.001 / 3, digits=2) == "−3.3 × 10⁻⁴"
    assert number(-1e-9, digits=2) != "-0.00" and number(-0.0001, 0.01) == "−0.000 ± 0.010".replace("−", "")
    assert number(0.75) == "0.75" and number(3) == "3" and number(None) == "—" and number(float("nan")) == "—"
    assert number(9.9996e-4) == "1 × 10⁻³"
    assert listing([0.5, 0.65, 0.75]) == "0.5, 0.65, 0.75" and listing([1, 2, 3], conjunction="and") == "1, 2 and 3"


def test_fixed_writes_the_places_asked_a_typographic_minus_and_no_negative_zero():
    from qtheory.display import fixed

    assert fixed(1.23456, 2) == "1.23" and fixed(2.0, 3) == "2.000"
    assert fixed(-0.0126, 3) == "\u22120.013"                   # minus sign U+2212, not a hyphen
    assert fixed(-0.00004, 4) == "0.0000" and fixed(-0.4, 0) == "0" and fixed(-0.0, 1) == "0.0"
    assert fixed(-0.00005001, 4) == "\u22120.0001"               # rounds away from zero: a minus stays
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ParameterError, match="`places` must be a non-negative integer"):
            fixed(0.5, bad)


@pytest.mark.parametrize("title, plain", [
    (r"R-F3ab: joint pmf of \((Q_{\{1,2\}}, Q_{\{2,3\}})\) in the M-model",
     "R-F3ab: joint pmf of (Q_{1,2}, Q_{2,3}) in the M-model"),
    (r"U-T1: \(E[u(q_n)]\) as \(\rho \to \infty\)", "U-T1: E[u(q_n)] as ρ → ∞"),
    (r"L-F2: $q_{m,1}^N$ against the ODE", "L-F2: q_m,1^N against the ODE"),
    (r"R-T1: Table 1 (c.o.s.-ALIS, $\lambda = 0.9$)", "R-T1: Table 1 (c.o.s.-ALIS, λ = 0.9)"),
    (r"R-X-eps: (the $\epsilon$ example)", "R-X-eps: (the ε example)"),
    ("plain text stays", "plain text stays"),
])
def test_titles_in_the_outline_footers_tabs_and_search_carry_no_tex(title, plain):
    from qtheory.display import plain_math

    assert plain_math(title) == plain


def test_tables_write_minus_signs_not_hyphens():
    from qtheory.display import html_math, true_minus

    assert true_minus("-1.94 and [-0.5, 1], +1.7 / -0.6, -.5") == "\u22121.94 and [\u22120.5, 1], +1.7 / \u22120.6, \u2212.5"
    # hyphens that are not signs stay: words, ranges, dates, exponents, subtraction with spaces
    for text in ("lengths-1-3", "x-2", "1e-5", "2026-12-06", "a - b", "c.o.s.-ALIS", "p_{-1}"):
        assert true_minus(text) == text, text
    assert "\u22122.46" in html_table([{"z": -2.46}], {"$z$": lambda r: f"{r['z']:.2f}"})
    assert html_math("$-x$") == "\\(-x\\)"
