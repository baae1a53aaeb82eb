"""Engine checks kept by content, valid across builds: a recipe's findings against one release depend only on
its command text (and model), that release's snapshot, the KB facts the checker reads and the checker's own
code. Each of these is hashed into the key, so a stored answer is reused only while all of them are the same
and a change to any one of them checks again.

The answers live in ``.cache/checks/`` beside the KB's folder (the repository's ``.cache/``, ignored by git),
one JSON file per release snapshot × KB facts × code: the site build checks every published command against
every stored release (the compatibility matrix), and a rebuild whose checked inputs did not change reads
those answers back instead of checking again. A cache that cannot be read or written is simply not used.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from handbook.calc.recipe_text import command_text
from handbook.checker.check import check_recipe
from handbook.checker.findings import Finding
from handbook.core.files import WriteRefused, write_text
from handbook.core.text import Text
from handbook.engine.snapshot import EngineSnapshot, history_path, snapshot_path
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe

PACKAGE = Path(__file__).resolve().parents[1]
# what the checker reads from the KB besides the recipe itself (check.py, sizing.py, envcheck.py)
CHECKED_FACTS = ("handbook", "rules", "env_vars", "models", "hardware", "dtypes")
FORMAT = 1  # bump when the stored shape of a finding changes


@functools.cache
def code_digest() -> str:
    """The package's code and wording: a change to any module or message catalogue checks again."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and path.suffix in {".py", ".yaml", ".json"} and "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def snapshot_digest(version: str) -> str:
    """The bytes a release's snapshot is read from (its own file, or the history it is expanded from)."""
    own = snapshot_path(version)
    source = own if own.is_file() else history_path()
    return hashlib.sha256(version.encode() + b"\0" + source.read_bytes()).hexdigest()


def facts_digest(kb: KB) -> str:
    """The KB facts the checker reads, as parsed (a comment or a reformatting of a file changes nothing)."""
    from pydantic import TypeAdapter

    digest = hashlib.sha256()
    for name in CHECKED_FACTS:
        value = getattr(kb, name)
        digest.update(name.encode() + b"\0" + TypeAdapter(type(value)).dump_json(value) + b"\0")
    return digest.hexdigest()


def _text(value: Text | None) -> dict[str, str] | None:
    return None if value is None else {"zh": value.zh, "en": value.en}


def to_json(finding: Finding) -> dict[str, Any]:
    return {
        "severity": finding.severity,
        "code": finding.code,
        "message": _text(finding.message),
        "line": finding.line,
        "subject": finding.subject,
        "link": finding.link,
        "rule": finding.rule,
        "said": _text(finding.said),
        "edits": [list(edit) for edit in finding.edits],
        "edit_line": finding.edit_line,
        "security": finding.security,
    }


def from_json(data: dict[str, Any]) -> Finding:
    said = data["said"]
    return Finding(
        severity=data["severity"],
        code=data["code"],
        message=Text.of(**data["message"]),
        line=data["line"],
        subject=data["subject"],
        link=data["link"],
        rule=data["rule"],
        said=None if said is None else Text.of(**said),
        edits=tuple(tuple(edit) for edit in data["edits"]),
        edit_line=data["edit_line"],
        security=data["security"],
    )


class CheckCache:
    """The stored findings of recipes against releases, for one KB."""

    def __init__(self, kb: KB, folder: Path | None = None, *, kept: bool = True):
        """``folder``: where answers are kept (default: ``.cache/checks`` beside the KB's folder);
        ``kept=False``: nothing is read or written, every recipe is checked (a renderer outside a build)."""
        self.kb = kb
        self.folder = folder if folder is not None else kb.root.parent / ".cache" / "checks"
        self.kept = kept
        self.facts = facts_digest(kb) if kept else ""

    def _file(self, version: str) -> Path:
        key = f"{FORMAT}\0{snapshot_digest(version)}\0{self.facts}\0{code_digest()}"
        return self.folder / f"{version}-{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def findings(
        self,
        recipes: Mapping[str, Recipe],
        version: str,
        snapshot: EngineSnapshot | Callable[[], EngineSnapshot],
    ) -> dict[str, list[Finding]]:
        """Each recipe's findings against ``version`` (whose snapshot is ``snapshot``, or what the callable
        loads, only when something is not stored yet), by recipe id."""
        file = self._file(version) if self.kept else None
        try:
            stored: dict[str, list[dict[str, Any]]] = (
                json.loads(file.read_text(encoding="utf-8")) if file else {}
            )
        except (OSError, ValueError):
            stored = {}
        keys = {rid: f"{recipe.model}\0{command_text(recipe)}" for rid, recipe in recipes.items()}
        missing = [rid for rid, key in keys.items() if key not in stored]
        if missing:
            loaded = snapshot if isinstance(snapshot, EngineSnapshot) else snapshot()
            for rid in missing:
                stored[keys[rid]] = [to_json(f) for f in check_recipe(recipes[rid], loaded, self.kb)]
            if file is not None:
                self._save(file, stored)
        return {rid: [from_json(f) for f in stored[key]] for rid, key in keys.items()}

    def _save(self, file: Path, stored: dict[str, Any]) -> None:
        root = self.folder.parent.parent
        text = json.dumps(stored, ensure_ascii=False, sort_keys=True)
        with contextlib.suppress(WriteRefused, OSError):  # a read-only checkout builds without keeping them
            write_text(file, text, root=root, folders=True, durable=False)
