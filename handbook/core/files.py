"""Every file the package writes goes through here: inside a folder the caller names (the KB, the site being
built, the repository's generated files, a folder a person chose), into a folder that exists, never through a
symbolic link, and all at once.

A file is first written whole to a staging file beside it (created exclusively, under a name no one can
plant a link at: O_EXCL and O_NOFOLLOW), then renamed over the target, or, for a new file, linked to its
name only if that name is free. Folders are opened one by one below the root without following links, so a
link planted anywhere on the way is refused rather than followed. A missing folder is an error unless the
caller builds a tree of its own (the site's exports): a mistyped ``--kb`` is never created.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_STAGING = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


class WriteRefused(Exception):
    """A write that was not made; the message names the file and why, and nothing was changed."""


def write_text(
    path: Path, text: str, *, root: Path, new: bool = False, folders: bool = False, durable: bool = True
) -> None:
    """Write ``text`` (UTF-8) to ``path``, which must lie below ``root``.

    ``new``: the file must not exist (the write fails rather than replace one that appeared meanwhile).
    ``folders``: create missing folders below ``root`` (a build writing its own tree); never ``root``.
    ``durable``: flush the file to disk before it takes the name. A built site and the build's caches pass
    False: they are written by the hundred on every build and made again after a crash, and the rename
    still makes each file appear whole or not at all."""
    write_data(path, text.encode("utf-8"), root=root, new=new, folders=folders, durable=durable)


def write_data(
    path: Path, data: bytes, *, root: Path, new: bool = False, folders: bool = False, durable: bool = True
) -> None:
    """``write_text`` for bytes already encoded (a stored export written as it was kept)."""
    with _folder_of(path, root, folders) as (folder, name):
        _check_target(folder, name, path, new)
        staging = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.new"
        try:
            handle = os.open(staging, _STAGING, 0o666, dir_fd=folder)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view) :]
                if durable:
                    os.fsync(handle)
            finally:
                os.close(handle)
            if new:
                os.link(staging, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
            else:
                os.replace(staging, name, src_dir_fd=folder, dst_dir_fd=folder)
        except FileExistsError:
            raise WriteRefused(f"{path}: exists already") from None
        except OSError as exc:
            raise WriteRefused(f"{path}: cannot be written ({exc.strerror})") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging, dir_fd=folder)


def link_file(path: Path, source: Path, *, root: Path, folders: bool = False) -> None:
    """``write_data`` of a file already written whole elsewhere (a build's stored export): hard-linked into
    place under a staging name and renamed over the target, as ``write_data`` does; copied where the
    filesystem refuses the link. ``source`` is never written to."""
    try:
        with _folder_of(path, root, folders) as (folder, name):
            _check_target(folder, name, path, False)
            staging = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.new"
            try:
                os.link(source, staging, dst_dir_fd=folder, follow_symlinks=False)
                os.replace(staging, name, src_dir_fd=folder, dst_dir_fd=folder)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(staging, dir_fd=folder)
        return
    except OSError:  # another filesystem, or one without hard links
        pass
    write_data(path, source.read_bytes(), root=root, folders=folders, durable=False)


def remove(path: Path, *, root: Path) -> None:
    """Delete the file ``path`` below ``root`` (a file no longer generated); never a link's target."""
    with _folder_of(path, root, folders=False) as (folder, name):
        try:
            os.unlink(name, dir_fd=folder)
        except IsADirectoryError:
            raise WriteRefused(f"{path}: is a folder, not a file") from None
        except OSError as exc:
            raise WriteRefused(f"{path}: cannot be removed ({exc.strerror})") from None


@contextlib.contextmanager
def _folder_of(path: Path, root: Path, folders: bool) -> Iterator[tuple[int, str]]:
    """The open folder that holds ``path``, reached from ``root`` without following a link, and the file's
    name in it."""
    root = Path(os.path.abspath(root))
    target = Path(os.path.abspath(path))
    if not target.is_relative_to(root) or target == root:
        raise WriteRefused(f"{path}: outside {root}, the folder this command writes in")
    parts = target.relative_to(root).parts
    try:
        folder = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except FileNotFoundError:
        raise WriteRefused(f"{root}: no such folder (it is not created)") from None
    except OSError as exc:
        raise WriteRefused(f"{root}: cannot be opened as a folder ({exc.strerror})") from None
    try:
        walked = root
        for part in parts[:-1]:
            walked = walked / part
            inner = _enter(folder, part, walked, folders)
            os.close(folder)
            folder = inner
        yield folder, parts[-1]
    finally:
        os.close(folder)


def _enter(folder: int, part: str, walked: Path, create: bool) -> int:
    """The folder ``part`` inside the open ``folder``, created first when ``create``."""
    try:
        try:
            return os.open(part, _DIRECTORY, dir_fd=folder)
        except FileNotFoundError:
            if not create:
                raise WriteRefused(f"{walked}: no such folder (it is not created)") from None
            os.mkdir(part, dir_fd=folder)
            return os.open(part, _DIRECTORY, dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise WriteRefused(f"{walked}: a link or a file, not a folder") from None
        raise WriteRefused(f"{walked}: cannot be opened ({exc.strerror})") from None


def _check_target(folder: int, name: str, path: Path, new: bool) -> None:
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise WriteRefused(f"{path}: a symbolic link; it is not written through")
    if stat.S_ISDIR(info.st_mode):
        raise WriteRefused(f"{path}: a folder, not a file")
    if new:
        raise WriteRefused(f"{path}: exists already")
