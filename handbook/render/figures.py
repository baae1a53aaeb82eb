"""``<!-- kb:figure id=… -->``: one of the generated diagrams, in the page's language, with its caption."""

from __future__ import annotations

import posixpath

from handbook.core.paths import REPO_ROOT
from handbook.diagrams.catalogue import drawable
from handbook.diagrams.dot import DiagramError
from handbook.diagrams.files import legible_size
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import RenderError, renderer

# A figure whose legible width passes this would be shrunk below 9 px labels by a desktop page's text column
# (about 870 px at a 1400 px window): it keeps its legible width there too, and scrolls if it must.
WIDE_PX = 800


def figure_block(ctx: RenderContext, figure_id: str) -> str:
    """The figure's SVG (committed under assets/, published by the build) as a Markdown image, so MkDocs
    checks the link and rewrites it for the page's URL. The image is a link to the SVG itself (a tap opens
    it full size) and a scroll box: it is drawn at the width where its smallest label is 9 px high
    (``legible_size``), and a screen narrower than that scrolls it instead of shrinking it. Under the
    caption, the alt text is there to read as a text version of the picture."""
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
    committed = REPO_ROOT / figure.path(ctx.lang)
    if not committed.is_file():
        raise RenderError(f"{figure.path(ctx.lang)} is missing: run `python -m handbook generate`")
    width, height = legible_size(committed.read_text(encoding="utf-8"))
    # The page is docs/<lang>/<page>; the SVG sits at the docs root's assets/… in the built site.
    src = posixpath.relpath(figure.path(ctx.lang), posixpath.dirname(f"{ctx.lang}/{ctx.page}"))
    opens = attr(ctx.msg("figure-open"))
    wide = " .diagram-wide" if width > WIDE_PX else ""
    image = f'![{esc(drawing.alt)}]({src}){{ .diagram{wide} loading=lazy width="{width}" height="{height}" }}'
    return "\n".join(
        [
            f'<figure class="kb-figure" id="figure-{figure.id}" markdown="span">',
            f'[{image}]({src}){{ .figure-open title="{opens}" }}',
            f"<figcaption>{esc(drawing.caption)}</figcaption>",
            "</figure>",
            f'<details class="figure-text"><summary>{esc(ctx.msg("figure-text"))}</summary>'
            f"<p>{esc(drawing.alt)}</p></details>",
        ]
    )


@renderer("figure")
def figure(ctx: RenderContext, id: str) -> str:
    """A generated diagram (kb/ data → graphviz → assets/…svg) with its caption and alt text."""
    return figure_block(ctx, id)
