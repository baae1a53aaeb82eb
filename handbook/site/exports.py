"""Machine-readable copies of the handbook, written into the built site beside the pages.

- ``kb.json``: the whole knowledge base, versioned (schema version, engine release, source commit), and
  ``kb.schema.json``, its JSON Schema, generated from the same pydantic models;
- ``llms.txt`` (https://llmstxt.org): the title, a summary and a link to every page in both languages;
- ``llms-full.txt``: every page as Markdown with its markers rendered by the site's own renderers,
  English first, then Chinese, links made absolute.

Nothing here depends on the time of the build or on which language MkDocs is building, so every build of
the same tree writes the same bytes.
"""

from __future__ import annotations

import html
import itertools
import json
import posixpath
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from handbook.core.anchors import page_url
from handbook.core.files import write_text
from handbook.core.formatting import json_safe
from handbook.core.markdown import code_lines
from handbook.core.messages import LANG_KEYS, message, msg
from handbook.core.paths import REPO_ROOT
from handbook.core.text import LANGS, Text
from handbook.kb.export import SCHEMA_VERSION, kb_export
from handbook.kb.loader import KB
from handbook.production.pack import site_files
from handbook.render.context import esc
from handbook.site.config import site_url as configured_site_url
from handbook.site.stored import folder_digest

if TYPE_CHECKING:  # the site (and its renderers) is only needed to write the pages' files
    from handbook.render.context import esc
from handbook.site.state import Site

KB_JSON = "kb.json"
KB_SCHEMA = "kb.schema.json"
LLMS = "llms.txt"
LLMS_FULL = "llms-full.txt"

DEFAULT_LANG = LANGS[0]  # served at the site root; every other language under /<lang>/
LANG_ORDER = LANGS[::-1]  # llms.txt readers are mostly English-language agents: English first
LANG_NAMES = {lang: msg(LANG_KEYS[lang], lang) for lang in LANG_ORDER}  # each language's name in itself


def _both(text: Text) -> str:
    """The site's own wording (the catalogue's exports domain) in both languages, English first."""
    return " / ".join(text[lang] for lang in LANG_ORDER)


def source_state(repo: Path = REPO_ROOT) -> tuple[str | None, bool | None]:
    """The checked-out commit and whether kb/ differs from it, from the local git (no network); else None."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=20, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    head = (git("rev-parse", "--verify", "HEAD") or "").strip()
    if not re.fullmatch(r"[0-9a-f]{40}", head):
        return None, None
    status = git("status", "--porcelain", "--", "kb")
    return head, (None if status is None else bool(status.strip()))


def kb_json(kb: KB, commit: str | None, modified: bool | None) -> str:
    # pydantic's own JSON writer gives the same bytes as dumps() here, several times faster
    return json_safe(kb_export(kb, commit, modified).model_dump_json(indent=2)) + "\n"


# ------------------------------------------------------------------------------------------------ pages
@dataclass(frozen=True)
class Page:
    lang: str
    path: str  # relative to the language folder, e.g. "02-memory.md"
    href: str  # relative to the site root, e.g. "en/02-memory/"
    title: str
    markdown: str  # markers rendered


def page_href(lang: str, path: str) -> str:
    return ("" if lang == DEFAULT_LANG else f"{lang}/") + page_url(path)


_H1 = re.compile(r"^# (?P<title>.+?)(?:\s*\{[^}]*\})?\s*$")


def _title(markdown: str, fallback: str) -> str:
    code = code_lines(markdown)
    for number, line in enumerate(markdown.splitlines()):
        match = _H1.match(line)
        if match and number not in code:
            return html.unescape(match.group("title"))
    return fallback


def pages(site: Site) -> list[Page]:
    """Every page of every language, English first; in each, the home page first, then by path."""
    out = []
    for lang in LANG_ORDER:
        for path in sorted(site.pages(lang), key=lambda p: (p != "index.md", p)):
            text = (site.docs_dir / lang / path).read_text(encoding="utf-8")
            markdown = site.render(text, lang, path)
            out.append(Page(lang, path, page_href(lang, path), _title(markdown, path), markdown))
    return out


def _blocks(markdown: str) -> list[list[str]]:
    """The page's blocks (runs of non-blank lines), code blocks left out."""
    code = code_lines(markdown)
    blocks: list[list[str]] = [[]]
    for number, line in enumerate(markdown.splitlines()):
        if number in code or not line.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(line)
    return [b for b in blocks if b]


