"""Which translation is older than its counterpart, judged by the git history of the two files.

A page is stale in one language when the other language's file changed in a later commit: the newer side
holds edits the stale side has not caught up with (the source is whichever language moved last; fixing a
typo in one language flags the other, so a translator looks). Both files changed in the same commit count
as in sync. Only committed history is read, so the answer is the same for every checkout of a commit.
Without history (not a git checkout, git missing, a shallow clone) nothing is judged and the reason is
given instead: a shallow clone would make every file look changed in its one commit.
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from handbook.core.problem import Problem
from handbook.core.text import LANGS
from handbook.pages.headings import page_pairs


@dataclass(frozen=True)
class Change:
    commit: str  # abbreviated hash
    date: str  # committer date, YYYY-MM-DD
    order: int  # position in the history, 0 = the newest commit that touched the docs


@dataclass(frozen=True)
class PageStatus:
    page: str  # relative to a language folder, e.g. "02-memory.md"
    last: dict[str, Change | None]  # language → last committed change (None: never committed)
    stale: str | None = None  # the language whose page is older than the other's
    behind: int = 0  # commits to the newer page since the stale page last changed

    @property
    def committed(self) -> bool:
        return all(self.last.values())


@dataclass
class TranslationStatus:
    pages: list[PageStatus] = field(default_factory=list)
    unavailable: str | None = None  # a NO_HISTORY key: the history could not be read, nothing is judged
    detail: str = ""

    @property
    def stale(self) -> list[PageStatus]:
        return [p for p in self.pages if p.stale]


# Why the history could not be read: a code (the pages word it in their language) → the command's wording.
NO_HISTORY = {
    "git-missing": "git is not installed",
    "not-a-checkout": "not a git checkout",
    "no-commits": "no commit yet",
    "shallow": "a shallow clone, whose history is incomplete (git fetch --unshallow)",
    "git-failed": "git failed",
}


class _NoHistory(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason  # a key of NO_HISTORY
        self.detail = detail  # git's own words, for the command line


def _git(cwd: Path, *args: str, failure: str = "git-failed") -> str:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise _NoHistory("git-missing") from None
    if done.returncode != 0:
        message = done.stderr.strip()
        if "not a git repository" in message:
            failure = "not-a-checkout"
        raise _NoHistory(failure, message.splitlines()[0] if message else "")
    return done.stdout


def _history(docs_dir: Path) -> dict[str, list[Change]]:
    """Every committed change of every file under docs_dir (paths relative to it), newest first."""
    top = Path(_git(docs_dir, "rev-parse", "--show-toplevel").strip())
    if _git(docs_dir, "rev-parse", "--is-shallow-repository").strip() == "true":
        raise _NoHistory("shallow")
    rel = docs_dir.resolve().relative_to(top.resolve()).as_posix()
    _git(top, "rev-parse", "--verify", "--quiet", "HEAD", failure="no-commits")
    log = _git(top, "log", "--format=%x1e%h %cs", "--name-only", "--no-renames", "--", rel)
    changes: dict[str, list[Change]] = {}
    for order, entry in enumerate(e for e in log.split("\x1e") if e.strip()):
        head, *files = entry.strip().splitlines()
        commit, date = head.split()
        for name in filter(None, (f.strip() for f in files)):
            changes.setdefault(name.removeprefix(rel + "/"), []).append(Change(commit, date, order))
    return changes


def _repository_stamp(docs_dir: Path) -> tuple[int, ...] | None:
    """When the checkout's HEAD or index last changed (os.stat only): a new commit gives a new stamp."""
    for folder in [docs_dir.resolve(), *docs_dir.resolve().parents]:
        git = folder / ".git"
        if git.is_dir():
            marks = [git / "HEAD", git / "index"]
            return tuple(mark.stat().st_mtime_ns for mark in marks if mark.exists())
    return None


def translation_status(docs_dir: Path, langs: tuple[str, ...] = LANGS) -> TranslationStatus:
    """The last committed change of each page in each language, and which translations are stale."""
    # Both languages' pages show the status in one build: ask git once per state of the checkout.
    stamp = _repository_stamp(docs_dir)
    if stamp is None:
        return _translation_status(docs_dir, langs)
    return _cached_status(docs_dir, langs, stamp)


@functools.lru_cache(maxsize=8)
def _cached_status(docs_dir: Path, langs: tuple[str, ...], stamp: tuple[int, ...]) -> TranslationStatus:
    return _translation_status(docs_dir, langs)


def _translation_status(docs_dir: Path, langs: tuple[str, ...]) -> TranslationStatus:
    pages = page_pairs(docs_dir, langs)
    try:
        history = _history(docs_dir)
    except _NoHistory as exc:
        return TranslationStatus([PageStatus(p, dict.fromkeys(langs)) for p in pages], exc.reason, exc.detail)
    status = TranslationStatus()
    for page in pages:
        changes = {lang: history.get(f"{lang}/{page}", []) for lang in langs}
        last = {lang: (changes[lang][0] if changes[lang] else None) for lang in langs}
        first, second = (last[lang] for lang in langs)
        if first is None or second is None or first.commit == second.commit:
            status.pages.append(PageStatus(page, last))
            continue
        newer, older = (langs[0], langs[1]) if first.order < second.order else (langs[1], langs[0])
        since = last[older].order  # type: ignore[union-attr]
        behind = sum(1 for change in changes[newer] if change.order < since)
        status.pages.append(PageStatus(page, last, stale=older, behind=behind))
    return status


def missing_translations(docs_dir: Path) -> list[Problem]:
    """One problem per page that exists in one language only."""

    def pages(lang: str) -> set[str]:
        return {p.relative_to(docs_dir / lang).as_posix() for p in (docs_dir / lang).rglob("*.md")}

    zh, en = pages("zh"), pages("en")
    return [
        Problem(f"docs/en/{p}", None, "", f"missing translation of docs/zh/{p}") for p in sorted(zh - en)
    ] + [Problem(f"docs/zh/{p}", None, "", f"missing translation of docs/en/{p}") for p in sorted(en - zh)]
