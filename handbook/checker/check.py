"""Check shell text (or a KB recipe) against the engine snapshot and the KB's rules."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from handbook.calc.recipe_text import command_text
from handbook.checker.argv import UNKNOWN, ParsedArgs, parse_args
from handbook.checker.deployment import deployment_findings
from handbook.checker.entrypoints import module_findings, serve_argv
from handbook.checker.envcheck import check_assignments
from handbook.checker.findings import Finding, ordered
from handbook.checker.predicates import PREDICATES, Facts, Predicate, Unwritten
from handbook.checker.shell import (
    MAX_NESTING,
    EnvAssignment,
    Invocation,
    ShellSyntaxError,
    Word,
    parse_script,
)
from handbook.checker.sizing import checkpoint_of, sizing_findings
from handbook.core.messages import message
from handbook.core.suggest import Suggestions
from handbook.core.templates import fill, template_problems
from handbook.core.text import INVISIBLE, LANGS, Text, code_point, visible
from handbook.engine.history import version_key
from handbook.engine.snapshot import EngineSnapshot, SnapshotError, load_history, load_snapshot
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe, Rule


def entry_points(snapshot: EngineSnapshot) -> tuple[dict[tuple[str, ...], str], dict[str, str]]:
    """Command words (``sglang serve``) and ``python -m`` modules that run each parser."""
    commands: dict[tuple[str, ...], str] = {}
    modules: dict[str, str] = {}
    for name, parser in snapshot.parsers.items():
        for command in parser.commands:
            words = tuple(command.split())
            if words[:2] != ("python", "-m"):
                commands[words] = name
        for module, info in parser.modules.items():
            if info.exists:  # a module of another release is not this one's (entrypoints.module_findings)
                modules[module] = name
    return commands, modules


# What the engine does about a broken rule (``engine.does`` in kb/rules.yaml), as a rule finding ends
ENGINE_DOES = {
    "raises": "check-engine-raises",
    "adjusts": "check-engine-adjusts",
    "logs": "check-engine-logs",
    "nothing": "check-engine-nothing",
}


def engine_clause(rule: Rule, version: str, pinned: str | None = None) -> Text:
    """What ``version`` does about the broken rule; the place in the wheel is the pinned release's, and
    says so when another release is checked (its code may sit elsewhere)."""
    engine = rule.engine
    where: Text | str = ""
    if engine.at is not None:
        where = f"{engine.at.file.rsplit('/', 1)[-1]} {engine.at.function}"
        if pinned is not None and version != pinned:
            where = message("check-engine-where-pinned", where=where, pinned=pinned)
    whose = message("check-advice-source") if rule.source == "handbook" else message("check-advice-site")
    return message(
        ENGINE_DOES[engine.does],
        version=version,
        where=where,
        error=engine.raises,
        adjustment=engine.adjustment if engine.adjustment is not None else "",
        whose=whose,
    )


def rule_params(rule: Rule) -> Predicate | None:
    """The rule's predicate with its parameters, or None when the rule is broken (the rule-predicates check
    of ``python -m handbook validate`` reports it with its file and line). Validated once per rule object:
    a block of thousands of commands asks for every rule's parameters thousands of times."""
    held = _PARAMS.get(id(rule))
    if held is None or held[0] is not rule:
        if len(_PARAMS) >= _PARAMS_HELD:  # KBs loaded again and again (mkdocs serve): forget the old ones
            _PARAMS.clear()
        held = (rule, _validated_params(rule))
        _PARAMS[id(rule)] = held
    return held[1]


_PARAMS: dict[int, tuple[Rule, Predicate | None]] = {}
_PARAMS_HELD = 4096


def _validated_params(rule: Rule) -> Predicate | None:
    predicate = PREDICATES.get(rule.predicate)
    if predicate is None:
        return None
    if any(template_problems(rule.message[lang], predicate.fields) for lang in LANGS):
        return None  # a message that is not plain {name} fields is never filled in
    try:
        return predicate.model_validate(rule.params)
    except ValidationError:
        return None


def rule_finding(
    rule: Rule, values: dict[str, str], version: str, line: int | None, pinned: str | None = None
) -> Finding:
    """The finding of a broken rule: its message with the predicate's values, then what the engine does."""
    said = Text.of(fill(rule.message.zh, values).rstrip("。."), fill(rule.message.en, values).rstrip("."))
    return Finding(
        rule.severity,
        f"rule.{rule.id}",
        message("check-rule", rule=said, engine=engine_clause(rule, version, pinned)),
        line,
        link=rule.explained_at,
        rule=rule.id,
        said=said,
        security=rule.security,
    )


