"""One plotting style for every figure of the book.

Figures are drawn from the saved result tables. The palette is colour-blind safe
(Okabe-Ito) and readable in light and dark themes: figures have an opaque white background, so a
dark theme shows them as light cards rather than dark lines on a dark page.
"""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["PALETTE", "COLUMN_WIDTH", "DISPLAY_DPI", "MIN_FONT_PX", "use_style", "ci_band", "new_figure",
           "figure_legend", "smallest_font", "rendered_font_px", "declutter_log_ticks"]

#: the book's text column is 688 CSS px wide; figures are drawn at this width (inches) ...
COLUMN_WIDTH = 6.9
#: ... and shown at this many CSS px per inch, so that a point of text is the same size in
#: every figure: 10 pt renders at 10 / 72 * 100 = 13.9 px (see ``ResultWriter.save_figure``)
DISPLAY_DPI = 100
#: smallest rendered text height (CSS px) a figure may have; the browser check tests it
MIN_FONT_PX = 9.0

#: Okabe-Ito colour-blind safe palette
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

_RC = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "legend.frameon": False,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "lines.linewidth": 1.6,
}


def use_style() -> None:
    """Apply the companion's matplotlib style globally."""
    plt.rcParams.update(_RC)


#: height (inches) of one row of panels, by the number of panels in the row
_ROW_HEIGHT = {1: 3.8, 2: 3.1, 3: 2.5}


def new_figure(ncols: int = 1, nrows: int = 1, *, height: float | None = None, **kwargs):
    """``plt.subplots`` with the companion's style, drawn at the width it is shown at.

    The figure is :data:`COLUMN_WIDTH` wide (the text column) whatever the number of
    panels, so that its text renders at the same size as on every other figure;
    `height` (inches) overrides the default of a row height per row. Returns
    ``(fig, axes)`` with `axes` always 2-d (``axes[row][col]``).
    """
    use_style()
    if height is None:
        height = _ROW_HEIGHT.get(ncols, 2.2) * nrows
    kwargs.setdefault("figsize", (COLUMN_WIDTH, height))
    kwargs.setdefault("constrained_layout", True)
    return plt.subplots(nrows, ncols, squeeze=False, **kwargs)


def figure_legend(fig, axes=None, *, ncol: int = 2, **kwargs):
    """One legend for the whole figure, below its panels (legible, and covering no data).

    Handles are collected from `axes` (default: every axis), duplicates by label dropped.
    """
    handles, labels = [], []
    for ax in (fig.get_axes() if axes is None else np.ravel(axes)):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, **kwargs)


def smallest_font(fig) -> float:
    """Size (points) of the smallest visible, non-empty text of `fig` (ticks, labels, legends)."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return float(min(sizes)) if sizes else float("nan")


def rendered_font_px(font_pt: float, width_in: float, column_px: float = 688.0) -> float:
    """Height (CSS px) of `font_pt` text in a figure `width_in` inches wide, shown as the book shows it.

    The book shows a figure at :data:`DISPLAY_DPI` px per inch, shrunk to the column if wider.
    """
    shown = min(width_in * DISPLAY_DPI, column_px)
    return font_pt / 72.0 * DISPLAY_DPI * shown / (width_in * DISPLAY_DPI)


def ci_band(ax, x, mean, low, high, *, label=None, color=None, marker=None, **kwargs):
    """Plot a mean curve with a shaded confidence band; returns the line."""
    x = np.asarray(x)
    (line,) = ax.plot(x, mean, label=label, color=color, marker=marker, **kwargs)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def _sparse_minor_label(x: float, pos=None) -> str:
    """Label a minor log tick only at mantissas 2 and 5 (3, 4, 6-9 would collide)."""
    if not np.isfinite(x) or x <= 0:
        return ""
    exponent = int(np.floor(np.log10(x) + 1e-9))
    mantissa = x / 10.0**exponent
    digit = int(round(mantissa))
    if abs(mantissa - digit) > 1e-6 or digit not in (2, 5):
        return ""
    return rf"$\mathdefault{{{digit}\times10^{{{exponent}}}}}$"


def declutter_log_ticks(fig) -> None:
    """On every log-scaled axis of `fig`, keep minor tick labels at 2 and 5 times a power of 10.

    Matplotlib labels every minor tick of a log axis that spans less than about a
    decade, and labels such as ``3x10^-3`` and ``4x10^-3`` then overlap.
    :meth:`qtheory.results.ResultWriter.save_figure` applies this to every figure.
    """
    from matplotlib.ticker import FuncFormatter

    for ax in fig.get_axes():
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                axis.set_minor_formatter(FuncFormatter(_sparse_minor_label))
