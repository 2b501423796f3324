"""One plotting style for every figure of the book.

Figures are drawn from the saved result tables. The palette is colour-blind safe
(Okabe-Ito) and readable in light and dark themes: figures have an opaque white background, so a
dark theme shows them as light cards rather than dark lines on a dark page.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
from typing import Callable, NamedTuple

import matplotlib

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["PALETTE", "COLUMN_WIDTH", "DISPLAY_DPI", "MIN_FONT_PX", "MIN_TICK_PX", "INTERVALS", "use_style",
           "ci_band", "new_figure", "figure_legend", "smallest_font", "rendered_font_px", "declutter_log_ticks",
           "interval_words", "mark_interval", "figure_problems", "figure_problems_started", "series_visibility",
           "SeriesVisibility", "MIN_SHOWN_FRACTION", "MIN_MARKER_FRACTION", "coinciding_curves", "coincide_sentence",
           "with_coincidences", "code_like"]

#: the book's text column is 688 CSS px wide; figures are drawn at this width (inches) ...
COLUMN_WIDTH = 6.9
#: ... and shown at this many CSS px per inch, so that a point of text is the same size in
#: every figure: 10 pt renders at 10 / 72 * 100 = 13.9 px (see ``ResultWriter.save_figure``)
DISPLAY_DPI = 100
#: smallest rendered text height (CSS px) a figure may have; the browser check tests it
MIN_FONT_PX = 9.0

#: Okabe-Ito colour-blind safe palette
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
#: the palette's colours a thin line shows against a white background (the yellow has a contrast
#: of 1.3 with white: a legend's glyph in it shows only as an outline)
LINE_COLOURS = [c for c in PALETTE if c != "#F0E442"]

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


#: smallest rendered height (CSS px) of a tick label at the book's column width
MIN_TICK_PX = 10.0

#: the intervals a figure may draw, and the one wording of each in captions
INTERVALS = {"ci95": "95% CI", "se1": "±1 SE"}


def interval_words(kind: str) -> str:
    """How a caption names an interval the figure draws: ``"95% CI"`` or ``"±1 SE"`` (:data:`INTERVALS`)."""
    try:
        return INTERVALS[kind]
    except KeyError:
        raise ValueError(f"`kind` must be one of {', '.join(INTERVALS)} (got {kind!r})") from None


def mark_interval(fig, kind: str) -> None:
    """Record that `fig` draws intervals of `kind`; its caption must then name them with
    :func:`interval_words` (and no other kind): :func:`figure_problems` checks it."""
    interval_words(kind)
    kinds = set(getattr(fig, "_qtheory_intervals", set()))
    kinds.add(kind)
    fig._qtheory_intervals = kinds


def ci_band(ax, x, mean, low, high, *, label=None, color=None, marker=None, kind: str = "ci95", **kwargs):
    """Plot a mean curve with a shaded band from `low` to `high`; returns the line.

    `kind` says what the band is (:data:`INTERVALS`: a 95% confidence interval by default),
    recorded on the figure for the caption check.
    """
    mark_interval(ax.figure, kind)
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
    return _log_label(x)


def _log_label(x: float, pos=None) -> str:
    """A log tick label as a reader writes it: 0.05, 2, 500 between 0.01 and 10⁴, else in powers of ten."""
    if not np.isfinite(x) or x <= 0:
        return ""
    exponent = int(np.floor(np.log10(x) + 1e-9))
    mantissa = x / 10.0**exponent
    if -2 <= exponent <= 3:
        return rf"$\mathdefault{{{x:.{max(-exponent, 0)}f}}}$"
    if abs(mantissa - 1) < 1e-6:
        return rf"$\mathdefault{{10^{{{exponent}}}}}$"
    return rf"$\mathdefault{{{mantissa:.2g}\times10^{{{exponent}}}}}$"


def declutter_log_ticks(fig) -> None:
    """On every log-scaled axis of `fig`, keep minor tick labels at 2 and 5 times a power of 10,
    and across about a decade or less write the labels as plain numbers between 0.01 and 10⁴.

    Matplotlib labels every minor tick of a log axis that spans less than about a
    decade, and labels such as ``3x10^-3`` and ``4x10^-3`` then overlap.
    :meth:`qtheory.results.ResultWriter.save_figure` applies this to every figure.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    for ax in fig.get_axes():
        for axis, scale, limits in ((ax.xaxis, ax.get_xscale(), ax.get_xlim()),
                                    (ax.yaxis, ax.get_yscale(), ax.get_ylim())):
            if scale == "log":
                low, high = sorted(limits)
                # across more than about a decade the major labels (powers of ten) say enough,
                # and minor labels at 2 and 5 would crowd them
                few = low > 0 and np.log10(high / low) <= 1.2
                axis.set_minor_formatter(FuncFormatter(_sparse_minor_label) if few else NullFormatter())
                if few:                       # 0.5, 1, 2 rather than 5x10^-1, 10^0, 2x10^0
                    axis.set_major_formatter(FuncFormatter(_log_label))


def _undrawn_tick_labels(fig) -> set:
    """Tick labels matplotlib keeps but does not draw: those of ticks outside the view interval."""
    out = set()
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = high - low
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                loc = tick.get_loc()
                if loc is None or not (low - 1e-9 * abs(span) <= loc <= high + 1e-9 * abs(span)):
                    out.update({tick.label1, tick.label2})
    return out


