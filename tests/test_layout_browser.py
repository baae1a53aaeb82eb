"""The pages a deployer reads most, at a desktop width (1400 px) and a phone's (390 px), in both languages:
screenshots for a person to look at, and no element wider than the viewport outside a scroll container.
Tabs keep their whole label, and print shows every tab's content under its label. At the desktop width no
generated table needs horizontal scroll (the release matrix of the compatibility page aside).

At 390 px, on the pages that hold commands, trees, diagrams and wide tables: no reader text is under 12 px;
a diagram's smallest label is at least 9 px at the width it renders, it opens full size on tap and has a
text version; a command shows every line whole (nothing scrolled out of sight), one flag per line with a
continuation, and the copy button covers none of its text; a table wider than the screen says it scrolls;
no tree or text table is drawn in a <pre>.

Screenshots go to HANDBOOK_SCREENSHOTS (default: screenshots/ at the repository root, git-ignored): the
first screen of every page below at both widths, and the whole page of the start page, chapters 05 and 06
and the three tools.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(os.environ.get("HANDBOOK_SCREENSHOTS", REPO / "screenshots"))
PAGES = ["", "02-memory/", "03-architecture/", "04-parameters/", "05-parallelism/", "06-models/", "07-tuning/",
         "08-production/", "planner/", "configurator/", "doctor/"]  # fmt: skip
WIDTHS = [1400, 390]
# Photographed whole for the closing review: the start page, chapters 05 and 06, the three tools.
WHOLE = {"", "05-parallelism/", "06-models/", "planner/", "configurator/", "doctor/"}
PHONE = 390

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


def shot_name(lang: str, rel: str, width: int, whole: bool = False) -> str:
    return f"{lang}-{rel.strip('/') or 'start'}-{width}{'-whole' if whole else ''}.png"


def open_page(page, site_url: str, lang: str, rel: str) -> None:
    """The page, loaded with its scripts run (the tools fetch their data) and its lazy images in."""
    page.goto(url(site_url, lang, rel), wait_until="networkidle")
    page.evaluate(
        "() => Promise.all([...document.images].map(i => (i.loading = 'eager', i.decode().catch(() => 0))))"
    )


# What the checks below read from each page at each width, measured when the viewport test opens it (every
# page at both widths) and read again by the later tests: one load of each page at each width, not three.
_MEASURED: dict[tuple[str, str, int], dict] = {}
LEGIBLE_AT_1400 = ["02-memory/", "03-architecture/", "05-parallelism/", "06-models/"]


def _measure(page, rel: str, width: int) -> dict:
    out = {"overflowing": page.evaluate(OVERFLOWING)}
    if width == PHONE:
        for name, script in (("small_text", SMALL_TEXT), ("diagrams", DIAGRAMS), ("commands", COMMANDS)):
            out[name] = page.evaluate(script)
        out["scrolling_tables"] = page.evaluate(SCROLLING_TABLES)
        out["trees_in_pre"] = page.evaluate(TREES_IN_PRE)
    elif rel in LEGIBLE_AT_1400:
        out["diagrams"] = page.evaluate(DIAGRAMS)
    return out


def measured(browser, site_url: str, rel: str, lang: str, width: int) -> dict:
    """The page's measurements at this width: those the viewport test took, or (a test run alone) taken
    now in a page opened for them."""
    key = (rel, lang, width)
    if key not in _MEASURED:
        with page_at(browser, width) as page:
            open_page(page, site_url, lang, rel)
            _MEASURED[key] = _measure(page, rel, width)
    return _MEASURED[key]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("rel", PAGES)
def test_the_page_fits_its_viewport_and_is_photographed(browser, site_url, rel, lang, width):
    with page_at(browser, width) as page:
        open_page(page, site_url, lang, rel)
        _MEASURED[rel, lang, width] = found = _measure(page, rel, width)  # before the screenshots
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / shot_name(lang, rel, width)))
        if rel in WHOLE:
            page.screenshot(path=str(SHOTS / shot_name(lang, rel, width, whole=True)), full_page=True)
        assert found["overflowing"] == []


# ------------------------------------------------------------------------------------------ 390 px
# Every visible piece of text in the article under 12 px (font size as computed), with where it is.
SMALL_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('.md-content'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (![...range.getClientRects()].some(r => r.width > 0 && r.height > 0)) continue;  // not rendered
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    const size = parseFloat(style.fontSize);
    if (size < 12) out.push(`${size.toFixed(1)}px ${el.tagName.toLowerCase()}.${el.className}: ${node.textContent.trim().slice(0, 40)}`);
  }
  return out.slice(0, 15);
}"""

