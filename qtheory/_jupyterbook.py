"""``jupyter-book build`` with Sphinx reading and writing the pages on several processes.

Jupyter Book 1's command line has no ``-j``: its ``build`` calls
:func:`jupyter_book.sphinx.build_sphinx`, which takes ``jobs`` (Sphinx's ``parallel``) but is
never given it. This entry point gives it, then runs Jupyter Book's own command line unchanged::

    python -m qtheory._jupyterbook --jobs 2 build -q .

``python -m qtheory book`` uses it with its ``--jobs`` (the number of notebooks run at a time):
on two cores the HTML takes about 95 s instead of 130 s (idle machine, December 2026). Every extension the
book loads declares itself safe for parallel reading; ``sphinx_multitoc_numbering`` (loaded by
``sphinx_external_toc``) does not declare it, and :mod:`qtheory._sphinx` declares it for it
and makes up for a missing method of sphinx_proof (:func:`qtheory._sphinx._parallel_reading`).
"""

from __future__ import annotations

import functools
import sys


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    jobs = 1
    if argv[:1] == ["--jobs"]:
        if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < 1:
            sys.exit(f"qtheory._jupyterbook: --jobs must be a positive integer, got {argv[1:2]}")
        jobs, argv = int(argv[1]), argv[2:]
    import jupyter_book.sphinx
    from jupyter_book.cli.main import main as jupyter_book_main

    # jupyter_book.cli.main.build imports build_sphinx from this module when it runs
    jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=jobs)
    jupyter_book_main(args=argv, prog_name="jupyter-book")


if __name__ == "__main__":
    main()
