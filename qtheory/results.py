"""Result files keyed by manifest ID.

Every notebook saves the numbers behind its figure or table with a
:class:`ResultWriter`::

    rec = ResultWriter("L-F1", parameters=params, seed=seed)
    rec.write_table(rows)          # tidy CSV: one row per parameter point and method
    rec.save_figure(fig)           # PNG (and SVG) drawn from those rows
    rec.finish()                   # JSON sidecar; the folder appears only now

The files land in ``<results>/<ID>/``: ``<ID>.csv`` (and any further named tables),
``<ID>.png`` and ``<ID>.json``, whose fields are the parameters, seed, preset,
package and library versions, git commit and wall time. Until :meth:`finish`
succeeds everything is written to a hidden staging folder, so a run that fails
half-way leaves the previous result untouched and no half-written one behind.

The results root is ``$QTHEORY_RESULTS_DIR`` when set (the reproduce command sets
it), else ``results/`` at the top of the project.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
import uuid
import warnings
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from . import __version__, manifest
from .errors import ParameterError

__all__ = ["results_root", "ResultWriter", "ItemResult", "check_rows", "read_table", "load_meta", "project_root",
           "select", "column", "figure_number"]

# Run times count from the start of the notebook run: the reproduce command passes
# it in; in an interactive session the first import of this module stands in for it.
_SESSION_START = time.time()


def _run_started() -> float:
    env = os.environ.get("QTHEORY_RUN_STARTED")
    try:
        return float(env) if env else _SESSION_START
    except ValueError:
        return _SESSION_START


def _png_width(path: Path) -> int:
    """Width in pixels of a PNG file (from its IHDR header)."""
    with open(path, "rb") as f:
        head = f.read(24)
    return int.from_bytes(head[16:20], "big")


def project_root() -> Path:
    """The qtheory project folder (the one holding ``_config.yml`` and ``notebooks/``).

    ``$QTHEORY_PROJECT`` if set; else the folder above the package when the package runs
    from a checkout (the editable install of the README); else the current folder.
    """
    env = os.environ.get("QTHEORY_PROJECT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parent.parent
    return here if (here / "_config.yml").exists() else Path.cwd()


def results_root() -> Path:
    """Where results are written: ``$QTHEORY_RESULTS_DIR`` or ``<project>/results``."""
    env = os.environ.get("QTHEORY_RESULTS_DIR")
    return Path(env) if env else project_root() / "results"


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no inf/nan; keep them readable
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _git_commit() -> str | None:
    env = os.environ.get("QTHEORY_GIT_COMMIT")
    if env:
        return env
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project_root(),
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"qtheory": __version__, "python": platform.python_version()}
    for pkg in ("numpy", "scipy", "numba", "matplotlib", "sympy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    return out


_SCALARS = (str, bool, int, float, np.generic)


def check_rows(rows: Iterable[Mapping[str, Any]], name: str = "rows") -> list[Mapping[str, Any]]:
    """Check that `rows` is a tidy table, the one shape of every table the package computes
    (the ``*_rows`` functions of the ``experiments`` modules) and writes
    (:meth:`ResultWriter.write_table`): a non-empty sequence of mappings from column names
    (strings) to one number, string, bool or None per cell. Returns the rows as a list.
    """
    if isinstance(rows, Mapping) or isinstance(rows, (str, bytes)):
        raise ParameterError(f"`{name}` must be a sequence of rows (mappings), got a {type(rows).__name__}")
    rows = list(rows)
    if not rows:
        raise ParameterError(f"`{name}` must not be empty")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ParameterError(f"`{name}[{i}]` must be a mapping of column -> value (got {type(row).__name__})")
        for key, value in row.items():
            if not isinstance(key, str):
                raise ParameterError(f"`{name}[{i}]`: column names must be strings (got {key!r})")
            if value is not None and not isinstance(value, _SCALARS):
                raise ParameterError(f"`{name}[{i}][{key!r}]` must be one number or string per cell, a tidy "
                                     f"table has no nested values (got {type(value).__name__})")
    return rows


def _format_cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    if value is None:
        return ""
    return str(value)


def replace_dir(src: Path, dst: Path) -> None:
    """Move folder `src` to `dst`, replacing any existing `dst` (atomic rename of the new one)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    trash = None
    if dst.exists():
        trash = dst.with_name(f".{dst.name}.old-{uuid.uuid4().hex}")
        os.replace(dst, trash)
    try:
        os.replace(src, dst)
    except BaseException:
        if trash is not None:
            os.replace(trash, dst)
        raise
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)


