"""Renderers that set the KB beside the pinned engine: each command's check status, the drift page
(defaults, choices, aliases, rules, variables) and the reference of every engine option (with each
option's history across the stored releases, from handbook/render/versions.py)."""

from __future__ import annotations

import string
from typing import Any

from handbook.checker.argv import PROGRAM_LABEL, spellings_abbreviated_by
from handbook.checker.check import check_command, check_recipe
from handbook.checker.envcheck import READ_BY_KEYS
from handbook.checker.findings import RANK, Finding
from handbook.core.anchors import (
    DRIFT_PAGE,
    OPTIONS_PAGE,
    PARAMETERS_PAGE,
    env_anchor,
    option_anchor,
    parameter_anchor,
)
from handbook.core.formatting import parser_value
from handbook.engine.snapshot import EngineSnapshot, Option
from handbook.kb.schema import Correction, Parameter, Recipe
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import change, parser_value_code, table
from handbook.render.markers import RenderError, renderer
from handbook.render.params import default_text, default_verdict
from handbook.render.versions import history_caption, option_history

# The catalogue's key for each value a renderer words (handbook/core/messages/site.py).
SEVERITY_KEYS = {
    "error": "rules-severity-error",
    "warning": "rules-severity-warning",
    "note": "rules-severity-note",
}
DOES_KEYS = {
    "raises": "rules-does-raises",
    "adjusts": "rules-does-adjusts",
    "logs": "rules-does-logs",
    "nothing": "rules-does-nothing",
}
VERDICT_KEYS = {
    "matches": "drift-rules-matches",
    "overstates": "drift-rules-overstates",
    "understates": "drift-rules-understates",
    "contradicts": "drift-rules-contradicts",
}
HOW_KEYS = {"reading": "rules-how-reading", "replay": "rules-how-replay"}
# A stated default beside the engine's (default_verdict): the verdict's word, and what it means.
DEFAULT_VERDICT_KEYS = {
    "agrees": "drift-defaults-agrees",
    "resolved": "drift-defaults-resolved",
    "differs": "drift-defaults-differs",
}
DEFAULT_MEANING_KEYS = {
    "agrees": "engine-default-agrees",
    "resolved": "engine-default-resolved",
    "differs": "engine-default-differs",
}


def snapshot_of(ctx: RenderContext) -> EngineSnapshot:
    return ctx.engine()


# ------------------------------------------------------------------------------------------ command status
# Findings that speak to the checker's own limits ("placeholders, not type-checked"): the CLI prints them, a
# reader's page does not.
TOOL_ONLY_CODES = frozenset({"value.placeholder"})


def recipe_findings(ctx: RenderContext, recipe: Recipe) -> list[Finding]:
    """What the pinned engine's checker says of a recipe, as a reader's page shows it (most severe first)."""
    if recipe.kind == "shell":
        return []  # git, pip, curl: nothing the engine's parsers read
    known = ctx.recipe_findings
    findings = known[recipe.id] if known is not None else check_recipe(recipe, snapshot_of(ctx), ctx.kb)
    shown = [f for f in findings if f.code not in TOOL_ONLY_CODES]
    return sorted(shown, key=lambda f: RANK[f.severity])


def finding_html(ctx: RenderContext, finding: Finding) -> str:
    """One finding as a line of the folded check: its severity, its words, the section that explains it.
    A variable outside SGLang's registry is said by who reads it, not by what the checker skipped."""
    if finding.code == "env.foreign" and finding.subject in ctx.kb.env_vars:
        reader = ctx.msg(READ_BY_KEYS[ctx.kb.env_vars[finding.subject].read_by])
        text = esc(ctx.msg("cmd-env-reader", name=finding.subject, reader=reader))
    else:
        text = esc(finding.message[ctx.lang])
    if finding.link:
        page, _, anchor = finding.link.partition("#")
        text += f' <a href="{attr(ctx.href(page, anchor))}">{esc(ctx.msg("engine-why"))}</a>'
    label = esc(ctx.msg(SEVERITY_KEYS[finding.severity]))
    sep = esc(ctx.msg("sep-label"))
    return f'<p class="cmd-finding {finding.severity}"><strong>{label}</strong>{sep}{text}</p>'


# The catalogue's key for one finding of a severity, and for several.
COUNT_ONE_KEYS = {"error": "cmd-count-error", "warning": "cmd-count-warning", "note": "cmd-count-note"}
COUNT_KEYS = {"error": "cmd-count-errors", "warning": "cmd-count-warnings", "note": "cmd-count-notes"}


def status_words(ctx: RenderContext, findings: list[Finding]) -> tuple[str, str]:
    """The status line's words and its mark (ok, warning or error): "Checked against sglang 0.5.23", or
    the counts of what the check found."""
    version = snapshot_of(ctx).sglang_version
    if not findings:
        return ctx.msg("engine-checked", version=version), "ok"
    counts = []
    for severity, many in COUNT_KEYS.items():
        n = sum(1 for f in findings if f.severity == severity)
        if n:
            counts.append(ctx.msg(COUNT_ONE_KEYS[severity] if n == 1 else many, count=n))
    worst = findings[0].severity
    mark = "ok" if worst == "note" else worst
    return ctx.msg("cmd-check-flagged", counts=ctx.msg("sep-list").join(counts), version=version), mark