def _texts(fig, renderer, undrawn: set):
    """Visible, non-empty text artists of `fig` that are drawn (not in `undrawn`), with their
    window extents."""
    from matplotlib.text import Text

    out = []
    for t in fig.findobj(Text):
        if t in undrawn or not t.get_visible() or not t.get_text().strip():
            continue
        try:
            box = t.get_window_extent(renderer)
        except (RuntimeError, ValueError):
            continue
        if box.width > 0 and box.height > 0:
            out.append((t, box))
    return out


def _overlap(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0.0) * max(h, 0.0)


def _flatten(items) -> list:
    """Artists of containers (errorbar and bar containers are tuples of artists and tuples)."""
    out = []
    for a in items:
        if isinstance(a, (tuple, list)):
            out += _flatten(a)
        elif a is not None:
            out.append(a)
    return out


def _draws_intervals(fig) -> bool:
    """Whether `fig` draws intervals of a kind not marked: error bars or bands (fill_between)."""
    from matplotlib.collections import PolyCollection
    from matplotlib.container import ErrorbarContainer

    for ax in fig.get_axes():
        if any(isinstance(c, ErrorbarContainer) for c in ax.containers):
            return True
        if any(type(c).__name__ in ("FillBetweenPolyCollection",) or
               (isinstance(c, PolyCollection) and type(c) is PolyCollection) for c in ax.collections):
            return True
    return False


#: a labelled series does not show when less than this fraction of the pixels it colours on its own
#: changes the figure: other artists cover it (lines that merge with others where they agree, as
#: trajectories converging to one point, keep 20% or more in the book's figures)
MIN_SHOWN_FRACTION = 0.1
#: a marker hides when less than this fraction of its own pixels changes the figure (crosses under
#: filled dots of the same size keep about a quarter); a series whose markers mostly hide is flagged
MIN_MARKER_FRACTION = 0.5
#: two renderings differ at a pixel when a colour channel differs by more than this (of 255): less is
#: antialiasing at the edge of another artist
_PIXEL_TOLERANCE = 24


class SeriesVisibility(NamedTuple):
    """How much of a labelled series shows in its figure (:func:`series_visibility`)."""

    #: fraction of the series' own pixels that change the figure (about 1 when nothing covers it)
    shown: float
    #: markers drawn inside the axes, and those that keep less than :data:`MIN_MARKER_FRACTION` of their pixels
    markers: int
    hidden_markers: int


def _data_artists(fig) -> list:
    """Every visible artist that draws data on an axis of `fig` (lines, collections, patches, images)."""
    out = []
    for ax in fig.get_axes():
        out += list(ax.lines) + list(ax.collections) + list(ax.patches) + list(ax.images)
    return [a for a in out if a.get_visible()]


def _series(fig) -> dict[str, list]:
    """Labelled series of `fig` (legend labels, not starting with "_"), each the visible artists that
    draw it, over every axis (error bar containers opened)."""
    groups: dict[str, list] = {}
    for ax in fig.get_axes():
        for artist in list(ax.lines) + list(ax.collections) + list(ax.patches) + list(ax.containers):
            label = artist.get_label() if hasattr(artist, "get_label") else ""
            if label and not label.startswith("_") and getattr(artist, "get_visible", lambda: True)():
                groups.setdefault(label, []).append(artist)
    return {label: [p for p in _flatten(artists) if hasattr(p, "set_visible") and p.get_visible()]
            for label, artists in groups.items()}


def _render(canvas, hidden: list) -> np.ndarray:
    """RGB pixels of the canvas' figure drawn with the artists `hidden` hidden."""
    for a in hidden:
        a.set_visible(False)
    try:
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].astype(np.int16)
    finally:
        for a in hidden:
            a.set_visible(True)


def _differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).max(axis=-1) > _PIXEL_TOLERANCE


