"""Readable in every theme (issue 29): text of notebook outputs, captions, tables and the verdict
box meets WCAG AA contrast (4.5:1) against the background it is actually drawn on, computed from
the rendered colours in light and dark theme."""

from __future__ import annotations

import pytest

from .test_browser import result_pages, toc_documents

#: WCAG 2 AA for normal text
MIN_CONTRAST = 4.5

#: every element with text of its own inside outputs, captions, tables and admonitions: its colour,
#: the background composited from its ancestors (alpha blended down to the page's), and the ratio
_CONTRAST = r"""(minRatio) => {
  function parse(c) {
    const m = c.match(/rgba?\(([^)]+)\)/); if (!m) { return [0, 0, 0, 0]; }
    const p = m[1].split(',').map(x => parseFloat(x));
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  function over(top, bottom) {  // top over bottom, both [r, g, b, a]
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) { return [0, 0, 0, 0]; }
    return [0, 1, 2].map(i => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
  }
  function background(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { layers.push(parse(getComputedStyle(e).backgroundColor)); }
    let bg = [255, 255, 255, 1];  // the canvas behind the root
    for (let i = layers.length - 1; i >= 0; i--) { bg = over(layers[i], bg); }
    return bg;
  }
  function lum(c) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  const sel = '.bd-article .cell_output *, .bd-article figcaption, .bd-article figcaption *, .bd-article table *, ' +
              '.bd-article .admonition *';
  const bad = [];
  for (const el of document.querySelectorAll(sel)) {
    const own = Array.from(el.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim()).join(' ');
    if (!own) { continue; }
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) { continue; }
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || parseFloat(s.opacity) === 0) { continue; }
    const bg = background(el);
    const fg = over(parse(s.color), bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < minRatio) { bad.push(`${ratio.toFixed(2)}: "${own.slice(0, 50)}" (${el.tagName.toLowerCase()}, ${s.color} on rgb(${bg.slice(0, 3).map(Math.round)}))`); }
  }
  return bad;
}"""


PAGES = [d for d, _ in result_pages()] + [d for d in toc_documents() if d.endswith(("claims", "errata", "reconstructions"))]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("doc", PAGES)
def test_text_of_outputs_captions_and_tables_meets_wcag_aa_contrast(doc, theme, pages):
    page = pages(doc, "desktop" if theme == "light" else "dark")
    # the theme switch follows the reader's system preference
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme, \
        f"{doc}: the page did not follow the reader's {theme} colour scheme"
    bad = page.evaluate(_CONTRAST, MIN_CONTRAST)
    assert not bad, f"{doc} ({theme} theme): text below {MIN_CONTRAST}:1 contrast:\n" + "\n".join(bad[:12])
