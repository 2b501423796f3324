"""Every result figure opens at full size (click or tap) and links its SVG (issue 41), at a
phone's width, where multi-panel figures are shrunk the most."""

from __future__ import annotations

import pytest

from .test_browser import result_pages

_FIGURES = """() => Array.from(document.querySelectorAll('figure.qtheory-figure')).map(fig => {
  const img = fig.querySelector('img');
  const links = Array.from(fig.querySelectorAll('.qtheory-figure-links a'));
  return {file: img.dataset.file, shown: img.getBoundingClientRect().width, natural: img.naturalWidth,
          full: links.some(a => a.textContent === 'full size'),
          svg: (links.find(a => a.textContent === 'SVG') || {}).href || null};
})"""


@pytest.mark.parametrize("doc", [doc for doc, _ in result_pages()])
def test_every_figure_opens_at_full_size_and_links_its_svg(doc, pages):
    page = pages(doc, "phone")
    figures = page.evaluate(_FIGURES)
    problems = [f"{f['file']}: no 'full size' link" for f in figures if not f["full"]]
    problems += [f"{f['file']}: no SVG link" for f in figures if not f["svg"]]
    for f in figures:
        if f["svg"]:
            response = page.request.get(f["svg"])
            if not (response.ok and "<svg" in response.text()[:2000]):
                problems.append(f"{f['file']}: its SVG link does not fetch an SVG ({response.status})")
    if figures:
        # a tap on the first figure shows it at its natural width over the page; a tap closes it
        page.locator("figure.qtheory-figure img").first.click()
        zoom = page.locator(".qtheory-zoom img")
        zoom.wait_for(timeout=5000)
        width = zoom.evaluate("img => img.getBoundingClientRect().width")
        if not width >= figures[0]["natural"] - 1:
            problems.append(f"{figures[0]['file']}: enlarged to {width:.0f} px of its {figures[0]['natural']}")
        page.locator(".qtheory-zoom").click()
        if page.locator(".qtheory-zoom").count():
            problems.append("the full-size view does not close on a tap")
        page.evaluate("() => window.scrollTo(0, 0)")  # the page as the next check expects it
    assert not problems, f"{doc}:\n" + "\n".join(problems)
