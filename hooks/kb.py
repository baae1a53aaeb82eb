"""MkDocs glue: fill <!-- kb:… --> markers from the knowledge base. All logic lives in handbook.site."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `mkdocs serve` without an installed package

from handbook.kb.loader import KB_ROOT
from handbook.site import SiteError, load_site

# HANDBOOK_KB points a build at another KB folder (tests build broken copies this way).
KB_FOLDER = Path(os.environ.get("HANDBOOK_KB", KB_ROOT))

_site = None


@event_priority(-200)  # after the i18n plugin has set the language being built
def on_pre_build(config, **kwargs):
    global _site
    try:
        site = load_site(kb_root=KB_FOLDER, docs_dir=Path(config["docs_dir"]))
        if site is not _site:  # first language of this build, or the KB changed: check every page first
            site.preflight()
        _site = site
    except SiteError as exc:
        raise PluginError("The handbook cannot be built:\n" + "\n".join(exc.problems)) from None


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang, _, rel = page.file.src_uri.partition("/")
    try:
        return _site.render(markdown, lang, rel)
    except Exception as exc:  # a page edited during `mkdocs serve` after the preflight
        raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None


def on_serve(server, config, builder, **kwargs):
    server.watch(str(Path(config["config_file_path"]).parent / "kb"))
    return server
