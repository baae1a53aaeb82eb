"""A parameter's default inside a sentence (kb:param-default, handbook/render/params.py)."""

from __future__ import annotations

import pytest
from page_rendering import errors, render

from handbook.kb.loader import KB


@pytest.fixture
def kb(kb_mini_plus: KB) -> KB:
    return kb_mini_plus


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