#: figures shown so far in this process (one notebook run): numbers the captions
#: figures shown so far per item in this process: figure k of item L-F2 is 'Figure L-F2.k', never a
#: bare 'Figure 1' that would collide with the papers' own numbering
_FIGURE_NUMBERS: dict[str, int] = {}


class ResultWriter:
    """Collect the files of one manifest item and publish them atomically.

    Parameters
    ----------
    item_id : str
        Manifest ID (see :mod:`qtheory.manifest`).
    parameters : mapping
        The notebook parameters that produced the result (recorded verbatim).
    seed : int or None
        Root seed of the random numbers (``None`` for deterministic computations).
    root : path, optional
        Results root; defaults to :func:`results_root`.
    """

    def __init__(self, item_id: str, *, parameters: Mapping[str, Any], seed: int | None,
                 root: str | os.PathLike | None = None):
        self.item = manifest.get(item_id)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ParameterError(f"`seed` must be a non-negative integer or None (got {seed!r})")
        self.parameters = dict(parameters)
        self.seed = None if seed is None else int(seed)
        self.root = Path(root) if root is not None else results_root()
        self.final_dir = self.root / self.item.id
        self._staging = self.root / ".staging" / f"{self.item.id}-{uuid.uuid4().hex[:12]}"
        self._staging.mkdir(parents=True)
        self._files: list[str] = []
        self._claims: list = []
        self._findings: list = []
        self._figure_problems: dict[str, Callable[[], list[str]]] = {}
        self._started = _run_started()
        self._finished = False

    # -- files -------------------------------------------------------------------------
    def _path(self, name: str | None, suffix: str) -> Path:
        stem = self.item.id if name is None else f"{self.item.id}_{name}"
        if "/" in stem or stem.startswith("."):
            raise ParameterError(f"`name` must be a plain file stem (got {name!r})")
        return self._staging / f"{stem}{suffix}"

    def _register(self, path: Path) -> None:
        if path.name not in self._files:
            self._files.append(path.name)

    # The writer's methods return None: in a notebook a returned path would be displayed,
    # and before finish() it points into the staging folder.
    def write_table(self, rows: Iterable[Mapping[str, Any]], name: str | None = None) -> None:
        """Write tidy `rows` (one mapping per row) as CSV (``<ID>[_<name>].csv``).

        Columns are the union of the rows' keys in order of first appearance;
        floats are written with full precision.
        """
        rows = check_rows(rows)
        columns: list[str] = []
        for row in rows:
            for key in row:
                if key not in columns:
                    columns.append(key)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_format_cell(row.get(c)) for c in columns])
        path = self._path(name, ".csv")
        _atomic_write_text(path, buf.getvalue())
        self._register(path)

    def write_json(self, data: Any, name: str) -> None:
        """Write `data` (arrays allowed) as ``<ID>_<name>.json``."""
        path = self._path(name, ".json")
        _atomic_write_text(path, json.dumps(_jsonable(data), indent=1))
        self._register(path)

    def save_figure(self, fig, name: str | None = None, *, dpi: int = 150, caption: str | None = None) -> None:
        """Save a matplotlib figure as PNG and SVG (``<ID>[_<name>].png`` / ``.svg``).

        In a notebook the figure is then shown as a numbered HTML figure with alt text and
        a caption: `caption` (what is plotted; with a sentence naming the curves that coincide
        at the figure's scale, :func:`qtheory.plotting.coincide_sentence`) followed by the item,
        the preset, the seed and the data files, so that every figure of the book says where it
        comes from.
        """
        from .plotting import (MIN_FONT_PX, declutter_log_ticks, figure_problems_started, rendered_font_px,
                               smallest_font, with_coincidences)

        declutter_log_ticks(fig)
        if caption is not None:   # curves drawn on top of each other: the caption says which
            caption = with_coincidences(fig, caption)
        # what would make it hard to read (tick sizes, overlapping text, hidden series, interval
        # wording): recorded in the sidecar, where the book's check reads it
        # (checked in a forked copy while the figure is saved; collected by metadata())
        self._figure_problems[self._path(name, ".png").name] = figure_problems_started(fig, caption)
        png = self._path(name, ".png")
        fig.savefig(png, dpi=dpi, bbox_inches="tight")
        self._register(png)
        svg = self._path(name, ".svg")
        fig.savefig(svg, bbox_inches="tight")
        self._register(svg)
        font_pt = smallest_font(fig)
        width_in = _png_width(png) / dpi
        if rendered_font_px(font_pt, width_in) < MIN_FONT_PX:
            warnings.warn(f"{png.name}: its smallest text ({font_pt:g} pt in a {width_in:.1f} in wide figure) "
                          f"renders below {MIN_FONT_PX:g} px in the book's column; draw it with "
                          "qtheory.plotting.new_figure and larger fonts", stacklevel=2)
        self._show_figure(fig, png, name, caption, dpi=dpi, font_pt=font_pt)

    def figure_caption(self, name: str | None = None, caption: str | None = None) -> tuple[str, str]:
        """The (caption, alt text) :meth:`save_figure` shows with a figure."""
        what = caption or self.item.title
        # a sentence after the item ID: a caption written in lower case gets a capital, one that
        # starts with a symbol or math ($...$) is left as it is
        if what[:1].islower():
            what = what[0].upper() + what[1:]
        part = f" ({name})" if name else ""
        preset = os.environ.get("QTHEORY_PRESET", "interactive")
        overrides = os.environ.get("QTHEORY_OVERRIDES")
        from .presets import literal   # 7/12, not 0.5833333333333334

        changed = f", with {', '.join(f'{k} = {literal(v)}' for k, v in json.loads(overrides).items())}" \
            if overrides and json.loads(overrides) else ""
        seed = "no random numbers" if self.seed is None else f"seed {self.seed}"
        data = [f for f in self._files if f.endswith(".csv")]
        source = f"; data: {', '.join(data)}" if data else ""
        text = f"{self.item.id}{part}. {what.rstrip('.')}. Computed with the {preset} preset{changed}, {seed}{source}."
        return text, f"{self.item.id}{part}: {what}"

    def _show_figure(self, fig, png: Path, name: str | None, caption: str | None, *, dpi: int = 150,
                     font_pt: float = float("nan")) -> None:
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - IPython comes with the notebook stack
            return
        if get_ipython() is None:
            return
        import base64
        import html as _html

        import matplotlib.pyplot as plt
        from IPython.display import HTML, display

        number = figure_number(self.item.id)
        text, alt = self.figure_caption(name, caption)
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        from .display import html_math, plain_math
        from .plotting import DISPLAY_DPI

        # shown at DISPLAY_DPI px per inch (shrunk to the column if wider), so text of a given
        # size in points has one size on every page; data-font-pt and data-dpi let the browser
        # check compute the rendered height of the smallest text
        width = round(_png_width(png) * DISPLAY_DPI / dpi)
        display(HTML(f'<figure class="qtheory-figure"><img src="data:image/png;base64,{data}" '
                     f'alt="{_html.escape(plain_math(alt), quote=True)}" width="{width}" data-font-pt="{font_pt:g}" '
                     f'data-file="{_html.escape(png.stem, quote=True)}" '
                     f'data-dpi="{dpi}" style="max-width: 100%; height: auto;">'
                     f"<figcaption><strong>Figure {number}.</strong> {html_math(text)}</figcaption>"
                     "</figure>"))
        plt.close(fig)      # shown above: the inline backend must not show it a second time

    def claim(self, text: str, *, paper: float | None = None, ours: float | None = None,
              paper_se: float | None = None, ours_se: float | None = None,
              tolerance: float | None = None, category: str = "claim", verdict: str | None = None,
              evidence: str = "", source: str = "", reference: float | None = None,
              reference_se: float | None = None, holds: bool | None = None,
              alternatives: str = "") -> None:
        """Record a statement with the companion's value (see :mod:`qtheory.claims`).

        ``category`` is ``"claim"`` (a value or statement printed in a paper, cited by
        `source`, compared through `paper`), ``"check"`` (our own cross-check, compared
        with the independently computed `reference`), ``"reconstruction"`` (our reading
        of an ambiguous display, with the `alternatives` considered) or ``"erratum"``.
        A qualitative claim or check passes `holds`, the outcome of its test.
        """
        from .claims import Claim

        def num(x):
            return None if x is None else float(x)

        self._claims.append(Claim(item=self.item.id, text=text, paper=num(paper), ours=num(ours),
                                  paper_se=num(paper_se), ours_se=num(ours_se),
                                  tolerance=num(tolerance), category=category, verdict=verdict,
                                  evidence=evidence, source=source, reference=num(reference),
                                  reference_se=num(reference_se),
                                  holds=None if holds is None else bool(holds), alternatives=alternatives))

    def add_records(self, claims: Sequence = (), findings: Sequence = ()) -> None:
        """Record :class:`qtheory.claims.Claim` and :class:`qtheory.claims.Finding` objects an item
        function built (their item must be this writer's)."""
        for record in [*claims, *findings]:
            if record.item != self.item.id:
                raise ParameterError(f"a record of item {record.item} cannot be published as {self.item.id}")
        self._claims += list(claims)
        self._findings += list(findings)

    # -- publication -------------------------------------------------------------------
    def metadata(self, **extra: Any) -> dict[str, Any]:
        overrides = os.environ.get("QTHEORY_OVERRIDES")
        return _jsonable({
            "id": self.item.id,
            "title": self.item.title,
            "kind": self.item.kind,
            "notebook": self.item.notebook,
            "preset": os.environ.get("QTHEORY_PRESET", "interactive"),
            "overrides": json.loads(overrides) if overrides else {},
            "parameters": self.parameters,
            "seed": self.seed,
            "versions": _versions(),
            "git_commit": _git_commit(),
            "platform": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
            "finished_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            # seconds from the start of the notebook run to finish()
            "wall_time_s": round(time.time() - self._started, 3),
            "files": self._files + [f"{self.item.id}.json"],
            "claims": [c.to_json() for c in self._claims],
            "findings": [f.to_json() for f in self._findings],
            "figure_problems": {k: found for k, v in self._figure_problems.items() if (found := v())},
            # content hash of notebook + parameters + package, set by the reproduce command
            "input_hash": os.environ.get("QTHEORY_INPUT_HASH"),
            **extra,
        })

    def finish(self, **extra: Any) -> None:
        """Write the JSON sidecar and publish the folder ``<root>/<ID>/`` (:attr:`final_dir`).

        Keyword arguments are added to the sidecar (e.g. summary numbers, checks).
        """
        if self._finished:
            raise RuntimeError(f"result {self.item.id} was already finished")
        meta = self.metadata(**extra)
        _atomic_write_text(self._staging / f"{self.item.id}.json", json.dumps(meta, indent=1))
        replace_dir(self._staging, self.final_dir)
        self._finished = True

    def discard(self) -> None:
        """Drop everything written so far (the published result, if any, stays)."""
        for pending in self._figure_problems.values():
            pending()                                   # the forked checks end before we do
        shutil.rmtree(self._staging, ignore_errors=True)

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.discard()
        elif not self._finished:
            self.finish()

    def __del__(self):  # a writer dropped without finish() leaves no staging folder
        if not getattr(self, "_finished", True):
            shutil.rmtree(getattr(self, "_staging", ""), ignore_errors=True)


