"""Build step that pyproject.toml cannot declare: the notebooks inside the wheel.

The notebooks and their presets live at the top of the repository (``notebooks/``), not
inside the package. A wheel installed by name has no repository around it, so the build
copies them into the package as ``qtheory/_data/notebooks/``, and with them the citation
sources ``CITATION.cff`` and ``book/references.bib`` (the sdist carries all of them
through MANIFEST.in). ``qtheory.notebooks.notebooks_dir`` and ``qtheory.citation`` use
the repository's files when there are some and these copies otherwise. An editable
install (``pip install -e .``, the README's) copies nothing: it always has the repository.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path("notebooks")
DATA = Path("qtheory", "_data")
SHIPPED = DATA / "notebooks"
#: single files copied into qtheory/_data/, by their name there
CITATION_SOURCES = {"CITATION.cff": Path("CITATION.cff"), "references.bib": Path("book", "references.bib")}


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
        for name, source in CITATION_SOURCES.items():
            self.copy_file(str(source), str(Path(self.build_lib, DATA, name)))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return (outputs + [str(Path(self.build_lib, SHIPPED, rel)) for rel in notebook_files()]
                + [str(Path(self.build_lib, DATA, name)) for name in CITATION_SOURCES])


setup(cmdclass={"build_py": BuildPyWithNotebooks})
