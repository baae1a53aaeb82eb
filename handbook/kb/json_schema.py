"""JSON Schema for every kind of KB file, generated from the pydantic models and committed under kb/schema/.

Editors that speak JSON Schema for YAML (VS Code's YAML extension, any yaml-language-server client) read
them through ``.vscode/settings.json``, which maps each kb/ glob to its schema: completion, hover text and
errors while typing. The pydantic models stay the one source of truth; ``python -m handbook schema``
rewrites the files and ``--check`` fails, naming each stale file, when they no longer match the models.
The schemas are looser than the loader (cross-field rules, references between files and the
placeholder rule only run in ``python -m handbook validate``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import ENTITY_DIRS, SINGLE_FILES, Kind

REGENERATE = "python -m handbook schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = "kb/schema"  # relative to the repository; the loader does not read it
EDITOR_SETTINGS = ".vscode/settings.json"
EXPORT_SCHEMA = "kb.schema.json"  # the schema of the site's kb.json (handbook.exports)


def kinds() -> list[Kind]:
    """Every kind of file the loader reads, in the loader's order."""
    return [*SINGLE_FILES, *ENTITY_DIRS]


def schema_name(kind: Kind) -> str:
    return f"{kind.name}.schema.json"


def file_schema(kind: Kind) -> dict[str, Any]:
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
    from handbook.exports import export_schema

    files = {f"{SCHEMA_DIR}/{schema_name(kind)}": dumps(file_schema(kind)) for kind in kinds()}
    files[f"{SCHEMA_DIR}/{EXPORT_SCHEMA}"] = dumps(export_schema())
    files[EDITOR_SETTINGS] = dumps(editor_settings())
    return files


def stale(repo: Path = REPO_ROOT) -> list[tuple[str, str]]:
    """``(path, why)`` for each generated file that is missing, differs, or is no longer generated."""
    expected = generated()
    out: list[tuple[str, str]] = []
    for rel, text in expected.items():
        path = repo / rel
        if not path.is_file():
            out.append((rel, "missing"))
        elif path.read_text(encoding="utf-8") != text:
            out.append((rel, "out of date"))
    for path in sorted((repo / SCHEMA_DIR).glob("*.json")):
        rel = path.relative_to(repo).as_posix()
        if rel not in expected:
            out.append((rel, "no longer generated"))
    return out


def write(repo: Path = REPO_ROOT) -> list[str]:
    """Bring every generated file up to date; the paths written or removed."""
    expected = generated()
    changed: list[str] = []
    for rel, why in stale(repo):
        path = repo / rel
        if why == "no longer generated":
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(expected[rel], encoding="utf-8")
        changed.append(rel)
    return changed


def _run(args: argparse.Namespace) -> int:
    repo = Path(args.repo)
    if args.check:
        problems = stale(repo)
        for rel, why in problems:
            print(f"✖ {rel}: {why}", file=sys.stderr)
        if problems:
            print(
                f"{len(problems)} generated file(s) stale. Regenerate them with:\n\n    {REGENERATE}\n",
                file=sys.stderr,
            )
            return 1
        print(f"✔ {len(generated())} schema and editor files are up to date")
        return 0
    changed = write(repo)
    for rel in changed:
        print(f"wrote {rel}")
    print(f"✔ {len(changed)} file(s) changed" if changed else "✔ already up to date")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "schema",
        help="write the KB's JSON Schema (kb/schema/) and the editor mapping (.vscode/settings.json)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; fail if a generated file is stale"
    )
    parser.add_argument("--repo", default=str(REPO_ROOT), help=argparse.SUPPRESS)  # tests use a copy
    parser.set_defaults(run=_run)
