"""The built site in chromium: every page in both languages, as a reader's browser sees it.

Checked on every page: no console error, no request leaving 127.0.0.1 (fonts and CDNs included), and the
language switch to the same page in the other language and back. Then search in both languages for a word
that only ever occurs mid-sentence, and the copy button of a command.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from handbook.pages.headings import built_pages

pytestmark = [pytest.mark.browser, pytest.mark.site]

CJK = r"\u4e00-\u9fff"


def page_paths(built_site: Path) -> list[str]:
    """Every page's URL path below the site root, zh then en (``""`` is the home page)."""
    pages = built_pages(built_site, ("zh", "en"))
    zh = [rel.removesuffix("index.html") for rel in sorted(pages["zh"])]
    return zh + [f"en/{rel}" for rel in zh]


def reader_pages(visits: dict, built_site: Path) -> dict:
    """The visits (tests/conftest.py: every page opened once, in its own context, until the network is
    idle) of the pages a reader navigates: zh, then en."""
    return {path: visits[path] for path in page_paths(built_site)}


def test_every_page_loads_without_console_errors(visits, built_site):
    pages = reader_pages(visits, built_site)
    assert len(pages) >= 2
    assert {path: v.console_errors for path, v in pages.items() if v.console_errors} == {}


def test_no_page_fetches_anything_from_outside_localhost(visits, built_site):
    pages = reader_pages(visits, built_site)
    assert all(v.requests > 0 for v in pages.values())
    assert {path: v.outside_requests for path, v in pages.items() if v.outside_requests} == {}


def test_the_language_switch_keeps_the_reader_on_the_same_page(page, site_url, built_site):
    wrong = []
    for path in page_paths(built_site):
        if path.startswith("en/"):
            continue
        page.goto(f"{site_url}/{path}")
        current = path
        for lang, expected in (("en", f"en/{path}"), ("zh", path)):
            page.hover(".md-header__option .md-select")  # the switcher's menu opens on hover
            page.locator(f".md-select__link[hreflang={lang}]").click()
            page.wait_for_load_state()
            got = urlsplit(page.url).path.removeprefix("/")  # a page may keep its state in the query
            if got != expected:
                wrong.append(f"/{current}: the switch to {lang} went to /{got}, expected /{expected}")
            current = got
    assert wrong == []


# ----------------------------------------------------------------------------------- search
def _index(built_site: Path) -> list[dict]:
    return json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _mid_sentence_only(word: str, texts: list[str], before: str) -> bool:
    """``word`` occurs in ``texts``, and each time right after a character matching ``before``."""
    hits = [(text, m.start()) for text in texts for m in re.finditer(re.escape(word), text)]
    return bool(hits) and all(start > 0 and re.match(before, text[start - 1]) for text, start in hits)


def zh_mid_sentence_word(built_site: Path) -> str:
    """A Chinese word of the home page that the index holds as a segmented word and that never starts a text."""
    docs = [d for d in _index(built_site) if not d["location"].startswith("en/")]
    home = next(d for d in docs if d["location"] == "")
    texts = [_plain(d["title"] + " " + d["text"]).replace("\u200b", "") for d in docs]
    tokens = [t.strip() for t in _plain(home["text"]).split("\u200b")]
    for token in tokens:
        if re.fullmatch(f"[{CJK}]{{2,4}}", token) and _mid_sentence_only(token, texts, f"[{CJK}]"):
            return token
    raise AssertionError("no segmented Chinese word that occurs only mid-sentence on the home page")


def en_mid_sentence_word(built_site: Path) -> str:
    """An English word of the home page (7+ letters) that every text has only mid-sentence."""
    docs = [d for d in _index(built_site) if d["location"].startswith("en/")]
    home = next(d for d in docs if d["location"] == "en/")
    texts = [_plain(d["title"] + " " + d["text"]) for d in docs]
    for word in re.findall(r"(?<=[a-z,] )[a-z]{7,}(?=[ ,.])", _plain(home["text"])):
        if _mid_sentence_only(word, texts, r"[a-z ]") and _mid_sentence_only(" " + word, texts, "[a-z,]"):
            return word
    raise AssertionError("no English word that occurs only mid-sentence on the home page")


def test_the_search_index_holds_chinese_segmented_into_words(built_site):
    import jieba  # noqa: F401 - the search plugin segments Chinese only when jieba is installed

    zh_texts = [d["text"] for d in _index(built_site) if not d["location"].startswith("en/") and d["text"]]
    segmented = [t for t in zh_texts if "\u200b" in t]
    assert len(segmented) == len(zh_texts) > 0


def _search(page, site_url: str, start: str, query: str) -> list[tuple[str, str]]:
    page.goto(f"{site_url}/{start}")
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    page.locator(".md-search-result__item").first.wait_for(timeout=15_000)
    links = page.locator(".md-search-result__item > a.md-search-result__link")
    return [
        (urlsplit(links.nth(i).get_attribute("href") or "").path, links.nth(i).inner_text())
        for i in range(links.count())
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_search_finds_a_word_in_the_middle_of_a_sentence(page, site_url, built_site, lang):
    word = zh_mid_sentence_word(built_site) if lang == "zh" else en_mid_sentence_word(built_site)
    results = _search(page, site_url, "" if lang == "zh" else "en/", word)
    prefix = "/en/" if lang == "en" else "/"
    in_language = [(path, text) for path, text in results if (path.startswith("/en/")) == (lang == "en")]
    assert in_language, f"searching {word!r} found no {lang} page: {results}"
    assert any(word.lower() in text.lower() for _path, text in in_language), (word, in_language)
    assert all(path.startswith(prefix) for path, _text in in_language)


# ----------------------------------------------------------------------------------- copy button
def first_page_with_a_command(built_site: Path) -> str:
    for path in page_paths(built_site):
        if 'class="language-bash highlight"' in (built_site / path / "index.html").read_text(
            encoding="utf-8"
        ):
            return path
    raise AssertionError("no page shows a bash command")


def test_the_copy_button_copies_the_command(page, site_url, built_site):
    path = first_page_with_a_command(built_site)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    page.goto(f"{site_url}/{path}")
    block = page.locator(".language-bash.highlight").first
    page.evaluate("navigator.clipboard.writeText('nothing copied yet')")
    block.hover()
    block.locator("button[data-md-type=copy], button.md-clipboard").first.click()  # Material 9.8, older
    copied = page.evaluate("navigator.clipboard.readText()")
    shown = block.locator("code").inner_text()
    assert copied.strip() and copied.rstrip("\n") == shown.rstrip("\n")