def _marker_windows(parts, dpi: float):
    """(x, y, half-width) in display pixels of every marker the artists `parts` draw."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D

    for p in parts:
        if isinstance(p, Line2D) and p.get_marker() not in (None, "", "None", " ", "none"):
            xy = p.get_transform().transform(np.asarray(p.get_xydata(), dtype=float))
            every = p.get_markevery()
            if isinstance(every, (int, np.integer)) and not isinstance(every, bool):
                xy = xy[::every]
            half = p.get_markersize() * dpi / 72.0 / 2.0
            for x, y in xy:
                yield x, y, half
        elif isinstance(p, PathCollection) and len(p.get_offsets()):
            xy = p.get_offset_transform().transform(np.asarray(p.get_offsets(), dtype=float))
            sizes = np.resize(p.get_sizes(), len(xy)) if len(p.get_sizes()) else np.full(len(xy), 36.0)
            for (x, y), area in zip(xy, sizes):
                yield x, y, np.sqrt(area) * dpi / 72.0 / 2.0


#: the colour a series is drawn in while its visibility is measured: one no palette colour is near, so
#: that a series over or under another of its own colour is judged as if it had a colour of its own
_PROBE_COLOUR = (1.0, 0.0, 1.0)


class _Probe:
    """Draw the artists `parts` in :data:`_PROBE_COLOUR` (keeping transparency and absent faces)
    inside a ``with`` block; their colours are restored after it."""

    def __init__(self, parts):
        self.parts = parts

    def __enter__(self):
        from matplotlib.collections import Collection
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        self.saved = []
        for p in self.parts:
            if isinstance(p, Line2D):
                state = (p.get_color(), p.get_markerfacecolor(), p.get_markeredgecolor(), p.get_markerfacecoloralt())
                self.saved.append((p, state))
                p.set_color(_PROBE_COLOUR)
                for get, put in ((p.get_markerfacecolor, p.set_markerfacecolor),
                                 (p.get_markeredgecolor, p.set_markeredgecolor)):
                    if not _absent(get()):
                        put(_PROBE_COLOUR)
            elif isinstance(p, (Collection, Patch)):
                state = (np.array(p.get_facecolor(), dtype=float, copy=True),
                         np.array(p.get_edgecolor(), dtype=float, copy=True))
                self.saved.append((p, state))
                p.set_facecolor(_probe_rgba(state[0]))
                p.set_edgecolor(_probe_rgba(state[1]))
        return self

    def __exit__(self, *exc):
        from matplotlib.lines import Line2D

        for p, state in self.saved:
            if isinstance(p, Line2D):
                p.set_color(state[0])
                p.set_markerfacecolor(state[1])
                p.set_markeredgecolor(state[2])
                p.set_markerfacecoloralt(state[3])
            else:
                p.set_facecolor(state[0])
                p.set_edgecolor(state[1])
        return False


def _absent(colour) -> bool:
    """Whether a matplotlib colour draws nothing ('none' or fully transparent)."""
    from matplotlib.colors import to_rgba

    return isinstance(colour, str) and colour.lower() == "none" or to_rgba(colour)[3] == 0


def _probe_rgba(rgba: np.ndarray) -> np.ndarray:
    """`rgba` (n x 4) with every colour that draws replaced by the probe colour, alpha kept."""
    rgba = np.atleast_2d(rgba).copy()
    if rgba.size:
        drawn = rgba[:, 3] > 0
        rgba[drawn, :3] = _PROBE_COLOUR
    return rgba


def _overlaps(a, b) -> bool:
    """Whether two display boxes share an area (touching edges do not count)."""
    return min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0)


class _Frozen:
    """Inside a ``with`` block a draw of `fig` repeats the layout of its last draw instead of
    computing it again: the layout engine is off (constrained layout takes about half of a draw),
    each axis draws the ticks, labels and offset text its last draw placed (locating and formatting
    the ticks takes a quarter) and the titles stay where they are. The figure must be drawn just
    before, with a layout that has settled, and only the visibility and colours of data artists may
    change inside the block: then every draw gives the pixels a full draw would. Afterwards the
    figure draws as before."""

    def __init__(self, fig):
        self.fig = fig
        self.engine = fig.get_layout_engine()
        self.patched = []

    def __enter__(self):
        if self.engine is not None:
            self.fig.set_layout_engine("none")
        for ax in self.fig.get_axes():
            for axis in getattr(ax, "_axis_map", {}).values():
                self._patch(axis, "draw", _drawn_as_before(axis, axis._update_ticks()))
            self._patch(ax, "_update_title_position", lambda renderer: None)
        return self

    def _patch(self, obj, name, func):
        setattr(obj, name, func)          # an instance attribute: the class' method is untouched
        self.patched.append((obj, name))

    def __exit__(self, *exc):
        for obj, name in self.patched:
            delattr(obj, name)
        if self.engine is not None:
            self.fig.set_layout_engine(self.engine)
        return False


def _drawn_as_before(axis, ticks):
    """A draw of `axis` that repeats its last one: the `ticks` it drew, its label and offset text
    where and as they were (:class:`_Frozen`)."""

    def draw(renderer):
        if not axis.get_visible():
            return
        for tick in ticks:
            tick.draw(renderer)
        axis.label.draw(renderer)
        axis.offsetText.draw(renderer)

    return draw


class _OnlyAxes:
    """Inside a ``with`` block only the axes `keep` of `fig` are drawn (the others hidden)."""

    def __init__(self, fig, keep):
        self.hidden = [ax for ax in fig.get_axes() if ax not in keep and ax.get_visible()]

    def __enter__(self):
        for ax in self.hidden:
            ax.set_visible(False)
        return self

    def __exit__(self, *exc):
        for ax in self.hidden:
            ax.set_visible(True)
        return False


def series_visibility(fig, canvas=None, *, drawn: np.ndarray | None = None) -> dict[str, SeriesVisibility]:
    """How much of each labelled series of `fig` shows (:class:`SeriesVisibility`).

    The series is drawn in a colour of its own (:data:`_PROBE_COLOUR`), so that an artist of the
    same colour above or below it neither hides nor reveals it. Its own pixels are those that
    change when it is hidden from a figure without any other data artist; those that show are its
    own pixels that change when it is hidden from the whole figure. A series that colours no pixel
    at all (empty, or outside the axis limits) is left out. Each marker is judged the same way
    inside a square of the marker's size around its centre.
    `canvas` is an Agg canvas of `fig` (default: a new one); `drawn`, the pixels of its last draw
    (:func:`_render` with nothing hidden), saves a draw.

    The pixels are those of full draws, at a fraction of their cost: once the layout has settled,
    the figure is drawn without computing its layout and ticks again (:class:`_Frozen`), and for
    each series only the axes whose extents (tick labels and every artist included) overlap those
    of the axes drawing it: the others can neither cover nor reveal any of its pixels, and both
    drawings of each comparison leave them out.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    original = fig.canvas
    own_canvas = canvas is None
    canvas = FigureCanvasAgg(fig) if own_canvas else canvas
    out = {}
    try:
        everything = _data_artists(fig)
        # the first draws of a figure may still move its axes (constrained layout settles over a few
        # draws); pixels are compared only once two draws in a row agree
        previous = _render(canvas, []) if drawn is None else drawn
        for _ in range(4):
            current = _render(canvas, [])
            if np.array_equal(previous, current):
                break
            previous = current
        renderer = canvas.get_renderer()
        extent = {ax: ax.get_tightbbox(renderer) for ax in fig.get_axes() if ax.get_visible()}
        bare: dict[frozenset, np.ndarray] = {}
        with _Frozen(fig):
            for label, parts in _series(fig).items():
                ids = set(map(id, parts))
                mine = {p.axes for p in parts if getattr(p, "axes", None) in extent}
                keep = frozenset(ax for ax, box in extent.items()
                                 if ax in mine or any(_overlaps(box, extent[a]) for a in mine)) \
                    if len(mine) == len({getattr(p, "axes", None) for p in parts}) else frozenset(extent)
                with _OnlyAxes(fig, keep):
                    if keep not in bare:
                        bare[keep] = _render(canvas, everything)
                    shows, own = _shown_pixels(canvas, parts, ids, everything, bare[keep])
                if own is None:
                    continue
                out[label] = _judge(parts, fig.dpi, own, shows)
        if own_canvas:
            canvas.draw()
    finally:
        if own_canvas:
            fig.set_canvas(original)
    return out


