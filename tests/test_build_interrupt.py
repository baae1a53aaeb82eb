"""An interrupted build leaves nothing behind: no staging folder, no MkDocs still writing into one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from handbook.site.build import STAGING_PREFIX, remove_orphaned_staging

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.build  # each test starts a real build (out of nox -s unit)


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line holds ``text`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                out.append(int(entry.name))
    return out


def _start_build(parent: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """A build into ``parent/site``; returns once MkDocs is writing into its staging folder."""
    build = subprocess.Popen(
        [sys.executable, "-m", "handbook", "build", "--site-dir", str(parent / "site")],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        staging = list(parent.glob(STAGING_PREFIX + "*"))
        if staging and _processes_mentioning(str(staging[0])):
            return build, staging[0]
        time.sleep(0.05)
    build.kill()
    raise AssertionError("the build never started MkDocs")


def _gone(path: str, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _processes_mentioning(path):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_mkdocs_and_removes_the_staging_folder(tmp_path, signum):
    build, staging = _start_build(tmp_path)
    os.kill(build.pid, signum)
    assert build.wait(timeout=60) == 128 + signum
    assert "build interrupted" in build.stderr.read().decode()
    assert _gone(str(staging)), "MkDocs is still running"
    assert not staging.exists() and not (tmp_path / "site").exists()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_a_killed_build_takes_mkdocs_with_it_and_the_next_build_removes_its_folder(tmp_path):
    build, staging = _start_build(tmp_path)
    build.kill()  # SIGKILL: no cleanup can run in the build process
    build.wait(timeout=30)
    assert _gone(str(staging)), "MkDocs outlived the build that started it"
    assert staging.exists()  # left behind, named after the dead process …
    assert remove_orphaned_staging(tmp_path) == [staging]  # … which the next build removes first
    assert not staging.exists()


def test_a_live_builds_staging_folder_is_left_alone(tmp_path):
    mine = tmp_path / f"{STAGING_PREFIX}{os.getpid()}-abc"
    mine.mkdir()
    unnamed = tmp_path / f"{STAGING_PREFIX}abc"  # not ours: no pid in the name
    unnamed.mkdir()
    assert remove_orphaned_staging(tmp_path) == []
    assert mine.exists() and unnamed.exists()
