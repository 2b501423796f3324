"""One plotting style for every figure of the book.

Figures are drawn from the saved result tables. The palette is colour-blind safe
(Okabe-Ito) and readable in light and dark themes: figures have an opaque white background, so a
dark theme shows them as light cards rather than dark lines on a dark page.
"""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["PALETTE", "use_style", "ci_band", "new_figure", "declutter_log_ticks"]

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
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "lines.linewidth": 1.6,
}


def use_style() -> None:
    """Apply the companion's matplotlib style globally."""
    plt.rcParams.update(_RC)


def new_figure(ncols: int = 1, nrows: int = 1, **kwargs):
    """``plt.subplots`` with the companion's style applied."""
    use_style()
    kwargs.setdefault("figsize", (4.2 * ncols + 0.8, 3.6 * nrows))
    kwargs.setdefault("constrained_layout", True)
    return plt.subplots(nrows, ncols, squeeze=False, **kwargs)


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
