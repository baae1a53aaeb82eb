"""Two builds of the same commit, in different folders, are byte-identical.

The one date MkDocs writes (sitemap.xml's <lastmod> and the mtime in sitemap.xml.gz's header) is pinned to
the last commit's time by the build (handbook.site.build), so no file is excused. Without git
history that pin is skipped and those dates are the build day's: builds on either side of midnight (UTC)
would then differ in sitemap.xml and sitemap.xml.gz only, which is why the test needs git to be strict.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from handbook.site.build import build_site, mkdocs_env
from handbook.site.reproducible import commit_epoch

REPO = Path(__file__).resolve().parents[1]


def _digests(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def test_two_builds_in_different_folders_are_byte_identical(built_site, tmp_path, monkeypatch):
    """The session's built site (``nox -s tests`` builds it into site/; on a fresh clone, as in CI, before
    any engine check is kept) against a second build into a deeper folder of another name, which reads the
    checks back from .cache/checks: the same files, byte for byte, so the check cache changes nothing."""
    if shutil.which("git") is None or commit_epoch(REPO) is None:
        pytest.skip("no git history: the sitemap's dates would be the build day's")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)  # the build pins it, as in a plain build
    second = tmp_path / "two" / "deeper" / "site"
    second.parent.mkdir(parents=True)  # the build never creates a missing folder
    assert build_site(second) == 0
    one, two = _digests(built_site), _digests(second)
    assert sorted(one) == sorted(two)
    assert [path for path in one if one[path] != two[path]] == []
    assert len(one) > 10


def test_the_build_date_is_the_commits(monkeypatch, tmp_path):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    if shutil.which("git") is None or commit_epoch(REPO) is None:
        pytest.skip("no git history")
    assert mkdocs_env(REPO, {})["SOURCE_DATE_EPOCH"] == commit_epoch(REPO)
    assert (
        mkdocs_env(REPO, {"SOURCE_DATE_EPOCH": "1700000000"})["SOURCE_DATE_EPOCH"] == "1700000000"
    )  # the caller's wins
    assert "SOURCE_DATE_EPOCH" not in mkdocs_env(tmp_path, {})  # not a git checkout: nothing pinned
    assert "SOURCE_DATE_EPOCH" not in os.environ  # nothing is set in the process itself
