"""Material's search entries for a page, kept by content in ``.cache/search/`` across builds.

Material's search plugin turns each built page into index entries (``SearchIndex.add_entry_from_context``:
an HTML parse of the page, then jieba's segmentation of every Chinese run), which costs more than a
second a build for the handbook's 40 pages. The entries follow from what that method reads alone: the
page's HTML, its table of contents, URL, title and front matter (search, tags, title), the plugin's
code and jieba's dictionary. This wraps the method on the index instance: where a page's inputs hash to what
was kept for that page, its entries are read back, in the order they were made; otherwise the plugin makes
them and they are kept (one file per page URL, replaced when the page changes).

Nothing else of the plugin is touched: the i18n plugin's merging of both languages' entries and the index
the search plugin writes are as without the cache. A cache that cannot be read or written is not used.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from handbook.core.files import WriteRefused, write_text

FORMAT = 1  # bump when what a kept file holds changes shape
_WRAPPED = "_handbook_search_cache"  # set on an index whose method is wrapped (installing twice is a no-op)


def _toc(items: Any) -> list:
    """A table of contents as the plugin reads it (each item's id, URL and children)."""
    return [[item.id, item.url, str(item.title), _toc(item.children)] for item in items]


@functools.cache  # the installed packages do not change within a build's process
def _versions() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("mkdocs-material", "jieba", "backrefs"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} absent")
    return found


def page_key(page: Any, plugin_config: dict[str, Any]) -> str:
    """What a page's entries follow from, hashed."""
    meta = {name: page.meta.get(name) for name in ("search", "tags", "title")}
    jieba = [plugin_config.get("jieba_dict"), plugin_config.get("jieba_dict_user")]
    for path in filter(None, jieba):
        with contextlib.suppress(OSError):
            jieba.append(hashlib.sha256(Path(path).read_bytes()).hexdigest())
    parts = [FORMAT, _versions(), jieba, page.url, str(page.title), meta, _toc(page.toc), page.content]
    return hashlib.sha256(json.dumps(parts, default=str, ensure_ascii=False).encode()).hexdigest()


class SearchEntryCache:
    """Entries kept in ``folder`` (``.cache/search`` beside the KB), one file per page URL."""

    def __init__(self, folder: Path, plugin_config: dict[str, Any]):
        self.folder = folder
        self.plugin_config = plugin_config
        self.read = self.made = 0  # pages whose entries were read back / made by the plugin, this process

    def install(self, index: Any) -> None:
        """Wrap ``index.add_entry_from_context`` (the plugin's SearchIndex); a wrapped index is left as is."""
        if getattr(index, _WRAPPED, False):
            return
        made: Callable[[Any], None] = index.add_entry_from_context

        def add_entry_from_context(page: Any) -> None:
            self.add(index, made, page)

        index.add_entry_from_context = add_entry_from_context
        setattr(index, _WRAPPED, True)

    def _file(self, page: Any) -> Path:
        return self.folder / f"{hashlib.sha256(page.url.encode()).hexdigest()[:32]}.json"

    def add(self, index: Any, made: Callable[[Any], None], page: Any) -> None:
        key, file = page_key(page, self.plugin_config), self._file(page)
        try:
            kept = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = None
        if isinstance(kept, dict) and kept.get("key") == key and isinstance(kept.get("entries"), list):
            index.entries.extend(kept["entries"])
            self.read += 1
            return
        before = len(index.entries)
        made(page)
        self.made += 1
        text = json.dumps({"key": key, "entries": index.entries[before:]}, ensure_ascii=False)
        with contextlib.suppress(WriteRefused, OSError):
            write_text(file, text, root=self.folder.parent.parent, folders=True, durable=False)