def _shown_pixels(canvas, parts, ids, everything, bare):
    """(pixels of the series `parts` that show, its own pixels) from three draws, or (None, None)
    when it colours no pixel on its own."""
    without = _render(canvas, parts)
    with _Probe(parts):
        own = _differs(_render(canvas, [a for a in everything if id(a) not in ids]), bare)
        if not own.any():
            return None, None
        return own & _differs(_render(canvas, []), without), own


def _judge(parts, dpi: float, own: np.ndarray, shows: np.ndarray) -> SeriesVisibility:
    height, width = own.shape[:2]
    markers = hidden = 0
    for x, y, half in _marker_windows(parts, dpi):
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        half = max(half, 1.5)
        rows = slice(max(int(height - y - half), 0), max(int(np.ceil(height - y + half)), 0))
        cols = slice(max(int(x - half), 0), max(int(np.ceil(x + half)), 0))
        mine = int(own[rows, cols].sum())
        if mine:
            markers += 1
            hidden += shows[rows, cols].sum() < MIN_MARKER_FRACTION * mine
    return SeriesVisibility(shown=float(shows.sum() / own.sum()), markers=markers, hidden_markers=int(hidden))


#: a heat map hides its structure when, of the cells holding at least this fraction of its largest
#: value, more than half are drawn in the lowest tenth of its colour scale (a linear scale over
#: values that span decades: the mass is a few bright pixels on a uniform field)
HEATMAP_VISIBLE = 1e-3


#: text outside math that reads like code: snake_case names, key=value pairs, parameter values such
#: as lengths-0-2
_CODE_LIKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[A-Za-z]\w*=[\w.]+|\b[a-z]+-\d+-\d+\b")


def code_like(text: str) -> str | None:
    """The part of a figure's `text` (outside ``$...$``) that reads like code, or None."""
    plain = re.sub(r"\$[^$]*\$", " ", text)
    found = _CODE_LIKE.search(plain)
    return found.group(0) if found else None


#: a log axis spanning more decades than this has tick labels no reader can place (from 10⁶ to 10⁻²⁴²)
MAX_LOG_DECADES = 24


def _colour_scale_problems(fig, renderer) -> list[str]:
    """Heat maps whose colour scale hides their data (:data:`HEATMAP_VISIBLE`), log axes spanning
    more than :data:`MAX_LOG_DECADES` decades, and colour bars taller than the panel whose colours
    they explain."""
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage

    problems = []
    for artist in fig.findobj(lambda a: isinstance(a, (AxesImage, QuadMesh))):
        data = np.ma.masked_invalid(np.ma.asarray(artist.get_array(), dtype=float))
        if data.count() == 0 or data.min() < 0 or not data.max() > 0:
            continue
        values = data.compressed()
        held = values[values >= HEATMAP_VISIBLE * values.max()]
        scaled = np.ma.filled(artist.norm(held), 0.0)
        share = float(np.mean(scaled < 0.1))
        if share > 0.5:
            title = artist.axes.get_title() if artist.axes is not None else ""
            problems.append(f"the heat map{f' {title!r}' if title else ''} draws {100 * share:.0f}% of its cells "
                            f"above {HEATMAP_VISIBLE:g} of its largest value in the lowest tenth of its colour "
                            "scale (a log or power scale shows them)")
    for ax in fig.get_axes():
        for name, scale, limits in (("x", ax.get_xscale(), ax.get_xlim()), ("y", ax.get_yscale(), ax.get_ylim())):
            lo, hi = sorted(abs(v) for v in limits)
            decades = float(np.log10(hi) - np.log10(lo)) if lo > 0 else 0.0
            if scale == "log" and decades > MAX_LOG_DECADES:
                problems.append(f"the {name} axis of {ax.get_title()!r} spans {decades:.0f} decades (more "
                                f"than {MAX_LOG_DECADES}): plot -log q on a log axis, or fit the axis to the data")
        bar = getattr(ax, "_colorbar", None)
        panel = getattr(getattr(bar, "mappable", None), "axes", None)
        if bar is None or panel is None:
            continue
        tall, short = ax.get_window_extent(renderer).height, panel.get_window_extent(renderer).height
        if tall > 1.05 * short:
            problems.append(f"a colour bar is {tall / short:.2f} times as tall as its panel "
                            f"{panel.get_title()!r} (imshow(..., aspect='auto') or a shorter figure)")
    return problems


#: words by which a caption says what a figure's colours mean ("blue: locally stable; orange: not")
COLOUR_WORDS = re.compile(r"\b(blue|orange|green|red|purple|brown|pink|grey|gray|olive|cyan|yellow|black|white|"
                          r"colou?rs?|colou?red|shaded?)\b", re.I)


