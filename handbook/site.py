"""The site build's use of the package: load and check the KB once, render pages, check them all first.

MkDocs-specific code stays in hooks/kb.py; everything here runs (and is tested) without MkDocs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from handbook.checker.docs import engine_preflight
from handbook.checker.kbcheck import pinned_snapshot
from handbook.checks import run_checks
from handbook.core.paths import DOCS_DIR, KB_ROOT
from handbook.kb.loader import KB, KBInvalid, load_kb
from handbook.quality.parity import source_parity
from handbook.render import renderers  # noqa: F401 - registers every kb: renderer
from handbook.render.context import RenderContext
from handbook.render.engine import command_status
from handbook.render.markers import MarkerErrors, render_page

LANGS = ("zh", "en")


class SiteError(Exception):
    """The site must not be built; ``problems`` says why, one line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s):\n" + "\n".join(problems))


@dataclass
class Site:
    kb: KB
    docs_dir: Path
    rendered: dict[tuple[str, str, int], str] = field(default_factory=dict)

    def render(self, markdown: str, lang: str, page: str) -> str:
        """One page's markdown with its markers replaced (cached: the preflight already rendered it)."""
        # the i18n plugin hands pages over without their final newline: key on the text without it
        key = (lang, page, hash(markdown.rstrip("\n")))
        if key not in self.rendered:
            extras = {"command_status": command_status}
            ctx = RenderContext(self.kb, lang, page, snapshot=pinned_snapshot(self.kb), extras=extras)
            self.rendered[key] = render_page(markdown, ctx, f"docs/{lang}/{page}")
        return self.rendered[key]

    def pages(self, lang: str) -> list[str]:
        root = self.docs_dir / lang
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))

    def write_assets(self, site_dir: Path) -> None:
        """Files the build adds to a language's built site: the planner's KB export."""
        from handbook.calc.export import write_planner_data

        write_planner_data(self.kb, site_dir)

    def preflight(self) -> None:
        """Render every page of both languages before anything is written; report all problems at once."""
        problems: list[str] = missing_translations(self.docs_dir) + source_parity(self.docs_dir, LANGS)
        problems += engine_preflight(self.docs_dir, LANGS, self.kb)  # shell blocks, rules' links
        for lang in LANGS:
            for page in self.pages(lang):
                text = (self.docs_dir / lang / page).read_text(encoding="utf-8")
                try:
                    self.render(text, lang, page)
                except MarkerErrors as exc:
                    problems += [str(p) for p in exc.problems]
        if problems:
            raise SiteError(problems)


def missing_translations(docs_dir: Path) -> list[str]:
    """One line per page that exists in one language only."""

    def pages(lang: str) -> set[str]:
        return {p.relative_to(docs_dir / lang).as_posix() for p in (docs_dir / lang).rglob("*.md")}

    zh, en = pages("zh"), pages("en")
    return [f"docs/en/{p}: missing translation of docs/zh/{p}" for p in sorted(zh - en)] + [
        f"docs/zh/{p}: missing translation of docs/en/{p}" for p in sorted(en - zh)
    ]


_loaded: dict[tuple, Site] = {}


def _stamp(*roots: Path) -> tuple:
    files = sorted(p for root in roots for p in root.rglob("*") if p.is_file())
    return tuple((str(p), p.stat().st_mtime_ns) for p in files)


def load_site(kb_root: Path = KB_ROOT, docs_dir: Path = DOCS_DIR) -> Site:
    """The checked KB and the pages' renderer; reloaded only when a file under kb/ changed."""
    stamp = (str(kb_root), str(docs_dir), _stamp(kb_root))
    if stamp not in _loaded:
        try:
            kb = load_kb(kb_root)
        except KBInvalid as exc:
            raise SiteError([str(p) for p in exc.problems]) from None
        problems = run_checks(kb)
        if problems:
            raise SiteError([str(p) for p in problems])
        _loaded.clear()
        _loaded[stamp] = Site(kb, docs_dir)
    return _loaded[stamp]
