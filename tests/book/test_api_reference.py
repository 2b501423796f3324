"""The API reference covers the whole public package.

Every module of ``qtheory`` whose name has no leading underscore must appear in an
``automodule`` directive on a book page, so that its docstrings reach the reference
(a policy or mechanism file through its registry package, which re-exports its class).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUTOMODULE = re.compile(r"^\.\. automodule:: ([\w.]+)\s*$", re.M)


def public_modules() -> set[str]:
    out = set()
    for path in (ROOT / "qtheory").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts[-1] == "__main__" or any(p.startswith("_") for p in parts):
            continue
        out.add(".".join(parts))
    return out


def documented_modules() -> set[str]:
    found = set()
    for page in (ROOT / "book").rglob("*.md"):
        found.update(AUTOMODULE.findall(page.read_text(encoding="utf-8")))
    return found


def covered(module: str, documented: set[str]) -> bool:
    """A policy file (``qtheory.<paper>.policies.<name>``, R: ``qtheory.redundancy.mechanisms.<name>``)
    is covered by its registry package, which re-exports its class (``__all__``, filled by
    ``qtheory._policy.discover``): a new policy is one file."""
    parent = module.rsplit(".", 1)[0]
    return module in documented or (parent.endswith((".policies", ".mechanisms")) and parent in documented)


def test_every_public_module_is_in_the_api_reference():
    documented = documented_modules()
    missing = sorted(m for m in public_modules() if not covered(m, documented))
    assert not missing, ("modules missing from the API reference (add an automodule directive to "
                         f"book/api.md or book/<part>/<P>-api.md): {missing}")


def test_api_reference_names_only_existing_modules():
    stale = sorted(documented_modules() - public_modules())
    assert not stale, f"automodule directives for modules that do not exist: {stale}"
