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
