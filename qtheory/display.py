"""Tables for the book: rows of a result shown as an HTML table inside a notebook.

The book renders a notebook's HTML output as it is, so a table made here reads like the
paper's (columns, captions, math left to MathJax) instead of a printed block that is cut
off at the text column's edge.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
import re
from typing import Any, Callable, Mapping, Sequence

from .errors import ParameterError

__all__ = ["Table", "html_table", "show_table", "show_values", "html_math", "plain_math"]

_MATH = re.compile(r"\$([^$]+)\$")
#: TeX commands of the titles and captions, and how alt text (plain text) writes them
_PLAIN = {r"\lambda": "λ", r"\rho": "ρ", r"\mu": "μ", r"\epsilon": "ε", r"\varepsilon": "ε",
          r"\tau": "τ", r"\zeta": "ζ", r"\alpha": "α", r"\ell": "l", r"\le": "≤", r"\ge": "≥",
          r"\neq": "≠", r"\Leftrightarrow": "⇔", r"\times": "×", r"\infty": "∞", r"\sum": "Σ",
          r"\mathcal": "", r"\mathrm": "", r"\,": " ", r"\;": " ", r"\ldots": "...", r"\log": "log"}


def html_math(text: str) -> str:
    """`text` escaped for HTML, its ``$...$`` turned into MathJax's inline ``\\(...\\)``.

    The book's MathJax typesets ``\\(...\\)`` anywhere on a page, HTML outputs included,
    but not ``$...$``, which only the Markdown of a page turns into math.
    """
    return _MATH.sub(lambda m: f"\\({m.group(1)}\\)", html.escape(text))


def plain_math(text: str) -> str:
    """`text` with its ``$...$`` written as plain text (for alt text): ``$\\lambda^*$`` -> ``λ^*``."""
    def one(m):
        tex = m.group(1)
        # escaped braces are kept (set braces), grouping braces dropped
        tex = tex.replace(r"\{", "\0").replace(r"\}", "\1")
        for cmd in sorted(_PLAIN, key=len, reverse=True):
            # a command that ends in a letter must not match the start of a longer one
            tail = r"(?![A-Za-z])" if cmd[-1].isalpha() else ""
            tex = re.sub(re.escape(cmd) + tail, lambda _: _PLAIN[cmd], tex)
        tex = tex.replace("{", "").replace("}", "").replace("\\", "")
        return tex.replace("\0", "{").replace("\1", "}")
    return _MATH.sub(one, text)


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
        Shown above the table (escaped).
    """
    if not columns:
        raise ParameterError("`columns` must name at least one column")
    head = "".join(f"<th>{html_math(str(h))}</th>" for h in columns)
    body = "".join("<tr>" + "".join(f"<td>{html_math(str(f(r)))}</td>" for f in columns.values()) + "</tr>"
                   for r in rows)
    cap = f"<caption>{html_math(caption)}</caption>" if caption else ""
    return (f'<table class="qtheory-table">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


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

    def html(self) -> str:
        return html_table(list(self.rows), self.columns, self.caption)

    def show(self) -> None:
        from IPython.display import HTML, display

        display(HTML(self.html()))
