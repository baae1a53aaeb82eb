"""Chapter 05's topology section: per layout its key flags, its figure and the KV caption."""

from __future__ import annotations

from handbook.render.context import RenderContext, attr, esc
from handbook.render.figures import figure_block
from handbook.render.markers import RenderError, renderer
from handbook.render.params import section_link
from handbook.render.verdicts import note_span

# Where chapter 05 explains the EP/TP constraints the layouts' intro names, with the engine's notes.
CONSTRAINTS_SECTION = "05-parallelism.md#ep-constraint"


@renderer("topologies")
def topologies(ctx: RenderContext, basis: str) -> str:
    """Chapter 05's layouts: the intro, then per layout a heading, its key flags and its figure; once, after
    the last, the caption every figure shares; last, the official page the layouts follow
    (``basis=<source id>``)."""
    source = ctx.kb.sources.get(basis)
    if source is None:
        raise RenderError(f"{basis!r} is not a source id (kb/sources/<id>.yaml)")
    if source.url is None:
        raise RenderError(f"source {basis} has no url to link to")
    book = ctx.kb.topologies
    engine = esc(ctx.kb.handbook.engine)
    caption = ctx.msg("sep-sentence").join(
        [
            ctx.text_html(book.caption),
            ctx.text_html(book.shared_expert_premise),
            ctx.msg("topology-settings-note"),
        ]
    )
    out = ["> " + ctx.text_html(book.intro)]
    rules = list(dict.fromkeys(r for topo in book.topologies for r in topo.rules))
    if rules:  # the intro names the EP/TP constraints; what the engine does with them is told where EP is
        section = section_link(ctx, CONSTRAINTS_SECTION)
        out.append("<p>" + note_span(ctx, rules, ctx.msg("topology-constraints", section=section)) + "</p>")
    for topo in book.topologies:
        out.append(f"### {engine} · {topo.letter} · {esc(topo.name)} {{ #topology-{topo.letter.lower()} }}")
        out.append(ctx.msg("topology-settings", flags=f"<code>{esc(topo.flags)}</code>"))
        out.append(figure_block(ctx, topo.id))
    out.append(caption)
    out.append(ctx.msg("topology-basis", link=f'<a href="{attr(source.url)}">{esc(ctx.t(source.title))}</a>'))
    return "\n\n".join(out)
