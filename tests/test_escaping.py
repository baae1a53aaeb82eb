"""KB strings with HTML and Markdown metacharacters are shown literally in commands and in diagrams.

(Tables: tests/test_render_core.py.) A command is checked twice: the Markdown a renderer emits (the fence
must be longer than any backtick run inside it, so the block cannot end early), and the HTML that the
site's Markdown extensions make of it, whose code text must be the command exactly.
"""

from __future__ import annotations

import html
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import markdown
import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.calc.recipe_text import command_text
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.markers import render_page

FIXTURE_KB = Path(__file__).parent / "fixtures" / "kb-mini"
NASTY = "<script>alert(1)</script> | *a* `b` ``c`` ```d``` &amp;"
NASTY_FLAG = f"--model-path '{NASTY}'"  # one shell word: what a reader copies
NASTY_ENV = "a|b *c* `d` <i>e</i>"


def site_markdown() -> markdown.Markdown:
    """The Markdown extensions of mkdocs.yml that touch code blocks, configured as the site configures them."""
    return markdown.Markdown(
        extensions=[
            "attr_list", "md_in_html", "admonition", "pymdownx.superfences", "pymdownx.highlight",
            "pymdownx.inlinehilite", "pymdownx.tabbed",
        ],
        extension_configs={
            "pymdownx.highlight": {"anchor_linenums": False, "pygments_lang_class": True},
            "pymdownx.tabbed": {"alternate_style": True},
        },
    )  # fmt: skip


def code_texts(page_html: str) -> list[str]:
    """The text of every <code> inside a <pre>, as a browser shows it."""
    blocks = re.findall(r"<pre[^>]*>.*?<code[^>]*>(.*?)</code></pre>", page_html, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", block)).rstrip("\n") for block in blocks]


@pytest.fixture
def nasty_kb(tmp_path: Path):
    root = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, root)
    recipe = root / "recipes" / "latent-b-amd.yaml"
    text = recipe.read_text(encoding="utf-8")
    text = text.replace('value: "1"', f"value: '{NASTY_ENV}'")
    text = text.replace(
        "  - --model-path example/Latent-B\n",
        f'  - line: "{NASTY_FLAG}"\n    note: {{zh: 模板, en: template}}\n',
    )
    recipe.write_text(text, encoding="utf-8")
    return load_kb(root)


def test_a_command_with_metacharacters_stays_one_literal_fence(nasty_kb):
    recipe = nasty_kb.recipes["latent-b-amd"]
    command = command_text(recipe, "en")
    assert NASTY_FLAG in command and f"export SGLANG_USE_AITER={NASTY_ENV}" in command
    ctx = RenderContext(nasty_kb, "en", "06-models.md")
    out = render_page("<!-- kb:recipe id=latent-b-amd -->\n", ctx, "docs/en/06-models.md").strip()
    # the longest backtick run inside is ```, so the fence is four backticks: nothing inside can close it
    assert out.startswith(f"````bash\n{command}\n````\n\n")
    assert code_texts(site_markdown().convert(out)) == [command]


def test_a_command_with_metacharacters_stays_literal_inside_content_tabs(nasty_kb):
    ctx = RenderContext(nasty_kb, "en", "06-models.md")
    out = render_page("<!-- kb:recipe-tabs ids=dense-a-tp2,latent-b-amd -->\n", ctx, "p").strip()
    commands = [
        command_text(nasty_kb.recipes[r], "en", with_title=False) for r in ("dense-a-tp2", "latent-b-amd")
    ]
    assert code_texts(site_markdown().convert(out)) == commands


def test_the_line_note_beside_a_command_shows_the_flag_literally(nasty_kb):
    ctx = RenderContext(nasty_kb, "en", "06-models.md")
    page = site_markdown().convert(render_page("<!-- kb:recipe id=latent-b-amd -->\n", ctx, "p"))
    items = re.findall(r"<li>(.*?)</li>", page, re.S)
    shown = [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items]
    assert f"{NASTY_FLAG}: template" in shown
    assert "<script>" not in page.replace("&lt;script&gt;", "")


# ----------------------------------------------------------------------------------- diagrams
diagrams = pytest.importorskip("handbook.diagrams.architecture")


def _svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.split("\n", 1)[1] if svg.startswith("<?xml") else svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.find(f".//{ns}script") is None and root.find(".//script") is None
    return ["".join(t.itertext()) for t in root.iter(f"{ns}text")]


def test_a_diagram_label_with_metacharacters_is_drawn_literally(tmp_path):
    dot = shutil.which("dot")
    if dot is None:
        import os

        if os.environ.get("HANDBOOK_REQUIRE_DOT") == "1":
            pytest.fail("graphviz's dot is not installed; HANDBOOK_REQUIRE_DOT=1 forbids skipping")
        pytest.skip("graphviz's dot is not installed")
    from handbook.diagrams.files import render_svg

    root = tmp_path / "kb"
    shutil.copytree(REPO_ROOT / "kb", root)
    arch = root / "architecture.yaml"
    text = arch.read_text(encoding="utf-8")
    assert "en: OpenAI-compatible API}" in text
    arch.write_text(text.replace("en: OpenAI-compatible API}", f"en: '{NASTY}'}}", 1), encoding="utf-8")
    figure = diagrams.figures(load_kb(root))[0]
    texts = _svg_texts(render_svg(figure, "en", dot))
    assert f"· {NASTY}" in " ".join(" ".join(texts).split())
    assert NASTY in figure.drawings["en"].alt  # the alt text the page shows, escaped by kb:figure
