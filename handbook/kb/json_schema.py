"""JSON Schema for every kind of KB file, generated from the pydantic models and committed under kb/schema/.

Editors that speak JSON Schema for YAML (VS Code's YAML extension, any yaml-language-server client) read
them through ``.vscode/settings.json``, which maps each kb/ glob to its schema: completion, hover text and
errors while typing. The pydantic models stay the one source of truth; ``python -m handbook generate``
rewrites the files and ``--check`` fails, naming each stale file, when they no longer match the models.
The schemas are looser than the loader (cross-field rules, references between files and the
placeholder rule only run in ``python -m handbook validate``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from handbook.core.files import remove, write_text
from handbook.core.generated import REGENERATE, Stale, short_diff
from handbook.core.paths import REPO_ROOT
from handbook.kb.export import DRAFT, export_schema
from handbook.kb.kinds import KBFile
from handbook.kb.loader import FILES

SCHEMA_DIR = "kb/schema"  # relative to the repository; the loader does not read it
EDITOR_SETTINGS = ".vscode/settings.json"
EXPORT_SCHEMA = "kb.schema.json"  # the schema of the site's kb.json (handbook.site.exports)


def kinds() -> list[KBFile]:
    """Every kind of file the loader reads, in the loader's order (derived from the KB's kinds)."""
    return list(FILES)


def schema_name(kind: KBFile) -> str:
    return f"{kind.name}.schema.json"


def file_schema(kind: KBFile) -> dict[str, Any]:
    """The JSON Schema of one kind of KB file (what the loader validates it with)."""
    body = kind.schema.model_json_schema(mode="validation")
    return {
        "$schema": DRAFT,
        "$comment": f"Generated from handbook/kb/schema.py by `{REGENERATE}`; do not edit.",
        **body,
        "title": f"kb/{kind.pattern}",  # what editors show: the files it describes, not the class name
    }


def dumps(data: Any) -> str:
    """The committed form: stable key order as generated, two-space indent, UTF-8, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def editor_settings() -> dict[str, Any]:
    """``.vscode/settings.json``: each schema mapped to the files it describes.

    yaml-language-server matches a pattern against the end of a file's path, so the leading ``/kb/`` keeps
    the test fixtures (tests/fixtures/kb-mini/…) out of it.
    """
    return {
        "yaml.schemas": {f"./{SCHEMA_DIR}/{schema_name(kind)}": [f"/kb/{kind.pattern}"] for kind in kinds()},
    }


def generated() -> dict[str, str]:
    """Every generated file, by path relative to the repository, with its exact text."""
    files = {f"{SCHEMA_DIR}/{schema_name(kind)}": dumps(file_schema(kind)) for kind in kinds()}
    files[f"{SCHEMA_DIR}/{EXPORT_SCHEMA}"] = dumps(export_schema())
    files[EDITOR_SETTINGS] = dumps(editor_settings())
    return files


def stale(repo: Path = REPO_ROOT) -> list[Stale]:
    """Each generated file that is missing, differs (with the start of its diff) or is no longer generated."""
    expected = generated()
    out: list[Stale] = []
    for rel, text in expected.items():
        path = repo / rel
        if not path.is_file():
            out.append(Stale(rel, "missing"))
            continue
        committed = path.read_text(encoding="utf-8")
        if committed != text:
            out.append(Stale(rel, "out of date", short_diff(rel, committed, text)))
    for path in sorted((repo / SCHEMA_DIR).glob("*.json")):
        rel = path.relative_to(repo).as_posix()
        if rel not in expected:
            out.append(Stale(rel, "no longer generated"))
    return out


def write(repo: Path = REPO_ROOT) -> list[str]:
    """Bring every generated file up to date; the paths written or removed."""
    expected = generated()
    changed: list[str] = []
    for item in stale(repo):
        rel = item.path
        path = repo / rel
        if item.reason == "no longer generated":
            remove(path, root=repo)
        else:
            write_text(path, expected[rel], root=repo, folders=True)  # kb/schema/, .vscode/: its own folders
        changed.append(rel)
    return changed