def figure_number(item_id: str) -> str:
    """The next figure number of an item, ``"<item>.<k>"`` (``"L-F2.1"``, ``"L-F2.2"``, ...)."""
    _FIGURE_NUMBERS[item_id] = _FIGURE_NUMBERS.get(item_id, 0) + 1
    return f"{item_id}.{_FIGURE_NUMBERS[item_id]}"


def select(rows: Iterable[Mapping[str, Any]], **equal: Any) -> list[Mapping[str, Any]]:
    """The rows whose columns equal the given values: ``select(rows, method="sim", N=100)``.

    A notebook draws its figure from the rows an item function returned; it picks them with
    this instead of writing comparisons of its own.
    """
    return [r for r in rows if all(r.get(k) == v for k, v in equal.items())]


def column(rows: Iterable[Mapping[str, Any]], name: str) -> list[Any]:
    """The values of one column of `rows`, in order: ``column(select(rows, N=100), "mean")``."""
    return [r[name] for r in rows]


def _parse_cell(text: str):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_table(item_id: str, name: str | None = None, *, root: str | os.PathLike | None = None
               ) -> dict[str, np.ndarray]:
    """Read a table written by :meth:`ResultWriter.write_table` as a dict of column arrays.

    Numeric columns become float or int arrays, others object arrays of strings.
    """
    item = manifest.get(item_id)
    base = Path(root) if root is not None else results_root()
    stem = item.id if name is None else f"{item.id}_{name}"
    path = base / item.id / f"{stem}.csv"
    if not path.exists():
        raise FileNotFoundError(f"no table {path}; run `python -m qtheory reproduce --only {item.id}`")
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        cols: list[list] = [[] for _ in header]
        for row in reader:
            for i, cell in enumerate(row):
                cols[i].append(_parse_cell(cell))
    out = {}
    for key, values in zip(header, cols):
        kinds = {type(v) for v in values if v is not None}
        if kinds <= {int}:
            out[key] = np.array(values, dtype=np.int64) if None not in values else np.array(
                [np.nan if v is None else v for v in values], dtype=float)
        elif kinds <= {int, float}:
            out[key] = np.array([np.nan if v is None else v for v in values], dtype=float)
        else:
            out[key] = np.array(["" if v is None else str(v) for v in values], dtype=object)
    return out


