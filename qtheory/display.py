"""Tables for the book: rows of a result shown as an HTML table inside a notebook.

The book renders a notebook's HTML output as it is, so a table made here reads like the
paper's (columns, captions, math left to MathJax) instead of a printed block that is cut
off at the text column's edge.
"""

from __future__ import annotations

import html
import numbers
from dataclasses import dataclass
import re
from typing import Any, Callable, Mapping, Sequence

from .errors import ParameterError

__all__ = ["Table", "number", "fixed", "listing", "html_table", "show_table", "show_values", "html_math", "plain_math",
           "plain_tex", "true_minus", "simple_fraction", "parameter_number"]

_MATH = re.compile(r"\$([^$]+)\$")
#: TeX commands of the titles and captions, and how alt text (plain text) writes them
#: TeX commands written as Unicode in plain text (alt text, tab titles, search results, BibTeX)
_PLAIN = {"lambda": "λ", "mu": "μ", "rho": "ρ", "epsilon": "ε", "varepsilon": "ε", "beta": "β", "gamma": "γ",
          "zeta": "ζ", "alpha": "α", "tau": "τ", "sigma": "σ", "theta": "θ", "delta": "δ", "ell": "ℓ",
          "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "to": "→", "uparrow": "↑",
          "Leftrightarrow": "⇔", "cdot": "·", "times": "×", "sum": "Σ", "ldots": "...", "dots": "...",
          "log": "log", "exp": "exp"}


#: a hyphen used as a minus sign: before a digit, not after a letter, digit, point or hyphen
#: ("-0.5", "[-1, 2]", "+1.7 / -0.6"; not "lengths-1-3", "x-2", "1e-5")
_MINUS = re.compile(r"(?<![\w.\-{^])-(?=\.?\d)")


def true_minus(text: str) -> str:
    """`text` with each hyphen that stands for a minus sign as the minus sign U+2212."""
    return _MINUS.sub("\u2212", text)


def html_math(text: str) -> str:
    """`text` escaped for HTML, its ``$...$`` turned into MathJax's inline ``\\(...\\)``.

    The book's MathJax typesets ``\\(...\\)`` anywhere on a page, HTML outputs included,
    but not ``$...$``, which only the Markdown of a page turns into math.
    """
    parts = _MATH.split(text)  # text, math, text, ...: the minus signs of the text only (TeX sets its own)
    return "".join(html.escape(true_minus(p)) if k % 2 == 0 else f"\\({html.escape(p)}\\)"
                   for k, p in enumerate(parts))


def plain_tex(tex: str) -> str:
    """TeX (no delimiters) as plain text: ``\\lambda = 0.9`` -> ``λ = 0.9``, ``Q_{\\{1,2\\}}`` ->
    ``Q_{1,2}`` (set braces kept, grouping braces dropped, TeX's spaces collapsed)."""
    tex = tex.replace("\\{", "\x00").replace("\\}", "\x01")
    tex = re.sub(r"\\(?:mathrm|mathcal|mathbf|mathit|text|operatorname)\{([^{}]*)\}", r"\1", tex)
    tex = re.sub(r"\\(?:mathrm|mathcal|mathbf|mathit)(?![A-Za-z])", "", tex)
    tex = re.sub(r"\\[,;:! ]", " ", tex)
    tex = re.sub(r"\\([A-Za-z]+)", lambda m: _PLAIN.get(m.group(1), m.group(1)), tex)
    tex = re.sub(r"([_^])\{([^{}]*)\}", lambda m: m.group(1) + ("{" + m.group(2) + "}" if "\x00" in m.group(2)
                                                               else m.group(2)), tex)
    tex = tex.replace("{", "").replace("}", "").replace("\x00", "{").replace("\x01", "}")
    return re.sub(r" {2,}", " ", tex)  # TeX's spaces mean nothing: "\\, q" is one space


def plain_math(text: str) -> str:
    """`text` with its ``$...$`` and ``\\(...\\)`` math written as plain text (:func:`plain_tex`),
    for what shows no mathematics (alt text, a browser tab's title, search results, BibTeX, the
    PDF's outline): ``$\\lambda = 0.9$`` -> ``λ = 0.9``."""
    return re.sub(r"\\\((.*?)\\\)|\$([^$]+)\$", lambda m: plain_tex(m.group(1) or m.group(2) or ""), text).strip()


