"""Build step that pyproject.toml cannot declare: the notebooks inside the wheel.

The notebooks and their presets live at the top of the repository (``notebooks/``), not
inside the package. A wheel installed by name has no repository around it, so the build
copies them into the package as ``qtheory/_data/notebooks/`` (the sdist carries
``notebooks/`` through MANIFEST.in). ``qtheory.reproduce.notebooks_dir`` uses the
repository's folder when there is one and this copy otherwise. An editable install
(``pip install -e .``, the README's) copies nothing: it always has the repository.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path("notebooks")
SHIPPED = Path("qtheory", "_data", "notebooks")


def notebook_files() -> list[Path]:
    """The notebooks and preset files a run needs, relative to ``notebooks/``."""
    files = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "presets").glob("*.toml"))
    files += sorted((NOTEBOOKS / "presets").glob("*.json"))
    if not files:
        raise SystemExit(f"setup.py: no notebooks under {NOTEBOOKS.resolve()}: build from the repository "
                         "or from its sdist")
    return [path.relative_to(NOTEBOOKS) for path in files]


class BuildPyWithNotebooks(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for rel in notebook_files():
            target = Path(self.build_lib, SHIPPED, rel)
            self.mkpath(str(target.parent))
            self.copy_file(str(NOTEBOOKS / rel), str(target))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(Path(self.build_lib, SHIPPED, rel)) for rel in notebook_files()]


setup(cmdclass={"build_py": BuildPyWithNotebooks})
