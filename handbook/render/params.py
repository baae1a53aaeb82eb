"""Renderers for parameters (chapter 04, appendix A), their choices, and a default inside a sentence."""

from __future__ import annotations

from typing import Any

from handbook.core.anchors import OPTIONS_PAGE, PARAMETERS_PAGE, option_anchor, parameter_anchor
from handbook.core.formatting import parser_value
from handbook.engine.snapshot import Option
from handbook.kb.schema import Default, Parameter, ResolvedDefault
from handbook.pages.headings import Heading, source_headings
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import table
from handbook.render.markers import RenderError, renderer
from handbook.render.verdicts import verdicts

STAGE_MARKS = "①②③④⑤⑥⑦"
# Chapter 04's columns: the meaning and trade-off gets the room, the flag and the default what they need.
PARAMETER_WIDTHS = ("18%", "22%", "60%")

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


def _same(stated: Any, engine: Any) -> bool:
    if isinstance(stated, bool) or isinstance(engine, bool):
        return stated is engine
    if isinstance(stated, int | float) and isinstance(engine, int | float):
        return float(stated) == float(engine)
    return str(stated) == str(engine)


def default_verdict(parameter: Parameter, option: Option, resolved: ResolvedDefault | None = None) -> str:
    """agrees | resolved (no parser default: the source's figure is one outcome) | differs | unstated.

    A resolved default marked ``not-the-default`` makes the source's figure (a value, or the figures
    beside "auto") differ from what the engine resolves by default."""
    default, engine = parameter.default, option.default
    kind = default.kind
    if kind == "unstated":
        return "unstated"
    if kind == "value":
        if engine is None:
            if resolved is not None and resolved.source_figure == "not-the-default":
                return "differs"
            return "resolved"
        return "agrees" if _same(default.value, engine) else "differs"
    if kind == "required":
        return "agrees" if option.required else "differs"
    if kind in ("auto", "from-config"):
        if resolved is not None and resolved.source_figure == "not-the-default":
            return (
                "differs"  # "auto (< 160 or 256)": the figures the source gives are not what it resolves to
            )
        return "agrees" if engine in (None, "auto") else "differs"
    if kind == "disabled":
        return "agrees" if engine in (False, None, [], "none") else "differs"
    return "agrees" if engine is True else "differs"  # enabled


def default_cell(ctx: RenderContext, p: Parameter) -> str:
    """Chapter 04's default: the source's figure where it agrees with the engine; otherwise both, the
    engine's as its parser default and, where that is None or auto, what start-up resolves it to."""
    option = ctx.engine().parser(p.program).get(p.flag)
    if option is None or option.action == "help":  # --help has no default to set beside the source's
        return default_text(ctx, p.default)
    resolved = next(
        (d for d in ctx.kb.resolved_defaults if d.program == p.program and d.flag == p.flag), None
    )
    verdict = default_verdict(p, option, resolved)
    if verdict == "agrees" and resolved is None:
        return default_text(ctx, p.default)
    engine = "<code>None</code>" if option.default is None else ctx.engine_value(parser_value(option.default))
    if option.required:
        engine = esc(ctx.msg("param-default-required"))
    if resolved is not None:
        engine += " → " + ctx.text_html(resolved.resolves, p.program)
    engine_line = ctx.msg("default-engine", value=engine)
    if verdict == "unstated":
        return engine_line
    return ctx.msg("default-source", value=default_text(ctx, p.default)) + "<br>" + engine_line


def _flag_cell(ctx: RenderContext, p: Parameter) -> str:
    """The flag (anchored: this is the parameter's home) and the handbook's other spellings."""
    spellings = " / ".join(f"<code>{esc(f)}</code>" for f in [p.flag, *p.aliases])
    if p.abbreviations:  # the source presents them as aliases; the engine only prefix-matches them
        shown = " / ".join(f"<code>{esc(f)}</code>" for f in p.abbreviations)
        spellings += f"<br><small>{ctx.msg('param-abbreviation', spellings=shown)}</small>"
    return f'<span id="{attr(parameter_anchor(p.program, p.flag))}"></span>{spellings}'