def model_of(args: ParsedArgs, kb: KB) -> str | None:
    """The KB model a --model-path names (a checkpoint the KB lists, as a repo id or a folder's name)."""
    if kb is None:
        return None
    found = checkpoint_of(args, kb)
    return found[0] if found is not None else None


def _placeholder_note(args: ParsedArgs) -> Finding | None:
    """One note per command listing the values a placeholder hides, at the first of them."""
    hidden = [g for g in args.order if any(w.placeholder for w in g.values) or g.word.placeholder]
    shown = [f"{given.spelling} {' '.join(w.raw for w in given.values)}" for given in hidden]
    shown += [w.raw for w in args.hidden]
    if not shown:
        return None
    line = min([g.word.line for g in hidden] + [w.line for w in args.hidden])
    return Finding(
        "note",
        "value.placeholder",
        message("check-value-placeholder", values=", ".join(shown)),
        line,
    )


def _deprecated(args: ParsedArgs, version: str) -> list[Finding]:
    out = []
    for given in args.order:
        option = given.option
        if not option.deprecated:
            continue
        instead = message("check-use-instead", replacement=option.replacement) if option.replacement else ""
        out.append(
            Finding(
                "warning",
                "flag.deprecated",
                message("check-flag-deprecated", flag=option.name, version=version, instead=instead),
                given.word.line,
                option.name,
            )
        )
    return out


def one_cause(args: ParsedArgs, findings: list[Finding], version: str) -> list[Finding]:
    """Findings with one root cause become one finding with one fix. ``--dp N --enable-dp-attention`` (the
    old spelling of attention DP, which parallel_hook.handle_deprecated_dp_attention turns into
    ``--attn-dp-size N``) would otherwise get "write --dp-size" and "use --attn-dp-size <dp-size>", which
    applied together give ``--dp-size N --attn-dp-size N``: a combination the engine refuses."""
    enable = args.parser.get("--enable-dp-attention")
    dp = args.given.get("dp_size")
    if enable is None or not enable.deprecated or dp is None or not dp.values:
        return findings
    if args.value(enable.dest) is not True or args.value("attn_dp_size") not in (1, None):
        return findings
    flag = args.given[enable.dest]
    merged = Finding(  # the engine reads it as attention DP: it works, and the fix is mechanical
        "note",
        "flag.deprecated",
        message(
            "check-dp-attention-old-spelling",
            dp=dp.spelling,
            value=dp.values[0].raw,
            version=version,
            enable=enable.name,
        ),
        flag.word.line,
        enable.name,
        edits=(("drop", enable.name), ("rename", dp.spelling, "--attn-dp-size")),
    )
    rest = [
        f
        for f in findings
        if not (f.code == "flag.abbreviation" and f.subject == dp.spelling)
        and not (f.code == "flag.deprecated" and f.subject == enable.name)
    ]
    return [*rest, merged]


def _module_findings(
    invocation: Invocation, snapshot: EngineSnapshot, modules: dict[str, str], suggest: Suggestions
) -> list[Finding]:
    word = invocation.launcher
    line = word.line if word else invocation.line
    module = invocation.module
    if invocation.kind == "module":
        known = module_findings(invocation, snapshot, line)
        if known is not None:
            return known
        close = suggest.closest(module or "", "module", modules)
        hint = message("check-did-you-mean", name=close) if close else ""
        return [
            Finding(
                "warning",
                "module.unknown",
                message("check-module-unknown", module=module, known=", ".join(sorted(modules)), hint=hint),
                line,
                module,
            )
        ]
    if module is None or invocation.program is None:
        return []
    info = snapshot.parser(invocation.program).modules.get(module)
    if info is not None and info.deprecated_alias_of:
        # a deprecated alias still runs the same program: a note, and the corrected command names the module
        return [
            Finding(
                "note",
                "module.deprecated",
                message(
                    "check-module-deprecated",
                    module=module,
                    version=snapshot.sglang_version,
                    replacement=info.deprecated_alias_of,
                ),
                line,
                module,
                edits=(("module", info.deprecated_alias_of),),
                edit_line=invocation.line,
            )
        ]
    return []


def _environment(assignments: list[EnvAssignment]) -> dict[str, Any]:
    env: dict[str, Any] = {}
    for assignment in assignments:
        value = assignment.value
        env[assignment.name] = None if value is None else (UNKNOWN if value.placeholder else value.text)
    return env


