"""Write every committed generated file from its source, or with ``--check`` list the stale ones.

- ``schema``: the KB's JSON Schemas (kb/schema/) and the editor mapping (.vscode/settings.json), from the
  pydantic models;
- ``diagrams``: the figures' SVGs (assets/), from kb/ through graphviz's ``dot``.

``--check`` writes nothing and exits 1 naming each stale file (with the start of its diff where the text is
known without rendering); the tests and CI run it, and the site build refuses a stale SVG the same way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from handbook.cli import report
from handbook.core.arguments import folder
from handbook.core.generated import REGENERATE, Stale
from handbook.core.paths import KB_ROOT, REPO_ROOT
from handbook.diagrams import files as svg_files
from handbook.diagrams.catalogue import catalogue
from handbook.diagrams.dot import DiagramError
from handbook.kb import json_schema
from handbook.kb.loader import KBInvalid, load_kb

WHAT = ("schema", "diagrams")


def _what(value: str) -> str:
    if value not in WHAT:
        raise argparse.ArgumentTypeError(f"got {value!r}, expected one of: {', '.join(WHAT)}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", nargs="*", type=_what, metavar="schema|diagrams", help="default: both")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; fail naming each stale file and the fix"
    )
    parser.add_argument("--kb", default=str(KB_ROOT), type=folder, help="the KB folder (default: kb/)")
    parser.add_argument(
        "--repo", default=str(REPO_ROOT), type=folder, help="where the files live (default: %(default)s)"
    )


def _print_stale(stale: list[Stale], dot_missing: bool) -> int:
    for item in stale:
        print(f"✖ {item}", file=sys.stderr)
        if item.diff:
            print("\n".join("    " + line for line in item.diff.splitlines()), file=sys.stderr)
    if dot_missing:
        print(f"graphviz's dot is not installed here; first: {svg_files.INSTALL_HINT}", file=sys.stderr)
    print(
        f"✖ {len(stale)} generated file(s) stale. Regenerate them with:\n\n    {REGENERATE}\n",
        file=sys.stderr,
    )
    return 1


def run(args: argparse.Namespace) -> int:
    what = args.what or list(WHAT)
    repo = Path(args.repo)
    stale: list[Stale] = []
    counts: dict[str, int] = {}
    figures = {}
    if "schema" in what:
        counts["schema and editor files"] = len(json_schema.generated())
        stale += json_schema.stale(repo)
    if "diagrams" in what:
        try:
            figures = catalogue(load_kb(Path(args.kb)))
        except KBInvalid as exc:
            return report(exc.problems)
        except DiagramError as exc:
            return report(exc.problems, "in the diagrams' data")
        counts["diagram SVGs"] = sum(len(f.drawings) for f in figures.values())
        stale += svg_files.stale(figures, repo)
    dot = svg_files.dot_binary()
    diagrams_stale = any(item.path.endswith(".svg") for item in stale)
    if args.check:
        if stale:
            return _print_stale(stale, diagrams_stale and dot is None)
        print("✔ up to date: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
        return 0
    changed: list[str] = []
    if "schema" in what:
        changed += json_schema.write(repo)
    if "diagrams" in what and diagrams_stale:
        if dot is None:
            print(f"✖ graphviz's dot is not installed: {svg_files.INSTALL_HINT}", file=sys.stderr)
            return 1
        try:
            changed += svg_files.write(figures, repo, dot)
        except DiagramError as exc:
            return report(exc.problems, "rendering the diagrams")
    for rel in changed:
        print(f"wrote {rel}" if (repo / rel).exists() else f"removed {rel} (no longer generated)")
    print(f"✔ {len(changed)} file(s) changed" if changed else "✔ already up to date")
    return 0
