"""The committed SVGs in headless chromium: no text outside the picture or its box, and Chinese glyphs drawn.

Each figure is opened as an SVG document (as an <img> shows it: system fonts only) and screenshotted, for a
person to look at, into HANDBOOK_SHOTS_DIR when it is set (else a temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handbook.core.paths import REPO_ROOT
from handbook.diagrams.catalogue import catalogue
from handbook.kb.loader import load_kb

pytestmark = pytest.mark.browser

TOLERANCE_PX = 0.5  # anti-aliasing of a glyph's edge, not a visible overflow

FIGURES = catalogue(load_kb())
SVGS = [figure.path(lang) for figure in FIGURES.values() for lang in figure.drawings]

# Every <text>: its box, and the innermost shape of its graphviz node that holds the text's centre
# (a table cell, a box); edge labels and the title have no node and only need to stay in the picture.
LAYOUT = """() => {
  const svg = document.documentElement;
  const view = svg.getBoundingClientRect();
  const box = (r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  const texts = [];
  for (const text of svg.querySelectorAll('text')) {
    const r = box(text.getBoundingClientRect());
    const node = text.closest('g.node');
    let holder = null;
    if (node) {
      const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
      let best = Infinity;
      for (const shape of node.querySelectorAll('polygon, path, ellipse, rect')) {
        const s = box(shape.getBoundingClientRect());
        const area = (s.right - s.left) * (s.bottom - s.top);
        if (s.left <= cx && cx <= s.right && s.top <= cy && cy <= s.bottom && area > 0 && area < best) {
          best = area;
          holder = s;
        }
      }
    }
    texts.push({text: text.textContent, box: r, holder, width: text.getComputedTextLength(),
                family: getComputedStyle(text).fontFamily, size: getComputedStyle(text).fontSize});
  }
  return {view: box(view), texts};
}"""

# Draw single characters on a canvas in the SVG's own font-family list. A character no installed font
# covers is drawn as the same "tofu" box as any other uncovered one (here a private-use character, which no
# font maps), so a real glyph must differ from that box and from the glyphs of other characters.
GLYPHS = """([chars, family]) => {
  const canvas = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (c) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.fillStyle = 'black';
    ctx.font = `48px ${family}`;
    ctx.textBaseline = 'middle';
    ctx.fillText(c, 4, 32);
    const data = ctx.getImageData(0, 0, 64, 64).data;
    let ink = 0, signature = '';
    for (let i = 3; i < data.length; i += 4) { ink += data[i]; signature += data[i] > 127 ? '1' : '0'; }
    return {ink, signature};
  };
  const tofu = draw('\\uE000');
  return {tofu, glyphs: chars.map((c) => ({char: c, ...draw(c)}))};
}"""


def _han(text: str) -> list[str]:
    return sorted({c for c in text if "\u4e00" <= c <= "\u9fff"})


def _inside(inner: dict, outer: dict) -> bool:
    return (
        inner["left"] >= outer["left"] - TOLERANCE_PX
        and inner["top"] >= outer["top"] - TOLERANCE_PX
        and inner["right"] <= outer["right"] + TOLERANCE_PX
        and inner["bottom"] <= outer["bottom"] + TOLERANCE_PX
    )


def _open(page, rel: str) -> None:
    page.goto((REPO_ROOT / rel).as_uri())
    size = "() => { const svg = document.documentElement; return [svg.width.baseVal.value, svg.height.baseVal.value]; }"
    width, height = (int(v) + 1 for v in page.evaluate(size))
    page.set_viewport_size({"width": width, "height": height})


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("HANDBOOK_SHOTS_DIR")
    folder = Path(given) if given else tmp_path_factory.mktemp("diagram-shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("rel", SVGS)
def test_no_text_is_clipped_or_spills_out_of_its_box(page, rel, shots):
    _open(page, rel)
    layout = page.evaluate(LAYOUT)
    assert layout["texts"], f"{rel} has no text"
    outside = [t["text"] for t in layout["texts"] if not _inside(t["box"], layout["view"])]
    assert not outside, f"{rel}: text outside the picture: {outside}"
    spilled = [t["text"] for t in layout["texts"] if t["holder"] and not _inside(t["box"], t["holder"])]
    assert not spilled, f"{rel}: text wider or taller than its box: {spilled}"
    page.screenshot(
        path=str(shots / (rel.removeprefix("assets/").replace("/", "_").removesuffix(".svg") + ".png"))
    )


@pytest.mark.parametrize("rel", [p for p in SVGS if "/en/" not in p])
def test_chinese_labels_are_drawn_with_real_glyphs(page, rel):
    _open(page, rel)
    layout = page.evaluate(LAYOUT)
    chinese = [t for t in layout["texts"] if _han(t["text"])]
    assert chinese, f"{rel} has no Chinese label"
    assert all(t["width"] > 0 for t in chinese), f"{rel}: a Chinese label has no width"
    family = chinese[0]["family"]
    assert "WenQuanYi Micro Hei" in family and "Noto Sans CJK SC" in family, family
    chars = _han(" ".join(t["text"] for t in chinese))
    drawn = page.evaluate(GLYPHS, [chars, family])
    tofu = drawn["tofu"]["signature"]
    boxes = [g["char"] for g in drawn["glyphs"] if g["ink"] == 0 or g["signature"] == tofu]
    assert not boxes, f"{rel}: drawn as empty or tofu boxes: {''.join(boxes)}"
    signatures = {g["signature"] for g in drawn["glyphs"]}
    assert len(signatures) == len(chars), f"{rel}: different characters share one glyph (fallback boxes)"


def test_the_glyph_check_sees_tofu(page):
    """The check itself: private-use characters, which no font covers, are caught as boxes."""
    page.set_content("<html><body></body></html>")
    family = "Noto Sans CJK SC,PingFang SC,Microsoft YaHei,WenQuanYi Micro Hei,sans-serif"
    drawn = page.evaluate(GLYPHS, [["\ue001", "\ue002", "中"], family])
    by_char = {g["char"]: g["signature"] for g in drawn["glyphs"]}
    assert by_char["\ue001"] == by_char["\ue002"] == drawn["tofu"]["signature"]
    assert by_char["中"] != drawn["tofu"]["signature"]