def _colour_key_problems(fig, legends, caption: str | None) -> list[str]:
    """Bar charts whose bars come in two or more colours with nothing that says what the colours
    mean: no legend, no colour bar, and a caption without a colour word (:data:`COLOUR_WORDS`).
    (U-F3's columns, one colour per class, had none.)"""
    from matplotlib.colors import to_hex
    from matplotlib.container import BarContainer

    if legends or any(getattr(ax, "_colorbar", None) is not None for ax in fig.get_axes()):
        return []
    if caption is not None and COLOUR_WORDS.search(re.sub(r"\$[^$]*\$", " ", caption)):
        return []
    colours = {to_hex(bar.get_facecolor()) for ax in fig.get_axes() for c in ax.containers
               if isinstance(c, BarContainer) for bar in c if bar.get_visible() and bar.get_height() != 0}
    if len(colours) < 2:
        return []
    return [f"bars in {len(colours)} colours, and neither a legend nor the caption says what each colour means"]


#: least contrast (WCAG ratio) between a legend entry's glyph and the legend's background: below it
#: the glyph shows only its outline (a white dashed line with a black stroke read as "==:")
MIN_GLYPH_CONTRAST = 1.5


def _contrast(rgb1, rgb2) -> float:
    """The WCAG contrast ratio of two sRGB colours (1 for equal colours, 21 for black on white)."""
    def luminance(rgb):
        c = np.asarray(rgb[:3], dtype=float)
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])
    hi, lo = sorted((luminance(rgb1), luminance(rgb2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _legend_glyph_problems(fig, legends) -> list[str]:
    """Legend entries whose line (or, for markers alone, marker face) is drawn in nearly the colour of
    the legend's background (:data:`MIN_GLYPH_CONTRAST`): the reader sees an outline, not the line."""
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D

    problems = []
    for leg in legends:
        face = to_rgba(leg.get_frame().get_facecolor())
        background = face if face[3] > 0 else to_rgba(fig.get_facecolor())
        for handle, text in zip(leg.legend_handles, leg.get_texts()):
            if not isinstance(handle, Line2D) or not handle.get_visible():
                continue
            lined = handle.get_linestyle() not in ("None", "none", " ", "")
            colour = to_rgba(handle.get_color() if lined else handle.get_markerfacecolor())
            if colour[3] > 0 and _contrast(colour, background) < MIN_GLYPH_CONTRAST:
                problems.append(f"the legend's glyph for '{text.get_text()[:40]}' is drawn in the colour of the "
                                "legend's background: only its outline shows (label the line on the panel, or "
                                "give the legend a glyph a reader sees)")
    return problems


#: a legend covers data when more than this many pixels of lines, markers, bands or patches lie
#: inside its box (with the book's frameless legends, data under a legend run through its text) ...
LEGEND_DATA_PX = 25
#: ... and they are more than this fraction of the box (a stray antialiased edge is not a covered curve)
LEGEND_DATA_FRACTION = 0.02


def _legends_over_data(fig, canvas, legends) -> list[str]:
    """Legends of `fig` whose box lies over drawn data: the pixels the data artists colour with
    every legend hidden, counted inside each legend's box."""
    if not legends:
        return []
    with_data = _render(canvas, legends)
    bare = _render(canvas, legends + _data_artists(fig))
    drawn = _differs(with_data, bare)
    renderer = canvas.get_renderer()
    height, width = drawn.shape
    problems = []
    for leg in legends:
        box = leg.get_window_extent(renderer)
        x0, x1 = max(int(np.floor(box.x0)), 0), min(int(np.ceil(box.x1)), width)
        y0, y1 = max(height - int(np.ceil(box.y1)), 0), min(height - int(np.floor(box.y0)), height)
        if x1 <= x0 or y1 <= y0:
            continue
        covered = int(drawn[y0:y1, x0:x1].sum())
        if covered > max(LEGEND_DATA_PX, LEGEND_DATA_FRACTION * (x1 - x0) * (y1 - y0)):
            where = f" of {leg.axes.get_title()!r}" if leg.axes is not None and leg.axes.get_title() else ""
            problems.append(f"the legend{where} lies over drawn data ({covered} px of lines, markers or patches "
                            "inside its box): place it outside the panels (plotting.figure_legend) or where "
                            "the data leave room")
    return problems


#: the lines of a panel "move" over the x range in which they make their changes (from 2% to 98% of
#: each line's accumulated vertical travel on the page); a panel whose lines move over less than this
#: share of its x axis leaves the rest of the axis empty of information (L-F3: t < 3 on a 0-30 axis)
MIN_MOVING_SHARE = 0.2


def _moving_share(ax) -> tuple[float, float, float] | None:
    """(share of the x axis, first x, last x) over which the lines of `ax` move (:data:`MIN_MOVING_SHARE`),
    or None when no line both moves and runs along the x axis (5 or more points, x increasing)."""
    box = ax.get_window_extent()
    starts, ends = [], []
    for line in ax.lines:
        if not line.get_visible():
            continue
        x, y = (np.asarray(v, dtype=float) for v in line.get_data())
        keep = np.isfinite(x) & np.isfinite(y)
        x, y = x[keep], y[keep]
        if x.size < 5 or np.any(np.diff(x) < 0):
            continue
        px = ax.transData.transform(np.column_stack([x, y]))
        travel = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(px[:, 1])))])
        if travel[-1] < 3.0:                                  # flat on the page: moves nowhere
            continue
        starts.append(px[np.searchsorted(travel, 0.02 * travel[-1]), 0])
        ends.append(px[min(np.searchsorted(travel, 0.98 * travel[-1]), x.size - 1), 0])
    if not starts or box.width <= 0:
        return None
    first, last = min(starts), max(ends)
    back = ax.transData.inverted()
    lo, hi = back.transform([(first, box.y0), (last, box.y0)])[:, 0]
    return (last - first) / box.width, float(lo), float(hi)


