"""Tables for the book: rows of a result shown as an HTML table inside a notebook.

The book renders a notebook's HTML output as it is, so a table made here reads like the
paper's (columns, captions, math left to MathJax) instead of a printed block that is cut
off at the text column's edge.
"""

from __future__ import annotations

import html
from typing import Any, Callable, Mapping, Sequence

from .errors import ParameterError

__all__ = ["html_table", "show_table"]


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
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(f(r)))}</td>" for f in columns.values()) + "</tr>"
                   for r in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (f'<table class="qtheory-table">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def show_table(rows, columns, caption: str | None = None) -> None:
    """Display :func:`html_table` of the arguments in the running notebook."""
    from IPython.display import HTML, display

    display(HTML(html_table(rows, columns, caption)))
