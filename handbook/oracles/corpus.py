"""The checker measured on real commands: SGLang's own docs and cookbook, judged by the engine's parsers.

The corpus (``tests/fixtures/doc-corpus/commands.json``) holds every shell block of SGLang's documentation
and cookbook repositories that runs an SGLang program, each with its repository, file, commit and line.

``judge`` runs INSIDE a virtualenv with the real wheels installed (``nox -s engine-corpus`` builds it like
``engine-snapshot``): each command's SGLang invocations go through the installed release's own argument
parsing (``ServerArgs.add_cli_args``, ``RouterArgs``, the benchmark's ``cli_main`` parser; ``sglang serve``'s
own reading of its argv first), and the verdict is written to ``verdicts-<version>.json``:

- ``accepted``: every invocation parses;
- ``rejected``: one does not, with argparse's message (or the module is missing);
- ``unknown``: it does not parse, but a placeholder (``$TP``, ``<model>``) stands where it fails;
- ``unjudged``: a module the release ships but nothing here parses (a benchmark of another kind), or a
  model ``sglang serve`` sends to the diffusion server.

``report`` (no engine needed) sets the checker's findings beside the verdicts: false errors (an accepted
command the checker finds a parse-level error in), missed errors (a rejected command it finds none in), and
the share of accepted commands that get a warning. ``tests/test_doc_corpus.py`` holds those figures.

    python -m handbook.oracles.corpus judge tests/fixtures/doc-corpus     # in the engine's virtualenv
    python -m handbook.oracles.corpus report tests/fixtures/doc-corpus [--engine 0.5.23]
    python -m handbook.oracles.corpus expect tests/fixtures/doc-corpus    # after a deliberate change
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import importlib.util
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handbook.core.files import write_text

COMMANDS = "commands.json"
# The findings that say the engine's argument parsing rejects the command (a rule's error says what a later
# stage does, which the parsers alone cannot confirm or refute: the report lists those apart).
PARSE_LEVEL = ("shell.", "flag.", "value.", "args.", "module.", "serve.")


def load_corpus(folder: Path) -> list[dict[str, Any]]:
    return json.loads((folder / COMMANDS).read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------ judge (engine)
def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """None when argparse accepts ``argv``, else its message."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code in (0, None):
            return None
        lines = [line for line in err.getvalue().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit {exc.code}"
    return None


def _server_parser() -> argparse.ArgumentParser:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    return parser


def _router_parser() -> argparse.ArgumentParser:
    from sglang_router.router_args import RouterArgs

    parser = argparse.ArgumentParser(prog="launch_router")
    RouterArgs.add_cli_args(parser, use_router_prefix=False)
    return parser


def _bench_parser() -> argparse.ArgumentParser:
    from handbook.engine.dump import build_bench_serving  # the snapshot's own capture of that parser

    return build_bench_serving()


@dataclass
class Verdict:
    verdict: str
    reason: str = ""


def _serve_argv(argv: list[str], diffusion_paths: tuple[str, ...]) -> tuple[list[str], str | None]:
    """``sglang serve``'s reading of its argv (sglang/cli/serve.py), and why a model goes to the diffusion
    server (None: the language-model server). The engine's registry lookup needs the diffusion
    dependencies, which this environment lacks: the registry's model ids as the snapshot records them stand
    in for it."""
    from handbook.checker.entrypoints import is_diffusion_model

    try:
        serve = importlib.import_module("sglang.cli.serve")
    except ImportError:
        return argv, None
    model_type, argv = serve._extract_model_type_override(list(argv))
    normalize = getattr(serve, "_normalize_positional_model_path", None)
    if normalize is not None:
        argv, _ = normalize(argv)
    if model_type == "diffusion":
        return argv, "--model-type diffusion"
    path = serve.try_get_model_path(argv) if hasattr(serve, "try_get_model_path") else None
    if model_type == "auto" and path and is_diffusion_model(path, diffusion_paths):
        return argv, f"{path} is a diffusion model"
    return argv, None


def judge_text(
    text: str, parsers: dict[str, argparse.ArgumentParser], script_of: Any, diffusion_paths: tuple[str, ...]
) -> Verdict:
    script = script_of(text)
    if script is None:
        return Verdict("rejected", "shell syntax")
    if script.orphans:  # the shell runs a line of flags as a command of its own: "command not found"
        return Verdict("rejected", f"the shell runs {script.orphans[0].words[0].text} as a command")
    judged = []
    for invocation in script.invocations:
        if invocation.kind == "module":
            if importlib.util.find_spec(invocation.module) is None:
                return Verdict("rejected", f"No module named {invocation.module}")
            judged.append(Verdict("unjudged", f"python -m {invocation.module}: no parser here"))
            continue
        if invocation.kind != "program" or invocation.program is None:
            continue
        argv = [w.text for w in invocation.args]
        if "--config" in argv or any(word.startswith("--config=") for word in argv):
            judged.append(Verdict("unjudged", "--config: the file's options are merged before parsing"))
            continue
        if invocation.program == "launch_server" and invocation.module is None:
            argv, diffusion = _serve_argv(argv, diffusion_paths)
            if diffusion is not None:
                judged.append(Verdict("unjudged", f"sglang serve: {diffusion}"))
                continue
        problem = _parse(parsers[invocation.program], argv)
        if problem is None:
            judged.append(Verdict("accepted"))
        elif any(w.placeholder for w in invocation.args):
            judged.append(Verdict("unknown", problem))
        else:
            return Verdict("rejected", problem)
    for kind in ("unknown", "unjudged"):
        found = [v for v in judged if v.verdict == kind]
        if found:
            return found[0]
    return Verdict("accepted") if judged else Verdict("unjudged", "no SGLang program")


def judge(folder: Path) -> Path:
    from handbook.checker.check import entry_points
    from handbook.checker.shell import ShellSyntaxError, parse_script
    from handbook.engine.snapshot import load_snapshot

    snapshot = load_snapshot()
    points = entry_points(snapshot)
    serve = snapshot.entry_points.serve if snapshot.entry_points is not None else None
    diffusion_paths = serve.diffusion_model_paths if serve is not None else ()

    def script_of(text: str) -> Any:
        try:
            return parse_script(text, *points)
        except ShellSyntaxError:
            return None

    parsers = {"launch_server": _server_parser(), "launch_router": _router_parser()}
    with contextlib.redirect_stdout(sys.stderr):
        parsers["bench_serving"] = _bench_parser()
    version = importlib.metadata.version("sglang")
    verdicts = {}
    for item in load_corpus(folder):
        found = judge_text(item["text"], parsers, script_of, diffusion_paths)
        verdicts[item["id"]] = {"verdict": found.verdict, "reason": found.reason}
    target = folder / f"verdicts-{version}.json"
    record = {
        "sglang": version,
        "sglang_router": importlib.metadata.version("sglang-router"),
        "verdicts": verdicts,
    }
    write_text(target, json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n", root=folder)
    return target


# ------------------------------------------------------------------------------------------ report
@dataclass
class Measure:
    """The checker's findings on the corpus beside one release's verdicts."""

    version: str
    counts: dict[str, int]
    false_errors: list[tuple[str, list[str]]]  # (id, the parse-level error codes) on accepted commands
    rule_errors: list[tuple[str, list[str]]]  # (id, rule/deployment error codes) on accepted commands
    missed: list[tuple[str, str]]  # (id, the parser's message) on rejected commands with no error
    warned: list[tuple[str, list[str]]]  # (id, warning codes) on accepted commands

    @property
    def warning_share(self) -> float:
        return len(self.warned) / self.counts["accepted"] if self.counts["accepted"] else 0.0


def measure(folder: Path, version: str | None = None) -> Measure:
    from handbook.checker import check_command
    from handbook.engine.snapshot import load_snapshot
    from handbook.kb.loader import load_kb

    kb = load_kb()
    version = version or kb.handbook.engine_version
    snapshot = load_snapshot(version)
    verdicts = json.loads((folder / f"verdicts-{version}.json").read_text(encoding="utf-8"))["verdicts"]
    counts = {"commands": 0, "accepted": 0, "rejected": 0, "unknown": 0, "unjudged": 0}
    false_errors, rule_errors, missed, warned = [], [], [], []
    for item in load_corpus(folder):
        verdict = verdicts[item["id"]]
        counts["commands"] += 1
        counts[verdict["verdict"]] += 1
        findings = check_command(item["text"], snapshot, kb)
        errors = sorted({f.code for f in findings if f.severity == "error"})
        warnings = sorted({f.code for f in findings if f.severity == "warning"})
        if verdict["verdict"] == "accepted":
            parse = [c for c in errors if c.startswith(PARSE_LEVEL)]
            if parse:
                false_errors.append((item["id"], parse))
            later = [c for c in errors if not c.startswith(PARSE_LEVEL)]
            if later:
                rule_errors.append((item["id"], later))
            if warnings:
                warned.append((item["id"], warnings))
        elif verdict["verdict"] == "rejected" and not errors:
            missed.append((item["id"], verdict["reason"]))
    return Measure(version, counts, false_errors, rule_errors, missed, warned)


EXPECTED = "findings.json"


def findings_by_command(folder: Path) -> dict[str, dict[str, list[str]]]:
    """Each command's finding codes by severity, as the checker gives them against the pinned release."""
    from handbook.checker import check_command
    from handbook.engine.snapshot import load_snapshot
    from handbook.kb.loader import load_kb

    kb, snapshot = load_kb(), load_snapshot()
    out = {}
    for item in load_corpus(folder):
        findings = check_command(item["text"], snapshot, kb)
        out[item["id"]] = {
            severity: sorted({f.code for f in findings if f.severity == severity})
            for severity in ("error", "warning", "note")
        }
    return out


def expect(folder: Path) -> Path:
    """Write what the checker finds now (``findings.json``): the regression test compares with it."""
    target = folder / EXPECTED
    text = json.dumps(findings_by_command(folder), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    write_text(target, text, root=folder)
    return target


def report(folder: Path, version: str | None = None) -> str:
    m = measure(folder, version)
    c = m.counts
    lines = [
        f"sglang {m.version}: {c['commands']} commands ({c['accepted']} accepted by its parsers, "
        f"{c['rejected']} rejected, {c['unknown']} hidden by placeholders, {c['unjudged']} not judged)",
        f"false errors (accepted, a parse-level error found): {len(m.false_errors)}",
        *(f"  {i}: {', '.join(codes)}" for i, codes in m.false_errors),
        f"errors a later stage would give (rules, deployments), on accepted commands: {len(m.rule_errors)}",
        *(f"  {i}: {', '.join(codes)}" for i, codes in m.rule_errors),
        f"missed errors (rejected, no error found): {len(m.missed)}",
        *(f"  {i}: {reason}" for i, reason in m.missed),
        f"accepted commands with a warning: {len(m.warned)} of {c['accepted']} ({m.warning_share:.1%})",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(
        prog="python -m handbook.oracles.corpus", description=__doc__.splitlines()[0]
    )
    commands = cli.add_subparsers(dest="command", required=True)
    one = commands.add_parser("judge", help="the installed release's verdict on every command")
    one.add_argument("folder", type=Path)
    two = commands.add_parser("report", help="the checker's findings beside a release's verdicts")
    two.add_argument("folder", type=Path)
    two.add_argument("--engine", default=None, help="the stored release (default: the pinned one)")
    three = commands.add_parser("expect", help="record what the checker finds now, for the regression test")
    three.add_argument("folder", type=Path)
    args = cli.parse_args(argv)
    if args.command == "judge":
        print(f"wrote {judge(args.folder)}")
    elif args.command == "expect":
        print(f"wrote {expect(args.folder)}")
    else:
        print(report(args.folder, args.engine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