PROGRAM_TAG = {"launch_server": "", "launch_router": "router", "bench_serving": "bench"}


def _flag(ctx: RenderContext, parameter: Parameter) -> str:
    """The parameter's linked flag, tagged with its program when it is not the server's."""
    tag = PROGRAM_TAG[parameter.program]
    return ctx.parameter_link(parameter) + (f" <small>({tag})</small>" if tag else "")


def engine_default_html(ctx: RenderContext, option: Option) -> str:
    if option.required:
        return esc(ctx.msg("param-default-required"))
    if option.default is None:
        return "<code>None</code>"
    return ctx.engine_value(parser_value(option.default))


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
        how = resolved.get((program, flag))
        verdict = default_verdict(parameter, option, how)
        if option.action == "help":
            continue
        if verdict == "unstated":
            unstated.append(f"{_flag(ctx, parameter)} = {engine_default_html(ctx, option)}")
            continue
        if verdict == "agrees" and how is None:
            agreeing.append(_flag(ctx, parameter))
            continue
        meaning = ctx.msg(DEFAULT_MEANING_KEYS[verdict])
        where = ""
        if how is not None:
            meaning += " " + ctx.msg("engine-default-resolves", how=ctx.t(how.resolves))
            where = f" <small>({esc(how.at.file.rsplit('/', 1)[-1])} {esc(how.at.function)})</small>"
        rows.append(
            [
                _flag(ctx, parameter),
                default_text(ctx, parameter.default),
                engine_default_html(ctx, option),
                f"<strong>{esc(ctx.msg(DEFAULT_VERDICT_KEYS[verdict]))}</strong>: "
                + ctx.text_html(meaning, program)
                + where,
            ]
        )
    headers = [
        ctx.msg("col-flag"),
        ctx.msg("drift-defaults-col-stated"),
        ctx.msg("drift-defaults-col-engine"),
        ctx.msg("drift-defaults-col-meaning"),
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
        engine = [parser_value(c) for c in option.choices]
        lacks = [v for v in listed if v not in engine]
        omitted = [c for c in engine if c not in listed]
        omitted_cell = f"{len(omitted)}: {_values(omitted)}" if omitted else "—"
        rows.append([_flag(ctx, parameter), _values(listed), _values(lacks), omitted_cell])
    if not rows:
        raise RenderError("no KB parameter lists choices")
    headers = [
        ctx.msg("col-flag"),
        ctx.msg("drift-choices-col-listed"),
        ctx.msg("drift-choices-col-lacking"),
        ctx.msg("drift-choices-col-omitted"),
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
        ctx.msg("col-flag"),
        ctx.msg("drift-aliases-col-spelling"),
        ctx.msg("drift-aliases-col-engine"),
        ctx.msg("drift-aliases-col-all"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ rules
def _engine_does(ctx: RenderContext, rule: Any) -> str:
    engine = rule.engine
    text = esc(ctx.msg(DOES_KEYS[engine.does]))
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
                f"<strong>{esc(ctx.msg(VERDICT_KEYS[stated.verdict]))}</strong>: "
                + ctx.text_html(stated.why),
            ]
        )
        ids.append(f"drift-{rule.id}")
    if not rows:
        raise RenderError("no rule's wording differs from the engine")
    headers = [
        ctx.msg("col-where"),
        ctx.msg("drift-rules-col-says"),
        ctx.msg("drift-rules-col-does"),
        ctx.msg("drift-rules-col-difference"),
    ]
    return table(headers, rows, row_ids=ids)


def _rule_statement(ctx: RenderContext, rule: Any) -> tuple[str, str]:
    """The rule's message as the checker words it for the rule's example command (every field filled),
    and that command; a rule whose message has no fields is shown without it."""
    template = ctx.t(rule.message)
    if not any(name for _, name, _, _ in string.Formatter().parse(template)):
        return esc(template), ""
    fired = [f for f in check_command(rule.example, snapshot_of(ctx), ctx.kb) if f.rule == rule.id]
    if not fired or fired[0].said is None:
        raise RenderError(f"rule {rule.id}: its example does not break it")
    example = ctx.msg("rules-example", command=f"<code>{esc(rule.example)}</code>")
    return esc(fired[0].said[ctx.lang]), f"<br><small>{example}</small>"


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
        statement, example = _rule_statement(ctx, rule)
        rows.append(
            [
                f"<code>{esc(rule.id)}</code><br>{statement} {explained}{example}{source}",
                esc(ctx.msg(SEVERITY_KEYS[rule.severity])),
                _engine_does(ctx, rule),
                esc(ctx.msg(HOW_KEYS[rule.engine.established])),
            ]
        )
        ids.append(f"rule-{rule.id}")
    headers = [
        ctx.msg("rules-col-rule"),
        ctx.msg("rules-col-severity"),
        ctx.msg("rules-col-does"),
        ctx.msg("rules-col-established"),
    ]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------------ variables
@renderer("engine-drift-env")
def drift_env(ctx: RenderContext) -> str:
    """The KB's environment variables against the engine's registry (environ.py)."""
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
                default="None" if registered.default is None else parser_value(registered.default),
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
            ctx.msg(READ_BY_KEYS[variable.read_by])
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
                ctx.text_html(ctx.msg("sep-clause").join(notes)) or "—",
            ]
        )
    headers = [
        ctx.msg("col-variable"),
        ctx.msg("drift-env-col-reader"),
        ctx.msg("drift-env-col-registry"),
        ctx.msg("col-notes"),
    ]
    return table(headers, rows)


