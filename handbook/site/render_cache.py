"""MkDocs' Markdown → HTML conversion of a page, kept by content in ``.cache/pages/`` across builds.

``Page.render`` (mkdocs/structure/pages.py, MkDocs 1.6) converts a page's Markdown with the configured
extensions and records five things: the HTML (``content``), the table of contents (from the toc
extension's tokens), the title found in the HTML, the anchor ids the page holds and the links it makes to
other pages' anchors. All of them follow from the page's Markdown (as the hooks left it), where the page
and every other file of the build are (links are resolved against them), the Markdown configuration and the
code of MkDocs, Python-Markdown, pymdown-extensions and Pygments. The handbook's pages are generated from
the KB and are the same from build to build unless an input changed, so this keeps the five by a hash of
those inputs, one file per page URL; a page whose inputs hash differently is converted as without the
cache.

A conversion that logs a warning (a broken link, an unknown anchor) is never kept, so that every build of
that page warns again (``--strict`` fails on it). A cache that cannot be read or written is not used.
Installed by the MkDocs hook on ``Page.render`` for the build's process (``install``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from handbook.core.files import WriteRefused, write_text

FORMAT = 1  # bump when what a kept file holds changes shape
PACKAGES = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material")


def _stable(value: Any) -> Any:
    """A configuration value as JSON with no memory addresses (a function by its module, name and closure)."""
    if isinstance(value, functools.partial):
        return ["partial", _stable(value.func), _stable(value.args), _stable(value.keywords)]
    if callable(value) and not isinstance(value, type):
        closure = [c.cell_contents for c in getattr(value, "__closure__", None) or ()]
        return [
            getattr(value, "__module__", ""),
            getattr(value, "__qualname__", repr(value)),
            _stable(closure),
        ]
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _stable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_stable(v) for v in value]
        return sorted(items, key=json.dumps) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return [type(value).__module__, type(value).__qualname__, repr(value)]


@functools.cache  # the installed packages do not change within a build's process
def _versions() -> list[str]:
    found = []
    for package in PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} absent")
    return found


def config_inputs(config: Any) -> list:
    """What every page's conversion shares of the configuration and the code."""
    return [
        FORMAT,
        _versions(),
        _stable(config["markdown_extensions"]),
        _stable(config["mdx_configs"] or {}),
        _stable(dict(config["validation"])),
        config["use_directory_urls"],
    ]


def files_layout(files: Any) -> str:
    """Where every page of the build is (links are resolved against them), hashed."""
    layout = sorted(
        [f.src_uri, f.dest_uri, f.url, str(f.inclusion)] for f in files if f.src_uri.endswith(".md")
    )
    return hashlib.sha256(json.dumps(layout).encode()).hexdigest()


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = False

    def emit(self, record: logging.LogRecord) -> None:
        self.seen = True


class RenderCache:
    """The five results of ``Page.render`` kept in ``folder``, one file per page URL."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.read = self.made = 0  # pages read back / converted, in this process
        # the last build's files and their layout: hashed once per build (the object is held, so that a
        # later build's files cannot pass for it)
        self._layout: tuple[Any, str] | None = None

    def _key(self, page: Any, config: Any, files: Any) -> str:
        if self._layout is None or self._layout[0] is not files:
            self._layout = (files, files_layout(files))
        inputs = [config_inputs(config), self._layout[1], page.file.src_uri, page.file.dest_uri, page.url]
        return hashlib.sha256(json.dumps([*inputs, page.markdown]).encode()).hexdigest()

    def _file(self, page: Any) -> Path:
        return self.folder / f"{hashlib.sha256(page.url.encode()).hexdigest()[:32]}.json"

    def render(self, original: Any, page: Any, config: Any, files: Any) -> None:
        """``Page.render`` for ``page``: read back where its inputs are those kept, else converted (and kept
        when the conversion warned of nothing)."""
        from mkdocs.structure.toc import get_toc

        if page.markdown is None:
            original(page, config, files)
            return
        key, file = self._key(page, config, files), self._file(page)
        try:
            kept = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = None
        if isinstance(kept, dict) and kept.get("key") == key:
            page.content = kept["content"]
            page.toc = get_toc(kept["toc_tokens"])
            page._title_from_render = kept["title"]
            page.present_anchor_ids = set(kept["anchors"])
            if "links_to_anchors" in kept:
                links = {
                    files.get_file_from_path(src): anchors
                    for src, anchors in kept["links_to_anchors"].items()
                }
                if None not in links:
                    page.links_to_anchors = links
            self.read += 1
            return
        tokens: list[Any] = []
        warnings = _Warnings()
        logger = logging.getLogger("mkdocs")
        logger.addHandler(warnings)
        try:
            with _toc_tokens(tokens):
                original(page, config, files)
        finally:
            logger.removeHandler(warnings)
        self.made += 1
        if warnings.seen or tokens == [None]:
            return
        data = {
            "key": key,
            "content": page.content,
            "toc_tokens": tokens[0] if tokens else [],
            "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
        }
        if page.links_to_anchors is not None:
            data["links_to_anchors"] = {f.src_uri: a for f, a in page.links_to_anchors.items()}
        with contextlib.suppress(WriteRefused, OSError, TypeError, ValueError):
            text = json.dumps(data, ensure_ascii=False)
            write_text(file, text, root=self.folder.parent.parent, folders=True, durable=False)


@contextlib.contextmanager
def _toc_tokens(into: list[Any]):
    """The toc extension's tokens of the one conversion inside (``Page.render`` keeps only what it builds
    from them): ``get_toc`` is wrapped for its duration."""
    from mkdocs.structure import pages

    made = pages.get_toc

    def get_toc(tokens: list[Any]) -> Any:
        try:
            into.append(json.loads(json.dumps(tokens)))
        except (TypeError, ValueError):
            into.append(None)  # not JSON: the conversion is not kept
        return made(tokens)

    pages.get_toc = get_toc
    try:
        yield
    finally:
        pages.get_toc = made


def install(folder: Path) -> RenderCache:
    """Wrap ``mkdocs.structure.pages.Page.render`` with a cache in ``folder`` (once per process)."""
    from mkdocs.structure.pages import Page

    existing = getattr(Page.render, "_handbook_cache", None)
    if existing is not None and existing.folder == folder:
        return existing
    original = getattr(Page.render, "_handbook_original", Page.render)
    cache = RenderCache(folder)

    def render(page: Any, config: Any, files: Any) -> None:
        cache.render(original, page, config, files)

    render._handbook_cache = cache  # type: ignore[attr-defined]
    render._handbook_original = original  # type: ignore[attr-defined]
    Page.render = render  # type: ignore[method-assign]
    return cache
