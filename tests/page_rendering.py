"""Rendering a page's markers in a test: the renderers registered, a page's markdown in one language, and the
marker problems a page raises (tests/test_render_*.py)."""

from __future__ import annotations

import pytest

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.kb.loader import KB
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page


def render(kb: KB, markdown: str, lang: str, page: str) -> str:
    return render_page(markdown + "\n", RenderContext(kb, lang, page), f"docs/{lang}/{page}").strip()


def errors(kb: KB, markdown: str, page: str) -> list[str]:
    """The problems rendering ``markdown`` as the Chinese ``page`` reports (it must report some)."""
    with pytest.raises(MarkerErrors) as caught:
        render(kb, markdown, "zh", page)
    return [str(p) for p in caught.value.problems]