def load_meta(item_id: str, *, root: str | os.PathLike | None = None) -> dict[str, Any]:
    """The JSON sidecar of a published result."""
    item = manifest.get(item_id)
    base = Path(root) if root is not None else results_root()
    path = base / item.id / f"{item.id}.json"
    if not path.exists():
        raise FileNotFoundError(f"no result {path}; run `python -m qtheory reproduce --only {item.id}`")
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ItemResult:
    """What an item function returns: everything its page shows and its result files hold.

    Each manifest item is computed by a package function (``qtheory/<paper>/items/``) from
    its notebook's parameters; the function is tested at a tiny scale, and its verdicts on
    rows that must agree and rows that must differ. The notebook then only draws the figure
    from :attr:`rows` (or :attr:`figure`) and calls :meth:`publish`.

    Attributes
    ----------
    item : str
        Manifest ID.
    parameters : mapping
        The parameters it was computed from (recorded verbatim in the sidecar).
    seed : int or None
        Root seed of its random numbers (None: deterministic).
    rows : tuple of mappings
        The tidy table behind the figure (``<ID>.csv``).
    claims : tuple of :class:`qtheory.claims.Claim`
        The paper's statements with our values and verdicts, internal checks, reconstructions
        and errata, judged inside the package.
    findings : tuple of :class:`qtheory.claims.Finding`
        Conclusions that explain several claims, worded once.
    tables : mapping name -> tuple of mappings
        Further tidy tables (``<ID>_<name>.csv``).
    summary : mapping
        Entries of the JSON sidecar (summary numbers other pages and noted readings cite).
    figure : mapping
        What the figure needs beyond the rows (reference curves, axis limits, labels).
    displays : tuple of :class:`qtheory.display.Table`
        Tables shown on the page, formatted by the item function.
    text : str
        Markdown the page shows after the figures, computed from the data.
    """

    item: str
    parameters: Mapping[str, Any]
    seed: int | None
    rows: tuple
    claims: tuple = ()
    findings: tuple = ()
    tables: Mapping[str, tuple] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)
    figure: Mapping[str, Any] = field(default_factory=dict)
    displays: tuple = ()
    text: str = ""

    def __post_init__(self):
        manifest.get(self.item)
        object.__setattr__(self, "rows", tuple(check_rows(self.rows, f"{self.item} rows")))
        object.__setattr__(self, "claims", tuple(self.claims))
        object.__setattr__(self, "findings", tuple(self.findings))
        object.__setattr__(self, "displays", tuple(self.displays))
        ids = {f.id for f in self.findings}
        for record in [*self.claims, *self.findings]:
            if record.item != self.item:
                raise ParameterError(f"{self.item}: a record of item {record.item} belongs to that item's result")
        for c in self.claims:
            if c.finding and c.finding not in ids:
                raise ParameterError(f"{self.item}: claim {c.text!r} names finding {c.finding!r}, "
                                     f"which this result does not hold (it has {sorted(ids) or 'none'})")

    def claim(self, words: str):
        """The one claim whose text contains `words` (for tests and other items' evidence)."""
        found = [c for c in self.claims if words in c.text]
        if len(found) != 1:
            raise ParameterError(f"{self.item}: {len(found)} claims contain {words!r} (need exactly one)")
        return found[0]

    def writer(self, root: str | os.PathLike | None = None) -> "ResultWriter":
        """A :class:`ResultWriter` holding this result's tables and records (figures and
        :meth:`ResultWriter.finish` left to the caller)."""
        rec = ResultWriter(self.item, parameters=self.parameters, seed=self.seed, root=root)
        rec.write_table(self.rows)
        for name, rows in self.tables.items():
            rec.write_table(rows, name)
        rec.add_records(self.claims, self.findings)
        return rec

    def publish(self, *figures, root: str | os.PathLike | None = None) -> None:
        """Write the result files, show each figure with its caption, the tables and the text.

        Each figure is ``(fig, caption)`` or ``(fig, caption, name)`` (a named figure is saved
        as ``<ID>_<name>.png``). Nothing is published if a step fails.
        """
        with self.writer(root) as rec:
            for spec in figures:
                if not isinstance(spec, tuple) or len(spec) not in (2, 3):
                    raise ParameterError("each figure must be (fig, caption) or (fig, caption, name) "
                                         f"(got {type(spec).__name__})")
                fig, caption, *name = spec
                rec.save_figure(fig, name[0] if name else None, caption=caption)
            rec.finish(**self.summary)
        _show(self.displays, self.text)


def _show(displays, text: str) -> None:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    if get_ipython() is None:
        return
    from IPython.display import Markdown, display

    for table in displays:
        table.show()
    if text:
        display(Markdown(text))
