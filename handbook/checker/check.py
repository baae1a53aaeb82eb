"""Check shell text (or a KB recipe) against the engine snapshot and the KB's rules."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidationError

from handbook.checker.argv import PROGRAM_LABEL, UNKNOWN, ParsedArgs, parse_args
from handbook.checker.envcheck import check_assignments
from handbook.checker.findings import Bilingual, Finding, ordered
from handbook.checker.predicates import PREDICATES, Facts, Predicate
from handbook.checker.shell import EnvAssignment, Invocation, ShellSyntaxError, Word, parse_script
from handbook.engine.snapshot import EngineSnapshot, load_snapshot
from handbook.kb.schema import Rule


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


def _engine_clause(rule: Any, version: str) -> Bilingual:
    engine = rule.engine
    where_zh = where_en = ""
    if engine.at is not None:
        base = engine.at.file.rsplit("/", 1)[-1]
        where_zh = f"{base} {engine.at.function}"
        where_en = f"{base} {engine.at.function}"
    if engine.does == "raises":
        return Bilingual(
            f"sglang {version} 启动时会报错：{where_zh} 抛出 {engine.raises}",
            f"sglang {version} refuses to start: {engine.raises} in {where_en}",
        )
    if engine.does == "adjusts":
        return Bilingual(
            f"sglang {version} 会{engine.adjustment.zh}（{where_zh}）",
            f"sglang {version} {engine.adjustment.en} ({where_en})",
        )
    if engine.does == "logs":
        return Bilingual(
            f"这是本手册的建议：sglang {version} 只打印警告（{where_zh}）",
            f"The handbook's advice: sglang {version} only logs a warning ({where_en})",
        )
    return Bilingual(
        f"这是本手册的建议：sglang {version} 不检查这一点",
        f"The handbook's advice: sglang {version} does not check this",
    )


def rule_params(rule: Rule) -> Predicate | None:
    """The rule's predicate with its parameters, or None when the rule is broken (the rule-predicates check
    of ``python -m handbook validate`` reports it with its file and line)."""
    predicate = PREDICATES.get(rule.predicate)
    if predicate is None:
        return None
    try:
        return predicate.model_validate(rule.params)
    except ValidationError:
        return None


def rule_finding(rule: Any, values: dict[str, str], version: str, line: int | None) -> Finding:
    """The finding of a broken rule: its message with the predicate's values, then what the engine does."""
    clause = _engine_clause(rule, version)
    zh = rule.message.zh.format(**values).rstrip("。.")
    en = rule.message.en.format(**values).rstrip(".")
    return Finding(
        rule.severity,
        f"rule.{rule.id}",
        Bilingual(f"{zh}。{clause.zh}。", f"{en}. {clause.en}."),
        line,
        link=rule.explained_at,
        rule=rule.id,
    )


def model_of(args: ParsedArgs, kb: Any) -> str | None:
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
    listed = ", ".join(shown)
    return Finding(
        "note",
        "value.placeholder",
        Bilingual(f"占位值未作类型检查：{listed}", f"Placeholders, not type-checked: {listed}"),
        line,
    )


def _deprecated(args: ParsedArgs, version: str) -> list[Finding]:
    out = []
    for given in args.order:
        option = given.option
        if not option.deprecated:
            continue
        instead_zh = f"，请改用 {option.replacement}" if option.replacement else ""
        instead_en = f"; use {option.replacement}" if option.replacement else ""
        out.append(
            Finding(
                "warning",
                "flag.deprecated",
                Bilingual(
                    f"{option.name} 在 sglang {version} 中已弃用{instead_zh}",
                    f"{option.name} is deprecated in sglang {version}{instead_en}",
                ),
                given.word.line,
                option.name,
            )
        )
    return out