# Each diagram: its smallest label at the width it renders, the link that opens it, its text version.
DIAGRAMS = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('.md-content img.diagram')) {
    const svg = await (await fetch(img.currentSrc || img.src)).text();
    const box = svg.match(/viewBox="[-\\d.]+ [-\\d.]+ ([\\d.]+) ([\\d.]+)"/);
    const sizes = [...svg.matchAll(/<text\\b[^>]*font-size="([\\d.]+)"[^>]*>([^<]*)<\\/text>/g)]
      .filter(m => m[2].trim()).map(m => parseFloat(m[1]));
    const style = getComputedStyle(img);
    const drawn = img.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const link = img.closest('a');
    const figure = img.closest('figure');
    const text = figure && figure.nextElementSibling;
    out.push({
      src: img.getAttribute('src'),
      label_px: Math.min(...sizes) * drawn / parseFloat(box[1]),
      opens: !!link && link.href === img.src,
      text: text && text.matches('details.figure-text') ? text.textContent.trim().length : 0,
    });
  }
  return out;
}"""

# Each shell code block: whether a line is scrolled out of sight, its lines, and whether the copy
# button's box meets the box of any of its text.
COMMANDS = """() => [...document.querySelectorAll('.md-content div[class*="language-bash"] pre, .md-content div[class*="language-shell"] pre')]
  .filter(pre => pre.getClientRects().length).map(pre => {
    const code = pre.querySelector('code');
    const nav = pre.querySelector('.md-code__nav');
    const navBox = nav && nav.getClientRects().length ? nav.getBoundingClientRect() : null;
    let covered = [];
    if (navBox) {
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        const meets = r => r.right > navBox.left && r.left < navBox.right && r.bottom > navBox.top && r.top < navBox.bottom;
        const range = document.createRange();
        range.selectNodeContents(node);
        if (![...range.getClientRects()].some(meets)) continue;
        for (let i = 0; i < node.length; i++) {  // a blank where a line wraps may hang under it; a letter may not
          if (!node.textContent[i].trim()) continue;
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          if ([...range.getClientRects()].some(meets)) { covered.push(node.textContent.trim()); break; }
        }
      }
    }
    return {cut: code.scrollWidth > code.clientWidth + 1, lines: code.textContent.split('\\n'), covered};
  })"""

SCROLLING_TABLES = """() => [...document.querySelectorAll('.md-content .md-typeset__scrollwrap')]
  .filter(w => w.getClientRects().length && w.scrollWidth > w.clientWidth + 1)
  .map(w => ({head: ((w.querySelector('th') || {}).textContent || '').trim(), says: w.classList.contains('scrolls')
    && getComputedStyle(w, '::before').content.length > 2}))"""

TREES_IN_PRE = """() => [...document.querySelectorAll('.md-content pre')]
  .filter(pre => /[├└│┌┐┘]/.test(pre.textContent)).map(pre => pre.textContent.slice(0, 40))"""

_FLAG = re.compile(r"(?:^|\s)--[a-z]")


def flags_per_line_problems(lines: list[str]) -> list[str]:
    r"""Lines of a command that hold more than one flag, or that a flag line follows without a ``\``."""
    out = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            continue
        if len(_FLAG.findall(line)) > 1:
            out.append(f"two flags: {line}")
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if re.match(r"\s+--[a-z]", following) and not line.rstrip().endswith("\\"):
            out.append(f"no continuation: {line}")
    return out


def test_one_flag_per_line_is_what_the_check_means():
    assert flags_per_line_problems(["python -m x \\", "  --a 1 \\", "  --b 2"]) == []
    assert flags_per_line_problems(["python -m x --a 1 --b 2"]) == ["two flags: python -m x --a 1 --b 2"]
    assert flags_per_line_problems(["python -m x", "  --a 1"]) == ["no continuation: python -m x"]
    assert flags_per_line_problems(["# --a and --b are comments", "export A=1"]) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("rel", PAGES)
def test_at_390_px_nothing_is_cut_and_nothing_is_too_small(browser, site_url, rel, lang):
    found = measured(browser, site_url, rel, lang, PHONE)
    assert found["small_text"] == []
    for diagram in found["diagrams"]:
        assert diagram["label_px"] >= 9, diagram
        assert diagram["opens"] and diagram["text"] > 20, diagram
    for command in found["commands"]:
        assert not command["cut"], command["lines"]
        assert command["covered"] == [], command["lines"]
        assert flags_per_line_problems(command["lines"]) == []
    assert [t for t in found["scrolling_tables"] if not t["says"]] == []
    assert found["trees_in_pre"] == []


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("rel", LEGIBLE_AT_1400)
def test_at_1400_px_diagram_labels_are_legible_too(browser, site_url, rel, lang):
    diagrams = measured(browser, site_url, rel, lang, 1400)["diagrams"]
    assert diagrams and [d for d in diagrams if d["label_px"] < 9] == []


def test_the_390_px_checks_see_what_they_check(browser, site_url):
    """Chapter 05 holds diagrams, commands and a wide table at 390 px; the checks find them."""
    with page_at(browser, PHONE) as page:
        open_page(page, site_url, "en", "05-parallelism/")
        assert len(page.evaluate(DIAGRAMS)) >= 6
        assert len(page.evaluate(COMMANDS)) >= 5
        page.goto(url(site_url, "en", "06-models/"), wait_until="networkidle")
        assert page.evaluate(SCROLLING_TABLES)  # the cheat sheet is wider than a phone


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
