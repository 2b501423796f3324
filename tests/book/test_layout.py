"""Readable on every screen (issue 29): at 390 px no page scrolls sideways (only an explicitly
scrollable table, code or equation container may) and no cell or caption is clipped; at 1280 px
no display equation, code block or table is wider than its box (cut off or hidden behind a
scroll bar)."""

from __future__ import annotations

import pytest

from .test_browser import toc_documents

#: at a phone's width: the page's own horizontal scrolling; text boxes that hide what does not
#: fit; anything past the right edge that is not inside a scroll container (overflow auto/scroll)
_PHONE = r"""() => {
  const out = [];
  const vw = window.innerWidth;
  if (document.documentElement.scrollWidth > vw + 1) { out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`); }
  const article = document.querySelector('.bd-article'); if (!article) { return out; }
  function inScroller(el) {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll') { return true; }
    }
    return false;
  }
  // a box that scrolls sideways must show it (the shadow of data-qtheory-scrolls): content cut at
  // its edge with no cue reads as the whole of it
  for (const el of article.querySelectorAll('*')) {
    const o = getComputedStyle(el).overflowX;
    if ((o === 'auto' || o === 'scroll') && el.scrollWidth > el.clientWidth + 1 && el.getBoundingClientRect().width > 0
        && getComputedStyle(el).boxShadow === 'none') {
      out.push(`${el.tagName.toLowerCase()} scrolls sideways (${el.scrollWidth}/${el.clientWidth} px) with no cue: `
               + `${(el.innerText || '').replace(/\s+/g, ' ').slice(0, 50)}`);
    }
  }
  for (const el of article.querySelectorAll('td, th, caption, figcaption, p, li, dt, dd, h1, h2, h3, a, code')) {
    const s = getComputedStyle(el);
    if ((s.overflowX === 'hidden' || s.overflowX === 'clip') && el.scrollWidth > el.clientWidth + 1) {
      out.push(`${el.tagName.toLowerCase()} clipped (${el.scrollWidth}/${el.clientWidth} px): ${(el.innerText || '').slice(0, 50)}`);
      continue;
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1 && !inScroller(el)) {
      out.push(`${el.tagName.toLowerCase()} past the screen's edge (right ${Math.round(r.right)} px): ${(el.innerText || '').slice(0, 50)}`);
    }
  }
  // inline math does not wrap: a formula wider than what is left of its line runs past the
  // screen or under the edge of a box that clips (an admonition)
  for (const el of article.querySelectorAll('mjx-container:not([display="true"])')) {
    if (inScroller(el)) { continue; }
    const r = el.getBoundingClientRect();
    if (r.width === 0) { continue; }
    let edge = vw;
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if (o === 'hidden' || o === 'clip') { edge = Math.min(edge, e.getBoundingClientRect().right); }
    }
    if (r.right > edge + 1) {
      const math = el.querySelector('mjx-assistive-mml');
      out.push(`inline math past ${edge < vw ? "its box's" : "the screen's"} edge (right ${Math.round(r.right)} px `
               + `of ${Math.round(edge)}): ${((math && math.textContent) || '').slice(0, 50)}`);
    }
  }
  return out;
}"""

