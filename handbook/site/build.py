"""Build the site all-or-nothing: MkDocs writes into a fresh folder that replaces ``site/`` only on success.

MkDocs writes pages one by one, so a failure part-way (a strict-mode warning is only raised at the end)
would otherwise leave a half-written site behind. An interrupted build cleans up too: on SIGINT or SIGTERM
MkDocs is stopped and its staging folder removed; if the build process is killed outright, MkDocs dies with
it (Linux) and the next build removes the folder it left, which is named after the dead process.

A build replaces only what a build made: every built site carries a marker file (BUILD_MARKER, which MkDocs
leaves alone as it skips dot files), and a ``--site-dir`` that exists, is not empty and has no marker (the
sources, a home folder) is refused before anything is written. The folder's parent must exist.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType

from handbook.core.files import write_text
from handbook.core.paths import MKDOCS_YML, SITE_DIR
from handbook.site.reproducible import commit_epoch

STAGING_PREFIX = ".site-build-"
_STAGING = re.compile(re.escape(STAGING_PREFIX) + r"(?P<pid>\d+)-")
BUILD_MARKER = ".handbook-site"
_MARKER_TEXT = (
    "This folder is a build of the SGLang handbook (python -m handbook build).\n"
    "The next build replaces it whole; a folder without this file is never replaced.\n"
)
_PR_SET_PDEATHSIG = 1


class Interrupted(Exception):
    """The build was asked to stop (SIGINT or SIGTERM)."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def mkdocs_env(repo: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment MkDocs builds in: quiet about MkDocs 2, and the only date it writes (the sitemap's)
    pinned to the last commit's, so that builds of one commit are identical. A date the caller set wins."""
    env = {**environ, "NO_MKDOCS_2_WARNING": "1"}
    epoch = commit_epoch(repo)
    if epoch is not None:
        env.setdefault("SOURCE_DATE_EPOCH", epoch)
    return env


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_build(folder: Path) -> bool:
    """Whether ``folder`` holds a build's marker (a regular file, not a link)."""
    try:
        return stat.S_ISREG((folder / BUILD_MARKER).lstat().st_mode)
    except OSError:
        return False


def refusal(site_dir: Path) -> str | None:
    """Why the build may not replace ``site_dir``, or None: it is missing, empty, or a previous build."""
    try:
        info = site_dir.lstat()
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link; give the folder itself"
    if not stat.S_ISDIR(info.st_mode):
        return "is a file, not a folder"
    if is_build(site_dir) or not any(site_dir.iterdir()):
        return None
    return (
        f"holds files that no build of the handbook wrote (it has no {BUILD_MARKER}); a build replaces only "
        "an empty folder or a previous build, so give a new or empty --site-dir"
    )


def remove_orphaned_staging(parent: Path) -> list[Path]:
    """Staging folders left by builds whose process is gone (killed before it could clean up): only those
    that hold a build's marker, or nothing at all."""
    removed = []
    for path in sorted(parent.glob(STAGING_PREFIX + "*")):
        match = _STAGING.match(path.name)
        if not (match and path.is_dir() and not path.is_symlink() and not _alive(int(match.group("pid")))):
            continue
        if is_build(path) or not any(path.iterdir()):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _die_with_parent() -> None:
    """In the MkDocs child: receive SIGTERM when the build process dies, however it dies (Linux only)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Interrupted`` here, so that the build's cleanup runs."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    if threading.current_thread() is threading.main_thread():  # signal handlers live in the main thread
        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    else:
        previous = {}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop MkDocs and anything it started (its own process group), gently first."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def build_site(site_dir: Path = SITE_DIR, config: Path = MKDOCS_YML) -> int:
    site_dir = Path(os.path.abspath(site_dir))
    if not site_dir.parent.is_dir():
        print(f"✖ {site_dir.parent}: no such folder (it is not created); nothing was built.", file=sys.stderr)
        return 2
    why = refusal(site_dir)
    if why is not None:
        print(f"✖ {site_dir} {why}; nothing was written.", file=sys.stderr)
        return 2
    remove_orphaned_staging(site_dir.parent)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=site_dir.parent))
    write_text(staging / BUILD_MARKER, _MARKER_TEXT, root=staging)
    env = mkdocs_env(config.parent, os.environ)
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
    command += ["--site-dir", str(staging)]
    process: subprocess.Popen[bytes] | None = None
    try:
        with _stop_on_signals():
            process = subprocess.Popen(command, env=env, start_new_session=True, preexec_fn=_die_with_parent)
            returncode = process.wait()
        if returncode != 0:
            print(f"✖ build failed; {site_dir} was left as it was.", file=sys.stderr)
            return returncode
        why = refusal(site_dir)  # again: something may have been put there while MkDocs ran
        if why is not None:
            print(f"✖ {site_dir} {why}; the build was discarded.", file=sys.stderr)
            return 2
        # the previous build moves aside under a staging name of its own (removed below, or by the next
        # build if this one is killed), never onto a name someone else may use
        old = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-old-", dir=site_dir.parent))
        if site_dir.exists():
            os.replace(site_dir, old)
        staging.rename(site_dir)
        shutil.rmtree(old, ignore_errors=True)
        print(f"✔ site built in {site_dir}")
        return 0
    except Interrupted as exc:
        print(f"✖ build interrupted ({exc}); {site_dir} was left as it was.", file=sys.stderr)
        return 128 + exc.signum
    finally:
        if process is not None and process.poll() is None:
            _stop(process)
        shutil.rmtree(staging, ignore_errors=True)