def _summary(markdown: str) -> tuple[str, list[str]]:
    """The home page's first paragraph, and the paragraphs of its first blockquote (version, provenance)."""
    paragraph, quoted = "", []
    for block in _blocks(markdown):
        first = block[0].lstrip()
        if first.startswith(">"):
            if not quoted:
                text = "\n".join(line.lstrip()[1:].strip() for line in block)
                quoted = [" ".join(p.split("\n")) for p in text.split("\n\n") if p.strip()]
        elif not paragraph and not re.match(r"(#|[-*+] |\d+\. |!!!|===|\||<|\{)", first):
            paragraph = " ".join(line.strip() for line in block)
    return html.unescape(paragraph), [html.unescape(q) for q in quoted]


# ------------------------------------------------------------------------------------------------ llms.txt
def _base(site_url: str | None) -> str:
    """The site's URL with a final slash; without one, links stay relative to the site's root."""
    if not site_url:
        return ""
    return site_url if site_url.endswith("/") else site_url + "/"


def _url(base: str, href: str) -> str:
    return base + href if base else (href or "./")


def llms_txt(site: Site, site_url: str | None) -> str:
    base = _base(site_url)
    all_pages = pages(site)
    home = {p.lang: p for p in all_pages if p.path == "index.md"}
    title = {lang: esc(site.kb.handbook.title[lang]) for lang in LANGS}  # KB text: never markup here either
    lines = [f"# {title['en']}", ""]
    summary, quoted = _summary(home["en"].markdown) if "en" in home else ("", [])
    if summary:
        lines += [f"> {summary}", ""]
    for paragraph in quoted:
        lines += [paragraph, ""]
    zh_summary = _summary(home["zh"].markdown)[0] if "zh" in home else ""
    lines += [f"{title['zh']}：{zh_summary}" if zh_summary else title["zh"], ""]
    for lang in LANG_ORDER:
        lines += [f"## {LANG_NAMES[lang]}", ""]
        lines += [f"- [{p.title}]({_url(base, p.href)})" for p in all_pages if p.lang == lang]
        lines.append("")
    engine = site.kb.handbook.engine_version
    lines += [
        "## Optional",
        "",
        f"- [{LLMS_FULL}]({_url(base, LLMS_FULL)}): {_both(message('exports-full'))}",
        f"- [{KB_JSON}]({_url(base, KB_JSON)}): "
        + _both(message("exports-kb", version=SCHEMA_VERSION, engine=engine)),
        f"- [{KB_SCHEMA}]({_url(base, KB_SCHEMA)}): {_both(message('exports-schema'))}",
    ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- llms-full.txt
# "](target)": also the outer link of a linked image, [![alt](src)](href)
_MD_LINK = re.compile(r"(?P<head>\]\()(?P<target>[^)\s]+)(?P<tail>[)\s])")
_HTML_LINK = re.compile(r"(?P<head>\b(?:href|src)=\")(?P<target>[^\"]+)(?P<tail>\")")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_FAKE_ROOT = "https://site.invalid/"  # resolves relative URLs when the site has no site_url


def _resolve_markdown(target: str, page: Page, base: str) -> str:
    """A Markdown link as MkDocs resolves it: relative to the source file; ``.md`` becomes the page URL."""
    if _SCHEME.match(target) or target.startswith("/"):
        return target
    path, _, anchor = target.partition("#")
    fragment = f"#{anchor}" if anchor else ""
    if not path:
        return base + page.href + fragment
    doc = posixpath.normpath(posixpath.join(posixpath.dirname(f"{page.lang}/{page.path}"), path))
    if doc.startswith("../"):
        return target  # outside docs/: leave it as written
    lang, _, rest = doc.partition("/")
    if lang in LANG_NAMES and rest:
        href = page_href(lang, rest) if rest.endswith(".md") else page_href(lang, "") + rest
    else:
        href = doc
    return base + href + fragment


def _resolve_html(target: str, page: Page, base: str) -> str:
    """A renderer's link, relative to the page's URL (directory style)."""
    if _SCHEME.match(target):
        return target
    resolved = urljoin(_FAKE_ROOT + page.href, target)
    return base + resolved.removeprefix(_FAKE_ROOT)


def absolute_links(page: Page, base: str) -> str:
    """The page's Markdown with every relative link resolved against the site (code blocks untouched)."""
    code = code_lines(page.markdown)
    lines = page.markdown.splitlines()
    out: list[str] = []
    # runs of prose lines are resolved together (two regex passes per run, not per line)
    for in_code, run in itertools.groupby(range(len(lines)), key=code.__contains__):
        text = "\n".join(lines[number] for number in run)
        if not in_code:
            text = _MD_LINK.sub(
                lambda m: f"{m['head']}{_resolve_markdown(m['target'], page, base)}{m['tail']}", text
            )
            text = _HTML_LINK.sub(
                lambda m: f"{m['head']}{_resolve_html(m['target'], page, base)}{m['tail']}", text
            )
        out.append(text)
    return "\n".join(out)


def _demoted(markdown: str, levels: int = 2) -> str:
    """Headings two levels down, so that each page sits under its language's section."""
    code = code_lines(markdown)
    out = []
    for number, line in enumerate(markdown.splitlines()):
        match = re.match(r"^(#{1,6}) ", line)
        if match and number not in code:
            line = "#" * min(len(match.group(1)) + levels, 6) + line[len(match.group(1)) :]
        out.append(line)
    return "\n".join(out)


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL)


