"""Shared fixtures: the built site (once per session), a localhost server for it, a headless chromium, and
the fixture KB kb-mini with the additions in kb-mini-plus.

``nox -s tests`` builds the site into site/ first and points HANDBOOK_SITE_DIR at it; run alone, pytest
builds it once into a temporary folder, and only when a selected test asks for it. Browser tests skip when
chromium is missing, unless HANDBOOK_REQUIRE_BROWSER=1 (as in CI), where a missing browser is a failure.

Each test is marked by what it needs, from the fixtures it asks for (``pytest_collection_modifyitems``):
``site`` (the built site), ``browser`` (chromium), ``node``, ``build`` (a site build of their own: the
poisoned KB's, or marked by hand); ``slow`` is set by hand on tests of a second or more. ``nox -s unit`` runs
the rest (noxfile.py's UNIT), in under two minutes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from handbook.kb.loader import KB, load_kb
from handbook.site.browser import CHROMIUM, CHROMIUM_ARGS, serve_folder  # one recipe for tests and tools
from handbook.site.build import build_site

FIXTURES = Path(__file__).parent / "fixtures"
# fixture → the marker of every test that uses it (directly or through another fixture)
NEEDS = {"built_site": "site", "browser": "browser", "node": "node", "poisoned_site": "build"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in set(getattr(item, "fixturenames", ())) & NEEDS.keys():
            item.add_marker(NEEDS[fixture])


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


# ----------------------------------------------------------------------------------- every page, visited once
LOCAL_HOSTS = {"127.0.0.1"}
IN_PAGE_SCHEMES = ("data:", "blob:", "about:")  # content the page carries itself; nothing is fetched
# Registered before any script of a page runs: every Content-Security-Policy violation the page reports
_LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


@dataclass
class Visit:
    """One page opened in chromium: what it logged and fetched while loading, then the policy violations
    and policy messages once its tools were used."""

    console_errors: list[str] = field(default_factory=list)  # while loading, until the network is idle
    outside_requests: list[str] = field(default_factory=list)
    requests: int = 0
    violations: list[str] = field(default_factory=list)
    policy_messages: list[str] = field(default_factory=list)


def visited_pages(built_site: Path) -> list[str]:
    """Every page's URL path below the site root (``""`` is the home page), and the 404 page."""
    pages = sorted(
        p.relative_to(built_site).as_posix().removesuffix("index.html")
        for p in built_site.rglob("index.html")
        if not p.relative_to(built_site).as_posix().startswith(("assets/", "search/"))
    )
    return pages + ["404.html"]


def _use_tools(tab, rel: str) -> None:
    """What a reader does first on the pages that run scripts: the doctor checks a command, the configurator
    changes a choice, the planner computes, the home pages search."""
    if rel.rstrip("/").endswith("doctor"):
        tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)
        tab.fill("#doc-input", "python -m sglang.launch_server --model-path m --tp-sise 2")
        tab.wait_for_function("() => document.querySelector('[data-doctor]').dataset.result !== 'checking'")
    elif rel.rstrip("/").endswith("configurator"):
        tab.wait_for_selector("[data-configurator][data-ready=true]", timeout=15_000)
        tab.select_option("#cfg-gpu", index=1)
    elif rel.rstrip("/").endswith("planner"):
        tab.wait_for_timeout(300)
    elif rel in ("", "en/"):  # the search (its worker, its index)
        tab.click("label.md-search__icon, .md-search__input", timeout=5_000)
        tab.fill(".md-search__input", "tp-size")
        tab.wait_for_timeout(800)


@pytest.fixture(scope="session")
def visits(browser: object, site_url: str, built_site: Path) -> dict[str, Visit]:
    """Every page of both languages opened once, each in its own context (an empty cache), until the
    network is idle, then its tools used: tests/test_browser.py and tests/test_csp.py read what each did
    (one visit per page serves both, instead of one each)."""
    out: dict[str, Visit] = {}
    pages = visited_pages(built_site)
    for first in range(0, len(pages), VISITS_AT_ONCE):
        batch = pages[first : first + VISITS_AT_ONCE]
        opened = {path: _open(browser, out.setdefault(path, Visit())) for path in batch}
        for path, (_, tab, _) in opened.items():
            tab.goto(f"{site_url}/{path}", wait_until="commit")
        for _, tab, loading in opened.values():  # they load side by side: their idle waits overlap
            tab.wait_for_load_state("networkidle")
            loading[0] = False
        for path, (context, tab, _) in opened.items():
            _use_tools(tab, path)
            out[path].violations = tab.evaluate("window.__violations")
            context.close()
    return out


# Pages loading at once in the visits: each waits for its network to be idle (500 ms without a request),
# and those waits overlap; more would only queue on two cores.
VISITS_AT_ONCE = 4


def _open(browser: object, visit: Visit) -> tuple[object, object, list[bool]]:
    """A context of its own (an empty cache) and a tab that records into ``visit``; the list says whether
    the page is still loading."""
    context = browser.new_context()  # type: ignore[attr-defined]
    context.add_init_script(_LISTEN)

    def on_request(request):
        visit.requests += 1
        url = request.url
        if not url.startswith(IN_PAGE_SCHEMES) and urlsplit(url).hostname not in LOCAL_HOSTS:
            visit.outside_requests.append(url)

    def keep_local(route):
        host = urlsplit(route.request.url).hostname
        route.continue_() if host in LOCAL_HOSTS else route.abort()  # never wait on the network

    context.on("request", on_request)
    context.route("**/*", keep_local)
    tab = context.new_page()
    loading = [True]

    def on_console(message):
        if "Content Security Policy" in message.text:
            visit.policy_messages.append(message.text)
        if message.type == "error" and loading[0]:
            visit.console_errors.append(message.text)

    def on_error(error):
        if loading[0]:
            visit.console_errors.append(f"uncaught: {error}")

    tab.on("console", on_console)
    tab.on("pageerror", on_error)
    return context, tab, loading


@pytest.fixture(scope="session")
def kb_mini_plus(tmp_path_factory: pytest.TempPathFactory) -> KB:
    """kb-mini with two quick-reference models (moe-d, moe-e) and a documentation source (docs-ep) added."""
    root = tmp_path_factory.mktemp("kb") / "kb"
    shutil.copytree(FIXTURES / "kb-mini", root)
    shutil.copytree(FIXTURES / "kb-mini-plus", root, dirs_exist_ok=True)
    return load_kb(root)
