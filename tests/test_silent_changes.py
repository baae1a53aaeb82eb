"""The source's words are shown as it wrote them, or the change is listed in the appendix's drift table."""

from __future__ import annotations

import re

import pytest

import handbook.render.renderers  # noqa: F401 - registers every kb: renderer
from handbook.core.text import in_lang
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext, esc
from handbook.render.markers import render_page

KB = load_kb()


def render(marker: str, lang: str, page: str) -> str:
    return render_page(marker + "\n", RenderContext(KB, lang, page), page)


def test_an_agreeing_percentage_is_shown_as_the_source_rounds_it():
    # 49/1600 = 3.06 % … 26/427 = 6.09 %: the source's "3%–6%", not the computed 3.1%–6.1%
    assert render("<!-- kb:claim id=moe-active-share -->", "zh", "01-landscape.md").strip() == "3%–6%"


def test_the_overview_shows_the_counts_the_source_gives():
    out = render("<!-- kb:models-overview -->", "en", "01-landscape.md")
    (row,) = re.findall(r'<tr id="qwen3.8-flash-next">(.*?)</tr>', out, re.S)
    assert "<td>176B / 6B</td>" in row  # the source's overview cell; 6.5's wording stays on 6.5


def test_the_yarn_note_keeps_the_sources_number():
    (note,) = KB.recipes["qwen3.5-397b-fp8-long-context-yarn"].notes
    assert note.zh.endswith("把 factor 减半到 2.0。") and note.en.endswith("halve the factor to 2.0.")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_other_changes_are_listed_in_the_drift_table(lang):
    out = render("<!-- kb:drift -->", lang, "09-appendix.md")
    assert len(KB.edits) >= 5
    for edit in KB.edits:
        row = f"<tr><td>{esc(in_lang(edit.section, lang))}</td><td>{esc(in_lang(edit.stated, lang))}<br>→ "
        assert row + f"{esc(in_lang(edit.published, lang))}</td>" in out  # said and published, one cell
