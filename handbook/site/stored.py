"""What the site build computes from its inputs alone, kept by content in ``.cache/build/`` across builds.

The planner's, the checker's and the configurator's exports and the verdict that the KB passes every check
(handbook.validation) depend only on the KB as loaded, the engine's files (kb/engine/: the snapshots, the
release history, the replays), the pages under docs/, the package's code and wording, and the repository files
the checks and renderers read (source/, assets/, benchmarks/latest.json, mkdocs.yml). ``build_key`` hashes
them all; a stored result is read back only under the same key, so any change to any of them computes again.

The KB enters as parsed (its kb.json form): a comment or a reformatting of a KB file changes no key, a changed
value does. The engine's files, the pages and the code enter as bytes. Only a clean check verdict is stored:
a KB with problems is checked every time, so that each problem carries the line it is on now.

A build that finds the very files (the KB's included, as bytes: ``files_key``) of a build it has already
checked and stored needs no KB loaded at all: ``BuildStore.recorded`` finds that build's key from the files
alone (the last build records which content key its files had), and the pages, the figures and the exports
are read back; the KB is loaded only if something is missing.

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

FORMAT = 2  # bump when what a stored file holds changes shape
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


def _inputs_besides_the_kb(docs_dir: Path, engine_dir: Path) -> tuple[str, ...]:
    # besides the KB, the engine's files, the pages and the code, what the checks and the renderers read from
    # the repository: the source's text (the silent-change and source-parity checks), the drawn figures, the
    # committed bench record and mkdocs.yml (the site's URL)
    parts = (folder_digest(engine_dir), folder_digest(docs_dir), code_digest())
    parts += (folder_digest(SOURCE_TEXT.parent), folder_digest(REPO_ROOT / "assets"))
    return (*parts, file_digest(BENCH_RECORD), file_digest(MKDOCS_YML))


def build_key(kb: KB, docs_dir: Path, engine_dir: Path = ENGINE_DIR) -> str:
    """The content key: the KB as loaded and every other input as bytes."""
    parts = (str(FORMAT), kb_digest(kb), *_inputs_besides_the_kb(docs_dir, engine_dir))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def files_key(kb_root: Path, docs_dir: Path, engine_dir: Path = ENGINE_DIR) -> str:
    """Every input as bytes, the KB's files too: known without loading the KB (a comment changes it)."""
    parts = (str(FORMAT), folder_digest(kb_root), *_inputs_besides_the_kb(docs_dir, engine_dir))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


FILES_RECORD = "files"  # the last build's files_key and build key; no stored text is named so


def default_folder(kb_root: Path) -> Path:
    return kb_root.parent / ".cache" / "build"


class BuildStore:
    """Texts kept under one build key in ``folder`` (default: ``.cache/build`` beside the KB's folder)."""

    def __init__(self, kb: KB, docs_dir: Path, folder: Path | None = None, *, engine_dir: Path = ENGINE_DIR):
        self.folder = folder if folder is not None else default_folder(kb.root)
        self.key = build_key(kb, docs_dir, engine_dir)

    @classmethod
    def recorded(
        cls, kb_root: Path, docs_dir: Path, folder: Path | None = None, *, engine_dir: Path = ENGINE_DIR
    ) -> BuildStore | None:
        """The store of the last build, if its files were exactly these (``record_files``); else None."""
        folder = folder if folder is not None else default_folder(kb_root)
        try:
            files, key = (folder / FILES_RECORD).read_text(encoding="utf-8").split()
        except (OSError, ValueError):
            return None
        if files != files_key(kb_root, docs_dir, engine_dir):
            return None
        store = cls.__new__(cls)
        store.folder, store.key = folder, key
        return store

    def record_files(self, kb_root: Path, docs_dir: Path, *, engine_dir: Path = ENGINE_DIR) -> None:
        """Note that a build of exactly these files has this store's key (one record: the last build's); what
        was kept under other keys goes (the store holds one build)."""
        with contextlib.suppress(WriteRefused, OSError):
            text = f"{files_key(kb_root, docs_dir, engine_dir)} {self.key}\n"
            write_text(
                self.folder / FILES_RECORD, text, root=self.folder.parent.parent, folders=True, durable=False
            )
            for old in self.folder.iterdir():
                if old.name != FILES_RECORD and not old.name.endswith(self.key[:32]):
                    old.unlink(missing_ok=True)

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
            write_text(file, text, root=self.folder.parent.parent, folders=True, durable=False)
            for old in self.folder.glob(file.name[: -len(self.key[:32])] + "*"):
                if old != file:
                    old.unlink(missing_ok=True)

    def file(self, name: str) -> Path | None:
        """The file ``keep`` wrote ``name`` to under this key (its bytes are the text kept), or None."""
        file = self._file(name)
        return file if file.is_file() else None

    def kept(self, name: str, variant: str = "") -> str | None:
        """The text ``text`` kept as ``name`` for ``variant`` under this key, or None."""
        tag = _tag(variant)
        kept = self.stored(name)
        return kept[len(tag) :] if kept is not None and kept.startswith(tag) else None

    def text(self, name: str, compute: Callable[[], str], variant: str = "") -> str:
        """The text kept as ``name`` under this key; else ``compute()``, kept for the next build.

        ``variant``: what else the text depends on (a page's markdown as MkDocs hands it over, the site's
        URL); one text is kept per name, the last variant's."""
        text = self.kept(name, variant)
        if text is None:
            text = compute()
            self.keep(name, _tag(variant) + text)
        return text


def _tag(variant: str) -> str:
    """The first line of a text kept by ``BuildStore.text``: which variant it is."""
    return hashlib.sha256(variant.encode()).hexdigest()[:16] + "\n"