#: at the desktop width: display equations, code blocks and tables that do not fit their box
_DESKTOP = r"""() => {
  const out = [];
  const article = document.querySelector('.bd-article'); if (!article) { return out; }
  const right = article.getBoundingClientRect().right;
  // how far the visible content of `el` reaches past its box (MathJax's hidden assistive MathML
  // has a layout box of its own and is left out)
  function excess(el) {
    const box = el.getBoundingClientRect();
    let reach = box.right;
    for (const d of el.querySelectorAll('*')) {
      if (d.closest('mjx-assistive-mml')) { continue; }
      const r = d.getBoundingClientRect();
      if (r.width > 0) { reach = Math.max(reach, r.right); }
    }
    return reach - box.right;
  }
  for (const el of article.querySelectorAll('mjx-container[display="true"], div.highlight pre, table')) {
    if (el.closest('details:not([open])')) { continue; }
    const r = el.getBoundingClientRect();
    if (r.width === 0) { continue; }  // hidden (a collapsed cell)
    const hidden = el.tagName === 'PRE' ? el.scrollWidth - el.clientWidth : excess(el);
    if (hidden > 1 || r.right > right + 1) {
      out.push(`${el.tagName.toLowerCase()} reaches ${Math.round(hidden)} px past its ${Math.round(r.width)} px box: `
               + `${(el.innerText || '').replace(/\s+/g, ' ').slice(0, 50)}`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("doc", toc_documents())
def test_at_390_px_nothing_scrolls_sideways_or_is_clipped(doc, pages):
    bad = pages(doc, "phone").evaluate(_PHONE)
    assert not bad, f"{doc} at 390 px:\n" + "\n".join(bad[:12])


@pytest.mark.parametrize("doc", toc_documents())
def test_at_1280_px_equations_code_and_tables_fit_their_box(doc, pages):
    bad = pages(doc, "desktop").evaluate(_DESKTOP)
    assert not bad, f"{doc} at 1280 px:\n" + "\n".join(bad[:12])


def test_a_table_of_sentences_reads_as_cards_on_a_phone_and_on_a_desktop(pages):
    """The errata page's table (sentences in five columns) was a strip of very tall rows cut at the
    right edge at 390 px (issue 41): on a phone each row is a card, each cell under its column's name.
    At 1280 px the same sentences squeezed into five or six narrow columns ran to 22 lines a cell
    (errata) and 71 (reconstructions, set smaller to fit six columns): there each cell stands beside
    its column's name, at the text's own size, whenever that makes the page's tables of sentences at
    least 15% shorter or one of them would scroll sideways; otherwise they keep their columns, which
    then fit the column. Either way no cell runs past 20 lines. A table of numbers keeps its columns."""
    probe = """() => Array.from(document.querySelectorAll('.bd-article table')).map(t => ({
        cards: t.classList.contains('qtheory-cards'), wide: t.classList.contains('qtheory-cards-wide'),
        labelled: t.querySelectorAll('td[data-label]').length,
        scrolls: t.parentElement.scrollWidth > t.parentElement.clientWidth + 1,
        lines: Math.max(...Array.from(t.querySelectorAll('td')).map(td => {
            const s = getComputedStyle(td);
            return (td.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)) / parseFloat(s.lineHeight); })),
        font: parseFloat(getComputedStyle(t).fontSize) / parseFloat(getComputedStyle(t.parentElement).fontSize)}))"""
    tables = pages("book/errata", "phone").evaluate(probe)
    assert tables and all(t["cards"] and t["labelled"] and not t["scrolls"] for t in tables), tables
    for doc in ("book/errata", "book/reconstructions"):
        tables = pages(doc, "desktop").evaluate(probe)
        assert tables and all(not t["cards"] and t["labelled"] and not t["scrolls"] for t in tables), (doc, tables)
        assert len({t["wide"] for t in tables}) == 1, (doc, tables)         # one way per page
        assert max(t["lines"] for t in tables) <= 20 and min(t["font"] for t in tables) > 0.95, (doc, tables)
    for doc, view in (("book/redundancy/R-T1", "desktop"), ("book/redundancy/R-T1", "phone")):
        tables = pages(doc, view).evaluate(probe)
        numbers = [t for t in tables if not t["labelled"]]
        assert numbers and not any(t["cards"] or t["wide"] for t in numbers), (doc, tables)


#: at a phone's width, the captions of tables and figures: any part past the screen's edge, or
#: inside a box that scrolls sideways (a caption that scrolls with its table is read in pieces)
_CAPTIONS = r"""() => {
  const out = [];
  const vw = window.innerWidth;
  const article = document.querySelector('.bd-article'); if (!article) { return out; }
  for (const el of article.querySelectorAll('caption, figcaption')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) { continue; }
    let scroller = null;
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if ((o === 'auto' || o === 'scroll') && e.scrollWidth > e.clientWidth + 1) { scroller = e; break; }
    }
    const text = (el.innerText || '').replace(/\s+/g, ' ').slice(0, 60);
    if (r.right > vw + 1 || r.left < -1) {
      out.push(`${el.tagName.toLowerCase()} runs past the screen's edge (${Math.round(r.left)} to ${Math.round(r.right)} px): ${text}`);
    } else if (scroller) {
      out.push(`${el.tagName.toLowerCase()} scrolls with a ${scroller.scrollWidth} px wide box: ${text}`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("doc", toc_documents())
def test_at_390_px_every_caption_is_read_whole_outside_its_tables_scroll_box(doc, pages):
    """A table's caption was part of the table, so at 390 px it scrolled with a wide table and was
    cut at the screen's edge mid-sentence (L-R-finite twice, R-F3cd, R-T1; issue 50)."""
    bad = pages(doc, "phone").evaluate(_CAPTIONS)
    assert not bad, f"{doc} at 390 px:\n" + "\n".join(bad[:12])


def test_at_390_px_the_claims_summary_shows_every_column(pages):
    """The claims page's summary (a row per paper, eight columns) put its last columns off the screen
    behind a faint scroll cue (issue 50): every cell of it is on the screen, nothing scrolls."""
    summary = pages("book/claims", "phone").evaluate("""() => {
        const t = document.querySelector('.bd-article table');
        const box = t.parentElement;
        return {heads: Array.from(t.querySelectorAll('th')).map(th => th.textContent.trim()),
                rows: Array.from(t.querySelectorAll('tbody tr')).map(tr => tr.children[0].textContent.trim()),
                right: Math.max(...Array.from(t.querySelectorAll('th, td')).map(c => c.getBoundingClientRect().right)),
                scrolls: box.scrollWidth > box.clientWidth + 1, vw: window.innerWidth};
    }""")
    assert "claims" in summary["rows"] and "errata" in summary["rows"], summary
    assert not summary["scrolls"] and summary["right"] <= summary["vw"], summary