#: the figure around a table of :func:`html_table` (its caption above the table's scroll box) and that box
TABLE_FIGURE_CLASS, TABLE_SCROLL_CLASS = "qtheory-table-figure", "qtheory-table-scroll"


def html_table(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, Callable[[Mapping[str, Any]], Any]],
               caption: str | None = None) -> str:
    """An HTML table with one line per row and one column per entry of `columns`.

    Parameters
    ----------
    rows : sequence of mappings
        The records to show (e.g. the rows a notebook writes with ``ResultWriter``).
    columns : mapping header -> function of a row
        Each function returns the cell's text (escaped; use ``$...$`` for math).
    caption : str, optional
        Shown above the table (escaped), outside the box in which a table wider than the text
        column scrolls sideways, so that it wraps at the column's width.

    Returns
    -------
    str
        ``<figure>``: the caption (``<figcaption>``), then the table in a ``<div>`` that scrolls.
    """
    if not columns:
        raise ParameterError("`columns` must name at least one column")
    head = "".join(f"<th>{html_math(str(h))}</th>" for h in columns)
    body = "".join("<tr>" + "".join(f"<td>{html_math(str(f(r)))}</td>" for f in columns.values()) + "</tr>"
                   for r in rows)
    table = f'<table class="qtheory-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    # the caption sits above the box that scrolls sideways, not in it: a <caption> is as wide as its
    # table, so on a phone a wide table's caption ran past the screen's edge, cut mid-sentence
    scroll = f'<div class="{TABLE_SCROLL_CLASS}">{table}</div>'
    cap = f"<figcaption>{html_math(caption)}</figcaption>" if caption else ""
    return f'<figure class="{TABLE_FIGURE_CLASS}">{cap}{scroll}</figure>'


def show_table(rows, columns, caption: str | None = None) -> None:
    """Display :func:`html_table` of the arguments in the running notebook."""
    from IPython.display import HTML, display

    display(HTML(html_table(rows, columns, caption)))


def show_values(values: Mapping[str, Any], caption: str | None = None,
                header: tuple[str, str] = ("quantity", "value")) -> None:
    """Display named results as a two-column HTML table (instead of printed lines).

    Parameters
    ----------
    values : mapping name -> value
        One row per entry; the name and the value are shown as text (``$...$`` for
        math), so format numbers before passing them.
    caption : str, optional
        Shown above the table.
    header : (str, str)
        The two column headers.
    """
    if len(header) != 2:
        raise ParameterError(f"`header` must name two columns (got {header!r})")
    show_table(list(values.items()), {header[0]: lambda kv: kv[0], header[1]: lambda kv: kv[1]}, caption)


@dataclass(frozen=True)
class Table:
    """A table an item function prepares for its page: rows, formatted columns and a caption.

    The item function decides what a reader sees (which rows, how each number is formatted);
    the notebook shows it (:meth:`show`, or :meth:`qtheory.results.ItemResult.publish`).
    """

    rows: tuple
    columns: Mapping[str, Callable[[Any], Any]]
    caption: str | None = None

    def __post_init__(self):
        if not self.columns:
            raise ParameterError("`columns` must name at least one column")

    @classmethod
    def from_values(cls, values: Mapping[str, Any], caption: str | None = None,
                    header: tuple[str, str] = ("quantity", "value")) -> "Table":
        """Named results as a two-column table (the item-side :func:`show_values`)."""
        if len(header) != 2:
            raise ParameterError(f"`header` must name two columns (got {header!r})")
        return cls(tuple(values.items()), {header[0]: lambda kv: kv[0], header[1]: lambda kv: kv[1]}, caption)

    def html(self) -> str:
        return html_table(list(self.rows), self.columns, self.caption)

    def show(self) -> None:
        from IPython.display import HTML, display

        display(HTML(self.html()))


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _power(k: int) -> str:
    return "10" + str(k).translate(_SUPERSCRIPT)


