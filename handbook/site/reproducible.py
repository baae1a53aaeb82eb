"""Builds of one commit are byte-identical: the only date MkDocs writes is pinned to the commit's.

MkDocs stamps sitemap.xml (``<lastmod>``) and the mtime inside sitemap.xml.gz with the build date, unless
SOURCE_DATE_EPOCH is set (the reproducible-builds convention, which MkDocs honours). Pinning it to the last
commit's time makes those dates the content's date, the same on every machine and every day. A value the
caller already set wins; without git (an exported tarball) nothing is pinned and the build date is used.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def commit_epoch(repo: Path) -> str | None:
    """The committer time of HEAD in seconds since the epoch, or None without git history."""
    try:
        done = subprocess.run(
            ["git", "log", "-1", "--format=%ct"], cwd=repo, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        return None
    stamp = done.stdout.strip()
    return stamp if done.returncode == 0 and stamp.isdigit() else None
