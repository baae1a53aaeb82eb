"""Build the site all-or-nothing: MkDocs writes into a fresh folder that replaces ``site/`` only on success.

MkDocs writes pages one by one, so a failure part-way (a strict-mode warning is only raised at the end)
would otherwise leave a half-written site behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from handbook.core.paths import MKDOCS_YML, SITE_DIR
from handbook.site.reproducible import commit_epoch


def mkdocs_env(repo: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment MkDocs builds in: quiet about MkDocs 2, and the only date it writes (the sitemap's)
    pinned to the last commit's, so that builds of one commit are identical. A date the caller set wins."""
    env = {**environ, "NO_MKDOCS_2_WARNING": "1"}
    epoch = commit_epoch(repo)
    if epoch is not None:
        env.setdefault("SOURCE_DATE_EPOCH", epoch)
    return env


def build_site(site_dir: Path = SITE_DIR, config: Path = MKDOCS_YML) -> int:
    site_dir = site_dir.resolve()
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-build-", dir=site_dir.parent))
    env = mkdocs_env(config.parent, os.environ)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "mkdocs",
                "build",
                "--strict",
                "--config-file",
                str(config),
                "--site-dir",
                str(staging),
            ],
            env=env,
            check=False,
        )
        if done.returncode != 0:
            print(f"✖ build failed; {site_dir} was left as it was.", file=sys.stderr)
            return done.returncode
        old = site_dir.with_name(site_dir.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if site_dir.exists():
            site_dir.rename(old)
        staging.rename(site_dir)
        shutil.rmtree(old, ignore_errors=True)
        print(f"✔ site built in {site_dir}")
        return 0
    finally:
        shutil.rmtree(staging, ignore_errors=True)
