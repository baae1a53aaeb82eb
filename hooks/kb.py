"""MkDocs glue: fill <!-- kb:… --> markers from the knowledge base. All logic lives in handbook.site."""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from handbook.core.paths import KB_ROOT
from handbook.render.markers import MarkerErrors
from handbook.site.alternates import without_head_alternates
from handbook.site.csp import ExternalScripts
from handbook.site.exports import write_exports
from handbook.site.render_cache import install as install_render_cache
from handbook.site.search_cache import SearchEntryCache
from handbook.site.state import Site, SiteError, load_site

# HANDBOOK_KB points a build at another KB folder (tests build broken copies this way).
KB_FOLDER = Path(os.environ.get("HANDBOOK_KB", KB_ROOT))

# The one build state MkDocs' events share: loaded and checked once, again only when kb/ changed (serve).
_site: Site | None = None
# Material's inline scripts, moved to files under the site's root (the default language's site_dir)
_scripts = ExternalScripts()
_root: Path | None = None


@event_priority(-200)  # after the i18n plugin has set the language being built
def on_pre_build(config, **kwargs):
    global _site
    install_render_cache(KB_FOLDER.parent / ".cache" / "pages")  # MkDocs' Markdown conversion, by content
    search = config["plugins"].get("material/search")
    if search is not None:  # each language's build may have a new index: wrapping one twice is a no-op
        SearchEntryCache(KB_FOLDER.parent / ".cache" / "search", dict(search.config)).install(
            search.search_index
        )
    docs_dir = Path(config["docs_dir"])
    if _site is not None and _site.is_current(KB_FOLDER, docs_dir):
        return  # the other language of this build, or a rebuild with the KB unchanged
    try:
        _site = load_site(kb_root=KB_FOLDER, docs_dir=docs_dir, previous=_site)
        _site.preflight()
    except SiteError as exc:
        _site = None
        raise PluginError("The handbook cannot be built:\n" + "\n".join(exc.problems)) from None


def on_files(files, config, **kwargs):
    """Publish the diagrams' SVGs (kept in the repository's assets/, outside docs_dir) at the same paths."""
    root = str(_site.kb_root.resolve().parent)
    for path in _site.figures:
        files.append(File(path, root, config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    lang, _, rel = page.file.src_uri.partition("/")
    try:
        return _site.render(markdown, lang, rel)
    except MarkerErrors as exc:  # a page edited during `mkdocs serve` after the preflight
        raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None


def on_post_page(output, page, config, **kwargs):
    # hreflang links would make Material fetch a missing <page>/sitemap.xml; the policy forbids inline script
    return _scripts.page(without_head_alternates(output))


def on_post_template(output_content, template_name, config, **kwargs):
    return _scripts.page(output_content) if template_name.endswith(".html") else output_content  # 404.html


def on_post_build(config, **kwargs):
    # The files at the site's root are the same for every language: write them once, in the default
    # language's build (the i18n plugin runs it first, into the root).
    global _root
    if config["plugins"]["i18n"].is_default_language_build:
        _root = Path(config["site_dir"])
        _site.write_assets(_root)  # the planner's, checker's and configurator's exports
        write_exports(_root, _site, config["site_url"])  # kb.json, llms.txt
    _scripts.write(_root or Path(config["site_dir"]))  # each language's pages load them from the root


def on_serve(server, config, builder, **kwargs):
    server.watch(str(Path(config["config_file_path"]).parent / "kb"))
    return server
