"""Marker replacement: unknown, malformed, misplaced or failing markers are errors with page:line; and the
pages place every recipe marker once, on the same page in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page

KB = load_kb(Path(__file__).parent / "fixtures" / "kb-mini")


def render(markdown: str, lang: str = "zh", page: str = "02-memory.md") -> str:
    return render_page(markdown, RenderContext(KB, lang, page), f"docs/{lang}/{page}")


def errors(markdown: str) -> list[str]:
    with pytest.raises(MarkerErrors) as caught:
        render(markdown)
    return [str(p) for p in caught.value.problems]


def test_every_problem_of_a_page_at_once():
    page = "\n".join(
        [
            "# T",
            "<!-- kb:nope -->",
            "<!-- kb:claim id=zz -->",
            "inline <!-- kb:baseline --> here",
            "<!-- kb:claim -->",
            "<!-- kb:claim id=dense-a-kv colour=red -->",
            "<!-- kb: bad -->",
        ]
    )
    assert errors(page) == [
        "docs/zh/02-memory.md:2: unknown marker kb:nope",
        "docs/zh/02-memory.md:3: kb:claim: 'zz' is not a claim id in kb/claims.yaml",
        "docs/zh/02-memory.md:4: kb:baseline renders a block: put it on a line of its own",
        "docs/zh/02-memory.md:5: kb:claim: missing argument(s) id (accepts: id)",
        "docs/zh/02-memory.md:6: kb:claim: unknown argument(s) colour (accepts: id)",
        "docs/zh/02-memory.md:7: malformed kb: marker (expected <!-- kb:name key=value -->)",
    ]


def test_unknown_marker_suggests_the_closest_name():
    assert errors("<!-- kb:recipes id=x -->") == [
        "docs/zh/02-memory.md:1: unknown marker kb:recipes (did you mean kb:recipe?)"
    ]


def test_markers_inside_code_fences_are_left_alone():
    page = "```text\n<!-- kb:nope -->\n```\n\n~~~~\n<!-- kb:claim -->\n~~~~\n"
    assert render(page) == page


def test_inline_marker_is_replaced_in_its_sentence():
    assert render("KV: <!-- kb:claim id=dense-a-kv -->, done.\n") == "KV: 320 KiB, done.\n"


def test_block_marker_keeps_its_indentation_inside_an_admonition():
    out = render('!!! note "x"\n\n    <!-- kb:log-line id=decode -->\n')
    assert out == (
        '!!! note "x"\n\n    \n'
        "    ```text\n    Decode batch. #running-req: 233, token usage: 0.82\n    ```\n\n"
    )


# ------------------------------------------------------------------------------------ the pages
RECIPE_MARKER = re.compile(r"<!--\s*kb:recipe(?:-tabs|-set)?\s+ids?=(\S+)")


def _placements(lang: str) -> dict[str, list[str]]:
    placed: dict[str, list[str]] = {}
    for page in sorted((REPO_ROOT / "docs" / lang).glob("*.md")):
        for match in RECIPE_MARKER.finditer(page.read_text(encoding="utf-8")):
            for rid in match.group(1).split(","):
                placed.setdefault(rid, []).append(page.name)
    return placed


def test_every_recipe_is_placed_once_on_the_same_page_in_both_languages():
    recipes = sorted(p.stem for p in (REPO_ROOT / "kb" / "recipes").glob("*.yaml"))
    zh, en = _placements("zh"), _placements("en")
    assert sorted(zh) == recipes
    assert all(len(pages) == 1 for pages in zh.values()), {r: p for r, p in zh.items() if len(p) > 1}
    assert en == zh
