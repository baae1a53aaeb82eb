"""The site build's state: the checked KB, the engine snapshot it pins, and every page rendered once.

MkDocs-specific code stays in hooks/kb.py, which holds one ``Site`` between MkDocs' events and passes it
along; everything here runs (and is tested) without MkDocs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handbook.calc.planner_data import PLANNER_DATA_PATH, planner_json
from handbook.checker.cache import CheckCache
from handbook.checker.findings import Finding
from handbook.core.files import link_file, write_data
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


@dataclass(frozen=True, kw_only=True)
class Inputs:
    """What computing a page or an export afresh needs. A build whose pages and exports are all stored for
    its very files never loads them (``Site.inputs``)."""

    kb: KB
    snapshot: EngineSnapshot
    drawn: tuple[dict[str, Figure], tuple[str, ...]]  # every figure that can be drawn, and the problems
    # each recipe's findings against the pinned snapshot, for the line under its command on both languages
    recipe_findings: dict[str, list[Finding]]
    checks: CheckCache  # the engine checks kept by content in .cache/


@dataclass(kw_only=True)
class Site:
    kb_root: Path
    docs_dir: Path
    figures: list[str]  # the diagrams' SVGs to publish, relative to the KB's repository (checked fresh)
    stamp: tuple[tuple[str, int], ...]
    store: BuildStore | None = None  # pages and exports kept by content in .cache/ (None: computed each time)
    loaded: Inputs | None = None  # None until something must be computed
    rendered: dict[tuple[str, str, int], str] = field(default_factory=dict)
    # what renderers compute once for both languages (RenderContext.once); a new Site starts empty
    build_store: dict[str, Any] = field(default_factory=dict)

    @property
    def inputs(self) -> Inputs:
        """The KB and what it pins, loaded on first use (this content already passed every check)."""
        if self.loaded is None:
            self.loaded = _inputs(_loaded_kb(self.kb_root))
        return self.loaded

    @property
    def kb(self) -> KB:
        return self.inputs.kb

    @property
    def snapshot(self) -> EngineSnapshot:
        return self.inputs.snapshot

    def is_current(self, kb_root: Path, docs_dir: Path) -> bool:
        """Whether this state still describes ``kb_root`` (``mkdocs serve`` rebuilds after edits)."""
        return (kb_root, docs_dir) == (self.kb_root, self.docs_dir) and kb_stamp(kb_root) == self.stamp

    def context(self, lang: str, page: str) -> RenderContext:
        inputs = self.inputs
        return RenderContext(
            inputs.kb,
            lang,
            page,
            snapshot=inputs.snapshot,
            docs_dir=self.docs_dir,
            command_status=True,
            drawn=inputs.drawn,
            recipe_findings=inputs.recipe_findings,
            build_store=self.build_store,
            checks=inputs.checks,
        )

    def render(self, markdown: str, lang: str, page: str) -> str:
        """One page's markdown with its markers replaced (cached: the preflight already rendered it; kept by
        content in the store across builds)."""
        # the i18n plugin hands pages over without their final newline: key on the text without it
        text = markdown.rstrip("\n")
        key = (lang, page, hash(text))
        if key not in self.rendered:

            def compute() -> str:
                return render_page(markdown, self.context(lang, page), f"docs/{lang}/{page}")

            store = self.store
            self.rendered[key] = (
                compute() if store is None else store.text(f"pages/{lang}/{page}", compute, text)
            )
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

    def asset_texts(self) -> dict[str, str]:
        """Each export's text, computed once per content of its inputs (kept in the store as it is written to
        the site, with the list of exports, so that reading them back needs no KB)."""
        store = self.store
        if store is None:
            return {rel: compute() for rel, compute in self.assets().items()}
        kept = self._kept_assets()
        if kept is not None:
            return {rel: file.read_text(encoding="utf-8") for rel, file in kept.items()}
        texts = {}
        for rel, compute in self.assets().items():
            texts[rel] = compute()
            store.keep(rel, texts[rel])
        store.keep(ASSET_NAMES, json.dumps(sorted(texts)))
        return texts

    def _kept_assets(self) -> dict[str, Path] | None:
        """The store's file of each export, or None where the list or any export is not kept."""
        names = self.store.stored(ASSET_NAMES) if self.store is not None else None
        if names is None:
            return None
        files = {rel: self.store.file(rel) for rel in json.loads(names)}
        return None if None in files.values() else files  # type: ignore[return-value]

    def write_assets(self, site_dir: Path) -> None:
        """Files the build adds to the built site's root: the KB exports (linked from the store where kept:
        25 MB that need not be read and written again)."""
        kept = self._kept_assets()
        if kept is None:
            texts = self.asset_texts()  # computed, and kept where the store can be written
            kept = self._kept_assets()
            if kept is None:  # no store, or one that cannot be written
                for rel, text in texts.items():
                    write_data(
                        site_dir / rel, text.encode("utf-8"), root=site_dir, folders=True, durable=False
                    )
                return
        for rel, file in kept.items():
            link_file(site_dir / rel, file, root=site_dir, folders=True)

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


