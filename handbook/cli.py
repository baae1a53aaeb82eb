"""``python -m handbook <subcommand>``: the project's command line.

Each subcommand lives in its own module with ``register(subparsers)``; add the module to SUBCOMMANDS.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

SUBCOMMANDS = [
    "handbook.cli",  # validate, build
    "handbook.quality.links",  # links
    "handbook.quality.translations",  # translations
    "handbook.quality.bench",  # bench
    "handbook.kb.json_schema",  # schema
    "handbook.scaffold",  # new
    "handbook.engine.command",  # engine-diff
    "handbook.diagrams.cli",  # diagrams
    "handbook.checker.cli",  # check
    "handbook.plan_command",  # plan
]


def report(problems: list, what: str = "in the knowledge base") -> int:
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"✖ {len(problems)} problem(s) {what}.", file=sys.stderr)
    return 1


def _validate(args: argparse.Namespace) -> int:
    from handbook.checks import run_checks
    from handbook.kb.loader import KBInvalid, load_kb

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


def _build(args: argparse.Namespace) -> int:
    from handbook.build import build_site

    return build_site(Path(args.site_dir))


def register(sub: argparse._SubParsersAction) -> None:
    from handbook.core.paths import KB_ROOT

    validate = sub.add_parser("validate", help="load the whole KB and report every problem at once")
    validate.add_argument("--kb", default=str(KB_ROOT), help="the KB folder (default: %(default)s)")
    validate.set_defaults(run=_validate)
    build = sub.add_parser("build", help="build the site into site/ (strict; all-or-nothing)")
    build.add_argument("--site-dir", default="site", help="output folder (default: %(default)s)")
    build.set_defaults(run=_build)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m handbook", description="The SGLang handbook's tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="<subcommand>")
    for name in SUBCOMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
