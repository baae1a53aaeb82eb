"""MkDocs' own work kept by content across builds: a page's Markdown conversion (handbook/site/render_cache.py)
and its search entries (handbook/site/search_cache.py). Read back, each is what converting or indexing the
page again gives; any change of input converts or indexes again; a conversion that warns is never kept.
(tests/test_reproducible.py compares a whole second build, which reads both caches, with the first.)"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from handbook.site import render_cache, search_cache

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------------ search
class FakeIndex:
    """What the wrapper relies on of Material's SearchIndex: ``entries`` and ``add_entry_from_context``."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.calls = 0

    def add_entry_from_context(self, page) -> None:
        self.calls += 1
        self.entries += [{"location": page.url, "title": str(page.title), "text": page.content[:5]}]
        self.entries += [{"location": page.url + "#b", "title": "b", "text": page.content[5:], "boost": 2.0}]


def fake_page(content: str = "第一段文字 second", url: str = "x/", toc=()) -> SimpleNamespace:
    return SimpleNamespace(url=url, title="T", meta={}, toc=list(toc), content=content)


def test_search_entries_are_read_back_until_the_page_changes(tmp_path):
    folder = tmp_path / ".cache" / "search"
    first = FakeIndex()
    search_cache.SearchEntryCache(folder, {}).install(first)
    first.add_entry_from_context(fake_page())
    assert first.calls == 1 and len(list(folder.iterdir())) == 1

    again = FakeIndex()
    cache = search_cache.SearchEntryCache(folder, {})
    cache.install(again)
    cache.install(again)  # a second install wraps nothing more
    again.add_entry_from_context(fake_page())
    assert (again.calls, again.entries, cache.read) == (0, first.entries, 1)

    for changed in (fake_page("another text"), fake_page(url="y/"), fake_page(toc=[SimpleNamespace(
        id="a", url="#a", title="A", children=[])])):  # fmt: skip
        index = FakeIndex()
        search_cache.SearchEntryCache(folder, {}).install(index)
        index.add_entry_from_context(changed)
        assert index.calls == 1, changed


def test_a_broken_search_cache_file_is_indexed_again(tmp_path):
    folder = tmp_path / ".cache" / "search"
    index = FakeIndex()
    search_cache.SearchEntryCache(folder, {}).install(index)
    index.add_entry_from_context(fake_page())
    (kept,) = folder.iterdir()
    kept.write_text("{not json", encoding="utf-8")
    again = FakeIndex()
    search_cache.SearchEntryCache(folder, {}).install(again)
    again.add_entry_from_context(fake_page())
    assert again.calls == 1 and again.entries == index.entries


# ------------------------------------------------------------------------------------------------ render
@pytest.fixture
def site(tmp_path, monkeypatch):
    """A two-page MkDocs project with the handbook's Markdown configuration, and Page.render as MkDocs has
    it again after the test."""
    monkeypatch.setattr(Page, "render", getattr(Page.render, "_handbook_original", Page.render))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(
        '# A\n\n## One { #one }\n\nSee [b](b.md#two) and <span id="raw">x</span>.\n\n'
        "| x | y |\n|---|---|\n| 1 | 2 |\n\n```python\nprint(1)\n```\n",
        encoding="utf-8",
    )
    (docs / "b.md").write_text("# B\n\n## Two\n\nback to [a](a.md#one)\n", encoding="utf-8")
    yml = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    extensions = yml[yml.index("markdown_extensions:") : yml.index("validation:")]
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\ndocs_dir: docs\n{extensions}", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = Files([File(name, str(docs), str(tmp_path / "site"), True) for name in ("a.md", "b.md")])
    return SimpleNamespace(config=config, files=files, cache=tmp_path / ".cache" / "pages")


def rendered(site, name: str, markdown: str | None = None) -> Page:
    page = Page(None, site.files.get_file_from_path(name), site.config)
    page.read_source(site.config)
    if markdown is not None:
        page.markdown = markdown
    page.render(site.config, site.files)
    return page


def results(page: Page) -> list:
    toc = json.dumps([[i.id, i.title, i.level, [c.id for c in i.children]] for i in page.toc])
    links = {f.src_uri: a for f, a in (page.links_to_anchors or {}).items()}
    return [page.content, toc, page._title_from_render, sorted(page.present_anchor_ids), links]


def test_a_conversion_read_back_is_the_conversion(site):
    fresh = results(rendered(site, "a.md"))  # MkDocs' own, no cache installed
    cache = render_cache.install(site.cache)
    assert results(rendered(site, "a.md")) == fresh and cache.made == 1
    assert results(rendered(site, "a.md")) == fresh and cache.read == 1
    assert fresh[3] == ["a", "one", "raw"] and fresh[4]["b.md"] == {"two": "b.md#two"}


def test_any_change_of_input_converts_again(site):
    cache = render_cache.install(site.cache)
    rendered(site, "a.md")
    rendered(site, "a.md", markdown="# A\n\nchanged\n")
    assert (cache.made, cache.read) == (2, 0)
    site.config["mdx_configs"]["toc"]["permalink"] = False  # the configuration is an input
    rendered(site, "a.md", markdown="# A\n\nchanged\n")
    assert (cache.made, cache.read) == (3, 0)
    moved = Files([*site.files, File("c.md", str(site.cache), "/tmp", True)])  # so is where the pages are
    page = Page(None, site.files.get_file_from_path("a.md"), site.config)
    page.read_source(site.config)
    page.markdown = "# A\n\nchanged\n"
    page.render(site.config, moved)
    assert (cache.made, cache.read) == (4, 0)


def test_a_conversion_that_warns_is_not_kept_and_warns_again(site, caplog):
    cache = render_cache.install(site.cache)
    broken = "# A\n\n[nowhere](missing.md)\n"
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mkdocs"):
            rendered(site, "a.md", markdown=broken)
        assert "missing.md" in caplog.text
    assert (cache.made, cache.read) == (2, 0)


def test_installing_twice_wraps_once(site):
    first = render_cache.install(site.cache)
    assert render_cache.install(site.cache) is first
    assert Page.render._handbook_original.__name__ == "render"  # MkDocs' own, wrapped once
