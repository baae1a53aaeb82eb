"""Renderers for parameters (chapter 04, appendix A), their choices, and a default inside a sentence."""

from __future__ import annotations

from handbook.core.anchors import PARAMETERS_PAGE, parameter_anchor
from handbook.kb.schema import Default, Parameter
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import table
from handbook.render.markers import RenderError, renderer
from handbook.render.verdicts import verdicts

STAGE_MARKS = "①②③④⑤⑥⑦"

# The catalogue's word for each kind of default that is not a value.
DEFAULT_KEYS = {
    "auto": "param-default-auto",
    "required": "param-default-required",
    "from-config": "param-default-from-config",
    "disabled": "param-default-disabled",
    "enabled": "param-default-enabled",
    "unstated": "param-default-unstated",
}


def default_text(ctx: RenderContext, default: Default) -> str:
    if default.stated is not None:
        return ctx.text_html(default.stated)
    if default.kind == "value":
        return f"<code>{esc(default.value)}</code>"
    return esc(ctx.msg(DEFAULT_KEYS[default.kind]))


def _flag_cell(ctx: RenderContext, p: Parameter) -> str:
    """The flag (anchored: this is the parameter's home) and the handbook's other spellings."""
    spellings = " / ".join(f"<code>{esc(f)}</code>" for f in [p.flag, *p.aliases])
    if p.abbreviations:  # the handbook presents them as aliases; the engine only prefix-matches them
        shown = " / ".join(f"<code>{esc(f)}</code>" for f in p.abbreviations)
        spellings += f"<br><small>{ctx.msg('param-abbreviation', spellings=shown)}</small>"
    return f'<span id="{attr(parameter_anchor(p.program, p.flag))}"></span>{spellings}'


def _meaning(ctx: RenderContext, p: Parameter) -> str:
    text = ctx.text_html(p.meaning, p.program)
    if p.tradeoff:
        text += "<br>" + ctx.text_html(p.tradeoff, p.program)
    if p.stages:
        text += "<br><small>" + ctx.msg("params-acts-at") + " ".join(STAGE_MARKS[s - 1] for s in p.stages)
        text += "</small>"
    return text + verdicts(ctx, p.rules)


def _groups(ctx: RenderContext, groups: str) -> list[str]:
    ids = [g for g in groups.split(",") if g]
    for g in ids:
        if g not in ctx.kb.groups:
            raise RenderError(f"{g!r} is not a parameter group (kb/parameters/<group>.yaml)")
    return ids


@renderer("parameters")
def parameters(ctx: RenderContext, groups: str) -> str:
    """The parameter table of one or more groups; every row is the flag's anchored home."""
    if ctx.page != PARAMETERS_PAGE:
        raise RenderError(f"parameter tables live on {PARAMETERS_PAGE}, where their anchors are")
    rows = []
    for gid in _groups(ctx, groups):
        for p in ctx.kb.groups[gid].parameters:
            rows.append([_flag_cell(ctx, p), default_text(ctx, p.default), _meaning(ctx, p)])
    headers = [
        ctx.msg("col-flag"),
        ctx.msg("col-default"),
        ctx.msg("params-col-meaning"),
    ]
    return table(headers, rows)


@renderer("group-intro")
def group_intro(ctx: RenderContext, group: str) -> str:
    intro = ctx.kb.groups[_groups(ctx, group)[0]].intro
    if intro is None:
        raise RenderError(f"group {group} has no intro")
    return ctx.text_html(intro) + verdicts(ctx, ctx.kb.groups[group].rules)


@renderer("choices")
def choices(ctx: RenderContext, flag: str, program: str = "launch_server") -> str:
    """A backend flag's values, each with when to use it (chapter 04.4)."""
    p = ctx.kb.parameter(flag, program)
    if p is None:
        raise RenderError(f"{flag} is not a {program} parameter in kb/parameters/")
    if not p.choices:
        raise RenderError(f"{flag} has no choices in the KB")
    rows = []
    for c in p.choices:
        values = " / ".join(f"<code>{esc(v)}</code>" for v in c.values)
        if c.default:
            values += ctx.msg("choices-default")
        rows.append([values, ctx.text_html(c.use_when, p.program) + verdicts(ctx, c.rules)])
    out = table([ctx.msg("col-value"), ctx.msg("choices-col-when")], rows)
    if p.choices_note:
        out += "\n\n" + ctx.text_html(p.choices_note, p.program)
    return out


@renderer("parameter-summary")
def parameter_summary(ctx: RenderContext) -> str:
    """Appendix A: every parameter in one line, linked to its entry."""
    rows = []
    for group in ctx.kb.groups.values():
        for p in group.parameters:
            summary = ctx.text_html(p.summary, p.program) + verdicts(ctx, p.rules)
            rows.append([ctx.parameter_link(p), esc(ctx.t(group.title)), summary])
    return table([ctx.msg("col-flag"), ctx.msg("summary-col-group"), ctx.msg("summary-col-line")], rows)


# ------------------------------------------------------------------------------------ defaults in prose
@renderer("param-default", inline=True)
def param_default(ctx: RenderContext, flag: str, program: str = "launch_server") -> str:
    """A parameter's default value inside a sentence: ``<!-- kb:param-default flag=--port -->``."""
    parameter = ctx.kb.parameter(flag, program)
    if parameter is None:
        raise RenderError(f"{flag} is not a {program} parameter in kb/parameters/")
    default = parameter.default
    if default.kind == "value":
        return esc(default.value)
    return esc(ctx.msg(DEFAULT_KEYS[default.kind]))