# ------------------------------------------------------------------------------------------ corrections
def correction_anchor(owner: str, index: int) -> str:
    """The row of a correction on the engine-drift page: ``correction-<recipe id>-<n>``."""
    return f"correction-{owner}-{index}"


def correction_line(ctx: RenderContext, owner: str, index: int, fix: Correction, program: str | None) -> str:
    """The line right under a changed command: what changed, why, and the drift entry."""
    href = attr(ctx.href(DRIFT_PAGE, correction_anchor(owner, index)))
    text = ctx.msg(
        "correction-line",
        stated=f"<code>{esc(fix.stated)}</code>",
        published=f"<code>{esc(fix.published)}</code>",
        why=ctx.text_html(fix.why, program).rstrip("。."),
        link=f'<a href="{href}">{esc(ctx.msg("correction-link"))}</a>',
    )
    return f'<p class="cmd-correction">{text}</p>'


def corrections(ctx: RenderContext) -> list[tuple[str, str | None, Correction, str]]:
    """Every correction of a published command: (anchor owner, program, correction, its label)."""
    out = []
    for recipe in ctx.kb.recipes.values():
        for fix in recipe.corrections:
            label = esc(ctx.t(recipe.title)) + f"<br><small><code>{esc(recipe.id)}</code></small>"
            out.append((recipe.id, recipe.program, fix, label))
    for scenario in ctx.kb.tuning.scenarios:
        for fix in scenario.corrections:
            label = esc(f"{ctx.msg('drift-scenario')} · {ctx.t(scenario.name)}")
            out.append((f"scenario-{scenario.id}", "launch_server", fix, label))
    return out


@renderer("engine-corrections")
def engine_corrections(ctx: RenderContext) -> str:
    """Published commands the engine proved wrong or deprecated: what the source said, what is published."""
    rows, ids = [], []
    counters: dict[str, int] = {}
    for owner, program, fix, label in corrections(ctx):
        index = counters.get(owner, 0)
        counters[owner] = index + 1
        rows.append(
            [
                label,
                change(f"<code>{esc(fix.stated)}</code>", f"<code>{esc(fix.published)}</code>"),
                ctx.text_html(fix.why, program),
            ]
        )
        ids.append(correction_anchor(owner, index))
    if not rows:
        raise RenderError("no recipe records a correction")
    headers = [ctx.msg("corrections-col-command"), ctx.msg("col-source-to-published"), ctx.msg("col-why")]
    return table(headers, rows, row_ids=ids)


# ------------------------------------------------------------------------------------------ options reference
def _type_cell(ctx: RenderContext, option: Option) -> str:
    if option.nargs == 0:
        return esc(ctx.msg("engine-switch"))
    kind = option.type or "str"
    text = f"<code>{esc(kind)}</code>"
    if option.nargs not in (None,):
        text += f" × <code>{esc(option.nargs)}</code>"
    if option.choices is not None:
        text += "<br>" + ", ".join(parser_value_code(c) for c in option.choices)
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
        no_default = option.action == "help" or (option.nargs == 0 and option.default is False)
        default = "—" if no_default else engine_default_html(ctx, option)
        history = option_history(ctx, program, option)
        rows.append([spellings, _type_cell(ctx, option), default, history, help_text])
        ids.append(option_anchor(program, option.name))
    headers = [
        ctx.msg("options-col-option"),
        ctx.msg("options-col-type"),
        ctx.msg("col-default"),
        ctx.msg("versions-col-history"),
        ctx.msg("options-col-help"),
    ]
    caption = esc(
        ctx.msg(
            "engine-options-caption",
            command=PROGRAM_LABEL[program],
            count=len(rows),
            version=snapshot.sglang_version,
        )
        + ctx.msg("versions-caption-join")
        + history_caption(ctx)
    )
    return table(headers, rows, row_ids=ids, caption=caption)


@renderer("engine-rule-count", inline=True)
def engine_rule_count(ctx: RenderContext) -> str:
    return str(len(ctx.kb.rules))