ASSET_NAMES = "asset-names"  # the store's list of the exports kept in it


def load_site(kb_root: Path = KB_ROOT, docs_dir: Path = DOCS_DIR, previous: Site | None = None) -> Site:
    """The KB loaded and put through every check ``python -m handbook validate`` runs, the pinned engine
    snapshot and the diagrams' SVGs checked fresh; ``SiteError`` with every problem otherwise.

    When the store holds a build of these very files (every input as bytes, the KB's too), that build passed
    every check and its figures are known: the KB is then loaded only if a page or an export must be
    computed. ``previous``: the state this one replaces (``mkdocs serve`` after a KB edit); while the
    build's inputs have the same content (the same ``BuildStore`` key: an edit that changed no value), its
    rendered pages are this one's too."""
    stamp = kb_stamp(kb_root)
    store = BuildStore.recorded(kb_root, docs_dir)
    figures = None if store is None or store.stored("validation") != CLEAN else store.stored(FIGURES)
    if figures is None:
        site = _checked_site(kb_root, docs_dir, stamp)
    else:
        site = Site(kb_root=kb_root, docs_dir=docs_dir, figures=json.loads(figures), stamp=stamp, store=store)
    if previous is not None and previous.store is not None and previous.store.key == site.store.key:
        site.rendered, site.build_store = previous.rendered, previous.build_store
    return site


FIGURES = "figures"  # the store's list of the diagrams' SVGs a checked build publishes


def _loaded_kb(kb_root: Path) -> KB:
    try:
        return load_kb(kb_root)
    except KBInvalid as exc:
        raise SiteError([str(p) for p in exc.problems]) from None


def _inputs(
    kb: KB,
    snapshot: EngineSnapshot | None = None,
    drawn: tuple[dict[str, Figure], tuple[str, ...]] | None = None,
) -> Inputs:
    if snapshot is None:
        try:
            snapshot = load_snapshot(kb.handbook.engine_version)
        except SnapshotError as exc:
            raise SiteError([str(exc)]) from None
    checks = CheckCache(kb)
    return Inputs(
        kb=kb,
        snapshot=snapshot,
        drawn=drawable(kb) if drawn is None else drawn,
        recipe_findings=checks.findings(kb.recipes, kb.handbook.engine_version, snapshot),
        checks=checks,
    )


def _checked_site(kb_root: Path, docs_dir: Path, stamp: tuple[tuple[str, int], ...]) -> Site:
    """A build not stored yet: the KB loaded and checked, its figures checked fresh; recorded in the store
    (with the files it was built from) once it passed."""
    kb = _loaded_kb(kb_root)
    store = BuildStore(kb, docs_dir)
    problems = checked(kb, docs_dir, store)
    snapshot = None
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
    store.keep(FIGURES, json.dumps(figures))
    store.record_files(kb_root, docs_dir)
    inputs = _inputs(kb, snapshot, drawn)
    return Site(kb_root=kb_root, docs_dir=docs_dir, figures=figures, stamp=stamp, store=store, loaded=inputs)


def checked(kb: KB, docs_dir: Path, store: BuildStore) -> list[str]:
    """Every problem ``python -m handbook validate`` finds; a clean verdict is kept by content, so that an
    unchanged KB is not checked again (problems are found afresh each time, at their current lines)."""
    if store.stored("validation") == CLEAN:
        return []
    problems = [str(p) for p in run_checks(kb, docs_dir)]
    if not problems:
        store.keep("validation", CLEAN)
    return problems