def number(x: float | None, se: float | None = None, *, digits: int = 3) -> str:
    """A number as the book writes it: one helper for prose, tables, captions and records.

    Without `se`: `digits` significant digits. With a standard error `se`: the error to two
    significant digits and the value to the same decimal place (``0.16490 ± 0.00039``), so
    the digits shown are the ones the data support (trailing zeros dropped without an error:
    ``0.75``; integers as integers). Values below 10⁻³ or from 10⁵ in size are
    written with a power of ten (``6.58 × 10⁻⁴``, ``(6.58 ± 0.12) × 10⁻⁴``), never as ``6.58e-04``;
    a value that rounds to zero is ``0``, never ``-0.00``; None and NaN are ``—``.
    """
    import math

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "\u2014"
    x = float(x)
    if math.isinf(x):
        return "\u221e" if x > 0 else "\u2212\u221e"
    if se is not None and not math.isnan(float(se)) and float(se) > 0:
        se = float(se)
        scale = max(abs(x), se)
        k = math.floor(math.log10(scale)) if scale > 0 else 0
        power = k if (scale < 1e-3 or scale >= 1e5) else 0
        xs, ss = x / 10 ** power, se / 10 ** power
        place = 1 - math.floor(math.log10(ss))          # decimals that keep two digits of the error
        place = max(place, 0)
        body = f"{_clean(round(xs, place), place)} \u00b1 {_clean(round(ss, place), place)}"
        return f"({body}) \u00d7 {_power(power)}" if power else body
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e5:
        return _clean(x, 0)
    k = math.floor(math.log10(abs(x)))
    if abs(x) < 1e-3 or abs(x) >= 1e5:
        mant = round(x / 10 ** k, digits - 1)
        if abs(mant) >= 10:                               # 9.999 rounded up to 10.0
            mant, k = mant / 10, k + 1
        return f"{_trim(_clean(mant, digits - 1))} \u00d7 {_power(k)}"
    place = max(digits - 1 - k, 0)
    return _trim(_clean(round(x, place), place))


def _trim(text: str) -> str:
    """Trailing zeros of a decimal fraction dropped (``0.750`` -> ``0.75``, ``2.00`` -> ``2``)."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def fixed(value: float, places: int) -> str:
    """`value` with `places` decimals, as the book writes numbers: no negative zero (a value
    that rounds to 0 is "0.000..."), a typographic minus otherwise."""
    if isinstance(places, bool) or not isinstance(places, numbers.Integral) or places < 0:
        raise ParameterError(f"`places` must be a non-negative integer (got {places!r})")
    return _clean(float(value), int(places))


def _clean(value: float, places: int) -> str:
    text = f"{value:.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", "\u2212")


def simple_fraction(x: Any, max_denominator: int = 100) -> str | None:
    """``"7/12"`` when the float `x` is exactly the float of a fraction with a denominator from 2 to
    `max_denominator` and its shortest decimal is long (``0.5833333333333334``); else None (a short
    decimal such as ``0.25`` reads best as it is; integers, NaN and non-floats are None). Written as
    ``-p`` reads it back (:func:`qtheory.presets.parse_value`): a hyphen for a minus sign."""
    import math
    from fractions import Fraction

    if not isinstance(x, float) or not math.isfinite(x) or x.is_integer() or len(repr(x)) <= 8:
        return None
    f = Fraction(x).limit_denominator(max_denominator)
    if f.denominator > 1 and f.numerator / f.denominator == x:
        return f"{f.numerator}/{f.denominator}"
    return None


def parameter_number(x: float, *, digits: int = 4) -> str:
    """A parameter's value as a caption or a table writes it: a simple fraction as a fraction
    (:func:`simple_fraction`: ``7/12``, not ``0.5833333333333334``), any other number through
    :func:`number` with `digits` significant digits (``0.3``, not ``0.30000000000000004``)."""
    fraction = simple_fraction(x)
    return true_minus(fraction) if fraction else number(x, digits=digits)


def listing(values, *, digits: int = 3, conjunction: str = "") -> str:
    """Values as prose: ``0.5, 0.65 and 0.75`` (numbers through :func:`number`), not a Python list."""
    parts = [number(v, digits=digits) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
             for v in values]
    if conjunction and len(parts) > 1:
        return ", ".join(parts[:-1]) + f" {conjunction} " + parts[-1]
    return ", ".join(parts)
