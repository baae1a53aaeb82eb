"""Where the repository's parts live. Every path the package uses by default starts from here."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]  # the parent of the handbook/ package
KB_ROOT = REPO_ROOT / "kb"
ENGINE_DIR = KB_ROOT / "engine"  # the engine snapshots (kb/engine/sglang-<version>.json)
DOCS_DIR = REPO_ROOT / "docs"
# The Chinese text the site is built from ("the source", kb/sources/handbook.yaml), exactly as received: the
# silent-change test reads every sentence of it against the built site.
SOURCE_TEXT = REPO_ROOT / "source" / "handbook.md"
SITE_DIR = REPO_ROOT / "site"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
BENCH_RECORD = REPO_ROOT / "benchmarks" / "latest.json"


def shown(path: Path, repo: Path = REPO_ROOT) -> str:
    """A path as people read it in messages: relative to the repository when it is inside it."""
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def inside(folder: Path, root: Path) -> bool:
    """Whether ``folder`` is ``root`` or below it once links are followed (False when either is missing or
    a link loops): what the KB's readers and writers check before they touch a file."""
    try:
        return folder.resolve(strict=True).is_relative_to(root.resolve(strict=True))
    except (OSError, RuntimeError):
        return False
