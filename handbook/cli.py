"""``python -m handbook <subcommand>``: the project's command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from handbook.checks import run_checks
from handbook.kb.loader import KB_ROOT, KBInvalid, load_kb


def _report(problems: list) -> int:
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"✖ {len(problems)} problem(s) in the knowledge base.", file=sys.stderr)
    return 1


def _validate(args: argparse.Namespace) -> int:
    try:
        kb = load_kb(Path(args.kb))
    except KBInvalid as exc:
        return _report(exc.problems)
    problems = run_checks(kb)
    if problems:
        return _report(problems)
    print(
        f"✔ knowledge base valid: {len(kb.models)} models, {len(kb.hardware)} accelerators, "
        f"{len(kb.parameters)} parameters, {len(kb.recipes)} recipes, {len(kb.pitfalls)} pitfalls, "
        f"{len(kb.env_vars)} environment variables, {len(kb.sources)} sources"
    )
    return 0


def _build(args: argparse.Namespace) -> int:
    from handbook.build import build_site

    return build_site(Path(args.site_dir))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m handbook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="<subcommand>")
    validate = sub.add_parser("validate", help="load the whole KB and report every problem at once")
    validate.add_argument("--kb", default=str(KB_ROOT), help="the KB folder (default: %(default)s)")
    validate.set_defaults(run=_validate)
    build = sub.add_parser("build", help="build the site into site/ (strict; all-or-nothing)")
    build.add_argument("--site-dir", default="site", help="output folder (default: %(default)s)")
    build.set_defaults(run=_build)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
