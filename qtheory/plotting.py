"""One plotting style for every figure of the book.

Figures are drawn from the saved result tables. The palette is colour-blind safe
(Okabe-Ito) and readable in light and dark themes: figures have an opaque white background, so a
dark theme shows them as light cards rather than dark lines on a dark page.
"""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["PALETTE", "use_style", "ci_band", "new_figure"]

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
