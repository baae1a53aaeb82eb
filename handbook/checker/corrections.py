"""The corrected command: every mechanical fix of a text's findings applied, one command at a time.

A finding whose fix needs no choice carries it as ``edits`` on the command that starts on ``edit_line``:
``("rename", spelling, flag)`` writes a flag in full (an abbreviation, the old spelling of attention DP),
``("drop", flag)`` removes one, ``("set", flag, value)`` gives it that value (added at the end when the
command lacks it: a port or host the router targets, a parser the decode server needs), ``("module",
name)`` runs the module a deprecated alias stands for. The command is
written again from its words, one flag a line, as the site writes commands: what wraps it (``docker run``,
``bash -c``) is not repeated, and ``sglang serve`` keeps its command words.
"""

from __future__ import annotations

from dataclasses import dataclass

from handbook.calc.recipe_text import INDENT
from handbook.checker.argv import ParsedArgs, parse_args
from handbook.checker.check import entry_points
from handbook.checker.entrypoints import serve_argv
from handbook.checker.findings import Finding
from handbook.checker.shell import Invocation, ShellSyntaxError, parse_script
from handbook.engine.snapshot import EngineSnapshot


@dataclass(frozen=True)
class Corrected:
    line: int  # where the command starts in the checked text
    text: str


def _head(invocation: Invocation, snapshot: EngineSnapshot, module: str | None = None) -> list[str]:
    """The variables set before the command, and the words that run it (``python -m …``, ``sglang serve``);
    ``module`` replaces the module a deprecated alias names."""
    prefixes = [
        f"{a.name}={a.value.raw}" for a in invocation.env if a.how == "prefix" and a.value is not None
    ]
    if invocation.module is not None:
        return [*prefixes, f"python -m {module or invocation.module}"]
    launcher = invocation.launcher.text if invocation.launcher is not None else ""
    commands, _ = entry_points(snapshot)
    for words, program in sorted(commands.items(), key=lambda item: -len(item[0])):
        if program == invocation.program and words[0] == launcher:
            return [*prefixes, " ".join(words)]
    return [*prefixes, launcher]


def corrected_command(invocation: Invocation, snapshot: EngineSnapshot, edits: list[tuple[str, ...]]) -> str:
    """The command with the edits applied, one flag a line."""
    assert invocation.program is not None
    words = invocation.args
    if invocation.program == "launch_server" and invocation.module is None:
        words = serve_argv(invocation, snapshot).words  # sglang serve: a positional path as --model-path
    args, _ = parse_args(snapshot, invocation.program, words)
    lines: list[list[str]] = []
    for given in args.order:
        lines.append([given.spelling, *(w.raw for w in given.values)])
    for edit in edits:
        if edit[0] == "rename":
            lines = [[edit[2], *rest] if first == edit[1] else [first, *rest] for first, *rest in lines]
        elif edit[0] == "drop":
            lines = [line for line in lines if _name(args, line[0]) != edit[1]]
        elif edit[0] == "set":
            found = [i for i, line in enumerate(lines) if _name(args, line[0]) == edit[1]]
            if found:
                lines[found[-1]] = [lines[found[-1]][0], edit[2]]
            else:
                lines.append([edit[1], edit[2]])
    lines += [[w.raw] for w in args.hidden]
    head = " ".join(_head(invocation, snapshot, next((e[1] for e in edits if e[0] == "module"), None)))
    return " \\\n".join([head, *(INDENT + " ".join(line) for line in lines)])


def _name(args: ParsedArgs, spelling: str) -> str:
    """The option a spelling (or a unique prefix) names, by its canonical name."""
    option = args.parser.get(spelling)
    if option is None:
        matches = args.parser.abbreviation_matches(spelling)
        option = matches[0] if len(matches) == 1 else None
    return option.name if option is not None else spelling


def corrected_commands(text: str, findings: list[Finding], snapshot: EngineSnapshot) -> list[Corrected]:
    """Each command of ``text`` that a finding's edits change, corrected, in the text's order."""
    edits: dict[int, list[tuple[str, ...]]] = {}
    for finding in findings:
        if finding.edits and finding.edit_line is not None:
            edits.setdefault(finding.edit_line, []).extend(finding.edits)
    if not edits:
        return []
    try:
        script = parse_script(text, *entry_points(snapshot))
    except ShellSyntaxError:
        return []
    out = []
    for invocation in script.invocations:
        if invocation.line in edits and invocation.kind == "program" and invocation.program is not None:
            text = corrected_command(invocation, snapshot, edits[invocation.line])
            out.append(Corrected(invocation.line, text))
    return out
