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
import inspect
import os
import sys
from collections.abc import Iterable
from typing import TextIO

from handbook.cli.common import chosen_lang, help_text
from handbook.core.arguments import InputError, OneLineParser
from handbook.core.text import visible

# name → (module, the catalogue's key of its one-line help), in the order ``--help`` lists them; the help is
# in the language of --lang, or of the locale (handbook/core/messages/cli.py).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("handbook.cli.validate", "cli-sub-validate"),
    "build": ("handbook.cli.build", "cli-sub-build"),
    "generate": ("handbook.cli.generate", "cli-sub-generate"),
    "new": ("handbook.cli.new", "cli-sub-new"),
    "check": ("handbook.cli.check", "cli-sub-check"),
    "plan": ("handbook.cli.plan", "cli-sub-plan"),
    "configure": ("handbook.cli.configure", "cli-sub-configure"),
    "production": ("handbook.cli.production", "cli-sub-production"),
    "engine-diff": ("handbook.cli.engine_diff", "cli-sub-engine-diff"),
    "links": ("handbook.cli.links", "cli-sub-links"),
    "translations": ("handbook.cli.translations", "cli-sub-translations"),
    "bench": ("handbook.cli.bench", "cli-sub-bench"),
}


def report(problems: Iterable[object], what: str = "in the knowledge base") -> int:
    """Print each problem, then their count; the exit status of a failed check."""
    problems = list(problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"✖ {len(problems)} problem(s) {what}.", file=sys.stderr)
    return 1


def _plain(doc: str | None) -> str | None:
    """A module's docstring as help: its reStructuredText literals (``x``) written as plain text."""
    return doc.replace("``", "") if doc else doc


def build_parser(chosen: str | None, lang: str = "en") -> argparse.ArgumentParser:
    """Every subcommand's name and help; the arguments of ``chosen`` only (its module is imported). A module
    whose ``configure`` takes ``lang`` words its help in that language, and ``DESCRIPTION_KEY`` names the
    catalogue entry of its description."""

    parser = OneLineParser(prog="python -m handbook", description=help_text("cli-description", lang))
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="<subcommand>", title=help_text("cli-subcommands", lang)
    )
    for name, (module_name, help_key) in SUBCOMMANDS.items():
        help_line = help_text(help_key, lang)
        if name != chosen:
            sub.add_parser(name, help=help_line)
            continue
        module = importlib.import_module(module_name)
        options = getattr(module, "PARSER_OPTIONS", {})
        described = getattr(module, "DESCRIPTION_KEY", None)
        description = help_text(described, lang) if described else _plain(module.__doc__)
        command = sub.add_parser(name, help=help_line, description=description, **options)
        if "formatter_class" not in options and not described:  # a docstring keeps its paragraphs
            command.formatter_class = argparse.RawDescriptionHelpFormatter
        if "lang" in inspect.signature(module.configure).parameters:
            module.configure(command, lang=lang)
        else:
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
        parser = build_parser(chosen if chosen in SUBCOMMANDS else None, chosen_lang(argv))
        args = parser.parse_args(argv)
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
