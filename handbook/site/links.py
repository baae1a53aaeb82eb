"""Every internal link and anchor of the built site resolves, in both languages; external links are listed.

Works on the built HTML (what readers get), so it also covers what MkDocs' own link validation does not see:
links written by renderers as raw HTML, the language switcher, the theme's assets, the search worker and the
sitemap. External links are only collected here; ``check_external`` fetches them (``nox -s links-external``),
the tests never touch the network.
"""

from __future__ import annotations

import json
import posixpath
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from handbook.core.text import LANGS
from handbook.site.config import site_url

# Attributes that make the browser fetch or navigate to a URL (tag → attributes).
URL_ATTRIBUTES = {
    "a": ("href", "xlink:href"),  # xlink:href: links inside SVG figures
    "area": ("href",),
    "link": ("href",),
    "script": ("src",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "use": ("href", "xlink:href"),
    "image": ("href", "xlink:href"),
}
NOT_FETCHED = ("mailto:", "tel:", "javascript:", "data:", "blob:")
# Material fetches the search index from this path below the page's base (assets/javascripts/bundle.*.js).
SEARCH_INDEX = "search/search_index.json"
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(?P<url>[^'\")]+)\1\s*\)")
_SITEMAP_LOC = re.compile(r"<loc>([^<]+)</loc>")


@dataclass(frozen=True)
class Link:
    page: str  # the file that holds the link, relative to the site folder
    line: int
    url: str  # as written


@dataclass(frozen=True)
class BrokenLink:
    link: Link
    reason: str
    source: str | None = None  # the docs page the HTML was built from, when known

    def __str__(self) -> str:
        from_source = f" (from {self.source})" if self.source else ""
        return f"{self.link.page}:{self.link.line}{from_source}: {self.link.url} → {self.reason}"


@dataclass
class LinkReport:
    pages: dict[str, int] = field(default_factory=dict)  # language → HTML pages scanned
    checked: int = 0  # internal links and anchors checked
    switcher: int = 0  # language-switcher links among them
    broken: list[BrokenLink] = field(default_factory=list)
    external: dict[str, list[Link]] = field(default_factory=dict)  # URL → where it appears


class _PageParser(HTMLParser):
    """The ids of one HTML page and the URLs it points to, with line numbers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str, bool]] = []  # (line, url, is a language-switcher link)
        self.config_json: str | None = None
        self.config_line = 0
        self._in_config = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value for name, value in attrs if value is not None}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        line = self.getpos()[0]
        switcher = tag == "a" and "hreflang" in values
        for name in URL_ATTRIBUTES.get(tag, ()):
            value = values.get(name)
            if value is None:
                continue
            urls = (
                [part.split()[0] for part in value.split(",") if part.strip()]
                if name == "srcset"
                else [value]
            )
            self.links += [(line, url.strip(), switcher) for url in urls]
        if tag == "script" and values.get("id") == "__config":
            self._in_config = True
            self.config_line = line

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if self._in_config:
            self.config_json = (self.config_json or "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_config = False


def site_url_of(config: Path) -> str:
    """``site_url`` of mkdocs.yml, as the build resolves it."""
    return site_url(config)


def language_of(page: str) -> str:
    """A built page's language: its first folder when that names a non-default language, else the default."""
    first = page.split("/", 1)[0]
    return first if first in LANGS[1:] else LANGS[0]


def source_of(page: str, docs_dir: Path | None) -> str | None:
    """The docs file a built page came from (``en/02-memory/index.html`` → ``docs/en/02-memory.md``)."""
    if docs_dir is None or not page.endswith(".html"):
        return None
    lang = language_of(page)
    rel = page if lang == LANGS[0] else page.removeprefix(f"{lang}/")
    stem = rel.removesuffix("index.html").rstrip("/") or "index"
    for candidate in (f"{stem}.md", f"{stem}/index.md"):
        if (docs_dir / lang / candidate).is_file():
            return f"docs/{lang}/{candidate}"
    return None


class BuiltSite:
    """The built site's files, and the ids of each HTML page (parsed once)."""

    def __init__(self, root: Path, site_url: str):
        self.root = root
        self.site_url = site_url.rstrip("/") + "/" if site_url else ""
        self.base_path = urlsplit(self.site_url).path or "/"
        self._parsed: dict[str, _PageParser] = {}

    def parse(self, page: str) -> _PageParser:
        if page not in self._parsed:
            parser = _PageParser()
            parser.feed((self.root / page).read_text(encoding="utf-8"))
            parser.close()
            self._parsed[page] = parser
        return self._parsed[page]

    def target(self, page: str, url: str) -> tuple[str, str] | None:
        """(the file a URL points to, relative to the site folder; its fragment), or None for an external URL.

        The file starts with ``..`` when the URL climbs above the site's folder."""
        if self.site_url and url.startswith(self.site_url):
            url = self.base_path + url[len(self.site_url) :]
        parts = urlsplit(url)
        if parts.scheme or parts.netloc:
            return None
        path = unquote(parts.path)
        if not path:
            return page, unquote(parts.fragment)  # "#id" or "?q": this page
        if path.startswith("/"):
            inside = path.startswith(self.base_path)
            path = path[len(self.base_path) :] if inside else "../" + path.lstrip("/")
        else:
            path = posixpath.join(posixpath.dirname(page), path)
        folder = path.endswith("/") or path in ("", ".")
        path = posixpath.normpath(path) if path else "."
        if not path.startswith("..") and (folder or (self.root / path).is_dir()):
            path = "index.html" if path == "." else f"{path}/index.html"
        return path, unquote(parts.fragment)


def check_site(site_dir: Path, site_url: str = "", docs_dir: Path | None = None) -> LinkReport:
    """Check every internal link and anchor of every HTML page and SVG, the sitemap and the CSS ``url()``s."""
    site = BuiltSite(site_dir, site_url)
    report = LinkReport()
    pages = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html"))
    for page in pages:
        lang = language_of(page)
        report.pages[lang] = report.pages.get(lang, 0) + 1
        parsed = site.parse(page)
        links = sorted(parsed.links + _theme_fetches(parsed), key=lambda link: link[0])
        for line, url, switcher in links:
            _check(site, Link(page, line, url), report, docs_dir, switcher)
    for svg in sorted(site_dir.rglob("*.svg")):
        page = svg.relative_to(site_dir).as_posix()
        for line, url, _switcher in site.parse(page).links:
            _check(site, Link(page, line, url), report, docs_dir, False)
    for css in sorted(site_dir.rglob("*.css")):
        page = css.relative_to(site_dir).as_posix()
        text = css.read_text(encoding="utf-8", errors="replace")
        for match in _CSS_URL.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            _check(site, Link(page, line, match.group("url")), report, docs_dir, False)
    sitemap = site_dir / "sitemap.xml"
    if sitemap.is_file():
        text = sitemap.read_text(encoding="utf-8")
        for match in _SITEMAP_LOC.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            _check(site, Link("sitemap.xml", line, match.group(1)), report, docs_dir, False)
    return report


def _theme_fetches(parsed: _PageParser) -> list[tuple[int, str, bool]]:
    """What Material's script loads by itself: the search worker (a URL relative to the page) and the
    search index (below the page's ``base``)."""
    if not parsed.config_json:
        return []
    config = json.loads(parsed.config_json)
    if not config.get("search"):
        return []
    index = posixpath.join(config.get("base", "."), SEARCH_INDEX)
    return [(parsed.config_line, config["search"], False), (parsed.config_line, index, False)]


def _check(site: BuiltSite, link: Link, report: LinkReport, docs_dir: Path | None, switcher: bool) -> None:
    url = link.url
    if not url or url.startswith(NOT_FETCHED):
        return
    target = site.target(link.page, url)
    if target is None:
        report.external.setdefault(url, []).append(link)
        return
    report.checked += 1
    report.switcher += switcher
    file, fragment = target
    source = source_of(link.page, docs_dir)
    if file.startswith(".."):
        report.broken.append(BrokenLink(link, "points outside the site", source))
    elif not (site.root / file).is_file():
        report.broken.append(BrokenLink(link, f"no file {file} in the site", source))
    elif fragment and file.endswith(".html") and fragment not in site.parse(file).ids:
        report.broken.append(BrokenLink(link, f'no element with id "{fragment}" in {file}', source))


# ----------------------------------------------------------------------------------- external links
def check_external(urls: Iterable[str], timeout: float = 20.0, workers: int = 8) -> list[tuple[str, str]]:
    """Fetch each URL (HEAD, then GET where HEAD is refused); (url, why) for each that does not answer."""

    def fetch(url: str) -> tuple[str, str | None]:
        headers = {"User-Agent": "sglang-handbook-link-check/1 (+https://sglang-handbook.github.io/)"}
        last = ""
        for method in ("HEAD", "GET"):
            request = urllib.request.Request(url, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    return url, None if response.status < 400 else f"HTTP {response.status}"
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code not in (403, 405, 429, 501):
                    break
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                return url, f"unreachable ({reason})"
        return url, last

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(fetch, sorted(set(urls))))
    return [(url, why) for url, why in results if why]
