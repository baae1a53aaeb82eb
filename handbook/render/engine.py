"""Renderers that set the KB beside the pinned engine: each command's check status, the drift page
(defaults, choices, aliases, rules, variables) and the reference of every engine option."""

from __future__ import annotations

import json
from typing import Any

from handbook.checker.argv import PROGRAM_LABEL, spellings_abbreviated_by
from handbook.checker.check import check_recipe
from handbook.checker.findings import Finding
from handbook.core.anchors import DRIFT_PAGE, OPTIONS_PAGE, PARAMETERS_PAGE, option_anchor, parameter_anchor
from handbook.engine.snapshot import EngineSnapshot, Option, load_snapshot
from handbook.kb.schema import Parameter, Recipe
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import table
from handbook.render.markers import RenderError, renderer

SEVERITY = {"error": ("错误", "Error"), "warning": ("警告", "Warning"), "note": ("提示", "Note")}
DOES = {
    "raises": ("启动报错", "raises"),
    "adjusts": ("自动调整", "adjusts"),
    "logs": ("只打日志", "logs only"),
    "nothing": ("不检查", "does nothing"),
}
VERDICT = {
    "matches": ("一致", "matches"),
    "overstates": ("言过其实", "overstates"),
    "understates": ("说得不够", "understates"),
    "contradicts": ("与引擎相反", "contradicts"),
}
HOW = {"reading": ("读代码", "read in the code"), "replay": ("CPU 复现", "replayed on CPU")}


def snapshot_of(ctx: RenderContext) -> EngineSnapshot:
    if ctx.snapshot is None:
        ctx.snapshot = load_snapshot(ctx.kb.handbook.engine_version)
    return ctx.snapshot


def _shown(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"repr"}:
        return str(value["repr"])
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _code(value: Any) -> str:
    return f"<code>{esc(_shown(value))}</code>"


def _pick(ctx: RenderContext, pair: tuple[str, str]) -> str:
    return ctx.pick(*pair)


# ------------------------------------------------------------------------------------------ command status
def _finding_html(ctx: RenderContext, finding: Finding) -> str:
    text = esc(finding.message[ctx.lang])
    if finding.link:
        page, _, anchor = finding.link.partition("#")
        text += f' <a href="{attr(ctx.href(page, anchor))}">{esc(ctx.msg("engine-why"))}</a>'
    return text


def command_status(ctx: RenderContext, recipe: Recipe) -> str:
    """One line under a command: checked against the pinned engine, or its warnings and notes with links."""
    if recipe.kind == "shell":
        return ""  # git, pip, curl: nothing the engine's parsers read
    snapshot = snapshot_of(ctx)
    findings = check_recipe(recipe, snapshot, ctx.kb)
    version = snapshot.sglang_version
    flagged = [f for f in findings if f.severity != "note"]
    notes = [f for f in findings if f.severity == "note"]
    lines = []
    if not flagged:
        checked = esc(ctx.msg("engine-checked", version=version))
        link = f'<a href="{attr(ctx.href(DRIFT_PAGE))}">{checked}</a>'
        lines.append(f'<p class="cmd-status ok">{link}</p>')
    for finding in flagged:
        label = esc(_pick(ctx, SEVERITY[finding.severity]))
        lines.append(f'<p class="cmd-status warn">{label}: {_finding_html(ctx, finding)}</p>')
    for finding in notes:
        label = esc(_pick(ctx, SEVERITY["note"]))
        lines.append(f'<p class="cmd-status">{label}: {_finding_html(ctx, finding)}</p>')
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ defaults
def _same(stated: Any, engine: Any) -> bool:
    if isinstance(stated, bool) or isinstance(engine, bool):
        return stated is engine
    if isinstance(stated, int | float) and isinstance(engine, int | float):
        return float(stated) == float(engine)
    return str(stated) == str(engine)


