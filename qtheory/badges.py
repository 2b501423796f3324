"""The preset badge of a result page, and the book's warnings about mixed presets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import manifest
from .notebooks import executed_path


def book_presets(results: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{notebook: {"preset": ..., "overrides": {...}}}`` of the executed notebooks the book shows."""
    out = {}
    for nb in manifest.notebooks():
        path = executed_path(nb, results)
        if not path.exists():
            continue
        try:
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("qtheory", {})
        except json.JSONDecodeError:
            continue
        preset = str(meta.get("preset") or "unknown").removesuffix("+overrides")
        out[nb] = {"preset": preset, "overrides": meta.get("overrides") or {}}
    return out


def preset_warnings(results: Path | None = None) -> list[str]:
    """Warnings for a book whose pages come from different presets or overridden parameters."""
    shown = book_presets(results)
    by_preset: dict[str, list[str]] = {}
    for nb, info in shown.items():
        by_preset.setdefault(info["preset"], []).append(nb)
    lines = []
    if len(by_preset) > 1:
        groups = "; ".join(f"{preset}: {', '.join(nbs)}" for preset, nbs in sorted(by_preset.items()))
        lines.append(f"the book mixes results of different presets ({groups}); rerun them with one "
                     f"preset (python -m qtheory reproduce --preset PRESET --only ...)")
    changed = [nb for nb, info in shown.items() if info["overrides"]]
    if changed:
        lines.append(f"pages computed with overridden parameters (shown in their badge): {', '.join(changed)}")
    return lines


def badge(preset: str | None, overrides: dict[str, Any] | None) -> str:
    """The line at the top of a result page: the preset of its numbers and any overrides."""
    preset = str(preset or "unknown").removesuffix("+overrides")
    text = f'<p class="qtheory-badge">Computed with the <strong>{preset}</strong> preset'
    if overrides:
        shown = ", ".join(f"<code>{k} = {json.dumps(v)}</code>" for k, v in overrides.items())
        text += f"; parameters overridden: {shown}"
    return text + ".</p>"
