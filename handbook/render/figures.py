"""``<!-- kb:figure id=… -->``: one of the generated diagrams, in the page's language, with its caption."""

from __future__ import annotations

import posixpath

from handbook.diagrams.catalogue import drawable
from handbook.diagrams.dot import DiagramError
from handbook.render.context import RenderContext, esc
from handbook.render.markers import RenderError, renderer


def figure_block(ctx: RenderContext, figure_id: str) -> str:
    """The figure's SVG (committed under assets/, published by the build) as a Markdown image, so MkDocs
    checks the link and rewrites it for the page's URL; the alt text describes what the picture shows, and
    the image links to the SVG itself for a full-size view."""
    try:
        figures, problems = ctx.drawn if ctx.drawn is not None else drawable(ctx.kb)
    except DiagramError as exc:
        raise RenderError("the diagrams cannot be drawn: " + "; ".join(exc.problems)) from None
    figure = figures.get(figure_id)
    if figure is None:
        known = f"(one of: {', '.join(figures)})"
        if problems:
            known += "; some figures cannot be drawn: " + "; ".join(problems)
        raise RenderError(f"{figure_id!r} is not a figure id {known}")
    drawing = figure.drawings[ctx.lang]
    # The page is docs/<lang>/<page>; the SVG sits at the docs root's assets/… in the built site.
    src = posixpath.relpath(figure.path(ctx.lang), posixpath.dirname(f"{ctx.lang}/{ctx.page}"))
    return "\n".join(
        [
            f'<figure class="kb-figure" id="figure-{figure.id}" markdown="span">',
            f"[![{esc(drawing.alt)}]({src}){{ loading=lazy }}]({src})",
            f"<figcaption>{esc(drawing.caption)}</figcaption>",
            "</figure>",
        ]
    )


@renderer("figure")
def figure(ctx: RenderContext, id: str) -> str:
    """A generated diagram (kb/ data → graphviz → assets/…svg) with its caption and alt text."""
    return figure_block(ctx, id)
