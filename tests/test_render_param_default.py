"""A parameter's default inside a sentence (kb:param-default, handbook/render/params.py)."""

from __future__ import annotations

import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.kb.loader import KB
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page


@pytest.fixture
def kb(kb_mini_plus: KB) -> KB:
    return kb_mini_plus


def render(kb: KB, markdown: str, lang: str, page: str) -> str:
    return render_page(markdown + "\n", RenderContext(kb, lang, page), f"docs/{lang}/{page}").strip()


def errors(kb: KB, markdown: str, page: str = "06-models.md") -> list[str]:
    with pytest.raises(MarkerErrors) as caught:
        render(kb, markdown, "zh", page)
    return [str(p) for p in caught.value.problems]


# ------------------------------------------------------------------------------------ kb:param-default
def test_param_default_shows_a_value_or_the_word_for_its_kind(kb):
    assert (
        render(kb, "默认 **<!-- kb:param-default flag=--tp-size -->**。", "zh", "06-models.md")
        == "默认 **1**。"
    )
    assert render(kb, "<!-- kb:param-default flag=--tp -->", "en", "06-models.md") == "1"  # an alias
    assert (
        render(kb, "<!-- kb:param-default flag=--mem-fraction-static -->", "en", "06-models.md")
        == "automatic"
    )
    assert render(kb, "<!-- kb:param-default flag=--mem-fraction-static -->", "zh", "06-models.md") == "自动"
    router = "<!-- kb:param-default flag=--pd-disaggregation program=launch_router -->"
    assert render(kb, router, "zh", "06-models.md") == "关闭"


def test_param_default_of_an_unknown_flag_names_the_program(kb):
    assert errors(kb, "<!-- kb:param-default flag=--pd-disaggregation -->", "06-models.md") == [
        "docs/zh/06-models.md:1: kb:param-default: --pd-disaggregation is not a launch_server parameter "
        "in kb/parameters/"
    ]
