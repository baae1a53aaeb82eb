"""The one line that installs this repository's command line (``python -m handbook``) on a fresh machine:
clone, a virtual environment of its own, an editable install (the CLI reads kb/ from the clone). The site's
start page and the README show it; tests/test_install.py runs it in a clean virtualenv from a clone."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from handbook.core.paths import REPO_ROOT

INSTALL = (
    "git clone {url} sglang-handbook && cd sglang-handbook && python3 -m venv .venv"
    " && . .venv/bin/activate && pip install -e ."
)
# Shown where the repository's address is not known (a local build with no remote): the reader puts it in.
PLACEHOLDER = "<repository-url>"
URL_VARIABLE = "HANDBOOK_REPO_URL"  # the Pages workflow sets it from github.repository


def repository_url(environ: Mapping[str, str] = os.environ, repo: Path = REPO_ROOT) -> str | None:
    """The repository's address: HANDBOOK_REPO_URL, else the clone's remote ``origin``, else unknown."""
    if environ.get(URL_VARIABLE):
        return environ[URL_VARIABLE]
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def install_line(url: str | None) -> str:
    return INSTALL.format(url=url or PLACEHOLDER)
