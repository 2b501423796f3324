import os
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--book-html", default=os.environ.get("QTHEORY_BOOK_HTML"),
                     help="built book folder (_build/html) to check in a browser")


@pytest.fixture(scope="session")
def book_html(request) -> Path:
    value = request.config.getoption("--book-html")
    if not value:
        pytest.skip("the browser checks run on a built book: pytest tests/book --book-html _build/html")
    path = Path(value).resolve()
    if not (path / "index.html").exists():
        pytest.fail(f"--book-html {path} holds no index.html: build the book first")
    return path
