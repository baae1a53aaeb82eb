"""MkDocs glue: fill <!-- kb:… --> markers from the knowledge base. All logic lives in handbook.site."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `mkdocs serve` without an installed package

from handbook.core.paths import KB_ROOT
from handbook.diagrams.dot import DiagramError
from handbook.diagrams.files import figure_assets
from handbook.exports import write_exports
from handbook.quality.alternates import without_head_alternates
from handbook.quality.reproducible import pin_build_date
from handbook.site import SiteError, load_site

# HANDBOOK_KB points a build at another KB folder (tests build broken copies this way).
KB_FOLDER = Path(os.environ.get("HANDBOOK_KB", KB_ROOT))

_site = None


def on_config(config, **kwargs):
    # The sitemap's dates become the last commit's, so two builds of one commit are byte-identical.
    pin_build_date(Path(config["config_file_path"]).parent)


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


def on_files(files, config, **kwargs):
    """Publish the diagrams' SVGs (kept in the repository's assets/, outside docs_dir) at the same paths."""
    try:
        assets = figure_assets(_site.kb)
    except DiagramError as exc:
        raise PluginError("The diagrams cannot be published:\n" + "\n".join(exc.problems)) from None
    for path in assets.rerendered:
        get_plugin_logger("kb").info(f"re-rendered {path}: its data had changed")
    for path in assets.paths:
        files.append(File(path, str(assets.root), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang, _, rel = page.file.src_uri.partition("/")
    try:
        return _site.render(markdown, lang, rel)
    except Exception as exc:  # a page edited during `mkdocs serve` after the preflight
        raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None


def on_post_page(output, page, config, **kwargs):
    return without_head_alternates(output)  # each would make Material fetch a missing <page>/sitemap.xml


def on_post_build(config, **kwargs):
    # The files at the site's root are the same for every language: write them once, in the default
    # language's build (the i18n plugin runs it first, into the root).
    if config["plugins"]["i18n"].is_default_language_build:
        _site.write_assets(Path(config["site_dir"]))  # the planner's KB export
        write_exports(Path(config["site_dir"]), _site, config["site_url"])  # kb.json, llms.txt


def on_serve(server, config, builder, **kwargs):
    server.watch(str(Path(config["config_file_path"]).parent / "kb"))
    return server
