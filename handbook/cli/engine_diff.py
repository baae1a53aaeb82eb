"""``python -m handbook engine-diff OLD NEW``: what changed between two engine snapshots (engine/diff.py)."""

from __future__ import annotations

import argparse

from handbook.engine.diff import main

# diff.main owns the arguments (and --help): everything after the subcommand goes to it untouched.
# prefix_chars="+" keeps this parser from reading --json or --help as its own options.
PARSER_OPTIONS = {"add_help": False, "prefix_chars": "+"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="OLD NEW [--json] [--output FILE]")


def run(args: argparse.Namespace) -> int:
    return main(args.argv)
