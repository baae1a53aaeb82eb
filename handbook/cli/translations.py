"""Check that both languages have the same pages, headings and anchors, and list stale translations
(a page changed in one language after its last change in the other, from the git history of docs/)."""

from __future__ import annotations

import argparse
from pathlib import Path

from handbook.cli import report
from handbook.core.arguments import folder
from handbook.core.paths import DOCS_DIR
from handbook.core.text import LANGS
from handbook.pages.headings import source_parity
from handbook.pages.translations import NO_HISTORY, missing_translations, translation_status


def run(args: argparse.Namespace) -> int:
    docs_dir = Path(args.docs)
    problems = missing_translations(docs_dir) + source_parity(docs_dir)
    status = translation_status(docs_dir)
    if problems:
        report(problems, "in the translations")
    else:
        print(f"✔ {len(status.pages)} pages in both languages, with the same headings and anchors.")
    if status.unavailable:
        why = NO_HISTORY[status.unavailable] + (f": {status.detail}" if status.detail else "")
        print(f"git history unavailable ({why}); stale translations not judged.")
    elif status.stale:
        print(f"{len(status.stale)} stale translation(s), older than the other language's page:")
        for page in status.stale:
            newer = next(lang for lang in LANGS if lang != page.stale)
            new, old = page.last[newer], page.last[page.stale]
            assert new is not None and old is not None  # a stale page has history on both sides
            print(
                f"  docs/{page.stale}/{page.page}: {page.behind} change(s) behind docs/{newer}/{page.page} "
                f"(last changed {old.date} in {old.commit}; the other {new.date} in {new.commit})"
            )
    else:
        print("✔ no stale translation.")
    uncommitted = [p.page for p in status.pages if not p.committed and not status.unavailable]
    if uncommitted:
        print(f"not judged, never committed in one language or both: {', '.join(uncommitted)}")
    return 1 if problems else 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--docs", default=str(DOCS_DIR), type=folder, help="the docs folder (default: %(default)s)"
    )