def _without_scripts(markdown: str) -> str:
    """The page without the data its own JavaScript reads (the planner's figures and wording): code for
    the browser, not text for a reader."""
    return _SCRIPT.sub("", markdown)


def llms_full_txt(site: Site, site_url: str | None) -> str:
    base = _base(site_url)
    all_pages = pages(site)
    title = {lang: esc(site.kb.handbook.title[lang]) for lang in LANGS}
    home = next((p for p in all_pages if p.lang == "en" and p.path == "index.md"), None)
    summary = _summary(home.markdown)[0] if home else ""
    parts = [f"# {title['en']} / {title['zh']}", ""]
    if summary:
        parts += [f"> {summary}", ""]
    parts += [_both(message("exports-full-intro")), ""]
    for lang in LANG_ORDER:
        parts += [f"## {LANG_NAMES[lang]}", ""]
        for page in (p for p in all_pages if p.lang == lang):
            body = _demoted(_without_scripts(absolute_links(page, base))).strip("\n").splitlines()
            heading = 1 if body and body[0].startswith("### ") else 0
            parts += body[:heading] + ["", f"URL: {_url(base, page.href)}", ""] + body[heading:] + [""]
    text = "\n".join(parts)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


# ------------------------------------------------------------------------------------------------ writing
def exports(site: Site, site_url: str | None, repo: Path = REPO_ROOT) -> dict[str, str]:
    """Every machine-readable file of the site: name (relative to the site root) → text. Kept by content in
    the site's store: they depend on the KB, the snapshot, the pages, the code and ``site_url`` alone; the
    checkout's commit is put into kb.json afterwards (a build outside git, or at another commit, reads the
    same stored texts)."""
    configured = configured_site_url()

    def computed() -> str:
        return json.dumps(
            {
                KB_JSON: kb_json(site.kb, None, None),
                LLMS: llms_txt(site, site_url),
                LLMS_FULL: llms_full_txt(site, site_url),
                # the production pack (manifests, alerts, dashboards): its runbook links need an absolute URL
                # (the build's site_url, else mkdocs.yml's: HANDBOOK_SITE_URL or the local preview)
                **site_files(site.kb, site.snapshot, _base(site_url) or configured),
            },
            ensure_ascii=False,
        )

    # the pages' text too: under mkdocs serve an edited page keeps the store's key (only a KB edit reloads it)
    variant = json.dumps([site_url, configured, folder_digest(site.docs_dir)])
    texts = json.loads(computed() if site.store is None else site.store.text("exports", computed, variant))
    texts[KB_JSON] = with_source_state(texts[KB_JSON], *source_state(repo))
    # the committed copy (kb/schema/, kept fresh by `python -m handbook schema --check`): generating it
    # again on every build costs more than the rest of the exports together
    return {**texts, KB_SCHEMA: (repo / "kb" / "schema" / KB_SCHEMA).read_text(encoding="utf-8")}


_NO_SOURCE_STATE = '\n  "source_commit": null,\n  "source_modified": null,\n'


def with_source_state(text: str, commit: str | None, modified: bool | None) -> str:
    """kb.json written with no commit (``kb_json(kb, None, None)``) as ``kb_json(kb, commit, modified)``
    writes it: the two header fields, in place."""
    if text.count(_NO_SOURCE_STATE) != 1:
        raise ValueError("kb.json: its header has no unset source_commit and source_modified to fill in")
    state = f'\n  "source_commit": {json.dumps(commit)},\n  "source_modified": {json.dumps(modified)},\n'
    return text.replace(_NO_SOURCE_STATE, state, 1)


def write_exports(site_dir: Path, site: Site, site_url: str | None) -> list[Path]:
    written = []
    for name, text in exports(site, site_url).items():
        path = site_dir / name
        write_text(path, text, root=site_dir, folders=True, durable=False)
        written.append(path)
    return written
