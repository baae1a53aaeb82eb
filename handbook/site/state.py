"""The site build's state: the checked KB, the engine snapshot it pins, and every page rendered once.

MkDocs-specific code stays in hooks/kb.py, which holds one ``Site`` between MkDocs' events and passes it
along; everything here runs (and is tested) without MkDocs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handbook.calc.planner_data import PLANNER_DATA_PATH, planner_json
from handbook.checker.cache import CheckCache
from handbook.checker.findings import Finding
from handbook.core.files import write_text
from handbook.core.paths import DOCS_DIR, KB_ROOT
from handbook.core.text import LANGS
from handbook.diagrams.catalogue import drawable
from handbook.diagrams.dot import DiagramError
from handbook.diagrams.figure import Figure
from handbook.diagrams.files import figure_assets
from handbook.engine.snapshot import EngineSnapshot, SnapshotError, load_snapshot
from handbook.kb.loader import KB, KBInvalid, load_kb
from handbook.render import renderers  # noqa: F401 - registers every kb: renderer
from handbook.render.context import RenderContext
from handbook.render.markers import MarkerErrors, render_page
from handbook.site.configurator import doctor_exports
from handbook.site.stored import CLEAN, BuildStore
from handbook.validation.registry import run_checks


class SiteError(Exception):
    """The site must not be built; ``problems`` says why, one line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s):\n" + "\n".join(problems))


def kb_stamp(kb_root: Path) -> tuple[tuple[str, int], ...]:
    """Every file under the KB folder with its modification time: what a rebuild must notice."""
    files = sorted(p for p in kb_root.rglob("*") if p.is_file())
    return tuple((str(p), p.stat().st_mtime_ns) for p in files)


@dataclass(kw_only=True)
class Site:
    kb: KB
    docs_dir: Path
    snapshot: EngineSnapshot
    drawn: tuple[dict[str, Figure], tuple[str, ...]]  # every figure that can be drawn, and the problems
    # each recipe's findings against the pinned snapshot, for the line under its command on both languages
    recipe_findings: dict[str, list[Finding]]
    figures: list[str]  # the diagrams' SVGs to publish, relative to the KB's repository (checked fresh)
    stamp: tuple[tuple[str, int], ...]
    checks: CheckCache | None = None  # the engine checks kept by content in .cache/ (None: check each time)
    store: BuildStore | None = None  # the exports kept by content in .cache/ (None: computed each time)
    rendered: dict[tuple[str, str, int], str] = field(default_factory=dict)
    # what renderers compute once for both languages (RenderContext.once); a new Site starts empty
    build_store: dict[str, Any] = field(default_factory=dict)

    def is_current(self, kb_root: Path, docs_dir: Path) -> bool:
        """Whether this state still describes ``kb_root`` (``mkdocs serve`` rebuilds after edits)."""
        return (kb_root, docs_dir) == (self.kb.root, self.docs_dir) and kb_stamp(kb_root) == self.stamp

    def context(self, lang: str, page: str) -> RenderContext:
        return RenderContext(
            self.kb,
            lang,
            page,
            snapshot=self.snapshot,
            docs_dir=self.docs_dir,
            command_status=True,
            drawn=self.drawn,
            recipe_findings=self.recipe_findings,
            build_store=self.build_store,
            checks=self.checks,
        )

    def render(self, markdown: str, lang: str, page: str) -> str:
        """One page's markdown with its markers replaced (cached: the preflight already rendered it)."""
        # the i18n plugin hands pages over without their final newline: key on the text without it
        key = (lang, page, hash(markdown.rstrip("\n")))
        if key not in self.rendered:
            self.rendered[key] = render_page(markdown, self.context(lang, page), f"docs/{lang}/{page}")
        return self.rendered[key]

    def pages(self, lang: str) -> list[str]:
        root = self.docs_dir / lang
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))

    def assets(self) -> dict[str, Callable[[], str]]:
        """The planner's, the checker's and the configurator's KB exports: path under the site → text."""
        return {
            PLANNER_DATA_PATH: lambda: planner_json(self.kb),
            **doctor_exports(self.kb, self.snapshot, self.docs_dir),
        }

    def write_assets(self, site_dir: Path) -> None:
        """Files the build adds to the built site's root: the KB exports, each computed once per content
        of its inputs (read back from the store while they are unchanged)."""
        for rel, compute in self.assets().items():
            text = compute() if self.store is None else self.store.text(rel, compute)
            write_text(site_dir / rel, text, root=site_dir, folders=True)

    def preflight(self) -> None:
        """Render every page of both languages before anything is written; report all problems at once."""
        problems: list[str] = []
        for lang in LANGS:
            for page in self.pages(lang):
                text = (self.docs_dir / lang / page).read_text(encoding="utf-8")
                try:
                    self.render(text, lang, page)
                except MarkerErrors as exc:
                    problems += [str(p) for p in exc.problems]
        if problems:
            raise SiteError(problems)


def load_site(kb_root: Path = KB_ROOT, docs_dir: Path = DOCS_DIR, previous: Site | None = None) -> Site:
    """The KB loaded and put through every check ``python -m handbook validate`` runs, the pinned engine
    snapshot and the diagrams' SVGs checked fresh; ``SiteError`` with every problem otherwise.

    ``previous``: the state this one replaces (``mkdocs serve`` after a KB edit); while the build's inputs
    have the same content (the same ``BuildStore`` key: an edit that changed no value), its rendered pages
    are this one's too."""
    try:
        kb = load_kb(kb_root)
    except KBInvalid as exc:
        raise SiteError([str(p) for p in exc.problems]) from None
    stamp = kb_stamp(kb_root)
    store = BuildStore(kb, docs_dir)
    problems = checked(kb, docs_dir, store)
    try:
        snapshot = load_snapshot(kb.handbook.engine_version)
    except SnapshotError as exc:
        problems.append(str(exc))
    drawn = drawable(kb)
    problems += drawn[1]
    figures: list[str] = []
    if not drawn[1]:
        try:
            figures = figure_assets(kb, drawn[0])
        except DiagramError as exc:
            problems += exc.problems
    if problems:
        raise SiteError(problems)
    checks = CheckCache(kb)
    findings = checks.findings(kb.recipes, kb.handbook.engine_version, snapshot)
    site = Site(
        kb=kb,
        docs_dir=docs_dir,
        snapshot=snapshot,
        drawn=drawn,
        figures=figures,
        stamp=stamp,
        recipe_findings=findings,
        checks=checks,
        store=store,
    )
    if previous is not None and previous.store is not None and previous.store.key == store.key:
        site.rendered, site.build_store = previous.rendered, previous.build_store
    return site


def checked(kb: KB, docs_dir: Path, store: BuildStore) -> list[str]:
    """Every problem ``python -m handbook validate`` finds; a clean verdict is kept by content, so that an
    unchanged KB is not checked again (problems are found afresh each time, at their current lines)."""
    if store.stored("validation") == CLEAN:
        return []
    problems = [str(p) for p in run_checks(kb, docs_dir)]
    if not problems:
        store.keep("validation", CLEAN)
    return problems