def default_verdict(parameter: Parameter, option: Option) -> str:
    """agrees | resolved (no parser default) | differs | unstated."""
    default, engine = parameter.default, option.default
    kind = default.kind
    if kind == "unstated":
        return "unstated"
    if kind == "value":
        if engine is None:
            return "resolved"
        return "agrees" if _same(default.value, engine) else "differs"
    if kind == "required":
        return "agrees" if option.required else "differs"
    if kind in ("auto", "from-config"):
        return "agrees" if engine in (None, "auto") else "differs"
    if kind == "disabled":
        return "agrees" if engine in (False, None, [], "none") else "differs"
    return "agrees" if engine is True else "differs"  # enabled


PROGRAM_TAG = {"launch_server": "", "launch_router": "router", "bench_serving": "bench"}


def _flag(ctx: RenderContext, parameter: Parameter) -> str:
    """The parameter's linked flag, tagged with its program when it is not the server's."""
    tag = PROGRAM_TAG[parameter.program]
    return ctx.parameter_link(parameter) + (f" <small>({tag})</small>" if tag else "")


def _stated_default(ctx: RenderContext, parameter: Parameter) -> str:
    from handbook.render.params import default_text

    return default_text(ctx, parameter.default)


def _engine_default(ctx: RenderContext, option: Option) -> str:
    if option.required:
        return esc(ctx.msg("engine-required"))
    if option.default is None:
        return "<code>None</code>"
    return _code(option.default)


@renderer("engine-drift-defaults")
def drift_defaults(ctx: RenderContext) -> str:
    """Each KB parameter's stated default beside the engine parser's, with what a difference means."""
    snapshot = snapshot_of(ctx)
    resolved = {(d.program, d.flag): d for d in ctx.kb.resolved_defaults}
    rows, agreeing, unstated = [], [], []
    for (program, flag), parameter in ctx.kb.parameters.items():
        option = snapshot.parser(program).get(flag)
        if option is None:
            continue
        verdict = default_verdict(parameter, option)
        how = resolved.get((program, flag))
        if option.action == "help":
            continue
        if verdict == "unstated":
            unstated.append(f"{_flag(ctx, parameter)} = {_engine_default(ctx, option)}")
            continue
        if verdict == "agrees" and how is None:
            agreeing.append(_flag(ctx, parameter))
            continue
        meaning = ctx.msg(f"engine-default-{verdict}")
        where = ""
        if how is not None:
            meaning += " " + ctx.msg("engine-default-resolves", how=ctx.t(how.resolves))
            where = f" <small>({esc(how.at.file.rsplit('/', 1)[-1])} {esc(how.at.function)})</small>"
        rows.append(
            [
                _flag(ctx, parameter),
                _stated_default(ctx, parameter),
                _engine_default(ctx, option),
                f"<strong>{esc(_pick(ctx, DEFAULT_VERDICT[verdict]))}</strong>: "
                + ctx.text_html(meaning, program)
                + where,
            ]
        )
    headers = [
        ctx.pick("参数", "Flag"),
        ctx.pick("手册所写默认", "The handbook's default"),
        ctx.pick("引擎解析器默认", "Engine parser default"),
        ctx.pick("含义", "What it means"),
    ]
    out = table(headers, rows) if rows else ""
    if agreeing:
        out += (
            "\n\n<p>"
            + esc(ctx.msg("engine-defaults-agree", count=len(agreeing)))
            + " "
            + ", ".join(agreeing)
            + "</p>"
        )
    if unstated:
        out += (
            "\n\n<p>"
            + esc(ctx.msg("engine-defaults-unstated", count=len(unstated)))
            + " "
            + "; ".join(unstated)
            + "</p>"
        )
    return out


DEFAULT_VERDICT = {
    "agrees": ("一致", "agrees"),
    "resolved": ("启动时决定", "resolved at start-up"),
    "differs": ("不同", "differs"),
}


