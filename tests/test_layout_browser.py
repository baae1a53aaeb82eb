"""The pages a deployer reads most, at a desktop width (1400 px) and a phone's (390 px), in both languages:
screenshots for a person to look at, and no element wider than the viewport outside a scroll container.
Tabs keep their whole label, and print shows every tab's content under its label. At the desktop width no
generated table needs horizontal scroll (the release matrix of the compatibility page aside).

Screenshots go to HANDBOOK_SCREENSHOTS (default: screenshots/ at the repository root, git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(os.environ.get("HANDBOOK_SCREENSHOTS", REPO / "screenshots"))
PAGES = ["02-memory/", "04-parameters/", "06-models/", "planner/"]
WIDTHS = [1400, 390]

# Visible elements whose right edge passes the viewport and that no scrolling ancestor contains.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    let hidden = false, scrolled = false;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.visibility === "hidden" || s.display === "none" || s.opacity === "0") { hidden = true; break; }
      if (["auto", "scroll", "hidden"].includes(s.overflowX) && p.getBoundingClientRect().right <= width + 1) {
        scrolled = true; break;
      }
    }
    if (!hidden && !scrolled) out.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(box.right)}`);
  }
  return out.slice(0, 10);
}"""


@contextmanager
def page_at(browser, width: int, height: int = 1000) -> Iterator[object]:
    """A fresh page in a browser window of this size, closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        yield context.new_page()
    finally:
        context.close()


def url(site_url: str, lang: str, rel: str) -> str:
    return f"{site_url}/{'en/' if lang == 'en' else ''}{rel}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("rel", PAGES)
def test_the_page_fits_its_viewport_and_is_photographed(browser, site_url, rel, lang, width):
    with page_at(browser, width) as page:
        page.goto(url(site_url, lang, rel))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{lang}-{rel.strip('/')}-{width}.png"))
        assert page.evaluate(OVERFLOWING) == []


DOCS = REPO / "docs" / "en"
# The release-by-command matrix of the compatibility page is a matrix: one column per stored release.
SCROLL_ALLOWED = {"compatibility/"}
WIDE_PAGES = sorted(
    ("" if p.stem == "index" else f"{p.stem}/")
    for p in DOCS.glob("*.md")
    if f"{p.stem}/" not in SCROLL_ALLOWED
)
SCROLLED_TABLES = """() => [...document.querySelectorAll('.md-typeset__table')]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .map(w => `${(w.querySelector('th') || {}).textContent}: ${w.scrollWidth} > ${w.clientWidth}`)"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_tables_fit_a_desktop_page_without_horizontal_scroll(browser, site_url, lang):
    with page_at(browser, 1400) as page:
        scrolled = {}
        for rel in WIDE_PAGES:
            page.goto(url(site_url, lang, rel))
            found = page.evaluate(SCROLLED_TABLES)
            if found:
                scrolled[rel] = found
        assert scrolled == {}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_tab_labels_are_never_cut_off(browser, site_url, lang):
    with page_at(browser, 1400) as page:
        page.goto(url(site_url, lang, "06-models/"))
        cut = page.evaluate(
            """() => [...document.querySelectorAll('.tabbed-labels > label')]
                 .filter(l => l.scrollWidth > l.clientWidth + 1
                          || l.getBoundingClientRect().right > l.closest('.tabbed-set').getBoundingClientRect().right + 1)
                 .map(l => l.textContent)"""
        )
        assert cut == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_print_shows_every_tab_under_its_label(browser, site_url, lang):
    with page_at(browser, 1000, 1400) as page:
        page.goto(url(site_url, lang, "06-models/"))
        page.emulate_media(media="print")
        sets = page.evaluate(
            """() => [...document.querySelectorAll('.tabbed-set')].map(set => {
                 const labels = [...set.querySelectorAll(':scope > .tabbed-labels > label')];
                 const blocks = [...set.querySelectorAll(':scope > .tabbed-content > .tabbed-block')];
                 return blocks.map((block, i) => {
                   const b = block.getBoundingClientRect(), l = labels[i].getBoundingClientRect();
                   const next = blocks[i + 1] ? blocks[i + 1].getBoundingClientRect().top : Infinity;
                   return b.height > 0 && l.height > 0 && l.bottom <= b.top + 1 && b.bottom <= next;
                 });
               })"""
        )
        assert sets and all(all(ok) for ok in sets)
