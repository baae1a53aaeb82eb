"""``python -m handbook <subcommand>``: the project's command line, one module per subcommand.

Only the chosen subcommand's module is imported, so ``--help`` and ``validate`` start without the
renderers, the diagrams or graphviz. A subcommand module defines ``configure(parser)`` (its arguments)
and ``run(args) -> int`` (its exit status); it may set ``PARSER_OPTIONS`` for argparse.

A bad argument is one line and exit status 2 (core/arguments.py); output to a closed pipe (``| head``) ends
quietly; everything printed shows invisible characters as ⟨U+…⟩, so nothing a command echoes can drive the
terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Iterable
from typing import TextIO

from handbook.core.arguments import InputError, OneLineParser
from handbook.core.text import visible

# name → (module, one-line help), in the order ``--help`` lists them.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "validate": (
        "handbook.cli.validate",
        "load the whole KB and run every check; report all problems at once",
    ),
    "build": ("handbook.cli.build", "build the site into site/ (strict; all-or-nothing)"),
    "generate": ("handbook.cli.generate", "write every committed generated file (--check: list stale ones)"),
    "new": ("handbook.cli.new", "write a commented skeleton for a new recipe, model, accelerator or pitfall"),
    "check": ("handbook.cli.check", "check an SGLang command against the pinned engine and the KB's rules"),
    "plan": ("handbook.cli.plan", "one GPU's memory budget, KV pool and launch command for a model"),
    "configure": (
        "handbook.cli.configure",
        "the configurator's command(s) for a model, accelerator, precision and goal",
    ),
    "production": (
        "handbook.cli.production",
        "write one recipe's Kubernetes manifests, alerts and Grafana dashboards (--check: run the tools)",
    ),
    "engine-diff": ("handbook.cli.engine_diff", "compare two engine snapshots: options, defaults, choices"),
    "links": ("handbook.cli.links", "check every internal link and anchor of the built site"),
    "translations": ("handbook.cli.translations", "check both languages' pages and list stale translations"),
    "bench": ("handbook.cli.bench", "measure the site's performance budget (never fails on a missed target)"),
}


def report(problems: Iterable[object], what: str = "in the knowledge base") -> int:
    """Print each problem, then their count; the exit status of a failed check."""
    problems = list(problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"✖ {len(problems)} problem(s) {what}.", file=sys.stderr)
    return 1


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    """Every subcommand's name and help; the arguments of ``chosen`` only (its module is imported)."""
    parser = OneLineParser(prog="python -m handbook", description="The SGLang handbook's tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="<subcommand>")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if name != chosen:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        options = getattr(module, "PARSER_OPTIONS", {})
        command = sub.add_parser(name, help=help_text, description=module.__doc__, **options)
        if "formatter_class" not in options:
            command.formatter_class = argparse.RawDescriptionHelpFormatter
        module.configure(command)
        command.set_defaults(run=module.run)
    return parser


class _Visible:
    """A text stream that writes every invisible character as ⟨U+…⟩ and a lone surrogate as an escape."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(visible(text).encode("utf-8", "backslashreplace").decode("utf-8"))

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((word for word in argv if not word.startswith("-")), None)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Visible(stdout), _Visible(stderr)  # type: ignore[assignment]
    try:
        args = build_parser(chosen if chosen in SUBCOMMANDS else None).parse_args(argv)
        return args.run(args)
    except InputError as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as a shell's own tools do
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return 141  # 128 + SIGPIPE
    except KeyboardInterrupt:
        print("✖ interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout, sys.stderr = stdout, stderr