def _rule_line(args: ParsedArgs, flags: list[str], default: int) -> int:
    """Where a rule finding points: the first flag of the rule that the command gives, else the command."""
    lines = []
    for flag in flags:
        option = args.parser.get(flag)
        if option is not None and option.dest in args.given:
            lines.append(args.given[option.dest].word.line)
    return min(lines) if lines else default


def check_invocation(
    invocation: Invocation,
    snapshot: EngineSnapshot,
    kb: KB | None = None,
    model: str | None = None,
    exported: list[EnvAssignment] | None = None,
    gpu: str | None = None,
    suggest: Suggestions | None = None,
) -> list[Finding]:
    """Findings for one SGLang command (or flags-only fragment); ``gpu`` (a KB accelerator id) sizes a
    launch command with the planner (sizing.py). ``suggest``: the check's "did you mean"."""
    suggest = suggest or Suggestions()
    _, modules = entry_points(snapshot)
    findings = _module_findings(invocation, snapshot, modules, suggest)
    if invocation.kind not in ("program", "fragment") or invocation.program is None:
        return findings
    fragment = invocation.kind == "fragment"
    words = invocation.args
    if invocation.program == "launch_server" and invocation.kind == "program" and invocation.module is None:
        serve = serve_argv(invocation, snapshot)  # sglang serve: its own reading of the argv first
        findings += serve.findings
        if serve.diffusion is not None:
            return findings
        words = serve.words
    args, parse_findings = parse_args(snapshot, invocation.program, words, fragment=fragment, suggest=suggest)
    findings += parse_findings
    findings += _deprecated(args, snapshot.sglang_version)
    findings = one_cause(args, findings, snapshot.sglang_version)
    findings = [
        replace(f, edit_line=invocation.line) if f.edits and f.edit_line is None else f for f in findings
    ]
    note = _placeholder_note(args)
    if note is not None:
        findings.append(note)
    if kb is not None:
        env = _environment([*(exported or []), *invocation.env])
        facts = Facts(
            invocation.program,
            args,
            invocation.docker,
            model or model_of(args, kb),
            env,
            written_only=fragment,
        )
        findings += rule_findings(facts, kb, snapshot.sglang_version, invocation.line)
        if gpu is not None and invocation.program == "launch_server" and not fragment:
            findings += sizing_findings(args, kb, gpu, invocation.line)
    return findings


def established(rule: Rule, version: str, kb: KB) -> bool:
    """Whether what the rule says the engine does holds in ``version`` (``rule.releases``; none: the pinned
    release only)."""
    releases = rule.releases
    if releases is None:
        return version == kb.handbook.engine_version
    key = version_key(version)
    return version_key(releases.first) <= key and (releases.last is None or key <= version_key(releases.last))


def releases_text(rule: Rule, kb: KB) -> str:
    """The releases a rule holds in, as a span: ``0.5.22–0.5.23``."""
    if rule.releases is None:
        return kb.handbook.engine_version
    last = rule.releases.last
    if last is None:
        try:
            last = load_history().newest
        except SnapshotError:
            last = kb.handbook.engine_version
    return rule.releases.first if last == rule.releases.first else f"{rule.releases.first}–{last}"


def unestablished_finding(
    rule: Rule, values: dict[str, str], version: str, line: int | None, kb: KB
) -> Finding:
    """A rule the command breaks in a release its engine behaviour was not established for: a note, never
    a verdict the site cannot back."""
    said = Text.of(fill(rule.message.zh, values).rstrip("。."), fill(rule.message.en, values).rstrip("."))
    return Finding(
        "note",
        f"rule.{rule.id}",
        message("check-rule-unestablished", rule=said, releases=releases_text(rule, kb), version=version),
        line,
        link=rule.explained_at,
        rule=rule.id,
        said=said,
        security=rule.security,
    )


def rule_findings(facts: Facts, kb: KB, version: str, line: int) -> list[Finding]:
    """The findings of every KB rule of the facts' program that the parsed command breaks, with what
    ``version`` does about it where the rule holds in that release (a note where it is not established).
    In a fragment (``facts.written_only``) a rule whose predicate reads a flag the fragment does not write is
    not judged."""
    findings = []
    for rule in kb.rules.values():
        if rule.program != facts.program:
            continue
        params = rule_params(rule)
        if params is None:  # a rule that names no predicate or gives it bad parameters: validate says
            continue
        try:
            values = params.check(facts)
        except KeyError:  # a flag this snapshot lacks: reported by `python -m handbook validate`
            continue
        except Unwritten:  # a fragment that does not write every flag the rule reads
            continue
        if values is not None:
            where = _rule_line(facts.args, params.flags(), line)
            if established(rule, version, kb):
                findings.append(rule_finding(rule, values, version, where, kb.handbook.engine_version))
            else:
                findings.append(unestablished_finding(rule, values, version, where, kb))
    return findings


