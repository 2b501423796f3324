"""Presets and parameter overrides, and the plan of a run.

Presets override some of a notebook's defaults (its cell tagged ``parameters``, the
paper's own settings); they live in ``notebooks/presets/<paper>.toml`` as
``[<preset>.<notebook>]`` tables. Users add their own overrides with ``-p NAME VALUE``,
checked against the type of the notebook's default (:func:`check_parameter`).
:func:`plan` turns a preset, a selection and overrides into the list of :class:`Run`.
"""

from __future__ import annotations

import ast
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import manifest
from .errors import ParameterError
from .notebooks import notebook_parameters, notebook_path, notebooks_dir
from .results import project_root

PRESETS = ("quick", "paper")


def load_presets(directory: Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Read ``notebooks/presets/*.toml`` into ``{preset: {notebook: {parameter: value}}}``
    (except ``meanings.toml``, the parameters' meanings: :mod:`qtheory.pagebox`)."""
    directory = directory or notebooks_dir() / "presets"
    out: dict[str, dict[str, dict[str, Any]]] = {p: {} for p in PRESETS}
    for path in sorted(directory.glob("*.toml")):
        if path.name == "meanings.toml":
            continue
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        for preset, tables in data.items():
            if preset not in PRESETS:
                raise ParameterError(f"{path.name}: unknown preset {preset!r} (known: {', '.join(PRESETS)})")
            for nb, values in tables.items():
                if nb in out[preset]:
                    raise ParameterError(f"{path.name}: preset {preset}.{nb} is defined twice")
                out[preset][nb] = dict(values)
    return out


_FRACTION = re.compile(r"^\s*(-?\d+)\s*/\s*(\d+)\s*$")


def parse_value(text: str) -> Any:
    """Parse a ``-p NAME VALUE`` value: a Python/JSON literal, a fraction ``7/12`` (the number
    7 / 12, also inside a list: ``[7/12, 0.25]``), else the string itself."""
    fraction = _FRACTION.match(text)
    if fraction and int(fraction.group(2)) != 0:
        return int(fraction.group(1)) / int(fraction.group(2))
    for loader in (_literal_with_fractions, json.loads):
        try:
            return loader(text)
        except (ValueError, SyntaxError, TypeError, json.JSONDecodeError):
            pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def _integer(node: ast.AST) -> int | None:
    """The value of an integer literal node (``7``, ``-7``), else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-1 if isinstance(node.op, ast.USub) else 1), node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


class _Fractions(ast.NodeTransformer):
    """Each ``a/b`` of two integer literals (b not 0) as the float a / b."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        a, b = _integer(node.left), _integer(node.right)
        if isinstance(node.op, ast.Div) and a is not None and b:
            return ast.copy_location(ast.Constant(a / b), node)
        return self.generic_visit(node)


def _literal_with_fractions(text: str) -> Any:
    """:func:`ast.literal_eval` of `text`, where a fraction of two integers is a number (``[7/12, 0.25]``)."""
    tree = _Fractions().visit(ast.parse(text.strip(), mode="eval"))
    return ast.literal_eval(tree.body)


def literal(value: Any) -> str:
    """`value` as a reader types it after ``-p NAME`` and as the pages show it: JSON, except that a
    number whose shortest form is long but which is a fraction with a denominator up to 100 is
    written as that fraction (``7/12``, not ``0.5833333333333334``; inside lists too:
    ``[7/12, 0.25]``; :func:`qtheory.display.simple_fraction`); :func:`parse_value` reads each back
    to the same value."""
    from .display import simple_fraction

    fraction = simple_fraction(value)
    if fraction:
        return fraction
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _plural(what: str) -> str:
    """The plural of a kind of value: ``integer`` -> ``integers``, ``non-empty list of numbers`` ->
    ``non-empty lists of numbers`` (a nested list's head noun takes the plural, not its tail)."""
    if what == "true or false":
        return "booleans"
    if " list of " in f" {what}":
        head, _, tail = what.partition(" of ")
        return f"{head}s of {tail}"
    return what + "s"


def _expected(default: Any) -> tuple[str, Any]:
    """What a value replacing `default` must be: a description and a checker."""
    if isinstance(default, bool):
        return "true or false", lambda v: isinstance(v, bool)
    if isinstance(default, int):
        return "an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)
    if isinstance(default, float):
        return "a finite number", lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                                             and math.isfinite(v))
    if isinstance(default, str):
        return "a string", lambda v: isinstance(v, str)
    if isinstance(default, (list, tuple)):
        if not default:
            return "a list", lambda v: isinstance(v, (list, tuple))
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in default)
        proto = 0.0 if numbers and any(isinstance(x, float) for x in default) else default[0]
        what, ok = _expected(proto)
        return (f"a non-empty list of {_plural(what.removeprefix('a ').removeprefix('an '))}",
                lambda v: isinstance(v, (list, tuple)) and len(v) > 0 and all(ok(x) for x in v))
    if isinstance(default, dict):
        return "a dict", lambda v: isinstance(v, dict)
    return f"a {type(default).__name__}", lambda v: isinstance(v, type(default))


