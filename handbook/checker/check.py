"""Check shell text (or a KB recipe) against the engine snapshot and the KB's rules."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from handbook.calc.recipe_text import command_text
from handbook.checker.argv import UNKNOWN, ParsedArgs, parse_args
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
from handbook.core.messages import message
from handbook.core.suggest import Suggestions
from handbook.core.templates import fill, template_problems
from handbook.core.text import INVISIBLE, LANGS, Text, code_point, visible
from handbook.engine.snapshot import EngineSnapshot, load_snapshot
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
        for module in parser.modules:
            modules[module] = name
    return commands, modules


# What the engine does about a broken rule (``engine.does`` in kb/rules.yaml), as a rule finding ends
ENGINE_DOES = {
    "raises": "check-engine-raises",
    "adjusts": "check-engine-adjusts",
    "logs": "check-engine-logs",
    "nothing": "check-engine-nothing",
}


def _engine_clause(rule: Rule, version: str) -> Text:
    engine = rule.engine
    where = ""
    if engine.at is not None:
        where = f"{engine.at.file.rsplit('/', 1)[-1]} {engine.at.function}"
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


def rule_finding(rule: Rule, values: dict[str, str], version: str, line: int | None) -> Finding:
    """The finding of a broken rule: its message with the predicate's values, then what the engine does."""
    said = Text.of(fill(rule.message.zh, values).rstrip("。."), fill(rule.message.en, values).rstrip("."))
    return Finding(
        rule.severity,
        f"rule.{rule.id}",
        message("check-rule", rule=said, engine=_engine_clause(rule, version)),
        line,
        link=rule.explained_at,
        rule=rule.id,
        said=said,
    )


def model_of(args: ParsedArgs, kb: KB) -> str | None:
    """The KB model a --model-path names (a checkpoint the KB lists, as a repo id or a folder's name)."""
    if kb is None or "model_path" not in args.given:
        return None
    value = args.given["model_path"].value
    if value is UNKNOWN or not isinstance(value, str):
        return None
    name = value.rstrip("/").rsplit("/", 1)[-1].lower()
    for model in kb.models.values():
        for precision in model.precisions:
            checkpoint = (precision.checkpoint or "").lower()
            if checkpoint and (value.lower() == checkpoint or name == checkpoint.rsplit("/", 1)[-1]):
                return model.id
    return None


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


def _module_findings(
    invocation: Invocation, snapshot: EngineSnapshot, modules: dict[str, str], suggest: Suggestions
) -> list[Finding]:
    word = invocation.launcher
    line = word.line if word else invocation.line
    module = invocation.module
    if invocation.kind == "module":
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
        return [
            Finding(
                "warning",
                "module.deprecated",
                message(
                    "check-module-deprecated",
                    module=module,
                    version=snapshot.sglang_version,
                    replacement=info.deprecated_alias_of,
                ),
                line,
                module,
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
    suggest: Suggestions | None = None,
) -> list[Finding]:
    """Findings for one SGLang command (or flags-only fragment). ``suggest``: the check's "did you mean"."""
    suggest = suggest or Suggestions()
    _, modules = entry_points(snapshot)
    findings = _module_findings(invocation, snapshot, modules, suggest)
    if invocation.kind not in ("program", "fragment") or invocation.program is None:
        return findings
    fragment = invocation.kind == "fragment"
    args, parse_findings = parse_args(
        snapshot, invocation.program, invocation.args, fragment=fragment, suggest=suggest
    )
    findings += parse_findings
    findings += _deprecated(args, snapshot.sglang_version)
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
        # what the engine does was established against the pinned release, whichever release is checked
        findings += rule_findings(facts, kb, kb.handbook.engine_version, invocation.line)
    return findings


def rule_findings(facts: Facts, kb: KB, version: str, line: int) -> list[Finding]:
    """The findings of every KB rule of the facts' program that the parsed command breaks. In a fragment
    (``facts.written_only``) a rule whose predicate reads a flag the fragment does not write is not judged."""
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
            findings.append(rule_finding(rule, values, version, where))
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
    text: str, snapshot: EngineSnapshot | None = None, kb: KB | None = None, *, model: str | None = None
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
        findings += check_invocation(invocation, snapshot, kb, model, exported, suggest)
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