#: a panel lower than this share of its width, or than :data:`MIN_PANEL_PX` CSS px at the column
#: width, flattens its curves into nearly straight lines (L-F3's first panels: 6.9 by 1.1 inches)
MIN_PANEL_ASPECT = 0.25
MIN_PANEL_PX = 80.0


def _flat_panel_problems(fig, column_px: float = 688.0) -> list[str]:
    """Panels of `fig` that draw data and are flatter than :data:`MIN_PANEL_ASPECT` or lower than
    :data:`MIN_PANEL_PX` (colour bars are left out: they are narrow by design)."""
    width_in = fig.get_size_inches()[0]
    css_per_px = DISPLAY_DPI * min(1.0, column_px / (width_in * DISPLAY_DPI)) / fig.dpi
    problems = []
    for ax in fig.get_axes():
        if getattr(ax, "_colorbar", None) is not None or not ax.get_visible():
            continue
        if not (ax.lines or ax.collections or ax.images or ax.patches):
            continue
        box = ax.get_window_extent()
        high = box.height * css_per_px
        if box.width > 0 and (box.height < MIN_PANEL_ASPECT * box.width or high < MIN_PANEL_PX):
            problems.append(f"the panel {ax.get_title()!r} is {high:.0f} px high and {box.width * css_per_px:.0f} px "
                            f"wide at the column width (at least {MIN_PANEL_PX:g} px and a quarter of its width): "
                            "a taller figure, or fewer panels per row")
    return problems


def _moving_range_problems(fig) -> list[str]:
    """Panels of `fig` whose lines move over less than :data:`MIN_MOVING_SHARE` of the x axis."""
    problems = []
    for ax in fig.get_axes():
        found = _moving_share(ax)
        if found is not None and found[0] < MIN_MOVING_SHARE:
            share, lo, hi = found
            problems.append(f"the lines of {ax.get_title()!r} move only for x from {lo:.3g} to {hi:.3g}, "
                            f"{100 * share:.0f}% of the x axis: fit the axis to where they move, or use a log "
                            "or symlog axis")
    return problems


#: two labelled curves coincide when, at every x they share, they are drawn within this fraction
#: of their panel's height of each other: a reader sees one curve
COINCIDE_FRACTION = 0.015
#: words a caption uses to say that curves coincide
COINCIDE_WORDS = ("coincide", "indistinguishable", "on top of each other")


def _says_coincide(caption: str) -> bool:
    """Whether `caption` says that curves coincide (:data:`COINCIDE_WORDS`)."""
    return any(w in caption.lower() for w in COINCIDE_WORDS)


