"""``python -m handbook engine-diff OLD NEW``: what changed between two engine snapshots (engine/diff.py)."""

from __future__ import annotations

import argparse


def _run(args: argparse.Namespace) -> int:
    from handbook.engine.diff import main

    return main(args.argv)


def register(sub: argparse._SubParsersAction) -> None:
    # diff.main owns the arguments (and --help): hand it everything after the subcommand untouched.
    # prefix_chars="+" keeps this parser from reading --json or --help as its own options.
    parser = sub.add_parser(
        "engine-diff",
        help="compare two engine snapshots (kb/engine/sglang-X.json): options, defaults, choices, env vars",
        add_help=False,
        prefix_chars="+",
    )
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="OLD NEW [--json] [--output FILE]")
    parser.set_defaults(run=_run)
