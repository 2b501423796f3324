"""`qtheory book` lets Sphinx read the pages on several processes (qtheory/_jupyterbook.py).

The quick book of CI is built with ``--jobs 2`` and ``--strict``: were the parallel read refused
(an extension that declares nothing), Sphinx's "doing serial read" warning would fail that build.
These tests check the two pieces on their own."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sphinx.domains import Domain
from sphinx.extension import Extension

from qtheory import _jupyterbook
from qtheory._sphinx import _parallel_reading


def test_undeclared_multitoc_extension_is_declared_safe_and_a_declared_refusal_is_kept():
    undeclared = Extension("sphinx_multitoc_numbering", None)
    app = SimpleNamespace(extensions={"sphinx_multitoc_numbering": undeclared}, registry=SimpleNamespace(domains={}))
    assert undeclared.parallel_read_safe is None
    _parallel_reading(app)
    assert undeclared.parallel_read_safe is True
    refused = Extension("sphinx_multitoc_numbering", None, parallel_read_safe=False)
    _parallel_reading(SimpleNamespace(extensions={"sphinx_multitoc_numbering": refused},
                                      registry=SimpleNamespace(domains={})))
    assert refused.parallel_read_safe is False


def test_a_domain_without_data_merges_nothing_and_a_domain_with_data_is_left_alone():
    class NoData(Domain):
        name = "prf"

    class WithData(Domain):
        name = "prf"
        initial_data = {"objects": {}}

    for cls in (NoData, WithData):
        _parallel_reading(SimpleNamespace(extensions={}, registry=SimpleNamespace(domains={"prf": cls})))
    NoData.merge_domaindata(object.__new__(NoData), {"a"}, {})          # no NotImplementedError
    with pytest.raises(NotImplementedError):
        WithData.merge_domaindata(object.__new__(WithData), {"a"}, {})


def test_sphinx_proof_domain_keeps_its_theorems_outside_the_domain_data():
    """The reason the empty merge is right: sphinx_proof merges env.proof_list on env-merge-info."""
    from sphinx_proof import merge_proofs
    from sphinx_proof.domain import ProofDomain

    assert not ProofDomain.initial_data
    env, other = SimpleNamespace(proof_list={"a": {"docname": "x"}}), SimpleNamespace(proof_list={"b": {"docname": "y"}})
    merge_proofs(None, env, {"y"}, other)
    assert set(env.proof_list) == {"a", "b"}


@pytest.mark.filterwarnings("ignore:'BaseCommand' is deprecated:DeprecationWarning")   # jupyter-book's click
def test_the_wrapper_passes_its_jobs_to_sphinx(monkeypatch):
    import jupyter_book.cli.main
    import jupyter_book.sphinx

    seen = {}

    def fake_build_sphinx(*args, jobs=None, **kwargs):
        seen["jobs"] = jobs

    def fake_main(args, prog_name):
        jupyter_book.sphinx.build_sphinx("src", "out")
        seen["args"] = args

    monkeypatch.setattr(jupyter_book.sphinx, "build_sphinx", fake_build_sphinx)
    monkeypatch.setattr(jupyter_book.cli.main, "main", fake_main)
    _jupyterbook.main(["--jobs", "3", "build", "-q", "."])
    assert seen == {"jobs": 3, "args": ["build", "-q", "."]}
    with pytest.raises(SystemExit, match="--jobs must be a positive integer"):
        _jupyterbook.main(["--jobs", "0", "build", "."])
