"""What the site build computes from its inputs alone, kept by content in ``.cache/build/`` across builds.

The planner's, the checker's and the configurator's exports and the verdict that the KB passes every check
(handbook.validation) depend only on the KB as loaded, the engine's files (kb/engine/: the snapshots, the
release history, the replays), the pages under docs/, the package's code and wording, and the repository files
the checks and renderers read (source/, assets/, benchmarks/latest.json, mkdocs.yml). ``build_key`` hashes
them all; a stored result is read back only under the same key, so any change to any of them computes again.

The KB enters as parsed (its kb.json form): a comment or a reformatting of a KB file changes no key, a changed
value does. The engine's files, the pages and the code enter as bytes. Only a clean check verdict is stored:
a KB with problems is checked every time, so that each problem carries the line it is on now.

A store that cannot be read or written is simply not used (a read-only checkout builds without it).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from pathlib import Path

from handbook.checker.cache import code_digest
from handbook.core.files import WriteRefused, write_text
from handbook.core.paths import BENCH_RECORD, ENGINE_DIR, MKDOCS_YML, REPO_ROOT, SOURCE_TEXT
from handbook.kb.export import kb_export
from handbook.kb.loader import KB

FORMAT = 1  # bump when what a stored file holds changes shape
CLEAN = "no problems\n"  # the stored verdict of a KB that passes every check


def folder_digest(folder: Path) -> str:
    """Every file under ``folder``, by relative path and bytes (an empty digest when there is none)."""
    digest = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def kb_digest(kb: KB) -> str:
    """The KB as loaded: every entity in its kb.json form (no commit, no file positions)."""
    return hashlib.sha256(kb_export(kb, None, None).model_dump_json().encode()).hexdigest()


def file_digest(path: Path) -> str:
    """One file's bytes (an empty digest when there is none)."""
    return hashlib.sha256(path.read_bytes() if path.is_file() else b"").hexdigest()


def build_key(kb: KB, docs_dir: Path, engine_dir: Path = ENGINE_DIR) -> str:
    # besides the KB, the engine's files, the pages and the code, what the checks and the renderers read from
    # the repository: the source's text (the silent-change and source-parity checks), the drawn figures, the
    # committed bench record and mkdocs.yml (the site's URL)
    parts = (str(FORMAT), kb_digest(kb), folder_digest(engine_dir), folder_digest(docs_dir), code_digest())
    parts += (folder_digest(SOURCE_TEXT.parent), folder_digest(REPO_ROOT / "assets"))
    parts += (file_digest(BENCH_RECORD), file_digest(MKDOCS_YML))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class BuildStore:
    """Texts kept under one build key in ``folder`` (default: ``.cache/build`` beside the KB's folder)."""

    def __init__(self, kb: KB, docs_dir: Path, folder: Path | None = None, *, engine_dir: Path = ENGINE_DIR):
        self.folder = folder if folder is not None else kb.root.parent / ".cache" / "build"
        self.key = build_key(kb, docs_dir, engine_dir)

    def _file(self, name: str) -> Path:
        # one file per export: the path's folders joined by '~', which no KB id or export name holds (a '-'
        # would make assets/configurator/a-b/c.json and assets/configurator/a/b-c.json one file)
        return self.folder / f"{name.replace('/', '~')}-{self.key[:32]}"

    def stored(self, name: str) -> str | None:
        """The text kept as ``name`` under this key, or None."""
        try:
            return self._file(name).read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None

    def keep(self, name: str, text: str) -> None:
        """Keep ``text`` as ``name`` under this key; what was kept as ``name`` under other keys goes."""
        file = self._file(name)
        with contextlib.suppress(WriteRefused, OSError):
            write_text(file, text, root=self.folder.parent.parent, folders=True)
            for old in self.folder.glob(file.name[: -len(self.key[:32])] + "*"):
                if old != file:
                    old.unlink(missing_ok=True)

    def text(self, name: str, compute: Callable[[], str]) -> str:
        """The text kept as ``name`` under this key; else ``compute()``, kept for the next build."""
        text = self.stored(name)
        if text is None:
            text = compute()
            self.keep(name, text)
        return text