def _module_findings(
    invocation: Invocation, snapshot: EngineSnapshot, modules: dict[str, str]
) -> list[Finding]:
    word = invocation.launcher
    line = word.line if word else invocation.line
    module = invocation.module
    if invocation.kind == "module":
        close = difflib.get_close_matches(module or "", list(modules), n=1, cutoff=0.8)
        hint_zh = f"；是不是 {close[0]}？" if close else ""
        hint_en = f"; did you mean {close[0]}?" if close else ""
        known = ", ".join(sorted(modules))
        return [
            Finding(
                "warning",
                "module.unknown",
                Bilingual(
                    f"python -m {module} 不在本检查器认识的模块之列（{known}），其参数未检查{hint_zh}",
                    f"python -m {module} is not a module this checker knows ({known}); its flags were not "
                    f"checked{hint_en}",
                ),
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
                Bilingual(
                    f"python -m {module} 在 sglang {snapshot.sglang_version} 中已弃用，请改用 "
                    f"python -m {info.deprecated_alias_of}",
                    f"python -m {module} is deprecated in sglang {snapshot.sglang_version}; use "
                    f"python -m {info.deprecated_alias_of}",
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
    kb: Any = None,
    model: str | None = None,
    exported: list[EnvAssignment] | None = None,
) -> list[Finding]:
    """Findings for one SGLang command (or flags-only fragment)."""
    _, modules = entry_points(snapshot)
    findings = _module_findings(invocation, snapshot, modules)
    if invocation.kind not in ("program", "fragment") or invocation.program is None:
        return findings
    fragment = invocation.kind == "fragment"
    args, parse_findings = parse_args(snapshot, invocation.program, invocation.args, fragment=fragment)
    findings += parse_findings
    findings += _deprecated(args, snapshot.sglang_version)
    note = _placeholder_note(args)
    if note is not None:
        findings.append(note)
    if kb is not None:
        env = _environment([*(exported or []), *invocation.env])
        facts = Facts(invocation.program, args, invocation.docker, model or model_of(args, kb), env)
        for rule in kb.rules.values():
            if rule.program != invocation.program:
                continue
            params = rule_params(rule)
            if params is None:  # a rule that names no predicate or gives it bad parameters: validate says
                continue
            try:
                values = params.check(facts)
            except KeyError:  # a flag this snapshot lacks: reported by `python -m handbook validate`
                continue
            if values is not None:
                line = _rule_line(args, params.flags(), invocation.line)
                findings.append(rule_finding(rule, values, snapshot.sglang_version, line))
    return findings


def check_command(
    text: str, snapshot: EngineSnapshot | None = None, kb: Any = None, *, model: str | None = None
) -> list[Finding]:
    """Every finding for a block of shell text, ordered by line (see the package docstring)."""
    snapshot = snapshot or load_snapshot()
    commands, modules = entry_points(snapshot)
    try:
        script = parse_script(text, commands, modules)
    except ShellSyntaxError as exc:
        return [
            Finding(
                "error",
                "shell.syntax",
                Bilingual(
                    f"shell 语法错误：{_SYNTAX_ZH.get(str(exc), str(exc))}", f"shell syntax error: {exc}"
                ),
                exc.line,
            )
        ]
    findings: list[Finding] = []
    for orphan in script.orphans:
        first: Word = orphan.words[0]
        findings.append(
            Finding(
                "error",
                "shell.orphan-flags",
                Bilingual(
                    f"这一行以参数 {first.text} 开头，但上一条命令已经结束"
                    "（上一行末尾没有 \\ 续行，或被注释截断）；shell 会把它当成一条新命令执行",
                    f"this line starts with the flag {first.text} but the previous command has ended (no "
                    "trailing \\ on the line before, or a comment cut it off); "
                    "the shell runs it as a new command",
                ),
                first.line,
                first.text,
            )
        )
    exported = [a for a in script.assignments if a.how == "export"]
    for invocation in script.invocations:
        findings += check_invocation(invocation, snapshot, kb, model, exported)
    kb_env = kb.env_vars if kb is not None else {}
    findings += check_assignments(script.assignments, snapshot, kb_env)
    return ordered(findings)


_SYNTAX_ZH = {"unterminated single quote": "单引号没有闭合", "unterminated double quote": "双引号没有闭合"}


# Validation and both languages' pages ask for the same recipes: check each once. Keyed by identity
# (KB entities are immutable once loaded); the value keeps the objects alive so ids are not reused.
_RECIPE_FINDINGS: dict[tuple[int, int, int], tuple[tuple[Any, ...], tuple[Finding, ...]]] = {}


def check_recipe(recipe: Any, snapshot: EngineSnapshot | None = None, kb: Any = None) -> list[Finding]:
    """Findings for a KB recipe, checked as the exact text the site publishes."""
    from handbook.calc.recipe_text import command_text

    key = (id(recipe), id(snapshot), id(kb))
    if key not in _RECIPE_FINDINGS:
        if len(_RECIPE_FINDINGS) > 4096:  # a long `mkdocs serve` session reloads the KB many times
            _RECIPE_FINDINGS.clear()
        findings = tuple(check_command(command_text(recipe), snapshot, kb, model=recipe.model))
        _RECIPE_FINDINGS[key] = ((recipe, snapshot, kb), findings)
    return list(_RECIPE_FINDINGS[key][1])


def program_label(program: str) -> str:
    return PROGRAM_LABEL[program]