def section_link(ctx: RenderContext, ref: str) -> str:
    """A link to a section of the site, labelled with that section's heading in the page's language."""
    page, _, anchor = ref.partition("#")
    path = ctx.docs_dir / ctx.lang / page
    headings = source_headings(path.read_text(encoding="utf-8")) if path.is_file() else []
    heading = next((h for h in headings if h.anchor == anchor), None)
    if heading is None:
        raise RenderError(f"{ref}: no heading with that anchor in docs/{ctx.lang}/{page}")

    def plain(h: Heading) -> str:
        return h.text.replace("`", "")

    def number(h: Heading) -> str | None:  # "02" of "02 GPU memory…", "6.2" of "6.2 The workhorse…"
        first = plain(h).split(" ", 1)[0]
        return first if first[:1].isdigit() else None

    chapter = number(headings[0]) if headings and headings[0].level == 1 else None
    label = plain(heading)
    if heading.level > 2:  # a subsection: numbered by its section, or by its chapter
        before = headings[: headings.index(heading)]
        section = next((h for h in reversed(before) if h.level == 2), None)
        prefix = (number(section) if section else None) or chapter
        label = f"{prefix} · {label}" if prefix else label
    elif heading.level == 2 and number(heading) is None and chapter:
        label = f"{chapter} · {label}"
    return f'<a href="{attr(ctx.href(page, anchor))}">{esc(label)}</a>'


def _meaning(ctx: RenderContext, p: Parameter) -> str:
    text = ctx.text_html(p.meaning, p.program)
    if p.tradeoff:
        text += "<br>" + ctx.text_html(p.tradeoff, p.program)
    if p.explained_in:
        links = ctx.msg("sep-clause").join(section_link(ctx, ref) for ref in p.explained_in)
        text += "<br>" + ctx.msg("params-explained-in", links=links)
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
            rows.append([_flag_cell(ctx, p), default_cell(ctx, p), _meaning(ctx, p)])
    headers = [
        ctx.msg("col-flag"),
        ctx.msg("params-col-default"),
        ctx.msg("params-col-meaning"),
    ]
    return table(headers, rows, widths=PARAMETER_WIDTHS)


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
    option = ctx.engine().parser(p.program).get(p.flag)
    engine_default = None if option is None or option.default is None else str(option.default)
    rows = []
    for c in p.choices:
        values = " / ".join(f"<code>{esc(v)}</code>" for v in c.values)
        if engine_default in c.values:  # the engine's own default, whatever the source calls default
            values += ctx.msg("choices-default")
        elif c.default:
            values += ctx.msg("choices-source-default")
        rows.append([values, ctx.text_html(c.use_when, p.program) + verdicts(ctx, c.rules)])
    out = table([ctx.msg("col-value"), ctx.msg("choices-col-when")], rows)
    notes = []
    if p.choices_note:
        notes.append(ctx.text_html(p.choices_note, p.program))
    if p.choices_partial and option is not None and option.choices is not None:
        listed = len({v for c in p.choices for v in c.values})
        link = attr(ctx.href(OPTIONS_PAGE, option_anchor(p.program, p.flag)))
        notes.append(ctx.msg("choices-partial", listed=listed, total=len(option.choices), link=link))
    if notes:
        out += "\n\n" + ctx.msg("sep-sentence").join(notes)
    if p.rules:  # the parameter's own verdicts hold for its values too
        out += "\n\n<p>" + verdicts(ctx, p.rules).removeprefix("<br>") + "</p>"
    return out


def _summary_row(ctx: RenderContext, p: Parameter) -> list[str]:
    return [ctx.parameter_link(p), ctx.text_html(p.summary, p.program) + verdicts(ctx, p.rules)]


@renderer("parameter-summary")
def parameter_summary(ctx: RenderContext, flags: str = "") -> str:
    """Appendix A: the quick reference, one line per flag the marker lists (``flags=``, the source's own
    selection, in its order) and every other parameter one click away, folded by group; without
    ``flags=``, every parameter."""
    headers = [ctx.msg("col-flag"), ctx.msg("summary-col-line")]
    chosen = [f for f in flags.split(",") if f]
    picked = []
    for flag in chosen:
        p = ctx.kb.parameter(flag)
        if p is None:
            raise RenderError(f"{flag} is not a launch_server parameter in kb/parameters/")
        picked.append(p)
    groups = []
    for group in ctx.kb.groups.values():
        rows = [_summary_row(ctx, p) for p in group.parameters]
        groups.append(f"<p><strong>{esc(ctx.t(group.title))}</strong></p>\n" + table(headers, rows))
    everything = "\n".join(groups)
    if not picked:
        return everything
    total = sum(len(g.parameters) for g in ctx.kb.groups.values())
    summary = esc(ctx.msg("summary-all", count=total))
    quick = table(headers, [_summary_row(ctx, p) for p in picked])
    return (
        quick + f'\n\n<details class="all-parameters"><summary>{summary}</summary>\n{everything}\n</details>'
    )


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
