"""Renderers that chapters 05–09 need beyond the shared ones: chapter 05's topology section, chapter 06.8's
quick-reference table, and a parameter's default inside a sentence.
"""

from __future__ import annotations

from handbook.kb.schema import Model
from handbook.render.context import RenderContext, attr, esc
from handbook.render.figures import figure_block
from handbook.render.html import table
from handbook.render.landscape import model_link
from handbook.render.markers import RenderError, renderer
from handbook.render.params import DEFAULT_KEYS


# ------------------------------------------------------------------------------------ chapter 05
@renderer("topologies")
def topologies(ctx: RenderContext, basis: str) -> str:
    """Chapter 05's layouts: the intro, then per layout a heading, its key flags and the KV caption; last,
    the official page the layouts follow (``basis=<source id>``)."""
    source = ctx.kb.sources.get(basis)
    if source is None:
        raise RenderError(f"{basis!r} is not a source id (kb/sources/<id>.yaml)")
    if source.url is None:
        raise RenderError(f"source {basis} has no url to link to")
    book = ctx.kb.topologies
    engine = esc(ctx.kb.handbook.engine)
    caption = (
        ctx.text_html(book.caption) + ctx.msg("sep-sentence") + ctx.text_html(book.shared_expert_premise)
    )
    out = ["> " + ctx.text_html(book.intro)]
    for topo in book.topologies:
        out.append(f"### {engine} · {topo.letter} · {esc(topo.name)} {{ #topology-{topo.letter.lower()} }}")
        out.append(ctx.msg("topology-settings", flags=f"<code>{esc(topo.flags)}</code>"))
        out.append(figure_block(ctx, topo.id))
        out.append(caption)
    out.append(ctx.msg("topology-basis", link=f'<a href="{attr(source.url)}">{engine}</a>'))
    return "\n\n".join(out)


# ------------------------------------------------------------------------------------ chapter 06.8
def _key_flags(ctx: RenderContext, model: Model) -> str:
    """The row's flag lines as code, each linked to its parameter's entry, then the row's remark."""
    rec = model.recommended
    assert rec is not None
    cells = []
    for line in rec.key_flags:
        parameter = ctx.kb.parameter(line.split()[0])
        assert parameter is not None, line  # the loader accepts only documented flags here
        cells.append(ctx.parameter_link(parameter, line))
    text = ctx.msg("sep-enum").join(cells)
    if rec.key_flags_note:
        text += f"<br><small>{ctx.text_html(rec.key_flags_note)}</small>"
    return text


def _image(ctx: RenderContext, model: Model) -> str:
    """The image tag (or the source's wording where it names none), and the source branch if there is one."""
    image = model.image
    if image is None:
        return "—"
    text = f"<code>{esc(image.tag)}</code>" if image.tag else ctx.text_html(image.stated)
    if image.branch:
        text += f"<br><small>{ctx.msg('quickref-branch', branch=f'<code>{esc(image.branch)}</code>')}</small>"
    return text


@renderer("quick-reference")
def quick_reference(ctx: RenderContext, models: str = "", highlight: str = "") -> str:
    """Chapter 06.8: per model the recommended TP/EP, key flags and image; ``highlight=`` rows in bold."""
    if models:
        ids = [m for m in models.split(",") if m]
        for mid in ids:
            if mid not in ctx.kb.models:
                raise RenderError(f"{mid!r} is not a model id")
            if ctx.kb.models[mid].recommended is None:
                raise RenderError(f"{mid} has no `recommended` entry in kb/models/{mid}.yaml")
    else:
        ids = [m.id for m in ctx.kb.models.values() if m.recommended is not None]
    bold = [m for m in highlight.split(",") if m]
    for mid in bold:
        if mid not in ids:
            raise RenderError(f"highlight={mid}: not one of the table's models")
    rows = []
    for mid in ids:
        m = ctx.kb.models[mid]
        assert m.recommended is not None
        name = model_link(ctx, m)
        rows.append(
            [
                f"<strong>{name}</strong>" if mid in bold else name,
                esc(ctx.t(m.recommended.layout)),
                _key_flags(ctx, m),
                _image(ctx, m),
            ]
        )
    if not rows:
        raise RenderError("no model has a `recommended` entry")
    headers = [
        ctx.msg("col-model"),
        ctx.msg("quickref-col-layout"),
        ctx.msg("quickref-col-flags"),
        ctx.msg("quickref-col-image"),
    ]
    return table(headers, rows)


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