# ------------------------------------------------------------------------------------------ choices
def _values(values: list[str]) -> str:
    return ", ".join(f"<code>{esc(v)}</code>" for v in values) if values else "—"


@renderer("engine-drift-choices")
def drift_choices(ctx: RenderContext) -> str:
    """Choices the handbook lists that the engine lacks, and engine choices it omits (count + list)."""
    snapshot = snapshot_of(ctx)
    rows = []
    for (program, flag), parameter in ctx.kb.parameters.items():
        if not parameter.choices:
            continue
        option = snapshot.parser(program).get(flag)
        if option is None:
            continue
        listed = [v for choice in parameter.choices for v in choice.values]
        if option.choices is None:
            rows.append([_flag(ctx, parameter), _values(listed), esc(ctx.msg("engine-choices-free")), "—"])
            continue
        engine = [_shown(c) for c in option.choices]
        lacks = [v for v in listed if v not in engine]
        omitted = [c for c in engine if c not in listed]
        omitted_cell = f"{len(omitted)}: {_values(omitted)}" if omitted else "—"
        rows.append([_flag(ctx, parameter), _values(listed), _values(lacks), omitted_cell])
    if not rows:
        raise RenderError("no KB parameter lists choices")
    headers = [
        ctx.pick("参数", "Flag"),
        ctx.pick("手册列出的取值", "Values the handbook lists"),
        ctx.pick("引擎没有的", "Not in the engine"),
        ctx.pick("引擎有、手册未列的（个数：列表）", "In the engine, not listed (count: values)"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ aliases
@renderer("engine-drift-aliases")
def drift_aliases(ctx: RenderContext) -> str:
    """The handbook's other spellings of a flag: real aliases, or only argparse prefix abbreviations."""
    snapshot = snapshot_of(ctx)
    rows = []
    for (program, flag), parameter in ctx.kb.parameters.items():
        if not parameter.aliases and not parameter.abbreviations:
            continue
        parser = snapshot.parser(program)
        option = parser.get(flag)
        if option is None:
            continue
        for alias in parameter.aliases:
            rows.append(
                [
                    ctx.parameter_link(parameter),
                    f"<code>{esc(alias)}</code>",
                    esc(ctx.msg("engine-alias-real")),
                    _values(list(option.option_strings)),
                ]
            )
        for abbreviation in parameter.abbreviations:
            spellings = spellings_abbreviated_by(parser, abbreviation)
            rows.append(
                [
                    ctx.parameter_link(parameter),
                    f"<code>{esc(abbreviation)}</code>",
                    esc(ctx.msg("engine-alias-abbreviation", full=", ".join(spellings))),
                    _values(list(option.option_strings)),
                ]
            )
    if not rows:
        raise RenderError("no KB parameter has aliases or abbreviations")
    headers = [
        ctx.pick("参数", "Flag"),
        ctx.pick("手册的另一种写法", "The handbook's other spelling"),
        ctx.pick("引擎怎么看", "What the engine makes of it"),
        ctx.pick("引擎里这个参数的全部写法", "Every spelling the engine has"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ rules
def _engine_does(ctx: RenderContext, rule: Any) -> str:
    engine = rule.engine
    text = esc(_pick(ctx, DOES[engine.does]))
    if engine.raises:
        text += f" <code>{esc(engine.raises)}</code>"
    if engine.adjustment is not None:
        text += ": " + ctx.text_html(engine.adjustment)
    if engine.at is not None:
        at = engine.at
        text += f"<br><small><code>{esc(at.file)}</code> {esc(at.function)} L{at.line}</small>"
    if engine.note is not None:
        text += "<br><small>" + ctx.text_html(engine.note) + "</small>"
    return text


@renderer("engine-drift-rules")
def drift_rules(ctx: RenderContext) -> str:
    """Rules whose handbook wording overstates, understates or contradicts what the engine does."""
    rows, ids = [], []
    for rule in ctx.kb.rules.values():
        stated = rule.stated
        if stated is None or stated.verdict == "matches":
            continue
        rows.append(
            [
                esc(ctx.t(stated.where)),
                ctx.text_html(stated.says),
                _engine_does(ctx, rule),
                f"<strong>{esc(_pick(ctx, VERDICT[stated.verdict]))}</strong>: " + ctx.text_html(stated.why),
            ]
        )
        ids.append(f"drift-{rule.id}")
    if not rows:
        raise RenderError("no rule's wording differs from the engine")
    headers = [
        ctx.pick("位置", "Where"),
        ctx.pick("手册原话", "The handbook says"),
        ctx.pick("sglang 实际行为", "What sglang does"),
        ctx.pick("差别", "The difference"),
    ]
    return table(headers, rows, row_ids=ids)


def _message_template(ctx: RenderContext, rule: Any) -> str:
    import string

    parts = []
    for literal, name, _, _ in string.Formatter().parse(ctx.t(rule.message)):
        parts.append(esc(literal))
        if name is not None:
            parts.append(f"<var>{esc(name)}</var>")
    return "".join(parts)


@renderer("engine-rules")
def engine_rules(ctx: RenderContext) -> str:
    """Every rule the checker applies, with its severity and what the engine does."""
    rows, ids = [], []
    for rule in ctx.kb.rules.values():
        page, _, anchor = rule.explained_at.partition("#")
        explained = f'<a href="{attr(ctx.href(page, anchor))}">{esc(ctx.msg("engine-why"))}</a>'
        source = (
            ""
            if rule.source == "handbook"
            else f"<br><small>{esc(ctx.msg('engine-rule-from-engine'))}</small>"
        )
        rows.append(
            [
                f"<code>{esc(rule.id)}</code><br>{_message_template(ctx, rule)} {explained}{source}",
                esc(_pick(ctx, SEVERITY[rule.severity])),
                _engine_does(ctx, rule),
                esc(_pick(ctx, HOW[rule.engine.established])),
            ]
        )
        ids.append(f"rule-{rule.id}")
    headers = [
        ctx.pick("规则", "Rule"),
        ctx.pick("级别", "Severity"),
        ctx.pick("sglang 的行为", "What sglang does"),
        ctx.pick("依据", "Established by"),
    ]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------------ variables
@renderer("engine-drift-env")
def drift_env(ctx: RenderContext) -> str:
    """The KB's environment variables against the engine's registry (environ.py)."""
    from handbook.checker.envcheck import READERS
    from handbook.core.anchors import env_anchor

    snapshot = snapshot_of(ctx)
    environ = snapshot.environ
    deprecated_by_rule = {r.params.get("name"): r for r in ctx.kb.rules.values() if r.predicate == "env-set"}
    rows = []
    for name, variable in ctx.kb.env_vars.items():
        registered = environ.get(name)
        if registered is not None:
            engine = ctx.msg(
                "engine-env-registered",
                type=registered.type,
                default="None" if registered.default is None else _shown(registered.default),
                line=registered.line or "?",
            )
        else:
            engine = ctx.msg("engine-env-absent")
        notes = []
        if environ.deprecation(name) is not None:
            notes.append(ctx.msg("engine-env-deprecated"))
        rule = deprecated_by_rule.get(name)
        if rule is not None:
            notes.append(ctx.t(rule.message))
        reader = (
            _pick(ctx, READERS[variable.read_by])
            if variable.read_by != "sglang" or registered is None
            else "SGLang"
        )
        link = (
            f'<a href="{attr(ctx.href("09-appendix.md", env_anchor(name)))}"><code>{esc(name)}</code></a>'
            if variable.in_appendix
            else f"<code>{esc(name)}</code>"
        )
        rows.append(
            [
                link,
                esc(reader),
                esc(engine),
                ctx.text_html("；".join(notes) if ctx.lang == "zh" else "; ".join(notes)) or "—",
            ]
        )
    headers = [
        ctx.pick("变量", "Variable"),
        ctx.pick("知识库记录的读取方", "Read by (per the KB)"),
        ctx.pick("sglang 注册表（environ.py）", "sglang's registry (environ.py)"),
        ctx.pick("说明", "Notes"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ corrections
@renderer("engine-corrections")
def engine_corrections(ctx: RenderContext) -> str:
    """Published commands the engine proved wrong or deprecated: what the source said, what is published."""
    rows = []
    for recipe in ctx.kb.recipes.values():
        for fix in recipe.corrections:
            rows.append(
                [
                    esc(ctx.t(recipe.title)) + f"<br><small><code>{esc(recipe.id)}</code></small>",
                    f"<code>{esc(fix.stated)}</code>",
                    f"<code>{esc(fix.published)}</code>",
                    ctx.text_html(fix.why, recipe.program),
                ]
            )
    if not rows:
        raise RenderError("no recipe records a correction")
    headers = [
        ctx.pick("命令", "Command"),
        ctx.pick("源稿所写", "The source says"),
        ctx.pick("本站发布", "Published here"),
        ctx.pick("原因", "Why"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ options reference
def _type_cell(ctx: RenderContext, option: Option) -> str:
    if option.nargs == 0:
        return esc(ctx.msg("engine-switch"))
    kind = option.type or "str"
    text = f"<code>{esc(kind)}</code>"
    if option.nargs not in (None,):
        text += f" × <code>{esc(option.nargs)}</code>"
    if option.choices is not None:
        text += "<br>" + ", ".join(_code(c) for c in option.choices)
    return text


@renderer("engine-options")
def engine_options(ctx: RenderContext, program: str) -> str:
    """Every option of one engine parser, each row deep-linkable (#opt-…, #router-opt-…, #bench-opt-…)."""
    if ctx.page != OPTIONS_PAGE:
        raise RenderError(f"the option reference lives on {OPTIONS_PAGE}, where its anchors are")
    snapshot = snapshot_of(ctx)
    if program not in snapshot.parsers:
        raise RenderError(f"program= takes one of {', '.join(snapshot.parsers)}")
    parser = snapshot.parser(program)
    rows, ids = [], []
    for option in parser.options:
        if not option.option_strings or option.help_suppressed:
            continue
        spellings = " / ".join(f"<code>{esc(s)}</code>" for s in option.option_strings)
        parameter = ctx.kb.parameter(option.name, program)
        if parameter is not None:
            url = attr(ctx.href(PARAMETERS_PAGE, parameter_anchor(program, parameter.flag)))
            spellings += f'<br><small><a href="{url}">{esc(ctx.msg("engine-in-handbook"))}</a></small>'
        help_text = esc(option.help or "")
        if option.deprecated:
            help_text = (
                "<strong>"
                + esc(ctx.msg("engine-deprecated", replacement=option.replacement or "—"))
                + "</strong> "
                + help_text
            )
        default = "—" if option.nargs == 0 and option.default is False else _engine_default(ctx, option)
        rows.append([spellings, _type_cell(ctx, option), default, help_text])
        ids.append(option_anchor(program, option.name))
    headers = [
        ctx.pick("参数", "Option"),
        ctx.pick("类型 / 取值", "Type / choices"),
        ctx.pick("默认", "Default"),
        ctx.pick("引擎 --help 原文", "The engine's --help text"),
    ]
    caption = esc(
        ctx.msg(
            "engine-options-caption",
            command=PROGRAM_LABEL[program],
            count=len(rows),
            version=snapshot.sglang_version,
        )
    )
    return table(headers, rows, row_ids=ids, caption=caption)


@renderer("engine-rule-count", inline=True)
def engine_rule_count(ctx: RenderContext) -> str:
    return str(len(ctx.kb.rules))