def coincide_sentence(fig, caption: str) -> str:
    """The sentence :meth:`qtheory.results.ResultWriter.save_figure` adds to `caption` when
    labelled curves of `fig` coincide (:func:`coinciding_curves`) and the caption does not say so
    already (:data:`COINCIDE_WORDS`): which curves, grouped, and in which panels. Empty otherwise.

    Curves are grouped as drawn, not by label: when several curves of a panel share a label (one
    "ODE (3.7)" curve per server type), each coincides with its own partners only, and a shared
    label does not join their groups (L-F1's caption said that all three types' curves coincided)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if _says_coincide(caption) or not any(_same_x_pairs(ax) for ax in fig.get_axes()):
        return ""                                       # no pair to draw the figure for
    original = fig.canvas
    try:
        FigureCanvasAgg(fig).draw()                     # the limits and layout the book shows
        pairs = _coinciding_lines(fig)
    finally:
        fig.set_canvas(original)
    groups: dict[str, list[list]] = {}                  # per panel: its groups of coinciding curves
    for title, (a, line_a), (b, line_b) in pairs:
        panel = groups.setdefault(title, [])
        joined = [g for g in panel if any(line in (line_a, line_b) for _, line in g)]
        merged = [x for g in joined for x in g] + [x for x in ((a, line_a), (b, line_b))
                                                   if not any(x[1] is line for g in joined for _, line in g)]
        panel[:] = [g for g in panel if g not in joined] + [merged]
    where: dict[tuple, list] = {}
    for title, panel in groups.items():
        for group in panel:
            labels = tuple(dict.fromkeys(label for label, _ in group))
            if len(labels) > 1:
                where.setdefault(labels, []).append(title)
    if not where:
        return ""

    def panels(titles) -> str:
        shown = list(dict.fromkeys(t for t in titles if t))
        return f"{'panel' if len(shown) == 1 else 'panels'} {', '.join(shown)}" if shown else ""

    if len(where) == 1:
        (labels, titles), = where.items()
        names = ", ".join(f"‘{x}’" for x in labels[:-1]) + f" and ‘{labels[-1]}’"
        return f" At this scale these curves coincide: {names}" + (f" ({panels(titles)})" if panels(titles) else "") + "."
    # several groups: each coincides with its own members only, said group by group, the panels once
    by_panels: dict[str, list[str]] = {}
    for labels, titles in where.items():
        names = (f"‘{labels[0]}’ with ‘{labels[1]}’" if len(labels) == 2 else
                 ", ".join(f"‘{x}’" for x in labels[:-1]) + f" and ‘{labels[-1]}’")
        by_panels.setdefault(panels(titles), []).append(names)
    if len(by_panels) == 1:
        (where_, groups), = by_panels.items()
        return (" At this scale these groups of curves coincide" + (f" ({where_})" if where_ else "") + ": "
                + "; ".join(groups) + ".")
    return (" At this scale these groups of curves coincide: "
            + "; ".join((f"in {w}, " if w else "") + "; ".join(g) for w, g in by_panels.items()) + ".")


def with_coincidences(fig, caption: str) -> str:
    """`caption` followed by :func:`coincide_sentence` of `fig` (a full stop first where the
    caption has none); `caption` itself when no curves coincide or it says so already."""
    extra = coincide_sentence(fig, caption)
    if not extra:
        return caption
    body = caption.rstrip()
    return (body if body.endswith((".", "!", "?")) else body + ".") + extra


def _labelled_lines(ax) -> list:
    """(label, line) of the labelled curves of `ax`: lines with a legend label, and the data
    line of each labelled error bar container, drawn with a line (markers alone, as a ring around
    a dot, show their agreement by design)."""
    from matplotlib.container import ErrorbarContainer

    out = [(line.get_label(), line) for line in ax.lines
           if line.get_visible() and line.get_label() and not line.get_label().startswith("_")]
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer) and c.lines[0] is not None and c.get_label() \
                and not c.get_label().startswith("_"):
            out.append((c.get_label(), c.lines[0]))
    return [(label, line) for label, line in out if line.get_linestyle() not in ("None", "none", " ", "")]


def _same_x_pairs(ax) -> list:
    """(label, label, mask, line, line) of each pair of labelled curves of `ax` drawn at the same x
    values, with the mask of the points where both are drawn (two or more): the candidates of
    :func:`coinciding_curves`, found from the data alone."""
    lines = _labelled_lines(ax)
    out = []
    for k, (label1, line1) in enumerate(lines):
        x1, y1 = (np.asarray(v, dtype=float) for v in line1.get_data())
        for label2, line2 in lines[k + 1:]:
            x2, y2 = (np.asarray(v, dtype=float) for v in line2.get_data())
            if label1 == label2 or x1.shape != x2.shape or not np.array_equal(x1, x2, equal_nan=True):
                continue
            both = np.isfinite(x1) & np.isfinite(y1) & np.isfinite(y2)
            if ax.get_yscale() == "log":
                both &= (y1 > 0) & (y2 > 0)
            if both.sum() >= 2:
                out.append((label1, label2, both, line1, line2))
    return out


def coinciding_curves(fig) -> list[tuple[str, str, str]]:
    """(panel title, label, label) of each pair of labelled curves of `fig` drawn on top of each
    other (:data:`COINCIDE_FRACTION`): the same x values, at least two of them with both curves
    drawn."""
    return [(title, a, b) for title, (a, _), (b, _) in _coinciding_lines(fig)]


def _coinciding_lines(fig) -> list[tuple[str, tuple, tuple]]:
    """(panel title, (label, line), (label, line)) of each pair of :func:`coinciding_curves`."""
    found = []
    for ax in fig.get_axes():
        height = ax.get_window_extent().height
        for label1, label2, both, line1, line2 in (_same_x_pairs(ax) if height > 0 else []):
            a, b = (ax.transData.transform(np.column_stack([np.asarray(line.get_xdata(), dtype=float)[both],
                                                            np.asarray(line.get_ydata(), dtype=float)[both]]))[:, 1]
                    for line in (line1, line2))
            if np.max(np.abs(a - b)) <= COINCIDE_FRACTION * height:
                found.append((ax.get_title(), (label1, line1), (label2, line2)))
    return found


def figure_problems(fig, caption: str | None = None, *, column_px: float = 688.0) -> list[str]:
    """What would make `fig` hard to read in the book, one sentence each:

    - a tick label rendered below :data:`MIN_TICK_PX` at the column width;
    - two text artists (tick labels, axis labels, titles, legend entries) that overlap, or a
      legend box over an axis label or tick label;
    - a labelled series that does not show (:func:`series_visibility`): less than
      :data:`MIN_SHOWN_FRACTION` of its pixels change the figure, or most of its markers keep less
      than :data:`MIN_MARKER_FRACTION` of theirs (other artists cover them);
    - a heat map whose colour scale hides its data, a log axis over more decades than a reader
      can place, or a colour bar taller than its panel (:func:`_colour_scale_problems`);
    - lines that move over a small part of their x axis only (:data:`MIN_MOVING_SHARE`), or panels
      too flat to show how they move (:data:`MIN_PANEL_ASPECT`, :data:`MIN_PANEL_PX`);
    - a legend box over drawn lines, markers, bands or patches (:data:`LEGEND_DATA_PX`), or
      legend text smaller than the tick labels;
    - two labelled curves drawn on top of each other (:func:`coinciding_curves`) when the caption
      does not say so (:data:`COINCIDE_WORDS`);
    - bars in several colours with no legend, colour bar or colour word in the caption saying what
      the colours mean (:func:`_colour_key_problems`), and a legend glyph drawn in the colour of the
      legend's background (:data:`MIN_GLYPH_CONTRAST`);
    - a caption whose interval wording differs from what the figure draws: the kinds marked
      (:func:`mark_interval`, :func:`interval_words`) must be named; without a mark, a caption
      that names an interval needs error bars or a band in the figure, and names one kind.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.legend import Legend

    problems = []
    original = fig.canvas
    canvas = FigureCanvasAgg(fig)
    try:
        pixels = _render(canvas, [])
        renderer = canvas.get_renderer()
        width_in = fig.get_size_inches()[0]
        undrawn = _undrawn_tick_labels(fig)
        for ax in fig.get_axes():
            for t in ax.get_xticklabels() + ax.get_yticklabels():
                if t not in undrawn and t.get_visible() and t.get_text().strip():
                    px = rendered_font_px(t.get_fontsize(), width_in, column_px)
                    if px < MIN_TICK_PX - 1e-9:
                        problems.append(f"tick label '{t.get_text()}' renders at {px:.1f} px (< {MIN_TICK_PX:g} px)")
                        break
        texts = _texts(fig, renderer, undrawn)
        for k, (t1, b1) in enumerate(texts):
            for t2, b2 in texts[k + 1:]:
                area = _overlap(b1, b2)
                if area > 0.1 * min(b1.width * b1.height, b2.width * b2.height):
                    problems.append(f"texts overlap: '{t1.get_text()[:30]}' and '{t2.get_text()[:30]}'")
        for t, _ in texts:
            code = code_like(t.get_text())
            if code:
                problems.append(f"the label '{t.get_text()[:40]}' reads like code ('{code}'): write it in words "
                                "and math")
        legends = [a for a in fig.findobj(Legend) if a.get_visible()]
        ticks = [t.get_fontsize() for ax in fig.get_axes() for t in ax.get_xticklabels() + ax.get_yticklabels()
                 if t not in undrawn and t.get_visible() and t.get_text().strip()]
        for leg in legends:
            small = [t for t in leg.get_texts() if t.get_visible() and ticks and t.get_fontsize() < min(ticks) - 1e-9]
            if small:
                problems.append(f"the legend's text ('{small[0].get_text()[:30]}', {small[0].get_fontsize():g} pt) is "
                                f"smaller than the tick labels ({min(ticks):g} pt): a reader needs it at least as large")
        for leg in legends:
            box = leg.get_window_extent(renderer)
            own = set(leg.get_texts()) | {leg.get_title()}
            for t, b in texts:
                if t in own:
                    continue
                if _overlap(box, b) > 0.1 * b.width * b.height:
                    problems.append(f"the legend covers '{t.get_text()[:30]}'")
        for label, seen in series_visibility(fig, canvas, drawn=pixels).items():
            if seen.shown < MIN_SHOWN_FRACTION:
                problems.append(f"the series '{label}' does not show: {100 * seen.shown:.0f}% of its pixels are "
                                f"visible (< {100 * MIN_SHOWN_FRACTION:.0f}%; other artists cover it)")
            elif seen.hidden_markers > seen.markers / 2:
                problems.append(f"the markers of the series '{label}' hide under other artists: "
                                f"{seen.hidden_markers} of {seen.markers} keep less than "
                                f"{100 * MIN_MARKER_FRACTION:.0f}% of their pixels")
        problems += _colour_scale_problems(fig, renderer)
        problems += _moving_range_problems(fig)
        problems += _flat_panel_problems(fig, column_px)
        problems += _legends_over_data(fig, canvas, legends)
        problems += _colour_key_problems(fig, legends, caption)
        problems += _legend_glyph_problems(fig, legends)
        if caption is not None:
            for title, label1, label2 in ([] if _says_coincide(caption) else coinciding_curves(fig)):
                where = f" in {title!r}" if title else ""
                problems.append(f"the curves '{label1}' and '{label2}' coincide{where}; the caption does not "
                                f"say so (with one of: {', '.join(COINCIDE_WORDS)})")
            drawn = set(getattr(fig, "_qtheory_intervals", set()))
            named = {kind for kind, words in INTERVALS.items() if words in caption}
            for kind in drawn - named:
                problems.append(f"the figure draws {INTERVALS[kind]} intervals; its caption does not say "
                                f"'{INTERVALS[kind]}'")
            if drawn:
                for kind in named - drawn:
                    problems.append(f"the caption says '{INTERVALS[kind]}', which the figure does not draw")
            elif named and not _draws_intervals(fig):
                problems.append(f"the caption says '{', '.join(INTERVALS[k] for k in named)}', but the figure "
                                "draws no interval")
            elif len(named) > 1:
                problems.append("the caption names two kinds of interval; mark what the figure draws "
                                "(plotting.mark_interval)")
    finally:
        fig.set_canvas(original)
    return problems