_FLAG_WORD = re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]*")


def _unchecked_flags(text: str) -> list[Finding]:
    """Flags in text that runs no program the checker knows: a warning, never a silent "no problems"."""
    flags = list(dict.fromkeys(m.group(0) for m in _FLAG_WORD.finditer(text)))
    if not flags:
        return []
    line = text.count("\n", 0, text.index(flags[0])) + 1
    shown = ", ".join(flags[:3]) + (", …" if len(flags) > 3 else "")
    return [
        Finding("warning", "shell.no-program", message("check-shell-no-program", flags=shown), line, flags[0])
    ]


# How much of a line a finding about an invisible character quotes around the first one, and on how many
# lines it is reported one by one (a paste with thousands of them gets one more finding that counts the rest)
_SHOWN_BEFORE, _SHOWN_AFTER = 24, 40
INVISIBLE_LINES = 100


def invisible_findings(text: str) -> list[Finding]:
    """One error per line that holds a character the reader cannot see (a bidirectional control, a
    zero-width character, a terminal escape…): what the shell runs is not what the page or the terminal
    shows. The message quotes the line with each one written out as ⟨U+…⟩."""
    findings: list[Finding] = []
    more: list[int] = []
    for number, line in enumerate(text.split("\n"), 1):
        found = [m.start() for m in INVISIBLE.finditer(line)]
        if not found:
            continue
        if len(findings) == INVISIBLE_LINES:
            more.append(number)
            continue
        points = list(dict.fromkeys(code_point(line[at]) for at in found))
        start = max(0, found[0] - _SHOWN_BEFORE)
        end = min(len(line), found[0] + _SHOWN_AFTER)
        shown = ("…" if start else "") + visible(line[start:end]) + ("…" if end < len(line) else "")
        listed = ", ".join(points[:5]) + (", …" if len(points) > 5 else "")
        findings.append(
            Finding(
                "error",
                "shell.invisible",
                message("check-shell-invisible", points=listed, shown=shown),
                number,
                points[0],
            )
        )
    if more:
        said = message("check-shell-invisible-more", count=len(more), last=more[-1])
        findings.append(Finding("error", "shell.invisible", said, more[0]))
    return findings


def check_command(
    text: str,
    snapshot: EngineSnapshot | None = None,
    kb: KB | None = None,
    *,
    model: str | None = None,
    gpu: str | None = None,
) -> list[Finding]:
    """Every finding for a block of shell text, ordered by line (see the package docstring)."""
    snapshot = snapshot or load_snapshot()
    commands, modules = entry_points(snapshot)
    findings: list[Finding] = invisible_findings(text)
    try:
        script = parse_script(text, commands, modules)
    except ShellSyntaxError as exc:
        findings.append(
            Finding(
                "error",
                "shell.syntax",
                message("check-shell-syntax", problem=exc.problem),
                exc.line,
            )
        )
        return ordered(findings)
    for orphan in script.orphans:
        first: Word = orphan.words[0]
        findings.append(
            Finding(
                "error",
                "shell.orphan-flags",
                message("check-shell-orphan-flags", flag=first.text),
                first.line,
                first.text,
            )
        )
    for unseen in script.unseen:
        if unseen.too_deep:
            said = message("check-shell-too-deep", shell=visible(unseen.behind.text), depth=MAX_NESTING)
            code = "shell.too-deep"
        else:
            said = message("check-shell-unseen-program", launcher=visible(unseen.behind.text))
            code = "shell.unseen-program"
        findings.append(Finding("error", code, said, unseen.line, unseen.behind.text))
    suggest = Suggestions()
    exported = [a for a in script.assignments if a.how == "export"]
    for invocation in script.invocations:
        findings += check_invocation(invocation, snapshot, kb, model, exported, gpu=gpu, suggest=suggest)
    findings += deployment_findings(script.invocations, snapshot)
    if not (script.invocations or script.orphans or script.unseen):
        findings += _unchecked_flags(text)
    kb_env = kb.env_vars if kb is not None else {}
    findings += check_assignments(script.assignments, snapshot, kb_env, suggest)
    return ordered(findings)


def check_recipe(
    recipe: Recipe, snapshot: EngineSnapshot | None = None, kb: KB | None = None
) -> list[Finding]:
    """Findings for a KB recipe, checked as the exact text the site publishes."""
    return check_command(command_text(recipe), snapshot, kb, model=recipe.model)
