"""Load the whole knowledge base and run every KB check; report every problem at once as
``file:line: field: got …, expected …``. The site build runs the same checks before it writes a page."""

from __future__ import annotations

import argparse
from pathlib import Path

from handbook.cli import report
from handbook.core.arguments import folder
from handbook.core.paths import KB_ROOT
from handbook.kb.loader import KBInvalid, load_kb
from handbook.validation.registry import run_checks


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kb", default=str(KB_ROOT), type=folder, help="the KB folder (default: kb/)")


def run(args: argparse.Namespace) -> int:
    try:
        kb = load_kb(Path(args.kb))
    except KBInvalid as exc:
        return report(exc.problems)
    problems = run_checks(kb)
    if problems:
        return report(problems)
    print(
        f"✔ knowledge base valid: {len(kb.models)} models, {len(kb.hardware)} accelerators, "
        f"{len(kb.parameters)} parameters, {len(kb.recipes)} recipes, {len(kb.pitfalls)} pitfalls, "
        f"{len(kb.env_vars)} environment variables, {len(kb.sources)} sources"
    )
    return 0
