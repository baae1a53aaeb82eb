"""Check a command (after ``--``, or on stdin) against an engine snapshot and kb/rules.yaml.

Prints every finding in the chosen language, then a summary. ``--engine VERSION`` checks against that
stored release instead of the pinned one (only a version the site has a snapshot of: anything else is
refused with the stored ones). Exit status: 0 clean (notes only), 1 with warnings, 2 with errors (and 2
for a version that names no snapshot).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path

from handbook.checker.check import check_command, entry_points
from handbook.checker.corrections import Corrected, corrected_commands
from handbook.checker.findings import SEVERITIES, Finding, exit_status
from handbook.checker.shell import ShellSyntaxError, parse_script
from handbook.cli.common import add_kb, add_lang, help_text, kb_ids, listed, pinned_version
from handbook.core.arguments import stdin_text
from handbook.core.messages import msg
from handbook.core.paths import KB_ROOT
from handbook.engine.snapshot import SnapshotError, load_history, load_snapshot, snapshot_versions
from handbook.kb.loader import KBInvalid, load_kb
from handbook.validation.rules import rule_problems

# Words that stay as typed when the command comes as arguments: placeholders keep their meaning.
_PLAIN = re.compile(r"[\w@%+=:,./<>${}\[\]*-]+")
SEVERITY_WORDS = {
    "error": "check-cli-severity-error",
    "warning": "check-cli-severity-warning",
    "note": "check-cli-severity-note",
}


def joined(argv: list[str]) -> str:
    """Arguments back into one command line, quoting only what needs it."""
    return " ".join(word if _PLAIN.fullmatch(word) else shlex.quote(word) for word in argv)


def site_url() -> str | None:
    """Where the published handbook lives, when HANDBOOK_SITE_URL says (the Pages build sets it); otherwise
    links are printed as paths within the site."""
    url = os.environ.get("HANDBOOK_SITE_URL", "")
    return (url if url.endswith("/") else url + "/") if url else None


def link_of(finding: Finding, lang: str, base: str | None) -> str | None:
    if not finding.link:
        return None
    page, _, anchor = finding.link.partition("#")
    path = ("en/" if lang == "en" else "") + page.removesuffix(".md") + "/"
    return f"{base or ''}{path}#{anchor}"


def release_note(finding: Finding, lang: str, version: str) -> str | None:
    """For a flag or variable this release lacks: the stored releases that have it (``0.5.22–0.5.23``)."""
    if finding.code not in ("flag.unknown", "env.unknown") or not finding.subject:
        return None
    try:
        history = load_history()
    except SnapshotError:
        return None
    programs = ("launch_server", "launch_router", "bench_serving")
    for program in ("env",) if finding.code == "env.unknown" else programs:
        life = history.lifetimes(program).get(finding.subject)
        if life is not None and version not in life.versions:
            span = msg("versions-span", lang, first=life.versions[0], last=life.versions[-1])
            return msg("versions-cli-flag-elsewhere", lang, flag=finding.subject, releases=span)
    return None


def render(
    findings: list[Finding],
    lang: str,
    version: str,
    base: str | None,
    corrected: list[Corrected] = (),  # type: ignore[assignment]
) -> list[str]:
    lines = []
    for finding in findings:
        where = f"{finding.line}: " if finding.line else ""
        severity = msg(SEVERITY_WORDS[finding.severity], lang)
        lines.append(f"{where}{severity}[{finding.code}]: {finding.message[lang]}")
        note = release_note(finding, lang, version)
        if note:
            lines.append(f"    ↳ {note}")
        link = link_of(finding, lang, base)
        if link:
            lines.append(f"    → {link}")
    for command in corrected:
        lines.append(msg("check-corrected", lang, line=command.line))
        lines += ["    " + line for line in command.text.splitlines()]
    counts = {s: sum(f.severity == s for f in findings) for s in SEVERITIES}
    if counts["error"] or counts["warning"]:
        lines.append(
            msg(
                "check-cli-problems",
                lang,
                errors=counts["error"],
                warnings=counts["warning"],
                notes=counts["note"],
                version=version,
            )
        )
    else:
        lines.append(msg("check-cli-clean", lang, version=version))
    return lines


def run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    text = joined(command) if command else stdin_text()
    try:  # fail closed: without its KB the checker would skip every rule and call the command clean
        kb = load_kb(Path(args.kb) if args.kb else KB_ROOT)
    except KBInvalid as exc:
        print("✖ " + msg("check-cli-kb-invalid", args.lang, count=len(exc.problems)), file=sys.stderr)
        return 2
    broken = rule_problems(kb)  # a rule that cannot be evaluated would be skipped just the same
    if broken:
        print("✖ " + msg("check-cli-kb-invalid", args.lang, count=len(broken)), file=sys.stderr)
        return 2
    version = args.engine or kb.handbook.engine_version
    if args.engine is not None and args.engine not in snapshot_versions():
        stored = ", ".join(snapshot_versions())
        print(
            "✖ " + msg("versions-cli-engine-unknown", args.lang, got=args.engine, stored=stored),
            file=sys.stderr,
        )
        return 2
    try:
        snapshot = load_snapshot(version)
    except SnapshotError as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    try:
        script = parse_script(text, *entry_points(snapshot))
        understood = bool(script.invocations or script.assignments or script.orphans)
    except ShellSyntaxError:
        understood = True  # check_command reports it
    if args.gpu is not None and args.gpu not in kb.hardware:
        known = ", ".join(sorted(kb.hardware))
        said = msg("check-cli-gpu-unknown", args.lang, option="--gpu", got=args.gpu, known=known)
        print("✖ " + said, file=sys.stderr)
        return 2
    findings = check_command(text, snapshot, kb, gpu=args.gpu)
    if not understood and not findings:
        print(msg("check-cli-nothing", args.lang))
        return 0
    corrected = corrected_commands(text, findings, snapshot)
    for line in render(findings, args.lang, snapshot.sglang_version, site_url(), corrected):
        print(line)
    return exit_status(findings)


DESCRIPTION_KEY = "cli-check-description"


def configure(check: argparse.ArgumentParser, lang: str = "en") -> None:
    add_lang(check, lang)
    add_kb(check, lang)
    check.add_argument(
        "--engine",
        default=None,
        metavar="VERSION",
        help=help_text(
            "cli-check-engine", lang, versions=listed(snapshot_versions()), pinned=pinned_version()
        ),
    )
    check.add_argument(
        "--gpu",
        default=None,
        metavar="ID",
        help=help_text("cli-check-gpu", lang, choices=listed(kb_ids("hardware"))),
    )
    check.add_argument("command", nargs=argparse.REMAINDER, help=help_text("cli-check-command", lang))
