"""Shared fixtures: the built site (once per session), a localhost server for it, a headless chromium, and
the fixture KB kb-mini with the additions in kb-mini-plus.

``nox -s tests`` builds the site into site/ first and points HANDBOOK_SITE_DIR at it; run alone, pytest
builds it once into a temporary folder. Browser tests skip when chromium is missing, unless
HANDBOOK_REQUIRE_BROWSER=1 (as in CI), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from handbook.kb.loader import KB, load_kb
from handbook.site.browser import CHROMIUM, CHROMIUM_ARGS, serve_folder  # one recipe for tests and tools
from handbook.site.build import build_site

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: HANDBOOK_SITE_DIR when given (already built), else a fresh build."""
    given = os.environ.get("HANDBOOK_SITE_DIR")
    if given:
        site = Path(given)
        assert (site / "index.html").is_file(), f"HANDBOOK_SITE_DIR={given} holds no built site"
        return site
    site = tmp_path_factory.mktemp("site") / "site"
    assert build_site(site) == 0, "the site does not build; run `python -m handbook build` to see why"
    return site


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site served on localhost (a random free port), without the final slash."""
    with serve_folder(built_site) as url:
        yield url.rstrip("/")


def _require_browser() -> None:
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return
    message = f"chromium not found at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("HANDBOOK_REQUIRE_BROWSER") == "1":
        pytest.fail(message + "; HANDBOOK_REQUIRE_BROWSER=1 forbids skipping")
    pytest.skip(message)


@pytest.fixture(scope="session")
def node() -> str:
    """node, to run the browser's scripts (skipped without it, unless HANDBOOK_REQUIRE_NODE=1, as in CI)."""
    found = shutil.which("node")
    if found:
        return found
    message = "node not found (apt-get install nodejs): the browser's scripts cannot be run"
    if os.environ.get("HANDBOOK_REQUIRE_NODE") == "1":
        pytest.fail(message + "; HANDBOOK_REQUIRE_NODE=1 forbids skipping")
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's chromium driven by Playwright (no `playwright install`: the system browser is used)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page in its own context, so state never leaks between tests."""
    context = browser.new_context()  # type: ignore[attr-defined]
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(scope="session")
def kb_mini_plus(tmp_path_factory: pytest.TempPathFactory) -> KB:
    """kb-mini with two quick-reference models (moe-d, moe-e) and a documentation source (docs-ep) added."""
    root = tmp_path_factory.mktemp("kb") / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    shutil.copytree(FIXTURES / "kb-mini-plus", root, dirs_exist_ok=True)
    return load_kb(root)
