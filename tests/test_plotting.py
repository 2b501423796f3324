import matplotlib

matplotlib.use("Agg")

from qtheory import plotting  # noqa: E402


def _minor_labels(ax):
    ax.figure.canvas.draw()
    return [t for t in ax.xaxis.get_minorticklabels() if t.get_text()]


def test_log_axes_keep_only_minor_labels_that_do_not_collide():
    fig, axes = plotting.new_figure(1)
    ax = axes[0][0]
    ax.plot([5e-4, 4e-3], [1, 2])
    ax.set_xscale("log")
    crowded = _minor_labels(ax)
    plotting.declutter_log_ticks(fig)
    kept = _minor_labels(ax)
    assert len(crowded) > len(kept) >= 2  # 5e-4 and 2e-3 stay labelled
    assert all(("2\\times" in t.get_text()) or ("5\\times" in t.get_text()) for t in kept)
    boxes = sorted((t.get_window_extent() for t in kept + list(ax.xaxis.get_majorticklabels())
                    if t.get_text()), key=lambda b: b.x0)
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:])), "tick labels overlap"


def test_linear_axes_are_left_alone():
    fig, axes = plotting.new_figure(1)
    ax = axes[0][0]
    ax.plot([0, 1], [0, 1])
    before = ax.xaxis.get_minor_formatter()
    plotting.declutter_log_ticks(fig)
    assert ax.xaxis.get_minor_formatter() is before


def test_new_figure_is_drawn_at_the_column_width_whatever_the_panels():
    for ncols, nrows in ((1, 1), (2, 1), (3, 4)):
        fig, axes = plotting.new_figure(ncols, nrows)
        assert fig.get_size_inches()[0] == plotting.COLUMN_WIDTH
        assert axes.shape == (nrows, ncols)
    fig, _ = plotting.new_figure(2, height=5.0)
    assert tuple(fig.get_size_inches()) == (plotting.COLUMN_WIDTH, 5.0)


def test_smallest_font_finds_the_smallest_visible_text():
    fig, axes = plotting.new_figure(1)
    ax = axes[0][0]
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(fontsize=6)
    ax.set_title("hidden", fontsize=4).set_visible(False)
    fig.canvas.draw()
    assert plotting.smallest_font(fig) == 6
    ax.get_legend().remove()
    fig.canvas.draw()
    assert plotting.smallest_font(fig) == 9      # the tick labels of the style


def test_rendered_font_px_shrinks_only_figures_wider_than_the_column():
    # 10 pt at 100 px per inch: 13.9 px when shown at natural size ...
    assert abs(plotting.rendered_font_px(10, 6.0) - 10 / 72 * 100) < 1e-9
    # ... and a 13 in wide figure shrunk to the 688 px column: 8 pt text renders at 5.9 px
    assert abs(plotting.rendered_font_px(8, 13.0) - 8 / 72 * 688 / 13) < 1e-9
    assert plotting.rendered_font_px(8, 13.0) < plotting.MIN_FONT_PX
    # every figure of new_figure with the style's fonts is legible
    assert plotting.rendered_font_px(9, plotting.COLUMN_WIDTH) >= plotting.MIN_FONT_PX


def test_figure_legend_collects_each_label_once_below_the_panels():
    fig, axes = plotting.new_figure(2)
    for ax in axes[0]:
        ax.plot([0, 1], [0, 1], label="same")
        ax.plot([0, 1], [1, 0], label="_hidden")
    leg = plotting.figure_legend(fig, axes)
    assert [t.get_text() for t in leg.get_texts()] == ["same"]