def figure_problems_started(fig, caption: str | None = None) -> Callable[[], list[str]]:
    """:func:`figure_problems` of `fig` as it is now, computed while the caller goes on: returns a
    function that waits for the list and returns it.

    The check draws the figure a few dozen times (about a second for a figure of six axes); it
    runs in a forked copy of the process, so that saving this figure and drawing the next one
    proceed on the other core. Where there is no ``fork`` (Windows), with
    ``QTHEORY_FIGURE_CHECKS=inline``, or when the copy fails, the check runs here instead (same
    result: the copy sees the figure as it was at the call, and its draws change only the copy).
    """
    if not hasattr(os, "fork") or os.environ.get("QTHEORY_FIGURE_CHECKS") == "inline":
        problems = figure_problems(fig, caption)
        return lambda: problems
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a process with threads (a Jupyter kernel's) may deadlock:
        # the copy only draws with matplotlib and writes to a pipe, it takes none of their locks
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:                                              # the copy: check, report, leave
        code = 1
        try:
            os.close(read_end)
            warnings.simplefilter("ignore")
            sys.stdout = sys.stderr = open(os.devnull, "w")
            data = json.dumps(figure_problems(fig, caption)).encode()
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)                                    # no atexit handlers, no buffers flushed
    os.close(write_end)
    done: list[list[str]] = []

    def result() -> list[str]:
        if not done:
            with os.fdopen(read_end, "rb") as inp:
                data = inp.read()
            _, status = os.waitpid(pid, 0)
            try:
                problems = json.loads(data) if status == 0 else None
            except ValueError:
                problems = None
            done.append(problems if isinstance(problems, list) else figure_problems(fig, caption))
        return done[0]

    return result