def check_parameter(name: str, value: Any, default: Any, notebook: str | None = None) -> Any:
    """Return `value` if it may replace the notebook default `default` of parameter `name`.

    The expected type is the default's: an integer for an integer, a finite number for
    a float, a non-empty list of such for a list, and so on. Anything else raises a
    :class:`ParameterError` naming the parameter and the expected type (instead of a
    NumPy error deep inside the notebook). A default of ``None`` accepts anything.
    """
    if default is None:
        return value
    what, ok = _expected(default)
    if not ok(value):
        where = f" of notebook {notebook}" if notebook else ""
        raise ParameterError(f"parameter `{name}`{where} must be {what} (its default is {default!r}); "
                             f"got {value!r}")
    return value


def select(only: Iterable[str] | None) -> list[str]:
    """Notebook names selected by manifest IDs or notebook names, in manifest order."""
    all_nbs = list(manifest.notebooks())
    if not only:
        return all_nbs
    chosen = set()
    for token in only:
        if token in manifest.notebooks():
            chosen.add(token)
        else:
            chosen.add(manifest.get(token).notebook)
    return [nb for nb in all_nbs if nb in chosen]


@dataclass
class Run:
    """One planned notebook execution."""

    notebook: str
    preset: str
    parameters: dict[str, Any]
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def items(self) -> list[str]:
        return [item.id for item in manifest.notebooks()[self.notebook]]


def plan(preset: str = "paper", only: Iterable[str] | None = None,
         overrides: dict[str, Any] | None = None) -> list[Run]:
    """The runs for `preset`, restricted to `only`, with user `overrides` applied.

    Raises :class:`ParameterError` for an unknown preset, ID, missing notebook, or an
    override that no selected notebook accepts.
    """
    if preset not in PRESETS:
        raise ParameterError(f"`preset` must be one of {', '.join(PRESETS)} (got {preset!r})")
    overrides = dict(overrides or {})
    presets = load_presets()
    runs, used = [], set()
    for nb in select(only):
        path = notebook_path(nb)
        if not path.exists():
            raise ParameterError(f"notebook {path.relative_to(project_root())} does not exist yet "
                                 f"(items {', '.join(i.id for i in manifest.notebooks()[nb])})")
        defaults = notebook_parameters(path)
        values = dict(presets[preset].get(nb, {}))
        unknown = sorted(set(values) - set(defaults))
        if unknown:
            raise ParameterError(f"preset {preset}.{nb} sets unknown parameter(s) {', '.join(unknown)}")
        mine = {k: check_parameter(k, v, defaults[k], nb) for k, v in overrides.items() if k in defaults}
        used |= set(mine)
        values.update(mine)
        runs.append(Run(nb, preset, values, mine))
    unused = sorted(set(overrides) - used)
    if unused:
        raise ParameterError(f"no selected notebook has parameter(s) {', '.join(unused)}; "
                             f"see `python -m qtheory params NOTEBOOK`")
    return runs
